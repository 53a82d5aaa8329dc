"""NequIP, Allegro and MACE as MD potentials: `compile_potential` of the packages' own
models in periodic triclinic cells, against eager PyTorch, against ASE's finite
differences, and in LAMMPS (NequIP's two message-passing layers need the ghost shell of
2 x cutoff) on 1 and 2 MPI ranks against the ASE calculator. Needs the `models` and `md`
extras (MACE: where mace-torch imports, a venv of its own; its "bench" configuration)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

from conftest import missing_tools, relative_error  # noqa: E402
from md_systems import crystal  # noqa: E402  (skips without ase and vesin)

from ase.calculators.fd import calculate_numerical_forces, calculate_numerical_stress  # noqa: E402
from examples.common import CUTOFF  # noqa: E402
from examples import real_models  # noqa: E402
from examples.real_models import CONFIGS, TYPE_NAMES  # noqa: E402
from pipeline.md.ase import Calculator, inputs  # noqa: E402
from pipeline.md.potential import compile_potential, energy_forces_virial  # noqa: E402

NAMES = [name for name in real_models.MODELS if not real_models.unavailable(name)]
if not NAMES:
    pytest.skip("none of nequip, allegro, mace imports here (the `models` extra)", allow_module_level=True)
CONFIG = {"nequip": "small", "allegro": "small", "mace": "bench"}
LAYERS = {"nequip": CONFIGS["nequip"]["small"]["num_layers"], "allegro": 1,  # Allegro is strictly local
          "mace": CONFIGS["mace"]["bench"]["num_interactions"]}


def atoms(repeat, seed: int):
    """An H/C crystal (the models' two species), rattled, in a sheared periodic cell."""
    a = crystal(repeat, seed, triclinic=0.06, a=3.4)
    a.set_chemical_symbols(["H" if s == "Ar" else "C" for s in a.get_chemical_symbols()])
    return a


@functools.cache
def potential(name: str):
    model = real_models.per_atom_energies(name, "float64", CONFIG[name])
    example = inputs(atoms(2, 0), CUTOFF, TYPE_NAMES)
    return model, compile_potential(model, example, cutoff=CUTOFF, species=TYPE_NAMES, layers=LAYERS[name])


@pytest.mark.parametrize("name", NAMES)
def test_matches_eager_in_a_periodic_cell(name: str) -> None:
    model, pot = potential(name)
    reference = energy_forces_virial(model)
    for repeat in [(2, 3, 2), 3]:  # 48 and 108 atoms; traced at 32
        args = inputs(atoms(repeat, 5), CUTOFF, TYPE_NAMES)
        n = args[1].shape[0]
        for n_local in (n, n // 3):
            got, want = pot(*args, n_local=n_local), reference(*args, torch.tensor(n_local))
            for field, g, w in zip(("energy", "energies", "forces", "virial"), got, want):
                assert relative_error(g, w.detach()) <= 1e-10, (name, n, n_local, field)


@pytest.mark.parametrize("name", NAMES)
def test_forces_and_stress_are_finite_differences(name: str) -> None:
    a = atoms((2, 2, 3), 7)
    a.calc = Calculator(potential(name)[1])
    forces, stress = a.get_forces(), a.get_stress()
    assert np.abs(forces - calculate_numerical_forces(a, eps=1e-4)).max() <= 1e-6 * np.abs(forces).max()
    assert np.abs(stress - calculate_numerical_stress(a, eps=1e-5)).max() <= 1e-6 * np.abs(stress).max()


def test_nequip_in_lammps(tmp_path_factory: pytest.TempPathFactory) -> None:
    """NequIP's step-0 energy, forces and stress in LAMMPS (serial and 2 ranks, ghost shell
    2 x cutoff) equal the ASE calculator's."""
    from lammps_runner import compute_with_lammps, lammps_missing

    if "nequip" not in NAMES:
        pytest.skip(real_models.unavailable("nequip") or "")
    missing = lammps_missing()
    if missing:
        pytest.skip(f"LAMMPS is not available: {missing}")
    if why := missing_tools("cc", "c++"):
        pytest.skip(why)
    from pipeline.md.lammps import build_plugin

    root = tmp_path_factory.mktemp("nequip_lammps")
    plugin = build_plugin(root / "plugin")
    library = potential("nequip")[1].export(root / "model", name="nequip_small")
    a = atoms(3, 9)
    a.calc = Calculator(potential("nequip")[1])
    energy, forces, stress = a.get_potential_energy(), a.get_forces(), a.get_stress()
    for ranks in (1, 2):
        result = compute_with_lammps(a, library, TYPE_NAMES, plugin, root / f"ranks{ranks}", ranks=ranks)
        assert abs(result.energy - energy) <= 1e-10 * abs(energy)
        assert np.abs(result.forces - forces).max() <= 1e-10 * np.abs(forces).max()
        assert np.abs(result.stress - stress).max() <= 1e-10 * np.abs(stress).max()
