"""Ops that depend on data beyond values: run-time assertions (te.check), and ops
whose result size depends on data: nonzero (and through it boolean-mask
indexing, which the importer writes as nonzero). The count of nonzero elements is
`te.compact`'s second result, an `index` extent like N and E for every later op."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, i1, i64
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
