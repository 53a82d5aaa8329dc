"""The programs the fuzzer draws: random energy functions over an atomic system.

A `Program` is the source text of a standalone module defining `make(dtype) ->
energy_forces`, built line by line from SSA `Value`s that live on atoms, edges,
triplets of edges or as scalars. It is text, not a closure, so that a failing case
can be written out as a reproducer that runs without the fuzzer's state, and so that
the float64 reference is the same program made in another dtype. `draw_program`
draws one with hypothesis (its `data.draw`), in ways that shrink toward short
programs of plain operations.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ARGS = ("pos", "edge_index", "triplets")
"""The parameters of every program, in the usual order."""


@dataclass(frozen=True)
class Value:
    """An SSA value of a program: its variable, where it lives (atom, edge or
    scalar) and its feature width (0: one number per atom or edge)."""

    name: str
    space: str
    width: int

    @property
    def rows(self) -> str:
        return {"atom": "pos.shape[0]", "edge": "edge_index.shape[1]", "triplet": "triplets.shape[1]"}[self.space]


UNARY = {
    "tanh": "torch.tanh({x})",
    "sigmoid": "torch.sigmoid({x})",
    "sin": "torch.sin({x})",
    "cos": "torch.cos({x})",
    "gauss": "torch.exp(-{x} ** 2)",
    "square": "{x} ** 2",
    "cube": "{x} ** 3",
    "smooth_abs": "torch.sqrt({x} ** 2 + 1.0)",
    "softplus": "torch.nn.functional.softplus({x})",
    "log1p_sq": "torch.log1p({x} ** 2)",
    "bounded": "{x} / (1.0 + {x} ** 2)",
    "silu": "torch.nn.functional.silu({x})",
    "relu": "torch.relu({x})",
    "clamp": "torch.clamp({x}, -0.8, 0.8)",
    "leaky": "torch.where({x} > 0, {x}, 0.3 * {x})",
    "neg": "-{x}",
    "affine": "0.7 * {x} + 0.2",
    "erf": "torch.erf({x})",
    "expm1_neg_sq": "torch.expm1(-{x} ** 2)",
    "atan2": "torch.atan2({x}, 1.5 + torch.cos({x}))",
}
BINARY = {
    "add": "{a} + {b}",
    "sub": "{a} - {b}",
    "mul": "{a} * {b}",
    "soft_div": "{a} / (1.0 + {b} ** 2)",
    "max": "torch.maximum({a}, {b})",
}


GATHER = {"atom": ("edge", ["src", "dst"]), "edge": ("triplet", ["first", "second"])}
SCATTER = {"edge": ("atom", ["src", "dst"]), "triplet": ("edge", ["first", "second"])}


@dataclass
class Program:
    """Lines of the body of `energy_forces`, the weights it closes over and the
    values it has defined."""

    values: list[Value]
    lines: list[str] = field(default_factory=list)
    weights: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    params: tuple[str, ...] = ARGS
    """The order of `energy_forces`' parameters (a binding by position in the wrong
    order cannot hide behind the usual one)."""

    def new(self, space: str, width: int, expr: str) -> Value:
        v = Value(f"v{len(self.values)}", space, width)
        self.values.append(v)
        self.lines.append(f"{v.name} = {expr}")
        return v

    def weight(self, *shape: int) -> str:
        name = f"w{len(self.weights)}"
        self.weights.append((name, shape))
        return name

    def source(self, energy: list[str]) -> str:
        """A standalone module defining `make(dtype) -> energy_forces`."""
        weights = "\n".join(
            f"    {n} = (torch.randn({', '.join(map(str, s))}, generator=g, dtype=torch.float64)"
            f" / {math.sqrt(s[0]):.6g}).to(rounded_to or dtype).to(dtype)" for n, s in self.weights)
        body = "\n".join(f"        {line}" for line in self.lines)
        return TEMPLATE.format(weights=weights or "    pass", body=body, energy=" + ".join(energy),
                                params=", ".join(self.params))


TEMPLATE = '''import torch


def make(dtype, rounded_to=None):
    """energy_forces in `dtype`, its weights rounded to `rounded_to` first (a float64
    reference of a float32 program has the float32 weights)."""
    g = torch.Generator().manual_seed(0)
{weights}

    def energy_forces({params}):
        pos = pos.detach().requires_grad_(True)
        src, dst = edge_index[0], edge_index[1]
        first, second = triplets[0], triplets[1]
        vec = pos.index_select(0, dst) - pos.index_select(0, src)
        r = torch.sqrt((vec ** 2).sum(-1))
{body}
        energy = {energy}
        (grad,) = torch.autograd.grad(energy, pos)
        return energy, -grad

    return energy_forces
'''


def _start() -> Program:
    return Program([Value("pos", "atom", 3), Value("vec", "edge", 3), Value("r", "edge", 0)])


def _column(v: Value) -> str:
    """v as (rows, 1) for a per-row value, else as it is."""
    return f"{v.name}[:, None]" if v.width == 0 and v.space != "scalar" else v.name


def draw_program(draw: Callable[[Any], Any]) -> tuple[Program, list[str]]:
    """A random program; `draw` is hypothesis' `data.draw`."""
    from hypothesis import strategies as st

    p = _start()
    for _ in range(draw(st.integers(1, 9))):
        kind = draw(st.sampled_from(["unary", "unary", "binary", "binary", "reduce", "gather", "scatter",
                                     "linear", "expand", "scalar", "cat", "reshape"]))
        pick = lambda vs: draw(st.sampled_from(vs))  # noqa: E731
        rows = [v for v in p.values if v.space != "scalar"]
        if kind == "unary":
            x = pick(p.values)
            p.new(x.space, x.width, UNARY[draw(st.sampled_from(sorted(UNARY)))].format(x=x.name))
        elif kind == "binary":
            a = pick(p.values)
            partners = [v for v in p.values if v.space in (a.space, "scalar") or a.space == "scalar"]
            b = pick(partners)
            space = a.space if a.space != "scalar" else b.space
            width = max(a.width, b.width) if a.width == 0 or b.width == 0 or a.width == b.width else None
            if width is None:  # features of different widths: reduce b first
                b = p.new(b.space, 0, f"{b.name}.sum(-1)")
                width = a.width
            ea, eb = (_column(a), _column(b)) if max(a.width, b.width) > 0 else (a.name, b.name)
            p.new(space, width, BINARY[draw(st.sampled_from(sorted(BINARY)))].format(a=ea, b=eb))
        elif kind == "reduce":
            x = pick(p.values)
            if x.space == "scalar":
                continue
            how = draw(st.sampled_from(["sum_features", "mean_features", "norm_features", "sum", "mean"]))
            if how.endswith("features") and x.width > 0:
                expr = {"sum_features": f"{x.name}.sum(-1)", "mean_features": f"{x.name}.mean(-1)",
                        "norm_features": f"torch.sqrt(({x.name} ** 2).sum(-1) + 1e-3)"}[how]
                p.new(x.space, 0, expr)
            else:
                p.new("scalar", 0, f"{x.name}.{'sum' if how.startswith('sum') else 'mean'}()")
        elif kind == "gather":  # atoms to edges, or edges to triplets
            x = pick([v for v in p.values if v.space in GATHER])
            space, ends = GATHER[x.space]
            end = draw(st.sampled_from(ends))
            how = draw(st.sampled_from(["index_select", "index"]))
            expr = f"{x.name}.index_select(0, {end})" if how == "index_select" else f"{x.name}[{end}]"
            p.new(space, x.width, expr)
        elif kind == "scatter":  # edges to atoms, or triplets to edges
            x = pick([v for v in p.values if v.space in SCATTER])
            space, ends = SCATTER[x.space]
            end = draw(st.sampled_from(ends))
            count = Value("", space, 0).rows
            shape = f"{count}, {x.width}" if x.width else count
            p.new(space, x.width, f"torch.zeros({shape}, dtype=pos.dtype).index_add(0, {end}, {x.name})")
        elif kind == "linear":
            x = pick(rows)
            out = draw(st.sampled_from([1, 4, 8, 16]))
            inner = max(x.width, 1)
            w = p.weight(inner, out)
            bias = p.weight(out) if draw(st.booleans()) else None
            expr = f"{_column(x)} @ {w}" + (f" + {bias}" if bias else "")
            p.new(x.space, out, expr)
        elif kind == "expand":  # a radial basis: exp(-(x - centers)^2)
            x = pick([v for v in rows if v.width == 0] or rows)
            if x.width:
                continue
            out = draw(st.sampled_from([4, 8]))
            centers = p.weight(out)
            p.new(x.space, out, f"torch.exp(-({x.name}[:, None] - {centers}) ** 2)")
        elif kind == "scalar":  # a value read by a later loop over the same rows
            x = pick(rows)
            s = p.new("scalar", 0, f"{x.name}.{draw(st.sampled_from(['sum', 'mean']))}()")
            how = draw(st.sampled_from(["mul", "exp_over", "pow"]))
            expr = {"mul": f"{x.name} * {s.name}",
                    "exp_over": f"torch.exp(-{x.name} ** 2 / (1.0 + {s.name} ** 2))",
                    "pow": f"torch.sqrt({x.name} ** 2 + 1.0) ** torch.tanh({s.name})"}[how]
            p.new(x.space, x.width, expr)
        elif kind == "cat":
            a = pick(rows)
            b = pick([v for v in rows if v.space == a.space])
            p.new(a.space, max(a.width, 1) + max(b.width, 1), f"torch.cat([{_column(a)}, {_column(b)}], dim=-1)")
        elif kind == "reshape":
            x = pick([v for v in rows if v.width in (4, 8, 16)] or rows)
            if x.width not in (4, 8, 16):
                continue
            a = 2
            p.new(x.space, x.width,
                  f"{x.name}.reshape({x.rows}, {a}, {x.width // a}).transpose(1, 2).reshape({x.rows}, {x.width})")
    last = p.values[3:] or p.values[2:]
    chosen = draw(st.lists(st.sampled_from(last), min_size=1, max_size=3, unique=True))
    energy = [f"{v.name}.sum()" for v in chosen] + ["1e-3 * r.sum()"]
    p.params = tuple(draw(st.permutations(ARGS)))
    return p, energy

