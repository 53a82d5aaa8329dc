"""Canonicalization patterns of the te dialect (run by `canonicalize`).

The ATen graph of a backward is full of size-1 reductions (the gradient of a
broadcast over a dim of size 1) and of `select_scatter` / `slice_scatter` that
overwrite a whole zero tensor. Both are elementwise computations in disguise;
as te.compute they become fusible like any other. It also sums zero-padded blocks
(the gradient of each piece of a split), which are block updates in disguise: added
into one buffer, they never exist at full size.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from dialects import tensorexpr as te


class DropUnitReductionExtents(RewritePattern):
    """A reduction over extent 1 reads its one element at index 0; with no
    reduction extent left, `te.reduce` is a `te.compute`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: te.ReduceOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        rank = op.rank()
        unit = [k for k, e in enumerate(op.reduce_extents) if te.static_extent(e) == 1]
        if not unit and op.reduce_extents:
            return
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        rewriter.insert(zero, InsertPoint.at_start(block))
        for k in reversed(unit):
            arg = block.args[rank + k]
            arg.replace_all_uses_with(zero.result)
            block.erase_arg(arg)
        kept = [e for k, e in enumerate(op.reduce_extents) if k not in unit]
        region = op.detach_region(op.body)
        assert isinstance(op.result.type, TensorType)
        if kept:
            new: te.ReduceOp | te.ComputeOp = te.ReduceOp(op.kind.data, list(op.extents), kept, op.result.type, region)
        else:
            new = te.ComputeOp(list(op.extents), op.result.type, region)
        te.add_origin(new, te.origin(op))
        rewriter.replace(op, new)


def defined_extents(v: SSAValue) -> list[SSAValue] | None:
    """The extents a te op defined `v` with (through scatters to their base)."""
    owner = v.owner
    if isinstance(owner, te.ScatterOp):
        return defined_extents(owner.base)
    if isinstance(owner, (te.ComputeOp, te.ReduceOp)):
        return list(owner.extents)
    return None


class AssignEverywhereIsCompute(RewritePattern):
    """`te.scatter "assign"` that writes element p of its space at index p, over
    exactly the extents of its base, overwrites every element: the base is dead
    and the result is a `te.compute` of the written value."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: te.ScatterOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        update = block.last_op
        assert isinstance(update, te.UpdateOp)
        if op.kind.data != "assign" or list(update.indices) != list(block.args):
            return
        base = defined_extents(op.base)
        if base is None or len(base) != len(op.extents):
            return
        if any(a is not b and (te.static_extent(a) is None or te.static_extent(a) != te.static_extent(b))
               for a, b in zip(op.extents, base)):
            return
        rewriter.replace(update, te.YieldOp(update.value))
        region = op.detach_region(op.body)
        assert isinstance(op.result.type, TensorType)
        new = te.ComputeOp(list(op.extents), op.result.type, region)
        te.add_origin(new, te.origin(op))
        rewriter.replace(op, new)


class CopyIsItsSource(RewritePattern):
    """A te.compute that yields its source's element at the same indices, over the
    extents the source was defined with, is the source (an assignment that
    overwrote every element of a zero tensor leaves such copies). Equal types are
    not enough: a prefix `x[:n]` of x is a copy of the same type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: te.ComputeOp, rewriter: PatternRewriter) -> None:
        load, term = (list(op.body.block.ops) + [None, None])[:2]
        if (isinstance(load, te.LoadOp) and isinstance(term, te.YieldOp) and term.value is load.result
                and list(load.indices) == list(op.body.block.args) and load.tensor.type == op.result.type
                and _same_extents(defined_extents(load.tensor), list(op.extents))):
            if isinstance(load.tensor.owner, (te.ComputeOp, te.ReduceOp, te.ScatterOp)):
                te.add_origin(load.tensor.owner, te.origin(op))  # its aten ops are computed there
            rewriter.replace(op, [], [load.tensor])


class AddOfPaddedBlockIsScatterAdd(RewritePattern):
    """`x + p`, where p is zeros with one block assigned (`slice_backward`: zeros
    around the gradient of a slice), adds the block into x: a te.scatter "add" over
    the block only, in place on x's buffer when nothing else reads x. Autograd sums
    one padded gradient per piece of a split tensor, and as one fused loop the sum
    kept every padded term alive at full size (NequIP, 4 layers: 27 tensors of
    E x 864 at once, 3.3 GB at E = 18k); as scatters they accumulate in one buffer,
    as eager's autograd does. Exact: x + 0.0 is x outside the block (a -0.0 stays
    -0.0, equal to the 0.0 the sum gave)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: te.ComputeOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        ops = list(block.ops)
        if len(ops) != 4:
            return
        first, second, add, term = ops
        if not (isinstance(first, te.LoadOp) and isinstance(second, te.LoadOp) and isinstance(add, arith.AddfOp)
                and isinstance(term, te.YieldOp) and term.value is add.result
                and {add.lhs, add.rhs} == {first.result, second.result} and first.tensor is not second.tensor):
            return
        if any(list(load.indices) != list(block.args) or load.tensor.type != op.result.type
               for load in (first, second)):
            return
        for other, padded in ((first, second), (second, first)):
            scatter = padded.tensor.owner
            if (isinstance(scatter, te.ScatterOp) and scatter.kind.data == "assign"
                    and len(list(scatter.result.uses)) == 1 and _is_zeros(scatter.base)
                    and (whole := defined_extents(scatter.base)) is not None
                    and te.slice_assignment(scatter, whole) is not None):
                new = te.ScatterOp("add", other.tensor, list(scatter.extents), scatter.detach_region(scatter.body))
                te.add_origin(new, te.origin(scatter))
                te.add_origin(new, te.origin(op))
                rewriter.replace(op, new)
                rewriter.erase(scatter)
                return


def _is_zeros(v: SSAValue) -> bool:
    """Whether v is a te.compute yielding +0.0 everywhere."""
    c = te.constant_fill(v.owner)
    return c is not None and isinstance(c.value, FloatAttr) and math.copysign(1.0, c.value.value.data) == 1.0 \
        and c.value.value.data == 0.0


def _same_extents(a: list[SSAValue] | None, b: list[SSAValue]) -> bool:
    return a is not None and len(a) == len(b) and all(
        x is y or (n := te.static_extent(x)) is not None and n == te.static_extent(y) for x, y in zip(a, b))
