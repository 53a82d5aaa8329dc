"""Load a model file that follows the example protocol of `examples/`.

A model file defines `energy_forces(dtype) -> fn`, `inputs(n_atoms, dtype, seed) ->
dict[str, Tensor]` and `dynamic_shapes`; optionally `training_step`,
`training_inputs` and `training_dynamic_shapes` for the training variant, and
`DEFAULT_ATOMS`.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import torch


@dataclass
class Example:
    name: str
    fn: Callable[..., Any]
    make_inputs: Callable[[int, torch.dtype, int], dict[str, torch.Tensor]]
    dynamic_shapes: Any
    default_atoms: int


def load_module(path: str | Path) -> ModuleType:
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    if (path.parent / "__init__.py").exists():
        sys.path.insert(0, str(path.parent.parent))
        return importlib.import_module(f"{path.parent.name}.{path.stem}")
    sys.path.insert(0, str(path.parent))
    return importlib.import_module(path.stem)


def load_example(path: str | Path, *, training: bool = False, dtype: torch.dtype = torch.float32) -> Example:
    mod = load_module(path)
    prefix = "training_" if training else ""
    factory = getattr(mod, "training_step" if training else "energy_forces", None)
    if factory is None:
        what = "training_step" if training else "energy_forces"
        raise AttributeError(f"{path} defines no {what}(dtype)")
    return Example(
        name=Path(path).stem + ("_training" if training else ""),
        fn=factory(dtype),
        make_inputs=getattr(mod, f"{prefix}inputs"),
        dynamic_shapes=getattr(mod, f"{prefix}dynamic_shapes"),
        default_atoms=getattr(mod, "DEFAULT_ATOMS", 32),
    )
