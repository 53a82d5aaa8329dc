"""Capture a function that calls `torch.autograd.grad` as one symbolic FX graph.

make_fx traces through the autograd engine, so the backward becomes plain aten ops.
Only `tracing_mode="symbolic"` generalizes over sizes, and only if nothing pins a
size on the way: we fakify the inputs ourselves so that exactly the dims the user
marked dynamic get a symbol (one symbol per `Dim`, shared by all its uses), check
every guard of that first trace against the declared ranges, and functionalize
(rewriting the in-place ops, frontend.functionalize; a second trace only where the
rewrite cannot follow the aliasing). A guard-free symbolic trace holds
at every size, so one trace suffices; `capture(..., check_args=...)` traces again
at other sizes and compares the graphs, for a user who wants the proof.

Library code sees what torch.compile / torch.export would show it: TorchScript
runs as its Python source and `torch.compiler.is_compiling()` is True.

How the examples bind to the parameters and which dims are dynamic is
`frontend.arguments`; the check of the trace's guards, `frontend.guards`.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
import torch
import torch.fx
import torch.fx.traceback as fx_traceback
from frontend.arguments import DynamicShapes, arg_names, by_name, dynamic_dims, entries, finite
from frontend.decompositions import decompositions
from frontend.errors import CaptureError
from frontend.guards import check_guards, is_users, users_frame
from frontend.library_calls import attributes_set
from frontend.python_idioms import Decompositions, decomposition_table, symbolic_python
from frontend.speculation import Speculation, Speculations, speculating
from frontend.functionalize import Unsupported, functionalize, mutates
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.export import Dim
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import (
    DimDynamic,
    ShapeEnv,
    StatelessSymbolicContext,
    free_unbacked_symbols,
)


@dataclass(frozen=True)
class ArgSpec:
    """One tensor argument: its name, dtype and dims (an int, or a symbol name)."""

    name: str
    dtype: torch.dtype
    dims: tuple[int | str, ...]


@dataclass(frozen=True)
class SymbolSpec:
    """A size symbol: the `Dim` name and its declared range (as declared: tracing
    itself needs sizes >= 2, a call may use the whole range)."""

    name: str
    min: int
    max: int | None


@dataclass
class Captured:
    """The functional aten graph of forward + grad, symbolic in the dynamic dims."""

    graph: torch.fx.GraphModule
    args: list[ArgSpec]
    symbols: list[SymbolSpec]
    weights: dict[str, torch.Tensor] = field(default_factory=dict)
    name: str = "main"
    sympy_names: dict[sympy.Symbol, str] = field(default_factory=dict)
    """The traced sympy symbol of each size symbol, by name."""
    single_output: bool = False
    """The function returns one tensor, not a tuple (the graph returns a 1-tuple)."""
    speculations: list[Speculation] = field(default_factory=list)
    """The sides taken of branches on data, each asserted at run time (frontend.speculation)."""
    runtime_asserts: list[tuple[sympy.Basic, str | None]] = field(default_factory=list)
    """What the trace assumed of sizes read from data (`torch._check(n == len(pos))`, a
    size >= 0), with the user's line: torch defers them to run time, so the compiled code
    checks them before anything uses the size."""


def capture(
    fn: Callable[..., Any],
    example_args: Sequence[torch.Tensor] | Mapping[str, torch.Tensor],
    dynamic_shapes: DynamicShapes = None,
    *,
    check_args: Sequence[torch.Tensor] | None = None,
    stack_traces: bool = True,
    decompositions: Decompositions | None = None,
    speculate: Mapping[str, bool] | None = None,
) -> Captured:
    """Trace `fn(*example_args)` into a functional aten graph symbolic in the
    dims that `dynamic_shapes` marks with a `torch.export.Dim`.

    `example_args` may be a dict: its keys are the function's parameter names, and the
    function is called by name (the arguments are ordered as its parameters are, so a
    positional call of the compiled function binds as a call of `fn` does; a list
    `dynamic_shapes` follows the dict's order).
    `check_args`, if given, are other inputs (other sizes) traced a second time
    to prove the graph does not depend on the traced sizes (the guard check
    already proves it for everything make_fx sees; the retrace costs a trace).
    `stack_traces=False` leaves the user's source lines off the graph's nodes (the
    `# File:` lines of its code, the lines an unsupported op's error names): make_fx
    symbolizes a stack per node, 0.4-0.5 s of NequIP's and MACE's 2-3 s trace.
    `decompositions` maps an op the compiler lacks (a custom op, e.g. a package's
    compiled neighbour search) to a function of torch ops that computes it; the trace
    calls the function in its place, and differentiates through it.
    `speculate` gives the side of branches on data that earlier calls decided
    (frontend.speculation; the others are guessed).
    """
    decomposition_table(decompositions)  # a TypeError now, not inside the trace
    call = fn
    if isinstance(example_args, Mapping):
        names, call = by_name(fn, example_args)
        if dynamic_shapes is not None and not isinstance(dynamic_shapes, Mapping):  # in the dict's order
            dynamic_shapes = dict(zip(example_args, entries(dynamic_shapes, len(example_args))))
        example_args = tuple(example_args[n] for n in names)
    else:
        names = arg_names(fn, len(example_args))
    if isinstance(check_args, Mapping):
        if set(check_args) != set(names):
            raise CaptureError(f"check_args names {', '.join(check_args)}; expected {', '.join(names)}")
        check_args = tuple(check_args[n] for n in names)
    for name, a in zip(names, example_args):
        if not isinstance(a, torch.Tensor):
            raise CaptureError(f"argument '{name}' must be a torch.Tensor, got {type(a).__name__}")
        if a.device.type != "cpu":
            raise CaptureError(f"argument '{name}' is on {a.device}; only cpu is supported")
    dims = dynamic_dims(names, example_args, dynamic_shapes)
    speculations = Speculations(speculate)
    graph, env, fakes, symbols_at = _trace(call, example_args, dims, stack_traces, anchor=fn,
                                           users_decompositions=decompositions, speculations=speculations,
                                           pins=lambda env, at: check_guards(env, names, at, dims, pins_only=True))
    sym_names = {s: dims[i][d].__name__ for (i, d), s in symbols_at.items()}
    check_guards(env, names, symbols_at, dims)

    args = [
        ArgSpec(
            name,
            a.dtype,
            tuple(
                dims[i][d].__name__ if d in dims[i] else int(a.shape[d])
                for d in range(a.dim())
            ),
        )
        for i, (name, a) in enumerate(zip(names, example_args))
    ]
    symbols = []
    for n in dict.fromkeys(s for spec in args for s in spec.dims if isinstance(s, str)):
        dim = next(d for ds in dims for d in ds.values() if d.__name__ == n)
        symbols.append(SymbolSpec(n, int(dim.min or 0), finite(dim.max)))

    traced_code = graph.code
    single = _check_outputs(graph, getattr(fn, "__name__", "the function"))
    graph = _functionalize(graph, fakes)
    weights = {
        n.target: getattr(graph, n.target)
        for n in graph.graph.nodes
        if n.op == "get_attr" and isinstance(getattr(graph, n.target), torch.Tensor)
    }
    captured = Captured(graph, args, symbols, weights, getattr(fn, "__name__", "main"), sym_names, single,
                        speculations.made, _runtime_asserts(env))

    if check_args is not None:
        decided = {s.key: s.side for s in speculations.made}
        _compare_retrace(call, traced_code, check_args, dims, decompositions, decided)
    _forget_shape_envs()
    return captured


def _runtime_asserts(env: ShapeEnv) -> list[tuple[sympy.Basic, str | None]]:
    """The trace's deferred assertions on sizes from data, once each, with the user's line."""
    found: dict[sympy.Basic, str | None] = {}
    for asserts in env.deferred_runtime_asserts.values():
        for ra in asserts:
            if free_unbacked_symbols(ra.expr) and ra.expr not in found:
                frames = [f for f in ra.stack.summary() if is_users(f.filename)]
                found[ra.expr] = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None
    return list(found.items())


def _forget_shape_envs() -> None:
    """Clear the memo caches on ShapeEnv's methods. They key on `self`, and some of
    them are unbounded (`get_implications`, `constrain_symbol_range`), so every
    trace's ShapeEnv, with its fake-tensor cache, stayed alive: ~0.6 MiB per
    compile in a process that compiles many functions. Only recomputation is lost."""
    for attr in vars(ShapeEnv).values():
        clear = getattr(attr, "cache_clear", None)  # functools' lru_cache and torch's own wrapper
        if callable(clear):
            clear()


# --------------------------------------------------------------------------- tracing


class _ShapeEnv(ShapeEnv):
    """Records each guard and replacement at the innermost frame of the user's (or
    a library's) code, not of torch's (torch's own choice skips only some of its
    files), and remembers what each symbol was first replaced by: when a size was
    tied to another before one of them was pinned, the line to name is the pin's."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.first_replacement: dict[sympy.Symbol, sympy.Expr] = {}

    def _get_sloc(self, framework_loc: str | traceback.FrameSummary | None = None) -> Any:
        return super()._get_sloc(framework_loc or users_frame(_trace.__code__))

    def _set_replacement(self, a: sympy.Symbol, tgt: sympy.Expr, msg: str) -> None:
        super()._set_replacement(a, tgt, msg)
        if a in self.replacements:
            self.first_replacement.setdefault(a, tgt)


@contextlib.contextmanager
def _as_compiled(dim_names: Mapping[sympy.Symbol, str]) -> Iterator[None]:
    """For the duration of a trace, library code sees what torch.compile and
    torch.export show it: `torch.compiler.is_compiling()` is True (TorchANI skips a
    data-dependent check only then), and TorchScript functions and scripted
    modules' methods run as their Python source (TorchScript turns every size it
    touches into an int, which pins it). `len()` of a tensor on a dynamic dim is
    refused at its line: Python's len() returns an int, so it pins the dim."""
    patched: list[tuple[Any, str, Any]] = [
        (torch.compiler, "_is_compiling_flag", True),
        (torch.jit.ScriptFunction, "__call__", _script_function_call),
        (torch._C.ScriptMethod, "__call__", _script_method_call),
        (torch.Tensor, "__len__", _len_refusing(dim_names)),
    ]
    with attributes_set(patched):
        yield


def _script_function_call(self: torch.jit.ScriptFunction, *args: Any, **kwargs: Any) -> Any:
    """A TorchScript function runs as the Python function it was scripted from
    (kept as `_torchdynamo_inline`, which torch.compile inlines the same way)."""
    python = getattr(self, "_torchdynamo_inline", None)
    if python is None:
        raise CaptureError(
            f"TorchScript function '{self.qualified_name}' has no Python source to trace "
            "(torch.jit.load, CompilationUnit): TorchScript fixes every size it touches. "
            "Call the Python function instead."
        )
    return python(*args, **kwargs)


def _script_method_call(self: torch._C.ScriptMethod, *args: Any, **kwargs: Any) -> Any:
    """A scripted module's method runs as the method of the module it was scripted
    from (`__wrapped__`, bound to it), which shares its parameters and buffers."""
    python = getattr(self, "__wrapped__", None)
    module = getattr(python, "__self__", None)
    what = f"TorchScript method '{self.name}' of {self.owner.qualified_name}"
    if not isinstance(module, torch.nn.Module):
        raise CaptureError(
            f"{what} has no Python source to trace (torch.jit.load, torch.jit.freeze): "
            "TorchScript fixes every size it touches. Capture the Python module instead."
        )
    for name, tensor in itertools.chain(module.named_parameters(), module.named_buffers()):
        scripted: Any = self.owner
        for part in name.split("."):
            scripted = scripted.getattr(part) if scripted.hasattr(part) else None
        if scripted is not tensor:
            raise CaptureError(
                f"{what}: '{name}' was replaced after torch.jit.script, so its Python "
                "source would not compute the same. Capture the Python module instead."
            )
    return python(*args, **kwargs)


def _len_refusing(dim_names: Mapping[sympy.Symbol, str]) -> Callable[[torch.Tensor], int]:
    """`Tensor.__len__` that names the caller's line when dim 0 is dynamic."""
    original = torch.Tensor.__len__

    def __len__(self: torch.Tensor) -> int:
        size = self.shape[0] if self.dim() else None
        if isinstance(size, torch.SymInt):
            names = sorted({dim_names[s] for s in size.node.expr.free_symbols if s in dim_names})
            if names:
                caller = users_frame(_trace.__code__)
                raise CaptureError(
                    f"len(tensor) on a dynamic dim ({', '.join(names)}) pins it"
                    + (f", at {caller.filename}:{caller.lineno}" if caller else "") + ": len() must return an int. "
                    "Use tensor.shape[0] or tensor.size(0), which stay symbolic."
                )
        return original(self)

    return __len__


def _trace(
    fn: Callable[..., Any], args: Sequence[torch.Tensor], dims: list[dict[int, Dim]], stack_traces: bool = True,
    anchor: Callable[..., Any] | None = None, users_decompositions: Decompositions | None = None,
    speculations: Speculations | None = None, pins: Callable[[_ShapeEnv, dict], None] | None = None,
) -> tuple[torch.fx.GraphModule, _ShapeEnv, list[torch.Tensor], dict]:
    """make_fx over fake inputs whose dynamic dims are symbols; also returns the
    symbol of each (argument, dim), read before tracing can replace it. `anchor` is the
    user's function when `fn` calls it by name (its frames are the source lines).
    When the trace fails, `pins(env, symbols_at)` may raise first: a dynamic size the
    code fixed before the failure (`for i in range(len(pos))`) is its cause."""
    env = _ShapeEnv()
    mode = FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
    # No dispatch cache: under symbolic sizes few ops hit it, and each miss pays for
    # an entry whose output sizes are rebuilt symbolically (measured: NequIP traced
    # in 3.0 s instead of 4.2, MACE 5.1 instead of 8.0; the same graph either way).
    mode.cache_enabled = False
    fakes = [
        mode.from_tensor(
            a,
            symbolic_context=StatelessSymbolicContext(
                dynamic_sizes=[
                    DimDynamic.DYNAMIC if d in ds else DimDynamic.STATIC
                    for d in range(a.dim())
                ]
            ),
        )
        for a, ds in zip(args, dims)
    ]
    symbols_at = {
        (i, d): fake.shape[d].node.expr
        for i, (fake, ds) in enumerate(zip(fakes, dims))
        for d in ds
    }
    first: dict[str, Any] = {}
    for fake, ds in zip(fakes, dims):
        for d, dim in ds.items():
            size = fake.shape[d]
            if dim.__name__ in first:
                torch._check(size == first[dim.__name__])
            else:
                first[dim.__name__] = size
    if stack_traces:  # make_fx keeps only frames of `forward` methods, and of registered anchors
        torch.fx.proxy._register_stack_trace_anchor(anchor or fn)
    dim_names = {sym: dims[i][d].__name__ for (i, d), sym in symbols_at.items()}
    calls: dict[str, str] = {}
    try:
        with (_as_compiled(dim_names), speculating(speculations or Speculations()),
              symbolic_python(fn, users_decompositions, calls) as run):
            graph = make_fx(
                run,
                tracing_mode="symbolic",
                decomposition_table=decompositions(),
                _allow_non_fake_inputs=True,
                _error_on_data_dependent_ops=True,
                record_stack_traces=stack_traces,
            )(*fakes)
    except Exception as e:  # torch raises many kinds; say which stage failed
        if pins is not None:
            try:
                pins(env, symbols_at)
            except CaptureError as pinned:
                raise pinned from e
        if isinstance(e, CaptureError):
            raise
        raise CaptureError(_custom_op_error(e, calls) or f"make_fx could not trace the function: {e}") from e
    return graph, env, fakes, symbols_at


_CUSTOM_OP_FAILURES = (
    r"backward through (?P<op>[\w.]+) but no autograd formula",
    r"(?:fake|meta|abstract) (?:impl|kernel)\w* (?:registered )?for (?:operator )?(?P<op>[\w:.]+)",
    r"operator (?P<op>[\w:.]+) does not have a (?:fake|meta|abstract)",
)


def _custom_op_error(e: Exception, calls: Mapping[str, str]) -> str | None:
    """A custom op the trace cannot go through (no autograd formula, no fake kernel):
    the message names it, the user's line that called it (`calls`, by op), and the way out."""
    for pattern in _CUSTOM_OP_FAILURES:
        found = re.search(pattern, str(e), re.IGNORECASE)
        if found:
            break
    else:
        return None
    op = found["op"].replace("::", ".")
    frames = [f for f in traceback.extract_tb(e.__traceback__) if is_users(f.filename)]
    line = calls.get(op) or calls.get(op.removesuffix(".default")) or (
        f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None)
    where = f" (called at {line})" if line else ""
    return (f"custom op {op}{where} cannot be traced: {str(e).splitlines()[0]} Give its computation in "
            f"torch ops: pipeline.compile(..., decompositions={{torch.ops.{op}: fn}}).")


def _check_outputs(graph: torch.fx.GraphModule, name: str) -> bool:
    """Every output must be a tensor computed by the graph (a Python number, None
    or a nested structure is refused here, before any lowering). A lone tensor
    becomes a 1-tuple; returns whether it was one."""
    out = next(n for n in graph.graph.nodes if n.op == "output")
    result = out.args[0]
    single = isinstance(result, torch.fx.Node)
    values = (result,) if single else result
    if not isinstance(values, (tuple, list)):
        raise CaptureError(f"{name} returns {type(values).__name__}; it must return a tensor or a tuple of tensors")
    for k, v in enumerate(values):
        if not isinstance(v, torch.fx.Node) or not isinstance(v.meta.get("val"), torch.Tensor):
            what = type(v).__name__ if not isinstance(v, torch.fx.Node) else "a non-tensor value"
            raise CaptureError(f"output {k} of {name} is {what} ({v!r}); every output must be a tensor "
                               "(return torch.tensor(x) for a number, and leave None out)")
    if single:
        out.args = ((result,),)
        graph.recompile()
    return single



def _functionalize(
    graph: torch.fx.GraphModule, fakes: list[torch.Tensor]
) -> torch.fx.GraphModule:
    """The graph without in-place ops: rewritten (frontend.functionalize) where it can
    follow the aliasing, else retraced under torch's functionalization, in the same fake
    mode so the symbols stay, and through an FX interpreter so each new node keeps its
    source's stack trace. A graph without mutating ops is already functional."""
    if not any(mutates(n) for n in graph.graph.nodes if n.op == "call_function"):
        return graph
    mode = torch._guards.detect_fake_mode(fakes)
    try:
        return functionalize(graph, mode)
    except Unsupported:
        pass
    run = torch.fx.Interpreter(graph).run
    with fx_traceback.preserve_node_meta():
        functional = make_fx(
            torch.func.functionalize(run, remove="mutations"),
            tracing_mode="symbolic",
            _allow_non_fake_inputs=True,
        )(*fakes)
    functional.graph.eliminate_dead_code()
    functional.recompile()
    return functional


def _compare_retrace(
    fn: Callable[..., Any],
    code: str,
    args: Sequence[torch.Tensor],
    dims: list[dict[int, Dim]],
    users_decompositions: Decompositions | None,
    decided: Mapping[str, bool],
) -> None:
    """Trace again at other sizes, taking the same sides of branches on data: the code
    must be the same as the first trace's (as NequIP checks; both before
    functionalization, which is deterministic)."""
    other, _, _, _ = _trace(fn, args, dims, users_decompositions=users_decompositions,
                            speculations=Speculations(decided))
    if _normalized(other.code) != _normalized(code):
        raise CaptureError(
            "the graph traced at other sizes differs from the first one: the "
            "function depends on a dynamic size in a way the guards did not show"
        )


def _normalized(code: str) -> str:
    return re.sub(r"_tensor_constant\d+|_param_constant\d+", "C", code)
