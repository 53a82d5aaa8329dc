"""Reductions: over a list of dims, over all dims, along one dim (with indices),
variances, and prefix sums."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I1,
    I64,
    DenseArrayBase,
    IntegerAttr,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)

from dialects.aten.base import (
    TENSOR,
    AtenOp,
    ScalarT,
    Shape,
    TensorOut,
    _binary,
    bool_prop,
    int_prop,
    ints_prop,
    norm_dim,
    shape_of,
)


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


REDUCTION_OPS: tuple[type[AtenOp], ...] = (
    SumDimIntListOp,
    MeanDimOp,
    AmaxOp,
    AminOp,
    SumOp,
    MeanOp,
    LinalgVectorNormOp,
    ProdOp,
    ProdDimIntOp,
    ArgmaxOp,
    ArgminOp,
    MaxDimOp,
    MinDimOp,
    VarCorrectionOp,
    VarMeanCorrectionOp,
    CumsumOp,
)
