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

One module per op family, named like the family's module of
`transforms/lower_aten_to_tensorexpr/`, so that an op's definition and its lowering
sit side by side; `base` holds the helpers and base classes they share. Each family
lists its ops (`ELEMENTWISE_OPS`, ...), and the dialect is their concatenation: adding
an op means editing its family's module only. Every name is re-exported here, so
`from dialects.aten import AddTensorOp` and `aten.AddTensorOp` do not name the family.
"""

from __future__ import annotations

from xdsl.ir import Dialect

# every public name of every family (and base's `__all__`), as `dialects.aten.<name>`
from dialects.aten.base import *
from dialects.aten.data_dependent import *
from dialects.aten.elementwise import *
from dialects.aten.factories import *
from dialects.aten.indexing import *
from dialects.aten.matmul import *
from dialects.aten.reduction import *
from dialects.aten.sorting import *
from dialects.aten.views import *

ATEN_OPS: list[type[AtenOp]] = [
    *ELEMENTWISE_OPS,
    *REDUCTION_OPS,
    *MATMUL_OPS,
    *VIEW_OPS,
    *INDEXING_OPS,
    *FACTORY_OPS,
    *SORTING_OPS,
    *DATA_DEPENDENT_OPS,
]

OPS_BY_OVERLOAD: dict[str, type[AtenOp]] = {op.overload(): op for op in ATEN_OPS}
"""`"add.Tensor" -> AddTensorOp`: how the importer finds the op of an FX node."""

Aten = Dialect("aten", ATEN_OPS, [])
