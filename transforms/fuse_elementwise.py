"""fuse-elementwise: inline te.compute producers into the bodies that load them.

A producer whose every use is a `te.load` in another te body is replaced, at each
load, by its own body evaluated at the load's indices, so its tensor is never
written. This one rewrite fuses elementwise chains, reductions with their
producers, and the gather -> per-edge math -> scatter chains of message passing
(the per-edge E x F intermediates vanish into the scatter's loop over edges).

Cost model: inlining a producer into k load sites evaluates its body k times per
element instead of once, and a load whose indices ignore some loop index of its
consumer re-evaluates the same element on every iteration of the loops it ignores
(a matmul operand; loops of extent 1 do not count). Materializing costs a store
and k loads of the whole tensor, which for per-edge tensors means main memory.
So: a body of one read (constant, view, broadcast) always inlines; a re-read site
takes no other body; otherwise up to `max_consumers` sites take a body
whose extra evaluations cost at most `max_recompute` units (arithmetic and loads 1,
transcendental math and division 8).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te
from transforms.cost_model import body_cost

def reuse_factor(load: te.LoadOp) -> int | None:
    """How often the consumer reads each element this load reads: the product of the
    extents of the consumer's indices that the load's indices ignore (a matmul operand
    is read once per output column). None when an ignored extent is a size symbol."""
    block = load.parent_block()
    assert block is not None
    seen: set[SSAValue] = set()
    stack = list(load.indices)
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v.owner, Operation) and v.owner.parent_block() is block:
            stack.extend(v.owner.operands)
    consumer = block.parent_op()
    assert isinstance(consumer, (te.ComputeOp, te.ReduceOp, te.ScatterOp))
    factor = 1
    for arg, extent in zip(block.args, consumer.space()):
        if arg not in seen:
            n = te.static_extent(extent)
            if n is None:
                return None
            factor *= n
    return factor


def inline_at(producer: te.ComputeOp, load: te.LoadOp) -> None:
    """Replace `load` by the producer's body evaluated at the load's indices (the consumer
    now computes the producer's aten ops too: their origins merge)."""
    consumer = load.parent_op()
    while consumer is not None and not isinstance(consumer.parent_op(), func.FuncOp):
        consumer = consumer.parent_op()
    if consumer is not None:
        te.add_origin(consumer, te.origin(producer))
    mapping: dict[SSAValue, SSAValue] = dict(zip(producer.body.block.args, load.indices))
    for inner in producer.body.block.ops:
        if isinstance(inner, te.YieldOp):
            load.result.replace_all_uses_with(mapping.get(inner.value, inner.value))
            Rewriter.erase_op(load)
            return
        clone = inner.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, InsertPoint.before(load))
        mapping.update(zip(inner.results, clone.results))


@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    name = "fuse-elementwise"

    max_recompute: int = 32
    """Units of extra work allowed to save a buffer read by several consumers: a
    buffer costs a store and a load per consumer, slow once it leaves the cache,
    while vectorized arithmetic is cheap (Inductor inlines similar amounts)."""

    max_consumers: int = 4
    """Never evaluate a body at more load sites than this."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                self.fuse(fn.body.block)

    def fuse(self, block: Block) -> None:
        # consumers first: when a producer is considered, its uses are final
        for producer in reversed(list(block.ops)):
            if isinstance(producer, te.ComputeOp) and self.should_inline(producer):
                for use in list(producer.result.uses):
                    inline_at(producer, use.operation)  # type: ignore[arg-type]
                Rewriter.erase_op(producer)

    def should_inline(self, producer: te.ComputeOp) -> bool:
        uses = list(producer.result.uses)
        if not uses or not all(isinstance(u.operation, te.LoadOp) and u.index == 0 for u in uses):
            return False  # returned, a scatter base, or unused
        if any(isinstance(u.operation.parent_op(), func.FuncOp) for u in uses):
            return False  # read as a scalar by the function itself (.item()): stays a buffer
        cost = body_cost(producer)
        if cost <= 1:  # a constant, a view or a broadcast: evaluating it is one read
            return True
        if any(reuse_factor(u.operation) != 1 for u in uses):  # type: ignore[arg-type]
            return False  # a re-read site would run the body once per read, not per element
        return len(uses) == 1 or (
            len(uses) <= self.max_consumers and cost * (len(uses) - 1) <= self.max_recompute)
