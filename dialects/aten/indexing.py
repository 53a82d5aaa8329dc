"""Indexing: concatenation, gathers, index_put, scatters, embedding."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I1,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    DYN,
    AtenOp,
    ScalarT,
    Shape,
    SliceLike,
    TensorOut,
    _binary,
    elem_of,
    int_prop,
    ints_prop,
    norm_dim,
    same_dim,
    shape_of,
)


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


INDEXING_OPS: tuple[type[AtenOp], ...] = (
    CatOp,
    IndexTensorOp,
    IndexPutOp,
    IndexSelectOp,
    GatherOp,
    ScatterAddOp,
    IndexAddOp,
    SliceScatterOp,
    SelectScatterOp,
    EmbeddingOp,
    ScatterSrcOp,
    ScatterValueOp,
    ScatterReduceTwoOp,
)
