"""Matrix products: te.reduce over the inner dim (the scheduler blocks them)."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Attribute, SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import cast, is_float


class MatmulLowerings(LoweringBase):
    def _matmul(self, t: TensorType, a: SSAValue, bm: SSAValue, batch: bool) -> SSAValue:
        ea, eb = self.dims(a), self.dims(bm)
        ct = t.get_element_type()
        if batch:
            out = [ea[0] if aten.shape_of(a)[0] != 1 else eb[0], ea[1], eb[2]]
        else:
            out = [ea[0], eb[1]]
        k_ext = ea[-1]

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            *o, k = idx
            if batch:
                x = self.load_broadcast(b, a, [o[0], o[1], k], (t.get_shape()[0], 0, 0))
                y = self.load_broadcast(b, bm, [o[0], k, o[2]], (t.get_shape()[0], 0, 0))
            else:
                x = self.load(b, a, [o[0], k])
                y = self.load(b, bm, [k, o[1]])
            return b.insert(arith.MulfOp(cast(b, x, ct), cast(b, y, ct)) if is_float(ct) else arith.MuliOp(x, y)).results[0]

        return self.reduce("add", t, out, [k_ext], body)

    def lower_Mm(self, op: aten.MmOp) -> SSAValue:
        return self._matmul(op.result.type, op.input, op.mat2, batch=False)  # type: ignore[arg-type]

    def lower_Bmm(self, op: aten.BmmOp) -> SSAValue:
        return self._matmul(op.result.type, op.input, op.mat2, batch=True)  # type: ignore[arg-type]

    def lower_Addmm(self, op: aten.AddmmOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        mm = self._matmul(TensorType(t.get_element_type(), t.get_shape()), op.mat1, op.mat2, batch=False)
        operands = [op.input, mm] + [v for v in (op.beta, op.alpha) if v is not None]
        has_beta, has_alpha = op.beta is not None, op.alpha is not None

        def scalar(b: Builder, a: list[SSAValue], ct: Attribute) -> SSAValue:
            bias, prod, rest = a[0], a[1], a[2:]
            mul = arith.MulfOp if is_float(ct) else arith.MuliOp
            if has_beta:
                bias, rest = b.insert(mul(bias, rest[0])).results[0], rest[1:]
            if has_alpha:
                prod = b.insert(mul(prod, rest[0])).results[0]
            return b.insert((arith.AddfOp if is_float(ct) else arith.AddiOp)(bias, prod)).results[0]

        return self.elementwise(op, operands, scalar)

