"""Sorting (sort, topk) and searching (searchsorted)."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I1,
    I64,
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
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from dialects.aten.base import (
    AtenOp,
    ScalarT,
    Shape,
    TensorOut,
    _binary,
    bool_prop,
    elem_of,
    int_prop,
    norm_dim,
    same_dim,
    shape_of,
)


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


SORTING_OPS: tuple[type[AtenOp], ...] = (
    SortOp,
    SortStableOp,
    TopkOp,
    SearchsortedTensorOp,
    SearchsortedScalarOp,
)
