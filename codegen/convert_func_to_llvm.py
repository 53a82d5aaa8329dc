"""func -> llvm: func.func -> llvm.func, func.call -> llvm.call, func.return -> llvm.return.

Linkage: a public definition and every declaration get `external` linkage (xDSL's
`llvm.func` defaults to `internal`, which O3 deletes and a shared library does not
export); a private definition (a helper such as `@__codegen_ipowi_i64`) stays
`internal`. Discardable attributes `codegen.*` are kept (they are notes from one
codegen pass to a later one); others such as `llvm.emit_c_interface` are dropped: the
arguments are already plain pointers and integers, so the function *is* its C
interface (`void f(int64_t n, float *x, ...)`).

Option `noalias` (default true): mark every `!llvm.ptr` argument of a definition
`llvm.noalias`, so LLVM vectorizes without runtime overlap checks. This is a contract
on callers: the buffers handed to one call must not overlap. Argument attributes
`llvm.*` already on the func.func are kept.

Signatures must be LLVM types already (run `convert-index-to-i64` and
`convert-ptr-to-llvm` first); at most one result.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, llvm
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.utils.exceptions import DiagnosticException


def _check_llvm_type(t: Attribute, where: str) -> None:
    if isinstance(t, builtin.IndexType | builtin.MemRefType | builtin.TensorType):
        raise DiagnosticException(
            f"codegen: {where} has type {t}; lower memrefs and index before convert-func-to-llvm"
        )


def _single_result(types: tuple[Attribute, ...] | list[Attribute], where: str) -> Attribute:
    if len(types) > 1:
        raise DiagnosticException(f"codegen: {where} returns {len(types)} values; llvm.func returns at most one")
    return types[0] if types else llvm.LLVMVoidType()


@dataclass
class FuncToLLVM(RewritePattern):
    noalias: bool

    def _arg_attrs(self, op: func.FuncOp) -> builtin.ArrayAttr[builtin.DictionaryAttr] | None:
        inputs = op.function_type.inputs.data
        old = op.arg_attrs.data if op.arg_attrs is not None else [builtin.DictionaryAttr({})] * len(inputs)
        new: list[builtin.DictionaryAttr] = []
        for t, attrs in zip(inputs, old, strict=True):
            kept = {k: v for k, v in attrs.data.items() if k.startswith("llvm.")}
            if self.noalias and not op.is_declaration and isinstance(t, llvm.LLVMPointerType):
                kept["llvm.noalias"] = builtin.UnitAttr()
            new.append(builtin.DictionaryAttr(kept))
        if not any(d.data for d in new):
            return None
        return builtin.ArrayAttr(new)

    def _lower_func(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        name = op.sym_name.data
        inputs = list(op.function_type.inputs.data)
        for i, t in enumerate(inputs):
            _check_llvm_type(t, f"argument {i} of @{name}")
        output = _single_result(op.function_type.outputs.data, f"@{name}")
        _check_llvm_type(output, f"the result of @{name}")
        private = op.sym_visibility is not None and op.sym_visibility.data == "private"
        linkage = "internal" if private and not op.is_declaration else "external"
        other_props: dict[str, Attribute | None] = {}
        if (arg_attrs := self._arg_attrs(op)) is not None:
            other_props["arg_attrs"] = arg_attrs
        new = llvm.FuncOp(
            name,
            llvm.LLVMFunctionType(inputs, output),
            linkage=llvm.LinkageAttr(linkage),
            body=rewriter.move_region_contents_to_new_regions(op.body),
            other_props=other_props,
        )
        for key, value in op.attributes.items():
            if key.startswith("codegen."):  # for later codegen passes (parallel launchers)
                new.attributes[key] = value
        rewriter.replace(op, new)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        match op:
            case func.FuncOp():
                self._lower_func(op, rewriter)
            case func.CallOp():
                result = _single_result(op.res.types, f"the call of @{op.callee.string_value()}")
                for i, arg in enumerate(op.arguments):
                    _check_llvm_type(arg.type, f"call argument {i} of @{op.callee.string_value()}")
                return_type = None if isinstance(result, llvm.LLVMVoidType) else result
                rewriter.replace(op, llvm.CallOp(op.callee, *op.arguments, return_type=return_type))
            case func.ReturnOp():
                if len(op.arguments) > 1:
                    raise DiagnosticException("codegen: func.return of several values")
                rewriter.replace(op, llvm.ReturnOp(op.arguments[0] if op.arguments else None))
            case _ if op.dialect_name() == "func":
                raise DiagnosticException(f"codegen: convert-func-to-llvm does not handle {op.name}")
            case _:
                pass


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    name = "convert-func-to-llvm"

    noalias: bool = True

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(FuncToLLVM(self.noalias), apply_recursively=False).rewrite_module(op)
