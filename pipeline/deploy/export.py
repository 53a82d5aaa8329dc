"""Export a `CompiledFunction` as a standalone library: `<name>.so`, `<name>.h`, `<name>.json`.

    library = export_library(compiled, Path("build"), name="lennard_jones", target_cpu="x86-64-v3")

The library needs only libc, libm and (for parallel loops) GCC's OpenMP runtime
libgomp: no Python, no libtorch, the weights inside.
It is two objects linked by the system C compiler:

- the kernel, from the very LLVM IR the JIT runs, through `codegen.llvm_ir.compile_llvm`
  and llvmlite's object emission, as position-independent code: for the host, the JIT's
  O3 output `opt.ll` (only codegen is redone); for a named CPU, `ll` optimized for it.
  The one change is its symbol: `<name>_kernel`, hidden, so two models can share a
  program;
- the ABI layer, a generated C file: it checks the sizes against the captured ranges,
  the pointers against NULL and the element counts against overflow, writes messages that
  name the argument, holds the weights as `static const` arrays, and calls the kernel with
  a status variable of its own (so the library has no mutable global state: reentrant).

The wrapper is C, not LLVM IR, because it is checks and messages: C says that legibly,
and gcc compiles it against the header it includes, so header and library cannot drift.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import llvmlite.binding as llvm
import sympy
import torch

from codegen.llvm_ir import compile_llvm, host_target_machine
from codegen.object_file import LinkError, c_compiler, link_shared_library
from pipeline.signature import Size, Weight, symbol

if TYPE_CHECKING:
    from pipeline.compiler import CompiledFunction

POTENTIAL_HEADER = Path(__file__).with_name("pipeline_potential.h")


class ExportError(Exception):
    """The compiled function cannot be exported as a C library."""


STATUS_CODES: dict[str, tuple[int, str]] = {
    "PIPELINE_OK": (0, "success"),
    "PIPELINE_ERROR_NULL": (1, "a pointer argument is NULL (allowed only for an empty tensor)"),
    "PIPELINE_ERROR_SIZE": (2, "the sizes break the captured relations (a symbol's range), or overflow"),
    "PIPELINE_ERROR_INDEX": (3, "an index tensor holds an out-of-range index"),
    "PIPELINE_ERROR_MEMORY": (4, "the workspace for these sizes cannot be allocated"),
    "PIPELINE_ERROR_ASSERT": (5, "an assertion of the captured graph failed (torch raises there too)"),
}
"""Return codes of every exported function, the same for every library."""

_C_TYPES: dict[torch.dtype, tuple[str, int]] = {
    torch.float32: ("float", 4),
    torch.float64: ("double", 8),
    torch.int64: ("int64_t", 8),
    torch.int32: ("int32_t", 4),
    torch.int16: ("int16_t", 2),
    torch.int8: ("int8_t", 1),
    torch.uint8: ("uint8_t", 1),
    torch.bool: ("uint8_t", 1),  # one byte, 0 or 1, as torch stores it
}

_C_KEYWORDS = set(
    "auto bool break case char const continue default do double else enum extern false float for goto "
    "if inline int long register restrict return short signed sizeof static struct switch true typedef "
    "union unsigned void volatile while class namespace new delete template this operator private "
    "public protected virtual".split()
)


@dataclass(frozen=True)
class _Tensor:
    name: str  # the C parameter name
    dtype: torch.dtype
    dims: tuple[int | sympy.Expr, ...]
    argument: str = ""  # the function's name of an input

    @property
    def ctype(self) -> str:
        return _C_TYPES[self.dtype][0]

    @property
    def itemsize(self) -> int:
        return _C_TYPES[self.dtype][1]

    def shape_text(self) -> str:
        return "(" + ", ".join(str(d) for d in self.dims) + ("," if len(self.dims) == 1 else "") + ")"


@dataclass(frozen=True)
class _Signature:
    """What the ABI layer needs to know, in C terms."""

    lib: str
    function: str
    sizes: tuple[Size, ...]
    inputs: list[_Tensor]  # in the compiled order, with C parameter names
    outputs: list[_Tensor]
    weights: tuple[Weight, ...]
    sites: tuple[str, ...]
    arenas: tuple[torch.dtype, ...]  # the kernel's workspace: one buffer per element type

    @property
    def kernel(self) -> str:
        return f"{self.lib}_kernel"

    @property
    def arena_sizes(self) -> str:
        return f"{self.lib}_kernel_arena_sizes"

    @property
    def output_dims(self) -> int:
        return sum(len(t.dims) for t in self.outputs)


@dataclass(frozen=True)
class PotentialInfo:
    """What an engine must know of a potential besides its function: written into the
    exported library (`pipeline_potential()`) and its manifest."""

    cutoff: float
    layers: int
    species: tuple[str, ...]


# --------------------------------------------------------------------------- entry point


def export_library(
    compiled: CompiledFunction,
    directory: str | Path,
    *,
    target_cpu: str | None = None,
    name: str | None = None,
    potential: PotentialInfo | None = None,
) -> Path:
    """Write `<name>.so`, `<name>.h` and `<name>.json` into `directory`; return the .so path.

    `name` (default: the function's name) prefixes every symbol (`<name>_run`), so
    libraries of several models can be linked into one program. `target_cpu` is an LLVM
    CPU name (`x86-64-v3`, `skylake-avx512`, ...); the default is the host CPU with all
    its features, so the library runs only on CPUs that have them. With `potential` (from
    `Potential.export`), the library also exports `pipeline_potential()`, the entry point
    of `pipeline_potential.h` that MD engines load by name, and that header is copied along.
    """
    lib = name or compiled.name
    sig = _signature(compiled, lib)
    entry = _potential_entry(sig, potential) if potential is not None else None
    if target_cpu is not None:
        _check_cpu(target_cpu)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    header = directory / f"{lib}.h"
    library = directory / f"{lib}.so"
    cpu = target_cpu or llvm.get_host_cpu_name()
    features = "" if target_cpu else llvm.get_host_cpu_features().flatten()
    header.write_text(header_text(sig, cpu, entry))
    if entry is not None:
        shutil.copyfile(POTENTIAL_HEADER, directory / POTENTIAL_HEADER.name)
    with tempfile.TemporaryDirectory(prefix=f"{lib}-") as tmp:
        kernel_o = Path(tmp) / "kernel.o"
        kernel_o.write_bytes(kernel_object(compiled, lib, target_cpu))
        wrapper_c = Path(tmp) / f"{lib}_abi.c"
        wrapper_c.write_text(wrapper_source(sig) + (entry.source() if entry else ""))
        wrapper_o = Path(tmp) / "abi.o"
        _compile_c(wrapper_c, wrapper_o, include=directory)
        link_shared_library(
            [kernel_o, wrapper_o], library,
            extra_flags=["-Wl,-z,defs", f"-Wl,-soname,{lib}.so", "-Wl,--exclude-libs,ALL"],
        )
    manifest = manifest_data(sig, cpu, features, _object_passes(cpu, target_cpu is None))
    data = library.read_bytes()  # what a loader checks before dlopen: a truncated or damaged copy
    manifest["library_bytes"] = len(data)
    manifest["library_sha256"] = hashlib.sha256(data).hexdigest()
    if potential is not None:
        manifest["potential"] = {"entry": "pipeline_potential", "header": POTENTIAL_HEADER.name,
                                 "cutoff": potential.cutoff, "layers": potential.layers,
                                 "species": list(potential.species)}
    (directory / f"{lib}.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return library


def _object_passes(cpu: str, host: bool) -> list[str]:
    if host:
        start = ["opt.ll (the JIT's O3 output for this CPU)"]
    else:
        start = ["ll", f"O3 for {cpu} (loop + SLP vectorization)"]
    return [*start, f"llvmlite object emission for {cpu}, PIC", "cc -shared with the ABI layer, -lm"]


def kernel_object(compiled: CompiledFunction, lib: str, target_cpu: str | None = None) -> bytes:
    """The kernel's object code, PIC, its functions renamed `<lib>_kernel...` and hidden
    (`energy_forces` -> `<lib>_kernel`, `energy_forces_arena_sizes` -> `<lib>_kernel_arena_sizes`).

    For the host: `opt.ll`, the IR the JIT runs, already O3 for this CPU (so only codegen
    is repeated). For another CPU: `ll`, optimized at O3 for that CPU.
    """
    tm = host_target_machine(reloc="pic", codemodel="default", cpu=target_cpu)
    if target_cpu is None:
        optimized = compile_llvm(compiled.ir("opt.ll"), speed_level=0, target_machine=tm)
    else:
        optimized = compile_llvm(compiled.ir("ll"), target_machine=tm)
    _check_kernel(optimized.ref, compiled)
    for fn in optimized.ref.functions:
        if not fn.is_declaration:
            rest = fn.name.removeprefix(compiled.name)
            fn.name = f"{lib}_kernel{rest}" if rest != fn.name else f"{lib}_kernel_{fn.name}"
            if fn.linkage.name not in ("internal", "private"):  # local symbols have no visibility
                fn.visibility = "hidden"
    return tm.emit_object(optimized.ref)


def _check_cpu(cpu: str) -> None:
    """LLVM aborts the process on some unknown CPU names, so try the name in a child first."""
    probe = (
        "import llvmlite.binding as l\n"
        "l.initialize_native_target(); l.initialize_native_asmprinter()\n"
        "tm = l.Target.from_triple(l.get_process_triple()).create_target_machine(cpu=CPU, reloc='pic')\n"
        "tm.emit_object(l.parse_assembly('define void @f() {\\n ret void\\n}'))\n"
    ).replace("CPU", repr(cpu))
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if result.returncode != 0 or "not a recognized processor" in result.stderr:
        raise ExportError(f"LLVM does not know the CPU '{cpu}' for {llvm.get_process_triple()} "
                          "(for example x86-64-v3, skylake-avx512, znver4; omit it for this host)")


def _compile_c(source: Path, output: Path, *, include: Path) -> None:
    cmd = [*c_compiler().split(), "-std=c11", "-O2", "-fPIC", "-fvisibility=hidden",
           "-Wall", "-Wextra", "-Werror", "-I", str(include), "-c", str(source), "-o", str(output)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise LinkError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr}")


# --------------------------------------------------------------------------- signature


def _signature(compiled: CompiledFunction, lib: str) -> _Signature:
    """The compile's signature record in C terms: C names, C types, sympy dims."""
    record = compiled.signature
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", lib) or lib in _C_KEYWORDS:
        raise ExportError(f"library name '{lib}' is not a C identifier")
    if compiled.profile_nests:
        raise ExportError(f"{record.name} was compiled with profile=True (its kernel times each loop nest); "
                          "export a compile without it")
    for s in record.sizes:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s.name):
            raise ExportError(f"size symbol '{s.name}' is not an ASCII identifier")
    taken = {"sizes", "message", "message_size", "status", *(s.name for s in record.sizes)}
    inputs = []
    for a in record.arguments:
        _c_type(a.dtype, f"argument '{a.name}'")
        dims = tuple(symbol(d) if isinstance(d, str) else d for d in a.dims)
        inputs.append(_Tensor(_c_name(a.name, taken), a.dtype, dims, a.name))
    outputs = []
    for o in record.outputs:
        _c_type(o.dtype, f"output {o.position}")
        outputs.append(_Tensor(_c_name(f"out{o.position}", taken), o.dtype, o.dims))
    for w in record.weights:
        _c_type(w.tensor.dtype, f"weight '{w.name}'")
    for dtype in record.arenas:
        _c_type(dtype, "a workspace arena")
    return _Signature(lib, record.name, record.sizes, inputs, outputs, record.weights, record.sites, record.arenas)


def _c_type(dtype: torch.dtype, what: str) -> str:
    if dtype not in _C_TYPES:
        raise ExportError(f"{what} has dtype {dtype}, which has no C type here "
                          f"(supported: {', '.join(str(d) for d in _C_TYPES)})")
    return _C_TYPES[dtype][0]


def _c_name(name: str, taken: set[str]) -> str:
    """A C parameter name for a Python argument name (keywords and clashes get a `_`)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ExportError(f"argument name '{name}' is not an ASCII identifier")
    while name in _C_KEYWORDS or name in taken:
        name += "_"
    taken.add(name)
    return name


def _check_kernel(module: llvm.ModuleRef, compiled: CompiledFunction) -> None:
    """The kernel's LLVM parameters must be those of the signature record (sizes,
    inputs, weights, outputs, status, threads, arenas; `@<name>_arena_sizes(sizes,
    counts)` with arenas): the ABI layer calls it so."""
    record = compiled.signature
    expected = {record.name: [t for _, t in record.kernel_parameters()]}
    if record.arenas:
        expected[f"{record.name}_arena_sizes"] = ["i64"] * len(record.sizes) + ["ptr"]
    for name, want in expected.items():
        fn = next((f for f in module.functions if f.name == name and not f.is_declaration), None)
        types = [str(a.type) for a in fn.arguments] if fn else None
        if types != want:
            raise ExportError(f"@{name} takes ({', '.join(types or ['not defined'])}); the ABI layer "
                              f"expects ({', '.join(want)}): sizes, inputs, weights, outputs, status, threads, arenas")


# --------------------------------------------------------------------------- the header


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


def _output_shapes_prototype(sig: _Signature) -> str:
    return (f"int {sig.lib}_output_shapes(const int64_t *sizes, int64_t *shapes, "
            "char *message, size_t message_size)")


def _workspace_bytes_prototype(sig: _Signature) -> str:
    return f"int {sig.lib}_workspace_bytes(const int64_t *sizes, int64_t *bytes, char *message, size_t message_size)"


def _run_prototype(sig: _Signature, *, multiline: bool = False, workspace: bool = False,
                   head: str | None = None) -> str:
    params = ["const int64_t *sizes"]
    params += [f"const {t.ctype} *{t.name}" for t in sig.inputs]
    params += [f"{t.ctype} *{t.name}" for t in sig.outputs]
    params += ["void *workspace", "int64_t workspace_bytes"] if workspace else []
    params += ["char *message", "size_t message_size"]
    head = head or f"int {sig.lib}_run{'_with_workspace' if workspace else ''}("
    return head + (",\n" + " " * len(head) if multiline else ", ").join(params) + ")"


def header_text(sig: _Signature, cpu: str, entry: _PotentialEntry | None = None) -> str:
    """The C header: sizes, element types, status codes and the two functions (and the
    potential's entry point)."""
    lib, guard = sig.lib, f"{sig.lib.upper()}_H"
    args = ", ".join(t.name for t in sig.inputs)
    lines = [
        f"/* {lib}.h: the C ABI of {lib}.so, generated by pipeline {_version()}.",
        " *",
        f" * {_comment(sig.function)}({args}): forward and grad, compiled for {cpu},",
        " * with its weights inside.",
        " * The library needs only libc, libm and libgomp (OpenMP: parallel loops use",
        " * OMP_NUM_THREADS threads, default every core). It keeps no mutable global state: calls on",
        " * different buffers may run at once from several threads. Tensors are C-contiguous",
        " * (row-major); outputs are allocated by the caller and must not overlap the inputs.",
        " * A call allocates the kernel's workspace for its sizes (malloc) and frees it on return.",
        " *",
        " * Every function returns a status (PIPELINE_OK, or a PIPELINE_ERROR_* code) and, when",
        " * `message` is not NULL, writes a NUL-terminated explanation into it (at most",
        ' * message_size bytes; "" on success).',
        " */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        "#ifndef PIPELINE_STATUS_DEFINED",
        "#define PIPELINE_STATUS_DEFINED",
        "/* Status codes, the same for every library that pipeline exports. */",
        "enum pipeline_status {",
    ]
    for k, (code, (value, what)) in enumerate(STATUS_CODES.items()):
        comma = "," if k + 1 < len(STATUS_CODES) else ""
        lines.append(f"  {code} = {value}{comma}  /* {what} */")
    lines += ["};", "#endif", "", "/* Size symbols: their order in `sizes`, their ranges, where they come from. */",
              f"#define {lib}_num_sizes {len(sig.sizes)}"]
    for k, s in enumerate(sig.sizes):
        lines.append(f"#define {lib}_size_{s.name} {k}  /* {s.name} in {s.range_text()}: {s.where_text()} */")
    lines += [
        f"#define {lib}_num_inputs {len(sig.inputs)}",
        f"#define {lib}_num_outputs {len(sig.outputs)}",
        f"#define {lib}_num_output_dims {sig.output_dims}  /* int64_t values {lib}_output_shapes writes */",
        "",
        "/* Element types of the tensor arguments. */",
    ]
    for t in sig.inputs + sig.outputs:
        lines.append(f"typedef {t.ctype} {lib}_{t.name}_t;  /* {t.name}: {_comment(t.shape_text())} */")
    slots = []
    for t in sig.outputs:
        for k, d in enumerate(t.dims):
            slots.append(f"shapes[{len(slots)}] = {t.name} dim {k} ({_comment(str(d))})")
    lines += [
        "",
        "/* The output shapes for the given sizes: every output's dims, in order, into",
        f" * shapes[0 .. {lib}_num_output_dims): " + ("; ".join(slots) if slots else "(every output is 0-d)") + ".",
        " */",
        _output_shapes_prototype(sig) + ";",
        "",
        "/* Run forward and grad. sizes[k] is the size symbol k above; the tensors are",
    ]
    for t in sig.inputs:
        lines.append(f" *   {t.name}: const {t.ctype}, shape {_comment(t.shape_text())}")
    for t in sig.outputs:
        lines.append(f" *   {t.name}: {t.ctype}, shape {_comment(t.shape_text())} (written)")
    lines += [
        " * A pointer may be NULL only when its tensor has no elements.",
        " */",
        _run_prototype(sig, multiline=True) + ";",
        "",
        "/* The same with the caller's workspace: a call allocates none, so calls in a loop (an MD",
        " * run) do not touch fresh pages each time. `workspace` must be 64-byte aligned and",
        f" * hold the bytes {lib}_workspace_bytes gives for these sizes (a block large enough for",
        " * larger sizes serves smaller ones too); NULL means allocate per call, as above. One",
        " * workspace serves one call at a time. */",
        _workspace_bytes_prototype(sig) + ";",
        _run_prototype(sig, multiline=True, workspace=True) + ";",
        "",
        *(entry.header_lines() if entry else []),
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        f"#endif /* {guard} */",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the ABI layer


def _c_string(text: str) -> str:
    out = []
    for byte in text.encode():
        ch = chr(byte)
        if ch in '"\\' or not 32 <= byte < 127:
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _c_literal(value: float | int | bool, dtype: torch.dtype) -> str:
    if dtype in (torch.float32, torch.float64):
        suffix = "f" if dtype == torch.float32 else ""
        v = float(value)
        if v != v:
            return "NAN"
        if v in (float("inf"), float("-inf")):
            return ("-" if v < 0 else "") + "INFINITY"
        return v.hex() + suffix  # exact: every float32 is a double
    v = int(value)
    if dtype == torch.int64 and v == -(2**63):
        return "INT64_MIN"
    return f"INT64_C({v})" if dtype == torch.int64 else str(v)


def _weight_array(sig: _Signature, k: int) -> str:
    name, w = sig.weights[k].name, sig.weights[k].tensor
    values = w.detach().contiguous().reshape(-1).tolist() or [0]
    ctype = _C_TYPES[w.dtype][0]
    rows = [", ".join(_c_literal(v, w.dtype) for v in values[i:i + 6]) for i in range(0, len(values), 6)]
    body = ",\n  ".join(rows)
    return (f"/* {_comment(name)}: {w.dtype}, shape {tuple(w.shape)} */\n"
            f"static const {ctype} weight{k}[{len(values)}] __attribute__((aligned(64))) = {{\n  {body}\n}};")


def _c_dim(d: int | sympy.Expr, sig: _Signature) -> str:
    """A dim as C integer arithmetic over `sizes[k]`: a constant, or the symbolic
    expression of the signature record (sizes are >= 0, so C's `/` and `%` are
    floor division and modulo)."""
    if isinstance(d, int):
        return f"INT64_C({d})"
    index = {s.name: k for k, s in enumerate(sig.sizes)}
    return f"(int64_t)({_c_expr(d, index)})"


def _c_expr(e: sympy.Basic, index: dict[str, int]) -> str:
    name = type(e).__name__
    args = [_c_expr(a, index) for a in e.args]
    if isinstance(e, sympy.Symbol):
        return f"sizes[{index[e.name]}]"
    if isinstance(e, sympy.Integer):
        return f"INT64_C({int(e)})"
    if isinstance(e, sympy.Add):
        return "(" + " + ".join(args) + ")"
    if isinstance(e, sympy.Mul):
        return "(" + " * ".join(args) + ")"
    if isinstance(e, sympy.Pow) and isinstance(e.exp, sympy.Integer) and int(e.exp) > 0:
        return "(" + " * ".join([args[0]] * int(e.exp)) + ")"
    if name == "FloorDiv":
        return f"({args[0]} / {args[1]})"
    if name == "CeilDiv":
        return f"(({args[0]} + {args[1]} - 1) / {args[1]})"
    if name in ("Mod", "PythonMod"):
        return f"({args[0]} % {args[1]})"
    if name in ("Max", "Min"):
        op = ">" if name == "Max" else "<"
        out = args[0]
        for a in args[1:]:
            out = f"({out} {op} {a} ? {out} : {a})"
        return out
    raise ExportError(f"the size expression {e} has no C form here ({name})")


def _wrap(items: list[str], indent: str) -> str:
    return textwrap.fill(", ".join(items), width=100, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def _workspace_functions(sig: _Signature) -> list[str]:
    """C helpers that lay the kernel's arenas out in one block: each 64-byte aligned."""
    n = len(sig.arenas)
    if not n:
        return ["static int layout(const char *fn, const int64_t *sizes, int64_t *offset, int64_t *total,",
                "                  char *message, size_t message_size) {",
                "  (void)fn, (void)sizes, (void)offset, (void)message, (void)message_size;",
                "  *total = 0;",
                "  return PIPELINE_OK;",
                "}",
                ""]
    sizes = ", ".join(f"sizes[{k}]" for k in range(len(sig.sizes)))
    return [
        "/* The kernel's workspace for these sizes: arena k at byte offset[k] of a block of *total. */",
        "static int layout(const char *fn, const int64_t *sizes, int64_t *offset, int64_t *total,",
        "                  char *message, size_t message_size) {",
        f"  int64_t count[{n}], bytes = 0;",
        f"  {sig.arena_sizes}({sizes}, count);",
        f"  for (int k = 0; k < {n}; k++) {{",
        "    int64_t size;",
        "    if (count[k] < 0 || __builtin_mul_overflow(count[k], (int64_t)arena_itemsize[k], &size) ||",
        "        size > INT64_MAX - 64 - bytes)",
        "      return report(message, message_size, PIPELINE_ERROR_MEMORY,",
        "                    \"%s: the workspace for these sizes overflows int64 (arena %d: %\" PRId64 \" elements)\",",
        "                    fn, k, count[k]);",
        "    offset[k] = bytes;",
        "    bytes += (size + 63) / 64 * 64;",
        "  }",
        "  *total = bytes;",
        "  return PIPELINE_OK;",
        "}",
        "",
    ]


def wrapper_source(sig: _Signature) -> str:
    """The C source of the ABI layer: checks, messages, weights, the kernel call."""
    lib, n_in, n_out = sig.lib, len(sig.inputs), len(sig.outputs)
    tensors = sig.inputs + sig.outputs
    n_arenas = len(sig.arenas)
    kernel_params = (["int64_t"] * len(sig.sizes) + ["const void *"] * (n_in + len(sig.weights))
                     + ["void *"] * n_out + ["int32_t *", "int64_t"] + ["void *"] * n_arenas)
    out: list[str] = [
        f"/* {lib}_abi.c: the public functions of {lib}.so around its kernel; generated by pipeline. */",
        "#include <inttypes.h>",
        "#include <math.h>",
        "#include <stdarg.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "",
        "int omp_get_max_threads(void);  /* libgomp: OMP_NUM_THREADS, or every core */",
        "",
        f'#include "{lib}.h"',
        "",
        "#define API __attribute__((visibility(\"default\")))",
        "",
        f"/* @{sig.function} of the JIT's LLVM IR, renamed and hidden. */",
        f"__attribute__((visibility(\"hidden\"))) void {sig.kernel}(",
        "    " + _wrap(kernel_params, "    ") + ");",
    ]
    if n_arenas:
        out += [
            "/* Its workspace: the elements of each arena (one per element type) for the sizes. */",
            f"__attribute__((visibility(\"hidden\"))) void {sig.arena_sizes}"
            f"({', '.join(['int64_t'] * len(sig.sizes) + ['int64_t *'])});",
            f"static const size_t arena_itemsize[{n_arenas}] = "
            f"{{{', '.join(str(_C_TYPES[d][1]) for d in sig.arenas)}}};",
        ]
    out += [
        "",
        f"/* Weights, in the kernel's argument order ({sum(w.tensor.numel() for w in sig.weights)} elements). */",
    ]
    out += [_weight_array(sig, k) for k in range(len(sig.weights))]
    out += ["", "/* Check sites (index ranges, assertions), by the status number the kernel writes (1-based). */",
            f"static const char *const sites[{max(1, len(sig.sites))}] = {{"]
    out += [f"  {_c_string(s)}," for s in sig.sites] or ['  "",']
    out += ["};", "", "static const char *const names[] = {"]
    out += [f'  "{t.name}",' for t in tensors]
    out += ["};", "", f"static const size_t itemsize[] = {{{', '.join(str(t.itemsize) for t in tensors)}}};", ""]
    out += [
        "__attribute__((format(printf, 4, 5)))",
        "static int report(char *message, size_t message_size, int code, const char *format, ...) {",
        "  if (message != NULL && message_size > 0) {",
        "    va_list args;",
        "    va_start(args, format);",
        "    vsnprintf(message, message_size, format, args);",
        "    va_end(args);",
        "  }",
        "  return code;",
        "}",
        "",
        "static int success(char *message, size_t message_size) {",
        "  if (message != NULL && message_size > 0) message[0] = '\\0';",
        "  return PIPELINE_OK;",
        "}",
        "",
        "/* Elements of a tensor with these dims; -1 if its size in bytes overflows int64_t. */",
        "static int64_t elements(const int64_t *dims, int rank, size_t size) {",
        "  int64_t n = 1, bytes;",
        "  for (int d = 0; d < rank; d++)",
        "    if (dims[d] < 0 || __builtin_mul_overflow(n, dims[d], &n)) return -1;",
        "  return __builtin_mul_overflow(n, (int64_t)size, &bytes) ? -1 : n;",
        "}",
        "",
        "/* Check the sizes; fill the dims of the outputs and every tensor's element count. */",
        "static int prepare(const char *fn, const int64_t *sizes, int64_t *shapes, int64_t *count,",
        "                   char *message, size_t message_size) {",
        "  if (sizes == NULL)",
        "    return report(message, message_size, PIPELINE_ERROR_NULL, \"%s: argument 'sizes' is NULL\", fn);",
    ]
    for k, s in enumerate(sig.sizes):
        test = f"sizes[{k}] < {s.min}" + (f" || sizes[{k}] > {s.max}" if s.max is not None else "")
        where = ", ".join(f"argument '{a}' dim {d}" for a, d in s.where)
        msg = (f"%s: size {s.name} = %\" PRId64 \" ({where}) is outside the range {s.range_text()} "
               "it was compiled for")
        out += [f"  if ({test})",
                f"    return report(message, message_size, PIPELINE_ERROR_SIZE, \"{msg}\", fn, sizes[{k}]);"]
    offset = 0
    for j, t in enumerate(tensors):
        dims = [_c_dim(d, sig) for d in t.dims]
        if j >= n_in:  # an output: its dims go to shapes[]
            for k, d in enumerate(dims):
                out.append(f"  shapes[{offset + k}] = {d};")
            dims_ref = f"shapes + {offset}"
            offset += len(dims)
        else:
            dims_ref = f"(const int64_t[]){{{', '.join(dims)}}}" if dims else "NULL"
        out.append(f"  count[{j}] = elements({dims_ref}, {len(dims)}, itemsize[{j}]);")
    out += [
        f"  for (int j = 0; j < {len(tensors)}; j++)",
        "    if (count[j] < 0)",
        "      return report(message, message_size, PIPELINE_ERROR_SIZE,",
        "                    \"%s: argument '%s' would be too large (a dim is negative, or its size \"",
        "                    \"in bytes overflows int64)\", fn, names[j]);",
        "  return PIPELINE_OK;",
        "}",
        "",
        *_workspace_functions(sig),
        f"API {_output_shapes_prototype(sig)} {{",
        f"  int64_t own[{max(1, sig.output_dims)}], count[{len(tensors)}];",
        f"  int code = prepare(\"{lib}_output_shapes\", sizes, own, count, message, message_size);",
        "  if (code != PIPELINE_OK) return code;",
        "  if (shapes == NULL)",
        "    return report(message, message_size, PIPELINE_ERROR_NULL,",
        f"                  \"{lib}_output_shapes: argument 'shapes' is NULL\");",
        f"  for (int k = 0; k < {sig.output_dims}; k++) shapes[k] = own[k];",
        "  return success(message, message_size);",
        "}",
        "",
        f"API {_workspace_bytes_prototype(sig)} {{",
        f"  const char *fn = \"{lib}_workspace_bytes\";",
        f"  int64_t shapes[{max(1, sig.output_dims)}], count[{len(tensors)}], offset[{max(1, n_arenas)}];",
        "  int code = prepare(fn, sizes, shapes, count, message, message_size);",
        "  if (code != PIPELINE_OK) return code;",
        "  if (bytes == NULL)",
        "    return report(message, message_size, PIPELINE_ERROR_NULL, \"%s: argument 'bytes' is NULL\", fn);",
        "  code = layout(fn, sizes, offset, bytes, message, message_size);",
        "  return code != PIPELINE_OK ? code : success(message, message_size);",
        "}",
        "",
        "/* Checks, the workspace (the caller's, or allocated here), the kernel call, its status. */",
        "static " + _run_prototype(sig, multiline=True, workspace=True, head="int execute(const char *fn, ") + " {",
        f"  int64_t shapes[{max(1, sig.output_dims)}], count[{len(tensors)}], offset[{max(1, n_arenas)}], need;",
        "  int code = prepare(fn, sizes, shapes, count, message, message_size);",
        "  if (code != PIPELINE_OK) return code;",
        f"  const void *const pointers[] = {{{', '.join(t.name for t in tensors)}}};",
        f"  for (int j = 0; j < {len(tensors)}; j++)",
        "    if (pointers[j] == NULL && count[j] > 0)",
        "      return report(message, message_size, PIPELINE_ERROR_NULL, \"%s: argument '%s' is NULL\", fn, names[j]);",
        "  code = layout(fn, sizes, offset, &need, message, message_size);",
        "  if (code != PIPELINE_OK) return code;",
        "  char *block = workspace;",
        "  if (workspace != NULL && workspace_bytes < need)",
        "    return report(message, message_size, PIPELINE_ERROR_SIZE, \"%s: the workspace holds %\" PRId64",
        f"                  \" bytes; these sizes need %\" PRId64 \" ({lib}_workspace_bytes)\", fn, workspace_bytes, need);",
        "  if (workspace != NULL && (uintptr_t)workspace % 64 != 0)",
        "    return report(message, message_size, PIPELINE_ERROR_SIZE, \"%s: the workspace is not 64-byte aligned\", fn);",
        "  if (workspace == NULL && need > 0 && (block = aligned_alloc(64, (size_t)need)) == NULL)",
        "    return report(message, message_size, PIPELINE_ERROR_MEMORY,",
        "                  \"%s: cannot allocate the workspace (%\" PRId64 \" bytes)\", fn, need);",
        "  int32_t status = 0;",
    ]
    call = ([f"sizes[{k}]" for k in range(len(sig.sizes))] + [t.name for t in sig.inputs]
            + [f"weight{k}" for k in range(len(sig.weights))] + [t.name for t in sig.outputs]
            + ["&status", "omp_get_max_threads()"]
            + [f"block + offset[{k}]" for k in range(n_arenas)])
    out += [f"  {sig.kernel}(" + _wrap(call, "      ") + ");"]
    out += [
        "  if (block != workspace) free(block);",
        "  if (status != 0) {",
        f"    const char *site = status >= 1 && status <= {len(sig.sites)} ? sites[status - 1] : \"an index\";",
        "    if (strncmp(site, \"assertion failed\", 16) == 0)",
        "      return report(message, message_size, PIPELINE_ERROR_ASSERT, \"%s: %s\", fn, site);",
        "    return report(message, message_size, PIPELINE_ERROR_INDEX, \"%s: %s: an index is out of range\", fn, site);",
        "  }",
        "  return success(message, message_size);",
        "}",
        "",
    ]
    args = ", ".join(["sizes", *(t.name for t in tensors)])
    for workspace in (False, True):
        name = f"{lib}_run{'_with_workspace' if workspace else ''}"
        rest = "workspace, workspace_bytes" if workspace else "NULL, 0"
        out += [f"API {_run_prototype(sig, multiline=True, workspace=workspace)} {{",
                f"  return execute(\"{name}\", {args}, {rest}, message, message_size);",
                "}",
                ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- the potential's entry point


@dataclass(frozen=True)
class _PotentialEntry:
    """`pipeline_potential()` of `pipeline_potential.h`: a fixed C signature over `<lib>_run`."""

    sig: _Signature
    info: PotentialInfo
    atoms: int  # index of N in `sizes`
    edges: int  # index of E in `sizes`

    def header_lines(self) -> list[str]:
        return [
            "/* A potential (pipeline_potential.h): the function above is",
            f" * {self.sig.function}(species, positions, edge_index, shifts, n_local) -> (energy,",
            " * energies, forces, virial); `pipeline_potential()` returns its description",
            f" * (cutoff {self.info.cutoff!r}, {self.info.layers} layer(s), species "
            f"{_comment(' '.join(self.info.species))})",
            " * and an entry point taking n_atoms, n_edges and n_local instead of `sizes`. */",
            '#include "pipeline_potential.h"',
            "",
        ]

    def source(self) -> str:
        sig, info = self.sig, self.info
        real = next(t.ctype for t in sig.inputs if t.name == "positions")
        cast = {"species": "species", "positions": f"({real} const *)positions", "edge_index": "edge_index",
                "shifts": f"({real} const *)shifts", "n_local": "&n_local"}
        arguments = ", ".join(cast[t.argument] for t in sig.inputs)  # in the compiled order, by name
        species = ", ".join(_c_string(s) for s in info.species)
        n_sizes = len(sig.sizes)
        return "\n".join([
            "",
            "/* The potential's entry point (pipeline_potential.h). */",
            f"static const char *const species_names[{len(info.species)}] = {{{species}}};",
            "",
            "static int compute(int64_t n_atoms, int64_t n_edges, int64_t n_local, const int64_t *species,",
            "                   const void *positions, const int64_t *edge_index, const void *shifts,",
            "                   void *energy, void *energies, void *forces, void *virial, void *workspace,",
            "                   int64_t workspace_bytes, char *message, size_t message_size) {",
            "  if (n_local < 0 || n_local > n_atoms)",
            "    return report(message, message_size, PIPELINE_ERROR_SIZE,",
            f"                  \"{sig.lib}: n_local = %\" PRId64 \" is outside [0, n_atoms = %\" PRId64 \"]\",",
            "                  n_local, n_atoms);",
            f"  int64_t sizes[{n_sizes}];",
            f"  sizes[{self.atoms}] = n_atoms;",
            f"  sizes[{self.edges}] = n_edges;",
            f"  return {sig.lib}_run_with_workspace(",
            f"      sizes, {arguments},",
            f"      ({real} *)energy, ({real} *)energies, ({real} *)forces, ({real} *)virial, workspace,",
            "      workspace_bytes, message, message_size);",
            "}",
            "",
            "static int workspace_bytes(int64_t n_atoms, int64_t n_edges, int64_t *bytes, char *message,",
            "                           size_t message_size) {",
            f"  int64_t sizes[{n_sizes}];",
            f"  sizes[{self.atoms}] = n_atoms;",
            f"  sizes[{self.edges}] = n_edges;",
            f"  return {sig.lib}_workspace_bytes(sizes, bytes, message, message_size);",
            "}",
            "",
            "static const struct pipeline_potential description = {",
            "  PIPELINE_POTENTIAL_ABI_VERSION,",
            f"  \"{sig.lib}\",",
            f"  sizeof({real}),",
            f"  {float(info.cutoff).hex()},",
            f"  {info.layers},",
            f"  {len(info.species)},",
            "  species_names,",
            "  compute,",
            "  workspace_bytes,",
            "};",
            "",
            "API const struct pipeline_potential *pipeline_potential(void) { return &description; }",
            "",
        ])


def _potential_entry(sig: _Signature, info: PotentialInfo) -> _PotentialEntry:
    """Check that the compiled function has the potential's arguments (by name, in any
    order) and outputs, with N and E as its only sizes."""
    inputs = {t.argument: t for t in sig.inputs}
    real = inputs["positions"].dtype if "positions" in inputs else None
    want = {"species": (torch.int64, 1), "positions": (real, 2), "edge_index": (torch.int64, 2),
            "shifts": (real, 2), "n_local": (torch.int64, 0)}
    have = {t.argument: (t.dtype, len(t.dims)) for t in sig.inputs}
    outputs = [(t.dtype, len(t.dims)) for t in sig.outputs]
    if real not in (torch.float32, torch.float64) or have != want or outputs != [(real, 0), (real, 1), (real, 2), (real, 2)]:
        raise ExportError(f"{sig.function} is not a potential: it takes "
                          f"{[(n, str(d), r) for n, (d, r) in have.items()]} and returns "
                          f"{[(str(d), r) for d, r in outputs]}; compile it with pipeline.compile_potential")
    where = {(a, d): k for k, s in enumerate(sig.sizes) for a, d in s.where}
    atoms, edges = where.get(("positions", 0)), where.get(("edge_index", 1))
    if atoms is None or edges is None or len(sig.sizes) != 2 or atoms == edges:
        raise ExportError(f"{sig.function}: the capture fixed the number of atoms or edges (sizes: "
                          f"{', '.join(f'{s.name} at {s.where_text()}' for s in sig.sizes) or 'none'}); "
                          "a potential must take any N and E")
    if sig.sizes[atoms].min > 1 or sig.sizes[edges].min > 0 or sig.sizes[atoms].max or sig.sizes[edges].max:
        raise ExportError(f"{sig.function}: the capture restricted N to {sig.sizes[atoms].range_text()} and E to "
                          f"{sig.sizes[edges].range_text()}; a potential must take any N >= 1 and E >= 0")
    for name in info.species:
        if not name or any(not 32 < ord(c) < 127 for c in name):
            raise ExportError(f"species name {name!r} must be printable ASCII without spaces")
    return _PotentialEntry(sig, info, atoms, edges)


# --------------------------------------------------------------------------- the manifest


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("pipeline")
    except Exception:  # not installed: a source checkout
        import tomllib

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            return str(tomllib.loads(pyproject.read_text())["project"]["version"])
        except Exception:
            return "unknown"


def _dim_json(d: int | sympy.Expr) -> int | str:
    return d if isinstance(d, int) else str(d)


def manifest_data(sig: _Signature, cpu: str, features: str, object_passes: list[str]) -> dict[str, Any]:
    """The JSON manifest: the signature in data form, the target, the compiler and its passes."""
    from pipeline.compiler import STAGES

    lib = sig.lib
    return {
        "name": lib,
        "function": sig.function,
        "library": f"{lib}.so",
        "header": f"{lib}.h",
        "abi": {"output_shapes": _output_shapes_prototype(sig), "run": _run_prototype(sig),
                "workspace_bytes": _workspace_bytes_prototype(sig),
                "run_with_workspace": _run_prototype(sig, workspace=True)},
        "status_codes": {code: value for code, (value, _) in STATUS_CODES.items()},
        "sizes": [{"name": s.name, "index": k, "min": s.min, "max": s.max,
                   "dims": [{"argument": a, "dim": d} for a, d in s.where]}
                  for k, s in enumerate(sig.sizes)],
        "inputs": [{"name": t.argument, "c_name": t.name, "dtype": str(t.dtype).removeprefix("torch."),
                    "c_type": t.ctype, "dims": [_dim_json(d) for d in t.dims]} for t in sig.inputs],
        "outputs": [{"name": t.name, "dtype": str(t.dtype).removeprefix("torch."), "c_type": t.ctype,
                     "dims": [_dim_json(d) for d in t.dims]} for t in sig.outputs],
        "weights": [{"name": w.name, "dtype": str(w.tensor.dtype).removeprefix("torch."),
                     "shape": list(w.tensor.shape)} for w in sig.weights],
        "index_sites": list(sig.sites),
        "target": {"triple": llvm.get_process_triple(), "cpu": cpu, "features": features},
        "compiler": {"name": "pipeline", "version": _version(),
                     "llvm": ".".join(str(v) for v in llvm.llvm_version_info)},
        "passes": [*({"stage": stage, "passes": list(passes)} for stage, passes in STAGES),
                   {"stage": "object", "passes": object_passes}],
    }


__all__ = ["ExportError", "STATUS_CODES", "export_library", "header_text", "kernel_object",
           "manifest_data", "wrapper_source"]
