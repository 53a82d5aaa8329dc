"""SO3LR (so3krates-torch 0.2.1): the pretrained SO3LR shipped in the wheel
(`so3krates_torch.calculator.so3.SO3LRCalculator()`: a 4.5 A short-range and a 12 A
long-range neighbor list; ZBL repulsion, electrostatics and D3-like dispersion inside),
float32 (its weights' dtype).

A molecule-like cluster of H, C, N, O; the batch dict the calculator hands the model,
built from tensors (one graph: batch all 0, ptr [0, N], zero shifts and cell, neutral,
head 0), and the model's own forces (`compute_force=True`: its autograd.grad of the energy
with respect to the positions)."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, error, radius_graph, species

pytest.importorskip("so3krates_torch")

ELEMENTS = (1, 6, 7, 8)
N = Dim("N", min=2)
DYNAMIC = {"positions": {0: N}, "atomic_numbers": {0: N}, "edge_index": {1: Dim("E", min=1)},
           "edge_index_lr": {1: Dim("L", min=1)}}


@functools.cache
def calculator():
    from so3krates_torch.calculator.so3 import SO3LRCalculator

    return SO3LRCalculator(device="cpu")


def energy_forces(positions, atomic_numbers, edge_index, edge_index_lr):
    model = calculator().models[0]
    batch = torch.zeros_like(atomic_numbers)
    out = model({
        "positions": positions,
        "atomic_numbers": atomic_numbers,
        "node_attrs": torch.nn.functional.one_hot(atomic_numbers - 1, 118).to(positions.dtype),
        "batch": batch,
        "ptr": torch.stack([batch[0], batch[0] + atomic_numbers.shape[0]]),
        "edge_index": edge_index,
        "edge_index_lr": edge_index_lr,
        "shifts": positions.new_zeros(edge_index.shape[1], 3),
        "shifts_lr": positions.new_zeros(edge_index_lr.shape[1], 3),
        "unit_shifts": positions.new_zeros(edge_index.shape[1], 3),
        "unit_shifts_lr": positions.new_zeros(edge_index_lr.shape[1], 3),
        "cell": positions.new_zeros(3, 3),
        "total_charge": positions.new_zeros(1),
        "total_spin": positions.new_zeros(1),
        "head": batch[:1] * 0,
    })
    return out["energy"].reshape(()), out["forces"]


def inputs(n: int, seed: int):
    calc = calculator()
    pos = cluster(n, seed, spacing=1.5, jitter=0.15, dtype=torch.float32)
    return {"positions": pos, "atomic_numbers": species(n, seed, ELEMENTS),
            "edge_index": radius_graph(pos, calc.r_max), "edge_index_lr": radius_graph(pos, calc.r_max_lr)}


def test_eager_matches_the_ase_calculator():
    from ase import Atoms

    args = inputs(12, 3)
    energy, forces = energy_forces(**args)
    atoms = Atoms(numbers=args["atomic_numbers"].numpy(), positions=args["positions"].detach().double().numpy())
    atoms.calc = calculator()
    assert abs(atoms.get_potential_energy() - energy.item()) <= 1e-5 * abs(energy.item())
    assert torch.allclose(torch.as_tensor(atoms.get_forces(), dtype=torch.float32), forces, atol=1e-4)


def test_eager():
    check_eager(energy_forces, inputs)


def test_aten_ops():
    check_aten_ops(energy_forces, inputs(13, 0), DYNAMIC)


def test_compiled_matches_eager_f32():
    compile_and_compare(energy_forces, inputs, DYNAMIC, torch.float32)


# --- The adapter: pipeline.load_potential("so3lr") (pipeline/md/adapters/so3lr.py) ---------
# One 12 A neighbour list (the long-range cutoff); the 4.5 A list is its subset inside the
# model. References: the package's own `SO3LRCalculator(compute_stress=True)` on rattled
# periodic water boxes (27 and 36 molecules at 1.0 g/cm^3, random orientations, rattled by
# 0.05 A): SO3LR is trained on H C N O F P S Cl only (Si, the house's usual test crystal,
# carries untrained weights and is not among the adapter's species). With a cell the
# calculator's long-range terms stay real space (shifted-force Coulomb switched off at 12 A,
# dispersion switched off over 10-12 A; no Ewald/PME), so one 12 A list is all of it.
# float64: within the house tolerance of the calculator converted to float64
# (`default_dtype="float64"`). float32: both round in float32 in their own orders (the
# virial is a long sum of per-edge terms that nearly cancel: the calculator's own float32
# stress is ~2e-5 off its float64), so ours is compared with the float64 calculator and
# must be within 1e-5 of it, or no further than twice the calculator's float32 result is;
# `-s` prints the figures and the compile time.

import contextlib  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from conftest import TOLERANCE  # noqa: E402

WATER_BOXES = [(3, 3, 3), (3, 3, 4)]  # 81 and 108 atoms
PROPERTIES = ("energy", "forces", "stress")


@contextlib.contextmanager
def default_dtype(dtype: torch.dtype | None):
    """The default dtype set to `dtype` (None: left alone) inside, restored after."""
    default = torch.get_default_dtype()
    try:
        if dtype is not None:
            torch.set_default_dtype(dtype)
        yield
    finally:
        torch.set_default_dtype(default)


def package_calculator(dtype: str = "", **kwargs):
    """SO3LRCalculator(...) without its side effect on the default dtype (it sets it to the
    model's; its float64 batches need it set to float64 while it computes: `results`)."""
    from so3krates_torch.calculator.so3 import SO3LRCalculator

    with default_dtype(None):
        return SO3LRCalculator(device="cpu", default_dtype=dtype, **kwargs)


def water_box(repeat: tuple[int, int, int], seed: int, spacing: float = 3.1):
    """Water molecules on a simple-cubic grid of `spacing` (A) in a periodic cell, each turned
    at random, then every atom rattled by 0.05 A."""
    from ase import Atoms
    from ase.build import molecule

    rng = np.random.default_rng(seed)
    water = molecule("H2O")
    water.positions -= water.get_center_of_mass()
    symbols, positions = [], []
    for site in np.ndindex(*repeat):
        q, r = np.linalg.qr(rng.normal(size=(3, 3)))
        rotation = q * np.sign(np.diag(r)) * np.linalg.det(q * np.sign(np.diag(r)))
        positions.extend(water.positions @ rotation.T + (np.array(site) + 0.5) * spacing)
        symbols += water.get_chemical_symbols()
    atoms = Atoms(symbols, positions=positions, cell=np.array(repeat) * spacing, pbc=True)
    atoms.rattle(stdev=0.05, seed=seed)
    return atoms


def results(atoms, calc, dtype: torch.dtype | None = None) -> dict[str, np.ndarray]:
    """Energy, forces, stress of `calc` on a copy of `atoms`, with the default dtype `dtype`."""
    atoms = atoms.copy()
    atoms.calc = calc
    with default_dtype(dtype):
        return {"energy": np.array(atoms.get_potential_energy()), "forces": atoms.get_forces(),
                "stress": atoms.get_stress()}


def test_adapter_so3lr():
    """What the adapter reports: the calculator's long-range cutoff, the reach of three
    message-passing layers of 4.5 A beyond it, the trained elements."""
    from ase.build import bulk
    from ase.data import chemical_symbols

    from pipeline.md.adapters import AdapterError
    from pipeline.md.adapters.so3lr import adapt
    from pipeline.md.ase import inputs as potential_inputs

    a = adapt("so3lr", None)
    model = calculator().models[0]
    assert a.cutoff == calculator().r_max_lr == 12.0 and (a.dtype, a.name) == (torch.float32, "so3lr")
    assert a.layers * a.cutoff >= a.cutoff + model.num_layers * model.r_max and a.layers == 3
    scales = model.atomic_energy_output_block.energy_scales.weight[0]
    assert a.species == tuple(chemical_symbols[z + 1] for z in range(len(scales)) if scales[z] != 1.0)
    assert adapt("so3lr", torch.float64).dtype == torch.float64
    assert torch.get_default_dtype() == torch.float32  # the calculator's setting undone
    with pytest.raises(AdapterError, match="pretrained 'so3lr'"):
        adapt("so3lr:other", None)
    with pytest.raises(ValueError, match="Si"):
        potential_inputs(bulk("Si", "diamond", a=5.43, cubic=True), a.cutoff, a.species)


def test_adapter_eager_matches_so3lr_float64():
    """The adaptation is exact: in float64 (eager, one 12 A list) the per-atom energies are
    the model's `node_energy` on the calculator's own batch (two lists), and energy, forces
    and stress are the calculator's."""
    pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")
    from pipeline.md.adapters.so3lr import adapt
    from pipeline.md.ase import inputs as potential_inputs
    from pipeline.md.potential import energy_forces_virial

    a = adapt("so3lr", torch.float64)
    own = package_calculator("float64", compute_stress=True)
    for k, repeat in enumerate(WATER_BOXES):
        atoms = water_box(repeat, seed=k + 1)
        energy, energies, forces, virial = energy_forces_virial(a.model)(
            *potential_inputs(atoms, a.cutoff, a.species, a.dtype), torch.tensor(len(atoms)))
        stress = -virial.numpy() / atoms.get_volume()
        got = {"energy": energy.detach().numpy(), "forces": forces.numpy(),
               "stress": stress[[0, 1, 2, 1, 0, 0], [0, 1, 2, 2, 2, 1]]}
        want = results(atoms, own, torch.float64)
        with default_dtype(torch.float64):
            node_energy = own.models[0](own._atoms_to_batch(atoms).to_dict(), compute_force=False)["node_energy"]
        assert error(energies.numpy(), node_energy.detach().reshape(-1).numpy()) <= TOLERANCE[torch.float64]
        for p in PROPERTIES:
            assert error(got[p], want[p]) <= TOLERANCE[torch.float64], (repeat, p, error(got[p], want[p]))


@pytest.fixture(scope="module", params=[torch.float64, torch.float32], ids=["float64", "float32"])
def loaded(request, tmp_path_factory):
    """(dtype, {"in-process": load_potential("so3lr"), "library": its .so loaded back})."""
    pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")
    from pipeline.md.load import load_potential

    dtype = request.param
    start = time.perf_counter()
    potential = load_potential("so3lr", dtype=None if dtype == torch.float32 else dtype)
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    library = potential.export(tmp_path_factory.mktemp(f"so3lr_{str(dtype)[6:]}"), name="so3lr")
    exported = time.perf_counter() - start
    print(f"\nso3lr {dtype}: load_potential (compile) {compiled:.1f} s, export {exported:.1f} s")
    assert potential.dtype == dtype
    return dtype, {"in-process": potential, "library": load_potential(str(library))}


@pytest.mark.parametrize("which", ["in-process", "library"])
def test_potential_matches_so3lr_calculator(loaded, which: str) -> None:
    from pipeline.md.ase import Calculator

    dtype, potentials = loaded
    calc = Calculator(potentials[which])
    own = package_calculator(compute_stress=True)
    own64 = package_calculator("float64", compute_stress=True)
    for k, repeat in enumerate(WATER_BOXES):
        atoms = water_box(repeat, seed=k + 1)
        got, exact = results(atoms, calc), results(atoms, own64, torch.float64)
        want = exact if dtype == torch.float64 else results(atoms, own)
        for p in PROPERTIES:
            err = error(got[p], want[p])
            print(f"so3lr {dtype} {which} {len(atoms)} atoms {p}: {err:.1e} vs SO3LRCalculator"
                  + (f", {error(got[p], exact[p]):.1e} vs its float64 (SO3LRCalculator float32: "
                     f"{error(want[p], exact[p]):.1e})" if dtype == torch.float32 else " float64"))
            if dtype == torch.float64:
                assert err <= TOLERANCE[dtype], (repeat, p, err)
            else:
                bound = max(TOLERANCE[dtype], 2 * error(want[p], exact[p]))
                assert error(got[p], exact[p]) <= bound, (repeat, p, error(got[p], exact[p]), bound)
