"""CHGNet (chgnet 0.4.2): the pretrained CHGNet 0.3.0 shipped in the wheel
(`CHGNet.load(model_name="0.3.0")`), float32 (the package's TORCH_DTYPE) and float64
(the same model `.double()`).

A periodic crystal (rattled rock-salt NaCl supercells, 8 to 32 atoms) through the package's
own `CrystalGraphConverter` (atom graph 5 A, bond graph 3 A); the compiled function takes
the graph's tensors, rebuilds the `CrystalGraph` and calls `model([graph], task="ef")`:
the model takes autograd.grad of its energy with respect to the Cartesian positions it
computes from the fractional ones. Its energy is per atom (eV/atom), as shipped.

Below, the adapter (`pipeline.load_potential("chgnet:0.3.0")`, pipeline/md/adapters/chgnet.py):
CHGNet's modules on our directed neighbour list, per-atom energies, forces and stress by our
autograd; against the package's own model in float64 and its ASE calculator, on rattled Si
diamond cells, compiled in process and as the exported library loaded back. These need vesin
(pipeline.md.ase's neighbour list) in the venv: skipped without it."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, compile_and_compare, compile_f32_as_exact_as_eager, error, silicon
from conftest import TOLERANCE  # (common puts test/python on sys.path)

pytest.importorskip("chgnet")

N, E, U, B = Dim("N", min=2), Dim("E", min=1), Dim("U", min=1), Dim("B", min=1)
DYNAMIC = {
    "atomic_number": {0: N}, "atom_frac_coord": {0: N}, "lattice": None,
    "atom_graph": {0: E}, "neighbor_image": {0: E}, "directed2undirected": {0: E},
    "undirected2directed": {0: U}, "bond_graph": {0: B},
}
SUPERCELLS = {8: (1, 1, 1), 16: (1, 1, 2), 24: (1, 1, 3), 32: (1, 2, 2)}
TRACE, CHECK = 16, (8, 24, 32)


@functools.cache
def model():
    from chgnet.model import CHGNet

    return CHGNet.load(model_name="0.3.0", use_device="cpu", verbose=False).eval()


def energy_forces(atomic_number, atom_frac_coord, lattice, atom_graph, neighbor_image, directed2undirected,
                  undirected2directed, bond_graph, net=None, dtype=torch.float32):
    from chgnet.graph.crystalgraph import CrystalGraph

    net = net or model()
    atom_frac_coord = atom_frac_coord.detach().to(dtype).requires_grad_(True)  # as the converter makes it
    graph = CrystalGraph(atomic_number, atom_frac_coord, atom_graph, net.graph_converter.atom_graph_cutoff,
                         neighbor_image.to(dtype), directed2undirected, undirected2directed, bond_graph,
                         net.graph_converter.bond_graph_cutoff, lattice.to(dtype))
    out = net([graph], task="ef")
    return out["e"].reshape(()), out["f"][0]


def energy_forces64(**graph):
    """The same in float64: the package's model `.double()` (`chgnet64`)."""
    return energy_forces(**graph, net=chgnet64("0.3.0"), dtype=torch.float64)


def inputs(n: int, seed: int):
    import numpy as np
    from pymatgen.core import Lattice, Structure

    s = Structure.from_spacegroup("Fm-3m", Lattice.cubic(5.64), ["Na", "Cl"], [[0, 0, 0], [0.5, 0.5, 0.5]])
    s.make_supercell(SUPERCELLS[n])
    rng = np.random.default_rng(seed)
    for i in range(len(s)):
        s.translate_sites([i], rng.uniform(-0.1, 0.1, 3), frac_coords=False)
    g = model().graph_converter(s)
    return {"atomic_number": g.atomic_number, "atom_frac_coord": g.atom_frac_coord.detach(),
            "lattice": g.lattice.detach(), "atom_graph": g.atom_graph, "neighbor_image": g.neighbor_image,
            "directed2undirected": g.directed2undirected, "undirected2directed": g.undirected2directed,
            "bond_graph": g.bond_graph}


def test_eager_matches_the_ase_calculator():
    from chgnet.model import StructOptimizer  # noqa: F401  (the package's ASE side imports)
    from chgnet.model.dynamics import CHGNetCalculator
    from pymatgen.io.ase import AseAtomsAdaptor
    from pymatgen.core import Lattice, Structure

    args = inputs(8, 4)
    energy, forces = energy_forces(**args)
    s = Structure(Lattice(args["lattice"].numpy()), args["atomic_number"].numpy().tolist(), args["atom_frac_coord"].numpy())
    atoms = AseAtomsAdaptor.get_atoms(s)
    atoms.calc = CHGNetCalculator(model(), use_device="cpu")
    assert abs(atoms.get_potential_energy() / len(atoms) - energy.item()) <= 1e-5 * abs(energy.item())
    assert torch.allclose(torch.as_tensor(atoms.get_forces(), dtype=torch.float32), forces, atol=1e-4)


def test_eager():
    check_eager(energy_forces, inputs, (TRACE, *CHECK))


def test_aten_ops():
    check_aten_ops(energy_forces, inputs(TRACE, 0), DYNAMIC)


def test_compiled_matches_eager_f64():
    chgnet64("0.3.0")  # loaded before the trace (its torch.load is no op to trace)
    compile_and_compare(energy_forces64, inputs, DYNAMIC, torch.float64, trace_atoms=TRACE, check_atoms=CHECK)


def test_compiled_f32_is_as_exact_as_eager():
    """As shipped, in float32: the model's own float32 forces are 2.7e-5 to 5e-5 (relative to
    the largest) from its float64 ones on these cells, so eager float32 is no reference at
    1e-5."""
    compile_f32_as_exact_as_eager(energy_forces, energy_forces64, inputs, DYNAMIC, trace_atoms=TRACE, check_atoms=CHECK)


# --- The adapter: pipeline.load_potential("chgnet:VERSION") (pipeline/md/adapters/chgnet.py) ---
#
# The protocol's directed neighbour list (vesin, 6 A for 0.3.0) in place of CHGNet's
# CrystalGraph; forces and stress from our autograd. References: the package's own ASE
# calculator (float32, as it ships), and the package's own model in float64 (`.double()`,
# its AtomRef left in float32 as its `.float()` input needs, a CrystalGraph of float64
# coordinates: `CHGNet.forward(task="efs")`), which shows how far the float32 calculator is
# from its own exact answer.

VERSIONS = ("0.3.0", "0.2.0", "r2scan")
SI_CELLS = ((2, 2, 2), (2, 2, 3))  # 64 and 96 atoms
PROPERTIES = ("energy", "energies", "forces", "stress")


def voigt(m):
    import numpy as np

    return np.array([m[0, 0], m[1, 1], m[2, 2], m[1, 2], m[0, 2], m[0, 1]])


@functools.cache
def chgnet64(version: str):
    from chgnet.model import CHGNet

    net = CHGNet.load(model_name=version, use_device="cpu", verbose=False).double().eval()
    net.composition_model.float()  # AtomRef's input is `.float()` whatever the weights
    return net


def chgnet_float64(atoms, version: str) -> dict:
    """The package's own model in float64: energy, site energies, forces, stress (eV/A^3)."""
    import numpy as np
    from chgnet.graph.crystalgraph import CrystalGraph
    from pymatgen.io.ase import AseAtomsAdaptor

    net = chgnet64(version)
    s = AseAtomsAdaptor.get_structure(atoms)
    g = net.graph_converter(s)
    lattice = torch.tensor(s.lattice.matrix, dtype=torch.float64, requires_grad=True)
    g = CrystalGraph(atomic_number=g.atomic_number, atom_graph=g.atom_graph, atom_graph_cutoff=g.atom_graph_cutoff,
                     atom_frac_coord=torch.tensor(s.frac_coords, dtype=torch.float64, requires_grad=True),
                     neighbor_image=g.neighbor_image.double(), directed2undirected=g.directed2undirected,
                     undirected2directed=g.undirected2directed, bond_graph=g.bond_graph,
                     bond_graph_cutoff=g.bond_graph_cutoff, lattice=lattice)
    out = net([g], task="efs", return_site_energies=True)
    # its stress is dE/d(strain) * (1 / volume * 160.21766208) with the volume in float32:
    # undo that factor exactly, then divide by the volume in float64 (eV/A^3)
    volume = torch.dot(lattice[0], torch.linalg.cross(lattice[1], lattice[2])).detach()
    scale = 1 / volume.float() * 160.21766208
    stress = out["s"][0].detach() / scale.double() / volume
    return {"energy": np.array(float(out["e"][0]) * len(atoms)), "energies": out["site_energies"][0].detach().numpy(),
            "forces": out["f"][0].detach().numpy(), "stress": voigt(stress.numpy())}


def chgnet_calculator(atoms, version: str = "0.3.0") -> dict:
    """The package's own ASE calculator, float32 as it ships (stress converted to eV/A^3)."""
    from chgnet.model import CHGNet
    from chgnet.model.dynamics import CHGNetCalculator

    atoms = atoms.copy()
    atoms.calc = CHGNetCalculator(CHGNet.load(model_name=version, use_device="cpu", verbose=False),
                                  use_device="cpu", return_site_energies=True)
    return {"energy": atoms.get_potential_energy(), "energies": atoms.get_potential_energies(),
            "forces": atoms.get_forces(), "stress": atoms.get_stress()}


def ours(atoms, calc) -> dict:
    atoms = atoms.copy()
    atoms.calc = calc
    return {"energy": atoms.get_potential_energy(), "energies": atoms.get_potential_energies(),
            "forces": atoms.get_forces(), "stress": atoms.get_stress()}


def eager(atoms, adapted) -> dict:
    """The adapter's model, eager, through energy_forces_virial."""
    pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")
    from pipeline.md.ase import inputs
    from pipeline.md.potential import energy_forces_virial

    args = inputs(atoms, adapted.cutoff, adapted.species, adapted.dtype)
    energy, energies, forces, virial = (t.detach().double().numpy() for t in
                                        energy_forces_virial(adapted.model)(*args, torch.tensor(len(atoms))))
    return {"energy": energy, "energies": energies, "forces": forces, "stress": voigt(-virial / atoms.get_volume())}


@pytest.mark.parametrize("version", VERSIONS)
def test_adapter_eager_matches_chgnet_float64(version):
    """The adaptation is exact: in float64 the adapter's per-atom energies, forces and stress
    are the package's own model's (site energies with AtomRef's, sum = N * e)."""
    from pipeline.md.adapters.chgnet import adapt

    adapted = adapt(f"chgnet:{version}", torch.float64)
    atoms = silicon((2, 2, 2), seed=7)
    got, want = eager(atoms, adapted), chgnet_float64(atoms, version)
    assert abs(got["energies"].sum() - want["energy"]) <= 1e-10 * abs(want["energy"])
    for p in PROPERTIES:
        print(f"chgnet {version} float64 eager {len(atoms)} atoms {p}: {error(got[p], want[p]):.1e} vs its float64")
        assert error(got[p], want[p]) <= TOLERANCE[torch.float64], (version, p, error(got[p], want[p]))



def test_adapter_source(tmp_path):
    import os

    import chgnet

    from pipeline.md.adapters import AdapterError
    from pipeline.md.adapters.chgnet import adapt
    from pipeline.md.adapters.files import claims

    a = adapt("chgnet:0.3.0", None)
    assert (a.cutoff, a.layers, a.dtype, a.name, len(a.species)) == (6.0, 4, torch.float32, "chgnet_0_3_0", 94)
    assert (a.species[0], a.species[13], a.species[-1]) == ("H", "Si", "Pu")
    assert adapt("chgnet:0.2.0", None).cutoff == 5.0
    path = os.path.join(os.path.dirname(chgnet.__file__), "pretrained", "0.3.0", "chgnet_0.3.0_e29f68s314m37.pth.tar")
    b = adapt(f"chgnet:{path}", torch.float64)  # a checkpoint file, read by CHGNet.from_file
    assert b.name == "chgnet_chgnet_0_3_0_e29f68s314m37" and b.cutoff == 6.0
    assert claims(path, "chgnet") and adapt(path, None).name == b.name
    atoms = silicon((1, 1, 1), seed=2)
    assert error(eager(atoms, b)["forces"], eager(atoms, adapt("chgnet:0.3.0", torch.float64))["forces"]) == 0
    with pytest.raises(AdapterError, match="0.3.0, 0.2.0, r2scan"):
        adapt("chgnet:9.9.9", None)
    (tmp_path / "x.pth.tar").write_bytes(b"not a checkpoint")
    with pytest.raises(AdapterError, match="not a CHGNet model"):
        adapt(f"chgnet:{tmp_path / 'x.pth.tar'}", None)
    assert not claims(tmp_path / "x.pth.tar", "chgnet")
    with pytest.raises(AdapterError, match="a CHGNet source is"):
        adapt(str(tmp_path / "missing.pth.tar"), None)


def test_adapter_reach():
    """An atom's energy reaches layers * cutoff (4 * 6 A) and no further, bond graph
    included: a zigzag chain, bonds 2.9 A (all in the bond graph), atoms 2.9 A apart along x."""
    import numpy as np
    from ase import Atoms

    from pipeline.md.adapters.chgnet import adapt
    from pipeline.md.ase import inputs

    pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")
    adapted = adapt("chgnet:0.3.0", torch.float64)
    n = 14
    x = np.stack([np.arange(n) * 2.6, 1.3 * (np.arange(n) % 2), np.zeros(n)], axis=1)  # bond 2.907 A
    atoms = Atoms("Si" * n, positions=x + 20.0, cell=[80.0] * 3, pbc=False)
    species, positions, edge_index, shifts = inputs(atoms, adapted.cutoff, adapted.species, adapted.dtype)
    positions.requires_grad_(True)
    (grad,) = torch.autograd.grad(adapted.model(species, positions, edge_index, shifts)[0], positions)
    distance = np.linalg.norm(x - x[0], axis=1)
    reach = adapted.layers * adapted.cutoff
    felt = grad.abs().amax(dim=1).numpy() > 0
    assert not felt[distance > reach].any(), distance[felt]
    assert felt[distance < reach - 2.6].all(), distance[~felt]  # 4 hops of 2 atoms (5.2 A < 6 A)


@pytest.fixture(scope="module", params=[torch.float32, torch.float64], ids=["float32", "float64"])
def loaded(request, tmp_path_factory):
    """(dtype, {"in-process": load_potential("chgnet:0.3.0"), "library": its .so loaded back})."""
    import time

    from pipeline.md.load import load_potential

    pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")
    dtype = request.param
    start = time.perf_counter()
    potential = load_potential("chgnet:0.3.0", dtype=None if dtype == torch.float32 else dtype)
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    library = potential.export(tmp_path_factory.mktemp("chgnet"), name="chgnet")
    exported = time.perf_counter() - start
    print(f"\nchgnet 0.3.0 {dtype}: load_potential (compile) {compiled:.1f} s, export {exported:.1f} s")
    assert potential.dtype == dtype
    return dtype, {"in-process": potential, "library": load_potential(str(library))}


@pytest.mark.parametrize("which", ["in-process", "library"])
def test_load_potential_matches_the_ase_calculator(loaded, which):
    """The compiled potential through pipeline.md.ase.Calculator against CHGNetCalculator
    (float32) and the package's model in float64: float64 within 1e-10 of the latter; float32
    within 1e-5 of it, or twice the package's own float32 calculator's error if that is more."""
    from pipeline.md.ase import Calculator

    dtype, potentials = loaded
    calc = Calculator(potentials[which])
    for k, repeat in enumerate(SI_CELLS):
        atoms = silicon(repeat, seed=k + 1)
        got, own, exact = ours(atoms, calc), chgnet_calculator(atoms), chgnet_float64(atoms, "0.3.0")
        for p in PROPERTIES:
            err, err_exact, own_err = error(got[p], own[p]), error(got[p], exact[p]), error(own[p], exact[p])
            print(f"chgnet {dtype} {which} {len(atoms)} atoms {p}: {err:.1e} vs CHGNetCalculator, {err_exact:.1e} "
                  f"vs its float64 (CHGNetCalculator: {own_err:.1e})")
            bound = TOLERANCE[dtype] if dtype == torch.float64 else max(TOLERANCE[dtype], 2 * own_err)
            assert err_exact <= bound, (repeat, p, err_exact, bound)


def test_load_potential_refuses_a_half_list(loaded):
    """A short edge without its reverse (the bond graph pairs them) is a run-time error of the
    compiled code and of the library, as of the eager adapter."""
    from pipeline.md.ase import inputs

    _, potentials = loaded
    potential = potentials["in-process"]
    atoms = silicon((1, 1, 1), seed=3)
    species, positions, edge_index, shifts = inputs(atoms, potential.cutoff, potential.species, potential.dtype)
    short = (positions[edge_index[1]] - positions[edge_index[0]] + shifts).norm(dim=1) < 3.0
    keep = torch.arange(short.shape[0]) != int(torch.nonzero(short)[0])
    for which, p in potentials.items():
        with pytest.raises(RuntimeError, match="CHGNet needs a full neighbour list"):
            p(species, positions, edge_index[:, keep].contiguous(), shifts[keep].contiguous())
