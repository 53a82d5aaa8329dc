"""Scalar building blocks: constants, torch's conversions, and the scalar ops of
elementwise bodies (each takes the loaded operands and the compute type)."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith, llvm
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


def scalar_attr(value: float | int | bool, t: Attribute) -> FloatAttr | IntegerAttr:
    """`value` as an attribute of scalar type t (what an arith.constant holds)."""
    if is_float(t):
        return FloatAttr(float("nan") if math.isnan(value) else float(value), t)  # type: ignore[arg-type]
    if isinstance(t, IntegerType) and t.width.data == 1:
        return IntegerAttr(int(bool(value)), t)
    return IntegerAttr(int(value), t)  # type: ignore[arg-type]


def const(b: Builder, value: float | int | bool, t: Attribute) -> SSAValue:
    return b.insert(arith.ConstantOp(scalar_attr(value, t))).result


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


_UNSIGNED_ON_BOOL = {arith.MaxSIOp: arith.MaxUIOp, arith.MinSIOp: arith.MinUIOp}
"""On i1, true is -1 signed: max/min of bools compare unsigned (false < true), as torch."""


def binary(float_op: type[Operation], int_op: type[Operation] | None = None) -> Scalar:
    def build(b: Builder, args: list[SSAValue], t: Attribute) -> SSAValue:
        if is_float(t):
            return b.insert(float_op(args[0], args[1])).results[0]
        if int_op is None:
            raise LoweringError(f"no integer form of {float_op.name}")
        op = _UNSIGNED_ON_BOOL.get(int_op, int_op) if width(t) == 1 else int_op
        return b.insert(op(args[0], args[1])).results[0]

    return build


def unary_math(op: type[Operation]) -> Scalar:
    return lambda b, a, t: b.insert(op(a[0])).results[0]


def neg(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if is_float(t):
        return b.insert(arith.NegfOp(a[0])).result
    return b.insert(arith.SubiOp(const(b, 0, t), a[0])).result


def absolute(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if is_float(t):
        return b.insert(xmath.AbsFOp(a[0])).result
    return b.insert(xmath.AbsIOp(a[0])).result


def reciprocal(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    return b.insert(arith.DivfOp(const(b, 1.0, t), a[0])).result


def sigmoid(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    e = b.insert(xmath.ExpOp(neg(b, a, t))).result
    s = b.insert(arith.AddfOp(const(b, 1.0, t), e)).result
    return reciprocal(b, [s], t)


def relu(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    zero = const(b, 0, t)
    if is_float(t):
        # NaN-propagating, like torch.relu
        return b.insert(arith.MaximumfOp(a[0], zero)).result
    return b.insert(arith.MaxSIOp(a[0], zero)).result


def sign(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
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


def bitwise_not(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    return b.insert(arith.XOrIOp(a[0], const(b, -1 if width(t) > 1 else 1, t))).result


def power(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    base, exp = a
    if is_float(t):
        return b.insert(xmath.PowFOp(base, exp)).result
    return b.insert(xmath.IPowIOp(base, exp)).result


def rounding(op: type[Operation]) -> Scalar:
    """floor/ceil/round/trunc: integers are already whole."""
    return lambda b, a, t: b.insert(op(a[0])).results[0] if is_float(t) else a[0]


def fmod(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    """C's fmod (exact; arith has no float remainder: LLVM's frem is C's fmod)."""
    if is_float(t):
        return b.insert(llvm.FRemOp(a[0], a[1])).results[0]
    return b.insert(arith.RemSIOp(a[0], a[1])).result


def remainder(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    """Python's %: fmod, plus the divisor when the signs of both differ."""
    r = fmod(b, a, t)
    zero = const(b, 0, t)
    if is_float(t):
        nonzero = b.insert(arith.CmpfOp(r, zero, "une")).result
        differ = b.insert(arith.XOrIOp(b.insert(arith.CmpfOp(r, zero, "olt")).result,
                                       b.insert(arith.CmpfOp(a[1], zero, "olt")).result)).result
        fixed = b.insert(arith.AddfOp(r, a[1])).result
    else:
        nonzero = b.insert(arith.CmpiOp(r, zero, "ne")).result
        differ = b.insert(arith.XOrIOp(b.insert(arith.CmpiOp(r, zero, "slt")).result,
                                       b.insert(arith.CmpiOp(a[1], zero, "slt")).result)).result
        fixed = b.insert(arith.AddiOp(r, a[1])).result
    return b.insert(arith.SelectOp(b.insert(arith.AndIOp(nonzero, differ)).result, fixed, r)).result


def div_trunc(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if not is_float(t):
        return b.insert(arith.DivSIOp(a[0], a[1])).result
    return b.insert(xmath.TruncOp(b.insert(arith.DivfOp(a[0], a[1])).result)).result


def div_floor(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    """torch's floor division (c10 div_floor_floating): exact where floor(a / b)
    would round a quotient just below an integer up to it."""
    if not is_float(t):
        return b.insert(arith.FloorDivSIOp(a[0], a[1])).result
    x, y = a
    zero, one, half = const(b, 0, t), const(b, 1, t), const(b, 0.5, t)
    mod = fmod(b, [x, y], t)
    div = b.insert(arith.DivfOp(b.insert(arith.SubfOp(x, mod)).result, y)).result
    differ = b.insert(arith.XOrIOp(b.insert(arith.CmpfOp(y, zero, "olt")).result,
                                   b.insert(arith.CmpfOp(mod, zero, "olt")).result)).result
    fix = b.insert(arith.AndIOp(b.insert(arith.CmpfOp(mod, zero, "une")).result, differ)).result
    div = b.insert(arith.SelectOp(fix, b.insert(arith.SubfOp(div, one)).result, div)).result
    floor = b.insert(xmath.FloorOp(div)).result
    up = b.insert(arith.CmpfOp(b.insert(arith.SubfOp(div, floor)).result, half, "ogt")).result
    floor = b.insert(arith.SelectOp(up, b.insert(arith.AddfOp(floor, one)).result, floor)).result
    true_div = b.insert(arith.DivfOp(x, y)).result
    signed_zero = b.insert(xmath.CopySignOp(zero, true_div)).result
    at_zero = b.insert(arith.CmpfOp(div, zero, "oeq")).result
    result = b.insert(arith.SelectOp(at_zero, signed_zero, floor)).result
    by_zero = b.insert(arith.CmpfOp(y, zero, "oeq")).result
    return b.insert(arith.SelectOp(by_zero, true_div, result)).result


def true_div(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
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

