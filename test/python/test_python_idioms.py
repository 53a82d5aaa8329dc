"""The Python that packages write around tensors (frontend.python_idioms), captured
with no change to the model's code: `len(t)` on a dynamic dim, `int(t)` and
`t.tolist()` as sizes, `torch.tensor([...])` of 0-d tensors, `if <data>: raise` and
`assert <data>` as run-time checks, and an `nn.Parameter` subclass. Each compiled
once, compared with eager at sizes never traced in f32 and f64 (energy and forces),
through the JIT and the exported library; each check fails in both as in eager.

PYTEST_DONT_REWRITE: pytest's rewriting of `assert` would hide the model's own
`assert` from the capture (it stores its message before raising)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from conftest import DTYPES, assert_close
from torch.export import Dim

import pipeline
from frontend.import_fx import ImportError_

SPECIES = 4
DIMS = ({0: Dim("N", min=2)}, {0: Dim("N", min=2)}, {1: Dim("E", min=2)}, {0: Dim("N", min=2)})
SIZES = [(9, 30, 2), (37, 200, 5), (5, 3, 1), (64, 700, 3)]
"""(atoms, edges, systems) per call; traced at (12, 50, 3)."""


class PerSpecies(torch.nn.Parameter):
    """An nn.Parameter subclass (as graph-pes' PerElementParameter is)."""

    def __new__(cls, data: torch.Tensor) -> PerSpecies:
        return super().__new__(cls, data, requires_grad=True)


class Model(torch.nn.Module):
    """Message passing written as packages write it."""

    def __init__(self, dtype: torch.dtype) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.embedding = PerSpecies(torch.randn(SPECIES, 8, generator=g, dtype=dtype))
        self.scale = torch.nn.Parameter(torch.randn(8, generator=g, dtype=dtype))

    def forward(self, pos: torch.Tensor, species: torch.Tensor, edge_index: torch.Tensor,
                system: torch.Tensor) -> torch.Tensor:
        n = len(pos)
        if (species >= SPECIES).any():
            raise ValueError(f"species must be below {SPECIES}")
        x = self.embedding[species]
        d = pos[edge_index[0]] - pos[edge_index[1]]
        r = d.norm(dim=-1, keepdim=True)
        assert (r > 0).all(), "two atoms at one place"
        m = torch.zeros(n, 8, dtype=pos.dtype).index_add(0, edge_index[0], x[edge_index[1]] * torch.exp(-r))
        atom = ((x + m).tanh() * self.scale).sum(-1)
        first, last = system[torch.tensor([0, -1])].tolist()
        systems = int(system[-1]) + 1
        per_system = torch.zeros(systems, dtype=pos.dtype).index_add(0, system, atom)
        spread = torch.zeros(last - first + 1, dtype=pos.dtype).index_add(0, system - first, atom)
        weights = torch.tensor([per_system.sum() * 0 + 1.0, torch.tensor(0.5, dtype=pos.dtype)])
        counts = torch.tensor([n, len(edge_index[0])])  # sizes, as SevenNet's num_atoms
        return per_system.pow(2).sum() * weights[0] + spread.sum() * weights[1] + atom.sum() * counts[1] / counts[0]


def energy_forces(model: Model):  # noqa: ANN201
    def f(pos: torch.Tensor, species: torch.Tensor, edge_index: torch.Tensor, system: torch.Tensor):  # noqa: ANN202
        pos.requires_grad_(True)
        energy = model(pos, species, edge_index, system)
        return energy, -torch.autograd.grad(energy, pos)[0]

    return f


def inputs(atoms: int, edges: int, systems: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    pos = torch.randn(atoms, 3, generator=g, dtype=dtype)
    species = torch.randint(0, SPECIES, (atoms,), generator=g)
    i = torch.randint(0, atoms, (edges,), generator=g)
    edge_index = torch.stack([i, (i + torch.randint(1, atoms, (edges,), generator=g)) % atoms])
    system = torch.sort(torch.randint(0, systems, (atoms,), generator=g)).values
    system[-1] = systems - 1
    return pos, species, edge_index, system


@pytest.fixture(scope="module", params=DTYPES, ids=str)
def compiled(request: pytest.FixtureRequest):  # noqa: ANN201
    model = Model(request.param)
    fn = energy_forces(model)
    return fn, pipeline.compile(fn, inputs(12, 50, 3, request.param, 0), dynamic_shapes=DIMS), request.param


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_jit_and_library_match_eager(compiled, size, tmp_path: Path) -> None:  # noqa: ANN001
    fn, f, dtype = compiled
    library = pipeline.load_library(pipeline.export_library(f, tmp_path, name="idioms"))
    for seed in (1, 2):
        args = inputs(*size, dtype, seed)
        want = fn(args[0].clone(), *args[1:])
        for name, run in (("jit", f), ("library", library)):
            assert_close(run(*args), want, dtype, f"{name} {size} seed {seed}")


@pytest.mark.parametrize(
    "spoil, statement",
    [
        (lambda a: a[1].__setitem__(3, SPECIES), 'raise ValueError(f"species must be below {SPECIES}")'),
        (lambda a: a[2].__setitem__((1, 0), a[2][0, 0]), 'assert (r > 0).all(), "two atoms at one place"'),
    ],
    ids=["raise", "assert"],
)
def test_checks_fail_as_in_eager(compiled, spoil, statement: str, tmp_path: Path) -> None:  # noqa: ANN001
    fn, f, dtype = compiled
    args = list(inputs(20, 60, 2, dtype, 5))
    spoil(args)
    with pytest.raises((ValueError, AssertionError)):
        fn(args[0].clone(), *args[1:])
    library = pipeline.load_library(pipeline.export_library(f, tmp_path, name="checks"))
    for run in (f, library):
        with pytest.raises(RuntimeError, match="assertion failed") as failure:
            run(*args)
        assert statement in str(failure.value) and "test_python_idioms.py:" in str(failure.value)


def test_data_branch_that_does_not_raise_is_speculated() -> None:
    """A branch on data whose sides both compute is control flow, not a check: compiled
    for the example's side, and for the other when a call takes it (test_speculation)."""

    def clamp_if_large(x: torch.Tensor) -> torch.Tensor:
        if (x > 10).any():
            x = x.clamp(max=10)
        return x * 2

    compiled = pipeline.compile(clamp_if_large, (torch.randn(6),), dynamic_shapes=({0: Dim("N", min=2)},))
    assert [s.side for s in compiled.speculations] == [False]
    for x in (torch.randn(9), torch.randn(4) * 30):
        assert torch.equal(compiled(x), clamp_if_large(x))


def test_rebound_names_are_restored() -> None:
    """`len` and `int` are rebound in the modules only for the trace."""
    compiled = pipeline.compile(energy_forces(Model(torch.float64)), inputs(12, 50, 3, torch.float64, 0),
                                dynamic_shapes=DIMS)
    assert compiled is not None
    assert "len" not in globals() and "int" not in globals()
    assert "len" not in vars(torch.nn.modules.module) and len([1, 2]) == 2


def group_energy(pos: torch.Tensor, group: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A size read from data feeding an op whose schema takes ints (tril_indices), as
    TorchANI's triple builder does."""
    pos.requires_grad_(True)
    groups = int(group.max()) + 1
    centers = torch.zeros(groups, 3, dtype=pos.dtype).index_add(0, group, pos)
    pairs = torch.tril_indices(groups, groups, -1)
    r = (centers[pairs[0]] - centers[pairs[1]]).norm(dim=-1)
    energy = torch.exp(-r).sum() + 0.1 * centers.square().sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_size_from_data_in_an_int_schema(dtype: torch.dtype) -> None:
    def args(atoms: int, groups: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        return torch.randn(atoms, 3, generator=g, dtype=dtype), torch.randint(0, groups, (atoms,), generator=g)

    f = pipeline.compile(group_energy, args(12, 4, 0), ({0: Dim("N", min=2)}, {0: Dim("N", min=2)}))
    for atoms, groups, seed in ((9, 3, 1), (40, 7, 2), (5, 1, 3), (64, 12, 4)):
        a = args(atoms, groups, seed)
        assert_close(f(*a), group_energy(a[0].clone(), a[1]), dtype, f"{atoms} atoms, {groups} groups")


def energy_of_known_elements(z: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """graph-pes' unknown-element check: the raising side computes and stores the
    elements it names before it raises (inside `torch.no_grad()`)."""
    pos.requires_grad_(True)
    index = torch.full((100,), 1234)
    index[torch.tensor([1, 6, 8])] = torch.tensor([0, 1, 2])
    internal = index[z]
    with torch.no_grad():
        if (internal == 1234).any():
            unknown = torch.unique(z[internal == 1234])
            names = [str(int(u)) for u in unknown]
            raise ValueError(f"Unknown elements: {names}")
    energy = (torch.tensor([0.5, 1.0, 2.0], dtype=pos.dtype)[internal] * pos.square().sum(-1)).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_check_that_computes_its_message(dtype: torch.dtype) -> None:
    def args(atoms: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        z = torch.tensor([1, 6, 8])[torch.randint(0, 3, (atoms,), generator=g)]
        return z, torch.randn(atoms, 3, generator=g, dtype=dtype)

    f = pipeline.compile(energy_of_known_elements, args(12, 0), ({0: Dim("N", min=2)}, {0: Dim("N", min=2)}))
    for atoms, seed in ((5, 1), (40, 2)):
        z, pos = args(atoms, seed)
        assert_close(f(z, pos), energy_of_known_elements(z, pos.clone()), dtype, f"{atoms} atoms")
    z, pos = args(9, 3)
    z[4] = 7
    with pytest.raises(ValueError, match="Unknown elements"):
        energy_of_known_elements(z, pos.clone())
    with pytest.raises(RuntimeError, match=r"raise ValueError\(f\"Unknown elements"):
        f(z, pos)


def split_energy(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A check on sizes that depend on data (CHGNet compares its edge counts so)."""
    x.requires_grad_(True)
    positive, negative = x[x > 0], x[x < -1]
    if len(positive) < 2 * len(negative):
        raise ValueError("too many negatives")
    energy = positive.square().sum() + negative.sum()
    return energy, torch.autograd.grad(energy, x)[0]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_check_on_sizes_from_data(dtype: torch.dtype, tmp_path: Path) -> None:
    f = pipeline.compile(split_energy, (torch.randn(20, dtype=dtype),), ({0: Dim("N", min=2)},))
    library = pipeline.load_library(pipeline.export_library(f, tmp_path, name="split"))
    g = torch.Generator().manual_seed(7)
    for n in (5, 33):
        x = torch.randn(n, generator=g, dtype=dtype).abs()
        x[:1] = -2.0
        want = split_energy(x.clone())
        for run in (f, library):
            assert_close(run(x), want, dtype, f"N={n}")
    x = -torch.rand(30, generator=g, dtype=dtype) - 2
    with pytest.raises(ValueError, match="too many negatives"):
        split_energy(x.clone())
    for run in (f, library):
        with pytest.raises(RuntimeError, match="too many negatives"):
            run(x)


def paired_energy(pos: torch.Tensor, charge: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A check on two sizes the caller declares independent: a run-time check, not a guard
    that ties them (CHGNet checks its directed and undirected edge counts so)."""
    pos.requires_grad_(True)
    if len(pos) != len(charge):
        raise ValueError("one charge per atom")
    energy = pos.square().sum() * charge.sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def test_check_on_independent_sizes_stays_a_check() -> None:
    f = pipeline.compile(paired_energy, (torch.randn(6, 3, dtype=torch.float64), torch.randn(6, dtype=torch.float64)),
                         ({0: Dim("N", min=2)}, {0: Dim("M", min=2)}))
    for n in (3, 40):
        pos, charge = torch.randn(n, 3, dtype=torch.float64), torch.randn(n, dtype=torch.float64)
        assert_close(f(pos, charge), paired_energy(pos.clone(), charge), torch.float64, f"N={n}")
    with pytest.raises(RuntimeError, match="one charge per atom"):
        f(torch.randn(5, 3, dtype=torch.float64), torch.randn(7, dtype=torch.float64))


def forces_sized_by_a_count(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """SevenNet's ForceStressOutputFromEdge: forces sized by the sum of a `num_atoms`
    tensor made from a size, and a padded buffer sized 2 * count + 1 read back with int()."""
    data = {"num_atoms": torch.tensor(pos.shape[0]).reshape(1)}
    pos.requires_grad_(True)
    rij = pos[edge_index[1]] - pos[edge_index[0]]
    energy = torch.exp(-rij.square().sum(-1)).sum()
    fij = torch.autograd.grad(energy, rij)[0]
    tot_num = torch.sum(data["num_atoms"])
    forces = torch.zeros(tot_num, 3, dtype=fij.dtype)
    forces.scatter_reduce_(0, edge_index[0].unsqueeze(-1).expand(-1, 3), fij, reduce="sum")
    forces.scatter_reduce_(0, edge_index[1].unsqueeze(-1).expand(-1, 3), -fij, reduce="sum")
    padded = torch.zeros(int(tot_num * 2 + 1), dtype=fij.dtype)
    padded[: pos.shape[0]] = forces[:, 0]
    return energy, forces, padded


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_tensor_that_holds_a_size_sizes_outputs(dtype: torch.dtype) -> None:
    """A one-element integer tensor made from a size keeps that size through sum, reshape
    and arithmetic: `.item()`/`int()` of it is the size (no data-dependent symbol), so the
    outputs it sizes have sizes the caller knows."""
    def args(atoms: int, edges: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        return torch.randn(atoms, 3, generator=g, dtype=dtype), torch.randint(0, atoms, (2, edges), generator=g)

    f = pipeline.compile(forces_sized_by_a_count, args(12, 40, 0), ({0: Dim("N", min=2)}, {1: Dim("E")}))
    assert "u0" not in f.ir("fx") and "_local_scalar_dense" not in f.ir("aten")
    for atoms, edges, seed in ((5, 9, 1), (33, 200, 2)):
        a = args(atoms, edges, seed)
        got, want = f(*a), forces_sized_by_a_count(a[0].clone(), a[1])
        assert [tuple(g.shape) for g in got] == [(), (atoms, 3), (2 * atoms + 1,)]
        assert_close(got, want, dtype, f"{atoms} atoms")


def count_written_to(pos: torch.Tensor) -> torch.Tensor:
    count = torch.tensor(pos.shape[0])
    count += 1  # a write: the tensor no longer holds the size
    return torch.zeros(int(count), dtype=pos.dtype) + pos.sum()


def test_tensor_written_to_no_longer_holds_its_size() -> None:
    """After an in-place write the value is data again (torch forgets item_memo on a
    version bump): the output's size depends on data, and import says so."""
    with pytest.raises(ImportError_, match=r"output 0 has a size that depends on tensor data \(torch.Size\(\[u0\]\)\)"):
        pipeline.compile(count_written_to, (torch.randn(6, 3),), ({0: Dim("N")},))


def chain_energy(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, table: str) -> tuple[torch.Tensor, torch.Tensor]:
    """torch.einsum of three operands (torch asks opt_einsum for the contraction order,
    which reads every size with int()), and a table torch.load-ed on every call."""
    a.requires_grad_(True)
    scale = torch.load(table, weights_only=True).to(a.dtype)
    energy = torch.einsum("ij,jk,kl->", a, b * scale, c.tanh())
    return energy, torch.autograd.grad(energy, a)[0]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_einsum_path_and_load_during_capture(dtype: torch.dtype, tmp_path: Path) -> None:
    table = str(tmp_path / "table.pt")
    torch.save(torch.linspace(0.5, 1.5, 5, dtype=torch.float64), table)
    g = torch.Generator().manual_seed(5)

    def args(n: int) -> tuple[torch.Tensor, ...]:
        return (torch.randn(n, 3, generator=g, dtype=dtype), torch.randn(3, 5, generator=g, dtype=dtype),
                torch.randn(5, n, generator=g, dtype=dtype))

    f = pipeline.compile(lambda a, b, c: chain_energy(a, b, c, table), args(7), ({0: Dim("N")}, None, {1: Dim("N")}))
    for n in (2, 11, 40):
        x = args(n)
        assert_close(f(*x), chain_energy(x[0].clone(), x[1], x[2], table), dtype, f"N={n}")


def per_atom_loop(pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """graph-pes' three-body triplets: a Python loop over the atoms, unrolled by the trace."""
    pos.requires_grad_(True)
    parts = []
    for i in range(len(pos)):  # fixes N
        parts.append(torch.exp(-(pos[i] - pos[: i + 1]).square().sum(-1)).sum())
    energy = torch.stack(parts).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def test_code_that_fixes_a_dynamic_size_is_refused_or_specialized() -> None:
    """Refused with the line that fixes N (the loop, not a later failure of the trace);
    with specialize=True, compiled again once per size a call brings, with a warning."""
    from frontend.errors import PinnedSize

    example = (torch.randn(6, 3, dtype=torch.float64),)
    with pytest.raises(PinnedSize, match=r"dim 0 \(N\) is dynamic, but the function fixes it to 6 at .*test_python_idioms.py"):
        pipeline.compile(per_atom_loop, example, ({0: Dim("N")},))
    f = pipeline.compile(per_atom_loop, example, ({0: Dim("N")},), specialize=True)
    for n, compiles in ((6, False), (9, True), (3, True), (9, False)):
        pos = torch.randn(n, 3, dtype=torch.float64)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = f(pos=pos)
        assert any("compiling again for N=" in str(w.message) for w in seen) == compiles, (n, [str(w.message) for w in seen])
        assert_close(got, per_atom_loop(pos.clone()), torch.float64, f"N={n}")
