"""simplify-indices: fold the div/rem of reshaped indices in te bodies, using loop bounds.

A view or reshape lowers to linearize-then-delinearize: `(e * 32 + j) % 32` and
`(e * 32 + j) / 32` for the two dims of `[E, 32]` read as `[E * 32]` and back. With
j < 32 (j is a body argument over an extent of 32) they are `j` and `e`. Left alone,
such chains hide which loop a load runs along: the scheduler cannot see that
`W[((k % 32) * 32 + k / 32) * 32 + j]` is contiguous in j, and every access pays
for divisions. Each te body argument ranges over its extent and a `te.index` over
its dim; from those, exclusive upper bounds propagate through + and * (all index
arithmetic here is unsigned: indices are never negative), and with c a constant:

    x % c -> x          when x < c            x / c -> 0    when x < c
    (p * q + b) % c -> b % c                  (p * q + b) / c -> p * (q / c) + b / c
    (p * q) % c -> 0                          (p * q) / c -> p * (q / c)    when c divides q
    (x % a) % c -> x % c   when c divides a   (x / a) / c -> x / (a * c)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from dialects import tensorexpr as te

TE_OPS = (te.ComputeOp, te.ReduceOp, te.ScatterOp)


def constant(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr) and isinstance(v.type, IndexType):
        return owner.value.value.data
    return None


def bound(v: SSAValue, depth: int = 0) -> int | None:
    """An exclusive upper bound of the index `v` in a te body, or None (unknown)."""
    c = constant(v)
    if c is not None:
        return c + 1 if c >= 0 else None
    if depth > 32:
        return None
    owner = v.owner
    if isinstance(owner, Block):
        parent = owner.parent_op()
        if isinstance(parent, TE_OPS):
            return te.static_extent(parent.space()[v.index])  # type: ignore[attr-defined]
        return None
    if isinstance(owner, te.IndexOp):
        return te.static_extent(owner.extent)
    if isinstance(owner, (arith.AddiOp, arith.MuliOp, arith.RemUIOp, arith.DivUIOp)):
        a, b = (bound(o, depth + 1) for o in owner.operands)
        if isinstance(owner, arith.RemUIOp):
            c = constant(owner.rhs)
            return c if a is None else a if c is None else min(a, c)
        if a is None or b is None:
            return None
        if isinstance(owner, arith.AddiOp):
            return a + b - 1
        if isinstance(owner, arith.MuliOp):
            return (a - 1) * (b - 1) + 1
        c = constant(owner.rhs)
        return (a - 1) // c + 1 if c else None
    return None


def _product(v: SSAValue) -> tuple[SSAValue, int] | None:
    """(p, q) when `v` is p * q with q a constant (either side)."""
    owner = v.owner
    if not isinstance(owner, arith.MuliOp):
        return None
    for p, q in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        if (c := constant(q)) is not None:
            return p, c
    return None


def _index(rewriter: PatternRewriter, n: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(n, IndexType()))
    rewriter.insert_op(op)
    return op.result


def _times(rewriter: PatternRewriter, p: SSAValue, q: int) -> SSAValue:
    if q == 1:
        return p
    op = arith.MuliOp(p, _index(rewriter, q))
    rewriter.insert_op(op)
    return op.result


def _in_te_body(op: Operation) -> bool:
    return isinstance(op.parent_op(), TE_OPS)


class SimplifyRem(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.RemUIOp, rewriter: PatternRewriter) -> None:
        c = constant(op.rhs)
        if not c or not _in_te_body(op):
            return
        x = op.lhs
        if (b := bound(x)) is not None and b <= c:
            rewriter.replace_matched_op([], [x])
            return
        owner = x.owner
        if (pq := _product(x)) is not None and pq[1] % c == 0:
            rewriter.replace_matched_op([], [_index(rewriter, 0)])
            return
        if isinstance(owner, arith.AddiOp):
            for a, rest in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
                if (pq := _product(a)) is not None and pq[1] % c == 0:
                    rewriter.replace_matched_op(arith.RemUIOp(rest, op.rhs))
                    return
        if isinstance(owner, arith.RemUIOp) and (a := constant(owner.rhs)) and a % c == 0:
            rewriter.replace_matched_op(arith.RemUIOp(owner.lhs, op.rhs))


class SimplifyDiv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.DivUIOp, rewriter: PatternRewriter) -> None:
        c = constant(op.rhs)
        if not c or not _in_te_body(op):
            return
        x = op.lhs
        if (b := bound(x)) is not None and b <= c:
            rewriter.replace_matched_op([], [_index(rewriter, 0)])
            return
        owner = x.owner
        if (pq := _product(x)) is not None and pq[1] % c == 0:
            rewriter.replace_matched_op([], [_times(rewriter, pq[0], pq[1] // c)])
            return
        if isinstance(owner, arith.AddiOp):
            for a, rest in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
                if (pq := _product(a)) is not None and pq[1] % c == 0:
                    high = _times(rewriter, pq[0], pq[1] // c)
                    low = arith.DivUIOp(rest, op.rhs)
                    rewriter.insert_op(low)
                    rewriter.replace_matched_op(arith.AddiOp(high, low.result))
                    return
        if isinstance(owner, arith.DivUIOp) and (a := constant(owner.rhs)):
            rewriter.replace_matched_op(arith.DivUIOp(owner.lhs, _index(rewriter, a * c)))


class FoldTrivial(RewritePattern):
    """x + 0 and x * 1, which the rules above leave behind (b / c -> 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp | arith.MuliOp, rewriter: PatternRewriter) -> None:
        unit = 0 if isinstance(op, arith.AddiOp) else 1
        for x, y in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if constant(y) == unit and _in_te_body(op):
                rewriter.replace_matched_op([], [x])
                return


@dataclass(frozen=True)
class SimplifyIndicesPass(ModulePass):
    name = "simplify-indices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([SimplifyRem(), SimplifyDiv(), FoldTrivial()]),
            apply_recursively=True,
        ).rewrite_module(op)
