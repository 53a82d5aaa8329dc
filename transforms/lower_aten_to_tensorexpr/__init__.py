"""lower-aten-to-tensorexpr: every aten op becomes a te.compute/reduce/scatter.

Elementwise ops become one `te.compute` with a scalar body; views become index
arithmetic inlined into the loads of their consumers (a view is never copied);
reductions and matmuls become `te.reduce`; scatters and concatenation become
`te.scatter`. Extents are SSA `index` values: the size symbols of the function
or constants, so everything stays symbolic in N and E.

One pass, one module per op family (as torch-mlir splits TorchToLinalg), each
tested by its file in `test/transforms/lower-aten-to-tensorexpr/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from transforms.lower_aten_to_tensorexpr.data_dependent import DataDependentLowerings
from transforms.lower_aten_to_tensorexpr.elementwise import ElementwiseLowerings
from transforms.lower_aten_to_tensorexpr.factories import FactoryLowerings
from transforms.lower_aten_to_tensorexpr.indexing import IndexingLowerings
from transforms.lower_aten_to_tensorexpr.matmul import MatmulLowerings
from transforms.lower_aten_to_tensorexpr.reduction import ReductionLowerings
from transforms.lower_aten_to_tensorexpr.scalars import LoweringError, const, is_float
from transforms.lower_aten_to_tensorexpr.sorting import SortingLowerings
from transforms.lower_aten_to_tensorexpr.views import ViewLowerings

__all__ = ["LowerAtenToTensorExprPass", "LoweringError", "const", "is_float"]


class FunctionLowering(
    ElementwiseLowerings, ReductionLowerings, MatmulLowerings, IndexingLowerings, ViewLowerings, FactoryLowerings,
    SortingLowerings, DataDependentLowerings,
):
    """Every family's `lower_<Op>` methods over one function."""


@dataclass(frozen=True)
class LowerAtenToTensorExprPass(ModulePass):
    """`provenance=true` tags every te op with the aten ops it computes (`te.origin`)."""

    name = "lower-aten-to-tensorexpr"
    provenance: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.walk()):
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                FunctionLowering(f, self.provenance).run()
