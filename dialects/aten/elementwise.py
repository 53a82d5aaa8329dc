"""Elementwise ops: unary, binary (tensor and scalar operands), pow, clamp, where,
and the copies and in-place ops that become elementwise values."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    TENSOR,
    AlphaBinaryOp,
    AtenOp,
    BinaryOp,
    CompareOp,
    CompareScalarOp,
    FloatUnaryOp,
    ScalarOp,
    ScalarT,
    Shape,
    TensorOut,
    UnaryOp,
    _binary,
    _unary,
    broadcast,
    elem_of,
    is_bool,
    shape_of,
)

NegOp = _unary("NegOp", "neg", UnaryOp, "-self")
AbsOp = _unary("AbsOp", "abs", UnaryOp, "|self|")
SignOp = _unary("SignOp", "sign", UnaryOp, "sign(self)")
ReluOp = _unary("ReluOp", "relu", UnaryOp, "max(self, 0)")
BitwiseNotOp = _unary("BitwiseNotOp", "bitwise_not", UnaryOp, "~self (logical not on i1)")
LogicalNotOp = _unary("LogicalNotOp", "logical_not", UnaryOp, "not self, as i1")
IsnanOp = _unary("IsnanOp", "isnan", UnaryOp, "self != self, as i1")
AliasOp = _unary("AliasOp", "alias", UnaryOp, "the same value (views have value semantics)")
CloneOp = _unary("CloneOp", "clone", UnaryOp, "a copy")
LiftFreshCopyOp = _unary("LiftFreshCopyOp", "lift_fresh_copy", UnaryOp, "a copy of a constant")
ToCopyOp = _unary("ToCopyOp", "_to_copy", UnaryOp, "a copy converted to the result dtype")
ReciprocalOp = _unary("ReciprocalOp", "reciprocal", FloatUnaryOp, "1 / self")
SqrtOp = _unary("SqrtOp", "sqrt", FloatUnaryOp, "sqrt(self)")
RsqrtOp = _unary("RsqrtOp", "rsqrt", FloatUnaryOp, "1 / sqrt(self)")
ExpOp = _unary("ExpOp", "exp", FloatUnaryOp, "e ** self")
Expm1Op = _unary("Expm1Op", "expm1", FloatUnaryOp, "e ** self - 1")
LogOp = _unary("LogOp", "log", FloatUnaryOp, "ln(self)")
Log1pOp = _unary("Log1pOp", "log1p", FloatUnaryOp, "ln(1 + self)")
SinOp = _unary("SinOp", "sin", FloatUnaryOp, "sin(self)")
CosOp = _unary("CosOp", "cos", FloatUnaryOp, "cos(self)")
TanhOp = _unary("TanhOp", "tanh", FloatUnaryOp, "tanh(self)")
SigmoidOp = _unary("SigmoidOp", "sigmoid", FloatUnaryOp, "1 / (1 + e ** -self)")
ErfOp = _unary("ErfOp", "erf", FloatUnaryOp, "the error function")
AcosOp = _unary("AcosOp", "acos", FloatUnaryOp, "arccos(self)")
AcoshOp = _unary("AcoshOp", "acosh", FloatUnaryOp, "arcosh(self)")
AsinOp = _unary("AsinOp", "asin", FloatUnaryOp, "arcsin(self)")
AsinhOp = _unary("AsinhOp", "asinh", FloatUnaryOp, "arsinh(self)")
AtanOp = _unary("AtanOp", "atan", FloatUnaryOp, "arctan(self)")
AtanhOp = _unary("AtanhOp", "atanh", FloatUnaryOp, "artanh(self)")
CoshOp = _unary("CoshOp", "cosh", FloatUnaryOp, "cosh(self)")
SinhOp = _unary("SinhOp", "sinh", FloatUnaryOp, "sinh(self)")
TanOp = _unary("TanOp", "tan", FloatUnaryOp, "tan(self)")
Log2Op = _unary("Log2Op", "log2", FloatUnaryOp, "log2(self)")
Log10Op = _unary("Log10Op", "log10", FloatUnaryOp, "log10(self)")
CeilOp = _unary("CeilOp", "ceil", UnaryOp, "the least integer >= self (integers unchanged)")
FloorOp = _unary("FloorOp", "floor", UnaryOp, "the greatest integer <= self (integers unchanged)")
RoundOp = _unary("RoundOp", "round", UnaryOp, "self rounded half to even (integers unchanged)")
TruncOp = _unary("TruncOp", "trunc", UnaryOp, "self rounded toward zero (integers unchanged)")


AddTensorOp = _binary("AddTensorOp", "add.Tensor", AlphaBinaryOp, "self + alpha * other")
SubTensorOp = _binary("SubTensorOp", "sub.Tensor", AlphaBinaryOp, "self - alpha * other")
MulTensorOp = _binary("MulTensorOp", "mul.Tensor", BinaryOp, "self * other")
DivTensorOp = _binary("DivTensorOp", "div.Tensor", BinaryOp, "self / other (true division)")
MaximumOp = _binary("MaximumOp", "maximum", BinaryOp, "max(self, other), NaN-propagating")
MinimumOp = _binary("MinimumOp", "minimum", BinaryOp, "min(self, other), NaN-propagating")
Atan2Op = _binary("Atan2Op", "atan2", BinaryOp, "atan2(self, other)")
BitwiseAndTensorOp = _binary("BitwiseAndTensorOp", "bitwise_and.Tensor", BinaryOp, "self & other")
BitwiseOrTensorOp = _binary("BitwiseOrTensorOp", "bitwise_or.Tensor", BinaryOp, "self | other")
BitwiseXorTensorOp = _binary("BitwiseXorTensorOp", "bitwise_xor.Tensor", BinaryOp, "self ^ other")
FmodTensorOp = _binary("FmodTensorOp", "fmod.Tensor", BinaryOp, "C's fmod: the remainder has the sign of self")
RemainderTensorOp = _binary("RemainderTensorOp", "remainder.Tensor", BinaryOp, "Python's %: the sign of other")
LogicalAndOp = _binary("LogicalAndOp", "logical_and", CompareOp, "self and other, as i1")
LogicalOrOp = _binary("LogicalOrOp", "logical_or", CompareOp, "self or other, as i1")
EqTensorOp = _binary("EqTensorOp", "eq.Tensor", CompareOp, "self == other")
NeTensorOp = _binary("NeTensorOp", "ne.Tensor", CompareOp, "self != other")
LtTensorOp = _binary("LtTensorOp", "lt.Tensor", CompareOp, "self < other")
LeTensorOp = _binary("LeTensorOp", "le.Tensor", CompareOp, "self <= other")
GtTensorOp = _binary("GtTensorOp", "gt.Tensor", CompareOp, "self > other")
GeTensorOp = _binary("GeTensorOp", "ge.Tensor", CompareOp, "self >= other")

MulScalarOp = _binary("MulScalarOp", "mul.Scalar", ScalarOp, "self * other")
DivScalarOp = _binary("DivScalarOp", "div.Scalar", ScalarOp, "self / other (true division)")
EqScalarOp = _binary("EqScalarOp", "eq.Scalar", CompareScalarOp, "self == other")
NeScalarOp = _binary("NeScalarOp", "ne.Scalar", CompareScalarOp, "self != other")
LtScalarOp = _binary("LtScalarOp", "lt.Scalar", CompareScalarOp, "self < other")
LeScalarOp = _binary("LeScalarOp", "le.Scalar", CompareScalarOp, "self <= other")
GtScalarOp = _binary("GtScalarOp", "gt.Scalar", CompareScalarOp, "self > other")
GeScalarOp = _binary("GeScalarOp", "ge.Scalar", CompareScalarOp, "self >= other")
BitwiseAndScalarOp = _binary("BitwiseAndScalarOp", "bitwise_and.Scalar", ScalarOp, "self & other")
BitwiseOrScalarOp = _binary("BitwiseOrScalarOp", "bitwise_or.Scalar", ScalarOp, "self | other")
BitwiseXorScalarOp = _binary("BitwiseXorScalarOp", "bitwise_xor.Scalar", ScalarOp, "self ^ other")
FmodScalarOp = _binary("FmodScalarOp", "fmod.Scalar", ScalarOp, "C's fmod: the remainder has the sign of self")
RemainderScalarOp = _binary("RemainderScalarOp", "remainder.Scalar", ScalarOp, "Python's %: the sign of other")


class RoundingMode:
    """div with `rounding_mode` "trunc" or "floor" (absent: true division)."""

    rounding_mode = opt_prop_def(StringAttr)

    def verify_(self) -> None:
        super().verify_()  # type: ignore[misc]
        mode = self.properties.get("rounding_mode")  # type: ignore[attr-defined]
        if mode is not None and mode.data not in ("trunc", "floor"):  # type: ignore[attr-defined]
            raise VerifyException(f"{self.name}: rounding_mode must be trunc or floor")  # type: ignore[attr-defined]


DivTensorModeOp = _binary("DivTensorModeOp", "div.Tensor_mode", type("_DivT", (RoundingMode, BinaryOp), {}),
                          "self / other rounded as rounding_mode says")
DivScalarModeOp = _binary("DivScalarModeOp", "div.Scalar_mode", type("_DivS", (RoundingMode, ScalarOp), {}),
                          "self / other rounded as rounding_mode says")


class AlphaScalarOp(ScalarOp):
    alpha = opt_operand_def(ScalarT)
    assembly_format = (
        "$input `,` $other (`alpha` $alpha^ `:` type($alpha))? attr-dict `:` "
        "type($input) `,` type($other) `->` type($result)"
    )


AddScalarOp = _binary("AddScalarOp", "add.Scalar", AlphaScalarOp, "self + alpha * other")
SubScalarOp = _binary("SubScalarOp", "sub.Scalar", AlphaScalarOp, "self - alpha * other")


@irdl_op_definition
class PowTensorTensorOp(AtenOp):
    """self ** exponent, with broadcasting."""

    name = "aten.pow.Tensor_Tensor"
    input = operand_def(TensorOut)
    exponent = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $exponent attr-dict `:` type($input) `,` type($exponent) "
        "`->` type($result)"
    )

    def infer_shape(self) -> Shape:
        return broadcast(shape_of(self.input), shape_of(self.exponent))


@irdl_op_definition
class PowTensorScalarOp(AtenOp):
    """self ** exponent."""

    name = "aten.pow.Tensor_Scalar"
    input = operand_def(TensorOut)
    exponent = operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $exponent attr-dict `:` type($input) `,` type($exponent) "
        "`->` type($result)"
    )

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


@irdl_op_definition
class PowScalarOp(AtenOp):
    """scalar ** exponent."""

    name = "aten.pow.Scalar"
    input = operand_def(ScalarT)
    exponent = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $exponent attr-dict `:` type($input) `,` type($exponent) "
        "`->` type($result)"
    )

    def infer_shape(self) -> Shape:
        return shape_of(self.exponent)


@irdl_op_definition
class ClampOp(AtenOp):
    """min(max(self, min), max); either bound may be absent."""

    name = "aten.clamp"
    input = operand_def(TensorOut)
    min = opt_operand_def(ScalarT)
    max = opt_operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input (`min` $min^ `:` type($min))? (`max` $max^ `:` type($max))? "
        "attr-dict `:` " + TENSOR
    )

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


@irdl_op_definition
class ClampMinTensorOp(AtenOp):
    """max(self, min) with broadcasting, NaN-propagating (cosine_similarity's norms; a
    direct clamp_min.Tensor call is decomposed by torch)."""

    name = "aten.clamp_min.Tensor"
    input = operand_def(TensorOut)
    min = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = "$input `,` $min attr-dict `:` type($input) `,` type($min) `->` type($result)"

    def infer_shape(self) -> Shape:
        return broadcast(shape_of(self.input), shape_of(self.min))


@irdl_op_definition
class WhereSelfOp(AtenOp):
    """condition ? self : other, with broadcasting."""

    name = "aten.where.self"
    condition = operand_def(TensorOut)
    input = operand_def(TensorOut)
    other = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$condition `,` $input `,` $other attr-dict `:` type($condition) `,` "
        "type($input) `,` type($other) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        if not is_bool(elem_of(self.condition)):
            raise VerifyException(f"{self.name}: condition must be a tensor of i1")
        return broadcast(
            shape_of(self.condition), shape_of(self.input), shape_of(self.other)
        )


# --------------------------------------------------------------------------- in place


class CopyLike(AtenOp):
    """src broadcast to self's shape and converted to its dtype."""

    input = operand_def(TensorOut)
    src = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $src attr-dict `:` type($input) `,` type($src) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        broadcast(shape_of(self.input), shape_of(self.src))
        return shape_of(self.input)


CopyOp = _binary("CopyOp", "copy", CopyLike, "the functional form of copy_")
CopyInplaceOp = _binary(
    "CopyInplaceOp", "copy_", CopyLike, "copy_: the result is the new value of self"
)


@irdl_op_definition
class SubInplaceOp(AlphaBinaryOp):
    """sub_.Tensor: with value semantics the result is the new value of `self`."""

    name = "aten.sub_.Tensor"


ELEMENTWISE_OPS: tuple[type[AtenOp], ...] = (
    NegOp,
    AbsOp,
    SignOp,
    ReluOp,
    BitwiseNotOp,
    LogicalNotOp,
    IsnanOp,
    AliasOp,
    CloneOp,
    LiftFreshCopyOp,
    ToCopyOp,
    ReciprocalOp,
    SqrtOp,
    RsqrtOp,
    ExpOp,
    Expm1Op,
    LogOp,
    Log1pOp,
    SinOp,
    CosOp,
    TanhOp,
    SigmoidOp,
    ErfOp,
    AcosOp,
    AcoshOp,
    AsinOp,
    AsinhOp,
    AtanOp,
    AtanhOp,
    CoshOp,
    SinhOp,
    TanOp,
    Log2Op,
    Log10Op,
    CeilOp,
    FloorOp,
    RoundOp,
    TruncOp,
    AddTensorOp,
    SubTensorOp,
    MulTensorOp,
    DivTensorOp,
    MaximumOp,
    MinimumOp,
    ClampMinTensorOp,
    Atan2Op,
    BitwiseAndTensorOp,
    BitwiseOrTensorOp,
    BitwiseXorTensorOp,
    FmodTensorOp,
    RemainderTensorOp,
    LogicalAndOp,
    LogicalOrOp,
    EqTensorOp,
    NeTensorOp,
    LtTensorOp,
    LeTensorOp,
    GtTensorOp,
    GeTensorOp,
    MulScalarOp,
    DivScalarOp,
    EqScalarOp,
    NeScalarOp,
    LtScalarOp,
    LeScalarOp,
    GtScalarOp,
    GeScalarOp,
    BitwiseAndScalarOp,
    BitwiseOrScalarOp,
    BitwiseXorScalarOp,
    FmodScalarOp,
    RemainderScalarOp,
    DivTensorModeOp,
    DivScalarModeOp,
    AddScalarOp,
    SubScalarOp,
    PowTensorTensorOp,
    PowTensorScalarOp,
    PowScalarOp,
    ClampOp,
    WhereSelfOp,
    CopyOp,
    CopyInplaceOp,
    SubInplaceOp,
)
