"""SevenNet (sevenn 0.13.0): the pretrained SevenNet-0 shipped in the wheel
(`SevenNetCalculator(model="7net-0")`), float32 only (its one-hot embedding is float32).

The model as the calculator runs it: the data dict of `unlabeled_atoms_to_graph` (edge
vectors pos[dst] - pos[src], edge_index [src, dst], atomic numbers, num_atoms, cell volume
0 for a molecule), the model's own `ForceStressOutputFromEdge` taking autograd.grad of the
energy with respect to the edge vectors and scattering it into forces."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, radius_graph, species

pytest.importorskip("sevenn")

ELEMENTS = (1, 6, 7, 8)
DYNAMIC = {"pos": {0: Dim("N", min=2)}, "edge_index": {1: Dim("E", min=0)}, "atomic_numbers": {0: Dim("N", min=2)}}

@functools.cache
def model():
    from sevenn.calculator import SevenNetCalculator

    calc = SevenNetCalculator(model="7net-0", device="cpu")
    return calc.model, calc.cutoff


def energy_forces(pos, edge_index, atomic_numbers):
    net, _ = model()  # cached: inputs() builds it before any trace
    pos = pos.detach().requires_grad_(True)
    out = net({
        "pos": pos,
        "edge_index": edge_index,
        "edge_vec": pos[edge_index[1]] - pos[edge_index[0]],
        "atomic_numbers": atomic_numbers,
        "num_atoms": torch.tensor(atomic_numbers.shape[0]),
        "cell_volume": torch.zeros((), dtype=pos.dtype),
    })
    return out["inferred_total_energy"].reshape(()), out["inferred_force"]


def inputs(n: int, seed: int):
    pos = cluster(n, seed, dtype=torch.float32)
    return {"pos": pos, "edge_index": radius_graph(pos, model()[1]), "atomic_numbers": species(n, seed, ELEMENTS)}


def test_eager_matches_the_ase_calculator():
    from ase import Atoms
    from sevenn.calculator import SevenNetCalculator

    args = inputs(12, 3)
    energy, forces = energy_forces(**args)
    atoms = Atoms(numbers=args["atomic_numbers"].numpy(), positions=args["pos"].double().numpy())
    atoms.calc = SevenNetCalculator(model="7net-0", device="cpu")
    assert abs(atoms.get_potential_energy() - energy.item()) <= 1e-5 * abs(energy.item())
    assert torch.allclose(torch.as_tensor(atoms.get_forces(), dtype=torch.float32), forces, atol=1e-4)


def test_eager():
    check_eager(energy_forces, inputs)


def test_aten_ops():
    check_aten_ops(energy_forces, inputs(13, 0), DYNAMIC)


def test_compiled_matches_eager_f32():
    compile_and_compare(energy_forces, inputs, DYNAMIC, torch.float32)


# The adapter (pipeline.md.adapters.sevenn): the model's own modules up to the per-atom
# energies, forces and stress by our autograd; compiled by load_potential("sevenn:7net-0")
# and checked with pipeline.md.ase.Calculator against SevenNetCalculator(model="7net-0")
# (f32) on rattled Si diamond cells, in process and as the exported library loaded back.

SI_CELLS = ((2, 2, 2), (2, 2, 3))


def rattled_si(repeat):
    from ase.build import bulk

    atoms = bulk("Si", "diamond", a=5.43, cubic=True).repeat(repeat)
    atoms.rattle(0.05, seed=1)
    return atoms


@functools.cache
def reference(repeat):
    """energy, forces, stress, per-atom energies of SevenNetCalculator(model="7net-0")."""
    from sevenn.calculator import SevenNetCalculator

    atoms = rattled_si(repeat)
    atoms.calc = SevenNetCalculator(model="7net-0", device="cpu")
    return tuple(torch.as_tensor(x, dtype=torch.float64) for x in
                 (atoms.get_potential_energy(), atoms.get_forces(), atoms.get_stress(),
                  atoms.get_potential_energies()))


def check_against_reference(calc, what: str) -> None:
    """calc (an ASE calculator) on both cells within f32's 1e-5 of SevenNetCalculator; the
    errors go to stdout (`-s`)."""
    from common import relative_error

    for repeat in SI_CELLS:
        atoms = rattled_si(repeat)
        atoms.calc = calc
        got = tuple(torch.as_tensor(x, dtype=torch.float64) for x in
                    (atoms.get_potential_energy(), atoms.get_forces(), atoms.get_stress(),
                     atoms.get_potential_energies()))
        errors = {k: relative_error(g, w) for k, g, w in zip(("energy", "forces", "stress", "energies"),
                                                             got, reference(repeat))}
        print(f"\n{what} {len(atoms)} atoms: " + " ".join(f"{k} {e:.2e}" for k, e in errors.items()))
        for k, e in errors.items():
            assert e <= 1e-5, f"{what}, {len(atoms)} atoms: {k} relative error {e:.2e} > 1e-5"


def test_adapter_eager_matches_the_ase_calculator():
    """The adapted model, eager (our autograd for forces and virial), f32 and f64."""
    pytest.importorskip("vesin")
    from pipeline.md.adapters.sevenn import adapt
    from pipeline.md.ase import Calculator
    from pipeline.md.potential import PotentialResult, energy_forces_virial

    class Eager:  # the eager function with what Calculator asks of a Potential
        def __init__(self, adapted):
            self.fn = energy_forces_virial(adapted.model)
            self.cutoff, self.species, self.dtype = adapted.cutoff, adapted.species, adapted.dtype

        def __call__(self, species, positions, edge_index, shifts):
            return PotentialResult(*self.fn(species, positions, edge_index, shifts, torch.tensor(len(species))))

    for dtype in (None, torch.float64):
        adapted = adapt("sevenn:7net-0", dtype)
        assert adapted.dtype == (dtype or torch.float32) and adapted.cutoff == 5.0 and adapted.layers == 5
        assert len(adapted.species) == 89 and "Si" in adapted.species
        check_against_reference(Calculator(Eager(adapted)), f"eager {adapted.dtype}")


@pytest.mark.parametrize("dtype", [None, torch.float64], ids=["f32", "f64"])
def test_potential_matches_the_ase_calculator(dtype, tmp_path):
    """ACCEPTANCE: load_potential("sevenn:7net-0") (compiled), and its exported library
    loaded back, against SevenNetCalculator on two rattled Si cells; compile time printed."""
    pytest.importorskip("vesin")
    import time

    from pipeline.md.ase import Calculator
    from pipeline.md.load import load_potential

    start = time.perf_counter()
    potential = load_potential("sevenn:7net-0", dtype)
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    library = potential.export(tmp_path, name="sevenn")
    print(f"\ncompile {compiled:.1f} s, export {time.perf_counter() - start:.1f} s ({potential.dtype})")
    assert potential.dtype == (dtype or torch.float32)
    assert (potential.cutoff, potential.layers) == (5.0, 5) and "Si" in potential.species
    check_against_reference(Calculator(potential), f"compiled {potential.dtype}")
    loaded = load_potential(library)
    assert (loaded.cutoff, loaded.layers, loaded.species) == (potential.cutoff, potential.layers, potential.species)
    check_against_reference(Calculator(loaded), f"library {potential.dtype}")


def test_adapter_sources(tmp_path):
    """Names the wheel ships (its dated SevenNet-0s, a multi-fidelity model with its modal),
    the checkpoint file itself, and clear errors for what is not a SevenNet model."""
    from sevenn.util import pretrained_name_to_path

    from pipeline.md.adapters import AdapterError
    from pipeline.md.adapters.sevenn import adapt
    from pipeline.md.adapters.files import claims

    path = pretrained_name_to_path("7net-0")
    assert claims(path, "sevenn")
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pth")
    assert not claims(tmp_path / "other.pth", "sevenn") and not claims(tmp_path / "missing.pth", "sevenn")

    pos = cluster(6, 0, spacing=2.3, dtype=torch.float32)
    edges = radius_graph(pos, 5.0)
    shifts = torch.zeros(edges.shape[1], 3)
    energies = {}
    for source in ("sevenn:7net-0", path, "sevenn:7net-0_11July2024", "sevenn:7net-mf-0:PBE"):
        adapted = adapt(source, None)
        species = torch.tensor([adapted.species.index(s) for s in ("Si", "O", "Si", "H", "O", "Si")])
        energies[source] = adapted.model(species, pos, edges, shifts)
        assert energies[source].shape == (6,) and adapted.name.isidentifier(), adapted.name
    assert torch.equal(energies[path], energies["sevenn:7net-0"])
    assert torch.equal(energies["sevenn:7net-0_11July2024"], energies["sevenn:7net-0"])

    for source, message in (("sevenn:7net-nope", "Valid pretrained model names"),
                            ("sevenn:7net-mf-0", "MODAL one of R2SCAN, PBE"),
                            ("sevenn:7net-0:PBE", "no modal"),
                            (str(tmp_path / "other.pth"), "not a sevenn checkpoint"),
                            ("7net-0", "neither sevenn:NAME")):
        with pytest.raises(AdapterError, match=message):
            adapt(source, None)
