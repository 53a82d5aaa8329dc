"""simplify-indices: fold the div/rem of reshaped indices in te bodies, using loop bounds.

A view or reshape lowers to linearize-then-delinearize: `(e * 32 + j) % 32` and
`(e * 32 + j) / 32` for the two dims of `[E, 32]` read as `[E * 32]` and back. With
j < 32 (j is a body argument over an extent of 32) they are `j` and `e`. Left alone,
such chains hide which loop a load runs along: the scheduler cannot see that
`W[((k % 32) * 32 + k / 32) * 32 + j]` is contiguous in j, and every access pays
for divisions. Each te body argument ranges over its extent and a `te.index` over
its dim; from those, exclusive upper bounds propagate through + and * (all index
arithmetic here is unsigned: indices are never negative), and with c a constant
or a size symbol (then x < c when x is an argument over c, a te.index into c or a
remainder by c; and c divides q when q is c):

    x % c -> x          when x < c            x / c -> 0    when x < c
    (p * q + b) % c -> b % c                  (p * q + b) / c -> p * (q / c) + b / c
    (p * q) % c -> 0                          (p * q) / c -> p * (q / c)    when c divides q
    (x % a) % c -> x % c   when c divides a   (x / a) / c -> x / (a * c)    (constants)

min and max of two constants fold (a slice's clamped bounds), and, for a constant c,
x read as a sum of constant multiples splits into the
multiples of c (which leave x % c and divide exactly) and a rest, dropped from
x / c when it is below c: mixed radices, `((n * 3 + i) * 9 + j) % 27 = i * 9 + j`;
and a sum that linearizes a delinearized index again recombines: k * (y % b) +
k * b * (y / b) is k * y.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
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


def below(x: SSAValue, c: SSAValue) -> bool:
    """Whether 0 <= x < c holds in a te body."""
    if (n := constant(c)) is not None:
        return (b := bound(x)) is not None and b <= n
    owner = x.owner
    if isinstance(owner, Block):
        parent = owner.parent_op()
        return isinstance(parent, TE_OPS) and parent.space()[x.index] is c  # type: ignore[attr-defined]
    return isinstance(owner, te.IndexOp) and owner.extent is c or isinstance(owner, arith.RemUIOp) and owner.rhs is c


def _quotient(v: SSAValue, c: SSAValue) -> tuple[SSAValue, int] | None:
    """(p, q / c) when `v` is p * q (either side) and c divides q: both constants, or q is c."""
    owner = v.owner
    if not isinstance(owner, arith.MuliOp):
        return None
    n = constant(c)
    for p, q in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        if q is c:
            return p, 1
        if n and (m := constant(q)) is not None and m % n == 0:
            return p, m // n
    return None


def _index(rewriter: PatternRewriter, n: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(n, IndexType()))
    rewriter.insert(op)
    return op.result


def _times(rewriter: PatternRewriter, p: SSAValue, q: int) -> SSAValue:
    if q == 1:
        return p
    op = arith.MuliOp(p, _index(rewriter, q))
    rewriter.insert(op)
    return op.result


def _in_te_body(op: Operation) -> bool:
    return isinstance(op.parent_op(), TE_OPS)


def terms(v: SSAValue, depth: int = 0) -> dict[SSAValue | None, int]:
    """`v` as a sum of constant multiples of other values (None: the constant term)."""
    c = constant(v)
    if c is not None:
        return {None: c}
    owner = v.owner
    if depth < 32 and isinstance(owner, arith.AddiOp):
        out = terms(owner.lhs, depth + 1)
        for a, k in terms(owner.rhs, depth + 1).items():
            out[a] = out.get(a, 0) + k
        return {a: k for a, k in out.items() if k}
    if depth < 32 and isinstance(owner, arith.MuliOp):
        for p, q in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            if (m := constant(q)) is not None:
                return {a: k * m for a, k in terms(p, depth + 1).items() if k * m}
    return {v: 1}


def _sum(rewriter: PatternRewriter, parts: dict[SSAValue | None, int]) -> SSAValue:
    total: SSAValue | None = None
    for a, k in parts.items():
        x = _index(rewriter, k) if a is None else _times(rewriter, a, k)
        if total is None:
            total = x
        else:
            add = arith.AddiOp(total, x)
            rewriter.insert(add)
            total = add.result
    return total if total is not None else _index(rewriter, 0)


class SplitMixedRadix(RewritePattern):
    """x % c and x / c for a constant c and x a sum of multiples: the multiples of c
    leave the remainder and divide exactly (((n * 3 + i) * 9 + j) % 27 is i * 9 + j
    when i < 3 and j < 9: a reshape whose radices do not line up with the view's)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.RemUIOp | arith.DivUIOp, rewriter: PatternRewriter) -> None:
        n = constant(op.rhs)
        if not n or not _in_te_body(op):
            return
        parts = terms(op.lhs)
        high = {a: k // n for a, k in parts.items() if k % n == 0}
        low = {a: k for a, k in parts.items() if k % n}
        if not high:
            return
        bounds = [bound(a) if a is not None else k + 1 for a, k in low.items()]
        exact = all(b is not None for b in bounds) and sum(
            (k if a is None else k * (b - 1)) for (a, k), b in zip(low.items(), bounds)) < n  # type: ignore[operator]
        rest = _sum(rewriter, low)
        if isinstance(op, arith.RemUIOp):
            rewriter.replace(op, [] if exact else arith.RemUIOp(rest, op.rhs), [rest] if exact else None)
            return
        quotient = _sum(rewriter, high)
        if not exact:
            div = arith.DivUIOp(rest, op.rhs)
            rewriter.insert(div)
            quotient_op = arith.AddiOp(quotient, div.result)
            rewriter.replace(op, quotient_op)
            return
        rewriter.replace(op, [], [quotient])


def _divides(q: SSAValue, y: SSAValue, b: int) -> bool:
    """Whether `q` is y / b: literally, or x / (a * b) with y = x / a."""
    owner = q.owner
    if not isinstance(owner, arith.DivUIOp):
        return False
    if owner.lhs is y:
        return constant(owner.rhs) == b
    inner = y.owner
    return (isinstance(inner, arith.DivUIOp) and inner.lhs is owner.lhs
            and (a := constant(inner.rhs)) is not None and constant(owner.rhs) == a * b)


class Recombine(RewritePattern):
    """k * (y % b) + k * b * (y / b) -> k * y: a delinearized index linearized again
    (81 * (m / 81) + 9 * ((m / 9) % 9) + m % 9 is m), so a load's stride along m shows."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        if not _in_te_body(op):
            return
        parts = terms(op.result)
        changed = True
        merged = False
        while changed:
            changed = False
            for r, k in list(parts.items()):
                owner = r.owner if r is not None else None
                if not isinstance(owner, arith.RemUIOp) or (b := constant(owner.rhs)) is None:
                    continue
                y = owner.lhs
                q = next((a for a, m in parts.items() if a is not None and m == k * b and _divides(a, y, b)), None)
                if q is None:
                    continue
                del parts[r], parts[q]
                parts[y] = parts.get(y, 0) + k
                changed = merged = True
                break
        if merged:
            rewriter.replace(op, [], [_sum(rewriter, {a: k for a, k in parts.items() if k})])


class SimplifyRem(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.RemUIOp, rewriter: PatternRewriter) -> None:
        c = op.rhs
        if constant(c) == 0 or not _in_te_body(op):
            return
        x = op.lhs
        if below(x, c):
            rewriter.replace(op, [], [x])
            return
        owner = x.owner
        if _quotient(x, c) is not None:
            rewriter.replace(op, [], [_index(rewriter, 0)])
            return
        if isinstance(owner, arith.AddiOp):
            for a, rest in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
                if _quotient(a, c) is not None:
                    rewriter.replace(op, arith.RemUIOp(rest, c))
                    return
        n = constant(c)
        if n and isinstance(owner, arith.RemUIOp) and (a := constant(owner.rhs)) and a % n == 0:
            rewriter.replace(op, arith.RemUIOp(owner.lhs, op.rhs))


class SimplifyDiv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.DivUIOp, rewriter: PatternRewriter) -> None:
        c = op.rhs
        if constant(c) == 0 or not _in_te_body(op):
            return
        x = op.lhs
        if below(x, c):
            rewriter.replace(op, [], [_index(rewriter, 0)])
            return
        owner = x.owner
        if (pq := _quotient(x, c)) is not None:
            rewriter.replace(op, [], [_times(rewriter, *pq)])
            return
        if isinstance(owner, arith.AddiOp):
            for a, rest in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
                if (pq := _quotient(a, c)) is not None:
                    high = _times(rewriter, *pq)
                    low = arith.DivUIOp(rest, c)
                    rewriter.insert(low)
                    rewriter.replace(op, arith.AddiOp(high, low.result))
                    return
        n = constant(c)
        if n and isinstance(owner, arith.DivUIOp) and (a := constant(owner.rhs)):
            rewriter.replace(op, arith.DivUIOp(owner.lhs, _index(rewriter, a * n)))


class FoldMinMax(RewritePattern):
    """min/max of two index constants, anywhere: the clamps of a slice's bounds,
    `min(max(start, 0), size)`, are constants for static dims, and once folded the
    offsets they feed are constants that the rules above can see through."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MaxSIOp | arith.MinSIOp | arith.MaxUIOp | arith.MinUIOp,
                          rewriter: PatternRewriter) -> None:
        a, b = constant(op.lhs), constant(op.rhs)
        if a is None or b is None:
            return
        if isinstance(op, arith.MaxUIOp | arith.MinUIOp) and (a < 0 or b < 0):
            return  # unsigned order of a negative index: leave it to LLVM
        pick = max if isinstance(op, arith.MaxSIOp | arith.MaxUIOp) else min
        rewriter.replace(op, [], [_index(rewriter, pick(a, b))])


class FoldTrivial(RewritePattern):
    """x + 0 and x * 1, which the rules above leave behind (b / c -> 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp | arith.MuliOp, rewriter: PatternRewriter) -> None:
        unit = 0 if isinstance(op, arith.AddiOp) else 1
        for x, y in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if constant(y) == unit and _in_te_body(op):
                rewriter.replace(op, [], [x])
                return


@dataclass(frozen=True)
class SimplifyIndicesPass(ModulePass):
    name = "simplify-indices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([SplitMixedRadix(), Recombine(), SimplifyRem(), SimplifyDiv(), FoldMinMax(),
                                         FoldTrivial()]),
            apply_recursively=True,
        ).rewrite_module(op)
        for body_op in [o for o in op.walk() if isinstance(o, TE_OPS)]:  # the chains replaced, last use first
            for inner in reversed(list(body_op.body.block.ops)):
                if inner.dialect_name() == "arith" and not any(r.uses for r in inner.results):
                    Rewriter.erase_op(inner)
