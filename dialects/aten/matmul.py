"""Matrix products."""

from __future__ import annotations

from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    AtenOp,
    ScalarT,
    Shape,
    TensorOut,
    broadcast,
    same_dim,
    shape_of,
)


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


MATMUL_OPS: tuple[type[AtenOp], ...] = (
    MmOp,
    BmmOp,
    AddmmOp,
)
