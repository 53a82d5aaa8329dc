"""codegen: loop-level IR (func/scf/memref/arith/math) -> llvm dialect -> native code.

`CODEGEN_PASSES` (name -> pass class factory) is what `pipeline/registry.py` registers;
`LOOPS_TO_LLVM` is the pass pipeline, in order, that takes the loop level to nothing
but `llvm.` ops. `codegen.lowering.lower_to_llvm(module)` runs it in process;
`codegen.llvm_ir`, `codegen.jit` and `codegen.object_file` take it from there.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _rename_c_library_clashes() -> type[ModulePass]:
    from codegen.rename_c_library_clashes import RenameCLibraryClashesPass

    return RenameCLibraryClashesPass


def _outline_parallel_loops() -> type[ModulePass]:
    from codegen.outline_parallel_loops import OutlineParallelLoopsPass

    return OutlineParallelLoopsPass


def _outline_serial_nests() -> type[ModulePass]:
    from codegen.outline_serial_nests import OutlineSerialNestsPass

    return OutlineSerialNestsPass


def _merge_identical_functions() -> type[ModulePass]:
    from codegen.merge_identical_functions import MergeIdenticalFunctionsPass

    return MergeIdenticalFunctionsPass


def _unroll_small_loops() -> type[ModulePass]:
    from codegen.unroll_small_loops import UnrollSmallLoopsPass

    return UnrollSmallLoopsPass


def _define_parallel_launchers() -> type[ModulePass]:
    from codegen.define_parallel_launchers import DefineParallelLaunchersPass

    return DefineParallelLaunchersPass


def _vector_to_llvm() -> type[ModulePass]:
    from codegen.convert_vector_to_llvm import ConvertVectorToLLVMPass

    return ConvertVectorToLLVMPass


def _memref_alloc_to_malloc() -> type[ModulePass]:
    from codegen.convert_memref_alloc_to_malloc import ConvertMemRefAllocToMallocPass

    return ConvertMemRefAllocToMallocPass


def _index_to_i64() -> type[ModulePass]:
    from codegen.convert_index_to_i64 import ConvertIndexToI64Pass

    return ConvertIndexToI64Pass


def _ptr_to_llvm_gep() -> type[ModulePass]:
    from codegen.convert_ptr_to_llvm_gep import ConvertPtrToLLVMGEPPass

    return ConvertPtrToLLVMGEPPass


def _math_to_llvm() -> type[ModulePass]:
    from codegen.convert_math_to_llvm import ConvertMathToLLVMPass

    return ConvertMathToLLVMPass


def _arith_to_llvm() -> type[ModulePass]:
    from codegen.convert_arith_to_llvm import ConvertArithToLLVMPass

    return ConvertArithToLLVMPass


def _cf_to_llvm() -> type[ModulePass]:
    from codegen.convert_cf_to_llvm import ConvertCfToLLVMPass

    return ConvertCfToLLVMPass


def _func_to_llvm() -> type[ModulePass]:
    from codegen.convert_func_to_llvm import ConvertFuncToLLVMPass

    return ConvertFuncToLLVMPass


CODEGEN_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "rename-c-library-clashes": _rename_c_library_clashes,
    "outline-parallel-loops": _outline_parallel_loops,
    "outline-serial-nests": _outline_serial_nests,
    "merge-identical-functions": _merge_identical_functions,
    "unroll-small-loops": _unroll_small_loops,
    "define-parallel-launchers": _define_parallel_launchers,
    "convert-memref-alloc-to-malloc": _memref_alloc_to_malloc,
    "convert-vector-to-llvm": _vector_to_llvm,
    "convert-index-to-i64": _index_to_i64,
    "convert-ptr-to-llvm-gep": _ptr_to_llvm_gep,
    "convert-math-to-llvm": _math_to_llvm,
    "convert-arith-to-llvm": _arith_to_llvm,
    "convert-cf-to-llvm": _cf_to_llvm,
    "convert-func-to-llvm": _func_to_llvm,
}

# Order matters: kernels named like libm functions are renamed before anything
# declares libm functions; small loops unrolled while scf.parallel still marks the
# rows; scf.parallel loops are outlined before scf-to-cf (which does not know them),
# then the serial nests (which need no launcher); identical outlined functions are
# merged at once (every later pass and LLVM would see each copy); launchers are
# defined once arguments are LLVM values; allocation before memref->ptr (it emits
# ptr views of malloc'd memory); vector loads and stores become ptr ones while memrefs are still memrefs;
# index->i64 after every pass that creates index arithmetic and before the
# llvm ops that reject index; our convert-ptr-to-llvm-gep instead of xDSL's
# convert-ptr-to-llvm (which emits ptrtoint/inttoptr, defeating vectorization, and
# costs ~2 ms per op in recursive type conversion); math before arith/cf/func (it
# emits those); reconcile last (a no-op unless an earlier stage left casts).
LOOPS_TO_LLVM: list[str] = [
    "rename-c-library-clashes",
    "unroll-small-loops",
    "outline-parallel-loops",
    "outline-serial-nests",
    "merge-identical-functions",
    "convert-scf-to-cf",
    "convert-memref-alloc-to-malloc",
    "convert-vector-to-ptr",
    "convert-memref-to-ptr{lower_func=true}",
    "convert-ptr-type-offsets",
    "convert-index-to-i64",
    "convert-ptr-to-llvm-gep",
    "convert-math-to-llvm",
    "convert-vector-to-llvm",
    "convert-arith-to-llvm",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
    "define-parallel-launchers",
    "reconcile-unrealized-casts",
]

__all__ = ["CODEGEN_PASSES", "LOOPS_TO_LLVM"]
