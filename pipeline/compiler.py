"""`pipeline.compile`: capture once, lower stage by stage, call native code.

The stage list is data (`STAGES`): each stage is a list of registered passes, so
every pass can be dumped, rerun alone from the driver and tested by FileCheck.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import functools
import gc
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sympy
import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from codegen import LOOPS_TO_LLVM
from codegen.jit import JitModule
from codegen.llvm_ir import compile_llvm, host_target_machine, translate
from frontend.capture import Captured, capture
from frontend.errors import PinnedSize
from frontend.python_idioms import Decompositions
from frontend.import_fx import UnsupportedOpError, import_graph
from frontend.reference import TORCH_DTYPES
from frontend.speculation import Speculation, SpeculationFailed, failed_key
from pipeline.compile_trace import CompileTrace, aten_ops, fused_nests, planned_buffers
from pipeline.parallel_compile import compile_parts, jobs, split
from pipeline.progress import stage_progress
from pipeline.tune import Choice, Measured, TuneCache, TuneReport, apply_choices, check_budget, choose, tunables
from pipeline.registry import all_passes, context
from pipeline.signature import Argument, CallError, Output, Signature, Size, Weight, size_expression
from pipeline.verify import LEVELS, VerifyEachPass, verify_after

STAGES: list[tuple[str, list[str]]] = [
    ("aten", ["canonicalize", "cse"]),
    ("tensorexpr", ["lower-aten-to-tensorexpr", "canonicalize"]),
    ("fused", ["fuse-elementwise", "simplify-indices", "split-dims", "rows-first", "canonicalize", "pack-operands", "cse",
               "sparse-contractions", "schedule"]),
    ("loops", ["lower-tensorexpr-to-loops", "fuse-sibling-loops", "approximate-math", "plan-memory", "cse"]),
    ("llvm", LOOPS_TO_LLVM),
]
"""(stage, passes that produce it from the previous stage); `fx` and `aten` come first.
The tensorexpr stage runs no cse: a te op reads its inputs inside its body, so xDSL's
cse (which hashes an op by its operands: a te op's are its dims) compared the bodies of
every pair of same-shaped te ops, 0.1-0.26 s a model; the fused stage's cse, after
fusion has left few te ops, merges what is computed twice.
The loop-level passes emit what canonicalize would leave (constants once at the top,
no x + 0), so the loops stage runs one cse (what fused loops compute twice) and no
canonicalize: a walk over ~10k ops that changed nothing (0.25-0.5 s a model). The
tests hold the loops stage of every example and real model to it (`assert_canonical`)."""

TUNE_CALLS = 5
"""Calls timed per tuning round, after one warm-up (each loop's fastest counts)."""

STAGE_NAMES = ["fx", "aten", "tensorexpr", "fused", "loops", "llvm", "ll", "opt.ll", "asm"]
"""Every stage `CompiledFunction.ir` returns (the driver's --emit has the same list)."""

REPLAYED = ("aten", "tensorexpr", "fused", "loops")
"""The stages a compile does not print (but with trace=True or a dump_dir): printing
them cost 0.3 s (Allegro) to 0.8 s (MACE) of CPU while the llvm stage needed both
cores. `CompiledFunction.ir` prints them on first use, from the captured graph again
(`replayed_stages`: the passes are deterministic, so the texts are the compile's)."""


def stage_passes(profile: bool = False, trace: bool = False) -> list[tuple[str, list[str]]]:
    """`STAGES` as a compile runs them: with `profile`, each loop nest timed (profile-loops
    after fuse-sibling-loops); with `trace` (or tuning), provenance from the tensorexpr
    stage on."""
    stages = []
    for stage, passes in STAGES:
        if profile and stage == "loops":
            passes = [p for q in passes for p in ([q, "profile-loops"] if q == "fuse-sibling-loops" else [q])]
        if trace and stage == "tensorexpr":
            passes = [p + "{provenance=true}" if p == "lower-aten-to-tensorexpr" else p for p in passes]
        stages.append((stage, passes))
    return stages


def replayed_stages(captured: Captured, profile: bool = False,
                    schedules: Mapping[str, Choice] | None = None) -> dict[str, str]:
    """The texts of the `REPLAYED` stages of a compile of `captured` (with the tuned
    `schedules` it had), in one piece."""
    with _collector_paused():
        module = import_graph(captured).module
        ctx, available, texts = context(), all_passes(), {}
        for stage, passes in stage_passes(profile):
            if stage not in REPLAYED:
                break
            if stage == "fused" and schedules:
                PassPipeline.parse_spec(available, ",".join(passes[:-1])).apply(ctx, module)
                apply_choices(module, schedules)
                passes = passes[-1:]
            PassPipeline.parse_spec(available, ",".join(passes)).apply(ctx, module)
            texts[stage] = str(module)
        return texts


def default_threads() -> int:
    """The cores this process may run on (its affinity mask), at most torch's
    intra-op thread count, which follows OMP_NUM_THREADS and `torch.set_num_threads`
    (one thread per MPI rank says `torch.set_num_threads(1)` or OMP_NUM_THREADS=1)."""
    return max(1, min(len(os.sched_getaffinity(0)), torch.get_num_threads()))


@dataclass(frozen=True)
class NestProfile:
    """One loop nest of a `profile=True` compile: mean time and work per call."""

    nest: str
    """`nest k: N x 64 -> out1`: its position, loop extents and the buffers it stores to."""
    seconds: float
    flops: float
    """Floating-point operations (an FMA counts two)."""
    dtype: str
    """Its arithmetic's float type ("f32", "f64"; "" without float arithmetic)."""

    @property
    def gflops(self) -> float:
        return self.flops / self.seconds / 1e9 if self.seconds > 0 else 0.0



@dataclass
class CompiledFunction:
    """Native code for a captured forward + grad; call it like the function."""

    signature: Signature
    """The calling convention: arguments, sizes, outputs, weights, check sites, arenas."""
    jit: JitModule
    stages: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)
    num_threads: int = field(default_factory=default_threads)
    """Threads the parallel loops may use (default: `default_threads()`)."""
    profile_nests: list[str] = field(default_factory=list)
    """With `compile(..., profile=True)`: what each timed loop nest computes."""
    profile_dtypes: list[str] = field(default_factory=list)
    """... and the float type of its arithmetic ("f32", "f64", "": none)."""
    trace: CompileTrace | None = None
    """With `compile(..., trace=True)`: what the compile report shows."""
    replay: Callable[[], dict[str, str]] | None = None
    """The texts of the `REPLAYED` stages, computed again (`ir` calls it on first use)."""
    speculations: list[Speculation] = field(default_factory=list)
    """The sides of branches on data this code was compiled for (frontend.speculation)."""
    versions: _Versions | None = None
    """Compiles the other side when a call's data take it (set by `compile`)."""
    fixed_sizes: _FixedSizes | None = None
    """With `compile(..., specialize=True)`, when the code fixes a dynamic dim: the code
    for each size of it a call brings."""
    tuning: TuneReport | None = None
    """The register tiles chosen by measurement or from the cache (`compile(..., tune=)`)."""
    tuned_nests: list[str | None] = field(default_factory=list)
    """The tuning key of each fused-stage nest (None: not tuned), when tuned."""
    profile_members: list[list[int]] = field(default_factory=list)
    """With profile and provenance: the fused-stage nests each timed loop computes."""

    def __post_init__(self) -> None:
        sig = self.signature
        self._native = self.jit.function(self.name)
        self._arena_sizes = self.jit.function(f"{self.name}_arena_sizes") if sig.arenas else None
        self._weight_ptrs = [w.tensor.data_ptr() for w in sig.weights]
        self._local = threading.local()  # arenas are per thread: calls may run concurrently
        self._profile = torch.zeros(2 * len(self.profile_nests), dtype=torch.float64)  # seconds, flops
        self._profile_args = [self._profile.data_ptr()] if self.profile_nests else []
        self._calls = 0
        self._last_symbols: list[int] = []
        self._plan = [(a.dtype, a.dims) for a in sig.arguments]
        self._symbol_names = [s.name for s in sig.sizes]
        self._ranges = [(s.name, s.min, s.max) for s in sig.sizes]
        self._outputs = list(zip((o.dtype for o in sig.outputs), sig.output_shapes()))

    @property
    def name(self) -> str:
        return self.signature.name

    def workspace(self, symbols: Sequence[int]) -> list[torch.Tensor]:
        """Arenas that hold a call at these sizes: the last call's when they are large
        enough (in MD the edge count changes every few steps, and fresh pages cost more
        than the call), else new ones with a quarter of headroom."""
        key = tuple(symbols)
        cached = getattr(self._local, "arenas", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        counts = self._arena_counts(key)
        if cached is not None and all(a.numel() >= n for a, n in zip(cached[1], counts)):
            self._local.arenas = (key, cached[1])
            return cached[1]
        arenas = [torch.empty(max(n + n // 4, 1), dtype=d) for n, d in zip(counts, self.signature.arenas)]
        self._local.arenas = (key, arenas)
        return arenas

    def release_workspace(self) -> None:
        """Free this thread's arenas (the next call allocates them again): after a large
        system, or to measure a call's memory with its temporaries in it."""
        self._local.arenas = None

    def _arena_counts(self, symbols: tuple[int, ...]) -> list[int]:
        counts = torch.zeros(len(self.signature.arenas), dtype=torch.int64)
        assert self._arena_sizes is not None
        self._arena_sizes(*symbols, counts.data_ptr())
        return [int(n) for n in counts.tolist()]

    def workspace_bytes(self, symbols: Sequence[int]) -> int:
        """Bytes of temporaries one call needs at these sizes (the planned peak)."""
        if not self.signature.arenas:
            return 0
        return sum(n * d.itemsize for n, d in zip(self._arena_counts(tuple(symbols)), self.signature.arenas))

    def loop_seconds(self) -> list[float]:
        """Each timed loop's mean seconds per call, in loop order (profile=True)."""
        return (self._profile[: len(self.profile_nests)] / max(self._calls, 1)).tolist()

    def reset_profile(self) -> None:
        """Forget the calls timed so far (a warm-up)."""
        self._profile.zero_()
        self._calls = 0

    def profile(self) -> list[NestProfile]:
        """Each loop nest's mean time and floating-point work per call over the calls
        so far, slowest first; only for `compile(..., profile=True)`."""
        if not self.profile_nests:
            raise ValueError(f"{self.name} was not compiled with profile=True")
        per_call = (self._profile / max(self._calls, 1)).tolist()
        n = len(self.profile_nests)
        rows = [NestProfile(f"nest {k}: {text}", per_call[k], per_call[n + k], dtype)
                for k, (text, dtype) in enumerate(zip(self.profile_nests, self.profile_dtypes))]
        return sorted(rows, key=lambda p: -p.seconds)

    def last_sizes(self) -> dict[str, int]:
        """The size symbols of the last call ({} before the first)."""
        return dict(zip(self._symbol_names, self._last_symbols))

    def ir(self, stage: str) -> str:
        """The text of a stage: one of `STAGE_NAMES`."""
        lazy = {"ll": "ir_before", "opt.ll": "ir_after", "asm": "assembly"}  # LLVM's texts, on first use
        if stage in lazy and stage not in self.stages:
            self.stages[stage] = getattr(self.jit.compiled, lazy[stage])
        if stage in REPLAYED and stage not in self.stages and self.replay is not None:
            self.stages.update(self.replay())
        if stage == "llvm" and stage not in self.stages:  # derived from the loops stage
            self.stages[stage] = llvm_stage_text(self.ir("loops"))
        if stage not in self.stages:
            raise KeyError(f"no stage '{stage}'; stages: {', '.join(STAGE_NAMES)}")
        return self.stages[stage]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Positional or keyword arguments, as the original function takes them; the
        outputs are new tensors (numpy arrays for numpy inputs), never carrying an
        autograd graph."""
        if kwargs:
            args = self.signature.bind(args, kwargs)
        if self.fixed_sizes is not None:
            version = self.fixed_sizes.version(self, args)
            if version is not self:
                return version(*args)
        checked = self._sizes_if_well_formed(args)
        numpy_out = False
        if checked is None:  # the careful path: converts numpy arrays, or says what is wrong
            checked = self._checked(args)
            numpy_out = bool(args) and all(isinstance(a, np.ndarray) for a in args)
        sizes, pointers = checked
        outs = [torch.empty(shape(sizes), dtype=dtype) for dtype, shape in self._outputs]
        status = ctypes.c_int32(0)
        symbols = [sizes[name] for name in self._symbol_names]
        arenas = self.workspace(symbols) if self._arena_sizes else ()
        self._last_symbols = symbols
        self._native(*symbols, *pointers, *self._weight_ptrs,
                     *[o.data_ptr() for o in outs], ctypes.addressof(status), self.num_threads,
                     *self._profile_args, *[a.data_ptr() for a in arenas])
        self._calls += 1
        if status.value:
            site = self.signature.sites[status.value - 1]
            key = failed_key(site)
            if key is not None:  # the data took a side of a branch this code was not compiled for
                if self.versions is None:
                    raise SpeculationFailed(key, f"{self.name}: {site}")
                self.__dict__.update(self.versions.other_side(self, key).__dict__)
                return self(*args)  # bound by name above
            if site.startswith("assertion failed"):  # a te.check: torch raises RuntimeError
                raise RuntimeError(f"{self.name}: {site}")
            raise IndexError(f"{self.name}: {site}: an index is out of range")
        if numpy_out:
            outs = [o.numpy() for o in outs]
        return outs[0] if self.signature.single_output else tuple(outs)

    def _sizes_if_well_formed(self, args: Sequence[Any]) -> tuple[dict[str, int], list[int]] | None:
        """The size symbols and data pointers of a call of plain, contiguous, aligned
        CPU torch tensors of the right dtypes and shapes within range; None for
        anything else (a few microseconds matter here: the careful path explains
        what is wrong)."""
        if len(args) != len(self._plan):
            return None
        sizes: dict[str, int] = {}
        pointers: list[int] = []
        for a, (dtype, dims) in zip(args, self._plan):
            if (type(a) is not torch.Tensor or a.dtype is not dtype or a.layout is not _STRIDED or not a.is_cpu
                    or not a.is_contiguous() or a.is_neg()):
                return None
            shape = a.shape
            if len(shape) != len(dims):
                return None
            for n, d in zip(shape, dims):
                if type(d) is int:
                    if n != d:
                        return None
                elif sizes.setdefault(d, n) != n:
                    return None
            pointer = a.data_ptr()
            if pointer % a.itemsize or not (pointer or not a.numel()):  # misaligned; a ZeroTensor
                return None
            pointers.append(pointer)
        for name, lo, hi in self._ranges:
            n = sizes[name]
            if n < lo or (hi is not None and n > hi):
                return None
        return sizes, pointers

    def _checked(self, args: Sequence[Any]) -> tuple[dict[str, int], list[int]]:
        """Every check of a call, with a message naming the argument; numpy arrays
        become tensors (zero-copy)."""
        specs = self.signature.arguments
        if len(args) != len(specs):
            raise CallError(f"{self.name} takes {len(specs)} arguments "
                            f"({', '.join(self.signature.names)}), got {len(args)}")
        tensors = [_as_tensor(a, spec.name) for a, spec in zip(args, specs)]
        sizes: dict[str, int] = {}
        where: dict[str, str] = {}
        for t, spec in zip(tensors, specs):
            _check(t, spec, sizes, where)
        for name, lo, hi in self._ranges:
            n = sizes[name]
            if n < lo or (hi is not None and n > hi):
                raise CallError(f"{where[name]} is {name} = {n}, outside the range "
                                f"[{lo}, {hi if hi is not None else 'inf'}] it was compiled for")
        return sizes, [t.data_ptr() for t in tensors]


_STRIDED = torch.strided


def _as_tensor(a: Any, name: str) -> torch.Tensor:
    if isinstance(a, np.ndarray):
        if not a.flags.c_contiguous:
            raise CallError(f"argument '{name}' is not C-contiguous; pass np.ascontiguousarray(...)")
        if not a.dtype.isnative:
            raise CallError(f"argument '{name}' has byte order '{a.dtype.byteorder}', not this machine's; "
                            f"pass .astype(np.{a.dtype.name})")
        if not a.flags.aligned:
            raise CallError(f"argument '{name}' is not aligned to its {a.itemsize}-byte elements; pass a.copy()")
        try:
            with warnings.catch_warnings():  # a read-only array is fine: inputs are never written
                warnings.simplefilter("ignore", UserWarning)
                return torch.from_numpy(a)
        except TypeError as e:
            raise CallError(f"argument '{name}' has numpy dtype {a.dtype}, which torch cannot take: {e}") from None
    if not isinstance(a, torch.Tensor):
        raise CallError(f"argument '{name}' must be a torch.Tensor or numpy array, got {type(a).__name__}")
    return a


def _check(t: torch.Tensor, spec: Argument, sizes: dict[str, int], where: dict[str, str]) -> None:
    if t.device.type != "cpu":
        raise CallError(f"argument '{spec.name}' is on {t.device}; expected cpu")
    if t.layout != torch.strided:
        raise CallError(f"argument '{spec.name}' has layout {t.layout}; expected a dense tensor (.to_dense())")
    if t.dtype != spec.dtype:
        raise CallError(f"argument '{spec.name}' has dtype {t.dtype}; expected {spec.dtype}")
    if t.dim() != len(spec.dims):
        raise CallError(f"argument '{spec.name}' has rank {t.dim()}; expected {len(spec.dims)} "
                        f"(shape {spec.shape_text()})")
    for k, d in enumerate(spec.dims):
        n = t.shape[k]
        if isinstance(d, int):
            if n != d:
                raise CallError(f"argument '{spec.name}' dim {k} is {n}; expected {d} "
                                f"(shape {spec.shape_text()})")
        elif d in sizes and sizes[d] != n:
            raise CallError(f"argument '{spec.name}' dim {k} is {d} = {n}, but {where[d]} "
                            f"gave {d} = {sizes[d]}")
        else:
            sizes[d], where[d] = n, f"argument '{spec.name}' dim {k}"
    if not t.is_contiguous():
        raise CallError(f"argument '{spec.name}' is not contiguous (strides {tuple(t.stride())}); "
                        "pass .contiguous()")
    if t.is_neg() or t.is_conj():
        raise CallError(f"argument '{spec.name}' is a lazily {'negated' if t.is_neg() else 'conjugated'} view; "
                        "pass .resolve_neg() / .resolve_conj()")
    if t._is_zerotensor():
        raise CallError(f"argument '{spec.name}' is a ZeroTensor without storage; pass torch.zeros_like(...)")
    if t.data_ptr() % t.itemsize:
        raise CallError(f"argument '{spec.name}' is not aligned to its {t.itemsize}-byte elements; pass .clone()")


# --------------------------------------------------------------------------- compile


def compile(
    fn: Callable[..., Any],
    example_args: Sequence[torch.Tensor] | Mapping[str, torch.Tensor],
    dynamic_shapes: Any = None,
    *,
    dump_dir: str | Path | None = None,
    profile: bool = False,
    verify: bool | str | None = None,
    trace: bool = False,
    verbose: bool = False,
    decompositions: Decompositions | None = None,
    specialize: bool = False,
    tune: str | float = "quick",
    tune_inputs: Sequence[torch.Tensor] | Mapping[str, torch.Tensor] | None = None,
) -> CompiledFunction:
    """Capture `fn` (forward + autograd.grad) once and compile it to native code.
    `decompositions` maps an op the compiler lacks (a custom op) to a function of
    torch ops computing it (see frontend.capture.capture).
    `specialize=True` accepts code that fixes a dim declared dynamic (a Python loop
    over `range(len(pos))`, which the trace unrolls): that dim is compiled static, and a
    call with another size of it compiles again for that size (once per size, with a
    RuntimeWarning naming the line that fixes it). Without it, that code is refused
    (`PinnedSize`, a CaptureError naming the line).
    `profile=True` times every loop nest (see `CompiledFunction.profile`).
    `tune` chooses register tiles by measurement (`pipeline/tune.py`): "quick" (the
    default) takes the choices cached on this machine and measures nothing; "full" (or
    a number of seconds) times the candidates of every uncached nest on `tune_inputs`
    (default: the example arguments; give the sizes you will run) and caches them;
    "off" keeps the heuristic. `CompiledFunction.tuning` reports what was chosen.
    `trace=True` keeps what the compile report shows (`CompiledFunction.report`): the
    IR after every pass, and provenance (which aten ops each loop nest computes, and
    their source lines). `verbose=True` shows the stage and the elapsed time on a
    terminal while a compile takes more than a few seconds.
    `verify=True` (or "pass") verifies the IR after every pass (xDSL's verifier
    and SSA dominance), so a pass that breaks it raises `PassBrokeIR` naming the
    pass; "stage" checks dominance after every pass and the rest at the end of
    each stage. The default is the environment variable PIPELINE_VERIFY (off, or
    stage in the tests).

    The outputs are plain tensors: they never carry an autograd graph.

    The trace records the user's source line of each op (the `# File:` lines of the
    fx stage, the report's provenance) only with `trace=True` or a `dump_dir`: it costs
    0.4-0.5 s of NequIP's and MACE's capture. An unsupported op's error names its line
    either way (the function is traced again, with the lines, to say where)."""
    sources = trace or dump_dir is not None
    shapes = dynamic_shapes
    budget = check_budget(tune)

    def build(speculate: Mapping[str, bool]) -> CompiledFunction:
        with _collector_paused(), stage_progress(getattr(fn, "__name__", "fn"), enabled=verbose) as progress:
            start = time.perf_counter()
            progress("capture")
            captured = capture(fn, example_args, shapes, stack_traces=sources, decompositions=decompositions,
                               speculate=speculate)
            timings = {"capture_s": time.perf_counter() - start}
            try:
                return compile_captured(captured, dump_dir=dump_dir, timings=timings, profile=profile,
                                        verify=verify, trace=trace, progress=progress, tune=budget,
                                        tune_inputs=example_args if tune_inputs is None else tune_inputs)
            except UnsupportedOpError:
                if sources:
                    raise
                try:
                    import_graph(capture(fn, example_args, shapes, decompositions=decompositions,
                                         speculate=speculate))
                except UnsupportedOpError as named:  # the same error, naming the user's line
                    raise named from None
                raise

    pinned: list[PinnedSize] = []
    while True:
        try:
            compiled = build({})
            break
        except PinnedSize as e:
            if not specialize:
                raise
            pinned.append(e)
            shapes = e.without
    if pinned:
        options = dict(dump_dir=dump_dir, profile=profile, verify=verify, trace=trace, verbose=verbose,
                       decompositions=decompositions, tune=tune)
        compiled.fixed_sizes = _FixedSizes(
            pinned, lambda example: compile(fn, example, shapes, **options))  # type: ignore[arg-type]
        compiled.fixed_sizes.compiled[tuple(e.value for e in pinned)] = compiled
    if compiled.speculations:  # the example decides the sides it reaches, before anyone calls
        compiled.versions = _Versions(build, {})
        compiled.versions.keep(compiled)
        example = dict(example_args) if isinstance(example_args, Mapping) else {}
        compiled(*(() if example else example_args), **example)
        compiled.versions.quiet = False
    return compiled


def _sides(compiled: CompiledFunction) -> frozenset[tuple[str, bool]]:
    return frozenset((s.key, s.side) for s in compiled.speculations)


@dataclass
class _Versions:
    """The compiles of one function, one per set of sides of its branches on data. The
    object the user holds takes on the state of the version a call needs; the versions
    kept here are copies, never that object."""

    build: Callable[[Mapping[str, bool]], CompiledFunction]
    compiled: dict[frozenset[tuple[str, bool]], CompiledFunction]
    quiet: bool = True
    """No warning while the example decides (the compile itself)."""

    def other_side(self, current: CompiledFunction, key: str) -> CompiledFunction:
        """`current`'s sides with the side at `key` flipped: compiled once, then reused."""
        sides = {s.key: s.side for s in current.speculations}
        sides[key] = not sides[key]
        wanted = frozenset(sides.items())
        if wanted not in self.compiled:
            taken = next(s for s in current.speculations if s.key == key)
            if not self.quiet:
                warnings.warn(f"{current.name}: compiling again for the {not taken.side} side of `{taken.statement}` "
                              f"({key}), which this call's data take", RuntimeWarning, stacklevel=3)
            new = self.build(sides)
            new.versions = self
            self.compiled[wanted] = self.keep(new)
        return self.compiled[wanted]

    def keep(self, compiled: CompiledFunction) -> CompiledFunction:
        kept = self.compiled[_sides(compiled)] = copy.copy(compiled)
        return kept


@dataclass
class _FixedSizes:
    """The compiles of a function whose code fixes dims declared dynamic, one per size
    of those dims (`compile(..., specialize=True)`)."""

    pinned: list[PinnedSize]
    build: Callable[[dict[str, Any]], CompiledFunction]
    compiled: dict[tuple[int, ...], CompiledFunction] = field(default_factory=dict)

    def version(self, current: CompiledFunction, args: Sequence[Any]) -> CompiledFunction:
        """The code for the sizes of `args` (positional, in the signature's order):
        compiled on first use; `current` when a size cannot be read (the call's own
        checks then say what is wrong)."""
        index = {a.name: i for i, a in enumerate(current.signature.arguments)}
        try:
            key = tuple(int(args[index[e.at[0][0]]].shape[e.at[0][1]]) for e in self.pinned)
        except (IndexError, AttributeError, TypeError, KeyError):
            return current
        if key not in self.compiled:
            sizes = ", ".join(f"{e.dim}={v}" for e, v in zip(self.pinned, key))
            warnings.warn(f"{current.name}: compiling again for {sizes}: {self.pinned[0]}", RuntimeWarning, stacklevel=3)
            self.compiled[key] = self.build({a.name: t for a, t in zip(current.signature.arguments, args)})
        return self.compiled[key]


def llvm_stage_text(loops: str) -> str:
    """The llvm stage's text from the loops stage's: the stage's passes over the parsed
    text, in one piece. A compile prints none (a module compiled in parts, on every
    core, would spend 0.2-0.4 s per part printing); the passes are deterministic, so
    this is the text a one-piece compile prints."""
    ctx = context()
    module = Parser(ctx, loops).parse_module()
    PassPipeline.parse_spec(all_passes(), ",".join(LOOPS_TO_LLVM)).apply(ctx, module)
    return str(module)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while compiling: the FX graphs and IR modules are
    hundreds of thousands of objects, and each full collection over them cost ~0.3 s
    (SchNet compiled in 4.8 s with it, 3.7 s without); the garbage is collected after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def compile_captured(
    captured: Captured, *, dump_dir: str | Path | None = None, timings: dict[str, float] | None = None,
    profile: bool = False, verify: bool | str | None = None, trace: bool = False,
    progress: Callable[[str], None] | None = None, tune: str | float = "off",
    tune_inputs: Sequence[torch.Tensor] | Mapping[str, torch.Tensor] | None = None,
    schedules: Mapping[str, Choice] | None = None,
) -> CompiledFunction:
    """Compile what `capture` returned; `tune` as `compile` has it, or the `schedules`
    chosen already (a tuning round, or its replay)."""
    level = _verify_level(verify)
    timings = dict(timings or {})
    dumps = _Dumps(dump_dir, trace=CompileTrace() if trace else None)
    progress = progress or (lambda stage: None)
    stages: dict[str, str] = {"fx": captured.graph.code}
    dumps.write("fx.txt", stages["fx"])

    start = time.perf_counter()
    progress("aten")
    imported = import_graph(captured)
    module = imported.module
    if dumps.on or trace:  # the aten stage's text is the module after its passes
        text = str(module)
        dumps.write("aten.mlir", text)
        if dumps.trace:
            dumps.trace.passes.append(("aten", "import-fx", text, time.perf_counter() - start))
    timings["import_s"] = time.perf_counter() - start

    if level != "off":
        verify_after("import-fx", module)
    ctx = context()
    available = all_passes()
    signature: Signature | None = None
    processes = 1 if dumps.on or trace else jobs()  # a dump of each pass shows the whole module
    jit: JitModule | None = None
    tuning: TuneReport | None = None
    nest_keys: list[str | None] = []
    measuring = schedules is not None
    for stage, passes in stage_passes(profile, trace or measuring):
        if dumps.trace and stage == "tensorexpr":  # provenance from here on: te.origin, loops.nests
            dumps.trace.aten = aten_ops(module, imported.source_lines)
        progress(stage)
        dumps.stage = stage
        start = time.perf_counter()
        callback = dumps.callback if level == "off" else VerifyEachPass(dumps.callback, ops=level == "pass")

        def run(names: list[str], module: ModuleOp, stage: str = stage, passes: list[str] = passes,
                callback: Any = callback, end: bool = True) -> None:
            """`names` (passes of `stage`) over `module`; at the `end` of the stage, the
            stage's verification."""
            PassPipeline.parse_spec(available, ",".join(names), callback).apply(ctx, module)
            if end and level == "stage":
                verify_after(f"stage '{stage}' ({', '.join(passes)})", module)

        if stage == "llvm" and processes > 1:  # in parts, after merge-identical-functions
            cut = passes.index("merge-identical-functions") + 1
            run(passes[:cut], module, end=False)
            parts = split(module, processes)
            if len(parts) > 1:
                progress("llvm + native")
                head_s = time.perf_counter() - start
                jit, lowered_s = compile_parts(module, parts, functools.partial(run, passes[cut:]))
                timings["llvm_s"] = head_s + lowered_s
                timings["native_s"] = time.perf_counter() - start - timings["llvm_s"]
                break
            run(passes[cut:], module)
        elif stage == "fused" and (measuring or tune != "off"):  # the choices, before `schedule`
            run(passes[:-1], module, end=False)
            if not measuring:
                tuning = tune_nests(captured, module, tune, tune_inputs)
                schedules = {n.key: n.choice for n in tuning.nests if n.cached or n.tried}
            nest_keys = apply_choices(module, schedules or {})
            run(passes[-1:], module)
        else:
            run(passes, module)
        if dumps.on or trace:  # else printed on demand (`CompiledFunction.ir`)
            stages[stage] = str(module)
        timings[f"{stage}_s"] = time.perf_counter() - start
        if stage == "fused" and tuning is not None and tuning.seconds:  # its measured rounds, apart
            timings["fused_s"] -= tuning.seconds
            timings["tune_s"] = tuning.seconds
        if dumps.trace and stage == "fused":
            dumps.trace.nests = fused_nests(module, dumps.trace.aten)
        if stage == "loops":
            signature = _signature(captured, imported.weights, module)
            nests = [a.data for o in module.ops for a in o.attributes.get("loops.profile_nests", ArrayAttr([]))]
            dtypes = [a.data for o in module.ops for a in o.attributes.get("loops.profile_dtypes", ArrayAttr([]))]
            members = [list(a.get_values()) for o in module.ops
                       for a in o.attributes.get("loops.profile_members", ArrayAttr([]))]
            if dumps.trace:
                dumps.trace.profile_members = members
    if jit is None:  # in one piece
        start = time.perf_counter()
        progress("native")
        target = host_target_machine(jit=True)
        compiled = compile_llvm(translate(module, target), target_machine=target)
        if dumps.on:
            dumps.write("module.ll", compiled.ir_before)
            dumps.write("module.opt.ll", compiled.ir_after)
            dumps.write("module.s", compiled.assembly)
        jit = JitModule(compiled)
        timings["native_s"] = time.perf_counter() - start
    timings["total_s"] = sum(timings.values())

    return CompiledFunction(
        signature=signature,
        jit=jit,
        stages=stages,
        timings=timings,
        profile_nests=nests if profile else [],
        profile_dtypes=dtypes if profile else [],
        trace=dumps.trace,
        replay=functools.partial(replayed_stages, captured, profile, schedules),
        speculations=captured.speculations,
        tuning=tuning,
        tuned_nests=nest_keys,
        profile_members=members if profile and (trace or measuring) else [],
    )


def tune_nests(captured: Captured, module: ModuleOp, budget: str | float,
               inputs: Sequence[torch.Tensor] | Mapping[str, torch.Tensor] | None) -> TuneReport:
    """The choices for `module`'s tunable nests (fused stage, before `schedule`): each
    measured round is a compile of `captured` with profile-loops, run on `inputs`."""
    if budget != "quick" and inputs is None:
        raise ValueError(f"tune={budget!r} measures: it needs tune_inputs")

    def measure(choices: Mapping[str, Choice]) -> Measured:
        trial = compile_captured(captured, profile=True, schedules=choices)
        args, kwargs = (((), dict(inputs)) if isinstance(inputs, Mapping) else (tuple(inputs or ()), {}))
        trial(*args, **kwargs)  # warm-up: arenas, pages
        best: list[float] | None = None
        for _ in range(TUNE_CALLS):  # each loop's fastest call: the least disturbed
            trial.reset_profile()
            trial(*args, **kwargs)
            now = trial.loop_seconds()
            best = now if best is None else [min(a, b) for a, b in zip(best, now)]
        flops = trial._profile[len(trial.profile_nests):].tolist()  # per call: the last call's
        return Measured(trial.tuned_nests, best or [], flops, trial.profile_members, trial.profile_dtypes,
                        trial.num_threads)

    return choose(tunables(module), budget, measure, TuneCache())


def _verify_level(verify: bool | str | None) -> str:
    if verify is None:
        verify = os.environ.get("PIPELINE_VERIFY", "off")
    level = {True: "pass", False: "off", "1": "pass", "0": "off", "": "off"}.get(verify, verify)  # type: ignore[call-overload]
    if level not in LEVELS:
        raise ValueError(f"verify={verify!r}: expected one of {', '.join(LEVELS)} (or True / False)")
    return level


def _signature(captured: Captured, weights: Mapping[str, torch.Tensor], module: ModuleOp) -> Signature:
    """The calling convention, from the capture (arguments, sizes, output shapes) and the
    loop-level function (weights in argument order, check sites, arenas)."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    attrs = fn.arg_attrs.data if fn.arg_attrs else ()
    used = [d.data["loops.weight"].data for d in attrs if "loops.weight" in d.data]  # type: ignore[union-attr]
    arenas = [
        TORCH_DTYPES[a.type.get_element_type()]  # type: ignore[union-attr]
        for a, d in zip(fn.body.block.args, attrs) if "loops.arena" in d.data
    ]
    sites = fn.attributes.get("te.index_sites")
    out_node = next(n for n in captured.graph.graph.nodes if n.op == "output")
    outputs = [Output(k, v.meta["val"].dtype,
                      tuple(size_expression(_expr(d), captured.sympy_names) for d in v.meta["val"].shape))
               for k, v in enumerate(out_node.args[0])]
    where = {s.name: tuple((a.name, k) for a in captured.args for k, d in enumerate(a.dims) if d == s.name)
             for s in captured.symbols}
    return Signature(
        name=captured.name,
        arguments=tuple(Argument(a.name, k, a.dtype, a.dims) for k, a in enumerate(captured.args)),
        sizes=tuple(Size(s.name, s.min, s.max, where[s.name]) for s in captured.symbols),
        outputs=tuple(outputs),
        weights=tuple(Weight(w, weights[w].detach().contiguous()) for w in used),
        sites=tuple(a.data for a in sites.data) if isinstance(sites, ArrayAttr) else (),  # type: ignore[union-attr]
        arenas=tuple(arenas),
        single_output=captured.single_output,
    )


def _expr(d: int | torch.SymInt) -> sympy.Expr:
    return d.node.expr if isinstance(d, torch.SymInt) else sympy.Integer(d)


class _Dumps:
    """Numbered files, one per stage and per pass: 00-fx.txt, 01-aten.mlir, ...; with a
    `trace`, also (stage, pass, IR after it) in memory, and the memory plan as
    plan-memory finds it, for the report."""

    def __init__(self, directory: str | Path | None, trace: CompileTrace | None = None):
        self.dir = Path(directory) if directory else None
        self.on = self.dir is not None
        self.count = 0
        self.trace = trace
        self.stage = ""
        self.since = time.perf_counter()  # the end of the last callback: the next pass starts
        if self.dir:
            self.dir.mkdir(parents=True, exist_ok=True)
            for old in self.dir.glob("[0-9][0-9]-*"):
                old.unlink()

    def write(self, name: str, text: str) -> None:
        if self.dir:
            (self.dir / f"{self.count:02d}-{name}").write_text(text)
            self.count += 1

    def callback(self, previous: Any, module: ModuleOp, following: Any) -> None:
        seconds = time.perf_counter() - self.since
        if previous is not None and (self.dir or self.trace):
            text = str(module)
            self.write(f"{previous.name}.mlir", text)
            if self.trace:
                self.trace.passes.append((self.stage, previous.name, text, seconds))
        if self.trace and following is not None and following.name == "plan-memory":
            self.trace.buffers = planned_buffers(module)
        self.since = time.perf_counter()
