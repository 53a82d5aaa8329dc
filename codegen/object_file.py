"""Object file and shared library for deployment (no Python, no libtorch at run time).

    obj = emit_object(llvm_module)                    # bytes, ELF relocatable, PIC
    so = build_shared_library(llvm_module, "model.so")  # gcc -shared ... -lm
    exported_symbols(so)                              # ['ew_exp', ...]

Code is optimized for *this* CPU by default (`cpu="generic"` for a portable build).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import llvmlite.ir as ir
from xdsl.dialects import builtin

from codegen.llvm_ir import CompiledLLVM, compile_llvm, host_target_machine
from codegen.symbols import is_c_library_symbol, original_name


class LinkError(Exception):
    """The system C compiler failed to link the shared library."""


class SymbolClashError(ValueError):
    """A function would be exported under the name of a C library symbol."""


def check_exported_names(names: Sequence[str]) -> None:
    """Refuse to export `exp`, `free` & co: inside the library, LLVM's own libm calls
    (and every other user of the process) would bind to the kernel instead. Kernels
    that `rename-c-library-clashes` renamed (`__codegen_renamed_exp`) are refused too."""
    clashes = [original_name(n) or n for n in names if original_name(n) is not None or is_c_library_symbol(n)]
    if clashes:
        raise SymbolClashError(
            f"codegen: {', '.join('@' + n for n in clashes)} would shadow the C library symbol(s) of that "
            "name in a shared library; give the function(s) another name (e.g. a model prefix)"
        )


def emit_object(
    module: builtin.ModuleOp | ir.Module | str,
    *,
    speed_level: int = 3,
    cpu: str | None = None,
    features: str | None = None,
) -> bytes:
    """Compile to a position-independent object file (reloc=pic), optimized at O3."""
    tm = host_target_machine(reloc="pic", codemodel="default", cpu=cpu, features=features)
    compiled: CompiledLLVM = compile_llvm(module, speed_level=speed_level, target_machine=tm)
    check_exported_names(
        [f.name for f in compiled.ref.functions if not f.is_declaration and f.linkage.name == "external"]
    )
    return tm.emit_object(compiled.ref)


def c_compiler() -> str:
    """$CC, else cc, else gcc on PATH."""
    for candidate in (os.environ.get("CC"), "cc", "gcc"):
        if candidate and shutil.which(candidate.split()[0]):
            return candidate
    raise LinkError("no C compiler found (set $CC, or install gcc)")


def link_shared_library(
    objects: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    libraries: Sequence[str] = ("m", "gomp"),
    extra_flags: Sequence[str] = (),
) -> Path:
    """`cc -shared -o output objects... -lm -lgomp` (non-executable stack); a library
    no object calls is not linked (`--as-needed`: libgomp only for parallel loops).
    `-z nodelete`: dlclose never unmaps it, since the OpenMP worker threads it started
    outlive the call (unmapped under them, they crashed the C++ program at exit)."""
    output = Path(output)
    cmd = [
        *c_compiler().split(),
        "-shared",
        "-o",
        str(output),
        *(str(o) for o in objects),
        "-Wl,-z,noexecstack",
        "-Wl,-z,nodelete",
        *extra_flags,
        "-Wl,--as-needed",
        *(f"-l{lib}" for lib in libraries),
    ]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise LinkError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr}")
    return output


def build_shared_library(
    module: builtin.ModuleOp | ir.Module | str,
    output: str | os.PathLike[str],
    *,
    speed_level: int = 3,
    cpu: str | None = None,
    features: str | None = None,
    keep_object: bool = False,
) -> Path:
    """Compile `module` and link it into the shared library `output`; returns its path.

    With `keep_object`, the object file stays beside it as `<output>.o`."""
    output = Path(output)
    obj = emit_object(module, speed_level=speed_level, cpu=cpu, features=features)
    if keep_object:
        obj_path = output.with_suffix(output.suffix + ".o")
        obj_path.write_bytes(obj)
        return link_shared_library([obj_path], output)
    with tempfile.TemporaryDirectory() as tmp:
        obj_path = Path(tmp) / "module.o"
        obj_path.write_bytes(obj)
        return link_shared_library([obj_path], output)


def exported_symbols(library: str | os.PathLike[str]) -> list[str]:
    """Defined dynamic symbols of a shared library (`nm -D --defined-only`)."""
    nm = shutil.which("nm")
    if nm is None:
        raise FileNotFoundError("nm (binutils) is not installed")
    out = subprocess.run([nm, "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    return [line.split()[-1] for line in out.stdout.splitlines() if line.strip()]


__all__ = ["LinkError", "SymbolClashError", "check_exported_names", "build_shared_library", "c_compiler", "emit_object", "exported_symbols", "link_shared_library"]
