"""Canonicalization patterns of the te dialect (run by `canonicalize`).

The ATen graph of a backward is full of size-1 reductions (the gradient of a
broadcast over a dim of size 1) and of `select_scatter` / `slice_scatter` that
overwrite a whole zero tensor. Both are elementwise computations in disguise;
as te.compute they become fusible like any other.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType
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
