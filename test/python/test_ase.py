"""The ASE calculator: forces and stress against ASE's finite differences on a periodic
triclinic cell, energy conservation in NVE, open systems, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from md_systems import NAMES, crystal, potential

from ase import units
from ase.calculators.calculator import PropertyNotImplementedError
from ase.calculators.fd import calculate_numerical_forces, calculate_numerical_stress
from ase.md.velocitydistribution import thermalize_momenta
from ase.md.verlet import VelocityVerlet
from pipeline.md.ase import Calculator


@pytest.mark.parametrize("name", NAMES)
def test_forces_and_stress_are_finite_differences(name: str) -> None:
    atoms = crystal((2, 2, 3), seed=5, triclinic=0.08)  # 48 atoms, never traced
    atoms.calc = Calculator(potential(name, torch.float64))
    forces, stress = atoms.get_forces(), atoms.get_stress()
    numeric_forces = calculate_numerical_forces(atoms, eps=1e-4)
    numeric_stress = calculate_numerical_stress(atoms, eps=1e-5)
    assert np.abs(forces - numeric_forces).max() <= 1e-6 * np.abs(forces).max()
    assert np.abs(stress - numeric_stress).max() <= 1e-6 * np.abs(stress).max()
    assert atoms.get_potential_energies().sum() == pytest.approx(atoms.get_potential_energy(), rel=1e-12)
    assert atoms.get_potential_energy(force_consistent=True) == atoms.get_potential_energy()


def test_nve_conserves_energy() -> None:
    """500 velocity-Verlet steps of 2 fs at 40 K: the total energy stays put."""
    atoms = crystal(3, seed=2, triclinic=0.02, rattle=0.05, a=3.5)
    atoms.calc = Calculator(potential("message_passing", torch.float64))
    thermalize_momenta(atoms, temperature_K=40, rng=np.random.default_rng(0))
    total = []
    dyn = VelocityVerlet(atoms, timestep=2 * units.fs)
    dyn.attach(lambda: total.append(atoms.get_total_energy()), interval=10)
    dyn.run(500)
    kinetic = atoms.get_kinetic_energy()
    drift = max(total) - min(total)
    print(f"NVE drift over 500 steps: {drift:.2e} eV, kinetic {kinetic:.3f} eV")
    assert kinetic > 0.05 and drift < 2e-3 * kinetic


def test_open_system() -> None:
    atoms = crystal(1, seed=4)
    atoms.pbc = False
    atoms.cell = np.zeros((3, 3))
    atoms.calc = Calculator(potential("pair", torch.float64))
    forces = atoms.get_forces()
    assert np.abs(forces - calculate_numerical_forces(atoms, eps=1e-4)).max() <= 1e-6 * np.abs(forces).max()
    with pytest.raises(PropertyNotImplementedError, match="stress needs a cell with a volume"):
        atoms.get_stress()


def test_unknown_species_is_named() -> None:
    atoms = crystal(1, seed=4)
    atoms[0].symbol = "Xe"
    atoms.calc = Calculator(potential("pair", torch.float64))
    with pytest.raises(ValueError, match="the atoms hold Xe, which the potential does not know"):
        atoms.get_potential_energy()


def test_species_map_from_the_user() -> None:
    """species= renames the model's species: here Ne is species 0."""
    atoms = crystal(1, seed=4)
    reference = atoms.copy()
    reference.calc = Calculator(potential("pair", torch.float64))
    atoms.set_chemical_symbols(["Ne" if s == "Ar" else s for s in atoms.get_chemical_symbols()])
    atoms.calc = Calculator(potential("pair", torch.float64), species=["Ne", "Kr"])
    assert atoms.get_potential_energy() == reference.get_potential_energy()
