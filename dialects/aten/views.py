"""Views: reshapes, permutations, slices, diagonals, flips, splits, padding and
as_strided (values: the lowering inlines them into the loads of their consumers)."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I1,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    DYN,
    TENSOR,
    AtenOp,
    ScalarT,
    Shape,
    SizedOp,
    SliceLike,
    TensorOut,
    check_shape,
    int_prop,
    ints_prop,
    norm_dim,
    shape_of,
)


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


VIEW_OPS: tuple[type[AtenOp], ...] = (
    ViewOp,
    UnsafeViewOp,
    ExpandOp,
    PermuteOp,
    UnsqueezeOp,
    SqueezeDimsOp,
    SelectIntOp,
    SliceTensorOp,
    DiagonalOp,
    DiagonalScatterOp,
    FlipOp,
    SplitWithSizesOp,
    ConstantPadNdOp,
    AsStridedOp,
)
