"""Symbols shared by the codegen passes and the JIT (not a pass).

- `Declarations`: add `func.func private @expf(f32) -> f32` & co to a module once.
- C library names: a kernel must not be called like a libc/libm symbol (`exp`, `free`):
  LLVM lowers `llvm.exp.f64` to a call of `exp`, which would bind to the kernel. Such
  kernels are renamed `__codegen_renamed_<name>` (`rename-c-library-clashes`); the JIT finds
  them under their own name, a shared library refuses them.
"""

from __future__ import annotations

import ctypes.util
import functools
from collections.abc import Sequence

import llvmlite.binding as llvm

from xdsl.dialects import builtin, func
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException


RENAMED_PREFIX = "__codegen_renamed_"


@functools.cache
def load_runtime_libraries() -> tuple[str, ...]:
    """Load libm, libgcc_s and libgomp into LLVM's process symbol table (once per process).

    MCJIT resolves `expf`, `erff` & co there; libgcc_s has the `__powisf2` /
    `__powidf2` that `llvm.powi` with a variable exponent calls, which Python itself
    does not load; libgomp is the OpenMP runtime of parallel loops (by soname: the
    copy torch already loaded, if any, so both share one thread pool)."""
    loaded = []
    for soname, short in (("libm.so.6", "m"), ("libgcc_s.so.1", "gcc_s"), ("libgomp.so.1", "gomp")):
        for candidate in (soname, ctypes.util.find_library(short)):
            if not candidate:
                continue
            try:
                llvm.load_library_permanently(candidate)
            except RuntimeError:
                continue
            loaded.append(candidate)
            break
    return tuple(loaded)


def is_c_library_symbol(name: str) -> bool:
    """Whether libc, libm or libgcc_s (as loaded in this process) define `name`."""
    load_runtime_libraries()
    return llvm.address_of_symbol(name) is not None


def renamed(name: str) -> str:
    return RENAMED_PREFIX + name


def original_name(symbol: str) -> str | None:
    """`exp` for `__codegen_renamed_exp`, None for a name `renamed` did not make."""
    return symbol[len(RENAMED_PREFIX) :] if symbol.startswith(RENAMED_PREFIX) else None


class Declarations:
    """Adds `func.func private @name(...)` declarations to a module, once each.

    The module's top-level symbols are read once, on first use; a symbol that already
    exists with another type is an error (the C library names are reserved).
    """

    def __init__(self, module: builtin.ModuleOp):
        self.module = module
        self._known: dict[str, builtin.FunctionType | None] | None = None
        self._last_declared: func.FuncOp | None = None

    def _symbols(self) -> dict[str, builtin.FunctionType | None]:
        if self._known is None:
            self._known = {}
            for op in self.module.ops:
                sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if isinstance(sym, builtin.StringAttr):
                    ftype = op.function_type if isinstance(op, func.FuncOp) else None
                    self._known[sym.data] = ftype
        return self._known

    def declare(self, name: str, inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> None:
        known = self._symbols()
        ftype = builtin.FunctionType.from_lists(list(inputs), list(outputs))
        if name in known:
            if known[name] != ftype:
                raise DiagnosticException(
                    f"codegen: symbol @{name} exists but is not a function of type {ftype}"
                )
            return
        decl = func.FuncOp.external(name, list(inputs), list(outputs))
        block = self.module.body.block
        if self._last_declared is not None:  # keep the order of first use
            block.insert_op_after(decl, self._last_declared)
        elif block.first_op is None:
            block.add_op(decl)
        else:
            block.insert_op_before(decl, block.first_op)
        self._last_declared = decl
        known[name] = ftype

    def has(self, name: str) -> bool:
        return name in self._symbols()

    def add_definition(self, op: func.FuncOp) -> None:
        """Append a helper function definition unless its name is taken."""
        known = self._symbols()
        name = op.sym_name.data
        if name in known:
            if known[name] != op.function_type:
                raise DiagnosticException(f"codegen: symbol @{name} exists with another type")
            return
        self.module.body.block.add_op(op)
        known[name] = op.function_type
