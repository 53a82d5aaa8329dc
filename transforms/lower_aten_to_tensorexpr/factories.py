"""Factories (full, arange, empty, weights) and size queries."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    TensorType,
    f64,
    i64,
)
from xdsl.ir import SSAValue

from dialects import aten
from dialects import tensorexpr as te
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import (
    cast,
    const,
    constant_value,
    is_float,
)


class FactoryLowerings(LoweringBase):
    def _fill(self, op: aten.AtenOp, value: SSAValue | None, extents: Sequence[SSAValue | None]) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        ct = t.get_element_type()
        if value is not None and not isinstance(value.owner, arith.ConstantOp):
            v = value
            return self.compute(t, extents, lambda b, idx: cast(b, v, ct))
        number = 0 if value is None else constant_value(value)
        return self.compute(t, extents, lambda b, idx: const(b, number, ct))

    def lower_Full(self, op: aten.FullOp) -> SSAValue:
        return self._fill(op, op.fill_value, list(op.size))

    def lower_FullLike(self, op: aten.FullLikeOp) -> SSAValue:
        return self._fill(op, op.fill_value, self.dims(op.input))

    def lower_ScalarTensor(self, op: aten.ScalarTensorOp) -> SSAValue:
        return self._fill(op, op.s, [])

    def lower_EmptyPermuted(self, op: aten.EmptyPermutedOp) -> SSAValue:
        return self._fill(op, None, list(op.size))

    lower_EmptyMemoryFormat = lower_EmptyPermuted
    lower_EmptyStrided = lower_EmptyPermuted

    def lower_ArangeStartStep(self, op: aten.ArangeStartStepOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        ct = t.get_element_type()
        b = self.b
        start = op.start
        step = op.step if op.step is not None else const(b, 1, i64)
        count = None
        if t.get_shape()[0] == DYNAMIC_INDEX:
            # ceil((end - start) / step), in f64 as torch does
            s, e, st = (cast(b, v, f64) for v in (start, op.end, step))
            n = b.insert(xmath.CeilOp(b.insert(arith.DivfOp(b.insert(arith.SubfOp(e, s)).result, st)).result)).result
            count = cast(b, b.insert(arith.MaximumfOp(n, const(b, 0.0, f64))).result, IndexType())

        def body(bb: Builder, idx: list[SSAValue]) -> SSAValue:
            i = cast(bb, idx[0], ct)
            mul = arith.MulfOp if is_float(ct) else arith.MuliOp
            add = arith.AddfOp if is_float(ct) else arith.AddiOp
            return bb.insert(add(cast(bb, start, ct), bb.insert(mul(i, cast(bb, step, ct))).results[0])).results[0]

        return self.compute(t, [count], body)

    def lower_Weight(self, op: aten.WeightOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        w = self.b.insert(te.WeightOp(op.weight_name.data, t))
        for key in (te.NONZEROS, te.NONZERO_VALUES):  # a structural constant's, for sparse-contractions
            if key in op.attributes:
                w.attributes[key] = op.attributes[key]
        self.extents[w.result] = [self.index(d) for d in t.get_shape()]
        return w.result


    def lower_SymSizeInt(self, op: aten.SymSizeIntOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        return self.dims(op.input)[aten.int_prop(op, "dim", 0) % max(rank, 1)]

    def lower_SymNumel(self, op: aten.SymNumelOp) -> SSAValue:
        return self.numel(self.b, self.dims(op.input))

