"""Rename kernels called like a C library symbol: `@exp` -> `@__codegen_renamed_exp`.

A public `func.func @exp` (an op-level test kernel, or a user's function named `log`)
breaks native code twice: LLVM lowers `llvm.exp.f64` to a call of the libm symbol
`exp`, which then binds to the kernel itself (a segfault, measured), and
`convert-math-to-llvm` cannot declare libm's `@expm1` next to a kernel `@expm1`.
So every definition (public or private: a private `@exp` captures the libcall just
the same) whose name libc, libm or libgcc_s define (as loaded in this process) is
renamed `__codegen_renamed_<name>`, and the `func.call`s of it follow. Declarations
keep their names: they are how the C library is called.
`codegen.jit.JitModule` still finds it as `exp`; `codegen.object_file` refuses to
export it from a shared library (rename the function for that).

Runs first in `LOOPS_TO_LLVM`, before anything declares libm functions.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from codegen.symbols import is_c_library_symbol, renamed


class RenameCLibraryClashesPass(ModulePass):
    name = "rename-c-library-clashes"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        functions = [f for f in op.ops if isinstance(f, func.FuncOp)]
        taken = {f.sym_name.data for f in functions}
        mapping: dict[str, str] = {}
        for f in functions:
            name = f.sym_name.data
            if f.is_declaration or not is_c_library_symbol(name):
                continue
            new = renamed(name)
            if new in taken:
                raise DiagnosticException(f"codegen: cannot rename @{name}: @{new} exists")
            f.sym_name = builtin.StringAttr(new)
            mapping[name] = new
            taken.add(new)
        if not mapping:
            return
        for inner in op.walk():
            if isinstance(inner, func.CallOp) and (new := mapping.get(inner.callee.string_value())):
                inner.callee = builtin.SymbolRefAttr(new)
