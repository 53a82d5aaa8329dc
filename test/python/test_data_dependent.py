"""What depends on data: sizes (a model that filters its own edge list by a cutoff,
`edge_index[:, r < rc]`, nonzero and boolean-mask indexing, repeat_interleave), values
used as indices (searchsorted's buckets) and the graph's own
run-time assertions (F.one_hot's class checks), compiled once and run through the JIT
and through the exported library at sizes never traced, against eager, in f32 and
f64, energy and forces. Also a model calling a `@torch.jit.script` helper, through the
exported library."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest
import torch
from conftest import DTYPES, TOLERANCE, missing_tools, needs_tools, relative_error
from torch.export import Dim

from frontend.import_fx import UnsupportedOpError
from pipeline.compiler import CompiledFunction, compile
from pipeline.deploy.export import STATUS_CODES, export_library
from pipeline.deploy.library import load_library

DIMS = [{0: Dim("N")}, {1: Dim("E")}]
SIZES = [(5, 7), (40, 300), (9, 2), (64, 900)]
"""(atoms, edges) per call; traced at (6, 20)."""


def cutoff_energy(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A pair potential over the edges shorter than the cutoff, chosen inside."""
    pos = pos.requires_grad_(True)
    r = (pos[edge_index[0]] - pos[edge_index[1]]).norm(dim=-1)
    kept = edge_index[:, r < 1.5]
    d = (pos[kept[0]] - pos[kept[1]]).norm(dim=-1)
    atom = torch.zeros(pos.shape[0], dtype=pos.dtype).index_add(0, kept[0], torch.exp(-d) * (1.5 - d) ** 2)
    energy = atom.sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def masked_ops(x: torch.Tensor, e: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """nonzero itself, a boolean mask over rows, and one over all elements."""
    x = x.requires_grad_(True)
    rows = torch.nonzero(x[:, 0] > 0)[:, 0]
    y = (x[rows] ** 2).sum(0) + x[x > 0.5].sum() + torch.nonzero(e > 0).to(x.dtype).sum(0).sum()
    return y, torch.autograd.grad(y.sum(), x)[0]


@torch.jit.script
def _scatter_sum(values: torch.Tensor, index: torch.Tensor, dim_size: int) -> torch.Tensor:
    out = torch.zeros([dim_size], dtype=values.dtype)
    return out.index_add(0, index, values)


def scripted_energy(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Calls a TorchScript helper with a size argument (as schnetpack does)."""
    pos = pos.requires_grad_(True)
    d = (pos[edge_index[0]] - pos[edge_index[1]]).norm(dim=-1)
    energy = _scatter_sum(torch.exp(-d), edge_index[0], pos.shape[0]).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def one_hot_energy(pos: torch.Tensor, species: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-species weights through F.one_hot, which asserts 0 <= species < 3."""
    pos = pos.requires_grad_(True)
    weight = torch.nn.functional.one_hot(species, 3).to(pos.dtype) @ torch.tensor([1.0, -2.0, 0.5], dtype=pos.dtype)
    energy = (weight * (pos**2).sum(1)).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


_BINS = torch.tensor([0.5, 1.0, 1.5, 2.0, 3.0])
_TABLE = torch.tensor([2.0, 1.0, 0.5, -0.25, 0.1, 0.0])


def bucket_energy(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A tabulated pair term: each edge's bucket (searchsorted of its length into the
    bins) selects its coefficient (index_select of a float table)."""
    pos = pos.requires_grad_(True)
    r = (pos[edge_index[0]] - pos[edge_index[1]]).norm(dim=-1)
    bucket = torch.searchsorted(_BINS.to(pos.dtype), r.detach(), right=True)
    energy = (torch.index_select(_TABLE.to(pos.dtype), 0, bucket) * torch.exp(-r)).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def repeated_energy(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Atoms repeated by a count chosen from data (1 + edges leaving each, capped): x[repeat_interleave(counts)]
    and pos.repeat_interleave(counts, 0), whose length is the sum of the counts."""
    pos = pos.requires_grad_(True)
    counts = torch.zeros(pos.shape[0], dtype=torch.int64).index_add(0, edge_index[0], torch.ones_like(edge_index[0]))
    counts = counts.clamp(max=3) + (pos[:, 0] > 0).to(torch.int64)
    atom = torch.repeat_interleave(counts)
    rows = pos.repeat_interleave(counts, 0)
    energy = (torch.exp(-(pos[atom] ** 2).sum(1)) * (rows * rows.sin()).sum(1)).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def _system(n: int, e: int, dtype: torch.dtype, g: torch.Generator) -> list[torch.Tensor]:
    return [torch.randn(n, 3, dtype=dtype, generator=g), torch.randint(0, n, (2, e), generator=g)]


_compiled: dict[tuple[str, torch.dtype], CompiledFunction] = {}


def _compile(fn, dtype: torch.dtype) -> CompiledFunction:  # noqa: ANN001
    key = (fn.__name__, dtype)
    if key not in _compiled:
        _compiled[key] = compile(fn, _system(6, 20, dtype, torch.Generator().manual_seed(1)), DIMS)
    return _compiled[key]


def _check(got: tuple[torch.Tensor, ...], want: tuple[torch.Tensor, ...], dtype: torch.dtype, what: str) -> None:
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want)):
        assert a.shape == b.shape, f"{what} output {k}: shape {tuple(a.shape)} != {tuple(b.shape)}"
        err = relative_error(a, b.detach())
        assert err <= TOLERANCE[dtype], f"{what} output {k}: relative error {err:.2e}"


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("fn", [cutoff_energy, masked_ops, scripted_energy, bucket_energy, repeated_energy],
                         ids=lambda f: f.__name__)
def test_jit_matches_eager(fn, dtype: torch.dtype) -> None:  # noqa: ANN001
    compiled = _compile(fn, dtype)
    g = torch.Generator().manual_seed(2)
    for n, e in SIZES:
        args = _system(n, e, dtype, g)
        _check(compiled(*args), fn(*[a.clone() for a in args]), dtype, f"{fn.__name__} at N={n}, E={e}")


class _Library:
    """`<name>_run(sizes, inputs..., outputs..., message, size)` through ctypes."""

    def __init__(self, path: Path, name: str) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.run = getattr(self.lib, f"{name}_run")
        self.message = ctypes.create_string_buffer(256)

    def __call__(self, args: list[torch.Tensor], outputs: list[torch.Tensor]) -> None:
        sizes = (ctypes.c_int64 * 2)(args[0].shape[0], args[1].shape[1])
        ptrs = [ctypes.c_void_p(t.data_ptr()) for t in (*args, *outputs)]
        code = self.run(sizes, *ptrs, self.message, ctypes.c_size_t(256))
        assert code == 0, self.message.value.decode()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("fn", [cutoff_energy, scripted_energy, bucket_energy, repeated_energy], ids=lambda f: f.__name__)
@needs_tools("cc")
def test_exported_library_matches_eager(fn, dtype: torch.dtype, tmp_path: Path) -> None:  # noqa: ANN001
    library = _Library(export_library(_compile(fn, dtype), tmp_path, name="model"), "model")
    g = torch.Generator().manual_seed(3)
    for n, e in SIZES:
        args = _system(n, e, dtype, g)
        want = fn(*[a.clone() for a in args])
        outputs = [torch.empty_like(w.detach()) for w in want]
        library(args, outputs)
        _check(tuple(outputs), want, dtype, f"library {fn.__name__} at N={n}, E={e}")


_ONE_HOT_DIMS = [{0: Dim("N")}, {0: Dim("N")}]


@pytest.fixture(scope="module")
def one_hot() -> CompiledFunction:
    g = torch.Generator().manual_seed(5)
    return compile(one_hot_energy, [torch.randn(6, 3, dtype=torch.float64, generator=g),
                                    torch.randint(0, 3, (6,), generator=g)], _ONE_HOT_DIMS)


@pytest.mark.parametrize("bad, message", [(-1, "non-negative"), (3, "smaller than num_classes")])
def test_graph_assertions_are_checked(one_hot: CompiledFunction, bad: int, message: str, tmp_path: Path) -> None:
    """F.one_hot's _assert_async checks run in the JIT (RuntimeError, as torch) and in
    the exported library (PIPELINE_ERROR_ASSERT), with the graph's message."""
    g = torch.Generator().manual_seed(6)
    pos, species = torch.randn(11, 3, dtype=torch.float64, generator=g), torch.randint(0, 3, (11,), generator=g)
    _check(one_hot(pos, species), one_hot_energy(pos.clone(), species), torch.float64, "one_hot in range")
    species[4] = bad
    with pytest.raises(RuntimeError, match=message):
        one_hot_energy(pos.clone(), species)
    with pytest.raises(RuntimeError, match=message):
        one_hot(pos, species)
    if why := missing_tools("cc"):
        pytest.skip(why)
    lib = ctypes.CDLL(str(export_library(one_hot, tmp_path, name="one_hot")))
    out = [torch.empty((), dtype=torch.float64), torch.empty(11, 3, dtype=torch.float64)]
    text = ctypes.create_string_buffer(256)
    code = lib.one_hot_run((ctypes.c_int64 * 1)(11), *[ctypes.c_void_p(t.data_ptr()) for t in (pos, species, *out)],
                           text, ctypes.c_size_t(256))
    assert code == STATUS_CODES["PIPELINE_ERROR_ASSERT"][0] and message in text.value.decode(), text.value


def test_data_dependent_output_is_refused() -> None:
    """Outputs are allocated by the caller from the argument sizes: one whose size
    depends on the data is an error that says so."""

    def kept_edges(pos: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        r = (pos[edge_index[0]] - pos[edge_index[1]]).norm(dim=-1)
        return edge_index[:, r < 1.5]

    with pytest.raises(UnsupportedOpError, match="depends on tensor data"):
        compile(kept_edges, _system(6, 20, torch.float64, torch.Generator().manual_seed(4)), DIMS)


def test_singular_cell_fails_as_in_torch() -> None:
    """linalg.inv checks its pivots (torch's _linalg_check_errors): a singular matrix
    fails the call (RuntimeError, as torch's LinAlgError), a regular one is inverted."""

    def fractional(pos: torch.Tensor, cell: torch.Tensor) -> torch.Tensor:
        return pos @ torch.linalg.inv(cell)

    g = torch.Generator().manual_seed(7)
    cell = torch.randn(3, 3, dtype=torch.float64, generator=g) + 4 * torch.eye(3, dtype=torch.float64)
    compiled = compile(fractional, [torch.randn(6, 3, dtype=torch.float64, generator=g), cell], [{0: Dim("N")}, None])
    pos = torch.randn(9, 3, dtype=torch.float64, generator=g)
    _check((compiled(pos, cell),), (fractional(pos, cell),), torch.float64, "regular cell")
    singular = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]], dtype=torch.float64)
    with pytest.raises(RuntimeError):
        fractional(pos, singular)
    with pytest.raises(RuntimeError, match="singular"):
        compiled(pos, singular)


def test_repeat_interleave_checks_its_repeats() -> None:
    """A negative repeat fails the call, and so does output_size other than the sum
    (RuntimeError with torch's message; a negative repeat that moves an end out of
    range may be reported by its index check first)."""

    def batched(pos: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        graph = torch.repeat_interleave(torch.arange(counts.shape[0]), counts, output_size=pos.shape[0])
        return torch.zeros(counts.shape[0], 3, dtype=pos.dtype).index_add(0, graph, pos)

    def repeated(pos: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        return (pos[torch.repeat_interleave(counts)] ** 2).sum(0)

    g = torch.Generator().manual_seed(8)
    pos = torch.randn(7, 3, dtype=torch.float64, generator=g)
    sized = compile(batched, [pos, torch.tensor([3, 0, 4])], [{0: Dim("N")}, {0: Dim("B")}])
    _check((sized(pos, torch.tensor([2, 5, 0])),), (batched(pos, torch.tensor([2, 5, 0])),), torch.float64, "sum = N")
    for bad, message in (([2, 4, 0], "allocated size does not match required size"), ([8, -1, 0], "negative")):
        with pytest.raises(RuntimeError):  # eager with output_size writes past its result on [8, -1, 0]: not called
            torch.repeat_interleave(torch.tensor(bad), output_size=None if min(bad) < 0 else pos.shape[0])
        with pytest.raises((RuntimeError, IndexError), match=message):
            sized(pos, torch.tensor(bad))
    free = compile(repeated, [pos, torch.tensor([1, 0, 2, 1, 1, 3, 0])], [{0: Dim("N")}, {0: Dim("N")}])
    for counts in ([0] * 7, [4, 0, 0, 1, 2, 0, 9]):
        _check((free(pos, torch.tensor(counts)),), (repeated(pos, torch.tensor(counts)),), torch.float64, f"{counts}")
    with pytest.raises((RuntimeError, IndexError), match="negative"):
        free(pos, torch.tensor([2, -1, 1, 0, 0, 0, 0]))


def _unique_energy(x: torch.Tensor, z: torch.Tensor):
    x = x.detach().requires_grad_(True)
    u, inverse, counts = torch.unique(z, return_inverse=True, return_counts=True)
    e = (x * inverse.to(x.dtype)).sum() + (u.to(x.dtype) * counts.to(x.dtype)).sum() * x.sum()
    e = e + torch.unique(z).to(x.dtype).sum() * (x * x).mean()
    return e, torch.autograd.grad(e, x)[0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_unique_with_inverse_and_counts(dtype: torch.dtype) -> None:
    """torch.unique (aten._unique2): as many values as the data hold, at sizes not traced."""
    n = Dim("N", min=1)
    compiled = compile(_unique_energy, (torch.rand(10, dtype=dtype), torch.randint(0, 5, (10,))),
                                [{0: n}, {0: n}])
    g = torch.Generator().manual_seed(3)
    for size in (1, 3, 17, 50):
        x, z = torch.rand(size, dtype=dtype, generator=g), torch.randint(-3, 9, (size,), generator=g)
        for got, want in zip(compiled(x, z), _unique_energy(x, z)):
            assert relative_error(got, want.detach()) <= TOLERANCE[dtype], size


def triplet_energy(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """graph-pes' three-body triplets for a fixed number of atoms: per atom, the ordered
    pairs of its short edges, `cartesian_prod` of a count from data (k**2 rows, then a
    mask), concatenated over the atoms (the extent of a select of data-dependent sizes)."""
    pos.requires_grad_(True)
    with torch.no_grad():
        r = (pos[edge_index[0]] - pos[edge_index[1]]).norm(dim=-1)
        relevant = torch.arange(edge_index.shape[1])[(r < 2.5) & (r > 0)]
        centre = edge_index[0][relevant]
        pairs = []
        for i in range(pos.shape[0]):
            mine = relevant[centre == i]
            k = mine.shape[0]
            idx = torch.cartesian_prod(torch.arange(k), torch.arange(k))
            pairs.append(mine[idx[idx[:, 0] != idx[:, 1]]])
        pairs = torch.cat(pairs)
    va = pos[edge_index[1][pairs[:, 0]]] - pos[edge_index[0][pairs[:, 0]]]
    vb = pos[edge_index[1][pairs[:, 1]]] - pos[edge_index[0][pairs[:, 1]]]
    energy = ((va * vb).sum(-1).square() / (va.square().sum(-1) * vb.square().sum(-1))).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_sizes_squared_and_selected_from_data(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(4)
    compiled = compile(triplet_energy, _system(5, 20, dtype, g), (None, {1: Dim("E")}))
    for e in (40, 9, 1):
        args = _system(5, e, dtype, g)
        want = triplet_energy(args[0].clone(), args[1])
        assert e == 1 or want[0] > 0, "no triplets: the test would prove nothing"
        _check(compiled(*args), want, dtype, f"triplets at E={e}")


def checked_count(pos: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = int(counts.sum())
    torch._check(n == pos.shape[0])  # the code's own assumption, deferred by torch to run time
    return torch.zeros(n, dtype=pos.dtype) + pos.sum(-1)


def scaled_count(pos: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    n = int(counts.sum())
    torch._check(n * 1.5 > 2)  # a float relation of a size
    return pos.sum(-1) * n


def counted_zeros(pos: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    return torch.zeros(int(counts.sum()), dtype=pos.dtype).sum() + pos.sum(-1)  # a size: >= 0


@pytest.mark.parametrize("fn, bad, message", [
    (checked_count, torch.ones(7, dtype=torch.int64), r"breaks Eq\(u0, N\), which the code assumed at .*test_data_dependent.py"),
    (counted_zeros, -torch.ones(3, dtype=torch.int64), r"breaks 0 <= u0"),
    (scaled_count, torch.zeros(4, dtype=torch.int64), r"breaks 2.0 < 1.5\*ToFloat\(u0\)"),
], ids=["torch._check", "size >= 0", "float relation"])
def test_what_the_trace_assumed_of_data_is_checked(fn, bad: torch.Tensor, message: str, tmp_path: Path) -> None:  # noqa: ANN001
    """torch defers assumptions on sizes read from data to run time (make_fx leaves them
    out of the graph): the compiled code and the library check them before any code
    sized by the value runs, instead of writing past a buffer."""
    compiled = compile(fn, (torch.randn(5, 3), torch.ones(5, dtype=torch.int64)), ({0: Dim("N")}, {0: Dim("M")}))
    pos = torch.randn(4, 3)
    good = torch.ones(4, dtype=torch.int64)
    _check((compiled(pos, good),), (fn(pos, good),), torch.float32, fn.__name__)
    with pytest.raises(RuntimeError, match=message):
        compiled(pos, bad)
    library = load_library(export_library(compiled, tmp_path, name="model"))
    with pytest.raises(RuntimeError, match=message):
        library(pos, bad)
