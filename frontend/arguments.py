"""The arguments of a captured function: their names, how a dict of examples binds to the
function's parameters (by name, never by position), and the dims `dynamic_shapes` marks
dynamic, checked against the examples before anything is traced."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.export import Dim

from frontend.errors import CaptureError

DynamicShapes = Mapping[str | int, Any] | Sequence[Any] | None


def arg_names(fn: Callable[..., Any], count: int) -> list[str]:
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


def by_name(fn: Callable[..., Any], example: Mapping[str, Any]) -> tuple[list[str], Callable[..., Any]]:
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


def entries(shapes: Sequence[Any], count: int) -> Sequence[Any]:
    if len(shapes) != count:
        raise CaptureError(f"dynamic_shapes has {len(shapes)} entries for {count} arguments")
    return shapes


def dynamic_dims(
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
            lo, hi = dim.min or 0, finite(dim.max)
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


def finite(value: Any) -> int | None:
    try:
        v = int(value)
    except Exception:  # sympy's int_oo, None
        return None
    return v if v < 2**62 else None
