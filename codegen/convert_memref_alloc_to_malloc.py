"""memref.alloc / memref.dealloc -> calls of libc `malloc` / `free` on `!ptr_xdsl.ptr`.

xDSL's `convert-memref-to-ptr` lowers loads, stores and views but not allocation. This
pass runs before it and leaves the buffer as a pointer viewed as a memref:

    %m = memref.alloc(%n) : memref<?xf32>
->
    %size = ptr_xdsl.type_offset f32 : index
    %bytes = arith.muli %n, %size : index
    %bytes_i64 = arith.index_cast %bytes : index to i64
    %p = func.call @malloc(%bytes_i64) : (i64) -> !ptr_xdsl.ptr
    %m = ptr_xdsl.from_ptr %p : !ptr_xdsl.ptr -> memref<?xf32>

and `memref.dealloc %m` becomes `func.call @free(ptr_xdsl.to_ptr %m)`. The private
declarations `@malloc` / `@free` are added once per module; `convert-func-to-llvm`
turns them into external `llvm.func` declarations. An `alignment` above malloc's 16
bytes calls `aligned_alloc(alignment, bytes rounded up to alignment)` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, ptr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import DiagnosticException

from codegen.symbols import Declarations

_index = builtin.IndexType()
_i64 = builtin.i64
MALLOC_ALIGNMENT = 16  # what glibc's malloc guarantees on x86-64 and aarch64


def _constant(value: int, rewriter: PatternRewriter) -> SSAValue:
    return rewriter.insert(arith.ConstantOp.from_int_and_width(value, _index)).result


@dataclass
class AllocToMalloc(RewritePattern):
    decls: Declarations

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter, /):
        memref_type = op.memref.type
        assert isinstance(memref_type, builtin.MemRefType)
        if not isinstance(memref_type.layout, builtin.NoneAttr):
            raise DiagnosticException(
                f"codegen: convert-memref-alloc-to-malloc handles identity layouts only, got {memref_type}"
            )
        if op.symbol_operands:
            raise DiagnosticException("codegen: memref.alloc with symbol operands is not supported")
        element_type = memref_type.element_type

        # number of elements: product of the dynamic sizes and the static dimensions
        static = 1
        count: SSAValue | None = None
        dynamic = iter(op.dynamic_sizes)
        for dim in memref_type.get_shape():
            if dim == builtin.DYNAMIC_INDEX:
                size = next(dynamic)
                count = size if count is None else rewriter.insert(arith.MuliOp(count, size)).result
            else:
                static *= dim
        size_op = rewriter.insert(ptr.TypeOffsetOp(element_type, _index))
        size_op.offset.name_hint = "bytes_per_element"
        per_element: SSAValue = size_op.offset
        if static != 1:
            per_element = rewriter.insert(arith.MuliOp(per_element, _constant(static, rewriter))).result
        bytes_ = per_element if count is None else rewriter.insert(arith.MuliOp(count, per_element)).result

        alignment = op.alignment.value.data if op.alignment is not None else 0
        if alignment > MALLOC_ALIGNMENT:
            if alignment & (alignment - 1):
                raise DiagnosticException(f"codegen: alignment {alignment} is not a power of two")
            rounded = rewriter.insert(arith.AddiOp(bytes_, _constant(alignment - 1, rewriter))).result
            bytes_ = rewriter.insert(arith.AndIOp(rounded, _constant(-alignment, rewriter))).result
        bytes_i64 = rewriter.insert(arith.IndexCastOp(bytes_, _i64)).result
        bytes_i64.name_hint = "bytes"

        if alignment > MALLOC_ALIGNMENT:
            self.decls.declare("aligned_alloc", [_i64, _i64], [ptr.PtrType()])
            align = rewriter.insert(arith.ConstantOp.from_int_and_width(alignment, _i64)).result
            call = rewriter.insert(func.CallOp("aligned_alloc", [align, bytes_i64], [ptr.PtrType()]))
        else:
            self.decls.declare("malloc", [_i64], [ptr.PtrType()])
            call = rewriter.insert(func.CallOp("malloc", [bytes_i64], [ptr.PtrType()]))
        call.res[0].name_hint = op.memref.name_hint
        rewriter.replace(op, ptr.FromPtrOp(call.res[0], memref_type))


@dataclass
class DeallocToFree(RewritePattern):
    decls: Declarations

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DeallocOp, rewriter: PatternRewriter, /):
        self.decls.declare("free", [ptr.PtrType()], [])
        pointer = rewriter.insert(ptr.ToPtrOp(op.memref)).res
        rewriter.replace(op, func.CallOp("free", [pointer], []))


class RejectAlloca(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter, /):
        raise DiagnosticException(
            "codegen: memref.alloca is not supported (stack buffers of symbolic size); "
            "use memref.alloc + memref.dealloc"
        )


@dataclass(frozen=True)
class ConvertMemRefAllocToMallocPass(ModulePass):
    name = "convert-memref-alloc-to-malloc"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        decls = Declarations(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier([AllocToMalloc(decls), DeallocToFree(decls), RejectAlloca()]),
            apply_recursively=False,
        ).rewrite_module(op)


