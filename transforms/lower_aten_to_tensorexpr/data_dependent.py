"""Ops that depend on data beyond values: run-time assertions (te.check), and ops
whose result size depends on data: nonzero (and through it boolean-mask
indexing, which the importer writes as nonzero). The count of nonzero elements is
`te.compact`'s second result, an `index` extent like N and E for every later op.
repeat_interleave's length, the sum of its repeats, is one too (or its output_size)."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType, i1, i64
from xdsl.ir import SSAValue

from dialects import aten
from dialects import tensorexpr as te
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import cast, const


class DataDependentLowerings(LoweringBase):
    def lower_Nonzero(self, op: aten.NonzeroOp) -> SSAValue:
        """flags = (self != 0) flattened; positions, count = te.compact flags; row j
        of the result is position j unravelled over self's dims."""
        t = op.result.type
        assert isinstance(t, TensorType)
        src = self.dims(op.input)
        rank = len(src)
        positions, count = self._compact_mask(op.input, op.input)

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            flat = cast(b, self.load(b, positions, [idx[0]]), idx[0].type)
            coords = self.delinearize(b, flat, src) if rank else [flat]
            value = coords[-1]
            for k in reversed(range(rank - 1)):  # pick coordinate idx[1] (a loop index)
                is_k = b.insert(arith.CmpiOp(idx[1], self.index(k), "eq")).result
                value = b.insert(arith.SelectOp(is_k, coords[k], value)).result
            return cast(b, value, i64)

        return self.compute(t, [count, self.index(max(rank, 1))], body)

    def _compact_mask(self, mask: SSAValue, like: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(positions, count) of the true elements of mask broadcast to like's shape,
        as flat indices of like."""
        ext = self.dims(like)
        shape = aten.shape_of(like)
        n = self.numel(self.b, ext)
        flags = self.compute(TensorType(i1, [DYNAMIC_INDEX]), [n], lambda b, idx: cast(
            b, self.load_broadcast(b, mask, self.delinearize(b, idx[0], ext), shape), i1))
        compact = self.b.insert(te.CompactOp(flags, n))
        self.extents[compact.positions] = [compact.count]
        return compact.positions, compact.count

    def lower_MaskedScatter(self, op: aten.MaskedScatterOp) -> SSAValue:
        """self, then source's j-th element assigned at the j-th true position."""
        positions, count = self._compact_mask(op.mask, op.input)
        ext, src = self.dims(op.input), self.dims(op.source)
        et = aten.elem_of(op.result)

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            flat = cast(b, self.load(b, positions, idx), idx[0].type)
            value = self.load(b, op.source, self.delinearize(b, idx[0], src) if src else [])
            return self.delinearize(b, flat, ext), cast(b, value, et)

        return self.scatter("assign", op.input, [count], body)

    def lower_MaskedScatterBackward(self, op: aten.MaskedScatterBackwardOp) -> SSAValue:
        """zeros of `sizes`, then grad's j-th true element assigned at flat index j."""
        t = op.result.type
        assert isinstance(t, TensorType)
        positions, count = self._compact_mask(op.mask, op.grad_output)
        ext = self.dims(op.grad_output)
        out = self.result_extents(t, list(op.sizes))
        et = t.get_element_type()
        zeros = self.compute(t, out, lambda b, idx: const(b, 0, et))

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            flat = cast(b, self.load(b, positions, idx), idx[0].type)
            return self.delinearize(b, idx[0], out), cast(b, self.load(b, op.grad_output, self.delinearize(b, flat, ext)), et)

        return self.scatter("assign", zeros, [count], body)

    def lower_RepeatInterleaveTensor(self, op: aten.RepeatInterleaveTensorOp) -> SSAValue:
        """ends = cumsum(repeats); marks[ends[k]] += 1 for every k (a te.scatter into
        total + 1 slots); out = cumsum(marks)[:total], so out[i] = #{k: ends[k] <= i} =
        searchsorted(ends, i, right=True), in O(n + total) (a counting te.reduce per
        element would be O(n * total)). total is output_size when given, else the sum
        of repeats read by the function (a size known only at run time, like nonzero's
        count, its buffers allocated per call). te.checks: no repeat is negative, the
        sum is output_size (torch's messages); te.index keeps a wrong one in bounds, and
        out is at most n - 1 (always, for valid repeats), so that a reader's index check
        does not report a bad call in the checks' place (the last failure stored wins)."""
        t = op.result.type
        assert isinstance(t, TensorType)
        n = self.dims(op.repeats)[0]
        scalar = TensorType(i64, [])
        counts = self.compute(TensorType(i64, aten.shape_of(op.repeats)), [n], lambda b, idx: cast(b, self.load(b, op.repeats, idx), i64))
        lowest = self.reduce("min", scalar, [], [n], lambda b, idx: self.load(b, counts, idx))
        self._check(self.compute(TensorType(i1, []), [], lambda b, idx: b.insert(arith.CmpiOp(
            self.load(b, lowest, []), const(b, 0, i64), "sge")).result), "repeats can not be negative")
        total_t = self.reduce("add", scalar, [], [n], lambda b, idx: self.load(b, counts, idx))
        if op.output_size is not None:
            total = op.output_size
            self._check(self.compute(TensorType(i1, []), [], lambda b, idx: b.insert(arith.CmpiOp(
                self.load(b, total_t, []), cast(b, total, i64), "eq")).result), "allocated size does not match required size")
        else:
            loaded = self.b.insert(te.LoadOp(total_t, [])).result
            clamped = self.b.insert(arith.MaxSIOp(loaded, const(self.b, 0, i64))).result  # sized before the check is read
            total = self.b.insert(arith.IndexCastOp(clamped, IndexType())).result
        ends = self.b.insert(te.ScanOp("add", counts, 0)).result
        self.extents[ends] = [n]
        slots = self.b.insert(arith.AddiOp(total, self.index(1))).result
        zeros = self.compute(TensorType(i64, [DYNAMIC_INDEX]), [slots], lambda b, idx: const(b, 0, i64))
        site = self.site("repeat_interleave: a negative repeat (or a sum past output_size)", op.repeats)

        def mark(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            at = b.insert(te.IndexOp(self.load(b, ends, idx), slots, site)).result
            return [at], const(b, 1, i64)

        marks = self.scatter("add", zeros, [n], mark)
        scan = self.b.insert(te.ScanOp("add", marks, 0)).result
        self.extents[scan] = [slots]
        last = self.b.insert(arith.IndexCastOp(self.b.insert(arith.SubiOp(n, self.index(1))).result, i64)).result

        def element(b: Builder, idx: list[SSAValue]) -> SSAValue:
            k = b.insert(arith.MinSIOp(self.load(b, scan, idx), last)).result
            return cast(b, k, t.get_element_type())

        return self.compute(t, [total], element)

    def _check(self, condition: SSAValue, message: str) -> None:
        self.sites.append("assertion failed: " + message)
        self.b.insert(te.CheckOp(condition, len(self.sites)))

    def lower_AssertAsyncMsg(self, op: aten.AtenOp) -> list[SSAValue]:
        """te.check of the condition, with the graph's message as its site."""
        msg = op.properties.get("assert_msg")
        self.sites.append("assertion failed: " + (msg.data if msg is not None else "_assert_async"))  # type: ignore[attr-defined]
        self.b.insert(te.CheckOp(op.input, len(self.sites)))  # type: ignore[attr-defined]
        return []

    def lower_LocalScalarDense(self, op: aten.LocalScalarDenseOp) -> SSAValue:
        """A te.load by the function itself (not in a body): the loops stage reads the
        element from its buffer."""
        value = self.b.insert(te.LoadOp(op.input, [self.index(0)] * len(self.dims(op.input)))).result
        return cast(self.b, value, op.result.type)
