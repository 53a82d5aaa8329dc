"""The calling convention of a compiled function: one record, built once by the compile.

Everything that calls, exports or describes the native code reads this record and
nothing else: the Python call path (binding positional and keyword arguments, checking
them, allocating the outputs), the exported library's C wrapper, header and manifest,
`compile_potential` and the report. None of them parses a stage's text to learn what
the compile already knew.

The kernel at the loop level takes, in order: the size symbols (i64), the arguments,
the weights, the outputs to fill, the status (i32*), the number of threads (i64),
[the profile buffer,] and the arenas (`Signature.kernel_parameters`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy
import torch


class CallError(ValueError):
    """A call's arguments do not fit the compiled signature."""


@dataclass(frozen=True)
class Argument:
    """A tensor argument of the compiled function."""

    name: str
    position: int
    dtype: torch.dtype
    dims: tuple[int | str, ...]
    """Each dim: a static size, or the name of a size symbol."""

    def shape_text(self) -> str:
        return "(" + ", ".join(str(d) for d in self.dims) + ")"


@dataclass(frozen=True)
class Size:
    """A size symbol (a `torch.export.Dim`): its range and the dims it is read from."""

    name: str
    min: int
    max: int | None
    where: tuple[tuple[str, int], ...]
    """(argument, dim) of every dim that is this symbol; a call reads it from the first."""

    def range_text(self) -> str:
        return f"[{self.min}, {self.max if self.max is not None else 'inf'}]"

    def where_text(self) -> str:
        return ", ".join(f"{a} dim {d}" for a, d in self.where)


@dataclass(frozen=True)
class Output:
    """An output: its dtype and dims, each a static size or an expression of the size
    symbols (`sympy.Symbol(name, integer=True, nonnegative=True)`)."""

    position: int
    dtype: torch.dtype
    dims: tuple[int | sympy.Expr, ...]


@dataclass(frozen=True)
class Weight:
    """A parameter or buffer the function closes over: its data stays out of the IR."""

    name: str
    tensor: torch.Tensor


@dataclass(frozen=True)
class Signature:
    """The calling convention of one compiled function (see the module docstring)."""

    name: str
    arguments: tuple[Argument, ...]
    sizes: tuple[Size, ...]
    outputs: tuple[Output, ...]
    weights: tuple[Weight, ...]
    sites: tuple[str, ...]
    """What each index check and assertion says when it fails: status k names sites[k - 1]."""
    arenas: tuple[torch.dtype, ...]
    """The kernel's workspace: one buffer per element type."""
    single_output: bool = False
    """The function returns one tensor, not a tuple."""

    def __str__(self) -> str:
        def dtype(d: torch.dtype) -> str:
            return str(d).removeprefix("torch.")

        args = ", ".join(f"{a.name}: {dtype(a.dtype)}[{', '.join(map(str, a.dims))}]" for a in self.arguments)
        outs = ", ".join(f"{dtype(o.dtype)}[{', '.join(map(str, o.dims))}]" for o in self.outputs)
        lines = [f"{self.name}({args}) -> {outs if self.single_output else f'({outs})'}"]
        lines += [f"  {s.name} in {s.range_text()}: {s.where_text()}" for s in self.sizes]
        lines.append(f"  {len(self.weights)} weights ({sum(w.tensor.numel() for w in self.weights)} elements), "
                     f"{len(self.sites)} checks, arenas: {', '.join(dtype(d) for d in self.arenas) or 'none'}")
        return "\n".join(lines)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.arguments]

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[Any, ...]:
        """Positional and keyword arguments in the compiled order, as Python binds a call."""
        names = self.names
        if len(args) > len(names):
            raise CallError(f"{self.name} takes {len(names)} arguments ({', '.join(names)}), got {len(args)}")
        bound: dict[str, Any] = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise CallError(f"{self.name} got an unexpected keyword argument '{key}'; "
                                f"its arguments are {', '.join(names)}")
            if key in bound:
                raise CallError(f"{self.name} got argument '{key}' twice (by position and by keyword)")
            bound[key] = value
        missing = [n for n in names if n not in bound]
        if missing:
            raise CallError(f"{self.name} is missing argument(s) {', '.join(repr(m) for m in missing)}")
        return tuple(bound[n] for n in names)

    def output_shapes(self) -> list[Callable[[Mapping[str, int]], list[int]]]:
        """For each output, its shape at given sizes (Python integer arithmetic)."""
        return [_shape_function(o.dims) for o in self.outputs]

    def kernel_parameters(self, profiled: bool = False) -> list[tuple[str, str]]:
        """(role, LLVM type) of each parameter of the loop-level function, in order."""
        return ([("size", "i64")] * len(self.sizes) + [("argument", "ptr")] * len(self.arguments)
                + [("weight", "ptr")] * len(self.weights) + [("output", "ptr")] * len(self.outputs)
                + [("status", "ptr"), ("threads", "i64")] + [("profile", "ptr")] * profiled
                + [("arena", "ptr")] * len(self.arenas))


def symbol(name: str) -> sympy.Symbol:
    """The sympy symbol of a size in output dims."""
    return sympy.Symbol(name, integer=True, nonnegative=True)


def size_expression(expr: sympy.Expr, names: Mapping[sympy.Symbol, str]) -> int | sympy.Expr:
    """A traced size expression over the size symbols' names, torch's integer functions
    (FloorDiv, CeilDiv, Mod, Max, Min) kept as they are: `int` when it is a number."""
    if expr.is_number:
        return int(expr)
    return expr.xreplace({s: symbol(n) for s, n in names.items()})


_INTEGER_FUNCTIONS = {
    "FloorDiv": operator.floordiv,
    "CeilDiv": lambda a, b: -(-a // b),
    "Mod": operator.mod,
    "PythonMod": operator.mod,
    "Max": max,
    "Min": min,
}
"""torch's sympy functions in sizes, as Python integer arithmetic."""


def _shape_function(dims: tuple[int | sympy.Expr, ...]) -> Callable[[Mapping[str, int]], list[int]]:
    parts: list[Callable[[Mapping[str, int]], int]] = []
    for d in dims:
        if isinstance(d, int):
            parts.append(lambda s, n=d: n)
        elif isinstance(d, sympy.Symbol):
            parts.append(operator.itemgetter(d.name))
        else:
            keys = sorted(str(x) for x in d.free_symbols)
            f = sympy.lambdify([symbol(k) for k in keys], d, [_INTEGER_FUNCTIONS, "math"])
            parts.append(lambda s, f=f, keys=keys: int(f(*(s[k] for k in keys))))
    return lambda s: [p(s) for p in parts]


__all__ = ["Argument", "CallError", "Output", "Signature", "Size", "Weight", "size_expression", "symbol"]
