"""A differential fuzzer: random energy functions, compiled, against eager PyTorch.

    python -m pipeline fuzz [--minutes M] [--seed S] [--out DIR]

Hypothesis draws a program over an atomic system: per-atom, per-edge and per-triplet
values (positions, edge vectors, distances to start; triplets are pairs of edges
leaving one atom, a third symbolic size T), elementwise chains, reductions along
features and to scalars, gathers from atoms to edges and from edges to triplets and
scatters back, dense layers
with weights, broadcasts, concatenations and reshapes, values read by several
consumers; the energy sums some of them, the forces are -dE/dpos by
`torch.autograd.grad`. Each program is compiled once (symbolic N and E, the IR
verified after every pass) and run at sizes it was not traced at, on 1 and 2
threads. A run fails when the compiler raises, when the two thread counts disagree
bit for bit, or when its error against a float64 evaluation of the same program
exceeds the tolerance (1e-5 relative in f32, 1e-10 in f64), 10x the error of eager
PyTorch in the same dtype and 10x the program's own sensitivity to the order of
its sums (the float64 evaluation with the edges listed in another order: a program
whose forces are the rounding noise of a cancelling sum has no right answer to
match). The failure is shrunk and written out as a standalone reproducer `.py`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-10}
TRACE_ATOMS = 11
SIZES = (5, 17, 40)  # atoms at which a compiled program is run (none is traced)
ROUND = 5  # hypothesis examples per round: the time budget is checked between rounds


# --------------------------------------------------------------------------- programs


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
        return _TEMPLATE.format(weights=weights or "    pass", body=body, energy=" + ".join(energy))


_TEMPLATE = '''import torch


def make(dtype, rounded_to=None):
    """energy_forces in `dtype`, its weights rounded to `rounded_to` first (a float64
    reference of a float32 program has the float32 weights)."""
    g = torch.Generator().manual_seed(0)
{weights}

    def energy_forces(pos, edge_index, triplets):
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
    return p, energy


# --------------------------------------------------------------------------- checks


class Mismatch(AssertionError):
    """Compiled and eager results differ beyond tolerance."""


def load(source: str) -> Callable[[torch.dtype], Callable[..., Any]]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<fuzz program>", "exec"), namespace)
    return namespace["make"]


def system(n: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Positions, edges and triplets (every pair of distinct edges leaving one atom)."""
    from examples.common import CUTOFF, random_system
    from examples.three_body import triplets_of

    pos, edge_index = random_system(n, dtype=dtype, seed=seed, neighbors=6.0)
    return pos, edge_index, triplets_of(pos, edge_index, CUTOFF)


def relative(got: torch.Tensor, want: torch.Tensor) -> float:
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    return err / max(scale, 1e-30) if scale > 0 else err


def check(source: str, dtype: torch.dtype) -> None:
    """Compile the program in `dtype` and compare, raising on any defect."""
    from torch.export import Dim

    import pipeline

    make = load(source)
    fn, reference = make(dtype), make(torch.float64, rounded_to=dtype)
    pos, edge_index, triplets = system(TRACE_ATOMS, dtype, 0)
    native = pipeline.compile(fn, {"pos": pos, "edge_index": edge_index, "triplets": triplets},
                              {"pos": {0: Dim("N")}, "edge_index": {1: Dim("E")}, "triplets": {1: Dim("T")}},
                              verify=True)
    for n in SIZES:
        pos, edge_index, triplets = system(n, dtype, n)
        args = (pos, edge_index, triplets)
        want = [t.detach() for t in reference(pos.double(), edge_index, triplets)]
        if not all(torch.isfinite(w).all() for w in want):
            continue  # the program itself overflows here: nothing to compare
        eager = [t.detach() for t in fn(*args)]
        order = torch.randperm(edge_index.shape[1], generator=torch.Generator().manual_seed(n))
        moved = torch.empty_like(order)
        moved[order] = torch.arange(order.shape[0])  # where each edge went
        reordered = [t.detach() for t in reference(pos.double(), edge_index[:, order], moved[triplets])]
        results = []
        for threads in (1, 2):
            native.num_threads = threads
            results.append(native(*args))
        for k, (one, two) in enumerate(zip(*results)):
            if not torch.equal(one, two):
                raise Mismatch(f"N={n}: output {k} differs between 1 and 2 threads")
        for k, (got, ref, base, other) in enumerate(zip(results[0], want, eager, reordered)):
            ours, theirs, noise = relative(got, ref), relative(base, ref), relative(other, ref)
            if not ours <= max(TOLERANCE[dtype], 10 * theirs, 10 * noise):
                raise Mismatch(f"N={n} {dtype}: output {k} relative error {ours:.3g} (eager {theirs:.3g}, "
                               f"float64 with the edges reordered {noise:.3g}, tolerance {TOLERANCE[dtype]:g})")


def reproducer(source: str, dtype: torch.dtype, error: str) -> str:
    """A standalone file that rebuilds the failing program and checks it."""
    note = "\n".join(f"# {line}" for line in error.strip().splitlines()[-12:])
    return (f'"""A case found by `python -m pipeline fuzz`: run it from the repository root.\n\n'
            f'    python {{this file}}\n"""\n# The failure:\n{note}\n\n{source}\n\n'
            f'if __name__ == "__main__":\n    import sys\n    sys.path.insert(0, ".")\n'
            f'    from pipeline.fuzz import check\n    check(open(__file__).read(), torch.{str(dtype).split(".")[1]})\n'
            f'    print("no longer fails")\n')


# --------------------------------------------------------------------------- driver


@dataclass
class Outcome:
    cases: int = 0
    """Programs run before the first failure (or in all)."""
    shrink_steps: int = 0
    failure: str | None = None
    reproducer: Path | None = None


def fuzz(seconds: float, seed: int, out: Path, log: Callable[[str], None] = print) -> Outcome:
    """Run random programs for about `seconds`, in rounds of a few hypothesis
    examples (seeds seed, seed + 1, ...); on the first failure hypothesis shrinks
    it (within its own limits) and its reproducer goes into `out`."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    outcome = Outcome()
    start = time.monotonic()
    last: dict[str, Any] = {}

    def case(data: Any, dtype: torch.dtype) -> None:
        program, energy = draw_program(data.draw)
        source = program.source(energy)
        if last:
            outcome.shrink_steps += 1
        else:
            outcome.cases += 1
        try:
            check(source, dtype)
        except Exception:
            if not last:
                log(f"case {outcome.cases}: failed; shrinking")
            last.update(source=source, dtype=dtype, error=traceback.format_exc())
            raise

    strategies = (st.data(), st.sampled_from([torch.float32, torch.float64]))
    round_ = 0
    while time.monotonic() - start < seconds:
        run = settings(max_examples=ROUND, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                       phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False)(given(*strategies)(case))
        try:
            hypothesis_seed(seed + round_)(run)()
        except Exception:
            if not last:
                raise
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"fuzz_seed{seed + round_}.py"
            path.write_text(reproducer(last["source"], last["dtype"], last["error"]))
            outcome.failure, outcome.reproducer = last["error"].strip().splitlines()[-1], path
            return outcome
        round_ += 1
        log(f"{outcome.cases} cases, {time.monotonic() - start:.0f} s, no failure")
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="time to spend on new cases")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis' seed (a run is repeatable)")
    parser.add_argument("--out", default="fuzz-failures", help="where a failing case's reproducer goes")
    args = parser.parse_args(argv)
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("error: the fuzzer needs hypothesis: pip install -e '.[test]'", file=sys.stderr)
        return 2
    outcome = fuzz(args.minutes * 60, args.seed, Path(args.out))
    if outcome.failure:
        print(f"FAILED at case {outcome.cases} (shrunk in {outcome.shrink_steps} steps): {outcome.failure}\n"
              f"reproducer: {outcome.reproducer}")
        return 1
    print(f"{outcome.cases} cases, no failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
