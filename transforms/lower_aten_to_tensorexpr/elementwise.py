"""Elementwise ops: one te.compute with a scalar body; broadcasting is in the loads."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    IntegerType,
    TensorType,
    f64,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import (
    LoweringError,
    Scalar,
    absolute,
    binary,
    bitwise_not,
    cast,
    const,
    constant_value,
    div_floor,
    div_trunc,
    fmod,
    is_float,
    neg,
    power,
    reciprocal,
    relu,
    remainder,
    rounding,
    sigmoid,
    sign,
    true_div,
    unary_math,
    width,
)

UNARY: dict[type[Operation], Scalar] = {
    aten.NegOp: neg,
    aten.AbsOp: absolute,
    aten.SignOp: sign,
    aten.ReluOp: relu,
    aten.BitwiseNotOp: bitwise_not,
    aten.ReciprocalOp: reciprocal,
    aten.SqrtOp: unary_math(xmath.SqrtOp),
    aten.RsqrtOp: unary_math(xmath.RsqrtOp),
    aten.ExpOp: unary_math(xmath.ExpOp),
    aten.Expm1Op: unary_math(xmath.ExpM1Op),
    aten.LogOp: unary_math(xmath.LogOp),
    aten.Log1pOp: unary_math(xmath.Log1pOp),
    aten.SinOp: unary_math(xmath.SinOp),
    aten.CosOp: unary_math(xmath.CosOp),
    aten.TanhOp: unary_math(xmath.TanhOp),
    aten.ErfOp: unary_math(xmath.ErfOp),
    aten.SigmoidOp: sigmoid,
    aten.AcosOp: unary_math(xmath.AcosOp),
    aten.AcoshOp: unary_math(xmath.AcoshOp),
    aten.AsinOp: unary_math(xmath.AsinOp),
    aten.AsinhOp: unary_math(xmath.AsinhOp),
    aten.AtanOp: unary_math(xmath.AtanOp),
    aten.AtanhOp: unary_math(xmath.AtanhOp),
    aten.CoshOp: unary_math(xmath.CoshOp),
    aten.SinhOp: unary_math(xmath.SinhOp),
    aten.TanOp: unary_math(xmath.TanOp),
    aten.Log2Op: unary_math(xmath.Log2Op),
    aten.Log10Op: unary_math(xmath.Log10Op),
    aten.CeilOp: rounding(xmath.CeilOp),
    aten.FloorOp: rounding(xmath.FloorOp),
    aten.RoundOp: rounding(xmath.RoundEvenOp),
    aten.TruncOp: rounding(xmath.TruncOp),
}
"""Unary elementwise ops, computed in the result element type."""

BINARY: dict[type[Operation], Scalar] = {
    aten.MulTensorOp: binary(arith.MulfOp, arith.MuliOp),
    aten.MulScalarOp: binary(arith.MulfOp, arith.MuliOp),
    aten.DivTensorOp: true_div,
    aten.DivScalarOp: true_div,
    aten.MaximumOp: binary(arith.MaximumfOp, arith.MaxSIOp),
    aten.MinimumOp: binary(arith.MinimumfOp, arith.MinSIOp),
    aten.ClampMinTensorOp: binary(arith.MaximumfOp, arith.MaxSIOp),
    aten.Atan2Op: binary(xmath.Atan2Op),
    aten.BitwiseAndTensorOp: binary(arith.AndIOp, arith.AndIOp),
    aten.BitwiseOrTensorOp: binary(arith.OrIOp, arith.OrIOp),
    aten.BitwiseXorTensorOp: binary(arith.XOrIOp, arith.XOrIOp),
    aten.BitwiseAndScalarOp: binary(arith.AndIOp, arith.AndIOp),
    aten.BitwiseOrScalarOp: binary(arith.OrIOp, arith.OrIOp),
    aten.BitwiseXorScalarOp: binary(arith.XOrIOp, arith.XOrIOp),
    aten.FmodTensorOp: fmod,
    aten.FmodScalarOp: fmod,
    aten.RemainderTensorOp: remainder,
    aten.RemainderScalarOp: remainder,
    aten.PowTensorTensorOp: power,
    aten.PowScalarOp: power,
}
"""Binary elementwise ops, computed in the result element type."""

COMPARE: dict[type[Operation], tuple[str, str]] = {
    aten.EqTensorOp: ("oeq", "eq"), aten.EqScalarOp: ("oeq", "eq"),
    aten.NeTensorOp: ("une", "ne"), aten.NeScalarOp: ("une", "ne"),
    aten.LtTensorOp: ("olt", "slt"), aten.LtScalarOp: ("olt", "slt"),
    aten.LeTensorOp: ("ole", "sle"), aten.LeScalarOp: ("ole", "sle"),
    aten.GtTensorOp: ("ogt", "sgt"), aten.GtScalarOp: ("ogt", "sgt"),
    aten.GeTensorOp: ("oge", "sge"), aten.GeScalarOp: ("oge", "sge"),
}
"""Comparisons: (float predicate, integer predicate), computed in the promoted type."""

LOGICAL: dict[type[Operation], type[Operation]] = {
    aten.LogicalAndOp: arith.AndIOp,
    aten.LogicalOrOp: arith.OrIOp,
}


class ElementwiseLowerings(LoweringBase):
    def lower(self, op: aten.AtenOp) -> SSAValue:
        kind = type(op)
        if kind in UNARY:
            return self.elementwise(op, [op.input], UNARY[kind])
        if kind in BINARY:
            return self.elementwise(op, [op.operands[0], op.operands[1]], BINARY[kind])
        if kind in COMPARE:
            return self.compare(op, *COMPARE[kind])
        if kind in LOGICAL:
            return self.elementwise(op, [op.input, op.other], lambda b, a, _: b.insert(
                LOGICAL[kind](cast(b, a[0], i1), cast(b, a[1], i1))).results[0], compute_type=i1)
        return super().lower(op)

    def elementwise(
        self, op: Operation, operands: list[SSAValue], scalar: Scalar,
        compute_type: Attribute | None = None, extents: Sequence[SSAValue | None] | None = None,
    ) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        ct = compute_type or t.get_element_type()
        shape = t.get_shape()

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            args = [
                cast(b, self.load_broadcast(b, v, idx, shape), ct) if isinstance(v.type, TensorType)
                else cast(b, v, ct)
                for v in operands
            ]
            return cast(b, scalar(b, args, ct), t.get_element_type())

        if extents is None:
            extents = self.broadcast_extents(t, operands)
        return self.compute(t, extents, body)

    def compare(self, op: aten.AtenOp, fpred: str, ipred: str) -> SSAValue:
        operands = [op.operands[0], op.operands[1]]
        tensor_types = [aten.elem_of(v) for v in operands if isinstance(v.type, TensorType)]
        floats = [x for x in tensor_types if is_float(x)]
        if floats:
            ct = max(floats, key=width)
        elif any(is_float(v.type) for v in operands):
            ct = f64
        else:
            ct = max(tensor_types, key=width)

        def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
            if is_float(t):
                return b.insert(arith.CmpfOp(a[0], a[1], fpred)).result
            return b.insert(arith.CmpiOp(a[0], a[1], ipred)).result

        return self.elementwise(op, operands, scalar, compute_type=ct)

    def lower_AddTensor(self, op: aten.AtenOp) -> SSAValue:
        return self._add_sub(op, arith.AddfOp, arith.AddiOp)

    lower_AddScalar = lower_AddTensor

    def lower_SubTensor(self, op: aten.AtenOp) -> SSAValue:
        return self._add_sub(op, arith.SubfOp, arith.SubiOp)

    lower_SubScalar = lower_SubTensor
    lower_SubInplace = lower_SubTensor

    def _add_sub(self, op: aten.AtenOp, fop: type[Operation], iop: type[Operation]) -> SSAValue:
        alpha = op.alpha  # type: ignore[attr-defined]
        operands = [op.input, op.other] + ([alpha] if alpha is not None else [])  # type: ignore[attr-defined]

        def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
            x, y = a[0], a[1]
            if len(a) == 3:
                y = b.insert((arith.MulfOp if is_float(t) else arith.MuliOp)(y, a[2])).results[0]
            if isinstance(t, IntegerType) and t.width.data == 1:
                return b.insert(arith.OrIOp(x, y)).result  # bool + bool
            return b.insert((fop if is_float(t) else iop)(x, y)).results[0]

        return self.elementwise(op, operands, scalar)

    def lower_PowTensorScalar(self, op: aten.PowTensorScalarOp) -> SSAValue:
        exponent = constant_value(op.exponent)
        if isinstance(exponent, (int, float)) and float(exponent).is_integer() and abs(exponent) <= 8:
            n = int(exponent)
            if n < 0 and not is_float(aten.elem_of(op.result)):
                raise LoweringError(f"{op.name}: integers to a negative power (torch rejects it too)")

            def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
                if n == 0:
                    return const(b, 1, t)
                mul = arith.MulfOp if is_float(t) else arith.MuliOp
                result = a[0]
                for _ in range(abs(n) - 1):
                    result = b.insert(mul(result, a[0])).results[0]
                return reciprocal(b, [result], t) if n < 0 else result

            return self.elementwise(op, [op.input], scalar)
        if exponent == 0.5:
            return self.elementwise(op, [op.input], unary_math(xmath.SqrtOp))
        return self.elementwise(op, [op.input, op.exponent], power)

    def lower_DivTensorMode(self, op: aten.AtenOp) -> SSAValue:
        mode = op.properties.get("rounding_mode")
        scalar = true_div if mode is None else div_trunc if mode.data == "trunc" else div_floor  # type: ignore[attr-defined]
        return self.elementwise(op, [op.operands[0], op.operands[1]], scalar)

    lower_DivScalarMode = lower_DivTensorMode

    def lower_Clamp(self, op: aten.ClampOp) -> SSAValue:
        bounds = [v for v in (op.min, op.max) if v is not None]
        has_min, has_max = op.min is not None, op.max is not None

        def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
            x, rest = a[0], a[1:]
            if has_min:
                lo, rest = rest[0], rest[1:]
                x = b.insert((arith.MaximumfOp if is_float(t) else arith.MaxSIOp)(x, lo)).results[0]
            if has_max:
                x = b.insert((arith.MinimumfOp if is_float(t) else arith.MinSIOp)(x, rest[0])).results[0]
            return x

        return self.elementwise(op, [op.input, *bounds], scalar)

    def lower_WhereSelf(self, op: aten.WhereSelfOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        ct = t.get_element_type()
        shape = t.get_shape()

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            c = cast(b, self.load_broadcast(b, op.condition, idx, shape), i1)
            x = cast(b, self.load_broadcast(b, op.input, idx, shape), ct)
            y = cast(b, self.load_broadcast(b, op.other, idx, shape), ct)
            return b.insert(arith.SelectOp(c, x, y)).result

        return self.compute(t, self.broadcast_extents(t, [op.condition, op.input, op.other]), body)

    def lower_Isnan(self, op: aten.AtenOp) -> SSAValue:
        src = aten.elem_of(op.input)  # type: ignore[attr-defined]
        if not is_float(src):
            return self.compute(op.results[0].type, self.dims(op.input), lambda b, idx: const(b, 0, i1))  # type: ignore[attr-defined]
        return self.elementwise(op, [op.input], lambda b, a, _: b.insert(  # type: ignore[attr-defined]
            arith.CmpfOp(a[0], a[0], "uno")).result, compute_type=src)

    def lower_LogicalNot(self, op: aten.AtenOp) -> SSAValue:
        return self.elementwise(op, [op.input], lambda b, a, _: bitwise_not(b, [cast(b, a[0], i1)], i1), compute_type=i1)

    def _convert(self, op: aten.AtenOp, src: SSAValue, extents: Sequence[SSAValue] | None = None) -> SSAValue:
        """src broadcast to the result shape (of `extents`) and converted to its dtype;
        identity if same."""
        if src.type == op.results[0].type:
            return src
        return self.elementwise(op, [src], lambda b, a, t: a[0], extents=extents)

    def lower_Alias(self, op: aten.AtenOp) -> SSAValue:
        return self._convert(op, op.input)

    lower_Clone = lower_Alias
    lower_LiftFreshCopy = lower_Alias
    lower_ToCopy = lower_Alias

    def lower_Copy(self, op: aten.AtenOp) -> SSAValue:
        # the result has self's shape, which src may broadcast to
        return self._convert(op, op.src, self.dims(op.input))

    lower_CopyInplace = lower_Copy

