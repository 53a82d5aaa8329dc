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
- the ABI layer, a C file: it checks the sizes against the captured ranges, the pointers
  against NULL and the element counts against overflow, writes messages that name the
  argument, holds the weights as `static const` arrays, and calls the kernel with a status
  variable of its own (so the library has no mutable global state: reentrant).

The wrapper is C, not LLVM IR, because it is checks and messages: C says that legibly,
and gcc compiles it against the header it includes, so header and library cannot drift.
Both are C files in `templates/` (`library.h`, `library_abi.c`, and for a potential
`potential_entry.h`, `potential_entry.c`) with `${placeholders}` for what varies per
model; this module computes their values from the signature record (C names, dims as C
expressions, literals, the size checks, the tensor table, the weights, the kernel's
prototype and call) and fills them with string.Template (`c_text.fill`).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import llvmlite.binding as llvm
import sympy
import torch

from codegen.llvm_ir import compile_llvm, host_target_machine
from codegen.object_file import LinkError, c_compiler, link_shared_library
from pipeline.deploy.c_text import c_dim, c_literal, c_string, comment, fill, wrap
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
        wrapper_c.write_text(wrapper_source(sig, entry))
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
    outputs, index = [], {s.name: k for k, s in enumerate(record.sizes)}
    for o in record.outputs:
        _c_type(o.dtype, f"output {o.position}")
        try:
            [c_dim(d, index) for d in o.dims]  # every dim has a C form
        except ValueError as e:
            raise ExportError(f"output {o.position}: {e}") from None
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


# --------------------------------------------------------------------------- the header and the ABI layer


def _output_shapes_prototype(sig: _Signature) -> str:
    return f"int {sig.lib}_output_shapes(const int64_t *sizes, int64_t *shapes, char *message, size_t message_size)"


def _workspace_bytes_prototype(sig: _Signature) -> str:
    return f"int {sig.lib}_workspace_bytes(const int64_t *sizes, int64_t *bytes, char *message, size_t message_size)"


def _run_prototype(sig: _Signature, *, workspace: bool = False) -> str:
    """`<lib>_run` (or `<lib>_run_with_workspace`) on one line, for the manifest; the
    templates spell the same parameters out (`_tensor_parameters` fills the tensors)."""
    params = ["const int64_t *sizes", *(p.rstrip(",") for p in _tensor_parameters(sig))]
    params += ["void *workspace", "int64_t workspace_bytes"] if workspace else []
    params += ["char *message", "size_t message_size"]
    return f"int {sig.lib}_run{'_with_workspace' if workspace else ''}({', '.join(params)})"


def _tensor_parameters(sig: _Signature) -> list[str]:
    """The tensors' parameters of `<lib>_run`, one a line: the inputs const, then the outputs."""
    return [f"const {t.ctype} *{t.name}," for t in sig.inputs] + [f"{t.ctype} *{t.name}," for t in sig.outputs]


def header_text(sig: _Signature, cpu: str, entry: _PotentialEntry | None = None) -> str:
    """The C header (`templates/library.h`): sizes, element types, status codes and the
    functions (and the potential's entry point)."""
    lib, codes = sig.lib, list(STATUS_CODES.items())
    slots = [f"{t.name} dim {k} ({comment(str(d))})" for t in sig.outputs for k, d in enumerate(t.dims)]
    return fill(
        "library.h", lib=lib, version=_version(), function=comment(sig.function), cpu=cpu,
        arguments=", ".join(t.name for t in sig.inputs), guard=f"{lib.upper()}_H",
        status_codes=[f"{code} = {value}{',' if k + 1 < len(codes) else ''}  /* {what} */"
                      for k, (code, (value, what)) in enumerate(codes)],
        num_sizes=len(sig.sizes),
        size_indices=[f"#define {lib}_size_{s.name} {k}  /* {s.name} in {s.range_text()}: {s.where_text()} */"
                      for k, s in enumerate(sig.sizes)],
        num_inputs=len(sig.inputs), num_outputs=len(sig.outputs), num_output_dims=sig.output_dims,
        element_types=[f"typedef {t.ctype} {lib}_{t.name}_t;  /* {t.name}: {comment(t.shape_text())} */"
                       for t in sig.inputs + sig.outputs],
        output_dims="; ".join(f"shapes[{k}] = {s}" for k, s in enumerate(slots)) or "(every output is 0-d)",
        tensor_shapes=[f"{t.name}: const {t.ctype}, shape {comment(t.shape_text())}" for t in sig.inputs]
        + [f"{t.name}: {t.ctype}, shape {comment(t.shape_text())} (written)" for t in sig.outputs],
        tensor_parameters=_tensor_parameters(sig),
        potential=[entry.header(), ""] if entry else [],
    )


def wrapper_source(sig: _Signature, entry: _PotentialEntry | None = None) -> str:
    """The C source of the ABI layer (`templates/library_abi.c`, and with a potential
    `templates/potential_entry.c`): checks, messages, weights, the kernel call."""
    tensors, n_sizes, n_arenas = sig.inputs + sig.outputs, len(sig.sizes), len(sig.arenas)
    sizes = [f"sizes[{k}]" for k in range(n_sizes)]
    kernel_parameters = (["int64_t"] * n_sizes + ["const void *"] * (len(sig.inputs) + len(sig.weights))
                         + ["void *"] * len(sig.outputs) + ["int32_t *", "int64_t"] + ["void *"] * n_arenas)
    kernel_arguments = (sizes + [t.name for t in sig.inputs] + [f"weight{k}" for k in range(len(sig.weights))]
                        + [t.name for t in sig.outputs] + ["&status", "omp_get_max_threads()"]
                        + [f"block + offset[{k}]" for k in range(n_arenas)])
    return fill(
        "library_abi.c", lib=sig.lib, function=comment(sig.function), kernel=sig.kernel,
        kernel_parameters=wrap(kernel_parameters, "    "), kernel_arguments=wrap(kernel_arguments, "      "),
        arena_sizes_parameters=", ".join(["int64_t"] * n_sizes + ["int64_t *"]),
        arena_sizes_call=[f"{sig.kernel}_arena_sizes({', '.join([*sizes, 'count'])});"] if n_arenas else [],
        num_arenas=n_arenas, arena_slots=max(1, n_arenas),
        arena_itemsizes=", ".join(str(_C_TYPES[d][1]) for d in sig.arenas) or "0",
        weight_elements=sum(w.tensor.numel() for w in sig.weights),
        weights=[_weight_array(sig, k) for k in range(len(sig.weights))],
        num_sites=len(sig.sites), site_slots=max(1, len(sig.sites)),
        sites=[f"{c_string(s)}," for s in sig.sites] or ['"",'],
        names=[f'"{t.name}",' for t in tensors], itemsizes=", ".join(str(t.itemsize) for t in tensors),
        num_tensors=len(tensors), tensors=", ".join(t.name for t in tensors),
        num_output_dims=sig.output_dims, shape_slots=max(1, sig.output_dims),
        size_checks=[_size_check(sig, k) for k in range(n_sizes)], element_counts=_element_counts(sig),
        tensor_parameters=_tensor_parameters(sig),
        potential=["", entry.source()] if entry else [],
    )


def _size_check(sig: _Signature, k: int) -> str:
    """`prepare`'s check of size k against its captured range."""
    s = sig.sizes[k]
    test = f"sizes[{k}] < {s.min}" + (f" || sizes[{k}] > {s.max}" if s.max is not None else "")
    where = ", ".join(f"argument '{a}' dim {d}" for a, d in s.where)
    msg = f"%s: size {s.name} = %\" PRId64 \" ({where}) is outside the range {s.range_text()} it was compiled for"
    return f"if ({test})\n  return report(message, message_size, PIPELINE_ERROR_SIZE, \"{msg}\", fn, sizes[{k}]);"


def _element_counts(sig: _Signature) -> list[str]:
    """`prepare`'s element count of every tensor (overflow-checked), the outputs' dims into shapes[]."""
    out, offset, index = [], 0, {s.name: k for k, s in enumerate(sig.sizes)}
    for j, t in enumerate(sig.inputs + sig.outputs):
        dims = [c_dim(d, index) for d in t.dims]
        if j >= len(sig.inputs):  # an output: its dims go to shapes[]
            out += [f"shapes[{offset + k}] = {d};" for k, d in enumerate(dims)]
            dims_ref = f"shapes + {offset}"
            offset += len(dims)
        else:
            dims_ref = f"(const int64_t[]){{{', '.join(dims)}}}" if dims else "NULL"
        out.append(f"count[{j}] = elements({dims_ref}, {len(dims)}, itemsize[{j}]);")
    return out


def _weight_array(sig: _Signature, k: int) -> str:
    """Weight k as a `static const` array of exact literals, six a line."""
    name, w = sig.weights[k].name, sig.weights[k].tensor
    values = w.detach().contiguous().reshape(-1).tolist() or [0]
    ctype = _C_TYPES[w.dtype][0]
    rows = [", ".join(c_literal(v, w.dtype) for v in values[i:i + 6]) for i in range(0, len(values), 6)]
    body = ",\n  ".join(rows)
    return (f"/* {comment(name)}: {w.dtype}, shape {tuple(w.shape)} */\n"
            f"static const {ctype} weight{k}[{len(values)}] __attribute__((aligned(64))) = {{\n  {body}\n}};")


# --------------------------------------------------------------------------- the potential's entry point


@dataclass(frozen=True)
class _PotentialEntry:
    """`pipeline_potential()` of `pipeline_potential.h`: a fixed C signature over `<lib>_run`."""

    sig: _Signature
    info: PotentialInfo
    atoms: int  # index of N in `sizes`
    edges: int  # index of E in `sizes`

    def header(self) -> str:
        """What the library's header says of it (`templates/potential_entry.h`)."""
        return fill("potential_entry.h", function=comment(self.sig.function), cutoff=repr(self.info.cutoff),
                    layers=self.info.layers, species=comment(" ".join(self.info.species)))

    def source(self) -> str:
        """Its C source (`templates/potential_entry.c`), after the ABI layer's."""
        sig, info = self.sig, self.info
        real = next(t.ctype for t in sig.inputs if t.name == "positions")
        cast = {"species": "species", "positions": f"({real} const *)positions", "edge_index": "edge_index",
                "shifts": f"({real} const *)shifts", "n_local": "&n_local"}
        return fill(
            "potential_entry.c", lib=sig.lib, real=real, cutoff=float(info.cutoff).hex(), layers=info.layers,
            arguments=", ".join(cast[t.argument] for t in sig.inputs),  # in the compiled order, by name
            size_atoms=f"{sig.lib}_size_{sig.sizes[self.atoms].name}",
            size_edges=f"{sig.lib}_size_{sig.sizes[self.edges].name}",
            num_species=len(info.species), species=", ".join(c_string(s) for s in info.species),
        )


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


__all__ = ["ExportError", "STATUS_CODES", "export_library", "header_text", "kernel_object", "manifest_data",
           "wrapper_source"]
