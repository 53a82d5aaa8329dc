"""te.scatter: a loop nest over the updates, each combined into the base's buffer.

The base's buffer is updated in place when nothing else reads the base, else
copied first. A constant fill read only as scatter bases (zeros, full) is never
computed on its own: each scatter fills its own buffer, where a shared fill would
be copied; only outside the block a slice assignment writes (a slice's backward:
zeros around the gradient's block), or not at all when a chain of slice
assignments covers it (e3nn's `out[:, a:b] = ...` for each block of a
concatenation).
With `te.partition` (an index_add into N rows from E edges, in parallel), threads
split the rows into blocks and each applies the updates that land in its block:
every row sees its updates in the sequential order, so the result is bit for bit
the sequential one, with no atomics.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from dialects import tensorexpr as te
from transforms.lower_tensorexpr_to_loops.base import _Buffer, _combine, _order, _parallel
from transforms.lower_tensorexpr_to_loops.compute import ComputeLowerings, _Body


class ScatterLowerings(ComputeLowerings):
    """te.scatter; the constant fills of its bases are lowered here, into its buffer."""

    def __init__(self, fn: func.FuncOp):
        super().__init__(fn)
        self.teams: dict[SSAValue, SSAValue] = {}  # row blocks of partitioned scatters, by extent
        self.fills: dict[SSAValue, tuple[te.ComputeOp, int | None]] = {}
        """Constant fills read only as scatter bases (with their nest number): each
        scatter fills its own buffer, where a shared fill would be copied."""

    def lower_scatter(self, op: te.ScatterOp) -> None:
        if op.base in self.fills:  # a constant base: filled here, never copied
            fill, _ = self.fills[op.base]
            buf = self.allocate(op.result, self.extents(fill))
            blocks = _blocks(fill, op)
            if _overwritten(fill, op):
                pass  # slice assignments cover it: nothing reads the fill
            elif blocks is not None and len(blocks) == 1:
                (d, (lo, hi)), = blocks.items()
                self.fill_outside(fill, buf, d, lo, hi)
            else:
                self.lower_compute(fill, buf)
        else:
            buf = self.scatter_buffer(op)
        kind = op.kind.data
        order = _order(op)
        body = _Body(self, op.body.block, [op.body.block.args[d] for d in order])
        term = body.terminator
        assert isinstance(term, te.UpdateOp)

        def update(b: Builder, ivs: list[SSAValue]) -> None:
            at = self.linear(b, [body.value(i) for i in term.indices], buf.extents)
            value = body.value(term.value)
            if kind != "assign":
                old = b.insert(memref.LoadOp.get(buf.memref, [at])).res
                value = _combine(b, kind, old, value)
            b.insert(memref.StoreOp.get(value, buf.memref, [at]))

        extents = [self.extents(op)[d] for d in order]
        part = op.attributes.get("te.partition")
        if not isinstance(part, IntegerAttr):  # rows disjoint across the outermost loop, or sequential
            body.enter(self.b, [])
            self.nest(self.b, extents, update, enter=body.enter, parallel=_parallel(op))
            return
        self.lower_scatter_partitioned(body, extents, update, part.value.data, buf, _parallel(op) or 1)

    def fill_outside(self, fill: te.ComputeOp, buf: _Buffer, d: int, lo: int, hi: int) -> None:
        """The fill's constant everywhere but the block [lo, hi) of dim d, which the
        scatter assigns (a slice's backward: zeros around the gradient's block)."""
        constant = te.constant_fill(fill)
        assert constant is not None
        value = self.emitted(constant)
        extents = self.extents(fill)
        size = te.static_extent(fill.extents[d])
        assert size is not None
        for start, stop in ((0, lo), (hi, size)):
            if stop <= start:
                continue

            def store(b: Builder, ivs: list[SSAValue], start: int = start) -> None:
                at = list(ivs)
                at[d] = self.add(b, ivs[d], self.index(start))
                b.insert(memref.StoreOp.get(value, buf.memref, [self.linear(b, at, extents)]))

            part = list(extents)
            part[d] = self.index(stop - start)
            self.nest(self.b, part, store, parallel=_parallel(fill))

    def scatter_buffer(self, op: te.ScatterOp) -> _Buffer:
        """The buffer a scatter updates: its base's when nobody else reads the base,
        else a copy."""
        base = self.buffers[op.base]
        in_place = (
            isinstance(op.base.owner, (te.ComputeOp, te.ReduceOp, te.ScatterOp))
            and len(list(op.base.uses)) == 1 and op.result not in self.destination
        )
        if in_place:
            buf = self.buffers[op.result] = base
        else:
            buf = self.allocate(op.result, base.extents)
            self.copy(base, buf.memref)
        return buf

    def lower_scatter_partitioned(
        self, body: _Body, extents: list[SSAValue], update: Callable[[Builder, list[SSAValue]], None],
        dim: int, buf: _Buffer, min_chunk: int,
    ) -> None:
        """Threads split the base along `dim` into row blocks; each scans the whole
        update space and applies the updates that land in its block, guarding the
        work of an update (not only its store) by the block test. Every row sees its
        updates in the sequential order: the result is bit for bit the sequential one.
        There are min(threads, ceil(outermost extent / min_chunk)) blocks."""
        term = body.terminator
        assert isinstance(term, te.UpdateOp)
        target = term.indices[dim]
        body.only = te.body_slice([target], body.block)
        needed = max((body.order.index(a) + 1 for a in body.block.args
                      if a in te.body_args([target], body.block)), default=0)
        key = extents[0]
        if key not in self.teams:  # shared (the first scatter's chunk), so siblings can share a loop
            worth = self.b.insert(arith.CeilDivUIOp(extents[0], self.index(min_chunk))).result
            self.teams[key] = self.b.insert(arith.MaxSIOp(self.b.insert(arith.MinSIOp(self.num_threads, worth)).result,
                                                          self.one)).result
        teams = self.teams[key]
        block = Block(arg_types=[IndexType()])
        t = block.args[0]
        t.name_hint = "part"
        b = Builder(InsertPoint.at_end(block))
        rows = buf.extents[dim]
        lo = b.insert(arith.DivUIOp(b.insert(arith.MuliOp(rows, t)).result, teams)).result
        next_t = b.insert(arith.AddiOp(t, self.one)).result
        hi = b.insert(arith.DivUIOp(b.insert(arith.MuliOp(rows, next_t)).result, teams)).result

        def guarded(gb: Builder, ivs: list[SSAValue]) -> None:
            row = body.value(target)
            mine = gb.insert(arith.AndIOp(gb.insert(arith.CmpiOp(row, lo, "uge")).result,
                                          gb.insert(arith.CmpiOp(row, hi, "ult")).result)).result
            then = Block()
            tb = Builder(InsertPoint.at_end(then))
            body.only = None
            body.enter(tb, ivs)
            self.nest(tb, extents[needed:], update, ivs, body.enter)
            tb.insert(scf.YieldOp())
            gb.insert(scf.IfOp(mine, [], Region(then)))

        body.enter(b, [])
        self.nest(b, extents[:needed], guarded, enter=body.enter)
        b.insert(scf.ReduceOp())
        loop = self.b.insert(scf.ParallelOp([self.zero], [teams], [self.one], Region(block)))
        loop.attributes["loops.min_chunk"] = IntegerAttr(1, 64)


def _scatter_base_fill(op: Operation) -> bool:
    """A te.compute of one constant everywhere (zeros, full) read only as scatter bases."""
    if te.constant_fill(op) is None or not op.results[0].uses:
        return False
    return all(isinstance(u.operation, te.ScatterOp) and u.operation.base is op.results[0] and u.index == 0
               for u in op.results[0].uses)


def _blocks(fill: te.ComputeOp, op: te.ScatterOp) -> dict[int, tuple[int, int]] | None:
    """The blocks [lo, hi) of static dims of `fill` that an "assign" slice assignment
    `op` writes (every other dim whole), or None for any other scatter."""
    dims = te.slice_assignment(op, list(fill.extents))
    if op.kind.data != "assign" or dims is None:
        return None
    blocks = {d: (offset, offset + n) for d, (_, offset, n) in enumerate(dims) if n is not None}
    return None if any(te.static_extent(fill.extents[d]) is None for d in blocks) else blocks


def _overwritten(fill: te.ComputeOp, first: te.ScatterOp) -> bool:
    """Whether the chain of "assign" scatters from `first` (each the only reader of the
    one before) stores every element of `fill` before anything reads it: slice
    assignments (e3nn's `out[:, a:b] = ...` for each block of a concatenation) whose
    blocks tile one dim and cover the others whole. Then the fill is never seen."""
    covered: list[tuple[int, int]] = []
    split: int | None = None
    op: te.ScatterOp | None = first
    while op is not None:
        blocks = _blocks(fill, op)
        if blocks is None or len(blocks) > 1 or split not in (None, *blocks):
            return False
        if not blocks:
            return True  # one scatter assigns everything
        (split, interval), = blocks.items()
        covered.append(interval)
        uses = list(op.result.uses)
        nxt = uses[0].operation if len(uses) == 1 else None
        op = nxt if isinstance(nxt, te.ScatterOp) and nxt.base is op.result and uses[0].index == 0 else None
    end = 0
    for lo, hi in sorted(covered):
        if lo > end:
            return False
        end = max(end, hi)
    return end >= (te.static_extent(fill.extents[split]) or 0)  # type: ignore[index]
