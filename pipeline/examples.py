"""Load a model file that follows the example protocol of `examples/`.

A model file defines `energy_forces(dtype) -> fn`, `inputs(n_atoms, dtype, seed) ->
dict[str, Tensor]` and `dynamic_shapes`; optionally `training_step`,
`training_inputs` and `training_dynamic_shapes` for the training variant, and
`DEFAULT_ATOMS`.

A file that does not (not Python, a script, a library of pieces, a builder of several
models, one that needs a package not installed here) is refused with an `ExampleError`
whose message is one line saying what the file needs; the driver prints it and exits
with 2. The checks are on the protocol (names, call signatures, what `inputs` returns),
before anything is traced, so no file reaches the compiler half-loaded.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # imported once a file is a model file: load_module refuses the others without torch
    import torch

PROTOCOL = ("a model file defines energy_forces(dtype), inputs(n_atoms, dtype, seed) and dynamic_shapes "
            "(pipeline/examples.py)")


class ExampleError(Exception):
    """A file the driver cannot use as a model file; the message is one line saying why
    and what the file needs."""


@dataclass
class Example:
    name: str
    fn: Callable[..., Any]
    make_inputs: Callable[[int, torch.dtype, int], dict[str, torch.Tensor]]
    dynamic_shapes: Any
    default_atoms: int
    path: str = ""

    def inputs(self, n_atoms: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
        """`make_inputs(n_atoms, dtype, seed)`, checked: a dict of tensors named after the
        function's parameters."""
        import torch

        made = self.make_inputs(n_atoms, dtype, seed)
        if not isinstance(made, dict) or not all(isinstance(v, torch.Tensor) for v in made.values()):
            raise ExampleError(f"{self.path}: its inputs(n_atoms, dtype, seed) must return a dict of tensors "
                               f"(argument name -> tensor), not {type(made).__name__}")
        return made


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _extras() -> dict[str, str]:
    """Requirement name -> the extra of this package that brings it (`ase` -> `md`)."""
    try:
        requires = importlib.metadata.requires("pipeline") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    extras = {}
    for line in requires:
        m = re.match(r"\s*([A-Za-z0-9_.-]+).*;\s*extra\s*==\s*['\"]([^'\"]+)['\"]", line)
        if m:
            extras[m[1].lower().replace("_", "-")] = m[2]
    return extras


def missing_package(module: str) -> str:
    """`needs X` for a module that does not import, naming this package's extra that brings it."""
    top = module.split(".")[0]
    name = top.lower().replace("_", "-")
    for requirement, extra in _extras().items():
        if requirement == name or requirement.endswith("-" + name):  # nequip-allegro brings `allegro`
            return f"needs the `{extra}` extra (`{top}` does not import here): pip install -e '.[{extra}]'"
    return f"needs the package `{top}`, which does not import here"


def load_module(path: str | Path) -> ModuleType:
    """Import the model file `path` (as `package.module` when its folder is a package, so
    that its relative imports work), or raise ExampleError saying why it cannot be."""
    shown = str(path)
    path = Path(path).resolve()
    if not path.is_file():
        raise ExampleError(f"{shown}: no such file")
    if path.suffix != ".py":
        raise ExampleError(f"{shown} is not a Python file: {PROTOCOL}")
    if (path.parent / "__init__.py").exists():
        root, name = path.parent.parent, f"{path.parent.name}.{path.stem}"
    else:
        root, name = path.parent, path.stem
    if not all(part.isidentifier() for part in name.split(".")):
        raise ExampleError(f"{shown}: `{name}` is not a Python module name; rename the file")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] == name.split(".")[0]:
            raise ExampleError(f"{shown}: `{name}` does not import from {root}") from e
        raise ExampleError(f"{shown} {missing_package(e.name or '?')}") from e
    except SystemExit as e:
        raise ExampleError(f"{shown} exits when imported (code {e.code}): it is a script, not a model file; "
                           f"run it with python, or see {PROTOCOL}") from e
    except Exception as e:  # noqa: BLE001  (whatever the file's own code raises while it imports)
        raise ExampleError(f"{shown} fails to import: {type(e).__name__}: {_one_line(e)}") from e
    found = getattr(module, "__file__", None)
    if found is None or Path(found).resolve() != path:
        raise ExampleError(f"{shown}: the module name `{name}` is taken by {found or 'a built-in module'}; "
                           "rename the file")
    return module


def _describe(module: ModuleType) -> str:
    """What a file that is not a model file is, as far as its names tell: ` (a script: ...)`."""
    models = getattr(module, "MODELS", None)
    if isinstance(models, (list, tuple, dict)) and models and all(isinstance(m, str) for m in models):
        return f" (it builds several models: {', '.join(models)})"
    if callable(getattr(module, "main", None)):
        return " (a script: run it with python)"
    return ""


def _or(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def _accepts(fn: Callable[..., Any], *args: Any) -> bool:
    try:
        inspect.signature(fn).bind(*args)
    except TypeError:
        return False
    except ValueError:  # no signature (a builtin): let the call tell
        return True
    return True


def load_example(path: str | Path, *, training: bool = False, dtype: torch.dtype | None = None) -> Example:
    """The model of the file `path` (its training variant with `training`), built in `dtype`
    (default float32). Raises ExampleError, one line, for a file that is not a model file."""
    module = load_module(path)
    import torch

    dtype = torch.float32 if dtype is None else dtype
    _check_variant(path, module, "energy_forces", "inputs", "dynamic_shapes", dtype)  # a model file at all?
    factory_name, inputs_name, shapes_name = "energy_forces", "inputs", "dynamic_shapes"
    if training:
        factory_name, inputs_name, shapes_name = "training_step", "training_inputs", "training_dynamic_shapes"
        missing = [n for n in (factory_name, inputs_name, shapes_name) if not hasattr(module, n)]
        if missing:
            raise ExampleError(f"{path} has no training variant: it defines no {_or(missing)} (a training variant "
                               "defines training_step(dtype), training_inputs(n_atoms, dtype, seed) and "
                               "training_dynamic_shapes)")
        _check_variant(path, module, factory_name, inputs_name, shapes_name, dtype)
    factory, make_inputs = getattr(module, factory_name), getattr(module, inputs_name)
    try:
        fn = factory(dtype)
    except ModuleNotFoundError as e:
        raise ExampleError(f"{path} {missing_package(e.name or '?')}") from e
    except Exception as e:  # noqa: BLE001  (the model's own constructor)
        raise ExampleError(f"{path}: {factory_name}({dtype}) raised {type(e).__name__}: {_one_line(e)}") from e
    if not callable(fn):
        raise ExampleError(f"{path}: {factory_name}(dtype) must return the function to compile, "
                           f"not {type(fn).__name__}")
    default_atoms = getattr(module, "DEFAULT_ATOMS", 32)
    if not isinstance(default_atoms, int) or default_atoms < 2:
        raise ExampleError(f"{path}: DEFAULT_ATOMS must be an int of at least 2, not {default_atoms!r}")
    return Example(
        name=Path(path).stem + ("_training" if training else ""),
        fn=fn,
        make_inputs=make_inputs,
        dynamic_shapes=getattr(module, shapes_name),
        default_atoms=default_atoms,
        path=str(path),
    )


def _check_variant(path: str | Path, module: ModuleType, factory_name: str, inputs_name: str, shapes_name: str,
                   dtype: torch.dtype) -> None:
    """The three names of a variant are there and take what the driver passes them."""
    missing = [n for n in (factory_name, inputs_name, shapes_name) if not hasattr(module, n)]
    if missing:
        raise ExampleError(f"{path} is not a model file{_describe(module)}: it defines no {_or(missing)}; {PROTOCOL}")
    factory, make_inputs = getattr(module, factory_name), getattr(module, inputs_name)
    if not callable(factory) or not _accepts(factory, dtype):
        own = f"{factory_name}{_signature(factory)}"
        if hasattr(module, "MODELS"):
            raise ExampleError(f"{path} is not a model file{_describe(module)}: its {own} is not "
                               f"{factory_name}(dtype); {PROTOCOL}")
        raise ExampleError(f"{path}: {own} must take the dtype alone: {factory_name}(dtype)")
    if not callable(make_inputs) or not _accepts(make_inputs, 1, dtype, 0):
        raise ExampleError(f"{path}: {inputs_name}{_signature(make_inputs)} must take "
                           f"{inputs_name}(n_atoms, dtype, seed)")


def _signature(fn: Any) -> str:
    """`(name, model_dtype, config)`: the parameter names only."""
    if not callable(fn):
        return f" (a {type(fn).__name__}, not a function)"
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return "(...)"
    return "(" + ", ".join(("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
                           for p in parameters) + ")"
