"""Potentials from the files users hold: a package's pretrained model or model file,
compiled; or a potential library this compiler wrote, loaded back through its C ABI.

    potential = pipeline.load_potential("sevenn:7net-0")        # compiled from the wheel's file
    potential.export("build", name="sevenn")                     # build/sevenn.so for LAMMPS, ASE
    potential = pipeline.load_potential("build/sevenn.so")       # the artifact itself, no torch
    atoms.calc = pipeline.md.ase.Calculator(potential)           # species from the file

SOURCE is `sevenn:NAME` (or a SevenNet checkpoint), `chgnet:VERSION`, `so3lr`, a MACE
`.model` file, a NequIP/Allegro `.nequip.zip` package, a SchNetPack model file, or a
`.so` that `Potential.export` (or `python -m pipeline potential`) wrote. Each package has
an adapter in `pipeline.md.adapters`; a file's kind is read from its name and, for a
`torch.save` archive, from the class names in its pickle (never by unpickling it first).
"""

from __future__ import annotations

import importlib
import pickletools
import zipfile
from pathlib import Path
from typing import Any

import torch

from pipeline.deploy.export import PotentialInfo
from pipeline.deploy.library import Library
from pipeline.md.adapters import Adapted, AdapterError
from pipeline.md.potential import Potential, compile_potential

PACKAGE_PREFIXES = {"sevenn": "sevenn", "chgnet": "chgnet", "so3lr": "so3lr"}
"""`PREFIX:NAME` sources (a model the package's wheel ships) -> adapter module."""

PICKLED_PACKAGES = {"mace": "mace", "schnetpack": "schnetpack", "sevenn": "sevenn", "nequip": "nequip"}
"""The top-level module of a pickled model's class -> adapter module."""

CHECKPOINT_KEYS = {"sevenn": {"config", "model_state_dict"}, "chgnet": {"model", "model_args", "state_dict"}}
"""A checkpoint dict's keys -> adapter module (checkpoints that pickle no class of their
package: a state dict and the arguments to rebuild the model)."""

SOURCES = ("sevenn:NAME, a SevenNet checkpoint, chgnet:VERSION, so3lr, a MACE .model file, "
           "a NequIP .nequip.zip package, a SchNetPack model file, or a potential .so")


def load_potential(source: str | Path, dtype: torch.dtype | None = None, **options: Any) -> Potential:
    """The potential of `source`: compiled for any N and E (in the model's own dtype unless
    `dtype` says otherwise), or, for a `.so`, the exported library as it is. `options` go
    to `pipeline.compile` (dump_dir, profile, ...)."""
    path = Path(source)
    if path.suffix == ".so":
        return _from_library(path, dtype)
    adapter = _adapter(str(source), path)
    adapted: Adapted = importlib.import_module(f"pipeline.md.adapters.{adapter}").adapt(str(source), dtype)
    return compile_potential(adapted.model, example(adapted), cutoff=adapted.cutoff, species=adapted.species,
                             layers=adapted.layers, differentiate=adapted.differentiate, name=adapted.name,
                             **options)


def _adapter(source: str, path: Path) -> str:
    """The adapter module's name for `source`."""
    prefix = source.split(":", 1)[0]
    if prefix in PACKAGE_PREFIXES and (":" in source or source == "so3lr") and not path.exists():
        return PACKAGE_PREFIXES[prefix]
    if not path.is_file():
        raise AdapterError(f"{source}: no such file, and not a packaged model; a source is {SOURCES}")
    if path.name.endswith(".nequip.zip"):
        return "nequip"
    if path.suffix == ".model":
        return "mace"
    adapter, classes = file_kind(path)
    if adapter is not None:
        return adapter
    named = ", ".join(sorted(c for c in classes if not c.startswith(("torch.", "collections.", "__builtin__."))))
    raise AdapterError(f"{source}: not a model file of a package pipeline knows (its pickle holds "
                       f"{named or 'only torch and builtin types'}); a source is {SOURCES}")


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


def example(adapted: Adapted) -> tuple[torch.Tensor, ...]:
    """A small periodic configuration to trace on (N and E are symbolic, so its size does not
    matter): 8 atoms of the model's first species on a rattled simple-cubic cell of 2.6 A."""
    from ase import Atoms

    from pipeline.md.ase import inputs

    symbols = [adapted.species[k % min(4, len(adapted.species))] for k in range(8)]
    grid = torch.cartesian_prod(*[torch.arange(2.0)] * 3) * 2.6
    noise = torch.rand(8, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 0.2 - 0.1
    atoms = Atoms(symbols, positions=(grid + noise).numpy(), cell=[5.2] * 3, pbc=True)
    return inputs(atoms, adapted.cutoff, adapted.species, adapted.dtype)


def _from_library(path: Path, dtype: torch.dtype | None) -> Potential:
    """An exported potential, called through its C ABI."""
    library = Library(path)
    info = library.manifest.get("potential")
    if info is None:
        raise AdapterError(f"{path} is a library of pipeline's but not a potential (export it with "
                           "Potential.export or `python -m pipeline potential`)")
    potential = Potential(library, PotentialInfo(float(info["cutoff"]), int(info["layers"]), tuple(info["species"])))
    if dtype is not None and dtype != potential.dtype:
        raise AdapterError(f"{path} computes in {potential.dtype}; dtype={dtype} needs a compile from the model")
    return potential


__all__ = ["load_potential", "pickled_names"]
