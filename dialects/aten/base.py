"""The helpers and base classes that every op family of the aten dialect builds on."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    AnyFloat,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

# what `dialects.aten` re-exports (by `*`): not the `xdsl.irdl.base` imported above, which
# would hide this module, `dialects.aten.base`
__all__ = [
    "DYN",
    "TENSOR",
    "AlphaBinaryOp",
    "AtenOp",
    "BinaryOp",
    "CompareOp",
    "CompareScalarOp",
    "FloatUnaryOp",
    "ScalarOp",
    "ScalarT",
    "Shape",
    "SizedOp",
    "SliceLike",
    "TensorOut",
    "UnaryOp",
    "bool_prop",
    "broadcast",
    "check_shape",
    "elem_of",
    "fmt",
    "int_prop",
    "ints_prop",
    "is_bool",
    "is_float",
    "norm_dim",
    "same_dim",
    "shape_of",
]

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


# --------------------------------------------------------------------------- bases of two families
# SizedOp: views and factories; SliceLike: views and indexing.


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


class SliceLike(AtenOp):
    """Python slicing `start:end:step` along `dim` (default 0)."""

    dim = opt_prop_def(IntegerAttr[I64])
    start = opt_operand_def(IndexType)
    end = opt_operand_def(IndexType)
    step = opt_operand_def(IndexType)


# --------------------------------------------------------------------------- ops made from a base class


def _unary(cls_name: str, op_name: str, base: type[UnaryOp], doc: str) -> type[AtenOp]:
    cls = type(
        cls_name,
        (base,),
        {"name": f"aten.{op_name}", "__doc__": doc},
    )
    return irdl_op_definition(cls)


def _binary(cls_name: str, overload: str, base: type[AtenOp], doc: str) -> type[AtenOp]:
    cls = type(
        cls_name,
        (base,),
        {"name": f"aten.{overload}", "__doc__": doc},
    )
    return irdl_op_definition(cls)
