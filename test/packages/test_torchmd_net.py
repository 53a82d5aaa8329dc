"""torchmd-net 3.1.0: TensorNet from the package's own `torchmdnet.models.model.create_model`
(2 layers, 16 channels, 8 expnorm RBFs, 4 A cutoff, O(3), Scalar output, derivative=True:
the model's own forces, `-autograd.grad` of the energy), random weights, float64 and float32;
`static_shapes` True (the neighbour list padded to 64 pairs per atom, the padding masked) and
False (create_model's default: the list cut to the pairs found, a data-dependent size).
Called with `num_systems=1` (the argument the package gives for torch.export: without it the
reduction reads `batch.max().item() + 1`).

Since 3.0 the package is pure Python and its kernels are NVIDIA Warp's (warp-lang, a
dependency; its CPU kernels are compiled at first use into ~/.cache/warp). With Warp
importable, TensorNet runs every step of its own as a custom op (torch.library) with a Warp
kernel, a fake and an autograd formula: the neighbour search
`torchmdnet::warp_neighbor_brute_fwd` (called from `OptimizedDistance`,
torchmdnet/models/utils.py:285, in `WarpBruteNeighborAutograd.forward`,
torchmdnet/extensions/warp_ops/neighbors.py:352), the edge list to CSR (`nvtnet::`), and
TensorNet's message passing and tensor algebra (`tensornet::*_fwd_primitive`). The trace goes
through them (their fakes); the import refuses the first, naming it and the line. Below is
each one in torch ops, as its Warp kernel computes it (torchmdnet/extensions/warp_kernels/),
given to pipeline.compile as `decompositions`; the trace differentiates through them (the
ops' own backward primitives are never called), except the neighbour search, whose
autograd.Function's backward (torch ops, extensions/neighbor_utils.py) runs as shipped.
`test_decompositions_match_the_ops` checks each against the op on the inputs the model
hands it."""

from __future__ import annotations

import functools

import pytest
import torch
from torch import Tensor
from torch.export import Dim
from torch.overrides import TorchFunctionMode

from common import check_aten_ops, check_eager, cluster, compile_and_compare, species

pytest.importorskip("torchmdnet")

ELEMENTS = (1, 6, 7, 8)
CUTOFF = 4.0  # its square is a float32: the kernel compares with cutoff**2 passed as a Warp float
N = Dim("N", min=2)
DYNAMIC = {"positions": {0: N}, "atomic_numbers": {0: N}}
DTYPES = [torch.float64, torch.float32]
STATIC = [True, False]


@functools.cache
def model(dtype: torch.dtype, static_shapes: bool):
    from torchmdnet.models.model import create_model

    torch.manual_seed(0)
    return create_model({
        "model": "tensornet", "embedding_dimension": 16, "num_layers": 2, "num_rbf": 8, "rbf_type": "expnorm",
        "trainable_rbf": False, "activation": "silu", "cutoff_lower": 0.0, "cutoff_upper": CUTOFF, "max_z": 10,
        "max_num_neighbors": 64, "equivariance_invariance_group": "O(3)", "static_shapes": static_shapes,
        "output_model": "Scalar", "reduce_op": "add", "prior_model": None, "derivative": True, "atom_filter": -1,
        "precision": {torch.float64: 64, torch.float32: 32}[dtype],
    }).eval()


def energy_forces_of(dtype: torch.dtype, static_shapes: bool):
    net = model(dtype, static_shapes)  # built before tracing

    def energy_forces(positions, atomic_numbers):
        energy, forces = net(atomic_numbers, positions, num_systems=1)
        return energy.reshape(()), forces

    return energy_forces


def inputs_of(dtype: torch.dtype):
    def inputs(n: int, seed: int):
        return {"positions": cluster(n, seed, dtype=dtype), "atomic_numbers": species(n, seed, ELEMENTS)}

    return inputs


# --- The package's custom ops in torch ops, as their Warp kernels compute them -------------


def neighbor_pairs(positions: Tensor, batch: Tensor, box_vectors: Tensor, use_periodic: bool, cutoff_lower: float,
                   cutoff_upper: float, max_num_pairs: int, loop: bool, include_transpose: bool) -> list[Tensor]:
    """torchmdnet::warp_neighbor_brute_fwd (warp_kernels/neighbors_brute.py): one thread per
    pair (i, j), j < i (j <= i with `loop`), in the order i, then j (the CPU runs the threads
    in that order); a pair of the same batch with cutoff_lower^2 <= d^2 < cutoff_upper^2 (a self
    pair: d^2 < cutoff_upper^2) is written at the next place of a counter, (i, j) and then
    (j, i) with `include_transpose` (a self pair once), if it fits in `max_num_pairs`.
    Returns [neighbors (2, max) int64 padded with -1, deltas pos_i - pos_j (max, 3) and
    distances (max,) padded with 0, the count (1,) int32 (all found, fitting or not)].
    All pairs, brute force: N^2 candidates, no data-dependent size."""
    if use_periodic:
        raise NotImplementedError("the periodic minimum image (TensorNet here has no box)")
    n = positions.shape[0]
    atoms = torch.arange(n)
    i = atoms[:, None].expand(n, n).reshape(-1)
    j = atoms[None, :].expand(n, n).reshape(-1)
    delta = positions[i] - positions[j]
    dx, dy, dz = delta.unbind(-1)
    d2 = dx * dx + dy * dy + dz * dz
    self_pair = i == j
    found = ((j <= i) if loop else (j < i)) & (batch[i] == batch[j]) & (d2 < cutoff_upper**2)
    found = found & (self_pair | (d2 >= cutoff_lower**2))
    both = found & ~self_pair if include_transpose else torch.zeros_like(found)
    count = found.long() + both.long()
    start = torch.cumsum(count, 0) - count
    fits = found & (start + count - 1 < max_num_pairs)
    slots = torch.cat([torch.where(fits, start, max_num_pairs), torch.where(fits & both, start + 1, max_num_pairs)])

    def placed(values: Tensor, pad: float) -> Tensor:  # at its slot; max_num_pairs: the discarded
        out = values.new_full((max_num_pairs + 1, *values.shape[1:]), pad)
        return out.index_put((slots,), values)[:max_num_pairs]

    neighbors = torch.stack([placed(torch.cat([i, j]), -1), placed(torch.cat([j, i]), -1)])
    distance = torch.sqrt(d2)
    return [neighbors, placed(torch.cat([delta, -delta]), 0), placed(torch.cat([distance, distance]), 0),
            count.sum().to(torch.int32).reshape(1)]


def count_row_col(edge_index: Tensor, num_nodes: int) -> tuple[Tensor, Tensor]:
    """nvtnet::count_row_col_primitive (warp_kernels/graph_transform.py): per node, the edges
    from it and to it, at node + 1 (the CSR's counts; index 0 stays 0); a -1 edge (padding) is
    skipped."""
    valid = (edge_index[0] != -1) & (edge_index[1] != -1)

    def count(ends: Tensor) -> Tensor:
        at = torch.where(valid, ends.long() + 1, 0)
        return torch.zeros(num_nodes + 1, dtype=torch.long).index_add(0, at, valid.long()).to(torch.int32)

    return count(edge_index[0]), count(edge_index[1])


def convert_to_sparse(edge_index: Tensor, row_count: Tensor, col_count: Tensor, row_indptr: Tensor,
                      col_indptr: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """nvtnet::convert_to_sparse_primitive: edge e from s to d goes to place
    `indptr[s + 1] - count[s + 1] + k` of the rows (k: the edges from s before e; the kernel
    counts count[s + 1] down, one thread per edge in order), with the other end (`indices`)
    and e (`data`); likewise the columns. The places past the last edge are left unwritten
    by the kernel (torch.empty), here 0. (The kernel also counts row_count and col_count down
    to 0 in place, though the op declares no mutation; nothing reads them after.)"""
    edges = edge_index.shape[1]
    valid = (edge_index[0] != -1) & (edge_index[1] != -1)

    def csr(ends: Tensor, others: Tensor, count: Tensor, indptr: Tensor) -> tuple[Tensor, Tensor]:
        at = torch.where(valid, ends.long() + 1, 0)
        same = (at[:, None] == torch.arange(count.shape[0])[None, :]).long()  # [E, N + 1]
        before = ((torch.cumsum(same, 0) - same) * same).sum(1)  # earlier edges from the same node
        place = torch.where(valid, indptr.long()[at] - count.long()[at] + before, edges)
        indices = torch.zeros(edges + 1, dtype=torch.int32).index_put((place,), others.to(torch.int32))[:edges]
        data = torch.zeros(edges + 1, dtype=torch.int32).index_put((place,), torch.arange(edges, dtype=torch.int32))
        return indices, data[:edges]

    row_indices, row_data = csr(edge_index[0], edge_index[1], row_count, row_indptr)
    col_indices, col_data = csr(edge_index[1], edge_index[0], col_count, col_indptr)
    return row_indices, col_indices, row_data, col_data


def csr_rows(indptr: Tensor, places: int) -> tuple[Tensor, Tensor]:
    """The row of each place of a CSR (0 past the last edge) and whether it holds an edge."""
    k = torch.arange(places)
    row = (indptr[1:].long()[None, :] <= k[:, None]).sum(1)
    used = k < indptr[-1].long()
    return torch.where(used, row, 0), used


def radial_message_passing(edge_vec_norm: Tensor, edge_attr: Tensor, row_data: Tensor, row_indptr: Tensor) -> list[Tensor]:
    """tensornet::radial_message_passing_fwd_primitive (warp_kernels/tensornet_radial_mp.py):
    per atom b, over the edges e of its row, with r = edge_vec_norm[e] and w = edge_attr[e]:
    I += w0; A += (r_z, -r_y, r_x) w1; S += (x^2 - |r|^2/3, xy, xz, y^2 - |r|^2/3, yz) w2.
    I [N, 1, F], A [N, 3, F], S [N, 5, F] (the package's packed irreducible components)."""
    atoms = row_indptr.shape[0] - 1
    row, used = csr_rows(row_indptr, row_data.shape[0])
    e = torch.where(used, row_data.long(), 0)
    w = torch.where(used[:, None, None], edge_attr[e], 0)
    x, y, z = edge_vec_norm[e].unbind(-1)
    mean = (x * x + y * y + z * z) / 3
    vector = torch.stack([z, -y, x], 1)[:, :, None] * w[:, 1:2, :]
    tensor = torch.stack([x * x - mean, x * y, x * z, y * y - mean, y * z], 1)[:, :, None] * w[:, 2:3, :]

    def gathered(v: Tensor) -> Tensor:
        return torch.zeros((atoms, *v.shape[1:]), dtype=v.dtype).index_add(0, row, v)

    return [gathered(w[:, 0:1, :]), gathered(vector), gathered(tensor)]


def message_passing(x: Tensor, y: Tensor, z: Tensor, edge_attr: Tensor, row_data: Tensor, row_indices: Tensor,
                    row_indptr: Tensor, col_data: Tensor, col_indices: Tensor, col_indptr: Tensor) -> list[Tensor]:
    """tensornet::message_passing_fwd_primitive (warp_kernels/tensornet_mp.py): per atom b,
    over the places of its row (edge e = data, neighbour j = indices), x[j] w0, y[j] w1 and
    z[j] w2 summed (w = edge_attr[e]). (TensorNet passes its column CSR as the rows.)"""
    row, used = csr_rows(row_indptr, row_data.shape[0])
    e = torch.where(used, row_data.long(), 0)
    j = torch.where(used, row_indices.long(), 0)
    w = torch.where(used[:, None, None], edge_attr[e], 0)
    return [torch.zeros_like(v).index_add(0, row, v[j] * w[:, k : k + 1, :]) for k, v in enumerate((x, y, z))]


def compose_tensor(i: Tensor, a: Tensor, s: Tensor) -> Tensor:
    """tensornet::compose_tensor_fwd_primitive: X [N, 3, 3, F] = I 1 + the antisymmetric
    (X01, X02, X12 = A0, A1, A2) + the symmetric traceless (S0 = X00, S1 = X01, S2 = X02,
    S3 = X11, S4 = X12, X22 = -(S0 + S3))."""
    i, (a0, a1, a2), (s0, s1, s2, s3, s4) = i[:, 0], a.unbind(1), s.unbind(1)
    rows = [[i + s0, a0 + s1, a1 + s2], [-a0 + s1, i + s3, a2 + s4], [-a1 + s2, -a2 + s4, i - (s0 + s3)]]
    return torch.stack([torch.stack(r, 1) for r in rows], 1)


def decompose_tensor(x: Tensor) -> list[Tensor]:
    """tensornet::decompose_tensor_fwd_primitive: compose_tensor's inverse."""
    i = (x[:, 0, 0] + x[:, 1, 1] + x[:, 2, 2]) / 3
    a = torch.stack([(x[:, 0, 1] - x[:, 1, 0]) / 2, (x[:, 0, 2] - x[:, 2, 0]) / 2, (x[:, 1, 2] - x[:, 2, 1]) / 2], 1)
    s = torch.stack([x[:, 0, 0] - i, (x[:, 0, 1] + x[:, 1, 0]) / 2, (x[:, 0, 2] + x[:, 2, 0]) / 2, x[:, 1, 1] - i,
                     (x[:, 1, 2] + x[:, 2, 1]) / 2], 1)
    return [i[:, None], a, s]


THIRD_F32 = float(torch.tensor(1 / 3, dtype=torch.float32))


def tensor_norm3(x: Tensor) -> Tensor:
    """tensornet::tensor_norm3_fwd_primitive: [N, 3F], the squared norms of the trace part,
    the antisymmetric part and the symmetric traceless part of X [N, 3, 3, F]. The trace
    part as the kernel has it, `X.dtype(1.0 / 3.0) * trace * trace`: the literal 1/3 is a
    Warp float32 (0.3333333432674408 in float64, 3e-8 from the float64 third)."""
    trace = x[:, 0, 0] + x[:, 1, 1] + x[:, 2, 2]
    off = [(0, 1), (0, 2), (1, 2)]
    norm_i = THIRD_F32 * trace * trace
    norm_a = sum((x[:, p, q] - x[:, q, p]) ** 2 for p, q in off) / 2
    norm_s = sum((x[:, p, q] + x[:, q, p]) ** 2 for p, q in off) / 2 + sum((x[:, p, p] - trace / 3) ** 2 for p in range(3))
    return torch.cat([norm_i, norm_a, norm_s], 1)


def matmul_so3(x: Tensor, y: Tensor) -> Tensor:
    """tensornet::tensor_matmul_so3_3x3_fwd_primitive: X Y per atom and channel."""
    return torch.matmul(x.permute(0, 3, 1, 2), y.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)


def matmul_o3(x: Tensor, y: Tensor) -> Tensor:
    """tensornet::tensor_matmul_o3_3x3_fwd_primitive: X Y + Y X per atom and channel."""
    return matmul_so3(x, y) + matmul_so3(y, x)


def decompositions() -> dict:
    import torchmdnet.models.tensornet  # noqa: F401  (registers the ops)

    ops = torch.ops
    return {
        ops.torchmdnet.warp_neighbor_brute_fwd: neighbor_pairs,
        ops.nvtnet.count_row_col_primitive: count_row_col,
        ops.nvtnet.convert_to_sparse_primitive: convert_to_sparse,
        ops.tensornet.radial_message_passing_fwd_primitive: radial_message_passing,
        ops.tensornet.message_passing_fwd_primitive: message_passing,
        ops.tensornet.compose_tensor_fwd_primitive: compose_tensor,
        ops.tensornet.decompose_tensor_fwd_primitive: decompose_tensor,
        ops.tensornet.tensor_norm3_fwd_primitive: tensor_norm3,
        ops.tensornet.tensor_matmul_o3_3x3_fwd_primitive: matmul_o3,
        ops.tensornet.tensor_matmul_so3_3x3_fwd_primitive: matmul_so3,
    }


# --- Tests ----------------------------------------------------------------------------------

CASES = [pytest.param(d, s, id=f"{str(d)[6:]}-{'static' if s else 'dynamic'}") for d in DTYPES for s in STATIC]


@pytest.mark.parametrize("dtype,static_shapes", CASES)
def test_eager(dtype, static_shapes):
    check_eager(energy_forces_of(dtype, static_shapes), inputs_of(dtype))


class _Compare(TorchFunctionMode):
    """Calls each op of `table` and its decomposition (on clones: an op may write its
    inputs) and keeps (op, its inputs, its results, the decomposition's)."""

    def __init__(self, table):
        super().__init__()
        self.table, self.seen = table, []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        packet = func if isinstance(func, torch._ops.OpOverloadPacket) else getattr(func, "overloadpacket", None)
        ours = self.table.get(packet)
        if ours is None:
            return func(*args, **kwargs)
        clone = [a.detach().clone() if isinstance(a, Tensor) else a for a in args]
        mine = ours(*clone, **kwargs)
        result = func(*args, **kwargs)
        kept = [t.detach().clone() for t in ([result] if isinstance(result, Tensor) else result)]
        self.seen.append((packet, clone, kept, mine))  # as returned (a later op may write them)
        return result


@pytest.mark.parametrize("dtype,static_shapes", CASES)
def test_decompositions_match_the_ops(dtype, static_shapes):
    """Each decomposition against the op on the inputs the model hands it (eager, N = 22):
    integers exact, floats within 1e-12 (f64) / 1e-5 (f32) relative to the largest; of the
    CSR only the places that hold an edge (the rest the kernel leaves unwritten)."""
    table = decompositions()
    mode = _Compare(table)
    with mode:
        energy_forces_of(dtype, static_shapes)(**inputs_of(dtype)(22, 5))
    assert {str(op) for op, *_ in mode.seen} == {str(op) for op in table}
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    for func, args, theirs, mine in mode.seen:
        mine = [m.detach() for m in ([mine] if isinstance(mine, Tensor) else mine)]
        if func == torch.ops.nvtnet.convert_to_sparse_primitive:
            used = int(args[3][-1])  # row_indptr[-1]: the edges
            theirs, mine = [t[:used] for t in theirs], [m[:used] for m in mine]
        assert len(theirs) == len(mine), func
        for k, (t, m) in enumerate(zip(theirs, mine)):
            assert t.shape == m.shape and t.dtype == m.dtype, (func, k, t.shape, m.shape, t.dtype, m.dtype)
            if t.is_floating_point():
                err = float((t - m).abs().max() / t.abs().max().clamp(min=1e-30)) if t.numel() else 0.0
                assert err <= tol, (func, k, err)
            else:
                assert torch.equal(t, m), (func, k)


@pytest.mark.parametrize("dtype,static_shapes", CASES)
def test_aten_ops(dtype, static_shapes):
    check_aten_ops(energy_forces_of(dtype, static_shapes), inputs_of(dtype)(13, 0), DYNAMIC,
                   decompositions=decompositions())


def test_custom_op_is_named_with_its_line():
    """As shipped, without decompositions: the import refuses the neighbour search, the first
    custom op of the graph, naming it and the package's line that calls it; with only the
    neighbour search given, the next: the edge list to CSR (`graph_transform`, tensornet.py:323)."""
    import pipeline
    from frontend.import_fx import UnsupportedOpError

    fn, example = energy_forces_of(torch.float64, True), inputs_of(torch.float64)(13, 0)
    with pytest.raises(UnsupportedOpError, match=r"torchmdnet\.warp_neighbor_brute_fwd") as err:
        pipeline.compile(fn, example, DYNAMIC)
    text = str(err.value)
    assert "torchmdnet/extensions/warp_ops/neighbors.py:352" in text, text
    assert "decompositions={torch.ops.torchmdnet.warp_neighbor_brute_fwd" in text, text
    neighbors_only = {torch.ops.torchmdnet.warp_neighbor_brute_fwd: neighbor_pairs}
    with pytest.raises(UnsupportedOpError, match=r"nvtnet\.count_row_col_primitive") as err:
        pipeline.compile(fn, example, DYNAMIC, decompositions=neighbors_only)
    assert "torchmdnet/models/tensornet.py:323" in str(err.value), str(err.value)


@pytest.mark.parametrize("dtype,static_shapes", CASES)
def test_compiled_matches_eager(dtype, static_shapes):
    compile_and_compare(energy_forces_of(dtype, static_shapes), inputs_of(dtype), DYNAMIC, dtype,
                        decompositions=decompositions())
