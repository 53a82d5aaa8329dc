"""SchNetPack 2.1.1: a `NeuralNetworkPotential` assembled from the package's own modules as
its docs do (PairwiseDistances, SchNet or PaiNN with a Gaussian RBF and a cosine cutoff,
Atomwise energy, Forces), random weights, float64 and float32. The model's own `Forces`
module takes autograd.grad of the energy with respect to the positions; its `Atomwise`
sums the atoms' energies per molecule with `int(idx_m[-1]) + 1` molecules (a size read
from data).

Its import needs a shim on torch 2.13, set here in the test's setup (not a patch of the
package): `schnetpack.data.loader` imports `T_co` from `torch.utils.data.dataloader`, which
torch 2.x no longer defines; a `typing.TypeVar` fills it."""

from __future__ import annotations

import functools
import typing

import pytest
import torch
import torch.utils.data.dataloader
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, radius_graph, species, variants

if not hasattr(torch.utils.data.dataloader, "T_co"):  # the import shim: see the docstring
    torch.utils.data.dataloader.T_co = typing.TypeVar("T_co", covariant=True)
pytest.importorskip("schnetpack")

CUTOFF = 5.0
ELEMENTS = (1, 6, 7, 8)
N = Dim("N", min=2)
DYNAMIC = {"positions": {0: N}, "atomic_numbers": {0: N}, "edge_index": {1: Dim("E", min=1)}}
MODELS = ["schnet", "painn"]
DTYPES = [torch.float64, torch.float32]
SHIPPED = {"schnet": None, "painn": None}  # both pass since 83aea09 (int(t) of an integer tensor is t.item())


@functools.cache
def model(name: str, dtype: torch.dtype):
    import schnetpack as spk

    torch.manual_seed(0)
    radial = spk.nn.GaussianRBF(n_rbf=8, cutoff=CUTOFF)
    cutoff_fn = spk.nn.CosineCutoff(CUTOFF)
    if name == "schnet":
        rep = spk.representation.SchNet(n_atom_basis=16, n_interactions=2, radial_basis=radial, cutoff_fn=cutoff_fn)
    else:
        rep = spk.representation.PaiNN(n_atom_basis=16, n_interactions=2, radial_basis=radial, cutoff_fn=cutoff_fn)
    nnp = spk.model.NeuralNetworkPotential(
        representation=rep,
        input_modules=[spk.atomistic.PairwiseDistances()],
        output_modules=[spk.atomistic.Atomwise(n_in=16, output_key="energy"),
                        spk.atomistic.Forces(energy_key="energy", force_key="forces")],
    )
    return nnp.to(dtype).eval()


def energy_forces_of(name: str, dtype: torch.dtype):
    from schnetpack import properties as p

    nnp = model(name, dtype)  # built before tracing

    def energy_forces(positions, atomic_numbers, edge_index):
        n = atomic_numbers.shape[0]
        out = nnp({
            p.Z: atomic_numbers,
            p.R: positions,
            p.idx_i: edge_index[0],
            p.idx_j: edge_index[1],
            p.offsets: positions.new_zeros(edge_index.shape[1], 3),
            p.idx_m: torch.zeros_like(atomic_numbers),
            p.n_atoms: torch.stack([atomic_numbers.new_ones(()) * n]),
            p.cell: positions.new_zeros(1, 3, 3),
            p.pbc: torch.zeros(1, 3, dtype=torch.bool),
        })
        return out["energy"].reshape(()), out["forces"]

    return energy_forces


def inputs_of(dtype: torch.dtype):
    def inputs(n: int, seed: int):
        pos = cluster(n, seed, spacing=1.6, jitter=0.2, dtype=dtype)
        return {"positions": pos, "atomic_numbers": species(n, seed, ELEMENTS), "edge_index": radius_graph(pos, CUTOFF)}

    return inputs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", MODELS)
def test_eager(name, dtype):
    check_eager(energy_forces_of(name, dtype), inputs_of(dtype))


@pytest.mark.parametrize("name", variants({m: SHIPPED[m] for m in MODELS}))
def test_aten_ops(name):
    check_aten_ops(energy_forces_of(name, torch.float64), inputs_of(torch.float64)(13, 0), DYNAMIC)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", variants({m: SHIPPED[m] for m in MODELS}))
def test_compiled_matches_eager(name, dtype):
    compile_and_compare(energy_forces_of(name, dtype), inputs_of(dtype), DYNAMIC, dtype)


# --------------------------------------------------------------------------- load_potential
# A model file as schnetpack's training writes it (`torch.save` of the NeuralNetworkPotential,
# `best_model`, post-processing on: CastTo64 and the energy's AddOffsets, as its configs have
# them), compiled by `pipeline.load_potential(file)` (pipeline.md.adapters.schnetpack), in
# process and as the exported `.so` loaded back, against schnetpack's own ASE calculator
# (`SpkCalculator`, energy unit eV, stress on, the model's dtype) on rattled diamond Si
# (64 atoms) and a 96-atom cell with every seventh atom O: energy, forces, stress within
# the house tolerance of the dtype. SpkCalculator loads the file with `torch.load` without
# `weights_only`, which torch >= 2.6 refuses for a pickled module: the test sets torch's
# TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD for it (mace sets the same on import).

from common import TOLERANCE, error, results, silicon  # noqa: E402

LOADED = [("schnet", torch.float32), ("painn", torch.float64)]


def trained_file(name: str, dtype: torch.dtype, path):
    """`model(name, dtype)` with training's post-processors, saved as training saves it."""
    import schnetpack as spk

    torch.manual_seed(0)
    radial = spk.nn.GaussianRBF(n_rbf=8, cutoff=4.0)
    cls = spk.representation.SchNet if name == "schnet" else spk.representation.PaiNN
    rep = cls(n_atom_basis=16, n_interactions=2, radial_basis=radial, cutoff_fn=spk.nn.CosineCutoff(4.0))
    nnp = spk.model.NeuralNetworkPotential(
        representation=rep,
        input_modules=[spk.atomistic.PairwiseDistances()],
        output_modules=[spk.atomistic.Atomwise(n_in=16, output_key="energy"),
                        spk.atomistic.Forces(energy_key="energy", force_key="forces")],
        postprocessors=[spk.transform.CastTo64(),
                        spk.transform.AddOffsets("energy", add_mean=True, property_mean=torch.tensor([-4.0]))],
    )
    torch.save(nnp.to(dtype), path)
    return path


def si_cells():
    out = []
    for k, repeat in enumerate([(2, 2, 2), (2, 2, 3)]):
        atoms = silicon(repeat, seed=k + 1)
        if k:
            atoms.symbols[::7] = "O"
        out.append(atoms)
    return out


@pytest.fixture(scope="module", params=LOADED, ids=[f"{n}-{str(d)[6:]}" for n, d in LOADED])
def loaded(request, tmp_path_factory):
    """(dtype, the model file, {"in-process": compiled potential, "library": its .so loaded back})."""
    import time

    pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")
    from pipeline.md.load import load_potential

    name, dtype = request.param
    root = tmp_path_factory.mktemp(f"schnetpack_{name}")
    path = trained_file(name, dtype, root / "best_model")
    start = time.perf_counter()
    potential = load_potential(str(path))
    print(f"\nschnetpack {name} {dtype}: load_potential (compile) {time.perf_counter() - start:.1f} s")
    library = potential.export(root / "lib", name=f"schnetpack_{name}")
    return dtype, path, {"in-process": potential, "library": load_potential(str(library))}


def test_load_potential_reads_the_file(loaded):
    from ase.data import chemical_symbols

    from pipeline.md.adapters.schnetpack import adapt

    dtype, path, _ = loaded
    a = adapt(str(path), None)
    assert (a.species, a.cutoff, a.layers, a.dtype) == (tuple(chemical_symbols[1:100]), 4.0, 2, dtype)


@pytest.mark.parametrize("which", ["in-process", "library"])
def test_load_potential_matches_spk_calculator(loaded, which, monkeypatch):
    import schnetpack as spk

    from pipeline.md.ase import Calculator

    dtype, path, potentials = loaded
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    own = spk.interfaces.SpkCalculator(model_file=str(path), neighbor_list=spk.transform.ASENeighborList(cutoff=4.0),
                                       energy_unit="eV", stress_key="stress", dtype=dtype)
    calc = Calculator(potentials[which])
    for atoms in si_cells():
        got, want = results(atoms, calc), results(atoms, own)
        for prop in got:
            err = error(got[prop], want[prop])
            print(f"schnetpack {dtype} {which} {len(atoms)} atoms {prop}: {err:.1e} vs SpkCalculator")
            assert err <= TOLERANCE[dtype], (which, len(atoms), prop, err)
