"""Capture a function that calls `torch.autograd.grad` as one symbolic FX graph.

make_fx traces through the autograd engine, so the backward becomes plain aten ops.
Only `tracing_mode="symbolic"` generalizes over sizes, and only if nothing pins a
size on the way: we fakify the inputs ourselves so that exactly the dims the user
marked dynamic get a symbol (one symbol per `Dim`, shared by all its uses), check
every guard of that first trace against the declared ranges, functionalize, and
trace a second time at other sizes to compare the graphs.
"""

from __future__ import annotations

import inspect
import os
import re
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
import torch
import torch.fx
import torch.fx.traceback as fx_traceback
from torch._decomp import core_aten_decompositions
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
) -> Captured:
    """Trace `fn(*example_args)` into a functional aten graph symbolic in the
    dims that `dynamic_shapes` marks with a `torch.export.Dim`.

    `example_args` may be a dict: its keys name the (positional) arguments.
    `check_args`, if given, are other inputs (other sizes) traced a second time
    to prove the graph does not depend on the traced sizes; by default they are
    made by growing every dynamic dim of the examples.
    """
    if isinstance(example_args, Mapping):
        names = list(example_args)
        example_args = tuple(example_args.values())
    else:
        names = _arg_names(fn, len(example_args))
    if isinstance(check_args, Mapping):
        check_args = tuple(check_args.values())
    for name, a in zip(names, example_args):
        if not isinstance(a, torch.Tensor):
            raise CaptureError(f"argument '{name}' must be a torch.Tensor, got {type(a).__name__}")
        if a.device.type != "cpu":
            raise CaptureError(f"argument '{name}' is on {a.device}; only cpu is supported")
    dims = _dynamic_dims(names, example_args, dynamic_shapes)
    graph, env, fakes, symbols_at = _trace(fn, example_args, dims)
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

    if check_args is None:
        check_args = _grown(example_args, dims)
    if check_args is not None:
        _compare_retrace(fn, traced_code, check_args, dims)
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


def _trace(
    fn: Callable[..., Any], args: Sequence[torch.Tensor], dims: list[dict[int, Dim]]
) -> tuple[torch.fx.GraphModule, ShapeEnv, list[torch.Tensor], dict]:
    """make_fx over fake inputs whose dynamic dims are symbols; also returns the
    symbol of each (argument, dim), read before tracing can replace it."""
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)
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
    # make_fx keeps only frames of `forward` methods, and of registered anchors
    torch.fx.proxy._register_stack_trace_anchor(fn)
    try:
        graph = make_fx(
            fn,
            tracing_mode="symbolic",
            decomposition_table=core_aten_decompositions(),
            _allow_non_fake_inputs=True,
            _error_on_data_dependent_ops=True,
            record_stack_traces=True,
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
    env: ShapeEnv,
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

    for sym, value in env.replacements.items():
        if sym in where:
            if not value.free_symbols:
                fail({sym}, f"fixes it to {value}", env.replacements_slocs.get(sym))
            if any(dim_of.get(s) != dim_of[sym] for s in value.free_symbols):
                fail({sym}, f"ties it to {value}", env.replacements_slocs.get(sym))
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
        gap = sympy.expand(large - small)
        try:
            bound = bound_sympy(gap, {s: r for s, r in ranges.items() if s in gap.free_symbols})
        except Exception:
            return False
        return bool(bound.lower >= 0) if expr.rel_op in ("<=", ">=") else bool(bound.lower > 0)
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


_TORCH_DIR = os.path.dirname(torch.__file__)


def _user_line(loc: Any) -> str | None:
    """`file:line` of the user's code behind a guard, if the guard recorded one
    (torch shortens its own paths, so only absolute paths outside torch count)."""
    if loc is None:
        return None

    def users(file: str) -> bool:
        return os.path.isabs(file) and not file.startswith(_TORCH_DIR)

    frame = getattr(loc, "framework_loc", None)
    if isinstance(frame, traceback.FrameSummary) and users(frame.filename):
        return f"{frame.filename}:{frame.lineno}"
    text = str(getattr(loc, "maybe_user_loc", None) or loc)
    files = re.findall(r'File "([^"]+)", line (\d+)', text) or re.findall(
        r"([\w./\\-]+\.py):(\d+)", text
    )
    user = [f for f in files if users(f[0])]
    return f"{user[-1][0]}:{user[-1][1]}" if user else None


def _functionalize(
    graph: torch.fx.GraphModule, fakes: list[torch.Tensor]
) -> torch.fx.GraphModule:
    """Retrace without mutations, in the same fake mode so the symbols stay, and
    through an FX interpreter so each new node keeps its source's stack trace."""
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


def _grown(
    args: Sequence[torch.Tensor], dims: list[dict[int, Dim]]
) -> list[torch.Tensor] | None:
    """Inputs with every dynamic dim one larger; None when nothing is dynamic."""
    if not any(dims):
        return None
    return [
        torch.zeros(
            [s + 1 if d in ds else s for d, s in enumerate(a.shape)], dtype=a.dtype
        )
        for a, ds in zip(args, dims)
    ]


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
