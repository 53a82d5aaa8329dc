"""Ops whose result size depends on data: nonzero (and through it boolean-mask
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
from transforms.lower_aten_to_tensorexpr.scalars import cast


class DataDependentLowerings(LoweringBase):
    def lower_Nonzero(self, op: aten.NonzeroOp) -> SSAValue:
        """flags = (self != 0) flattened; positions, count = te.compact flags; row j
        of the result is position j unravelled over self's dims."""
        t = op.result.type
        assert isinstance(t, TensorType)
        src = self.dims(op.input)
        rank = len(src)
        n = self.numel(self.b, src)
        flags = self.compute(TensorType(i1, [DYNAMIC_INDEX]), [n],
                             lambda b, idx: cast(b, self.load(b, op.input, self.delinearize(b, idx[0], src)), i1))
        compact = self.b.insert(te.CompactOp(flags, n))
        self.extents[compact.positions] = [compact.count]

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            flat = cast(b, self.load(b, compact.positions, [idx[0]]), idx[0].type)
            coords = self.delinearize(b, flat, src) if rank else [flat]
            value = coords[-1]
            for k in reversed(range(rank - 1)):  # pick coordinate idx[1] (a loop index)
                is_k = b.insert(arith.CmpiOp(idx[1], self.index(k), "eq")).result
                value = b.insert(arith.SelectOp(is_k, coords[k], value)).result
            return cast(b, value, i64)

        return self.compute(t, [compact.count, self.index(max(rank, 1))], body)
