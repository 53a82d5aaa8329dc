"""The cases of test_ops_numerics: every op of the aten inventory as a tiny function of
seeded arguments (their dims in the symbols N, E and M), with its differentiable inputs.
A table of data, one entry per op variant, kept apart from the harness that runs it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim

from frontend.decompositions import decompositions

aten = torch.ops.aten
Tensor = torch.Tensor

TRACE = 5
"""The size of every symbol at trace time (E traces at TRACE + 3)."""
SIZES = (1, 2, 7, 33)
"""Call sizes of N (none traced); E = N + 3."""
SIZES_M = (4, 5, 7, 33)
"""Call sizes of M: torch guards slices of a dynamic dim (`x[1:-1]` requires M - 2 != 1),
so M is declared >= 4."""

DIMS = {"N": Dim("N"), "E": Dim("E"), "M": Dim("M", min=4)}


def _sizes(n: int) -> dict[str, int]:
    return {"N": n, "E": n + 3, "M": n}


DECOMPOSED_NAMES = {str(op).removeprefix("aten.").removesuffix(".default") for op in decompositions()}
"""Every op capture decomposes: torch's core table and our `DECOMPOSED`."""

INT = {torch.float32: torch.int32, torch.float64: torch.int64}
"""The integer dtype that integer cases use under each float dtype parameter."""



# --------------------------------------------------------------------------- arguments


@dataclass(frozen=True)
class Arg:
    """One argument: shape (ints, or the symbols "N", "E", "M") and how to draw it.

    kinds: normal, cell (normal + 4 I), positive (0.5..2), unit (-0.9..0.9), intf (integers -3..3 as floats,
    so that comparisons see ties), int (int64 in [lo, hi)), intd (the case's integer
    dtype, -8..8), bool, perm (a permutation of range(shape[0]), half of it negative:
    unique indices that wrap), sorted (intf sorted along the last dim: a searchsorted
    sequence with ties), parts (non-negative int64 summing to `hi`: repeats of a known
    total).
    """

    shape: tuple[int | str, ...]
    kind: str = "normal"
    lo: int | str = 0
    hi: int | str = 0

    def dims(self) -> dict[int, Dim] | None:
        dims = {k: DIMS[s] for k, s in enumerate(self.shape) if isinstance(s, str)}
        return dims or None

    def draw(self, g: torch.Generator, sizes: dict[str, int], dtype: torch.dtype) -> Tensor:
        shape = [sizes[s] if isinstance(s, str) else s for s in self.shape]
        kind = self.kind
        if kind == "normal":
            return torch.randn(shape, generator=g, dtype=dtype)
        if kind in ("positive", "unit"):
            lo, hi = (0.5, 2.0) if kind == "positive" else (-0.9, 0.9)
            return lo + (hi - lo) * torch.rand(shape, generator=g, dtype=dtype)
        if kind == "intf":
            return torch.randint(-3, 4, shape, generator=g).to(dtype)
        if kind == "int":
            return torch.randint(_bound(self.lo, sizes), _bound(self.hi, sizes), shape, generator=g)
        if kind == "intd":
            return torch.randint(-8, 9, shape, generator=g, dtype=INT[dtype])
        if kind == "bool":
            return torch.randint(0, 2, shape, generator=g).bool()
        if kind == "sorted":
            return torch.randint(-3, 4, shape, generator=g).to(dtype).sort(-1).values
        if kind == "parts":  # shape[0] cuts of range(total): a histogram of where they fall
            cuts = torch.randint(0, shape[0], (_bound(self.hi, sizes),), generator=g)
            return torch.bincount(cuts, minlength=shape[0])
        if kind == "cell":  # a well-conditioned matrix: a periodic cell
            return torch.randn(shape, generator=g, dtype=dtype) + 4 * torch.eye(shape[-1], dtype=dtype)
        if kind == "perm":
            p = torch.randperm(shape[0], generator=g)
            return torch.where(torch.arange(shape[0]) % 2 == 1, p - shape[0], p)
        raise ValueError(kind)


def _bound(v: int | str, sizes: dict[str, int]) -> int:
    if isinstance(v, int):
        return v
    return -sizes[v[1:]] if v.startswith("-") else sizes[v]


def X(*shape: int | str, kind: str = "normal") -> Arg:
    return Arg(tuple(shape), kind)


def I(*shape: int | str, lo: int | str = 0, hi: int | str) -> Arg:  # noqa: E743
    return Arg(tuple(shape), "int", lo, hi)


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    id: str
    fn: Callable[..., Tensor | tuple[Tensor, ...]]
    args: tuple[Arg, ...]
    ops: tuple[str, ...]
    """Overloads the captured graph must contain (the ops under test)."""
    grad: tuple[int, ...] = (0,)
    """Arguments the loss is differentiated by; () tests the forward only."""
    sizes: tuple[int, ...] = SIZES
    keep: tuple[Any, ...] = ()
    """Overload packets whose core decomposition is disabled while capturing, so that
    the op itself (rather than what torch rewrites it to) reaches the compiler."""
    marks: tuple[Any, ...] = ()
    decomposed: tuple[str, ...] = ()
    """Core ops the case calls (seen by eager dispatch) that capture decomposes
    (`frontend.decompositions.DECOMPOSED`): covered through their decomposition."""
    f32_from_f64: bool = False
    """Compare f32 with eager run in f64, rounded: eager's own f32 is further than the
    tolerance from the exact result (matrix_exp's backward)."""

    def param(self) -> Any:
        return pytest.param(self, id=self.id, marks=self.marks)


def C(id: str, fn: Callable[..., Tensor], args: Sequence[Arg], ops: str | Sequence[str], **kw: Any) -> Case:
    return Case(id, fn, tuple(args), (ops,) if isinstance(ops, str) else tuple(ops), **kw)


NX = X("N", 3)


def _assigned(a: Tensor, b: Tensor, at_a: int, at_b: int) -> Tensor:
    out = a.new_zeros(a.shape[0], at_b + b.shape[1])
    out[:, at_a:at_a + a.shape[1]] = a
    out[:, at_b:] = torch.sin(b)
    return out * 1.5
PX = X("N", 3, kind="positive")


def _weighted_rows(y: Tensor) -> Tensor:
    """sum_i cos(i) y[i]: a row's place matters (y's length is known only at run time)."""
    return (y * torch.arange(y.shape[0], dtype=y.dtype)[:, None].cos()).sum(0)
INF = float("inf")


def _other(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float32 else torch.float32


_W = torch.randn(3, 4, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
_C = [1.0, -2.0, 0.5]


UNARY = [
    C("neg", lambda x: -x, [NX], "neg"),
    C("abs", torch.abs, [NX], "abs"),
    C("sign", torch.sign, [X("N", 3, kind="intf")], "sign"),
    C("relu", torch.relu, [NX], "relu"),
    C("reciprocal", torch.reciprocal, [PX], "reciprocal"),
    C("sqrt", torch.sqrt, [PX], "sqrt"),
    C("rsqrt", torch.rsqrt, [PX], "rsqrt"),
    C("exp", torch.exp, [NX], "exp"),
    C("expm1", torch.expm1, [NX], "expm1"),
    C("log", torch.log, [PX], "log"),
    C("log1p", torch.log1p, [PX], "log1p"),
    C("sin", torch.sin, [NX], "sin"),
    C("cos", torch.cos, [NX], "cos"),
    C("tanh", torch.tanh, [NX], "tanh"),
    C("sigmoid", torch.sigmoid, [NX], "sigmoid"),
    C("erf", torch.erf, [NX], "erf"),
    C("unary-int", lambda i: (-i, torch.abs(i), torch.sign(i), torch.relu(i), ~i, torch.logical_not(i)),
      [X("N", 3, kind="intd")], ["neg", "abs", "sign", "relu", "bitwise_not", "logical_not"], grad=()),
    C("isnan", lambda x: (torch.isnan(x / x), torch.isnan(x)), [X("N", 3, kind="intf")], "isnan", grad=()),
    C("unary-bool", lambda b, x: (~b, torch.logical_not(b), torch.logical_not(x)),
      [X("N", 3, kind="bool"), X("N", 3, kind="intf")], ["bitwise_not", "logical_not"], grad=()),
]

COPIES = [
    C("alias", aten.alias, [NX], "alias"),
    C("clone", lambda x: x.clone(), [NX], "clone"),
    C("lift_fresh_copy", lambda x: x * torch.tensor(_C, dtype=x.dtype), [NX], ["lift_fresh_copy", "weight"]),
    C("_to_copy", lambda x, i: ((x.to(_other(x.dtype)) * 1.5).to(x.dtype), i.to(x.dtype) * x),
      [NX, X("N", 3, kind="intd")], "_to_copy"),
    C("_to_copy-int-bool", lambda x: ((x * 3).to(torch.int32), (x > 0).to(x.dtype), (x > 0.5).to(torch.int64)),
      [NX], "_to_copy", grad=()),
    C("weight", lambda x: x @ _W.to(x.dtype), [NX], ["weight", "mm"]),
]

_INT2 = [X("N", 3, kind="intd"), X(3, kind="intd")]
_BOOL2 = [X("N", 3, kind="bool"), X(3, kind="bool")]

BINARY = [
    C("add.Tensor", lambda x, y, z: (x + y, torch.add(x, z, alpha=2.5)), [NX, X(3), X("N", 1)], "add.Tensor", grad=(0, 1, 2)),
    C("add.Tensor-scalar", lambda x: x + 2.0, [NX], ["add.Tensor", "scalar_tensor"]),
    C("sub.Tensor", lambda x, y: (x - y, torch.sub(x, y, alpha=0.5)), [NX, X("N", 1)], "sub.Tensor", grad=(0, 1)),
    C("mul.Tensor", lambda x, y: x * y, [NX, X("N", 1)], "mul.Tensor", grad=(0, 1)),
    C("div.Tensor", lambda x, y: x / y, [NX, PX], "div.Tensor", grad=(0, 1)),
    C("maximum", torch.maximum, [NX, X(3)], "maximum", grad=(0, 1)),
    C("clamp_min.Tensor", lambda x, y: F.cosine_similarity(x, y, dim=-1), [NX, X("N", 3)], "clamp_min.Tensor", grad=(0, 1)),
    C("minimum", torch.minimum, [NX, X("N", 1)], "minimum", grad=(0, 1)),
    C("atan2", torch.atan2, [NX, NX], "atan2", grad=(0, 1)),
    C("binary-int", lambda i, j, k: (torch.add(i, j, alpha=3), i - j, i * j, i / k, torch.maximum(i, j), torch.minimum(i, j)),
      [*_INT2, I("N", 3, lo=1, hi=6)], ["add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "maximum", "minimum"], grad=()),
    C("bitwise-int", lambda i, j: (i & j, i | j), _INT2, ["bitwise_and.Tensor", "bitwise_or.Tensor"], grad=()),
    C("bitwise-bool", lambda a, b: (a & b, a | b, a + b), _BOOL2, ["bitwise_and.Tensor", "bitwise_or.Tensor", "add.Tensor"], grad=()),
    C("logical", lambda x, y, b: (torch.logical_and(x, y), torch.logical_or(x, b), torch.logical_and(b, y)),
      [X("N", 3, kind="intf"), X(3, kind="intf"), X("N", 3, kind="bool")], ["logical_and", "logical_or"], grad=()),
    # scalar operands
    C("wrapped-number-promotion", lambda x, i, b: (14.3996 * i * x, (b * 2) * x, (i > -0.5) * x, torch.where(i < 0.5, x, -x)),
      [NX, X("N", 3, kind="intd"), X("N", 3, kind="bool")], ["mul.Tensor", "gt.Scalar", "lt.Scalar"]),
    C("mul.Scalar", lambda x: aten.mul.Scalar(x, 2.5), [NX], "mul.Scalar"),
    C("div.Scalar", lambda x: aten.div.Scalar(x, 4.0), [NX], "div.Scalar"),
    C("add.Scalar", lambda x: (aten.add.Scalar(x, 2.0, alpha=3), aten.add.Scalar(x, 0.5, alpha=1.5)), [NX], "add.Scalar"),
    C("sub.Scalar", lambda x: aten.sub.Scalar(x, 1.5, alpha=2), [NX], "sub.Scalar"),
    C("scalar-int", lambda i: (aten.add.Scalar(i, 2, alpha=3), aten.sub.Scalar(i, 1), aten.mul.Scalar(i, 3), i**2,
                               aten.pow.Tensor_Scalar(i, 0), torch.clamp(i, -1, 2)),
      [X("N", 3, kind="intd")], ["add.Scalar", "sub.Scalar", "mul.Scalar", "pow.Tensor_Scalar", "clamp"], grad=()),
    C("pow.Tensor_Tensor", torch.pow, [PX, X(3)], "pow.Tensor_Tensor", grad=(0, 1)),
    C("pow.Tensor_Scalar", lambda x, p: (x**2, x**3, p**-1, p**0.5, p**2.5), [NX, PX], "pow.Tensor_Scalar", grad=(0, 1)),
    C("pow.Tensor_Scalar-0", lambda x: aten.pow.Tensor_Scalar(x, 0), [NX], "pow.Tensor_Scalar", grad=()),
    C("pow.Scalar", lambda x: (torch.pow(2.0, x), torch.pow(1.5, x)), [NX], "pow.Scalar"),
    C("clamp", lambda x: (torch.clamp(x, min=-0.3), torch.clamp(x, max=0.4), torch.clamp(x, -0.5, 0.5)), [NX], "clamp"),
    C("where.self", torch.where, [X("N", 1, kind="bool"), NX, X(3)], "where.self", grad=(1, 2)),
    C("where.self-scalar", lambda x: torch.where(x > 0, x, 0.0), [NX], ["where.self", "gt.Scalar", "scalar_tensor"]),
]

_CMP = [torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge]
_CMP_NAMES = ["eq", "ne", "lt", "le", "gt", "ge"]

COMPARE = [
    C("compare.Tensor", lambda x, y: tuple(f(x, y) for f in _CMP), [X("N", 3, kind="intf"), X(3, kind="intf")],
      [f"{k}.Tensor" for k in _CMP_NAMES], grad=()),
    C("compare.Scalar", lambda x: tuple(f(x, 1.0) for f in _CMP), [X("N", 3, kind="intf")],
      [f"{k}.Scalar" for k in _CMP_NAMES], grad=()),
    C("compare-int", lambda i, j, x, b: (i < j, i == j[0], x >= i, i < 0.5, b != 1, i.gt(-2)),
      [X("N", 3, kind="intd"), X("N", 1, kind="intd"), X("N", 3, kind="intf"), X("N", 3, kind="bool")],
      ["lt.Tensor", "eq.Tensor", "ge.Tensor", "lt.Scalar", "ne.Scalar", "gt.Scalar"], grad=()),
]

REDUCTIONS = [
    C("sum.dim_IntList", lambda x: (x.sum(1), x.sum(0), x.sum(-1, keepdim=True)), [X("N", 4)], "sum.dim_IntList"),
    C("sum.dim_IntList-3d", lambda x: (x.sum((0, 2)), x.sum((-1, -3), keepdim=True)), [X("N", 2, 3)], "sum.dim_IntList"),
    C("mean.dim", lambda x: (x.mean(0), x.mean(-1, keepdim=True), x.view(-1, 2, 2).mean((1, 2))), [X("N", 4)], "mean.dim"),
    C("amax", lambda x: (x.amax(-1), x.amax(0, keepdim=True), x.view(-1, 2, 2).amax((0, -1))), [X("N", 4)], "amax"),
    C("max-all", lambda x: (x.max(), x.min(), x.view(-1, 2, 2).max()), [X("N", 4)], ["amax", "amin"]),
    C("amin", lambda x: (x.amin(1), x.amin(-2, keepdim=True)), [X("N", 4)], "amin"),
    C("reduce-int", lambda i: (i.sum(1), i.sum(), i.amax(0), i.amin(1)), [X("N", 3, kind="intd")],
      ["sum.dim_IntList", "amax", "amin"], grad=()),
    C("sum", lambda x: x.sum(), [X("N", 2, 3)], "sum", keep=(aten.sum,)),
    C("mean", lambda x: x.mean(), [X("N", 2, 3)], "mean"),
    C("linalg_vector_norm", lambda x: tuple(torch.linalg.vector_norm(x, p, dim=-1) for p in (1, 2, 3)), [X("N", 4)], "linalg_vector_norm"),
    C("linalg_vector_norm-dims", lambda x: (torch.linalg.vector_norm(x, 2, dim=0, keepdim=True), torch.linalg.vector_norm(x),
                                            torch.linalg.vector_norm(x, 3, dim=(0, 1))), [X("N", 4)], "linalg_vector_norm"),
    C("linalg_vector_norm-inf-forward", lambda x, i: (torch.linalg.vector_norm(x, INF, dim=-1), torch.linalg.vector_norm(x, -INF, dim=(0, 1)),
                                                      torch.linalg.vector_norm(i, 0, dim=1)),
      [X("N", 4), X("N", 4, kind="intf")], "linalg_vector_norm", grad=()),
    C("linalg_vector_norm-inf", lambda x: torch.linalg.vector_norm(x, INF, dim=-1), [X("N", 4)], "linalg_vector_norm"),
]

MATMUL = [
    C("mm", lambda x, w, a: (x @ w, a.transpose(0, 1) @ x), [NX, X(3, 4), X("N", 4)], ["mm", "permute"], grad=(0, 1, 2)),
    C("bmm", torch.bmm, [X("N", 2, 3), X("N", 3, 4)], "bmm", grad=(0, 1)),
    C("addmm", lambda b, c, x, w: (torch.addmm(b, x, w), torch.addmm(c, x, w, beta=0.5, alpha=2.0)),
      [X(4), X("N", 4), NX, X(3, 4)], "addmm", grad=(0, 1, 2, 3)),
    C("_unsafe_view", lambda a, w: a @ w, [X("N", 2, 3), X(3, 4)], ["_unsafe_view", "mm"], grad=(0, 1), keep=(aten._unsafe_view,)),
]

VIEWS = [
    C("view", lambda x: (x.view(-1, 2), x.view(-1), x.view(x.shape[0], 2, 2)), [X("N", 4)], "view"),
    C("view-merge", lambda x: (x.view(x.shape[0], 6), x.permute(1, 0, 2).reshape(2, -1)), [X("N", 2, 3)], ["view", "permute", "clone"]),
    C(
        "view-chain",
        lambda x: x.view(x.shape[0], 3, 2).permute(2, 0, 1)[:, :, 1:].unsqueeze(0).expand(3, -1, -1, -1),
        [X("N", 6)], ["view", "permute", "slice.Tensor", "unsqueeze", "expand"],
    ),
    C("expand", lambda x, y, z: (x.expand(-1, 3), y.expand(y.shape[0], 2, 3), z.expand(x.shape[0], 3) * x),
      [X("N", 1), X("N", 1, 3), X(3)], "expand", grad=(0, 1, 2)),
    C("expand-static", lambda x: x.expand(4, 3), [X(1, 3)], "expand", sizes=()),
    C("permute", lambda x: (x.permute(2, 0, 1), x.permute(-1, 0, -2)), [X("N", 2, 3)], "permute"),
    C("unsqueeze", lambda x: (x.unsqueeze(1), x.unsqueeze(-1), x.unsqueeze(0)), [NX], "unsqueeze"),
    C("squeeze.dims", lambda x, y: (x.squeeze(1), x.squeeze(-2), y.squeeze((1, 3)), aten.squeeze.dims(x, [2])),
      [X("N", 1, 3), X("N", 1, 3, 1)], "squeeze.dims", grad=(0, 1)),
    C("select.int", lambda x, y: (x[:, 1], x[-1], x.select(0, 0), x.select(1, -1), y[:, 0, 2]),
      [NX, X("N", 2, 3)], "select.int", grad=(0, 1)),
    C("slice.Tensor", lambda x: (x[:, 1:5:2], x[:, -4:-1], x[:, -5::3], x[:, 1:100]), [X("N", 6)], "slice.Tensor"),
    C("slice.Tensor-dynamic", lambda x: (x[1:], x[1:-1], x[-3:], x[-3::2], x[::2].sum(0)),
      [X("M", 3)], "slice.Tensor", sizes=SIZES_M),
    C("slice.Tensor-dynamic-step", lambda x: x[::2], [X("M", 3)], "slice.Tensor", sizes=SIZES_M),
    C("cat", lambda x, y, z: (torch.cat([x, z]), torch.cat([x[:, :2], x], dim=1), torch.cat([z, x, y], dim=-2)),
      [NX, X("E", 3), X(2, 3)], "cat", grad=(0, 1, 2)),
    C("cat-int", lambda i, j: torch.cat([i, j]), [X("N", 3, kind="intd"), X(1, 3, kind="intd")], "cat", grad=()),
]

_IE = I("E", lo="-N", hi="N")  # wraps: index.Tensor and index_put allow negative indices
_IE0 = I("E", lo=0, hi="N")

INDEXING = [
    C("index.Tensor", lambda x, i, j: (x[i], x[i, j], x[:, j], x[i.view(-1, 1)]), [NX, _IE, I("E", lo=-3, hi=3)], "index.Tensor"),
    C("index.Tensor-split", lambda x, i, j, k: (x[i, :, j], x[k, j]),
      [X("N", 4, 3), _IE, I("E", lo=0, hi=3), I("E", 1, lo=0, hi="N")], "index.Tensor"),
    C("index_put-accumulate", lambda x, i, j, v, w: (x.index_put((i,), v, accumulate=True), x.index_put((i, j), w, accumulate=True)),
      [NX, _IE, I("E", lo=-3, hi=3), X("E", 3), X("E")], "index_put", grad=(0, 3, 4)),
    C("index_put", lambda x, i, v, w: (x.index_put((i,), v), x.index_put((i,), w)), [NX, Arg(("N",), "perm"), NX, X(3)],
      "index_put", grad=(0, 2, 3)),
    C("index_select", lambda x, i, j: (torch.index_select(x, 0, i), torch.index_select(x, -1, j)),
      [X("N", 4), _IE0, I("E", lo=0, hi=4)], "index_select"),
    C("gather", lambda x, i, j, k: (torch.gather(x, 1, i), torch.gather(x, 0, j), torch.gather(x, 0, k)),
      [X("N", 4), I("N", 2, lo=0, hi=4), I("E", 4, lo=0, hi="N"), I("E", 2, lo=0, hi="N")], "gather"),
    C("scatter_add", lambda x, i, s, j: (torch.scatter_add(x, 0, i, s), torch.scatter_add(x, 1, j, x[:, :2])),
      [X("N", 4), I("E", 4, lo=0, hi="N"), X("E", 4), I("N", 2, lo=0, hi=4)], "scatter_add", grad=(0, 2)),
    # torch cannot differentiate by a src larger than the index: only by self
    C("scatter_add-larger-src", lambda x, k, s: torch.scatter_add(x, 0, k, s), [X("N", 4), I("E", 2, lo=0, hi="N"), X("E", 4)],
      "scatter_add", grad=(0,)),
    C("index_add", lambda x, i, s, j: (torch.index_add(x, 0, i, s, alpha=2.0), torch.index_add(x, 1, j, x[:, :3])),
      [X("N", 4), _IE0, X("E", 4), I(3, lo=0, hi=4)], "index_add", grad=(0, 2), keep=(aten.index_add,)),
    C("index_add-decomposed", lambda x, i, s: torch.index_add(x, 0, i, s, alpha=-1.5), [NX, _IE0, X("E", 3)], "index_put", grad=(0, 2)),
    C("slice_scatter", lambda x, s: (torch.slice_scatter(x, s, 1, 1, 3), torch.slice_scatter(x, s, 1, 1, 6, 3), torch.slice_scatter(x, s, 1, -3, -1)),
      [X("N", 6), X("N", 2)], "slice_scatter", grad=(0, 1)),
    # a concatenation by slice assignment (e3nn's): zeros, blocks of columns; covering every
    # column (the zeros are never stored) and leaving a gap (they are)
    C("slice-assign-concat", lambda a, b: _assigned(a, b, 0, 2), [X("N", 2), X("N", 3)], "slice_scatter", grad=(0, 1)),
    # their gradients: zeros around each block (filled only there), a concatenation's blocks
    C("slice-and-cat-backward", lambda x: (torch.sin(x[:, 1:3]), torch.cat([x[:, :1] * 2, x[:, 1:] ** 3], 1)),
      [X("N", 5)], ["slice.Tensor", "cat"]),
    C("slice-assign-gap", lambda a, b: _assigned(a, b, 0, 3), [X("N", 2), X("N", 3)], "slice_scatter", grad=(0, 1)),
    C("slice_scatter-dynamic", lambda x: torch.slice_scatter(x, torch.sin(x[::2]), 0, step=2), [X("M", 3)], "slice_scatter", sizes=SIZES_M),
    C("select_scatter", lambda x, s, t: (torch.select_scatter(x, s, 1, 0), torch.select_scatter(x, t, 0, -1), torch.select_scatter(x, t, 0, 0)),
      [NX, X("N"), X(3)], "select_scatter", grad=(0, 1, 2), keep=(aten.select_scatter,)),
    C("select_scatter-decomposed", lambda x, s: torch.select_scatter(x, s, 1, 2), [NX, X("N")], ["where.self", "arange.start_step"], grad=(0, 1)),
    C("embedding", lambda w, i, v, j: (F.embedding(i, w), F.embedding(j, v)), [X("N", 4), _IE0, X(7, 4), I("N", 2, lo=0, hi=7)],
      "embedding", grad=(0, 2)),
]

FACTORIES = [
    C("full", lambda x: (torch.full((x.shape[0], 2), 2.5, dtype=x.dtype), torch.full((x.shape[0],), 7), torch.zeros(3, x.shape[0], dtype=x.dtype)),
      [NX], "full", grad=()),
    C("empty", lambda x: (torch.empty_like(x).copy_(torch.sin(x)), torch.empty((x.shape[0], 3), dtype=x.dtype).copy_(x * 2)),
      [NX], ["empty_permuted", "empty.memory_format", "copy"]),
    C("full_like", lambda x: (torch.full_like(x, 3.0), torch.zeros_like(x, dtype=torch.int64), torch.ones_like(x).unsqueeze(0)),
      [NX], "full_like", grad=()),
    C("full_like-grad", lambda x: torch.ones_like(x) + x, [NX], "full_like"),
    C("scalar_tensor", lambda x: x * torch.scalar_tensor(2.5, dtype=x.dtype), [NX], "scalar_tensor"),
    C("arange", lambda x: (torch.arange(x.shape[0], dtype=x.dtype), torch.arange(1, x.shape[0] + 4, 3).sum(), torch.arange(x.shape[0] + 2)),
      [NX], "arange.start_step", grad=()),
    C("arange-step", lambda x: torch.arange(1, x.shape[0] + 4, 3), [NX], "arange.start_step", grad=()),
    C("arange-mul", lambda x: torch.arange(x.shape[0], dtype=x.dtype).unsqueeze(1) * x, [NX], "arange.start_step"),
    C("copy", lambda x, y: (torch.zeros_like(x).copy_(x * 2), torch.zeros_like(x).copy_(y)), [NX, X(3)], "copy", grad=(0, 1)),
    C("copy-convert", lambda x, i: torch.zeros_like(x).copy_(i), [NX, X("N", 3, kind="intd")], "copy", grad=()),
    C("copy_", lambda a, b: (a.copy_(b * 2), a + 1)[1], [NX, NX], "copy_", grad=(1,)),
]

_ACT = X("N", 4)

MORE_ELEMENTWISE = [
    C("trig", lambda x: (torch.acos(x), torch.asin(x), torch.atan(x), torch.atanh(x), torch.tan(x)),
      [X("N", 3, kind="unit")], ["acos", "asin", "atan", "atanh", "tan"]),
    C("hyperbolic", lambda x, p: (torch.sinh(x), torch.cosh(x), torch.asinh(x), torch.acosh(p + 1)),
      [NX, PX], ["sinh", "cosh", "asinh", "acosh"], grad=(0, 1)),
    C("log2-log10", lambda p: (torch.log2(p), torch.log10(p)), [PX], ["log2", "log10"]),
    C("rounding", lambda x: (torch.floor(x * 3), torch.ceil(x * 3), torch.round(x * 3), torch.trunc(x * 3),
                             torch.round(torch.tensor([0.5, 1.5, -2.5], dtype=x.dtype)) * x[:, :3]),
      [NX], ["floor", "ceil", "round", "trunc"]),
    C("rounding-int", lambda i: (torch.floor(i), torch.ceil(i), torch.round(i), torch.trunc(i)), [X("N", 3, kind="intd")],
      ["floor", "ceil", "round", "trunc"], grad=()),
    C("fmod-remainder", lambda x, y: (torch.fmod(x, y), torch.remainder(x, y), torch.fmod(x, 0.7), torch.remainder(x, -0.7)),
      [X("N", 3), X(3, kind="positive")], ["fmod.Tensor", "remainder.Tensor", "fmod.Scalar", "remainder.Scalar"], grad=(0,)),
    C("fmod-remainder-int", lambda i, j: (torch.fmod(i, j), torch.remainder(i, j), torch.remainder(i, 3), torch.fmod(i, -3)),
      [X("N", 3, kind="intd"), I(3, lo=1, hi=5)], ["fmod.Tensor", "remainder.Tensor", "remainder.Scalar", "fmod.Scalar"], grad=()),
    C("div-mode", lambda x, y: (torch.div(x, y, rounding_mode="floor"), torch.div(x, y, rounding_mode="trunc"),
                                aten.div.Scalar_mode(x, 0.3, rounding_mode="floor"), aten.div.Scalar_mode(x, -0.3, rounding_mode="trunc")),
      [X("N", 3), X(3)], ["div.Tensor_mode", "div.Scalar_mode"], grad=()),
    C("div-mode-int", lambda i, j: (torch.div(i, j, rounding_mode="floor"), torch.div(i, j, rounding_mode="trunc"), i // 3),
      [X("N", 3, kind="intd"), I(3, lo=1, hi=5)], ["div.Tensor_mode"], grad=()),
    C("bitwise-scalar", lambda i, j: (i & 5, i | 2, i ^ 3, i ^ j, torch.logical_xor(i, j)), [X("N", 3, kind="intd"), X(3, kind="intd")],
      ["bitwise_and.Scalar", "bitwise_or.Scalar", "bitwise_xor.Scalar", "bitwise_xor.Tensor"], grad=(), decomposed=("logical_xor",)),
    C("isinf", lambda x: (torch.isinf(x / (x - x.round())), torch.isinf(x)), [X("N", 3, kind="intf")], [], grad=(), decomposed=("isinf",)),
    C("clamp.Tensor", lambda x, lo, hi: torch.clamp(x, lo, hi), [NX, X(3), X("N", 3)], [], grad=(0, 1, 2), decomposed=("clamp.Tensor",)),
    C("activations", lambda x: (F.gelu(x), F.gelu(x, approximate="tanh"), F.elu(x), F.hardtanh(x), F.leaky_relu(x, 0.1)),
      [_ACT], [], decomposed=("gelu", "elu", "hardtanh", "leaky_relu")),
    C("softmax", lambda x: (torch.softmax(x, -1), torch.log_softmax(x, 0)), [_ACT], [], decomposed=("_softmax", "_log_softmax")),
]

_CELL = Arg((3, 3), "cell")

LINALG = [  # small static matrices: LU with partial pivoting unrolled (frontend.decompositions)
    C("det-inv-solve", lambda x, c: (torch.det(c) * x, x @ torch.linalg.inv(c), torch.linalg.solve(c, x.T),
                                     torch.linalg.solve(c, x, left=False), torch.linalg.solve(c, x[0])),
      [NX, _CELL], [], grad=(0, 1), decomposed=("_linalg_det", "linalg_inv_ex", "_linalg_solve_ex", "linalg_lu_solve")),
    C("lu_factor-solve", lambda x, c: torch.linalg.lu_solve(*torch.linalg.lu_factor(c), x.T, adjoint=True),
      [NX, _CELL], [], grad=(0, 1), decomposed=("linalg_lu_factor_ex", "linalg_lu_solve")),
    C("cross", lambda x, c: (torch.linalg.cross(x, c[0].expand_as(x)), torch.linalg.cross(c, c.flip(0))), [NX, _CELL], [],
      grad=(0, 1)),
    C("matrix_exp", lambda x, c: (x @ torch.matrix_exp(c - c.T), torch.linalg.matrix_exp(c * 0.25) * x.sum()), [NX, _CELL], [],
      grad=(0, 1), decomposed=("linalg_matrix_exp",), f32_from_f64=True),
]

NORMS = [
    C("layer_norm", lambda x, w, b: (F.layer_norm(x, (4,)), F.layer_norm(x, (4,), w, b)), [_ACT, X(4), X(4)], ["var_mean.correction"],
      grad=(0, 1, 2), decomposed=("native_layer_norm", "native_layer_norm_backward")),
    C("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [X("N", 4, 3), X(4), X(4)], ["var_mean.correction"],
      grad=(0, 1, 2), decomposed=("native_group_norm", "native_group_norm_backward")),
    C("batch_norm", lambda x, m, v, w, b: (F.batch_norm(x, m, v, w, b), F.batch_norm(x, None, None, w, b, training=True),
                                           aten._native_batch_norm_legit_no_training(x, w, b, m, v, 0.1, 1e-5)[0],
                                           aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)[0],
                                           aten._native_batch_norm_legit(x, w, b, m.clone(), v.clone(), True, 0.1, 1e-5)[0]),
      [_ACT, X(4), X(4, kind="positive"), X(4), X(4)], [], grad=(0, 3, 4),
      decomposed=("_native_batch_norm_legit_no_training", "_native_batch_norm_legit.no_stats", "_native_batch_norm_legit"),
      sizes=(2, 7, 33)),
    C("var", lambda x: (x.var(0), x.var(1, correction=0, keepdim=True), torch.var(x), aten.var.dim(x, [0], False)), [_ACT],
      ["var.correction"], decomposed=("var.dim",), sizes=(2, 7, 33)),
    C("cdist", lambda x, y: tuple(torch.cdist(x, y, p, compute_mode="donot_use_mm_for_euclid_dist") for p in (1.0, 2.0, 3.0)),
      [NX, X(4, 3)], [], grad=(0, 1), decomposed=("_cdist_forward", "_cdist_backward")),
    C("pdist", lambda x: tuple(torch.pdist(x, p) for p in (1.0, 2.0, 3.0)), [X("M", 4)], [], grad=(0,),
      decomposed=("_pdist_forward", "_pdist_backward"), sizes=SIZES_M),  # M >= 4: one pair or more
    C("var_mean", lambda x: torch.var_mean(x, 1, correction=2), [_ACT], ["var_mean.correction"]),
]

MORE_REDUCTIONS = [
    # forward only: prod's backward needs cumprod (not core, not lowered yet)
    C("prod", lambda x: (x.prod(), x.prod(1), x.prod(0, keepdim=True)), [X("N", 3, kind="positive")], ["prod", "prod.dim_int"],
      sizes=(1, 2, 7, 20), grad=()),
    C("prod-int", lambda i: (i.prod(1), i.prod()), [X("N", 3, kind="intd")], ["prod.dim_int", "prod"], grad=(), sizes=(1, 2, 5)),
    C("any", lambda b, x: (b.any(), b.any(0), aten.any.dims(b, [0, 1]), (x > 1).any(-1)), [X("N", 3, kind="bool"), NX], [],
      grad=(), decomposed=("any", "any.dim", "any.dims")),
    C("argmax-argmin", lambda x, i: (x.argmax(1), x.argmin(0), x.argmax(), x.argmin(1, keepdim=True), i.argmax(0), i.argmin()),
      [X("N", 4), X("N", 3, kind="intd")], ["argmax", "argmin"], grad=()),
    C("max.dim-min.dim", lambda x: (x.max(1)[0], x.max(1)[1], x.min(0, keepdim=True)[0], x.min(0)[1], x.max(-1).values.sum()),
      [X("N", 4)], ["max.dim", "min.dim"]),
    # on i1 true is -1 signed: max/min of bools must compare unsigned (any/all, or/and)
    C("bool-extremes", lambda b, c: (b.amin(1), b.amax(0), b.amin(), torch.maximum(b, c), torch.minimum(b, c)),
      [X("N", 3, kind="bool"), X("N", 3, kind="bool")], ["amin", "amax", "maximum", "minimum"], grad=()),
    C("cumsum", lambda x, i: (x.cumsum(0), x.cumsum(-1), i.cumsum(0)), [X("N", 3), X("N", 2, kind="intd")], ["cumsum"], grad=(0,)),
    C("sort", lambda x, i: (*torch.sort(x, 1), *torch.sort(x, 0, descending=True), *torch.sort(i, dim=0, stable=True)),
      [X("N", 5), X("N", 2, kind="intd")], ["sort", "sort.stable"], grad=(0,)),
    C("topk", lambda x: (*torch.topk(x, 2, 1), *torch.topk(x, 3, -1, largest=False)), [X("N", 5)], ["topk"]),
    # sequences of N sorted values with ties (intf), searched for E values, -3.5..3.5 included
    C("searchsorted", lambda s, v, u: (torch.searchsorted(s[0], v), torch.searchsorted(s[0], v, right=True, out_int32=True),
                                       torch.searchsorted(s, torch.stack([v, -v]), side="right"), torch.searchsorted(s[1], 0.5),
                                       torch.searchsorted(s[1], 2, right=True), torch.searchsorted(s[0], v.to(torch.int64)),
                                       torch.searchsorted(u, v, sorter=torch.argsort(u, stable=True), right=True)),
      [X(2, "N", kind="sorted"), X("E", kind="intf"), X("N", kind="intf")], ["searchsorted.Tensor", "searchsorted.Scalar"], grad=()),
    # bucket indices into a float table: the gradient flows through the gather, by x and by the table
    C("searchsorted-grad", lambda x, s: x * s[torch.searchsorted(s, x.detach()).clamp(max=s.shape[0] - 1)] ** 2,
      [X("E", kind="intf"), X("N", kind="sorted")], ["searchsorted.Tensor"], grad=(0, 1)),
]

MORE_VIEWS = [
    C("diagonal", lambda y: (y.diagonal(0, 1, 2), y.diagonal(1, -2, -1), y.diagonal(-1, 2, 1), y[0].diagonal()),
      [X("N", 3, 3)], ["diagonal", "diagonal_scatter"], keep=(aten.diagonal,), sizes=(2, 7, 33)),
    C("flip", lambda x: (x.flip(0), x.flip((0, 1))), [NX], ["flip"], keep=(aten.flip,)),
    C("split_with_sizes", lambda x: (*torch.split(x, [1, 3], 1), *torch.split(x, 2, 1)), [X("N", 4)], ["split_with_sizes"],
      keep=(aten.split_with_sizes,)),
    # overlapping slices, each used on its own: autograd sums one zero-padded gradient per
    # slice (slice_scatter into zeros), which te canonicalization turns into scatter-adds
    C("slices-backward", lambda x: (x[:, :3].sin() * x[:, 3:5].cos().sum(1, keepdim=True), x[:, 5:].exp(),
                                    x[:, 1:4] ** 2, x[:, 2:].sum(1)), [X("N", 9)], ["slice.Tensor", "slice_scatter"]),
    C("constant_pad_nd", lambda x: (F.pad(x, (1, 2)), F.pad(x, (2, -1, 1, 0), value=0.5), F.pad(x, (-1, -1))), [NX], ["constant_pad_nd"],
      keep=(aten.constant_pad_nd,)),
    C("as_strided", lambda x: (x.as_strided((2, 2), (1, 2)), x.as_strided((x.shape[0], 2), (3, 1), 1)), [NX], ["as_strided"],
      grad=(), sizes=(2, 7, 33)),
    C("squeeze.dim-repeat", lambda x: (x[:, :1].squeeze(1), x.repeat(2, 1), x.repeat(1, 1, 2)), [NX], [],
      decomposed=("squeeze.dim", "repeat")),
    C("strides", lambda x: x.view(-1) * x.stride(0) + x.storage_offset(), [NX], [], grad=()),
    C("reflection_pad", lambda x: (F.pad(x.unsqueeze(0), (2, 1), mode="reflect"), F.pad(x.view(1, 1, -1, 3), (1, 1, 1, 1), mode="reflect")),
      [NX], [], decomposed=("reflection_pad1d", "reflection_pad2d"), sizes=(2, 7, 33)),
    C("upsample", lambda x: (F.interpolate(x.view(1, 1, -1, 3), scale_factor=2),
                             F.interpolate(x.view(1, 1, -1, 3), scale_factor=2, mode="bilinear")),
      [NX], [], decomposed=("upsample_nearest2d.vec", "upsample_bilinear2d.vec")),
    C("reflection_pad3d", lambda x: F.pad(x.view(1, 1, -1, 3, 1), (0, 0, 1, 1, 1, 1), mode="reflect"), [NX], [],
      decomposed=("reflection_pad3d",), sizes=(2, 7, 33)),
]

MORE_INDEXING = [
    C("scatter", lambda x, i, s: (torch.scatter(x, 1, i, s), torch.scatter(x, 1, i, 2.5)),
      [X("N", 4), Arg(("N", 1), "int", 0, 4), X("N", 1)], ["scatter.src", "scatter.value"], grad=(0, 2)),
    C("scatter_reduce", lambda x, i, s: tuple(torch.scatter_reduce(x, 0, i, s, r, include_self=inc)
                                              for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)),
      [X("N", 3), I("E", 3, lo=0, hi="N"), X("E", 3)], ["scatter_reduce.two"], grad=()),
    C("scatter_reduce-grad", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "sum") + torch.scatter_reduce(x, 0, i, s, "mean", include_self=False),
      [X("N", 3), I("E", 3, lo=0, hi="N"), X("E", 3)], ["scatter_reduce.two"], grad=(0, 2)),
    C("fill", lambda x: aten.fill.Scalar(x, 1.5) + x, [NX], [], decomposed=("fill.Scalar",)),
    # data-dependent sizes: the results are reduced to known sizes (outputs cannot depend on data)
    C("nonzero", lambda x, i: (torch.nonzero(x > 0).to(x.dtype).sum(0), x[x > 0.5].sum(), (x[x[:, 1] < 0] ** 2).sum(0),
                               torch.nonzero(i).sum(0)),
      [NX, X("N", 2, kind="intd")], ["nonzero"]),
    C("_local_scalar_dense", lambda x, s, i: (x * s[0].item() + s.sum().item(), x * (i[1] * 2).item(), x.amax().item() * x),
      [NX, X(2), X(3, kind="intd")], ["_local_scalar_dense"]),
    C("assertions", lambda x: (torch._assert_async((x > -100).all()), torch._assert_async((x < 100).all(), "x < 100"), x * 2)[-1],
      [NX], ["_assert_async.msg"]),
    C("repeat_interleave", lambda x, r: (_weighted_rows(x.repeat_interleave(r, 0)), torch.repeat_interleave(r).sum(),
                                         (x[torch.repeat_interleave(r.to(torch.int32))] ** 2).sum(0)),
      [NX, I("N", lo=0, hi=4)], ["repeat_interleave.Tensor"]),
    # repeats of a known total (atoms per graph of a batch): output_size keeps the size backed
    C("repeat_interleave-output_size", lambda x, r: torch.zeros(3, 3, dtype=x.dtype).index_add(
        0, torch.repeat_interleave(torch.arange(3), r, output_size=x.shape[0]), x.sin()),
      [NX, Arg((3,), "parts", 0, "N")], ["repeat_interleave.Tensor"]),
    C("masked_scatter", lambda x, s, m: (x.masked_scatter(x > 0, s * 2), x.masked_scatter(m, s)), [NX, X("N", 3), X(3, kind="bool")],
      ["masked_scatter", "masked_scatter_backward"], grad=(0, 1)),
    C("embedding_dense_backward", lambda w, i: F.embedding(i, w), [X("N", 4), I("E", lo=0, hi="N")], [],
      grad=(0,), decomposed=("embedding_dense_backward",)),
    C("empty_strided", lambda x: torch.empty_strided((x.shape[0], 3), (3, 1), dtype=x.dtype).copy_(x), [NX], ["empty_strided"]),
]

CASES = MORE_ELEMENTWISE + LINALG + NORMS + MORE_REDUCTIONS + MORE_VIEWS + MORE_INDEXING + UNARY + COPIES + BINARY + COMPARE + REDUCTIONS + MATMUL + VIEWS + INDEXING + FACTORIES

TEXT_ONLY = ("sym_size.int", "sym_numel", "sub_.Tensor", "copy_")
"""Ops that no captured graph holds: the importer turns sizes into index arithmetic and
functionalization removes in-place ops. `test_text_only_ops` compiles them from IR text."""
