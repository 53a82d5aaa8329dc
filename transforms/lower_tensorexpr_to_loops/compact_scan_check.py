"""te.compact, te.scan and te.check: the te ops that are no nest over an index space.

Each is one sequential loop, or one test, that the other families' nests do not
fit. te.compact counts what the flags keep: its count is an extent computed from
data, known only when the loop ends, so the buffers sized by it take a bound from
the sizes (`NestBuilder.bound`) and an index into it is guarded in its block (see
`index_checks`). te.scan carries a running accumulator along one dim. te.check
stores its site into status when its condition is false and no earlier te.check
failed: the first failed assertion is the one reported, over any index check.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType, i1, i32, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from dialects import tensorexpr as te
from transforms.lower_tensorexpr_to_loops.base import NestBuilder, _Buffer, _combine, _identity


class CompactScanCheckLowerings(NestBuilder):
    """te.compact, te.scan and te.check: one loop or one test each."""

    def lower_compact(self, op: te.CompactOp) -> None:
        """for i < n: positions[count] = i; count += flags[i] != 0. The store is
        unconditional (no branch): count <= i < n keeps it in the buffer, and a
        later position overwrites it."""
        flags = self.buffers[op.flags]
        n = self.values[op.extent]
        positions = self.allocate(op.positions, [n]).memref
        block = Block(arg_types=[IndexType(), IndexType()])
        i, count = block.args
        b = Builder(InsertPoint.at_end(block))
        flag = b.insert(memref.LoadOp.get(flags.memref, [i])).res
        b.insert(memref.StoreOp.get(b.insert(arith.IndexCastOp(i, i64)).result, positions, [count]))
        zero = self.constant(IntegerAttr(0, flag.type))
        hit = b.insert(arith.CmpiOp(flag, zero, "ne")).result
        step = b.insert(arith.SelectOp(hit, self.one, self.zero)).result
        b.insert(scf.YieldOp(b.insert(arith.AddiOp(count, step)).result))
        total = self.b.insert(scf.ForOp(self.zero, n, self.one, [self.zero], Region(block))).results[0]
        self.buffers[op.positions] = _Buffer(positions, [total])
        self.values[op.count] = total
        self.bounds[total] = n

    def lower_scan(self, op: te.ScanOp) -> None:
        """for every index of the other dims: acc = identity; for i along dim:
        acc = acc (+) in[.., i, ..]; out[.., i, ..] = acc."""
        src = self.buffers[op.input]
        ext, d, kind = src.extents, op.dim.value.data, op.kind.data
        out = self.allocate(op.result, ext).memref
        t = op.result.type
        assert isinstance(t, TensorType)
        et = t.get_element_type()

        def along(b: Builder, ivs: list[SSAValue]) -> None:
            block = Block(arg_types=[IndexType(), et])
            i, acc = block.args
            ib = Builder(InsertPoint.at_end(block))
            at = self.linear(ib, ivs[:d] + [i] + ivs[d:], ext)
            x = ib.insert(memref.LoadOp.get(src.memref, [at])).res
            acc = _combine(ib, kind, acc, x)
            ib.insert(memref.StoreOp.get(acc, out, [at]))
            ib.insert(scf.YieldOp(acc))
            b.insert(scf.ForOp(self.zero, ext[d], self.one, [self.constant(_identity(kind, et))], Region(block)))

        self.nest(self.b, [e for k, e in enumerate(ext) if k != d], along)

    def lower_check(self, op: te.CheckOp) -> None:
        """if !condition and no check failed before: status = site. An assertion is the
        program's own statement about its data and runs where the graph has it, so the
        first failed one is reported, over any index check (hoisted to the entry, or a
        consequence of the same bad data). `self.checks` holds the earlier checks' failed
        flags; their `or` is built here, where it is needed (none after the last check)."""
        cond = self.b.insert(memref.LoadOp.get(self.buffers[op.condition].memref, [self.zero])).res
        zero = self.constant(IntegerAttr(0, cond.type))
        failed = self.b.insert(arith.CmpiOp(cond, zero, "eq")).result
        first = failed
        if self.checks:
            before = self.checks[0]
            for other in self.checks[1:]:
                before = self.b.insert(arith.OrIOp(before, other)).result
            self.checks = [before]
            clean = self.b.insert(arith.XOrIOp(before, self.constant(IntegerAttr(1, i1)))).result
            first = self.b.insert(arith.AndIOp(failed, clean)).result
        self.checks.append(failed)
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = tb.insert(arith.ConstantOp(IntegerAttr(op.site.value.data, i32))).result
        tb.insert(memref.StoreOp.get(code, self.status, [self.zero]))
        tb.insert(scf.YieldOp())
        self.b.insert(scf.IfOp(first, [], Region(then)))
