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
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import os
import re
import sys
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
import torch
import torch.fx
import torch.fx.traceback as fx_traceback
from frontend.decompositions import decompositions
from frontend.functionalize import Unsupported, functionalize, mutates
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.export import Dim
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy
from torch.fx.experimental.symbolic_shapes import (
    DimDynamic,
    ShapeEnv,
    StatelessSymbolicContext,
)


class CaptureError(Exception):
    """The function cannot be captured as a graph valid at every size."""


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


DynamicShapes = Mapping[str | int, Any] | Sequence[Any] | None


def capture(
    fn: Callable[..., Any],
    example_args: Sequence[torch.Tensor] | Mapping[str, torch.Tensor],
    dynamic_shapes: DynamicShapes = None,
    *,
    check_args: Sequence[torch.Tensor] | None = None,
    stack_traces: bool = True,
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
    """
    call = fn
    if isinstance(example_args, Mapping):
        names, call = _by_name(fn, example_args)
        if dynamic_shapes is not None and not isinstance(dynamic_shapes, Mapping):  # in the dict's order
            dynamic_shapes = dict(zip(example_args, _entries(dynamic_shapes, len(example_args))))
        example_args = tuple(example_args[n] for n in names)
    else:
        names = _arg_names(fn, len(example_args))
    if isinstance(check_args, Mapping):
        if set(check_args) != set(names):
            raise CaptureError(f"check_args names {', '.join(check_args)}; expected {', '.join(names)}")
        check_args = tuple(check_args[n] for n in names)
    for name, a in zip(names, example_args):
        if not isinstance(a, torch.Tensor):
            raise CaptureError(f"argument '{name}' must be a torch.Tensor, got {type(a).__name__}")
        if a.device.type != "cpu":
            raise CaptureError(f"argument '{name}' is on {a.device}; only cpu is supported")
    dims = _dynamic_dims(names, example_args, dynamic_shapes)
    graph, env, fakes, symbols_at = _trace(call, example_args, dims, stack_traces, anchor=fn)
    sym_names = {s: dims[i][d].__name__ for (i, d), s in symbols_at.items()}
    _check_guards(env, names, symbols_at, dims)

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
        symbols.append(SymbolSpec(n, int(dim.min or 0), _finite(dim.max)))

    traced_code = graph.code
    single = _check_outputs(graph, getattr(fn, "__name__", "the function"))
    graph = _functionalize(graph, fakes)
    weights = {
        n.target: getattr(graph, n.target)
        for n in graph.graph.nodes
        if n.op == "get_attr" and isinstance(getattr(graph, n.target), torch.Tensor)
    }
    captured = Captured(graph, args, symbols, weights, getattr(fn, "__name__", "main"), sym_names, single)

    if check_args is not None:
        _compare_retrace(call, traced_code, check_args, dims)
    _forget_shape_envs()
    return captured


def _forget_shape_envs() -> None:
    """Clear the memo caches on ShapeEnv's methods. They key on `self`, and some of
    them are unbounded (`get_implications`, `constrain_symbol_range`), so every
    trace's ShapeEnv, with its fake-tensor cache, stayed alive: ~0.6 MiB per
    compile in a process that compiles many functions. Only recomputation is lost."""
    for attr in vars(ShapeEnv).values():
        clear = getattr(attr, "cache_clear", None)  # functools' lru_cache and torch's own wrapper
        if callable(clear):
            clear()


# --------------------------------------------------------------------------- arguments


def _arg_names(fn: Callable[..., Any], count: int) -> list[str]:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [
        p.name
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or len(names) < count:
        names += [f"arg{i}" for i in range(len(names), count)]
    return names[:count]


def _by_name(fn: Callable[..., Any], example: Mapping[str, Any]) -> tuple[list[str], Callable[..., Any]]:
    """The names of a dict of example arguments in the order `fn` takes them, and `fn`
    called with them by name: a dict never binds by position. Keys that name no
    parameter fill `*args` (in the dict's order), else `**kwargs`."""
    what = getattr(fn, "__name__", "the function")
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # no signature to read: every key by keyword
        params = [inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]
    kinds = {p.kind for p in params}
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keyword = [p for p in params if p.kind == p.KEYWORD_ONLY]
    named = {p.name for p in positional + keyword}
    extra = [k for k in example if k not in named]
    missing = [p.name for p in positional + keyword if p.name not in example and p.default is p.empty]
    if extra and not kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        raise CaptureError(f"example_args names {', '.join(repr(k) for k in extra)}, which {what} does not "
                           f"take (its parameters: {', '.join(p.name for p in params) or 'none'})")
    if missing:
        raise CaptureError(f"example_args lacks {', '.join(repr(m) for m in missing)}, which {what} requires")
    by_position = [p.name for p in positional if p.name in example]
    star = bool(extra) and inspect.Parameter.VAR_POSITIONAL in kinds
    if star and len(by_position) < len(positional):
        raise CaptureError(f"example_args names {', '.join(repr(k) for k in extra)} for *args of {what}, "
                           "so it must give every parameter before it too")
    if not star:  # only positional-only parameters go by position, and they must be a prefix
        by_position = [p.name for p in positional if p.kind == p.POSITIONAL_ONLY and p.name in example]
        if by_position != [p.name for p in positional if p.kind == p.POSITIONAL_ONLY][:len(by_position)]:
            raise CaptureError(f"example_args skips a positional-only parameter of {what}")
    names = ([p.name for p in positional if p.name in example] + (extra if star else [])
             + [p.name for p in keyword if p.name in example] + ([] if star else extra))
    leading = by_position + (extra if star else [])

    def call(*values: Any) -> Any:
        given = dict(zip(names, values))
        first = [given.pop(n) for n in leading]
        return fn(*first, **given)

    return names, call


def _entries(shapes: Sequence[Any], count: int) -> Sequence[Any]:
    if len(shapes) != count:
        raise CaptureError(f"dynamic_shapes has {len(shapes)} entries for {count} arguments")
    return shapes


def _dynamic_dims(
    names: list[str], args: Sequence[torch.Tensor], dynamic_shapes: DynamicShapes
) -> list[dict[int, Dim]]:
    """Per argument, `{dim: Dim}` of the dims declared dynamic, validated."""
    per_arg: list[Any] = [None] * len(args)
    if isinstance(dynamic_shapes, Mapping):
        for key, spec in dynamic_shapes.items():
            if isinstance(key, int) and 0 <= key < len(args):
                per_arg[key] = spec
            elif key in names:
                per_arg[names.index(key)] = spec
            else:
                raise CaptureError(
                    f"dynamic_shapes names '{key}', which is not an argument "
                    f"(arguments: {', '.join(names)})"
                )
    elif dynamic_shapes is not None:
        if len(dynamic_shapes) != len(args):
            raise CaptureError(
                f"dynamic_shapes has {len(dynamic_shapes)} entries for {len(args)} arguments"
            )
        per_arg = list(dynamic_shapes)

    out: list[dict[int, Dim]] = []
    for name, a, spec in zip(names, args, per_arg):
        if spec is None:
            spec = {}
        elif isinstance(spec, (list, tuple)):
            spec = {d: s for d, s in enumerate(spec) if s is not None}
        dims: dict[int, Dim] = {}
        for d, dim in spec.items():
            if not isinstance(d, int) or not -a.dim() <= d < a.dim():
                raise CaptureError(f"argument '{name}' has no dim {d} (rank {a.dim()})")
            if dim is None:
                continue
            if not hasattr(dim, "__name__") or not hasattr(dim, "min"):
                raise CaptureError(
                    f"dynamic_shapes['{name}'][{d}] must be a torch.export.Dim, got {dim!r}"
                )
            size = int(a.shape[d])
            if size < 2:
                raise CaptureError(
                    f"argument '{name}' dim {d % a.dim()} is dynamic ({dim.__name__}) but "
                    f"was traced at size {size}: torch fixes sizes 0 and 1 to constants. "
                    "Trace with an example of size >= 2."
                )
            lo, hi = dim.min or 0, _finite(dim.max)
            if size < lo or (hi is not None and size > hi):
                raise CaptureError(
                    f"argument '{name}' dim {d % a.dim()} has size {size}, outside the "
                    f"range [{lo}, {hi}] of {dim.__name__}"
                )
            dims[d % a.dim()] = dim
        out.append(dims)

    sizes: dict[str, int] = {}
    for name, a, ds in zip(names, args, out):
        for d, dim in ds.items():
            if sizes.setdefault(dim.__name__, int(a.shape[d])) != a.shape[d]:
                raise CaptureError(
                    f"argument '{name}' dim {d} is {dim.__name__} = {a.shape[d]}, but "
                    f"another use of {dim.__name__} has size {sizes[dim.__name__]}"
                )
    return out


def _finite(value: Any) -> int | None:
    try:
        v = int(value)
    except Exception:  # sympy's int_oo, None
        return None
    return v if v < 2**62 else None


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
        return super()._get_sloc(framework_loc or _users_frame())

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
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patched]
    try:
        for owner, name, value in patched:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


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
                caller = _users_frame()
                raise CaptureError(
                    f"len(tensor) on a dynamic dim ({', '.join(names)}) pins it"
                    + (f", at {caller.filename}:{caller.lineno}" if caller else "") + ": len() must return an int. "
                    "Use tensor.shape[0] or tensor.size(0), which stay symbolic."
                )
        return original(self)

    return __len__


def _trace(
    fn: Callable[..., Any], args: Sequence[torch.Tensor], dims: list[dict[int, Dim]], stack_traces: bool = True,
    anchor: Callable[..., Any] | None = None,
) -> tuple[torch.fx.GraphModule, _ShapeEnv, list[torch.Tensor], dict]:
    """make_fx over fake inputs whose dynamic dims are symbols; also returns the
    symbol of each (argument, dim), read before tracing can replace it. `anchor` is the
    user's function when `fn` calls it by name (its frames are the source lines)."""
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
    try:
        with _as_compiled(dim_names):
            graph = make_fx(
                fn,
                tracing_mode="symbolic",
                decomposition_table=decompositions(),
                _allow_non_fake_inputs=True,
                _error_on_data_dependent_ops=True,
                record_stack_traces=stack_traces,
            )(*fakes)
    except CaptureError:
        raise
    except Exception as e:  # torch raises many kinds; say which stage failed
        raise CaptureError(f"make_fx could not trace the function: {e}") from e
    return graph, env, fakes, symbols_at


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


def _check_guards(
    env: _ShapeEnv,
    names: list[str],
    symbols_at: dict[tuple[int, int], sympy.Symbol],
    dims: list[dict[int, Dim]],
) -> None:
    """Every guard on a dynamic size must follow from its declared range alone."""
    where: dict[sympy.Symbol, str] = {}
    dim_of: dict[sympy.Symbol, str] = {}
    ranges: dict[sympy.Symbol, ValueRanges] = {}
    for (i, d), sym in symbols_at.items():
        dim = dims[i][d]
        where.setdefault(sym, f"argument '{names[i]}' dim {d} ({dim.__name__})")
        dim_of[sym] = dim.__name__
        hi = _finite(dim.max)
        ranges[sym] = ValueRanges(max(2, dim.min or 0), int_oo if hi is None else hi)

    def fail(syms: set[Any], what: str, loc: Any) -> None:
        s = sorted(syms, key=str)[0]
        line = _user_line(loc)
        for sym, name in dim_of.items():
            what = re.sub(rf"\b{sym}\b", name, what)
        raise CaptureError(
            f"{where[s]} is dynamic, but the function {what}"
            + (f" at {line}" if line else "")
            + "; the graph would be wrong at other sizes. Remove the dependence on "
            "this size, or do not mark the dim dynamic."
        )

    pinned = [
        (sym, f"fixes it to {value}" if not value.free_symbols else f"ties it to {value}")
        for sym, value in env.replacements.items()
        if sym in where and (not value.free_symbols or any(dim_of.get(s) != dim_of[sym] for s in value.free_symbols))
    ]
    if pinned:
        # name a symbol pinned directly, not one tied to it first (as our own torch._check
        # ties the uses of one Dim), and preferably one with a line of the user's
        def rank(sym: sympy.Symbol) -> tuple[bool, bool]:
            tied_first = bool(env.first_replacement.get(sym, sympy.S.One).free_symbols)
            return tied_first, _user_line(env.replacements_slocs.get(sym)) is None

        sym, what = min(pinned, key=lambda p: rank(p[0]))
        fail({sym}, what, env.replacements_slocs.get(sym))
    # our own ties (all uses of one Dim are equal) hold by construction
    canonical = {s: next(t for t in dim_of if dim_of[t] == dim_of[s]) for s in dim_of}
    for guard in env.guards:
        syms = guard.expr.free_symbols & set(where)
        expr = guard.expr.xreplace(canonical)
        if syms and not _implied(expr, ranges):
            fail(syms, f"requires {guard.expr}{_larger_min(expr, ranges, dim_of)}", guard.sloc)


def _implied(expr: sympy.Basic, ranges: dict[sympy.Symbol, ValueRanges]) -> bool:
    """Whether `expr` holds for every size in the declared ranges. A comparison is
    decided on the range of the difference of its sides (`N//2 <= N` holds since
    N - N//2 >= 0), after writing each N divided by a constant c as c*q + r with
    0 <= r < c, so that N//c and N % c become the new symbols q and r."""
    expr, ranges = _without_floor_division(expr, ranges)
    if isinstance(expr, sympy.core.relational.Relational) and expr.rel_op in ("<=", "<", ">=", ">"):
        small, large = (expr.lhs, expr.rhs) if expr.rel_op in ("<=", "<") else (expr.rhs, expr.lhs)
        # expanded, N - N//2 cancels; unexpanded, a product keeps its factors together
        # (N*(N-1) >= 12 for N >= 4, where interval arithmetic on N**2 - N cannot tell)
        for gap in (sympy.expand(large - small), large - small):
            try:
                bound = bound_sympy(gap, {s: r for s, r in ranges.items() if s in gap.free_symbols})
            except Exception:
                continue
            if bool(bound.lower >= 0) if expr.rel_op in ("<=", ">=") else bool(bound.lower > 0):
                return True
        return False
    try:
        bound = bound_sympy(expr, {s: r for s, r in ranges.items() if s in expr.free_symbols})
    except Exception:
        return False
    return bool(bound.lower) is True and bound.lower == bound.upper


def _larger_min(expr: sympy.Basic, ranges: dict[sympy.Symbol, ValueRanges], dim_of: dict[Any, str]) -> str:
    """A hint: the smallest larger `min` of one Dim (up to 64) under which the guard holds."""
    for sym in sorted(expr.free_symbols & set(ranges), key=str):
        declared = ranges[sym]
        for lo in range(int(declared.lower) + 1, 65):
            if _implied(expr, {**ranges, sym: ValueRanges(lo, declared.upper)}):
                return f" (true for {dim_of[sym]} >= {lo}: declare Dim(\"{dim_of[sym]}\", min={lo}))"
    return ""


def _without_floor_division(
    expr: sympy.Basic, ranges: dict[sympy.Symbol, ValueRanges]
) -> tuple[sympy.Basic, dict[sympy.Symbol, ValueRanges]]:
    """`expr` with each size symbol N that is divided by a positive constant c
    replaced by c*q + r (one c per symbol), and the ranges of q and r."""
    ranges = dict(ranges)
    divisions = [e for e in expr.atoms(FloorDiv, Mod, PythonMod)
                 if e.args[0] in ranges and e.args[1].is_Integer and e.args[1] > 0]
    for n in dict.fromkeys(d.args[0] for d in divisions):
        c = next(int(d.args[1]) for d in divisions if d.args[0] == n)
        q, r = sympy.Dummy(f"{n}_div_{c}", integer=True), sympy.Dummy(f"{n}_mod_{c}", integer=True)
        declared = ranges.pop(n)
        lo, hi = declared.lower, declared.upper
        expr = expr.xreplace({d: q if isinstance(d, FloorDiv) else r for d in divisions
                              if d.args[0] == n and d.args[1] == c}).xreplace({n: c * q + r})
        ranges[q] = ValueRanges(lo // c, hi if hi is int_oo else hi // c)
        ranges[r] = ValueRanges(0, c - 1)
    return expr, ranges


_NOT_USERS = (os.path.dirname(torch.__file__) + os.sep, sysconfig.get_paths()["stdlib"] + os.sep)
_THIS_FILE = os.path.abspath(__file__)  # our own torch._check ties are no user's line


def _is_users(file: str) -> bool:
    """Whether a frame's file is the user's or a library's: not torch, the standard
    library, this file, or generated code (FX's `<eval_with_key>`)."""
    return os.path.isabs(file) and not file.startswith(_NOT_USERS) and file != _THIS_FILE


def _users_frame() -> traceback.FrameSummary | None:
    """The innermost frame of the calling stack in the user's or a library's code
    that runs inside a trace (our own ties of sizes, made before it, have none)."""
    frame = sys._getframe(1)
    while frame is not None and not _is_users(frame.f_code.co_filename):
        frame = None if frame.f_code is _trace.__code__ else frame.f_back
    return None if frame is None else traceback.FrameSummary(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def _user_line(loc: Any) -> str | None:
    """`file:line` of the user's code behind a guard, if the guard recorded one
    (torch shortens its own paths, so only absolute paths outside torch and this
    file count)."""
    if loc is None:
        return None
    frame = getattr(loc, "framework_loc", None)
    if isinstance(frame, traceback.FrameSummary) and _is_users(frame.filename):
        return f"{frame.filename}:{frame.lineno}"
    text = str(getattr(loc, "maybe_user_loc", None) or loc)
    files = re.findall(r'File "([^"]+)", line (\d+)', text) or re.findall(
        r"([\w./\\-]+\.py):(\d+)", text
    )
    user = [f for f in files if _is_users(f[0])]
    return f"{user[-1][0]}:{user[-1][1]}" if user else None


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
) -> None:
    """Trace again at other sizes: the code must be the same as the first trace's
    (as NequIP checks; both before functionalization, which is deterministic)."""
    other, _, _, _ = _trace(fn, args, dims)
    if _normalized(other.code) != _normalized(code):
        raise CaptureError(
            "the graph traced at other sizes differs from the first one: the "
            "function depends on a dynamic size in a way the guards did not show"
        )


def _normalized(code: str) -> str:
    return re.sub(r"_tensor_constant\d+|_param_constant\d+", "C", code)
