"""`index` -> `i64` everywhere, in place, before the arith/cf/func -> llvm passes.

LLVM has no index type and xDSL's llvm integer ops accept signless integers only. Rather
than converting types op by op (xDSL's `TypeConversionPattern` loops forever on
`0 : index`, and recreating every op costs ~100 us each), this pass walks the module
once and changes value types in place:

- every op result and block argument of type `index` (or `vector<..xindex>`) becomes
  `i64` (`vector<..xi64>`); ops are not recreated, so their uses stay intact;
- `func.func` signatures are rewritten the same way;
- `arith.constant N : index` becomes `arith.constant N : i64` (a new op: the value
  attribute carries the type);
- `arith.index_cast` disappears between equal widths and becomes `arith.extsi` /
  `arith.trunci` otherwise; `builtin.unrealized_conversion_cast` ops that became
  `i64 -> i64` are removed.

Only arith, cf, func, ptr and builtin ops are expected here (scf and memref are
lowered before); an op with an `index`-typed attribute it does not know is an error.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

_index = builtin.IndexType()
_i64 = builtin.i64


def convert_type(t: Attribute) -> Attribute:
    """index -> i64, vector<...xindex> -> vector<...xi64>, anything else unchanged."""
    if isinstance(t, builtin.IndexType):
        return _i64
    if isinstance(t, builtin.VectorType) and isinstance(t.element_type, builtin.IndexType):
        return builtin.VectorType(_i64, t.get_shape(), t.scalable_dims)
    return t


def _has_index(t: Attribute) -> bool:
    return convert_type(t) is not t


def _int_width(t: Attribute) -> int:
    e = t.element_type if isinstance(t, builtin.VectorType) else t
    if not isinstance(e, builtin.IntegerType):
        raise DiagnosticException(f"codegen: index_cast of non-integer type {t}")
    return e.width.data


def _convert_function_type(t: builtin.FunctionType) -> builtin.FunctionType:
    if not any(_has_index(x) for x in (*t.inputs.data, *t.outputs.data)):
        return t
    return builtin.FunctionType.from_lists(
        [convert_type(x) for x in t.inputs.data], [convert_type(x) for x in t.outputs.data]
    )


def _retype_values(op: Operation) -> None:
    for result in op.results:
        if _has_index(result.type):
            Rewriter.replace_value_with_new_type(result, convert_type(result.type))
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                if _has_index(arg.type):
                    Rewriter.replace_value_with_new_type(arg, convert_type(arg.type))


def _convert_constant(op: arith.ConstantOp) -> None:
    value = op.value
    new_type = convert_type(value.type)
    if isinstance(value, builtin.IntegerAttr):
        new_value = builtin.IntegerAttr(value.value.data, new_type)
    elif isinstance(value, builtin.DenseIntOrFPElementsAttr):
        new_value = builtin.DenseIntOrFPElementsAttr.from_list(new_type, value.get_values())
    else:
        raise DiagnosticException(f"codegen: unsupported index constant {value}")
    new_op = arith.ConstantOp(new_value, new_type)
    Rewriter.replace_op(op, new_op)


def _convert_index_cast(op: arith.IndexCastOp) -> None:
    source, result = op.input, op.result
    src_width = _int_width(convert_type(source.type))
    dst_type = convert_type(result.type)
    dst_width = _int_width(dst_type)
    if src_width == dst_width:
        Rewriter.replace_op(op, [], [source])
    elif src_width < dst_width:
        Rewriter.replace_op(op, arith.ExtSIOp(source, dst_type))
    else:
        Rewriter.replace_op(op, arith.TruncIOp(source, dst_type))


# dialects whose ops take `index` by definition: they must be lowered before this pass
_INDEX_DIALECTS = {
    "scf": "convert-scf-to-cf",
    "memref": "convert-memref-to-ptr, which lowers load/store/subview/cast only; "
    "pass sizes as index arguments instead of memref.dim",
    "affine": "lower-affine",
}


class ConvertIndexToI64Pass(ModulePass):
    name = "convert-index-to-i64"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        constants: list[arith.ConstantOp] = []
        casts: list[arith.IndexCastOp] = []
        conversions: list[builtin.UnrealizedConversionCastOp] = []
        for inner in op.walk():
            if (dialect := inner.dialect_name()) in _INDEX_DIALECTS:
                raise DiagnosticException(
                    f"codegen: {inner.name} reached convert-index-to-i64; lower it first "
                    f"({_INDEX_DIALECTS[dialect]})"
                )
            if isinstance(inner, func.FuncOp):
                inner.function_type = _convert_function_type(inner.function_type)
            elif isinstance(inner, arith.ConstantOp):
                if _has_index(inner.result.type):
                    constants.append(inner)
                continue
            elif isinstance(inner, arith.IndexCastOp):
                casts.append(inner)
                continue
            elif isinstance(inner, builtin.UnrealizedConversionCastOp):
                conversions.append(inner)
            _retype_values(inner)
        # operands are already retyped when these are rewritten
        for cast in casts:
            _convert_index_cast(cast)
        for const in constants:
            _convert_constant(const)
        for conv in conversions:
            if conv.inputs.types == conv.outputs.types:
                Rewriter.replace_op(conv, [], list(conv.inputs))
