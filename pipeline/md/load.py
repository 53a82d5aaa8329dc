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
from pathlib import Path
from typing import Any

import torch

from pipeline.deploy.export import PotentialInfo
from pipeline.deploy.library import Library
from pipeline.md.adapters import Adapted, AdapterError
from pipeline.md.adapters.files import file_kind
from pipeline.md.potential import Potential, compile_potential

PACKAGE_PREFIXES = {"sevenn": "sevenn", "chgnet": "chgnet", "so3lr": "so3lr"}
"""`PREFIX:NAME` sources (a model the package's wheel ships) -> adapter module."""

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


__all__ = ["load_potential"]
