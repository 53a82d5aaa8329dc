"""Ops that depend on data beyond values: results whose size depends on data
(nonzero, repeat_interleave, masked_scatter), run-time assertions and `.item()`."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    StringAttr,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    DYN,
    TENSOR,
    AtenOp,
    ScalarT,
    Shape,
    TensorOut,
    broadcast,
    elem_of,
    is_bool,
    shape_of,
)

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


DATA_DEPENDENT_OPS: tuple[type[AtenOp], ...] = (
    NonzeroOp,
    RepeatInterleaveTensorOp,
    MaskedScatterOp,
    MaskedScatterBackwardOp,
    AssertAsyncMsgOp,
    LocalScalarDenseOp,
)
