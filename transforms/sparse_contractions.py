"""sparse-contractions: skip the structural zeros of contractions with constants.

Some buffers of a model are fixed, mostly-zero tensors of its architecture (MACE's
symmetric-contraction U matrices: ~1 % nonzero); the frontend lists their nonzeros on
the weight (`nonzeros` on te.weight). They reach the contractions over atoms or edges
directly, or through static ops on weights alone (MACE contracts U with its
per-element weights first: U W, 16 x 729, zero wherever U's row is). Eager, Inductor
and this compiler's dense lowering multiply every zero.

This pass evaluates every static te op that reads weights only, with numpy, on random
values: a constant's nonzeros and every parameter get random values, a constant's
zeros stay zero. An element that comes out exactly zero is then zero for every value
of the parameters: a polynomial (or analytic) function of them that vanishes at a
random point vanishes everywhere, with probability 1; two draws must agree.

A te.reduce "add" whose yielded value is a product with a load of such a tensor, at
indices from static dims only, is marked with the nonzero terms: `te.sparse_dims`
(the static output dims along which the zeros vary, then every reduction dim) and
`te.sparse` (the nonzero points, a tuple over those dims each, flattened);
lower-tensorexpr-to-loops unrolls those dims over the points alone. Applied when the
points are at most 1 in 8 of the dense terms (the dense sum vectorizes: 8 f64 lanes,
where the unrolled terms are scalar) and at most MAX_POINTS (the straight-line code
they become). MACE (8x0e+8x1o, l <= 2, N = 512, 40 neighbours, 1 thread): 15
contractions, 11.2 -> 6.0 ms of the symmetric contraction's nests, 95 -> 81 ms a call. The one difference from the dense sum: a skipped term is nothing,
where a zero coefficient times inf or NaN is NaN (LLVM's and XLA's fast-math x * 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from dialects import tensorexpr as te

MAX_POINTS = 8192  # terms unrolled per output row: the straight-line code's size
MAX_DENSITY = 1 / 8  # the dense sum vectorizes (8 f64 lanes): the terms left must be fewer than that
MAX_ELEMENTS = 1 << 22  # the largest static tensor or grid evaluated
SEEDS = (0, 1)
FLOATS = ("f16", "bf16", "f32", "f64")

_INT: dict[type[Operation], Callable[[Any, Any], Any]] = {
    arith.AddiOp: np.add, arith.SubiOp: np.subtract, arith.MuliOp: np.multiply,
    arith.DivUIOp: np.floor_divide, arith.RemUIOp: np.remainder, arith.FloorDivSIOp: np.floor_divide,
    arith.MaxSIOp: np.maximum, arith.MinSIOp: np.minimum,
}
_FLOAT: dict[type[Operation], Callable[..., Any]] = {
    arith.AddfOp: np.add, arith.SubfOp: np.subtract, arith.MulfOp: np.multiply, arith.DivfOp: np.divide,
    arith.NegfOp: np.negative, xmath.ExpOp: np.exp, xmath.SqrtOp: np.sqrt, xmath.TanhOp: np.tanh,
    xmath.AbsFOp: np.abs,
}
"""Float ops whose result is zero at a random point only where it is zero everywhere
(analytic, or zero exactly where their argument is): not max, min, select, comparisons
(relu(w) is zero for half the draws of w)."""
_REDUCE = {"add": np.sum, "mul": np.prod}


def _static_shape(v: SSAValue) -> list[int] | None:
    t = v.type
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        return None
    return list(t.get_shape())


class _Evaluator:
    """Static, weights-only tensors evaluated on random parameter values (None: not
    evaluable: a symbolic size, a runtime input, an op it does not know)."""

    def __init__(self, seed: int | None):
        """seed None: exact, constants only (a weight without `values` is not evaluable)."""
        self.rng = np.random.default_rng(seed) if seed is not None else None
        self.values: dict[SSAValue, np.ndarray | None] = {}

    def tensor(self, v: SSAValue) -> np.ndarray | None:
        if v not in self.values:
            self.values[v] = self._tensor(v)
        return self.values[v]

    def _tensor(self, v: SSAValue) -> np.ndarray | None:
        shape = _static_shape(v)
        if shape is None or math.prod(shape) > MAX_ELEMENTS or str(v.type.get_element_type()) not in FLOATS:
            return None
        owner = v.owner
        if isinstance(owner, te.WeightOp):
            return self._weight(owner, shape)
        if isinstance(owner, (te.ComputeOp, te.ReduceOp)):
            space = self._space(owner)
            analytic = not isinstance(owner, te.ReduceOp) or owner.kind.data in _REDUCE  # not max, min
            if space is not None and math.prod(space) <= MAX_ELEMENTS and analytic:
                return self._op(owner, space)
        return None

    def _weight(self, w: te.WeightOp, shape: list[int]) -> np.ndarray | None:
        """A structural constant's values (exact), or random values (a parameter's
        everywhere, a structural constant's at its nonzeros)."""
        positions, values = w.attributes.get(te.NONZEROS), w.attributes.get(te.NONZERO_VALUES)
        at = list(positions.get_values()) if isinstance(positions, DenseArrayBase) else None
        if self.rng is None:
            if at is None or not isinstance(values, DenseArrayBase):
                return None
            exact = np.zeros(math.prod(shape))
            exact[at] = list(values.get_values())
            return exact.reshape(shape)
        out = self.rng.uniform(0.5, 1.5, shape) * self.rng.choice([-1.0, 1.0], shape)
        if at is not None:
            mask = np.zeros(math.prod(shape))
            mask[at] = 1.0
            out *= mask.reshape(shape)
        return out

    @staticmethod
    def _space(op: te.ComputeOp | te.ReduceOp) -> list[int] | None:
        extents = [te.static_extent(e) for e in op.space()]
        return None if any(e is None for e in extents) else extents  # type: ignore[return-value]

    def _op(self, op: te.ComputeOp | te.ReduceOp, space: list[int]) -> np.ndarray | None:
        block = op.body.block
        env: dict[SSAValue, Any] = {a: _axis(k, space) for k, a in enumerate(block.args)}
        value = self.body(block, env)
        if value is None:
            return None
        value = np.broadcast_to(value, space).astype(float)
        if isinstance(op, te.ReduceOp):
            axes = tuple(range(op.rank(), len(space)))
            value = _REDUCE[op.kind.data](value, axis=axes) if axes else value
        return value

    def body(self, block: Any, env: dict[SSAValue, Any]) -> Any:
        """The yielded value over the index grid in `env`, or None."""
        for o in block.ops:
            if isinstance(o, te.YieldOp):
                return self.scalar(o.value, env)
            result = self.evaluate(o, env)
            if result is None:
                return None
            env[o.results[0]] = result
        return None

    def scalar(self, v: SSAValue, env: dict[SSAValue, Any]) -> Any:
        if v in env:
            return env[v]
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, (IntegerAttr, FloatAttr)):
            return owner.value.value.data
        return None

    def evaluate(self, o: Operation, env: dict[SSAValue, Any]) -> Any:
        if isinstance(o, arith.ConstantOp):
            return self.scalar(o.results[0], env)
        if isinstance(o, te.LoadOp):
            tensor = self.tensor(o.tensor)
            at = [self.scalar(v, env) for v in o.indices]
            if tensor is None or any(a is None for a in at):
                return None
            return tensor[tuple(np.asarray(a, dtype=np.int64) for a in at)]
        args = [self.scalar(v, env) for v in o.operands]
        if any(a is None for a in args):
            return None
        if isinstance(o, arith.IndexCastOp):
            return args[0]
        fn = _INT.get(type(o)) or _FLOAT.get(type(o))
        return fn(*args) if fn is not None else None


def _axis(k: int, space: list[int]) -> np.ndarray:
    """np.arange of dim k, shaped to broadcast over `space`."""
    shape = [1] * len(space)
    shape[k] = space[k]
    return np.arange(space[k]).reshape(shape)


def _slice(load: te.LoadOp, block: Any) -> set[SSAValue]:
    """The values of `block` the load's indices are computed from (block arguments
    included)."""
    out: set[SSAValue] = set()
    todo = list(load.indices)
    while todo:
        v = todo.pop()
        if v in out:
            continue
        if isinstance(v, BlockArgument) and v.owner is block:
            out.add(v)
        elif isinstance(v.owner, Operation) and v.owner.parent_block() is block:
            out.add(v)
            todo.extend(v.owner.operands)
    return out


def _factors(v: SSAValue, block: Any) -> list[SSAValue]:
    """The factors of a product (through negations) computed in `block`."""
    owner = v.owner
    if isinstance(owner, arith.MulfOp) and owner.parent_block() is block:
        return _factors(owner.lhs, block) + _factors(owner.rhs, block)
    if isinstance(owner, arith.NegfOp) and owner.parent_block() is block:
        return _factors(owner.operand, block)
    return [v]


@dataclass(frozen=True)
class Sparsity:
    dims: list[int]
    points: np.ndarray  # (count, len(dims)), row-major: grouped by their output dims
    dense: int  # the terms of the dense sum over `dims`


def sparsity(op: te.ReduceOp, evaluators: list[_Evaluator]) -> Sparsity | None:
    """The nonzero terms of `op` over its static dims, or None when it has no zero
    factor to skip."""
    if op.kind.data != "add" or any(te.static_extent(e) is None for e in op.reduce_extents):
        return None
    block = op.body.block
    space = [te.static_extent(e) for e in op.space()]
    static = [d for d, e in enumerate(space) if e is not None]
    grid = [space[d] for d in static]  # type: ignore[misc]
    if math.prod(grid) > MAX_ELEMENTS:  # type: ignore[arg-type]
        return None
    terminator = block.last_op
    assert isinstance(terminator, te.YieldOp)
    masks = []
    for factor in _factors(terminator.value, block):
        load = factor.owner
        if not isinstance(load, te.LoadOp) or load.parent_block() is not block:
            continue
        needed = _slice(load, block)
        if not {d for d, a in enumerate(block.args) if a in needed} <= set(static):
            continue
        per_draw = []
        for ev in evaluators:
            value = ev.tensor(load.tensor)
            env: dict[SSAValue, Any] = {block.args[d]: _axis(k, grid) for k, d in enumerate(static)}  # type: ignore[arg-type]
            for o in block.ops:  # the index arithmetic of the load, over the static grid
                if o is load or value is None:
                    break
                if o.results and o.results[0] in needed:
                    env[o.results[0]] = ev.evaluate(o, env)
            at = [ev.scalar(i, env) for i in load.indices]
            if value is None or any(a is None for a in at):
                break
            per_draw.append(np.broadcast_to(value[tuple(np.asarray(a, dtype=np.int64) for a in at)] != 0, grid))  # type: ignore[arg-type]
        if len(per_draw) == len(evaluators):
            masks.append(np.logical_or.reduce(per_draw))
    if not masks:
        return None
    mask = np.logical_and.reduce(masks)
    if mask.all():
        return None
    rank = op.rank()
    varying = [k for k, d in enumerate(static) if d < rank and not (mask == mask.take([0], axis=k)).all()]
    reduction = [k for k, d in enumerate(static) if d >= rank]
    keep = varying + reduction
    projected = mask[tuple(slice(None) if k in keep else 0 for k in range(len(static)))]
    points = np.argwhere(projected)
    dense = int(projected.size)
    return Sparsity([static[k] for k in keep], points, dense)


@dataclass(frozen=True)
class SparseContractionsPass(ModulePass):
    name = "sparse-contractions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or fn.is_declaration:
                continue
            evaluators = [_Evaluator(seed) for seed in SEEDS]
            for o in fn.body.block.ops:
                if not isinstance(o, te.ReduceOp):
                    continue
                found = sparsity(o, evaluators)
                if found is None or len(found.points) > MAX_DENSITY * found.dense or len(found.points) > MAX_POINTS:
                    continue
                o.attributes[te.SPARSE_DIMS] = DenseArrayBase.from_list(i64, found.dims)
                o.attributes[te.SPARSE] = DenseArrayBase.from_list(i64, [int(x) for x in found.points.reshape(-1)])
                for key in ("te.order", "te.vector", "te.tile"):
                    o.attributes.pop(key, None)


class ConstantValues:
    """The exact values of the static tensors computed from structural constants
    alone (the constants, their transposes and reshapes), for folding into code."""

    def __init__(self) -> None:
        self.evaluator = _Evaluator(None)

    def __call__(self, tensor: SSAValue) -> np.ndarray | None:
        return self.evaluator.tensor(tensor)


def folded_only(v: SSAValue, values: ConstantValues) -> bool:
    """Whether every read of `v` is a load, in a te.sparse reduction, at indices from
    its unrolled dims and constants, of a tensor of known values (or a read computing
    another such tensor): lowering folds them all, and `v` needs no buffer."""
    if not v.uses or values(v) is None:
        return False
    for use in v.uses:
        load = use.operation
        reduce = load.parent_op()
        if isinstance(reduce, (te.ComputeOp, te.ReduceOp)) and te.SPARSE not in reduce.attributes:
            if folded_only(reduce.result, values):  # read to compute constants that are folded in turn
                continue
            return False
        found = sparse_points(reduce) if isinstance(reduce, te.ReduceOp) else None
        if not isinstance(load, te.LoadOp) or use.index != 0 or found is None:
            return False
        unrolled = {reduce.body.block.args[d] for d in found[0]}
        if not all(a in unrolled for a in _slice(load, reduce.body.block) if isinstance(a, BlockArgument)):
            return False
    return True


def sparse_points(op: te.ReduceOp) -> tuple[list[int], list[tuple[int, ...]]] | None:
    """(te.sparse_dims, the points of te.sparse), or None."""
    dims, points = op.attributes.get(te.SPARSE_DIMS), op.attributes.get(te.SPARSE)
    if not isinstance(dims, DenseArrayBase) or not isinstance(points, DenseArrayBase):
        return None
    d = list(dims.get_values())
    flat = list(points.get_values())
    return d, [tuple(flat[k:k + len(d)]) for k in range(0, len(flat), len(d))]

