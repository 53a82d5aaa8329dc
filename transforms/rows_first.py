"""rows-first: lay out a temporary with its atom / edge dims first.

Every loop nest here runs its symbol-sized dim (N, E) outermost: that is the dim
the schedule splits across threads, and the inputs and outputs are rows of atoms
and edges. A temporary that aten built the other way round, static dims first
(MACE's per-element weights `W @ attrs.T`: 1944 x N; its symmetric contraction's
8 x N x 243), is then written and read across rows: each element of a row lives
N elements from the next, a cache line and often a page apart (MACE N = 512: such
nests ran at 0.5 GFLOP/s).

A te.compute or te.reduce whose result has a symbol-sized dim after a static one,
and whose every use is a te.load, gets its dims reordered, symbol-sized ones first
(each group in its order): the op's extents and body arguments are permuted, and
every load's indices with them. Values are unchanged; only where they live moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType
from xdsl.ir import Region
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dialects import tensorexpr as te


def _order(op: te.ComputeOp | te.ReduceOp) -> list[int] | None:
    """The new order of the result's dims (old dim of each new position), or None
    when the layout stays: no symbol-sized dim after a static one, or a use that is
    not a te.load of the whole tensor."""
    symbolic = [te.static_extent(e) is None for e in op.extents]
    order = [d for d, s in enumerate(symbolic) if s] + [d for d, s in enumerate(symbolic) if not s]
    if order == list(range(len(symbolic))):
        return None
    if any(not isinstance(use.operation, te.LoadOp) or use.index != 0 for use in op.result.uses):
        return None
    return order


def _reorder(op: te.ComputeOp | te.ReduceOp, order: list[int]) -> None:
    rank = len(order)
    block = op.body.block
    old = list(block.args[:rank])
    for k in range(rank):  # the new output arguments, before the reduction ones
        block.insert_arg(IndexType(), rank + k)
    for k, d in enumerate(order):
        old[d].replace_all_uses_with(block.args[rank + k])
    for a in old:
        block.erase_arg(a)
    t = op.result.type
    assert isinstance(t, TensorType)
    shape = t.get_shape()
    result = TensorType(t.get_element_type(), [shape[d] for d in order])
    extents = [op.extents[d] for d in order]
    body = Region()
    op.body.move_blocks(body)
    if isinstance(op, te.ReduceOp):
        new: te.ComputeOp | te.ReduceOp = te.ReduceOp(op.kind.data, extents, list(op.reduce_extents), result, body)
    else:
        new = te.ComputeOp(extents, result, body)
    new.attributes.update(op.attributes)
    loads = [use.operation for use in op.result.uses]
    Rewriter.replace_op(op, new)
    for load in loads:
        assert isinstance(load, te.LoadOp)
        indices = list(load.indices)
        Rewriter.replace_op(load, te.LoadOp(new.result, [indices[d] for d in order]))


@dataclass(frozen=True)
class RowsFirstPass(ModulePass):
    name = "rows-first"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                for o in list(fn.body.block.ops):
                    if isinstance(o, (te.ComputeOp, te.ReduceOp)) and (order := _order(o)) is not None:
                        _reorder(o, order)
