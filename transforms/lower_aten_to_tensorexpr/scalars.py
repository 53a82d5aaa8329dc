"""Scalar building blocks: constants, torch's conversions, and the scalar ops of
elementwise bodies (each takes the loaded operands and the compute type)."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

Scalar = Callable[[Builder, list[SSAValue], Attribute], SSAValue]


class LoweringError(Exception):
    """An aten op this lowering cannot express."""


# --------------------------------------------------------------------------- scalar helpers


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore[attr-defined]


def const(b: Builder, value: float | int | bool, t: Attribute) -> SSAValue:
    if is_float(t):
        if math.isnan(value):
            attr = FloatAttr(float("nan"), t)  # type: ignore[arg-type]
        else:
            attr = FloatAttr(float(value), t)  # type: ignore[arg-type]
    elif isinstance(t, IntegerType) and t.width.data == 1:
        attr = IntegerAttr(int(bool(value)), t)
    else:
        attr = IntegerAttr(int(value), t)  # type: ignore[arg-type]
    return b.insert(arith.ConstantOp(attr)).result


def cast(b: Builder, v: SSAValue, to: Attribute) -> SSAValue:
    """Convert a scalar as torch does (floats truncate toward zero, != 0 is true)."""
    src = v.type
    if src == to:
        return v
    if isinstance(src, IndexType):
        v = b.insert(arith.IndexCastOp(v, i64)).result
        return cast(b, v, to)
    if isinstance(to, IndexType):
        return b.insert(arith.IndexCastOp(cast(b, v, i64), IndexType())).result
    if isinstance(to, IntegerType) and to.width.data == 1:
        zero = const(b, 0, src)
        if is_float(src):
            return b.insert(arith.CmpfOp(v, zero, "une")).result
        return b.insert(arith.CmpiOp(v, zero, "ne")).result
    if is_float(src) and is_float(to):
        op = arith.ExtFOp if width(to) > width(src) else arith.TruncFOp
        return b.insert(op(v, to)).result
    if is_float(to):
        if width(src) == 1:
            return b.insert(arith.UIToFPOp(v, to)).result
        return b.insert(arith.SIToFPOp(v, to)).result
    if is_float(src):
        return b.insert(arith.FPToSIOp(v, to)).result
    if width(to) > width(src):
        op = arith.ExtUIOp if width(src) == 1 else arith.ExtSIOp
        return b.insert(op(v, to)).result
    return b.insert(arith.TruncIOp(v, to)).result


def binary(float_op: type[Operation], int_op: type[Operation] | None = None) -> Scalar:
    def build(b: Builder, args: list[SSAValue], t: Attribute) -> SSAValue:
        if is_float(t):
            return b.insert(float_op(args[0], args[1])).results[0]
        if int_op is None:
            raise LoweringError(f"no integer form of {float_op.name}")
        return b.insert(int_op(args[0], args[1])).results[0]

    return build


def unary_math(op: type[Operation]) -> Scalar:
    return lambda b, a, t: b.insert(op(a[0])).results[0]


def _neg(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if is_float(t):
        return b.insert(arith.NegfOp(a[0])).result
    return b.insert(arith.SubiOp(const(b, 0, t), a[0])).result


def _abs(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if is_float(t):
        return b.insert(xmath.AbsFOp(a[0])).result
    return b.insert(xmath.AbsIOp(a[0])).result


def _recip(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    return b.insert(arith.DivfOp(const(b, 1.0, t), a[0])).result


def _sigmoid(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    e = b.insert(xmath.ExpOp(_neg(b, a, t))).result
    s = b.insert(arith.AddfOp(const(b, 1.0, t), e)).result
    return _recip(b, [s], t)


def _relu(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    zero = const(b, 0, t)
    if is_float(t):
        # NaN-propagating, like torch.relu
        return b.insert(arith.MaximumfOp(a[0], zero)).result
    return b.insert(arith.MaxSIOp(a[0], zero)).result


def _sign(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    zero = const(b, 0, t)
    if is_float(t):
        pos = cast(b, b.insert(arith.CmpfOp(a[0], zero, "ogt")).result, t)
        neg = cast(b, b.insert(arith.CmpfOp(a[0], zero, "olt")).result, t)
        d = b.insert(arith.SubfOp(pos, neg)).result
        nan = b.insert(arith.CmpfOp(a[0], a[0], "uno")).result
        return b.insert(arith.SelectOp(nan, a[0], d)).result
    pos = cast(b, b.insert(arith.CmpiOp(a[0], zero, "sgt")).result, t)
    neg = cast(b, b.insert(arith.CmpiOp(a[0], zero, "slt")).result, t)
    return b.insert(arith.SubiOp(pos, neg)).result


def _not(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    return b.insert(arith.XOrIOp(a[0], const(b, -1 if width(t) > 1 else 1, t))).result


def _pow(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    base, exp = a
    if is_float(t):
        return b.insert(xmath.PowFOp(base, exp)).result
    return b.insert(xmath.IPowIOp(base, exp)).result


def _div(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if not is_float(t):
        raise LoweringError("true division with an integer result")
    return b.insert(arith.DivfOp(a[0], a[1])).result



def constant_value(v: SSAValue | None) -> int | float | bool | None:
    if v is None or not isinstance(v.owner, arith.ConstantOp):
        return None
    attr = v.owner.value
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return None


def same_extent(a: SSAValue, b: SSAValue) -> bool:
    return a is b or (constant_value(a) is not None and constant_value(a) == constant_value(b))

