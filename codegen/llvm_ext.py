"""LLVM dialect ops that xDSL 0.75 lacks, and their translation to LLVM IR.

xDSL's `llvm` dialect has `llvm.sitofp` but not the other three int<->float casts,
and `xdsl.backend.llvm.convert_op` dispatches casts through one table,
`_CAST_OP_NAMES: {op class: LLVM instruction name}`. The ops here subclass xDSL's
`GenericCastOp` (same custom syntax as MLIR: `llvm.fptosi %x : f32 to i32`) and are
added to that table by `install_translations()`, which every module that creates or
translates them calls. Nothing else of xDSL is changed.

`dialect()` is xDSL's `llvm` dialect with these ops, so that the text the llvm stage
prints parses again (the registry registers it under `llvm`).

Also here: `intrinsic(name, args, result_type)`, an `llvm.call_intrinsic` with the
LLVM-mangled name (`llvm.exp.f32`, `llvm.smax.v8i64`). xDSL's `llvm.intr.exp` & co
translate to the *unmangled* `llvm.exp`, so a module that uses exp on f32 and on f64
fails to translate (measured: "Type of #1 arg mismatch: float != double"); the
codegen passes therefore emit `llvm.call_intrinsic` for every intrinsic.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.backend.llvm import convert_op as _xdsl_convert_op
from xdsl.dialects import builtin
from xdsl.dialects.llvm import CallIntrinsicOp, GenericCastOp
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import DiagnosticException


@irdl_op_definition
class FPToSIOp(GenericCastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(GenericCastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(GenericCastOp):
    name = "llvm.uitofp"


EXTRA_CAST_OPS: dict[type[GenericCastOp], str] = {
    FPToSIOp: "fptosi",
    FPToUIOp: "fptoui",
    UIToFPOp: "uitofp",
}


def install_translations() -> None:
    """Teach `xdsl.backend.llvm.convert_module` the extra cast ops (idempotent)."""
    table = getattr(_xdsl_convert_op, "_CAST_OP_NAMES", None)
    if not isinstance(table, dict):
        raise RuntimeError(
            "codegen: xdsl.backend.llvm.convert_op._CAST_OP_NAMES is gone; "
            "this xDSL version needs a new way to translate llvm.fptosi/fptoui/uitofp"
        )
    table.update(EXTRA_CAST_OPS)


def dialect() -> Dialect:
    """xDSL's `llvm` dialect and the casts it lacks."""
    from xdsl.dialects.llvm import LLVM

    return Dialect("llvm", [*LLVM.operations, *EXTRA_CAST_OPS], list(LLVM.attributes))


def mangle(t: Attribute) -> str:
    """The LLVM intrinsic suffix of a type: f32, f64, i64, v8f32, v4i1."""
    if isinstance(t, builtin.VectorType):
        if t.get_num_dims() != 1 or t.get_num_scalable_dims():
            raise DiagnosticException(f"codegen: no LLVM intrinsic for type {t}")
        return f"v{t.get_shape()[0]}{mangle(t.element_type)}"
    if isinstance(t, builtin.Float16Type):
        return "f16"
    if isinstance(t, builtin.Float32Type):
        return "f32"
    if isinstance(t, builtin.Float64Type):
        return "f64"
    if isinstance(t, builtin.IntegerType):
        return f"i{t.width.data}"
    raise DiagnosticException(f"codegen: no LLVM intrinsic for type {t}")


def intrinsic(
    name: str, args: Sequence[SSAValue], result_type: Attribute, overloads: Sequence[Attribute] | None = None
) -> CallIntrinsicOp:
    """`llvm.call_intrinsic "llvm.<name>.<mangled overload types>"(args)`.

    `overloads` defaults to `[result_type]`, right for the float intrinsics and
    smax/smin; `powi` passes `[result_type, exponent_type]`.
    """
    types = [result_type] if overloads is None else overloads
    full = ".".join([f"llvm.{name}", *(mangle(t) for t in types)])
    return CallIntrinsicOp(full, list(args), [result_type])


install_translations()
