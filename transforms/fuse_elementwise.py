"""fuse-elementwise: inline te.compute producers into the bodies that load them.

A producer whose every use is a `te.load` in another te body is replaced, at each
load, by its own body evaluated at the load's indices, so its tensor is never
written. This one rewrite fuses elementwise chains, reductions with their
producers, and the gather -> per-edge math -> scatter chains of message passing
(the per-edge E x F intermediates vanish into the scatter's loop over edges).

Cost model: inlining a producer into k load sites evaluates its body k times per
element instead of once, and a load whose indices do not use every loop index of
its consumer re-evaluates the same element on every iteration of the loops it
ignores (a matmul operand). A producer is inlined when that recomputation is free
(one site, no reuse) or cheap (its body costs at most `max_recompute` units per
extra evaluation); transcendental math costs more than arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te

EXPENSIVE = (xmath.ExpOp, xmath.LogOp, xmath.Log1pOp, xmath.ExpM1Op, xmath.TanhOp, xmath.SinOp,
             xmath.CosOp, xmath.ErfOp, xmath.PowFOp, xmath.Atan2Op, xmath.SqrtOp, xmath.RsqrtOp)


def body_cost(op: te.ComputeOp) -> int:
    """Units of work to evaluate one element: loads and arithmetic 1, math 8."""
    cost = 0
    for inner in op.body.block.ops:
        if isinstance(inner, te.YieldOp) or inner.name == "arith.constant":
            continue
        cost += 8 if isinstance(inner, EXPENSIVE) or inner.name in ("arith.divf", "arith.divsi") else 1
    return cost


def uses_every_index(load: te.LoadOp) -> bool:
    """Whether the load's indices depend on every index of the body it sits in,
    so each element it reads is read once (no reuse across an ignored loop)."""
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
    return all(a in seen for a in block.args)


def inline_at(producer: te.ComputeOp, load: te.LoadOp) -> None:
    """Replace `load` by the producer's body evaluated at the load's indices."""
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

    max_recompute: int = 3
    """Inline a producer with several load sites if its body costs at most this."""

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
        cost = body_cost(producer)
        reused = not all(uses_every_index(u.operation) for u in uses)  # type: ignore[arg-type]
        if reused:  # the consumer reads each element many times: recompute only cheap ones
            return cost <= self.max_recompute and len(uses) == 1
        return len(uses) == 1 or cost <= self.max_recompute

