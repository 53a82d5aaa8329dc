"""ptr_xdsl -> llvm, with `ptradd` as a GEP and pointer types changed in place.

Does the job of xDSL's `convert-ptr-to-llvm`, with two differences that matter:

- `ptr_xdsl.ptradd %p, %bytes` becomes `llvm.getelementptr inbounds %p[%bytes] : i8`,
  not ptrtoint / add / inttoptr. The integer round trip hides the address from LLVM's
  alias analysis and SCEV, and the loop vectorizer gives up; with a GEP the same
  loops vectorize (`<16 x float>` on AVX-512). `inbounds` holds: every offset comes
  from an access or a view inside its buffer. An offset `%i * size` (an element
  index times the element's size in bytes, as `convert-memref-to-ptr` scales every
  access) becomes a GEP over the element, `%p[%i] : f64` (`%p[3] : f64` for a
  constant index), and the product goes: two ops fewer per access for the rest of
  the stage and for LLVM.
- `!ptr_xdsl.ptr` values become `!llvm.ptr` in place (results, block arguments and
  `func.func` signatures), ops are not recreated. xDSL's pass converts types with a
  recursive `TypeConversionPattern` that inspects every attribute of every op: 1.1 s
  of the 1.5 s that the whole pipeline took on 50 elementwise loops (550 ops).

`ptr_xdsl.load` / `store` become `llvm.load` / `store`; `to_ptr` of a `from_ptr`
(the pair `convert-memref-to-ptr{lower_func=true}` leaves around memref arguments,
and `convert-memref-alloc-to-malloc` around malloc'd buffers) folds to the pointer.
Offsets must be integers already (run `convert-index-to-i64` first) and memrefs must
all come from pointers. Run `convert-ptr-type-offsets` before.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, ptr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from codegen.constants import int_constant

_llvm_ptr = llvm.LLVMPointerType()
_i8 = builtin.IntegerType(8)


def _convert(t: Attribute) -> Attribute:
    return _llvm_ptr if isinstance(t, ptr.PtrType) else t


def _convert_function_type(t: builtin.FunctionType) -> builtin.FunctionType:
    if not any(isinstance(x, ptr.PtrType) for x in (*t.inputs.data, *t.outputs.data)):
        return t
    return builtin.FunctionType.from_lists([_convert(x) for x in t.inputs.data], [_convert(x) for x in t.outputs.data])


def _retype(op: Operation) -> None:
    for result in op.results:
        if isinstance(result.type, ptr.PtrType):
            Rewriter.replace_value_with_new_type(result, _llvm_ptr)
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                if isinstance(arg.type, ptr.PtrType):
                    Rewriter.replace_value_with_new_type(arg, _llvm_ptr)


def _element_alignment(t: Attribute) -> int | None:
    """A vector is only as aligned as its elements (a row slice of a buffer), not
    to its own size as LLVM would assume; scalars keep their natural alignment."""
    if isinstance(t, builtin.VectorType):
        e = t.element_type
        return e.bitwidth // 8 if isinstance(e, builtin.IntegerType | builtin.AnyFloat) else None
    return None


def _element_of(add: ptr.PtrAddOp) -> tuple[SSAValue | int, Attribute] | None:
    """(index, element type) when the offset is an index times the size of the
    element every user loads or stores (a vector's element for a vector access)."""
    product = add.offset.owner
    if not isinstance(product, arith.MuliOp):
        return None
    for index, size in ((product.lhs, product.rhs), (product.rhs, product.lhs)):
        if (bytes_ := int_constant(size)) is None:
            continue
        elements = set()
        for use in add.result.uses:
            user = use.operation
            t = user.res.type if isinstance(user, ptr.LoadOp) else user.value.type if isinstance(user, ptr.StoreOp) else None
            elements.add(t.element_type if isinstance(t, builtin.VectorType) else t)
        element = elements.pop() if len(elements) == 1 else None
        if isinstance(element, builtin.IntegerType | builtin.AnyFloat) and element.bitwidth == 8 * bytes_:
            constant = int_constant(index)
            return (index if constant is None else constant), element
    return None


def _erase_if_unused(value: SSAValue) -> None:
    op = value.owner
    if isinstance(op, Operation) and not any(r.uses for r in op.results):
        operands = list(op.operands)
        Rewriter.erase_op(op)
        for v in operands:
            if isinstance(v.owner, arith.ConstantOp):
                _erase_if_unused(v)


def _lower(op: Operation) -> None:
    match op:
        case ptr.PtrAddOp():
            if not isinstance(op.offset.type, builtin.IntegerType):
                raise DiagnosticException(
                    f"codegen: ptradd offset of type {op.offset.type}; run convert-index-to-i64 first"
                )
            offset = op.offset
            element = _element_of(op)
            index, pointee = element if element is not None else (offset, _i8)
            gep = llvm.GEPOp.from_mixed_indices(op.addr, [index], pointee, inbounds=True)
            gep.result.name_hint = op.result.name_hint
            Rewriter.replace_op(op, gep)
            if element is not None:
                _erase_if_unused(offset)
        case ptr.LoadOp():
            Rewriter.replace_op(op, llvm.LoadOp(op.addr, op.res.type, alignment=_element_alignment(op.res.type)))
        case ptr.StoreOp():
            Rewriter.replace_op(op, llvm.StoreOp(op.value, op.addr, alignment=_element_alignment(op.value.type)))
        case ptr.ToPtrOp():
            source = op.source.owner
            if not isinstance(source, ptr.FromPtrOp):
                raise DiagnosticException(
                    f"codegen: memref {op.source.name_hint or ''} of type {op.source.type} is not backed by a "
                    "pointer; run convert-memref-to-ptr{lower_func=true} / convert-memref-alloc-to-malloc"
                )
            Rewriter.replace_op(op, [], [source.source])
        case _:
            raise DiagnosticException(f"codegen: convert-ptr-to-llvm-gep does not handle {op.name}")


class ConvertPtrToLLVMGEPPass(ModulePass):
    name = "convert-ptr-to-llvm-gep"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        ptr_ops: list[Operation] = []
        from_ptrs: list[ptr.FromPtrOp] = []
        for inner in op.walk():
            if isinstance(inner, func.FuncOp):
                inner.function_type = _convert_function_type(inner.function_type)
            _retype(inner)
            if isinstance(inner, ptr.FromPtrOp):
                from_ptrs.append(inner)
            elif inner.dialect_name() == "ptr_xdsl":
                ptr_ops.append(inner)
        for inner in ptr_ops:
            _lower(inner)
        for view in from_ptrs:
            if view.res.uses:
                user = next(iter(view.res.uses)).operation
                raise DiagnosticException(
                    f"codegen: {user.name} still uses a memref after convert-memref-to-ptr; it has no lowering"
                )
            Rewriter.erase_op(view)
