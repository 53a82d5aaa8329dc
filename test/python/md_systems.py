"""Periodic systems and compiled potentials shared by the MD tests (ASE, LAMMPS, the C ABI).

Each potential of examples/md_potentials.py is compiled once per dtype per session, traced
on a 2x2x2 cubic cell (32 atoms); the tests run other sizes and triclinic cells.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

from examples import md_potentials

pytest.importorskip("ase", reason="the MD tests need the `md` extra: pip install -e '.[md]'")
pytest.importorskip("vesin", reason="the MD tests need the `md` extra: pip install -e '.[md]'")

import ase.build  # noqa: E402

from pipeline.md.ase import inputs  # noqa: E402
from pipeline.md.potential import Potential, compile_potential  # noqa: E402

NAMES = list(md_potentials.MODELS)


def crystal(repeat: int | tuple[int, int, int], seed: int, *, triclinic: float = 0.05,
            rattle: float = 0.1, a: float = 3.4) -> ase.Atoms:
    """A rattled fcc crystal of Ar and Kr in a periodic cell sheared by `triclinic`."""
    atoms = ase.build.bulk("Ar", "fcc", a=a, cubic=True).repeat(repeat)
    rng = np.random.default_rng(seed)
    atoms.positions += rng.normal(0.0, rattle, atoms.positions.shape)
    shear = np.eye(3) + rng.uniform(-triclinic, triclinic, (3, 3))
    atoms.set_cell(atoms.cell.array @ shear, scale_atoms=True)
    atoms.set_chemical_symbols(rng.choice(md_potentials.SPECIES, len(atoms)))
    return atoms


def model(name: str, dtype: torch.dtype) -> torch.nn.Module:
    return md_potentials.build(name, dtype)


@functools.cache
def potential(name: str, dtype: torch.dtype) -> Potential:
    example = inputs(crystal(2, 0), md_potentials.CUTOFF, md_potentials.SPECIES, dtype)
    return compile_potential(model(name, dtype), example, cutoff=md_potentials.CUTOFF,
                             species=md_potentials.SPECIES, layers=md_potentials.MODELS[name][1])
