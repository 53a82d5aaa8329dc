"""In-process JIT: llvm dialect (or LLVM IR) -> MCJIT -> ctypes callables.

    jit = JitModule(llvm_module)                       # O3 for the host CPU
    f = jit.function("ew_exp", [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p])
    f(n, x.ctypes.data, y.ctypes.data)
    g = jit.callable("ew_exp"); g(n, x, y)             # signature from the IR; numpy
                                                       # arrays / torch tensors zero-copy

Every callable keeps its `JitModule` (and so the execution engine and its code) alive.
libm and libgcc_s are loaded into the symbol table first, so `expf`, `erff`,
`__powisf2` & co resolve.

A kernel whose name is also a C library symbol (`exp`, `log`, `free`) lives in the
engine as `__codegen_renamed_<name>` (renamed by the `rename-c-library-clashes` pass,
or here for IR from elsewhere) and is found under its own name by `function()`:
otherwise the libm call that LLVM emits for `llvm.exp.f64` binds to the kernel itself
(measured: a segfault on the first call).
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Sequence
from typing import Any

import llvmlite.binding as llvm
import llvmlite.ir as ir
from xdsl.dialects import builtin

from codegen.llvm_ir import CompiledLLVM, compile_llvm, host_target_machine
from codegen.symbols import is_c_library_symbol, load_runtime_libraries, original_name, renamed

_CTYPES: dict[str, Any] = {
    "void": None,
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "ptr": ctypes.c_void_p,
}


def _public_names(ref: llvm.ModuleRef) -> dict[str, str]:
    """{name to look up: symbol in the engine} for the external definitions.

    Kernels that `rename-c-library-clashes` renamed are found under their own name;
    in IR from elsewhere, a definition named like a C library symbol is renamed now
    (before MCJIT generates code, whose libm calls would otherwise bind to it)."""
    taken = {f.name for f in ref.functions}
    names: dict[str, str] = {}
    for fn in ref.functions:
        if fn.is_declaration or fn.linkage.name != "external":
            continue
        if (original := original_name(fn.name)) is not None:
            names[original] = fn.name
        elif is_c_library_symbol(fn.name):
            new = renamed(fn.name)
            while new in taken:
                new += "_"
            names[fn.name], fn.name = new, new
            taken.add(new)
        else:
            names.setdefault(fn.name, fn.name)
    return names


def _pointer_of(arg: Any, index: int, name: str) -> int:
    """A data pointer for a numpy array / torch tensor / int, refusing strided views."""
    if arg is None:
        return 0
    if isinstance(arg, int):
        return arg
    data_ptr = getattr(arg, "data_ptr", None)
    if callable(data_ptr):  # torch.Tensor
        if not arg.is_contiguous():
            raise ValueError(f"{name}: argument {index} is a non-contiguous tensor")
        if arg.device.type != "cpu":
            raise ValueError(f"{name}: argument {index} is on {arg.device}, not the CPU")
        return data_ptr()
    if hasattr(arg, "__array_interface__"):  # numpy.ndarray
        if not arg.flags["C_CONTIGUOUS"]:
            raise ValueError(f"{name}: argument {index} is a non-contiguous array")
        return arg.__array_interface__["data"][0]
    raise TypeError(f"{name}: argument {index} must be an array, a tensor or an address, got {type(arg).__name__}")


class JitModule:
    """A module compiled in process by MCJIT; look up functions by name.

    `module` is an llvm-dialect `builtin.module` (after `codegen.LOOPS_TO_LLVM`), an
    llvmlite `ir.Module`, LLVM IR text, or a `CompiledLLVM` from `compile_llvm`
    (it is consumed: MCJIT takes ownership of the LLVM module).
    """

    def __init__(
        self, module: builtin.ModuleOp | ir.Module | str | CompiledLLVM, *, speed_level: int = 3
    ) -> None:
        load_runtime_libraries()
        if isinstance(module, CompiledLLVM):
            compiled = module
        else:
            compiled = compile_llvm(module, speed_level=speed_level, target_machine=host_target_machine(jit=True))
        self.compiled = compiled
        self.timings = dict(compiled.timings)
        names = {f.name for f in compiled.ref.functions}
        self._symbols = _public_names(compiled.ref)
        if compiled.objects and {f.name for f in compiled.ref.functions} != names:
            raise ValueError("JitModule: a module compiled to objects defines C library names; "
                             "run rename-c-library-clashes before codegen")
        start_jit = time.perf_counter()
        # MCJIT owns the module and the target machine from here on; a module compiled in
        # parts is only linked (its parts' object code), the engine's own module is empty
        owned = llvm.parse_assembly("") if compiled.objects else compiled.ref
        self.engine = llvm.create_mcjit_compiler(owned, host_target_machine(jit=True))
        for code in compiled.objects:
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(code))
        self.engine.finalize_object()
        self.engine.run_static_constructors()
        self.timings["mcjit_s"] = time.perf_counter() - start_jit
        self.timings["total_s"] = sum(v for k, v in self.timings.items() if k != "assembly_s")
        self._signatures: dict[str, tuple[Any, list[Any]]] = {}
        for name, symbol in self._symbols.items():
            ret, *params = (str(t) for t in compiled.ref.get_function(symbol).global_value_type.elements)
            if all(t in _CTYPES for t in (ret, *params)):
                self._signatures[name] = (_CTYPES[ret], [_CTYPES[p] for p in params])

    @property
    def ir_before(self) -> str:
        return self.compiled.ir_before

    @property
    def ir_after(self) -> str:
        """The optimized LLVM IR that was JIT-compiled."""
        return self.compiled.ir_after

    @property
    def function_names(self) -> list[str]:
        return list(self._signatures)

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(self._symbols[name]) if name in self._symbols else 0
        if not addr:
            raise KeyError(f"JitModule: no function @{name}; defined: {', '.join(self.function_names)}")
        return addr

    def signature(self, name: str) -> tuple[Any, list[Any]]:
        """(restype, argtypes) as ctypes types, from the LLVM function type."""
        if name not in self._signatures:
            raise KeyError(f"JitModule: no function @{name} with a ctypes-mappable signature")
        return self._signatures[name]

    def function(self, name: str, argtypes: Sequence[Any] | None = None, restype: Any = None) -> Callable[..., Any]:
        """A raw ctypes function; `argtypes=None` takes them from the LLVM signature."""
        if argtypes is None:
            restype, argtypes = self.signature(name)
        fn = ctypes.CFUNCTYPE(restype, *argtypes)(self.address(name))
        fn._jit_module = self  # keeps the engine (and the code) alive
        return fn

    def callable(self, name: str) -> Callable[..., Any]:
        """A Python wrapper: pointer arguments accept numpy arrays and torch tensors."""
        restype, argtypes = self.signature(name)
        raw = self.function(name, argtypes, restype)
        is_ptr = [t is ctypes.c_void_p for t in argtypes]

        def call(*args: Any) -> Any:
            if len(args) != len(argtypes):
                raise TypeError(f"{name} takes {len(argtypes)} arguments, got {len(args)}")
            return raw(*(_pointer_of(a, i, name) if p else a for i, (a, p) in enumerate(zip(args, is_ptr))))

        call.__name__ = name
        call.raw = raw  # type: ignore[attr-defined]
        return call


__all__ = ["JitModule", "load_runtime_libraries"]
