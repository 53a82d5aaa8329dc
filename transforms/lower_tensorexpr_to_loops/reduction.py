"""te.reduce: a loop nest carrying its accumulator, or accumulating in its buffer.

Reduction loops inside the output loops carry the accumulator in iter_args from the
kind's identity (a dot product; float sums may reassociate, so LLVM vectorizes
them); output loops inside reduction loops (the order the schedule gives `x @ B`,
i-k-j) accumulate in the output buffer, set to the identity first.
With `te.vector` (and `te.tile`), a matmul-like reduction is built on register
tiles of rows x w-lane vectors carried in iter_args: what varies along the last
dim is evaluated on vectors, the rest once per row as scalars, and the
multiply-adds may contract to FMAs. The rows left over are clamped to the last
row, computed again rather than by a second copy of the code.
With `te.sparse` (transforms/sparse_contractions.py), the dims it names are unrolled
over its nonzero terms only: for each point of the unrolled output dims, inside the
loops of the others, the sum of the body at those terms, in straight-line code.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IndexType, IntegerAttr, VectorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from dialects import tensorexpr as te
from transforms.sparse_contractions import sparse_points
from transforms.lower_tensorexpr_to_loops.base import (
    _Buffer,
    _combine,
    _identity,
    _order,
    _parallel,
    _unpermute,
)
from transforms.lower_tensorexpr_to_loops.compute import ComputeLowerings, _Body, _dependents


_FOLD: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: operator.add, arith.SubiOp: operator.sub, arith.MuliOp: operator.mul,
    arith.DivUIOp: operator.floordiv, arith.RemUIOp: operator.mod, arith.FloorDivSIOp: operator.floordiv,
    arith.MaxSIOp: max, arith.MinSIOp: min,
}


class ReductionLowerings(ComputeLowerings):
    """te.reduce, plain or in register tiles (`te.vector`, `te.tile`)."""

    def lower_reduce(self, op: te.ReduceOp) -> None:
        """Reduction loops inside the output loops carry the accumulator in iter_args
        (a dot product); output loops inside reduction loops (the order the schedule
        gives `x @ B`) accumulate in the output buffer, set to the identity first."""
        extents = self.extents(op)
        space = extents + [self.values[e] for e in op.reduce_extents]
        rank = len(extents)
        buf = self.allocate(op.result, extents)
        kind, et = op.kind.data, op.element_type()
        order = _order(op)
        body = _Body(self, op.body.block, [op.body.block.args[d] for d in order])
        outer = next((k for k, d in enumerate(order) if d >= rank), len(order))  # loops before the first reduction
        dims = order[outer:]
        body.enter(self.b, [])

        if (sparse := sparse_points(op)) is not None:
            self.lower_reduce_sparse(op, buf, extents, *sparse)
            return
        lanes = op.attributes.get("te.vector")
        if isinstance(lanes, IntegerAttr):
            tile = op.attributes.get("te.tile")
            rows, vectors = [int(v) for v in tile.get_values()] if isinstance(tile, DenseArrayBase) else (1, 1)
            self.lower_reduce_vectorized(op, buf, space, order, outer, lanes.value.data, (rows, vectors))
            return
        if all(d >= rank for d in dims):  # reduction loops innermost
            def step(b: Builder, ivs: list[SSAValue], acc: list[SSAValue]) -> list[SSAValue]:
                return [_combine(b, kind, acc[0], body.result(), reassociate=True)]

            def reduce(b: Builder, ivs: list[SSAValue]) -> None:
                [result] = self.reduce_nest(b, [space[d] for d in dims], [self.constant(_identity(kind, et))], step, ivs,
                                            body.enter)
                at = self.linear(b, _unpermute(ivs, order[:outer]), extents)
                b.insert(memref.StoreOp.get(result, buf.memref, [at]))

            self.nest(self.b, [space[d] for d in order[:outer]], reduce, enter=body.enter, parallel=_parallel(op))
            return

        inner = [d for d in dims if d < rank]  # output dims inside the reduction

        def accumulate(b: Builder, ivs: list[SSAValue]) -> None:
            at = self.linear(b, _unpermute(ivs, order, rank), extents)
            old = b.insert(memref.LoadOp.get(buf.memref, [at])).res
            b.insert(memref.StoreOp.get(_combine(b, kind, old, body.result()), buf.memref, [at]))

        def reduce(b: Builder, ivs: list[SSAValue]) -> None:
            def init(bb: Builder, inner_ivs: list[SSAValue]) -> None:
                at = self.linear(bb, _unpermute(ivs + inner_ivs, order[:outer] + inner), extents)
                bb.insert(memref.StoreOp.get(self.constant(_identity(kind, et)), buf.memref, [at]))

            self.nest(b, [space[d] for d in inner], init)
            self.nest(b, [space[d] for d in dims], accumulate, ivs, body.enter)

        self.nest(self.b, [space[d] for d in order[:outer]], reduce, enter=body.enter, parallel=_parallel(op))

    def lower_reduce_sparse(
        self, op: te.ReduceOp, buf: _Buffer, extents: list[SSAValue], dims: list[int], points: list[tuple[int, ...]],
    ) -> None:
        """`te.sparse`: loops over the output dims not in `dims`; inside, for every
        point of the output dims in `dims`, the sum over its nonzero `points` of the
        body with those dims constant (an output without any stores the identity)."""
        rank = op.rank()
        kind, et = op.kind.data, op.element_type()
        args = op.body.block.args
        out_dims = [d for d in dims if d < rank]
        loop_dims = [d for d in range(rank) if d not in out_dims]
        terms: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        for p in points:
            terms.setdefault(p[:len(out_dims)], []).append(p)
        body = _Body(self, op.body.block, [args[d] for d in loop_dims])
        body.enter(self.b, [])
        result = body.terminator.value  # type: ignore[union-attr]

        def outputs(b: Builder, ivs: list[SSAValue]) -> None:
            shared, pending = dict(body.mapping), list(body.pending)
            loaded: dict[tuple[SSAValue, ...], SSAValue] = {}  # an element several terms read, loaded once
            at_dims = dict(zip(loop_dims, ivs))
            for out in itertools.product(*(range(te.static_extent(op.extents[d]) or 0) for d in out_dims)):
                acc: SSAValue | None = None
                for p in terms.get(out, []):
                    mapping = dict(shared)
                    mapping.update({args[d]: self.index(v) for d, v in zip(dims, p)})
                    for o in pending:
                        self.emit_folded(b, o, mapping, loaded)
                    term = mapping.get(result, result)
                    acc = term if acc is None else _combine(b, kind, acc, term, reassociate=True)
                acc = acc or self.constant(_identity(kind, et))
                at_dims.update({d: self.index(v) for d, v in zip(out_dims, out)})
                at = self.linear(b, [at_dims[d] for d in range(rank)], extents)
                b.insert(memref.StoreOp.get(acc, buf.memref, [at]))

        self.nest(self.b, [extents[d] for d in loop_dims], outputs, enter=body.enter, parallel=_parallel(op))

    def emit_folded(self, b: Builder, op: Operation, mapping: dict[SSAValue, SSAValue],
                    loaded: dict[tuple[SSAValue, ...], SSAValue]) -> None:
        """`emit`, with index arithmetic on constants folded, a load at constant indices
        of a structural constant (a te.weight with its nonzeros' values) its value (the
        unrolled terms of a sparse contraction read no constant), and a load of an
        element `loaded` already (by another term) that value."""
        operands = [mapping.get(v, v) for v in op.operands]
        fold = _FOLD.get(type(op))
        if fold is not None and isinstance(op.results[0].type, IndexType):
            known = [te.static_extent(v) for v in operands]
            if all(k is not None for k in known):
                mapping[op.results[0]] = self.index(fold(*known))
                return
        if isinstance(op, te.LoadOp) and (table := self.constant_values(op.tensor)) is not None:
            known = [te.static_extent(mapping.get(i, i)) for i in op.indices]
            if all(k is not None for k in known):
                mapping[op.result] = self.constant(FloatAttr(float(table[tuple(known)]), op.result.type))
                return
        if isinstance(op, te.LoadOp):
            key = (op.tensor, *(mapping.get(i, i) for i in op.indices))
            if key not in loaded:
                buf = self.buffers[op.tensor]
                at = self.strided(b, list(key[1:]), buf.extents)
                loaded[key] = b.insert(memref.LoadOp.get(buf.memref, [at])).res
            mapping[op.result] = loaded[key]
            return
        self.emit(b, op, mapping)

    def strided(self, b: Builder, idx: list[SSAValue], extents: list[SSAValue]) -> SSAValue:
        """The row-major offset of idx as a sum of index x stride, its constant terms
        added up here: an unrolled term's load is one add to offsets the loops share
        (`linear`'s Horner form when a stride is not a constant)."""
        sizes = [te.static_extent(e) for e in extents[1:]]
        if any(s is None for s in sizes):
            return self.linear(b, idx, extents)
        total, at = 0, None
        for k, i in enumerate(idx):
            stride = math.prod(sizes[k:])  # type: ignore[arg-type]
            known = te.static_extent(i)
            if known is not None:
                total += known * stride
                continue
            term = self.mul(b, i, self.index(stride))
            at = term if at is None else self.add(b, at, term)
        return self.index(total) if at is None else self.add(b, at, self.index(total))

    def lower_reduce_vectorized(
        self, op: te.ReduceOp, buf: _Buffer, space: list[SSAValue], order: list[int], outer: int,
        lanes: int, tile: tuple[int, int],
    ) -> None:
        """`te.vector = w`, `te.tile = [R, C]`: register tiles of R rows (iterations of
        the loop just outside the reduction) x C w-lane slices of the row J (the last
        dim, innermost in te.order), carried in the reduction loops' iter_args. Per
        reduction step, what varies along J is evaluated on vectors (its loads become
        vector.load), the rest once per row as scalars, broadcast; multiply-adds may
        contract to FMAs. J is walked in J / (C w) tiles, the rows in ceil(n / R) tiles;
        the last tile's rows past the end are clamped to the last row, which it then
        computes and stores more than once (the same values, by the same thread):
        no second copy of the code for the rows left over."""
        kind, et = op.kind.data, op.element_type()
        rank = op.rank()
        vt = VectorType(et, [lanes])
        rows, vectors = tile if outer >= 1 else (1, tile[1])
        row_extent = te.static_extent(op.extents[-1])
        assert row_extent is not None and row_extent % (lanes * vectors) == 0
        args = op.body.block.args
        red = order[outer:-1]
        row_arg = args[order[outer - 1]] if rows > 1 else None
        on_row = _dependents(row_arg) if row_arg is not None else set()

        def tiles(b: Builder, ivs: list[SSAValue], first: list[SSAValue]) -> None:
            """The tiles of the rows `first` (row ivs; `ivs` the outer loops')."""
            body = _Body(self, op.body.block, [args[d] for d in order])
            if row_arg is not None:
                body.only = {o for o in op.body.block.ops if not any(v in on_row for v in o.operands)}
            body.enter(b, [])
            body.enter(b, ivs)

            def columns(cb: Builder, start: SSAValue) -> None:
                lane0 = [self.add(cb, start, self.index(c * lanes)) for c in range(vectors)]

                def step(sb: Builder, _: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
                    values = body.vector_tile(sb, row_arg, first, lane0, vt)
                    return [_combine(sb, kind, acc, x, contract=True) for acc, x in zip(accs, values)]

                zero = self.once(cb, vector.BroadcastOp, self.constant(_identity(kind, et)), vt)
                accs = self.reduce_nest(cb, [space[d] for d in red], [zero] * (len(first) * vectors), step, ivs,
                                        body.enter)
                for k, acc in enumerate(accs):
                    r, c = divmod(k, vectors)
                    at_ivs = ivs[:-1] + [first[r]] if row_arg is not None else ivs
                    at = self.linear(cb, _unpermute(at_ivs + [lane0[c]], order[:outer] + [rank - 1]), buf.extents)
                    cb.insert(vector.StoreOp(acc, buf.memref, [at]))

            count = row_extent // (lanes * vectors)
            if count == 1:
                columns(b, self.zero)
                return
            block = Block(arg_types=[IndexType()])
            cb = Builder(InsertPoint.at_end(block))
            columns(cb, self.mul(cb, block.args[0], self.index(lanes * vectors)))
            cb.insert(scf.YieldOp())
            b.insert(scf.ForOp(self.zero, self.index(count), self.one, [], Region(block)))

        outer_extents = [space[d] for d in order[:outer]]
        if row_arg is None:
            self.nest(self.b, outer_extents, lambda b, ivs: tiles(b, ivs, [self.zero]), parallel=_parallel(op))
            return
        n = outer_extents[-1]
        count = self.once(self.b, arith.CeilDivUIOp, n, self.index(rows))
        last = self.once(self.b, arith.SubiOp, n, self.one)  # n >= 1 when there is a tile

        def tiled(b: Builder, ivs: list[SSAValue]) -> None:
            base = self.mul(b, ivs[-1], self.index(rows))
            first = [base] + [b.insert(arith.MinUIOp(self.add(b, base, self.index(k)), last)).result
                              for k in range(1, rows)]
            tiles(b, ivs[:-1] + [base], first)

        self.nest(self.b, outer_extents[:-1] + [count], tiled, parallel=_parallel(op))
