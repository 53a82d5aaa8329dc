"""The guards of a symbolic trace, checked against the declared ranges: a trace that pins
or bounds a dynamic size (`if pos.shape[0] == 20`, `x[:3]` on N) is refused with the
user's source line, since its graph would be silently wrong at other sizes. Also where
that line is: the first frame of the user's code."""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import traceback
from types import CodeType
from typing import Any

import sympy
import torch
from torch.export import Dim
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils._sympy.functions import FloorDiv, Mod, PythonMod
from torch.utils._sympy.numbers import int_oo
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

from frontend.arguments import finite
from frontend.errors import CaptureError, PinnedSize


def check_guards(
    env: ShapeEnv,
    names: list[str],
    symbols_at: dict[tuple[int, int], sympy.Symbol],
    dims: list[dict[int, Dim]],
    pins_only: bool = False,
) -> None:
    """Every guard on a dynamic size must follow from its declared range alone; first,
    no dynamic size may be fixed or tied to another (only that, with `pins_only`)."""
    where: dict[sympy.Symbol, str] = {}
    dim_of: dict[sympy.Symbol, str] = {}
    ranges: dict[sympy.Symbol, ValueRanges] = {}
    for (i, d), sym in symbols_at.items():
        dim = dims[i][d]
        where.setdefault(sym, f"argument '{names[i]}' dim {d} ({dim.__name__})")
        dim_of[sym] = dim.__name__
        hi = finite(dim.max)
        ranges[sym] = ValueRanges(max(2, dim.min or 0), int_oo if hi is None else hi)

    def fail(syms: set[Any], what: str, loc: Any, fixed: int | None = None) -> None:
        s = sorted(syms, key=str)[0]
        line = user_line(loc)
        for sym, name in dim_of.items():
            what = re.sub(rf"\b{sym}\b", name, what)
        message = (f"{where[s]} is dynamic, but the function {what}" + (f" at {line}" if line else "")
                   + "; the graph would be wrong at other sizes. Remove the dependence on this size, or do not "
                   "mark the dim dynamic")
        if fixed is None:
            raise CaptureError(message + ".")
        without = {names[i]: {d: dim for d, dim in ds.items() if dim.__name__ != dim_of[s]} for i, ds in enumerate(dims)}
        at = [(names[i], d) for i, ds in enumerate(dims) for d, dim in ds.items() if dim.__name__ == dim_of[s]]
        raise PinnedSize(message + f", or compile with specialize=True (code for each size of {dim_of[s]}).",
                         dim_of[s], fixed, at, without)

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
            return tied_first, user_line(env.replacements_slocs.get(sym)) is None

        sym, what = min(pinned, key=lambda p: rank(p[0]))
        value = env.replacements[sym]
        fail({sym}, what, env.replacements_slocs.get(sym), None if value.free_symbols else int(value))
    if pins_only:
        return
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


_NOT_USERS = (os.path.dirname(torch.__file__) + os.sep, sysconfig.get_paths()["stdlib"] + os.sep,
              os.path.dirname(os.path.abspath(__file__)) + os.sep)  # our own ties of sizes are no user's line


def is_users(file: str) -> bool:
    """Whether a frame's file is the user's or a library's: not torch, the standard
    library, the frontend, or generated code (FX's `<eval_with_key>`)."""
    return os.path.isabs(file) and not file.startswith(_NOT_USERS)


def users_frame(trace: CodeType) -> traceback.FrameSummary | None:
    """The innermost frame of the calling stack in the user's or a library's code
    that runs inside a trace (whose function's code is `trace`; our own ties of sizes,
    made before it, have none)."""
    frame = sys._getframe(1)
    while frame is not None and not is_users(frame.f_code.co_filename):
        frame = None if frame.f_code is trace else frame.f_back
    return None if frame is None else traceback.FrameSummary(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def user_line(loc: Any) -> str | None:
    """`file:line` of the user's code behind a guard, if the guard recorded one
    (torch shortens its own paths, so only absolute paths outside torch and this
    file count)."""
    if loc is None:
        return None
    frame = getattr(loc, "framework_loc", None)
    if isinstance(frame, traceback.FrameSummary) and is_users(frame.filename):
        return f"{frame.filename}:{frame.lineno}"
    text = str(getattr(loc, "maybe_user_loc", None) or loc)
    files = re.findall(r'File "([^"]+)", line (\d+)', text) or re.findall(
        r"([\w./\\-]+\.py):(\d+)", text
    )
    user = [f for f in files if is_users(f[0])]
    return f"{user[-1][0]}:{user[-1][1]}" if user else None
