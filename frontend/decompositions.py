"""The decompositions applied during capture.

torch's core ATen table rewrites non-core ops into core ones. On top of it, core ops
whose own aten-to-aten decomposition reaches only ops the compiler lowers are
decomposed too (softmax, layer norm, gelu, padding, ...): one lowering fewer per op,
and the fusion passes see the arithmetic. The core-opset test
(`test/python/test_core_opset.py`) checks every entry's decomposition against eager.
"""

from __future__ import annotations

from typing import Any

import torch
from torch._decomp import core_aten_decompositions, get_decompositions

aten = torch.ops.aten

DECOMPOSED: tuple[Any, ...] = (
    # activations
    aten.gelu.default, aten.elu.default, aten.hardtanh.default, aten.leaky_relu.default,
    aten._softmax.default, aten._log_softmax.default,
    # normalization (batch norm in inference and training form, layer and group norm)
    aten.native_layer_norm.default, aten.native_layer_norm_backward.default,
    aten.native_group_norm.default, aten.native_group_norm_backward.default,
    aten._native_batch_norm_legit.default, aten._native_batch_norm_legit.no_stats,
    aten._native_batch_norm_legit_no_training.default,
    # shapes and fills
    aten.squeeze.dim, aten.fill.Scalar, aten.clamp.Tensor,
    aten.reflection_pad1d.default, aten.reflection_pad2d.default, aten.reflection_pad3d.default,
    aten.upsample_nearest2d.vec, aten.upsample_bilinear2d.vec,
    # predicates and reductions to bool
    aten.isinf.default, aten.logical_xor.default, aten.any.default, aten.any.dim, aten.any.dims,
    # backward formulas' own ops
    aten.embedding_dense_backward.default, aten.new_empty_strided.default,
)


def _cdist_forward(x1: torch.Tensor, x2: torch.Tensor, p: float, compute_mode: int | None = None) -> torch.Tensor:
    """||x1[..., i, :] - x2[..., j, :]||_p (torch has no aten-to-aten form of it)."""
    return torch.linalg.vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


def _cdist_backward(grad: torch.Tensor, x1: torch.Tensor, x2: torch.Tensor, p: float, cdist: torch.Tensor) -> torch.Tensor:
    """d cdist / d x1 contracted with grad: sum over j of grad[i, j] times the
    derivative of the p-norm of x1[i] - x2[j] (0 where the distance is 0, as torch)."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    dist = cdist.unsqueeze(-1)
    if p == 0:
        return torch.zeros_like(x1)
    if p == 1:
        term = torch.sign(diff)
    elif p == float("inf"):
        term = torch.sign(diff) * (diff.abs() == dist)
    else:
        term = torch.sign(diff) * diff.abs() ** (p - 1) / dist ** (p - 1)
    term = torch.where(dist == 0, torch.zeros_like(term), term)
    return (grad.unsqueeze(-1) * term).sum(-2)


def _pair_rows(n: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """(i, j) of the n (n - 1) / 2 pairs i < j in pdist's row-major order, from the
    flat index k in closed form (exact in f64 for any n that fits in memory)."""
    m = n * (n - 1) // 2
    k = torch.arange(m, dtype=torch.float64)
    i = (n - 2 - torch.floor(torch.sqrt(-8 * k + 4 * n * (n - 1) - 7) / 2 - 0.5)).to(torch.int64)
    j = torch.arange(m) + i + 1 - m + (n - i) * (n - i - 1) // 2
    return i, j


def _pdist_forward(x: torch.Tensor, p: float = 2.0) -> torch.Tensor:
    """||x[i] - x[j]||_p over the pairs i < j (torch has no aten form of it)."""
    i, j = _pair_rows(x.shape[0])
    return torch.linalg.vector_norm(x[i] - x[j], p, dim=-1)


def _pdist_backward(grad: torch.Tensor, x: torch.Tensor, p: float, pdist: torch.Tensor) -> torch.Tensor:
    """cdist's derivative per pair, added to row i and subtracted from row j."""
    i, j = _pair_rows(x.shape[0])
    pair = _cdist_backward(grad.unsqueeze(-1).unsqueeze(-1), x[i].unsqueeze(-2), x[j].unsqueeze(-2), p,
                           pdist.unsqueeze(-1).unsqueeze(-1)).squeeze(-2)
    return torch.zeros_like(x).index_add(0, i, pair).index_add(0, j, -pair)


# --------------------------------------------------------------------------- small linear algebra
# LAPACK-style LU with partial pivoting, unrolled over a static n (3x3 cells, 2x2 ...):
# det, inverse, solve and their backward formulas (which call lu_solve) become
# elementwise code. A dynamic or large n keeps the op (NotImplemented).

MAX_UNROLLED = 8


def _unrollable(A: torch.Tensor) -> bool:
    n = A.shape[-1]
    return isinstance(n, int) and A.shape[-2] == n and n <= MAX_UNROLLED


def _swap_rows(M: torch.Tensor, k: int, p: torch.Tensor) -> torch.Tensor:
    """M with rows k and p (one per batch) exchanged, by selects (exact)."""
    rows = torch.arange(M.shape[-2])
    at_p = (rows == p.unsqueeze(-1)).unsqueeze(-1)
    at_k = (rows == k).unsqueeze(-1)
    row_k = M[..., k:k + 1, :]
    row_p = torch.where(at_p, M, torch.zeros_like(M)).sum(-2, keepdim=True)
    return torch.where(at_k, row_p, torch.where(at_p, row_k, M))


def _lu_factor(A: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(LU, pivots) with A = P L U: L unit lower and U upper packed in LU, pivots
    1-based int32 row interchanges (LAPACK's getrf)."""
    n = A.shape[-1]
    LU, pivots = A, []
    for k in range(n):
        p = LU[..., k:, k].abs().argmax(-1) + k
        pivots.append(p)
        LU = _swap_rows(LU, k, p)
        if k + 1 < n:
            factors = LU[..., k + 1:, k:k + 1] / LU[..., k:k + 1, k:k + 1]
            lower = LU[..., k + 1:, k + 1:] - factors * LU[..., k:k + 1, k + 1:]
            LU = torch.cat([LU[..., :k + 1, :], torch.cat([LU[..., k + 1:, :k], factors, lower], -1)], -2)
    return LU, (torch.stack(pivots, -1) + 1).to(torch.int32)


def _info(LU: torch.Tensor) -> torch.Tensor:
    """LAPACK's info: 1 + the first zero on U's diagonal, 0 if none."""
    zero = LU.diagonal(0, -2, -1) == 0
    return torch.where(zero.any(-1), zero.to(torch.int32).argmax(-1).to(torch.int32) + 1, torch.zeros_like(zero[..., 0], dtype=torch.int32))


def _unpack(LU: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(L, U) from the packed factors: L unit lower, U upper."""
    n = LU.shape[-1]
    rows = torch.arange(n)
    below = rows.unsqueeze(-1) > rows
    L = torch.where(below, LU, torch.zeros_like(LU)) + torch.eye(n, dtype=LU.dtype)
    U = torch.where(below, torch.zeros_like(LU), LU)
    return L, U


def _triangular(T: torch.Tensor, X: torch.Tensor, lower: bool, unit: bool) -> torch.Tensor:
    """T^-1 X by substitution, T triangular with a static n."""
    n = T.shape[-1]
    ys: list[Any] = [None] * n
    for i in range(n) if lower else reversed(range(n)):
        y = X[..., i:i + 1, :]
        for j in range(i) if lower else range(i + 1, n):
            y = y - T[..., i:i + 1, j:j + 1] * ys[j]
        ys[i] = y if unit else y / T[..., i:i + 1, i:i + 1]
    return torch.cat(ys, -2)


def _lu_solve(LU: torch.Tensor, pivots: torch.Tensor, B: torch.Tensor, *, left: bool = True,
              adjoint: bool = False) -> torch.Tensor:
    """X with A X = B (A^H X = B if adjoint; X A = B unless left), A = P L U."""
    if not _unrollable(LU):
        return NotImplemented
    if not left:
        return _lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    n = LU.shape[-1]
    L, U = _unpack(LU)
    p = (pivots - 1).to(torch.int64)
    if not adjoint:  # X = U^-1 L^-1 P^T B
        for k in range(n):
            B = _swap_rows(B, k, p[..., k])
        return _triangular(U, _triangular(L, B, True, True), False, False)
    X = _triangular(L.mT, _triangular(U.mT, B, True, False), False, True)  # X = P L^-T U^-T B
    for k in reversed(range(n)):
        X = _swap_rows(X, k, p[..., k])
    return X


def _linalg_det(A: torch.Tensor) -> Any:
    if not _unrollable(A):
        return NotImplemented
    LU, pivots = _lu_factor(A.mT)  # as torch: the factors of A^T (det is the same; the backward expects them)
    swaps = (pivots != torch.arange(1, A.shape[-1] + 1, dtype=torch.int32)).sum(-1)
    sign = (1 - 2 * (swaps % 2)).to(A.dtype)
    return LU.diagonal(0, -2, -1).prod(-1) * sign, LU, pivots


def _linalg_lu_factor_ex(A: torch.Tensor, pivot: bool = True, check_errors: bool = False) -> Any:
    if not _unrollable(A) or not pivot:
        return NotImplemented
    LU, pivots = _lu_factor(A)
    return LU, pivots, _info(LU)


def _linalg_inv_ex(A: torch.Tensor, check_errors: bool = False) -> Any:
    if not _unrollable(A):
        return NotImplemented
    LU, pivots = _lu_factor(A)
    eye = torch.eye(A.shape[-1], dtype=A.dtype).expand(A.shape)
    return _lu_solve(LU, pivots, eye), _info(LU)


def _linalg_solve_ex(A: torch.Tensor, B: torch.Tensor, left: bool = True, check_errors: bool = False) -> Any:
    if not _unrollable(A):
        return NotImplemented
    LU, pivots = _lu_factor(A)
    vector = B.dim() == A.dim() - 1
    X = _lu_solve(LU, pivots, B.unsqueeze(-1) if vector else B, left=left)
    return X.squeeze(-1) if vector else X, LU, pivots, _info(LU)


def _linalg_solve_triangular(A: torch.Tensor, B: torch.Tensor, *, upper: bool, left: bool = True,
                             unitriangular: bool = False) -> torch.Tensor:
    """A^-1 B (left) or B A^-1 for triangular A, by substitution (only A's triangle is read)."""
    if not _unrollable(A):
        return NotImplemented
    if not left:
        return _triangular(A.mT, B.mT, upper, unitriangular).mT
    return _triangular(A, B, not upper, unitriangular)


def _lu_unpack(LU: torch.Tensor, pivots: torch.Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """(P, L, U) with A = P L U."""
    if not _unrollable(LU) or not (unpack_data and unpack_pivots):
        return NotImplemented
    n = LU.shape[-1]
    L, U = _unpack(LU)
    swapped = torch.eye(n, dtype=LU.dtype).expand(LU.shape)  # P^T: the interchanges applied to I
    p = (pivots - 1).to(torch.int64)
    for k in range(n):
        swapped = _swap_rows(swapped, k, p[..., k])
    return swapped.mT, L, U


def _linalg_check_errors(info: torch.Tensor, api_name: str, *, is_matrix: bool) -> None:
    """torch raises for a singular matrix: the same check, as a graph assertion."""
    torch._assert_async((info == 0).all(), f"{api_name}: the input matrix is singular (a zero pivot)")


def _assert_async(condition: torch.Tensor) -> None:
    """The message-less form, with torch's own message (functionalization used to
    give every assertion a message; a graph without mutations skips it)."""
    torch._assert_async(condition, "Expected Tensor with single nonzero value, but got zero")


def _eye(n: int, m: int | None = None, *, dtype: torch.dtype | None = None, layout: Any = None,
         device: Any = None, pin_memory: bool | None = None) -> torch.Tensor:
    """torch's own decomposition compares uint8 aranges (a dtype the compiler refuses,
    since its wrap-around arithmetic has no signless counterpart): int64 instead."""
    rows = torch.arange(n).unsqueeze(-1)
    cols = torch.arange(n if m is None else m)
    return (rows == cols).to(dtype or torch.get_default_dtype())


def _repeat(a: torch.Tensor, repeats: list[Any]) -> torch.Tensor:
    """Each dim of `a` (left-padded with 1s) tiled by its repeat count: interleave a new
    dim of the count before each, expand it, flatten the pairs. torch's own asks `0 in
    repeats` first, which guards on a data-dependent count (graph-pes, TorchANI repeat by
    an edge count from a mask); this form holds for every count, 0 included."""
    torch._check(len(repeats) >= a.dim(), lambda: "repeat: fewer repeat dims than the tensor's dims")
    shape = [1] * (len(repeats) - a.dim()) + list(a.shape)
    paired = a.reshape(shape).reshape([d for size in shape for d in (1, size)])
    tiled = paired.expand([d for r, size in zip(repeats, shape) for d in (r, size)])
    return tiled.clone(memory_format=torch.contiguous_format).reshape([r * size for r, size in zip(repeats, shape)])


def _max(a: torch.Tensor) -> torch.Tensor:
    """`t.max()` over all elements: amax over every dim (the same ties rule in backward)."""
    return torch.amax(a, list(range(a.dim())))


def _min(a: torch.Tensor) -> torch.Tensor:
    return torch.amin(a, list(range(a.dim())))


def _bincount(a: torch.Tensor, weights: torch.Tensor | None = None, minlength: int = 0) -> torch.Tensor:
    """Counts (or summed weights) per value: max(max(a) + 1, minlength) bins, a size from
    data (CHGNet counts the edges of each atom); an empty `a` has `minlength` bins.
    Negative values raise, as in torch."""
    torch._assert_async((a >= 0).all(), "bincount: only non-negative values can be counted")
    top = torch.cat([a.flatten(), a.new_full((1,), minlength - 1)]).amax() + 1
    bins = top.item()
    torch._check(bins >= max(minlength, 0))
    dtype = torch.int64 if weights is None else (weights.dtype if weights.dtype.is_floating_point else torch.float64)
    values = torch.ones_like(a, dtype=dtype) if weights is None else weights.to(dtype)
    return torch.zeros(bins, dtype=dtype).index_put((a,), values, accumulate=True)


def _unique2(a: torch.Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002 - torch's name
             return_counts: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """torch.unique: a stable sort, the first of each run of equal values (a count from
    data), the run index of each element put back in place, and the run lengths (TorchANI
    numbers the species present). Always sorted, which `sorted=False` allows."""
    values, order = torch.sort(a.flatten(), stable=True)
    at = torch.arange(values.shape[0])
    new = (values != values[(at - 1).clamp(min=0)]) | (at == 0)  # slices [1:], [:-1] would guard on the size
    unique = values[new]
    group = torch.cumsum(new.to(torch.int64), 0) - 1
    none = torch.zeros(0, dtype=torch.int64)
    inverse = torch.zeros_like(group).index_put((order,), group).reshape(a.shape) if return_inverse else none
    counts = (torch.zeros(unique.shape[0], dtype=torch.int64).index_put((group,), torch.ones_like(group), accumulate=True)
              if return_counts else none)
    return unique, inverse, counts


_EXP_SQUARINGS = 64
"""matrix_exp scales its argument's 1-norm to <= 1 by at most 2^64, then squares back (its
backward takes the exp of a block matrix holding the upstream gradient, which may be
large: a loss of squares of exp(3 c) reached 1e13)."""


def _linalg_matrix_exp(a: torch.Tensor) -> torch.Tensor:
    """exp of (..., n, n) matrices (Orb's rotations from a skew generator): scaling and
    squaring, s = ceil(log2 |a|_1) (a per-matrix count from data, so each of the fixed
    squarings is kept or not by a select), and Taylor of degree 18 at norm <= 1 (a term
    of 1/19! < 1e-17). Differentiable through the same steps; a 1-norm past 2^64 fails a
    check instead of losing accuracy."""
    norm = a.detach().abs().sum(-2).amax(-1)
    torch._assert_async((norm <= 2.0 ** _EXP_SQUARINGS).all(), "matrix_exp: a 1-norm above 2^64")
    s = torch.ceil(torch.log2(norm.clamp(min=1.0)))
    x = a * torch.pow(2.0, -s)[..., None, None]
    eye = torch.eye(a.shape[-1], dtype=a.dtype).expand(a.shape)
    r = eye
    for k in range(18, 0, -1):  # Horner: I + x (I + x/2 (I + ...))
        r = eye + (x @ r) / k
    for i in range(_EXP_SQUARINGS):
        r = torch.where((s > i)[..., None, None], r @ r, r)
    return r


OWN: dict[Any, Any] = {
    aten.repeat.default: _repeat,
    aten.linalg_matrix_exp.default: _linalg_matrix_exp,
    aten._unique2.default: _unique2,
    aten.bincount.default: _bincount,
    aten.max.default: _max,
    aten.min.default: _min,
    aten.eye.default: _eye,
    aten.eye.m: _eye,
    aten._cdist_forward.default: _cdist_forward,
    aten._cdist_backward.default: _cdist_backward,
    aten._pdist_forward.default: _pdist_forward,
    aten._pdist_backward.default: _pdist_backward,
    aten._linalg_det.default: _linalg_det,
    aten.linalg_lu_factor_ex.default: _linalg_lu_factor_ex,
    aten.linalg_lu_solve.default: _lu_solve,
    aten.linalg_inv_ex.default: _linalg_inv_ex,
    aten._linalg_solve_ex.default: _linalg_solve_ex,
    aten._linalg_check_errors.default: _linalg_check_errors,
    aten._assert_async.default: _assert_async,
    aten.lu_unpack.default: _lu_unpack,
    aten.linalg_solve_triangular.default: _linalg_solve_triangular,
}
"""Core ops torch has no aten-level decomposition for, written here."""


def decompositions() -> dict[Any, Any]:
    """torch's core table plus `DECOMPOSED` and `OWN`."""
    return {**core_aten_decompositions(), **get_decompositions(list(DECOMPOSED)), **OWN}
