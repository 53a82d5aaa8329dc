"""te.compute, and how every te body is emitted into its loop nest.

A te.compute is a nest over its extents (in `te.order`) storing its body's value at
the row-major index, into a new buffer, its output buffer, or a scatter's (for a
constant fill of the scatter's base).
A te body is emitted op by op (`_Body`), each in the outermost loop where its
operands exist: a gather's index check runs once per edge, not once per edge and
feature, and leaves the inner loop free to vectorize. The reduction and the scatter
emit their bodies the same way, so this family is their base; the register tiles
of a vectorized reduction are built from the same body (`_Body.vector_tile`).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, VectorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from dialects import tensorexpr as te
from transforms.lower_tensorexpr_to_loops.base import _Buffer, _order, _parallel, _unpermute
from transforms.lower_tensorexpr_to_loops.index_checks import IndexChecks


class ComputeLowerings(IndexChecks):
    """te.compute, and `emit`, one op of any te body (a te.index becomes a checked index)."""

    def lower_compute(self, op: te.ComputeOp, buf: _Buffer | None = None) -> None:
        """Into a new buffer, or `buf` (a scatter's, for a constant fill of its base)."""
        extents = self.extents(op)
        buf = buf or self.allocate(op.result, extents)
        order = _order(op)
        body = _Body(self, op.body.block, [op.body.block.args[d] for d in order])

        def store(b: Builder, ivs: list[SSAValue]) -> None:
            at = self.linear(b, _unpermute(ivs, order), extents)
            b.insert(memref.StoreOp.get(body.result(), buf.memref, [at]))

        body.enter(self.b, [])
        self.nest(self.b, [extents[d] for d in order], store, enter=body.enter, parallel=_parallel(op))

    def emit(self, b: Builder, op: Operation, mapping: dict[SSAValue, SSAValue]) -> None:
        """One op of a te body, its operands looked up in `mapping`."""
        if isinstance(op, te.LoadOp):
            buf = self.buffers[op.tensor]
            at = self.linear(b, [mapping[i] for i in op.indices], buf.extents)
            mapping[op.result] = b.insert(memref.LoadOp.get(buf.memref, [at])).res
        elif isinstance(op, te.IndexOp):
            mapping[op.result] = self.checked_index(b, op, mapping)
        elif isinstance(op, arith.ConstantOp) and isinstance(op.value, (IntegerAttr, FloatAttr)):
            mapping[op.result] = self.emitted(op)
        elif isinstance(op, (arith.AddiOp, arith.MuliOp)) and isinstance(op.result.type, IndexType):
            x, y = (mapping.get(v, v) for v in op.operands)
            value = mapping[op.result] = (self.add if isinstance(op, arith.AddiOp) else self.mul)(b, x, y)
            if value not in (x, y) and not isinstance(value.owner, arith.ConstantOp):
                value.name_hint = op.result.name_hint
        else:
            clone = op.clone(value_mapper=mapping)
            b.insert(clone)
            mapping.update(zip(op.results, clone.results))


def _inside(v: SSAValue, block: Block) -> bool:
    """Whether `v` is an argument or a result of an op of `block`."""
    return v.owner is block or (isinstance(v.owner, Operation) and v.owner.parent_block() is block)


def _dependents(arg: BlockArgument) -> set[SSAValue]:
    block = arg.owner
    assert isinstance(block, Block)
    return te.dependents(block, arg)


class _Body:
    """A te body emitted into a loop nest, each op in the outermost loop where its
    operands exist: a gather's index check runs once per edge, not once per edge
    and feature, and leaves the inner loop free to vectorize. The terminator's
    operands are emitted innermost, where the caller uses them."""

    def __init__(self, lowering: ComputeLowerings, block: Block, order: list[BlockArgument]):
        self.lowering = lowering
        self.block = block
        self.order = order  # the block arguments in loop order, outermost first
        self.terminator = block.last_op
        self.mapping: dict[SSAValue, SSAValue] = dict(lowering.values)
        self.pending = [o for o in block.ops if o is not self.terminator]
        self.only: set[Operation] | None = None  # when set, emit only these ops

    def bound(self, v: SSAValue) -> bool:
        inside = (v.owner is self.block if isinstance(v, BlockArgument)
                  else isinstance(v.owner, Operation) and v.owner.parent_block() is self.block)
        return not inside or v in self.mapping

    def enter(self, b: Builder, ivs: list[SSAValue]) -> None:
        """The loops of the first len(ivs) arguments are open: emit what now can be."""
        self.mapping.update(zip(self.order, ivs))
        waiting = []
        for op in self.pending:
            if (self.only is None or op in self.only) and all(self.bound(v) for v in op.operands):
                self.lowering.emit(b, op, self.mapping)
            else:
                waiting.append(op)
        self.pending = waiting

    def value(self, v: SSAValue) -> SSAValue:
        return self.mapping.get(v, v)

    def vector_tile(self, b: Builder, row: BlockArgument | None, rows: list[SSAValue], lane0: list[SSAValue],
                    vt: VectorType) -> list[SSAValue]:
        """The yielded value at each row of `rows` (the values of argument `row`; None:
        the row is bound already) and each w-lane slice starting at `lane0` of the
        last (innermost, unbound) loop, row-major. What depends on the last loop is
        built on vectors (its loads along it, see schedule.vector_width), the rest
        as scalars, each once per row, or once if it ignores the row."""
        last = self.order[-1]
        on_row = _dependents(row) if row is not None else set()
        on_lane = _dependents(last)
        memo: dict[tuple[SSAValue, int | None, int | None], SSAValue] = {}
        contract = arith.FastMathFlagsAttr([arith.FastMathFlag.ALLOW_CONTRACT])

        def get(v: SSAValue, r: int, c: int) -> SSAValue:
            if v is row:
                return rows[r]
            if v is last:
                return lane0[c]
            if (v in self.mapping and v not in on_row) or not _inside(v, self.block):
                return self.mapping.get(v, v)
            key = (v, r if v in on_row else None, c if v in on_lane else None)
            if key not in memo:
                memo[key] = build(v, r, c)
            return memo[key]

        def vec(v: SSAValue, r: int, c: int) -> SSAValue:
            x = get(v, r, c)
            return x if isinstance(x.type, VectorType) else self.lowering.once(b, vector.BroadcastOp, x, vt)

        def build(v: SSAValue, r: int, c: int) -> SSAValue:
            op = v.owner
            assert isinstance(op, Operation)
            if v not in on_lane or isinstance(v.type, IndexType):  # a scalar (an index: of the slice's lane 0)
                local = {o: get(o, r, c) for o in op.operands}
                self.lowering.emit(b, op, local)
                return local[v]
            if isinstance(op, te.LoadOp):
                buf = self.lowering.buffers[op.tensor]
                at = self.lowering.linear(b, [get(i, r, c) for i in op.indices], buf.extents)
                return b.insert(vector.LoadOp(buf.memref, [at], vt)).result
            if isinstance(op, arith.NegfOp):
                return b.insert(arith.NegfOp(vec(op.operand, r, c))).result
            lhs, rhs = (vec(o, r, c) for o in op.operands)
            if isinstance(op, (arith.AddfOp, arith.SubfOp, arith.MulfOp)):
                return b.insert(type(op)(lhs, rhs, contract)).result
            return b.insert(type(op)(lhs, rhs)).results[0]

        assert isinstance(self.terminator, te.YieldOp)
        return [vec(self.terminator.value, r, c) for r in range(len(rows)) for c in range(len(lane0))]

    def result(self) -> SSAValue:
        """The value a te.yield yields."""
        assert isinstance(self.terminator, te.YieldOp)
        return self.value(self.terminator.value)
