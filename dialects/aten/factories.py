"""Factories (full, empty, arange, weights) and size queries."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    StringAttr,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    AtenOp,
    ScalarT,
    Shape,
    SizedOp,
    TensorOut,
    int_prop,
    norm_dim,
    shape_of,
)


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


@irdl_op_definition
class EmptyStridedOp(AtenOp):
    """An uninitialized tensor of `size` (values are contiguous here; the strides
    only matter to a later as_strided, which reads them from its own operands)."""

    name = "aten.empty_strided"
    size = var_operand_def(IndexType)
    stride = var_operand_def(IndexType)
    result = result_def(TensorOut)
    assembly_format = "` ` `[` $size `]` `,` `[` $stride `]` attr-dict `:` type($result)"


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


FACTORY_OPS: tuple[type[AtenOp], ...] = (
    FullOp,
    EmptyPermutedOp,
    EmptyMemoryFormatOp,
    FullLikeOp,
    ScalarTensorOp,
    ArangeStartStepOp,
    EmptyStridedOp,
    WeightOp,
    SymSizeIntOp,
    SymNumelOp,
)
