"""Which package a model file belongs to, read from its `torch.save` pickle as opcodes
(the classes it refers to, its dict keys): nothing is unpickled, so a file is never run
before an adapter that knows it loads it with its package's own loader."""

from __future__ import annotations

import pickletools
import zipfile
from pathlib import Path

from pipeline.md.adapters import AdapterError

PICKLED_PACKAGES = {"mace": "mace", "schnetpack": "schnetpack", "sevenn": "sevenn", "nequip": "nequip"}
"""The top-level module of a pickled model's class -> adapter module."""

CHECKPOINT_KEYS = {"sevenn": {"config", "model_state_dict"}, "chgnet": {"model", "model_args", "state_dict"}}
"""A checkpoint dict's keys -> adapter module (checkpoints that pickle no class of their
package: a state dict and the arguments to rebuild the model)."""


def file_kind(path: Path) -> tuple[str | None, set[str]]:
    """The adapter module of a `torch.save` archive (None if no package claims it), from the
    classes and dict keys of its pickle; and the classes."""
    classes, strings = pickled_names(path)
    modules = {c.split(".")[0] for c in classes}
    for module, adapter in PICKLED_PACKAGES.items():
        if module in modules:
            return adapter, classes
    for adapter, keys in CHECKPOINT_KEYS.items():
        if keys <= strings:
            return adapter, classes
    return None, classes


def claims(path: str | Path, adapter: str) -> bool:
    """Whether `path` is a model file of `adapter`'s package."""
    try:
        return Path(path).is_file() and file_kind(Path(path))[0] == adapter
    except AdapterError:
        return False


def pickled_names(path: Path) -> tuple[set[str], set[str]]:
    """The classes (`module.name`) a `torch.save` archive's pickle refers to, and its short
    strings (dict keys): read from the opcodes, nothing is executed."""
    try:
        with zipfile.ZipFile(path) as z:
            data = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    except (zipfile.BadZipFile, StopIteration, OSError) as e:
        raise AdapterError(f"{path}: not a torch.save archive ({e})") from None
    classes: set[str] = set()
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(data):
        if op.name == "GLOBAL":  # "module name"
            classes.add(".".join(str(arg).split()))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:  # module and name pushed before it
            classes.add(f"{strings[-2]}.{strings[-1]}")
        elif isinstance(arg, str):
            strings.append(arg)
    return classes, {s for s in strings if len(s) < 64}


__all__ = ["claims", "file_kind", "pickled_names"]
