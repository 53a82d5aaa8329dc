"""The `aten` dialect: one op per ATen overload, with value semantics.

Each op mirrors its ATen schema one to one, so that import from FX and reference
execution are both driven by the schema rather than by per-op code:

- `Tensor` arguments are tensor operands, `Tensor[]` / `Tensor?[]` variadic ones;
- `Scalar` arguments are scalar SSA operands (f64, i64, i1 or index), so a size
  computed at run time can be a scalar too (e.g. `div.Scalar(x, numel)`);
- `SymInt` arguments are `index` operands, `SymInt[]` variadic `index` operands;
- `int`, `int[]`, `bool` and `float` arguments are properties;
- arguments left at their schema default are absent (optional operand/property);
- dtype, layout, device and memory format are carried by the result type.

Symbolic sizes are `?` in tensor types; their values are SSA `index` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I1,
    I64,
    AnyFloat,
    DenseArrayBase,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    base,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

Shape = tuple[int, ...]
DYN = DYNAMIC_INDEX

ScalarT = base(Float64Type) | base(IntegerType) | base(IndexType)
"""Scalars: f64 for Python floats, i64 for ints, i1 for bools, index for SymInts."""


# --------------------------------------------------------------------------- helpers


def shape_of(value: SSAValue | Attribute) -> Shape:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def elem_of(value: SSAValue | Attribute) -> Attribute:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return t.get_element_type()


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def fmt(shape: Sequence[int]) -> str:
    return "x".join("?" if d == DYN else str(d) for d in shape) or "()"


def broadcast(*shapes: Shape) -> Shape:
    """NumPy broadcasting with `?`: a `?` against n > 1 is n, against `?` is `?`."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0}
        static = {d for d in dims if d not in (1, DYN)}
        if len(static) > 1:
            raise VerifyException(
                f"shapes {', '.join(fmt(s) for s in shapes)} do not broadcast"
            )
        out.append(static.pop() if static else (DYN if DYN in dims else 1))
    return tuple(out)


def same_dim(op: IRDLOperation, what: str, *dims: int) -> int:
    """Dims that must be equal, without broadcasting: `?` matches anything."""
    static = {d for d in dims if d != DYN}
    if len(static) > 1:
        raise VerifyException(
            f"{op.name}: {what} {', '.join(fmt((d,)) for d in dims)} differ"
        )
    return static.pop() if static else DYN


def check_shape(op: IRDLOperation, expected: Sequence[int], actual: Sequence[int]):
    """`expected` static dims must match; `?` in `expected` admits anything."""
    if len(expected) != len(actual) or any(
        e != DYN and a != DYN and e != a for e, a in zip(expected, actual)
    ):
        raise VerifyException(
            f"{op.name}: result shape {fmt(actual)} does not match the inferred "
            f"shape {fmt(expected)}"
        )


def norm_dim(op: IRDLOperation, dim: int, rank: int) -> int:
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise VerifyException(f"{op.name}: dim {dim} out of range for rank {rank}")
    return dim % max(rank, 1)


def int_prop(op: IRDLOperation, name: str, default: int) -> int:
    attr = op.properties.get(name)
    return default if attr is None else attr.value.data  # pyright: ignore


def ints_prop(op: IRDLOperation, name: str) -> tuple[int, ...] | None:
    attr = op.properties.get(name)
    return None if attr is None else tuple(attr.get_values())  # pyright: ignore


def bool_prop(op: IRDLOperation, name: str) -> bool:
    attr = op.properties.get(name)
    return attr is not None and bool(attr.value.data)  # pyright: ignore


# --------------------------------------------------------------------------- base


class AtenOp(IRDLOperation):
    """Base of every op: the ATen overload it mirrors, and per-family shape checks."""

    @classmethod
    def overload(cls) -> str:
        """`aten.add.Tensor` mirrors the overload `add.Tensor`."""
        return cls.name.removeprefix("aten.")

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    traits = traits_def(Pure())

    def infer_shape(self) -> Shape | None:
        """The result shape implied by the operands (`?` where only known at run time)."""
        return None

    def verify_(self) -> None:
        expected = self.infer_shape()
        if expected is not None:
            check_shape(self, expected, shape_of(self.results[0]))


TensorOut = TensorType[Attribute]
TENSOR = "type($input) `->` type($result)"


class UnaryOp(AtenOp):
    """Elementwise `f(self)`."""

    input = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


class FloatUnaryOp(UnaryOp):
    """Elementwise transcendental: the result is floating point."""

    def verify_(self) -> None:
        super().verify_()
        if not is_float(elem_of(self.result)):
            raise VerifyException(f"{self.name}: result must be floating point")


class BinaryOp(AtenOp):
    """Elementwise `f(self, other)` with broadcasting."""

    input = operand_def(TensorOut)
    other = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $other attr-dict `:` type($input) `,` type($other) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        return broadcast(shape_of(self.input), shape_of(self.other))


class AlphaBinaryOp(BinaryOp):
    """`self op alpha * other`, as add.Tensor and sub.Tensor."""

    alpha = opt_operand_def(ScalarT)
    assembly_format = (
        "$input `,` $other (`alpha` $alpha^ `:` type($alpha))? attr-dict `:` "
        "type($input) `,` type($other) `->` type($result)"
    )


class CompareOp(BinaryOp):
    """Elementwise comparison: the result is i1."""

    def verify_(self) -> None:
        super().verify_()
        if not is_bool(elem_of(self.result)):
            raise VerifyException(f"{self.name}: result must be a tensor of i1")


class ScalarOp(AtenOp):
    """Elementwise `f(self, scalar)`."""

    input = operand_def(TensorOut)
    other = operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $other attr-dict `:` type($input) `,` type($other) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


class CompareScalarOp(ScalarOp):
    def verify_(self) -> None:
        super().verify_()
        if not is_bool(elem_of(self.result)):
            raise VerifyException(f"{self.name}: result must be a tensor of i1")


# --------------------------------------------------------------------------- elementwise


def _unary(cls_name: str, op_name: str, base: type[UnaryOp], doc: str) -> type[AtenOp]:
    cls = type(
        cls_name,
        (base,),
        {"name": f"aten.{op_name}", "__doc__": doc},
    )
    return irdl_op_definition(cls)


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


def _binary(cls_name: str, overload: str, base: type[AtenOp], doc: str) -> type[AtenOp]:
    cls = type(
        cls_name,
        (base,),
        {"name": f"aten.{overload}", "__doc__": doc},
    )
    return irdl_op_definition(cls)


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


# --------------------------------------------------------------------------- reductions


class ReduceOp(AtenOp):
    """Reduction over `dim` (all dims when absent), keeping them as 1 if `keepdim`."""

    input = operand_def(TensorOut)
    dim = opt_prop_def(DenseArrayBase[I64])
    keepdim = opt_prop_def(IntegerAttr[I1])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def reduced_dims(self) -> set[int]:
        shape = shape_of(self.input)
        dims = ints_prop(self, "dim")
        if not dims:  # torch: None or [] reduce everything
            return set(range(len(shape)))
        return {norm_dim(self, d, len(shape)) for d in dims}

    def infer_shape(self) -> Shape:
        shape, dims = shape_of(self.input), self.reduced_dims()
        if bool_prop(self, "keepdim"):
            return tuple(1 if i in dims else d for i, d in enumerate(shape))
        return tuple(d for i, d in enumerate(shape) if i not in dims)


SumDimIntListOp = _binary("SumDimIntListOp", "sum.dim_IntList", ReduceOp, "sum over dim")
MeanDimOp = _binary("MeanDimOp", "mean.dim", ReduceOp, "mean over dim")
AmaxOp = _binary("AmaxOp", "amax", ReduceOp, "max over dim")
AminOp = _binary("AminOp", "amin", ReduceOp, "min over dim")


class FullReduceOp(AtenOp):
    input = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        return ()


SumOp = _binary("SumOp", "sum", FullReduceOp, "sum of all elements")
MeanOp = _binary("MeanOp", "mean", FullReduceOp, "mean of all elements")


@irdl_op_definition
class LinalgVectorNormOp(ReduceOp):
    """(sum |x| ** ord) ** (1 / ord) over dim; ord defaults to 2."""

    name = "aten.linalg_vector_norm"
    ord = opt_operand_def(ScalarT)
    assembly_format = "$input (`ord` $ord^ `:` type($ord))? attr-dict `:` " + TENSOR


# --------------------------------------------------------------------------- matmul


@irdl_op_definition
class MmOp(AtenOp):
    """Matrix product (M x K) @ (K x N)."""

    name = "aten.mm"
    input = operand_def(TensorOut)
    mat2 = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $mat2 attr-dict `:` type($input) `,` type($mat2) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        a, b = shape_of(self.input), shape_of(self.mat2)
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(f"{self.name}: operands must be matrices")
        same_dim(self, "inner dims", a[1], b[0])
        return (a[0], b[1])


@irdl_op_definition
class BmmOp(AtenOp):
    """Batched matrix product (B x M x K) @ (B x K x N)."""

    name = "aten.bmm"
    input = operand_def(TensorOut)
    mat2 = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $mat2 attr-dict `:` type($input) `,` type($mat2) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        a, b = shape_of(self.input), shape_of(self.mat2)
        if len(a) != 3 or len(b) != 3:
            raise VerifyException(f"{self.name}: operands must be rank 3")
        same_dim(self, "inner dims", a[2], b[1])
        return (same_dim(self, "batch dims", a[0], b[0]), a[1], b[2])


@irdl_op_definition
class AddmmOp(AtenOp):
    """beta * self + alpha * (mat1 @ mat2)."""

    name = "aten.addmm"
    input = operand_def(TensorOut)
    mat1 = operand_def(TensorOut)
    mat2 = operand_def(TensorOut)
    beta = opt_operand_def(ScalarT)
    alpha = opt_operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $mat1 `,` $mat2 (`beta` $beta^ `:` type($beta))? "
        "(`alpha` $alpha^ `:` type($alpha))? attr-dict `:` type($input) `,` "
        "type($mat1) `,` type($mat2) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        a, b = shape_of(self.mat1), shape_of(self.mat2)
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(f"{self.name}: mat1 and mat2 must be matrices")
        same_dim(self, "inner dims", a[1], b[0])
        return broadcast(shape_of(self.input), (a[0], b[1]))


# --------------------------------------------------------------------------- views


class SizedOp(AtenOp):
    """An op with a `SymInt[] size`: the result rank is the number of sizes."""

    size = var_operand_def(IndexType)

    def infer_shape(self) -> Shape | None:
        if len(self.size) != len(shape_of(self.results[0])):
            raise VerifyException(
                f"{self.name}: {len(self.size)} sizes for a result of rank "
                f"{len(shape_of(self.results[0]))}"
            )
        return None


@irdl_op_definition
class ViewOp(SizedOp):
    """Reshape of a contiguous tensor; one size may be -1."""

    name = "aten.view"
    input = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = "$input `,` `[` $size `]` attr-dict `:` " + TENSOR


@irdl_op_definition
class UnsafeViewOp(SizedOp):
    """Reshape, as view."""

    name = "aten._unsafe_view"
    input = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = "$input `,` `[` $size `]` attr-dict `:` " + TENSOR


@irdl_op_definition
class ExpandOp(SizedOp):
    """Broadcast to `size` (-1 keeps a dim)."""

    name = "aten.expand"
    input = operand_def(TensorOut)
    implicit = opt_prop_def(IntegerAttr[I1])
    result = result_def(TensorOut)
    assembly_format = "$input `,` `[` $size `]` attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape | None:
        super().infer_shape()
        if len(shape_of(self.input)) > len(self.size):
            raise VerifyException(f"{self.name}: cannot expand to a lower rank")
        return None


@irdl_op_definition
class PermuteOp(AtenOp):
    """Transpose by the permutation `dims`."""

    name = "aten.permute"
    input = operand_def(TensorOut)
    dims = prop_def(DenseArrayBase[I64])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        shape = shape_of(self.input)
        perm = [norm_dim(self, d, len(shape)) for d in ints_prop(self, "dims") or ()]
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(f"{self.name}: dims {perm} is not a permutation")
        return tuple(shape[p] for p in perm)


@irdl_op_definition
class UnsqueezeOp(AtenOp):
    """Insert a dim of size 1 at `dim`."""

    name = "aten.unsqueeze"
    input = operand_def(TensorOut)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        shape = shape_of(self.input)
        d = norm_dim(self, int_prop(self, "dim", 0), len(shape) + 1)
        return shape[:d] + (1,) + shape[d:]


@irdl_op_definition
class SqueezeDimsOp(AtenOp):
    """Remove the size-1 dims among `dim`."""

    name = "aten.squeeze.dims"
    input = operand_def(TensorOut)
    dim = prop_def(DenseArrayBase[I64])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        shape = shape_of(self.input)
        dims = {norm_dim(self, d, len(shape)) for d in ints_prop(self, "dim") or ()}
        return tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))


@irdl_op_definition
class SelectIntOp(AtenOp):
    """The slice at `index` along `dim`, which is removed."""

    name = "aten.select.int"
    input = operand_def(TensorOut)
    index = operand_def(IndexType)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = "$input `,` $index attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        shape = shape_of(self.input)
        d = norm_dim(self, int_prop(self, "dim", 0), len(shape))
        return shape[:d] + shape[d + 1 :]


class SliceLike(AtenOp):
    """Python slicing `start:end:step` along `dim` (default 0)."""

    dim = opt_prop_def(IntegerAttr[I64])
    start = opt_operand_def(IndexType)
    end = opt_operand_def(IndexType)
    step = opt_operand_def(IndexType)


@irdl_op_definition
class SliceTensorOp(SliceLike):
    name = "aten.slice.Tensor"
    input = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input (`start` $start^)? (`end` $end^)? (`step` $step^)? attr-dict `:` "
        + TENSOR
    )

    def infer_shape(self) -> Shape:
        shape = shape_of(self.input)
        d = norm_dim(self, int_prop(self, "dim", 0), len(shape))
        return shape[:d] + (DYN,) + shape[d + 1 :]


# --------------------------------------------------------------------------- indexing


@irdl_op_definition
class CatOp(AtenOp):
    """Concatenation along `dim`."""

    name = "aten.cat"
    tensors = var_operand_def(TensorOut)
    dim = opt_prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = (
        "` ` `[` $tensors `]` attr-dict `:` `[` type($tensors) `]` `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        shapes = [shape_of(t) for t in self.tensors if shape_of(t) != (0,)]
        if not shapes:
            return shape_of(self.result)
        rank = len(shapes[0])
        d = norm_dim(self, int_prop(self, "dim", 0), rank)
        if any(len(s) != rank for s in shapes):
            raise VerifyException(f"{self.name}: operands differ in rank")
        rest = tuple(
            same_dim(self, f"dim {i} sizes", *(s[i] for s in shapes))
            for i in range(rank)
            if i != d
        )
        total = sum(s[d] for s in shapes) if all(s[d] != DYN for s in shapes) else DYN
        return rest[:d] + (total,) + rest[d:]


class IndexListOp(AtenOp):
    """Advanced indexing by a `Tensor?[]`: `indexed_dims` says which dims have an index."""

    input = operand_def(TensorOut)
    indices = var_operand_def(TensorOut)
    indexed_dims = prop_def(DenseArrayBase[I64])

    def verify_indices(self) -> None:
        dims = ints_prop(self, "indexed_dims") or ()
        if len(dims) != len(self.indices):
            raise VerifyException(f"{self.name}: one indexed dim per index tensor")
        if list(dims) != sorted(set(dims)) or (
            dims and not 0 <= dims[0] <= dims[-1] < len(shape_of(self.input))
        ):
            raise VerifyException(f"{self.name}: bad indexed_dims {list(dims)}")
        for index in self.indices:
            t = elem_of(index)
            if not isinstance(t, IntegerType):
                raise VerifyException(f"{self.name}: indices must be integer tensors")


@irdl_op_definition
class IndexTensorOp(IndexListOp):
    """self[indices] with integer index tensors."""

    name = "aten.index.Tensor"
    result = result_def(TensorOut)
    assembly_format = (
        "$input `[` $indices `]` attr-dict `:` type($input) `,` `[` type($indices) "
        "`]` `->` type($result)"
    )

    def verify_(self) -> None:
        self.verify_indices()


@irdl_op_definition
class IndexPutOp(IndexListOp):
    """self with self[indices] = values (or += values when `accumulate`)."""

    name = "aten.index_put"
    values = operand_def(TensorOut)
    accumulate = opt_prop_def(IntegerAttr[I1])
    result = result_def(TensorOut)
    assembly_format = (
        "$input `[` $indices `]` `,` $values attr-dict `:` type($input) `,` "
        "`[` type($indices) `]` `,` type($values) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        self.verify_indices()
        return shape_of(self.input)


class DimIndexOp(AtenOp):
    """An op indexing `self` along `dim` with an integer tensor `index`."""

    input = operand_def(TensorOut)
    dim = prop_def(IntegerAttr[I64])
    index = operand_def(TensorOut)

    def index_dim(self) -> int:
        if not isinstance(elem_of(self.index), IntegerType):
            raise VerifyException(f"{self.name}: index must be an integer tensor")
        return norm_dim(self, int_prop(self, "dim", 0), len(shape_of(self.input)))


@irdl_op_definition
class IndexSelectOp(DimIndexOp):
    """self gathered along `dim` at the positions of a 1-d `index`."""

    name = "aten.index_select"
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $index attr-dict `:` type($input) `,` type($index) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        d, shape, index = self.index_dim(), shape_of(self.input), shape_of(self.index)
        if len(index) > 1:
            raise VerifyException(f"{self.name}: index must be 0-d or 1-d")
        return shape[:d] + (index[0] if index else 1,) + shape[d + 1 :]


@irdl_op_definition
class GatherOp(DimIndexOp):
    """out[i][j] = self[index[i][j]][j] along `dim`: the result has index's shape."""

    name = "aten.gather"
    sparse_grad = opt_prop_def(IntegerAttr[I1])
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $index attr-dict `:` type($input) `,` type($index) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        self.index_dim()
        if len(shape_of(self.index)) != len(shape_of(self.input)):
            raise VerifyException(f"{self.name}: index must have the rank of self")
        return shape_of(self.index)


class ScatterLike(DimIndexOp):
    def infer_shape(self) -> Shape:
        self.index_dim()
        return shape_of(self.input)


class ScatterSrcLike(ScatterLike):
    """src written or combined into self at index along `dim`."""

    src = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $index `,` $src attr-dict `:` type($input) `,` type($index) `,` "
        "type($src) `->` type($result)"
    )


ScatterAddOp = _binary("ScatterAddOp", "scatter_add", ScatterSrcLike, "self with self[index[i][j]][j] += src[i][j] along dim")


@irdl_op_definition
class IndexAddOp(ScatterLike):
    """self with self[index[i]] += alpha * source[i] along `dim`."""

    name = "aten.index_add"
    source = operand_def(TensorOut)
    alpha = opt_operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $index `,` $source (`alpha` $alpha^ `:` type($alpha))? attr-dict "
        "`:` type($input) `,` type($index) `,` type($source) `->` type($result)"
    )


@irdl_op_definition
class SliceScatterOp(SliceLike):
    """self with self[start:end:step] (along dim) = src."""

    name = "aten.slice_scatter"
    input = operand_def(TensorOut)
    src = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $src (`start` $start^)? (`end` $end^)? (`step` $step^)? attr-dict "
        "`:` type($input) `,` type($src) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        norm_dim(self, int_prop(self, "dim", 0), len(shape_of(self.input)))
        return shape_of(self.input)


@irdl_op_definition
class SelectScatterOp(AtenOp):
    """self with self.select(dim, index) = src."""

    name = "aten.select_scatter"
    input = operand_def(TensorOut)
    src = operand_def(TensorOut)
    index = operand_def(IndexType)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $src `,` $index attr-dict `:` type($input) `,` type($src) "
        "`->` type($result)"
    )

    def infer_shape(self) -> Shape:
        norm_dim(self, int_prop(self, "dim", 0), len(shape_of(self.input)))
        return shape_of(self.input)


@irdl_op_definition
class EmbeddingOp(AtenOp):
    """weight rows at `indices`: (V x D)[indices] -> indices.shape x D."""

    name = "aten.embedding"
    weight = operand_def(TensorOut)
    indices = operand_def(TensorOut)
    padding_idx = opt_operand_def(IndexType)
    scale_grad_by_freq = opt_prop_def(IntegerAttr[I1])
    sparse = opt_prop_def(IntegerAttr[I1])
    result = result_def(TensorOut)
    assembly_format = (
        "$weight `,` $indices (`padding_idx` $padding_idx^)? attr-dict `:` "
        "type($weight) `,` type($indices) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        weight = shape_of(self.weight)
        if len(weight) != 2:
            raise VerifyException(f"{self.name}: weight must be a matrix")
        return shape_of(self.indices) + weight[1:]


# --------------------------------------------------------------------------- factories


@irdl_op_definition
class FullOp(SizedOp):
    """A tensor of `size` filled with `fill_value`."""

    name = "aten.full"
    fill_value = operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "` ` `[` $size `]` `,` $fill_value attr-dict `:` type($fill_value) `->` type($result)"
    )


@irdl_op_definition
class EmptyPermutedOp(SizedOp):
    """An uninitialized tensor of `size` (the physical layout is not observable here)."""

    name = "aten.empty_permuted"
    physical_layout = prop_def(DenseArrayBase[I64])
    result = result_def(TensorOut)
    assembly_format = "` ` `[` $size `]` attr-dict `:` type($result)"


@irdl_op_definition
class EmptyMemoryFormatOp(SizedOp):
    """An uninitialized tensor of `size`."""

    name = "aten.empty.memory_format"
    result = result_def(TensorOut)
    assembly_format = "` ` `[` $size `]` attr-dict `:` type($result)"


@irdl_op_definition
class FullLikeOp(AtenOp):
    """A tensor shaped like self filled with `fill_value`."""

    name = "aten.full_like"
    input = operand_def(TensorOut)
    fill_value = operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $fill_value attr-dict `:` type($input) `,` type($fill_value) "
        "`->` type($result)"
    )

    def infer_shape(self) -> Shape:
        return shape_of(self.input)


@irdl_op_definition
class ScalarTensorOp(AtenOp):
    """A 0-d tensor holding `s`."""

    name = "aten.scalar_tensor"
    s = operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = "$s attr-dict `:` type($s) `->` type($result)"

    def infer_shape(self) -> Shape:
        return ()


@irdl_op_definition
class ArangeStartStepOp(AtenOp):
    """start, start + step, ... < end (a 1-d tensor)."""

    name = "aten.arange.start_step"
    start = operand_def(ScalarT)
    end = operand_def(ScalarT)
    step = opt_operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$start `,` $end (`step` $step^ `:` type($step))? attr-dict `:` type($start) "
        "`,` type($end) `->` type($result)"
    )

    def infer_shape(self) -> Shape | None:
        if len(shape_of(self.result)) != 1:
            raise VerifyException(f"{self.name}: result must be 1-d")
        return None


# --------------------------------------------------------------------------- more reductions


@irdl_op_definition
class ProdOp(FullReduceOp):
    """The product of all elements."""

    name = "aten.prod"


class DimReduceOp(AtenOp):
    """A reduction along one `dim` (all dims when absent), kept as 1 if `keepdim`."""

    input = operand_def(TensorOut)
    dim = opt_prop_def(IntegerAttr[I64])
    keepdim = opt_prop_def(IntegerAttr[I1])
    assembly_format = "$input attr-dict `:` type($input) `->` type(results)"

    def reduced_dims(self) -> set[int]:
        shape = shape_of(self.input)
        if self.properties.get("dim") is None:
            return set(range(len(shape)))
        return {norm_dim(self, int_prop(self, "dim", 0), len(shape))}

    def infer_shape(self) -> Shape:
        shape, dims = shape_of(self.input), self.reduced_dims()
        if bool_prop(self, "keepdim"):
            return tuple(1 if i in dims else d for i, d in enumerate(shape))
        if self.properties.get("dim") is None:
            return ()
        return tuple(d for i, d in enumerate(shape) if i not in dims)


ProdDimIntOp = _binary("ProdDimIntOp", "prod.dim_int", type("_P", (DimReduceOp,), {"result": result_def(TensorOut)}),
                       "the product along dim")
ArgmaxOp = _binary("ArgmaxOp", "argmax", type("_A", (DimReduceOp,), {"result": result_def(TensorOut)}),
                   "the index of the first maximum along dim (of the flattened tensor without dim)")
ArgminOp = _binary("ArgminOp", "argmin", type("_A", (DimReduceOp,), {"result": result_def(TensorOut)}),
                   "the index of the first minimum along dim")


class ValuesIndicesOp(DimReduceOp):
    """(values, indices) along `dim`, as max.dim and min.dim return them."""

    values = result_def(TensorOut)
    indices = result_def(TensorOut)


MaxDimOp = _binary("MaxDimOp", "max.dim", ValuesIndicesOp, "(max, index of its first occurrence) along dim")
MinDimOp = _binary("MinDimOp", "min.dim", ValuesIndicesOp, "(min, index of its first occurrence) along dim")


class VarianceOp(ReduceOp):
    """Variance over `dim` with `correction` (default 1: Bessel's)."""

    correction = opt_operand_def(ScalarT)
    assembly_format = "$input (`correction` $correction^ `:` type($correction))? attr-dict `:` type($input) `->` type(results)"


VarCorrectionOp = _binary("VarCorrectionOp", "var.correction", VarianceOp, "the variance over dim")
VarMeanCorrectionOp = _binary(
    "VarMeanCorrectionOp", "var_mean.correction",
    type("_VM", (VarianceOp,), {"result": result_def(TensorOut), "mean": result_def(TensorOut)}),
    "(variance, mean) over dim",
)


@irdl_op_definition
class CumsumOp(AtenOp):
    """Inclusive prefix sums along `dim`."""

    name = "aten.cumsum"
    input = operand_def(TensorOut)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        norm_dim(self, int_prop(self, "dim", 0), len(shape_of(self.input)))
        return shape_of(self.input)


class SortLikeOp(AtenOp):
    """(values, indices) of a stable sort along `dim`."""

    input = operand_def(TensorOut)
    dim = opt_prop_def(IntegerAttr[I64])
    values = result_def(TensorOut)
    indices = result_def(TensorOut)

    def sort_dim(self) -> int:
        return norm_dim(self, int_prop(self, "dim", -1), len(shape_of(self.input)))


class SortFullOp(SortLikeOp):
    """Sorted along `dim` (ascending unless `descending`), stable, NaN last."""

    descending = opt_prop_def(IntegerAttr[I1])
    assembly_format = "$input attr-dict `:` type($input) `->` type(results)"

    def infer_shape(self) -> Shape:
        self.sort_dim()
        return shape_of(self.input)


SortOp = _binary("SortOp", "sort", SortFullOp, "sorted along dim (ascending unless descending), stable, NaN last")
SortStableOp = _binary("SortStableOp", "sort.stable", type("_SS", (SortFullOp,), {"stable": opt_prop_def(IntegerAttr[I1])}),
                       "sort.stable: the same sort (every sort here is stable)")


@irdl_op_definition
class TopkOp(SortLikeOp):
    """The `k` largest (or smallest) along `dim`, sorted."""

    name = "aten.topk"
    k = operand_def(IndexType)
    largest = opt_prop_def(IntegerAttr[I1])
    sorted = opt_prop_def(IntegerAttr[I1])
    assembly_format = "$input `,` $k attr-dict `:` type($input) `->` type(results)"

    def infer_shape(self) -> Shape:
        d, shape = self.sort_dim(), shape_of(self.input)
        return shape[:d] + (shape_of(self.values)[d],) + shape[d + 1 :]


class SearchsortedLike(AtenOp):
    """Where self's values would be inserted into the last dim of `sorted_sequence` to
    keep it sorted: the count of its elements < value (<= with `right` or side
    "right"), read through `sorter` when given. A 1-d sequence serves every value; an
    N-d one holds one sequence per leading index, matching self's leading dims."""

    sorted_sequence = operand_def(TensorOut)
    sorter = opt_operand_def(TensorOut)
    out_int32 = opt_prop_def(IntegerAttr[I1])
    right = opt_prop_def(IntegerAttr[I1])
    side = opt_prop_def(StringAttr)
    result = result_def(TensorOut)

    def is_right(self) -> bool:
        side = self.properties.get("side")
        if side is not None and side.data not in ("left", "right"):  # type: ignore[attr-defined]
            raise VerifyException(f"{self.name}: side must be left or right")
        if side is not None and side.data == "left" and bool_prop(self, "right"):  # type: ignore[attr-defined]
            raise VerifyException(f"{self.name}: side and right can't be set to opposites")
        return bool_prop(self, "right") or (side is not None and side.data == "right")  # type: ignore[attr-defined]

    def check_sequence(self, values: Shape) -> None:
        self.is_right()
        seq = shape_of(self.sorted_sequence)
        if not seq:
            raise VerifyException(f"{self.name}: sorted_sequence must have at least one dim")
        if len(seq) > 1:
            if len(values) != len(seq):
                raise VerifyException(f"{self.name}: an N-d sorted_sequence needs values of its rank")
            for k in range(len(seq) - 1):
                same_dim(self, f"leading dims {k}", seq[k], values[k])
        if self.sorter is not None:
            if not isinstance(elem_of(self.sorter), IntegerType):
                raise VerifyException(f"{self.name}: sorter must be an integer tensor")
            if len(shape_of(self.sorter)) != len(seq):
                raise VerifyException(f"{self.name}: sorter must have sorted_sequence's shape")
            for k, (a, b) in enumerate(zip(shape_of(self.sorter), seq)):
                same_dim(self, f"sorter dim {k}", a, b)
        want = IntegerType(32) if bool_prop(self, "out_int32") else IntegerType(64)
        if elem_of(self.result) != want:
            raise VerifyException(f"{self.name}: the result must be a tensor of {want}")


@irdl_op_definition
class SearchsortedTensorOp(SearchsortedLike):
    """The insertion point of each element of self: the result has self's shape."""

    name = "aten.searchsorted.Tensor"
    input = operand_def(TensorOut)
    assembly_format = (
        "$sorted_sequence `,` $input (`sorter` $sorter^ `:` type($sorter))? attr-dict `:` "
        "type($sorted_sequence) `,` type($input) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        self.check_sequence(shape_of(self.input))
        return shape_of(self.input)


@irdl_op_definition
class SearchsortedScalarOp(SearchsortedLike):
    """The insertion point of one scalar into a 1-d sorted_sequence: a 0-d result."""

    name = "aten.searchsorted.Scalar"
    input = operand_def(ScalarT)
    assembly_format = (
        "$sorted_sequence `,` $input (`sorter` $sorter^ `:` type($sorter))? attr-dict `:` "
        "type($sorted_sequence) `,` type($input) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        if len(shape_of(self.sorted_sequence)) != 1:
            raise VerifyException(f"{self.name}: a scalar value needs a 1-d sorted_sequence")
        self.check_sequence(())
        return ()


# --------------------------------------------------------------------------- more views


@irdl_op_definition
class DiagonalOp(AtenOp):
    """The diagonal of dims dim1 and dim2 (shifted by `offset`), as the last dim."""

    name = "aten.diagonal"
    input = operand_def(TensorOut)
    offset = opt_prop_def(IntegerAttr[I64])
    dim1 = opt_prop_def(IntegerAttr[I64])
    dim2 = opt_prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def diagonal_dims(self) -> tuple[int, int, int]:
        rank = len(shape_of(self.input))
        d1 = norm_dim(self, int_prop(self, "dim1", 0), rank)
        d2 = norm_dim(self, int_prop(self, "dim2", 1), rank)
        if d1 == d2:
            raise VerifyException(f"{self.name}: dim1 and dim2 must differ")
        return d1, d2, int_prop(self, "offset", 0)

    def infer_shape(self) -> Shape:
        d1, d2, offset = self.diagonal_dims()
        shape = shape_of(self.input)
        rest = tuple(s for k, s in enumerate(shape) if k not in (d1, d2))
        a, b = shape[d1], shape[d2]
        if DYN in (a, b):
            return rest + (DYN,)
        n = min(a, b - offset) if offset >= 0 else min(a + offset, b)
        return rest + (max(n, 0),)


@irdl_op_definition
class DiagonalScatterOp(AtenOp):
    """self with its diagonal (as `diagonal` takes it) replaced by src."""

    name = "aten.diagonal_scatter"
    input = operand_def(TensorOut)
    src = operand_def(TensorOut)
    offset = opt_prop_def(IntegerAttr[I64])
    dim1 = opt_prop_def(IntegerAttr[I64])
    dim2 = opt_prop_def(IntegerAttr[I64])
    result = result_def(TensorOut)
    assembly_format = "$input `,` $src attr-dict `:` type($input) `,` type($src) `->` type($result)"

    diagonal_dims = DiagonalOp.diagonal_dims

    def infer_shape(self) -> Shape:
        self.diagonal_dims()
        return shape_of(self.input)


@irdl_op_definition
class FlipOp(AtenOp):
    """Reversed along each of `dims`."""

    name = "aten.flip"
    input = operand_def(TensorOut)
    dims = prop_def(DenseArrayBase[I64])
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        for d in ints_prop(self, "dims") or ():
            norm_dim(self, d, len(shape_of(self.input)))
        return shape_of(self.input)


@irdl_op_definition
class SplitWithSizesOp(AtenOp):
    """Consecutive pieces of `split_sizes` along `dim`: one result per piece."""

    name = "aten.split_with_sizes"
    input = operand_def(TensorOut)
    split_sizes = var_operand_def(IndexType)
    dim = opt_prop_def(IntegerAttr[I64])
    pieces = var_result_def(TensorOut)
    assembly_format = "$input `,` `[` $split_sizes `]` attr-dict `:` type($input) `->` type($pieces)"

    def verify_(self) -> None:
        shape = shape_of(self.input)
        d = norm_dim(self, int_prop(self, "dim", 0), len(shape))
        if len(self.split_sizes) != len(self.pieces):
            raise VerifyException(f"{self.name}: one result per split size")
        for piece in self.pieces:
            p = shape_of(piece)
            check_shape(self, shape[:d] + (DYN,) + shape[d + 1 :], p)


@irdl_op_definition
class ConstantPadNdOp(AtenOp):
    """Padded with `value`: `pad` holds (before, after) pairs from the last dim back;
    negative amounts crop."""

    name = "aten.constant_pad_nd"
    input = operand_def(TensorOut)
    pad = var_operand_def(IndexType)
    value = opt_operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = "$input `,` `[` $pad `]` (`value` $value^ `:` type($value))? attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape | None:
        rank = len(shape_of(self.input))
        if len(self.pad) % 2 or len(self.pad) // 2 > rank:
            raise VerifyException(f"{self.name}: pad must hold (before, after) pairs for at most {rank} dims")
        return None


@irdl_op_definition
class AsStridedOp(AtenOp):
    """A view of self's (contiguous) elements with `size`, `stride` and
    `storage_offset` in elements."""

    name = "aten.as_strided"
    input = operand_def(TensorOut)
    size = var_operand_def(IndexType)
    stride = var_operand_def(IndexType)
    storage_offset = opt_operand_def(IndexType)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` `[` $size `]` `,` `[` $stride `]` (`offset` $storage_offset^)? attr-dict `:` " + TENSOR
    )

    def verify_(self) -> None:
        if not len(self.size) == len(self.stride) == len(shape_of(self.result)):
            raise VerifyException(f"{self.name}: one size and one stride per result dim")


@irdl_op_definition
class EmptyStridedOp(AtenOp):
    """An uninitialized tensor of `size` (values are contiguous here; the strides
    only matter to a later as_strided, which reads them from its own operands)."""

    name = "aten.empty_strided"
    size = var_operand_def(IndexType)
    stride = var_operand_def(IndexType)
    result = result_def(TensorOut)
    assembly_format = "` ` `[` $size `]` `,` `[` $stride `]` attr-dict `:` type($result)"


# --------------------------------------------------------------------------- more scatters


ScatterSrcOp = _binary("ScatterSrcOp", "scatter.src", ScatterSrcLike,
                       "self with self[index[i][j]][j] = src[i][j] along dim (the last write wins)")


@irdl_op_definition
class ScatterValueOp(ScatterLike):
    """self with self[index[i][j]][j] = value along `dim`."""

    name = "aten.scatter.value"
    value = operand_def(ScalarT)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $index `,` $value attr-dict `:` type($input) `,` type($index) `,` "
        "type($value) `->` type($result)"
    )


@irdl_op_definition
class ScatterReduceTwoOp(ScatterSrcLike):
    """self with src reduced into self[index[i][j]][j] along `dim` by `reduce`
    (sum, prod, mean, amax, amin), self's own value included if `include_self`."""

    name = "aten.scatter_reduce.two"
    reduce = prop_def(StringAttr)
    include_self = opt_prop_def(IntegerAttr[I1])

    def verify_(self) -> None:
        super().verify_()
        if self.reduce.data not in ("sum", "prod", "mean", "amax", "amin"):
            raise VerifyException(f"{self.name}: reduce must be sum, prod, mean, amax or amin")


# --------------------------------------------------------------------------- data-dependent sizes


@irdl_op_definition
class NonzeroOp(AtenOp):
    """The indices of the nonzero elements, one row each: (count, rank), where the
    count is known only at run time (at most numel)."""

    name = "aten.nonzero"
    input = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = "$input attr-dict `:` " + TENSOR

    def infer_shape(self) -> Shape:
        if elem_of(self.result) != IntegerType(64):
            raise VerifyException(f"{self.name}: the result must be a tensor of i64")
        return (DYN, len(shape_of(self.input)))


@irdl_op_definition
class RepeatInterleaveTensorOp(AtenOp):
    """i repeated repeats[i] times, for each i in order (1-d): its length is the sum
    of repeats, known only at run time unless `output_size` gives it."""

    name = "aten.repeat_interleave.Tensor"
    repeats = operand_def(TensorOut)
    output_size = opt_operand_def(IndexType)
    result = result_def(TensorOut)
    assembly_format = "$repeats (`output_size` $output_size^)? attr-dict `:` type($repeats) `->` type($result)"

    def infer_shape(self) -> Shape:
        if len(shape_of(self.repeats)) != 1 or not isinstance(elem_of(self.repeats), IntegerType) \
                or is_bool(elem_of(self.repeats)):
            raise VerifyException(f"{self.name}: repeats must be a 1-d integer tensor")
        if elem_of(self.result) != elem_of(self.repeats):
            raise VerifyException(f"{self.name}: the result has repeats' element type")
        return (DYN,)


@irdl_op_definition
class MaskedScatterOp(AtenOp):
    """self with the elements where mask is true replaced, in order, by source's
    first elements (mask broadcasts to self)."""

    name = "aten.masked_scatter"
    input = operand_def(TensorOut)
    mask = operand_def(TensorOut)
    source = operand_def(TensorOut)
    result = result_def(TensorOut)
    assembly_format = (
        "$input `,` $mask `,` $source attr-dict `:` type($input) `,` type($mask) `,` type($source) `->` type($result)"
    )

    def infer_shape(self) -> Shape:
        if not is_bool(elem_of(self.mask)):
            raise VerifyException(f"{self.name}: mask must be a tensor of i1")
        broadcast(shape_of(self.input), shape_of(self.mask))
        return shape_of(self.input)


@irdl_op_definition
class MaskedScatterBackwardOp(AtenOp):
    """The gradient of masked_scatter's source: grad_output where mask is true, in
    order, as a tensor of `sizes` (zero past the count)."""

    name = "aten.masked_scatter_backward"
    grad_output = operand_def(TensorOut)
    mask = operand_def(TensorOut)
    sizes = var_operand_def(IndexType)
    result = result_def(TensorOut)
    assembly_format = (
        "$grad_output `,` $mask `,` `[` $sizes `]` attr-dict `:` type($grad_output) `,` type($mask) `->` type($result)"
    )


# --------------------------------------------------------------------------- assertions


@irdl_op_definition
class AssertAsyncMsgOp(AtenOp):
    """Fail the call with `assert_msg` when self is false: a check the captured graph
    makes on data (F.one_hot: no negative class; torch's core decompositions give every
    `_assert_async` this form). No result, and an effect (a write, which keeps it alive)."""

    name = "aten._assert_async.msg"
    input = operand_def(TensorOut)
    assert_msg = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$input attr-dict `:` type($input)"

    def verify_(self) -> None:
        if shape_of(self.input) != () or not isinstance(elem_of(self.input), IntegerType):
            raise VerifyException(f"{self.name}: the condition must be a 0-d integer or i1 tensor")


@irdl_op_definition
class LocalScalarDenseOp(AtenOp):
    """.item(): the one element of self as a scalar (f64, i64 or i1), a value that
    depends on data (torch's unbacked symbol)."""

    name = "aten._local_scalar_dense"
    input = operand_def(TensorOut)
    result = result_def(ScalarT)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        if any(d != 1 for d in shape_of(self.input)):
            raise VerifyException(f"{self.name}: self must have exactly one element")


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


# --------------------------------------------------------------------------- weights


@irdl_op_definition
class WeightOp(AtenOp):
    """A named constant (a parameter or buffer the function closes over).

    The data lives beside the module, not in the IR text, so a model with
    megabytes of weights still prints as a readable module.
    """

    name = "aten.weight"
    weight_name = prop_def(StringAttr)
    result = result_def(TensorOut)
    assembly_format = "$weight_name attr-dict `:` type($result)"


# --------------------------------------------------------------------------- sizes


@irdl_op_definition
class SymSizeIntOp(AtenOp):
    """The size of `self` along `dim`, as an index."""

    name = "aten.sym_size.int"
    input = operand_def(TensorOut)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)
    assembly_format = "$input attr-dict `:` type($input)"

    def verify_(self) -> None:
        norm_dim(self, int_prop(self, "dim", 0), len(shape_of(self.input)))


@irdl_op_definition
class SymNumelOp(AtenOp):
    """The number of elements of `self`, as an index."""

    name = "aten.sym_numel"
    input = operand_def(TensorOut)
    result = result_def(IndexType)
    assembly_format = "$input attr-dict `:` type($input)"

    def verify_(self) -> None:
        pass


ATEN_OPS: list[type[AtenOp]] = [
    v
    for v in list(globals().values())
    if isinstance(v, type) and issubclass(v, AtenOp) and "name" in v.__dict__
]

OPS_BY_OVERLOAD: dict[str, type[AtenOp]] = {op.overload(): op for op in ATEN_OPS}
"""`"add.Tensor" -> AddTensorOp`: how the importer finds the op of an FX node."""

Aten = Dialect("aten", ATEN_OPS, [])
