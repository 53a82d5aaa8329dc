"""A differential fuzzer: random energy functions, compiled, against eager PyTorch.

    python -m pipeline fuzz [--minutes M] [--seed S] [--out DIR] [--shrink-minutes M] [--cases N]

Hypothesis draws a program over an atomic system: per-atom, per-edge and per-triplet
values (positions, edge vectors, distances to start; triplets are pairs of edges
leaving one atom, a third symbolic size T), elementwise chains, reductions along
features and to scalars, gathers from atoms to edges and from edges to triplets and
scatters back, dense layers
with weights, broadcasts, concatenations and reshapes, values read by several
consumers; the energy sums some of them, the forces are -dE/dpos by
`torch.autograd.grad`. Its parameters come in a random order, and it draws how it
is compiled and called (a `Plan`): the example arguments as a list or as a dict in
any key order, `dynamic_shapes` as a list or as a dict keyed by name, calls by
position, by keyword in any order, and mixed. Each program is compiled once
(symbolic N, E and T, the IR verified after every pass) and run at sizes it was
not traced at. A case fails (`CaseFailed`, each failure of one of `KINDS`) when

- the compiler raises (`compile`), or a call at a valid size raises (`raised`);
- its error against a float64 evaluation of the same program exceeds the tolerance
  (1e-5 relative in f32, 1e-10 in f64), 10x the error of eager PyTorch in the same
  dtype and 10x the program's own sensitivity to the order of its sums (the float64
  evaluation with the edges listed in another order: a program whose forces are the
  rounding noise of a cancelling sum has no right answer to match) (`numbers`);
- 1 and 2 threads disagree bit for bit (`threads`);
- a form of example arguments, `dynamic_shapes` or call gives other numbers than the
  list, the dict keyed by name and the positional call (`binding`);
- at an empty or degenerate size (N = 0 with E = 0, E = 0 with N > 0, one atom,
  T = 0) the result is wrong (`degenerate`), or an out-of-range index (N = 0 with
  E > 0, an edge to atom N) does not raise IndexError naming `edge_index`
  (`bad-index`);
- a call kills its process (a segfault) or hangs (`crash`): every compiled call runs
  in a forked child, so this is a failure of the case, not of the fuzzer;
- the exported library (`export_library`, called through ctypes the way a C program
  calls it; one case in four) differs from the JIT on one thread in a single bit or
  in its status codes (`library`);
- nothing was compared: the reference is not finite at any size (`nothing-compared`;
  the driver rejects such programs before compiling them, and counts them).

A failure of a new kind is shrunk and written out as a standalone reproducer `.py`;
the run goes on to the end of its time, counting the cases of every kind, and ends
with a summary (cases, exported, rejected, failures by kind).
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import faulthandler
import inspect
import itertools
import json
import math
import os
import pickle
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-10}
TRACE_ATOMS = 11
SIZES = (5, 17, 40)  # atoms at which a compiled program is run (none is traced)
ROUND = 5  # hypothesis examples per round: the time budget is checked between rounds
ARGS = ("pos", "edge_index", "triplets")
SYMBOLS = {"pos": (0, "N"), "edge_index": (1, "E"), "triplets": (1, "T")}
"""Each argument's dynamic dim and its size symbol."""
CHILD_SECONDS = 120.0  # a call without a result after this long has hung
SHRINK_SECONDS = 180.0  # shrinking one failure stops after this long (its best case so far is kept)

KINDS = {
    "compile": "the compiler raised",
    "raised": "a call at a valid size raised",
    "numbers": "wrong numbers against the float64 reference",
    "threads": "1 and 2 threads disagree",
    "binding": "a form of example arguments, dynamic_shapes or call gives other results",
    "degenerate": "a wrong result at an empty or degenerate size",
    "bad-index": "an out-of-range index that does not raise IndexError naming its argument",
    "crash": "a call killed its process or hung",
    "library": "the exported library differs from the JIT",
    "nothing-compared": "the reference is not finite at any size: nothing was compared",
    "internal": "the fuzzer itself raised",
}
"""The kinds of failure, in the order a case reports them."""


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
        return _TEMPLATE.format(weights=weights or "    pass", body=body, energy=" + ".join(energy),
                                params=", ".join(self.params))


_TEMPLATE = '''import torch


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


# --------------------------------------------------------------------------- plans


@dataclass(frozen=True)
class Plan:
    """How a case is compiled and called. The defaults are the plain forms: the
    example arguments as a list in the signature's order, `dynamic_shapes` as a dict
    keyed by name; every case also calls by position, by keyword and mixed."""

    example: tuple[str, ...] | None = None
    """None: the example arguments as a list (in the signature's order); else a dict
    in this key order."""
    shapes: tuple[str, ...] | None = ARGS
    """`dynamic_shapes` as a dict keyed by name, in this key order; None: as a list
    (in the order of the example arguments: the dict's, when they are a dict)."""
    keywords: tuple[str, ...] = ARGS
    """The order of the keyword arguments of the call by keyword (and of the mixed
    call's keywords)."""
    mixed: int = 1
    """The mixed call passes this many arguments by position, the rest by keyword."""
    export: bool = False
    """Export the library too, and call it through ctypes next to the JIT."""

    @property
    def plain(self) -> bool:
        """Compiled from the plain forms (a list, a dict of dynamic shapes by name)."""
        return self.example is None and self.shapes is not None

    def compile_text(self, signature: Sequence[str]) -> str:
        order = self.example or tuple(signature)
        example = ("a dict {" + ", ".join(f"'{n}': ..." for n in order) + "}" if self.example
                   else "a list [" + ", ".join(order) + "]")
        shapes = ("a dict {" + ", ".join(f"'{n}': {{{SYMBOLS[n][0]}: {SYMBOLS[n][1]}}}" for n in self.shapes) + "}"
                  if self.shapes else "a list [" + ", ".join(f"{{{SYMBOLS[n][0]}: {SYMBOLS[n][1]}}}" for n in order)
                  + "]")
        return f"example args {example}, dynamic_shapes {shapes}"


def draw_plan(draw: Callable[[Any], Any]) -> Plan:
    """A random plan; each field shrinks toward the plain form."""
    from hypothesis import strategies as st

    order = st.permutations(ARGS).map(tuple)
    example = draw(order) if draw(st.booleans()) else None  # (hypothesis shrinks st.none() | ... to None)
    shapes = None if draw(st.booleans()) else draw(order)
    return Plan(example=example, shapes=shapes, keywords=draw(order),
                mixed=draw(st.integers(1, len(ARGS) - 1)),
                export=draw(st.sampled_from([False, False, False, True])))


def call_forms(signature: Sequence[str], plan: Plan) -> dict[str, Callable[[Any, dict[str, Any]], Any]]:
    """Ways to call a compiled function `f` on named inputs: positional first."""
    head = list(signature[:plan.mixed])
    rest = [n for n in plan.keywords if n not in head]
    return {
        f"f({', '.join(signature)})": lambda f, a: f(*(a[n] for n in signature)),
        f"f({', '.join(f'{n}=' for n in plan.keywords)})": lambda f, a: f(**{n: a[n] for n in plan.keywords}),
        f"f({', '.join(head + [f'{n}=' for n in rest])})":
            lambda f, a: f(*(a[n] for n in head), **{n: a[n] for n in rest}),
    }


# --------------------------------------------------------------------------- failures


class Mismatch(AssertionError):
    """Compiled and eager results differ beyond tolerance."""


@dataclass
class Checked:
    """What a case did: sizes compared with the reference (of SIZES), exported or not."""

    compared: int = 0
    exported: bool = False


class CaseFailed(Mismatch):
    """Every failure of one case, as (kind, message); kinds are keys of KINDS."""

    def __init__(self, failures: list[tuple[str, str]], checked: Checked | None = None):
        order = list(KINDS)
        self.failures = sorted(failures, key=lambda f: order.index(f[0]))
        self.checked = checked or Checked()
        super().__init__("\n".join(f"[{kind}] {message}" for kind, message in self.failures))

    @property
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(kind for kind, _ in self.failures))


# --------------------------------------------------------------------------- isolation


@dataclass(frozen=True)
class Ran:
    """One call run in a child process: its outputs, or what it raised, or how it died."""

    outputs: tuple[torch.Tensor, ...] | None = None
    error: str | None = None
    """`ExceptionType: message`."""
    died: str | None = None
    """`signal SIGSEGV`, `exit code 3`, `hung: ...`: the call killed the child."""

    def text(self) -> str:
        if self.died:
            return f"killed the process ({self.died})"
        return f"raised {self.error}" if self.error else "returned"


def run_isolated(calls: Sequence[Callable[[], Any]], timeout: float = CHILD_SECONDS) -> list[Ran]:
    """Run each call (it returns a tensor or a tuple of them) in a forked child, one
    after another, on one thread; a call that kills the child (a segfault) or hangs
    is reported as such and the rest run in a new child."""
    results: list[Ran] = []
    while len(results) < len(calls):
        results += _child(calls[len(results):], timeout)
    return results


def _child(calls: Sequence[Callable[[], Any]], timeout: float) -> list[Ran]:
    """The outcomes of the calls in one child, up to and including one that kills it."""
    read, write = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # else the child's copy of a buffer is written twice
        if stream is not None:
            stream.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller
        try:
            os.close(read)
            faulthandler.disable()  # a segfault is a result here, not a traceback on stderr
            torch.set_num_threads(1)  # also the OpenMP threads of an exported library
            for call in calls:
                try:
                    value = call()
                    ran = Ran(outputs=tuple(t.detach().clone() for t in (value if isinstance(value, tuple | list)
                                                                          else (value,))))
                except Exception as err:  # noqa: BLE001 - what a call raises is its outcome
                    ran = Ran(error=f"{type(err).__name__}: {err}")
                data = pickle.dumps(ran, protocol=pickle.HIGHEST_PROTOCOL)
                data = struct.pack("<Q", len(data)) + data
                while data:
                    data = data[os.write(write, data):]
        finally:
            os._exit(0)
    os.close(write)
    out: list[Ran] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                out.append(Ran(died=f"hung: no result in {timeout:.0f} s"))
                break
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            buffer += chunk
            while len(buffer) >= 8 and len(buffer) >= 8 + struct.unpack("<Q", buffer[:8])[0]:
                size = struct.unpack("<Q", buffer[:8])[0]
                out.append(pickle.loads(buffer[8:8 + size]))
                buffer = buffer[8 + size:]
                deadline = time.monotonic() + timeout
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    if len(out) < len(calls) and not (out and out[-1].died):
        how = (f"signal {signal.Signals(-os.waitstatus_to_exitcode(status)).name}" if os.WIFSIGNALED(status)
               else f"exit code {os.waitstatus_to_exitcode(status)}")
        out.append(Ran(died=how))
    return out


# --------------------------------------------------------------------------- the library


def can_export() -> bool:
    """Whether there is a C compiler to link an exported library with."""
    from codegen.object_file import LinkError, c_compiler

    try:
        c_compiler()
    except LinkError:
        return False
    return True


class Library:
    """An exported library called through ctypes as a C program calls it: the sizes
    in the manifest's order, read from the tensors the manifest names, the inputs in
    its order, outputs allocated from `<name>_output_shapes`."""

    _ids = itertools.count()

    def __init__(self, path: Path):
        self.path = path
        self.manifest = json.loads(path.with_suffix(".json").read_text())
        name = self.manifest["name"]
        self.cdll = ctypes.CDLL(str(path))
        self._run = getattr(self.cdll, f"{name}_run")
        self._shapes = getattr(self.cdll, f"{name}_output_shapes")
        self._run.restype = self._shapes.restype = ctypes.c_int
        self.codes = {value: code for code, value in self.manifest["status_codes"].items()}

    @classmethod
    def export(cls, compiled: Any) -> Library:
        """`export_library` into a new temporary directory, under a name of its own."""
        import pipeline.deploy.export

        directory = Path(tempfile.mkdtemp(prefix="fuzz-library-"))
        try:
            return cls(pipeline.deploy.export.export_library(compiled, directory, name=f"fuzz{os.getpid()}_{next(cls._ids)}"))
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise

    def close(self) -> None:
        """Remove its files (the library stays mapped: it is linked -z nodelete)."""
        shutil.rmtree(self.path.parent, ignore_errors=True)

    def __call__(self, inputs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """The outputs; a status other than PIPELINE_OK raises `RuntimeError: status
        3 (PIPELINE_ERROR_INDEX): message`."""
        sizes = [int(inputs[s["dims"][0]["argument"]].shape[s["dims"][0]["dim"]]) for s in self.manifest["sizes"]]
        c_sizes = (ctypes.c_int64 * max(len(sizes), 1))(*sizes)
        message = ctypes.create_string_buffer(1024)
        ranks = [len(o["dims"]) for o in self.manifest["outputs"]]
        shapes = (ctypes.c_int64 * max(sum(ranks), 1))()
        code = self._shapes(c_sizes, shapes, message, ctypes.c_size_t(len(message)))
        if code == 0:
            outputs, k = [], 0
            for o, rank in zip(self.manifest["outputs"], ranks):
                outputs.append(torch.empty(list(shapes[k:k + rank]), dtype=getattr(torch, o["dtype"])))
                k += rank
            tensors = [inputs[i["name"]].contiguous() for i in self.manifest["inputs"]] + outputs
            pointers = [ctypes.c_void_p(t.data_ptr() or None) for t in tensors]
            code = self._run(c_sizes, *pointers, message, ctypes.c_size_t(len(message)))
            if code == 0:
                return tuple(outputs)
        raise RuntimeError(f"status {code} ({self.codes.get(code, '?')}): {message.value.decode(errors='replace')}")


# --------------------------------------------------------------------------- checks


def load(source: str) -> Callable[[torch.dtype], Callable[..., Any]]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<fuzz program>", "exec"), namespace)
    return namespace["make"]


CUTOFF = 2.5
"""The radius of the graph: about 6 neighbors an atom on the lattice below."""


def system(n: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Positions, edges and triplets (every ordered pair of distinct edges leaving one atom)
    of a small cluster: atoms on random sites of a cubic lattice of spacing 1.6, each moved
    by less than 0.3 along each axis, so no two are closer than 1 (no r near 0 to divide
    by). Edges are every directed pair within CUTOFF, sorted by their first atom; sizes are
    the fuzzer's (at most a few dozen atoms), so all pairs are compared."""
    g = torch.Generator().manual_seed(seed)
    side = max(1, math.ceil(n ** (1 / 3) - 1e-9))
    grid = torch.arange(side, dtype=torch.float64)
    sites = torch.cartesian_prod(grid, grid, grid).reshape(-1, 3)[torch.randperm(side**3, generator=g)[:n]]
    pos = 1.6 * sites + 0.3 * (2 * torch.rand(n, 3, generator=g, dtype=torch.float64) - 1)
    i, j = torch.nonzero((torch.cdist(pos, pos) < CUTOFF) & ~torch.eye(n, dtype=torch.bool)).T
    edges = i.shape[0]
    a, b = torch.nonzero((i[:, None] == i[None, :]) & ~torch.eye(edges, dtype=torch.bool)).T
    return pos.to(dtype), torch.stack([i, j]), torch.stack([a, b])


def degenerate_systems(dtype: torch.dtype) -> dict[str, dict[str, torch.Tensor]]:
    """Empty and degenerate inputs, all valid (every index in range)."""
    g = torch.Generator().manual_seed(7)
    none = torch.zeros(2, 0, dtype=torch.int64)

    def atoms(n: int) -> torch.Tensor:
        return (2 * torch.randn(n, 3, generator=g, dtype=torch.float64)).to(dtype)

    pos, edge_index, _ = system(5, dtype, 5)
    # No coordinate 0 (nor two equal): the pair's two edges cancel exactly, so a sum of its
    # edge vectors is 0 in exact arithmetic, and max(pos, that sum) would tie at a
    # coordinate 0, where the gradient is a matter of rounding (eager's sum is 1e-17).
    pair = torch.tensor([[0.37, -0.52, 0.21], [1.1, 0.3, -0.2]], dtype=dtype)
    return {
        "N=0 E=0 T=0": dict(pos=atoms(0), edge_index=none, triplets=none),
        "N=1 E=0 T=0 (one atom)": dict(pos=atoms(1), edge_index=none, triplets=none),
        "N=4 E=0 T=0": dict(pos=atoms(4), edge_index=none, triplets=none),
        "N=2 E=2 T=0": dict(pos=pair, edge_index=torch.tensor([[0, 1], [1, 0]]), triplets=none),
        f"N=5 E={edge_index.shape[1]} T=0": dict(pos=pos, edge_index=edge_index, triplets=none),
    }


def bad_index_systems(dtype: torch.dtype) -> dict[str, dict[str, torch.Tensor]]:
    """Inputs whose `edge_index` holds an index out of range: a call must raise
    IndexError (status PIPELINE_ERROR_INDEX from the library) naming `edge_index`."""
    pos, edge_index, triplets = system(5, dtype, 5)
    broken = edge_index.clone()
    broken[1, 0] = pos.shape[0]
    none = torch.zeros(2, 0, dtype=torch.int64)
    return {
        "N=0 E=2 (edge_index out of range)": dict(pos=torch.zeros(0, 3, dtype=dtype),
                                                  edge_index=torch.tensor([[0, 0], [0, 0]]), triplets=none),
        f"N=5 E={edge_index.shape[1]} with edge_index[1, 0] = 5": dict(pos=pos, edge_index=broken, triplets=triplets),
    }


def relative(got: torch.Tensor, want: torch.Tensor) -> float:
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    return err / max(scale, 1e-30) if scale > 0 else err


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal shape, dtype and bits (NaN included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    as_int = {torch.float32: torch.int32, torch.float64: torch.int64}.get(a.dtype)
    if as_int is None:
        return torch.equal(a, b)
    return torch.equal(a.contiguous().view(as_int), b.contiguous().view(as_int))


def _detached(outputs: Any) -> tuple[torch.Tensor, ...]:
    return tuple(t.detach() for t in outputs)


def _as_float64(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.double() if v.is_floating_point() else v for k, v in inputs.items()}


@dataclass
class Expected:
    """The float64 reference, eager in the program's dtype, and the float64 reference
    with the edges listed in another order (the program's own rounding noise)."""

    want: tuple[torch.Tensor, ...]
    eager: tuple[torch.Tensor, ...]
    reordered: tuple[torch.Tensor, ...]

    @property
    def finite(self) -> bool:
        return all(torch.isfinite(w).all() for w in self.want)


def expected(make: Callable[..., Any], dtype: torch.dtype, inputs: dict[str, torch.Tensor], seed: int) -> Expected:
    fn, reference = make(dtype), make(torch.float64, rounded_to=dtype)
    want = _detached(reference(**_as_float64(inputs)))
    eager = _detached(fn(**inputs))
    edges = inputs["edge_index"].shape[1]
    order = torch.randperm(edges, generator=torch.Generator().manual_seed(seed))
    moved = torch.empty_like(order)
    moved[order] = torch.arange(edges)  # where each edge went
    other = dict(_as_float64(inputs), edge_index=inputs["edge_index"][:, order], triplets=moved[inputs["triplets"]])
    return Expected(want, eager, _detached(reference(**other)))


def finite_sizes(source: str, dtype: torch.dtype) -> list[int]:
    """The sizes of SIZES at which the program's float64 reference is finite (a few
    milliseconds: the driver rejects a program finite nowhere before compiling it)."""
    make = load(source)
    reference = make(torch.float64, rounded_to=dtype)
    finite = []
    for n in SIZES:
        inputs = dict(zip(ARGS, system(n, dtype, n)))
        if all(torch.isfinite(w).all() for w in _detached(reference(**_as_float64(inputs)))):
            finite.append(n)
    return finite


def mismatch(got: Sequence[torch.Tensor], exp: Expected, dtype: torch.dtype) -> str | None:
    """Why `got` is not the program's result, or None. Where the reference is not
    finite (a mean over nothing), `got` must not be either."""
    if len(got) != len(exp.want):
        return f"{len(got)} outputs; eager has {len(exp.want)}"
    for k, (g, w, e, o) in enumerate(zip(got, exp.want, exp.eager, exp.reordered)):
        if tuple(g.shape) != tuple(w.shape):
            return f"output {k} has shape {tuple(g.shape)}; eager's is {tuple(w.shape)}"
        finite = torch.isfinite(w)
        if torch.isfinite(g[~finite]).any():
            return f"output {k} is finite where the float64 reference is not (inf or nan)"
        ours = relative(g[finite], w[finite])
        theirs, noise = (relative(x[finite], w[finite]) if x.shape == w.shape else 0.0 for x in (e, o))
        theirs, noise = (0.0 if math.isnan(x) else x for x in (theirs, noise))
        if not ours <= max(TOLERANCE[dtype], 10 * theirs, 10 * noise):
            return (f"output {k} relative error {ours:.3g} (eager {theirs:.3g}, float64 with the edges "
                    f"reordered {noise:.3g}, tolerance {TOLERANCE[dtype]:g})")
    return None


def compile_case(fn: Callable[..., Any], signature: Sequence[str], dtype: torch.dtype, plan: Plan) -> Any:
    """`pipeline.compile` with the example arguments and dynamic shapes as the plan says."""
    from torch.export import Dim

    import pipeline

    traced = dict(zip(ARGS, system(TRACE_ATOMS, dtype, 0)))
    spec = {n: {d: Dim(symbol)} for n, (d, symbol) in SYMBOLS.items()}
    order = plan.example or tuple(signature)
    example: Any = {n: traced[n] for n in plan.example} if plan.example else [traced[n] for n in signature]
    shapes: Any = {n: spec[n] for n in plan.shapes} if plan.shapes else [spec[n] for n in order]
    return pipeline.compile(fn, example, shapes, verify=True)


def check(source: str, dtype: torch.dtype, plan: Plan = Plan()) -> Checked:
    """Compile the program in `dtype` as `plan` says, run it (in forked children) at
    SIZES in every call form, at the degenerate sizes and with bad indices, through
    the exported library too if the plan says so; raise CaseFailed with every failure."""
    make = load(source)
    fn = make(dtype)
    signature = tuple(inspect.signature(fn).parameters)
    checked = Checked()
    try:
        native = compile_case(fn, signature, dtype, plan)
    except Exception as err:
        if not plan.plain:
            try:
                compile_case(fn, signature, dtype, Plan())
            except Exception:  # noqa: BLE001 - it fails either way: a compile failure
                pass
            else:
                raise CaseFailed([("binding", f"compiling with {plan.compile_text(signature)} raised "
                                              f"{type(err).__name__}: {_first_line(err)}; with the plain forms it "
                                              "compiles")], checked) from err
        raise CaseFailed([("compile", f"{type(err).__name__}: {err}")], checked) from err

    failures: list[tuple[str, str]] = []
    library = None
    if plan.export:
        try:
            library = Library.export(native)
            checked.exported = True
        except Exception as err:  # noqa: BLE001
            failures.append(("library", f"export_library raised {type(err).__name__}: {err}"))
    try:
        _run_and_compare(make, native, signature, dtype, plan, library, failures, checked)
    finally:
        if library is not None:
            library.close()
    if failures:
        raise CaseFailed(failures, checked)
    return checked


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0]


def _run_and_compare(make: Callable[..., Any], native: Any, signature: tuple[str, ...], dtype: torch.dtype,
                     plan: Plan, library: Library | None, failures: list[tuple[str, str]], checked: Checked) -> None:
    forms = call_forms(signature, plan)
    positional = next(iter(forms))
    regular = {f"N={n}": dict(zip(ARGS, system(n, dtype, n))) for n in SIZES}
    degenerate, bad = degenerate_systems(dtype), bad_index_systems(dtype)
    everything = {**regular, **degenerate, **bad}

    keys: list[tuple[str, str]] = []
    calls: list[Callable[[], Any]] = []
    for label, inputs in everything.items():
        for name, form in forms.items() if label in regular else [(positional, forms[positional])]:
            keys.append((name, label))
            calls.append(jit_call(native, form, inputs))
        if library is not None:
            keys.append(("library", label))
            calls.append(lambda lib=library, inputs=inputs: lib(inputs))
    ran = dict(zip(keys, run_isolated(calls)))

    # the positional call against the float64 reference (failures that a binding defect could explain)
    own, checked.compared = judge(make, dtype, positional, {label: ran[(positional, label)] for label in everything},
                                  regular, degenerate, bad)

    # every other call form: the same bits as the positional call
    for label in regular:
        result = ran[(positional, label)]
        for name in list(forms)[1:]:
            other = ran[(name, label)]
            if result.outputs is not None and other.outputs is not None:
                differs = [k for k, (a, b) in enumerate(zip(result.outputs, other.outputs)) if not same_bits(a, b)]
                if differs:
                    failures.append(("binding", f"{label}: {name} differs from {positional} in output "
                                                f"{differs[0]}"))
            elif (result.outputs is None) != (other.outputs is None) or result.died != other.died:
                failures.append(("binding", f"{label}: {name} {other.text()}; {positional} {result.text()}"))

    # two threads: the same bits (in this process, so only where one thread survived in a child)
    for label, inputs in regular.items():
        one = ran[(positional, label)].outputs
        if one is None:
            continue
        try:
            native.num_threads = 2
            two = forms[positional](native, inputs)
        except Exception as err:  # noqa: BLE001
            failures.append(("threads", f"{label}: on 2 threads {positional} raised {type(err).__name__}: {err}"))
            continue
        finally:
            native.num_threads = 1
        for k, (a, b) in enumerate(zip(one, two)):
            if not same_bits(a, b):
                failures.append(("threads", f"{label}: output {k} differs between 1 and 2 threads"))
                break

    if library is not None:
        _compare_library(make, dtype, ran, positional, regular, degenerate, bad, failures)

    if own and not plan.plain and _plain_forms_are_right(make, signature, dtype, forms[positional], regular,
                                                         degenerate, bad):
        own = [("binding", f"compiled from {plan.compile_text(signature)}: {message} (compiled from the plain "
                           "forms it is right)") for _, message in own]
    failures += own
    if checked.compared == 0:
        failures.append(("nothing-compared", f"the float64 reference is not finite at any of N = "
                                             f"{', '.join(map(str, SIZES))}: nothing was compared"))


def judge(make: Callable[..., Any], dtype: torch.dtype, call: str, ran: dict[str, Ran],
          regular: dict[str, dict[str, torch.Tensor]], degenerate: dict[str, dict[str, torch.Tensor]],
          bad: dict[str, dict[str, torch.Tensor]]) -> tuple[list[tuple[str, str]], int]:
    """The failures of one call form (`call`, its text) run on every input (`ran`, by
    label), and how many of SIZES were compared with the reference."""
    failures: list[tuple[str, str]] = []
    compared = 0
    for n, (label, inputs) in zip(SIZES, regular.items()):  # the usual sizes
        result, exp = ran[label], expected(make, dtype, inputs, n)
        if result.died or result.error:
            failures.append(("crash" if result.died else "raised", f"{label}: {call} {result.text()}"))
        elif exp.finite:
            compared += 1
            assert result.outputs is not None
            why = mismatch(result.outputs, exp, dtype)
            if why:
                failures.append(("numbers", f"{label} {dtype}: {why}"))
    for label, inputs in degenerate.items():  # empty and degenerate sizes
        result = ran[label]
        if result.died:
            failures.append(("crash", f"{label}: {call} {result.text()}"))
            continue
        try:
            exp = expected(make, dtype, inputs, 0)
        except Exception:  # noqa: BLE001 - eager itself refuses this size: nothing to compare with
            continue
        why = f"{call} {result.text()}" if result.outputs is None else mismatch(result.outputs, exp, dtype)
        if why:
            failures.append(("degenerate", f"{label} {dtype}: {why}"))
    for label in bad:  # IndexError naming the argument, never numbers, never a crash
        result = ran[label]
        if result.died:
            failures.append(("crash", f"{label}: {call} {result.text()}"))
        elif not (result.error and result.error.startswith("IndexError") and "'edge_index'" in result.error):
            failures.append(("bad-index", f"{label}: {call} {result.text()}; expected IndexError naming "
                                          "'edge_index'"))
    return failures, compared


def jit_call(native: Any, form: Callable[[Any, dict[str, Any]], Any], inputs: dict[str, Any]) -> Callable[[], Any]:
    """A call of the JIT on one thread, for `run_isolated`."""
    def call() -> Any:
        native.num_threads = 1
        return form(native, inputs)
    return call


def _plain_forms_are_right(make: Callable[..., Any], signature: tuple[str, ...], dtype: torch.dtype,
                           positional: Callable[[Any, dict[str, Any]], Any],
                           regular: dict[str, dict[str, torch.Tensor]], degenerate: dict[str, dict[str, torch.Tensor]],
                           bad: dict[str, dict[str, torch.Tensor]]) -> bool:
    """Whether the program compiled from the plain forms passes where the plan's forms
    failed (then the failure is one of binding): one more compile, for a failing case."""
    try:
        plain = compile_case(make(dtype), signature, dtype, Plan())
        everything = {**regular, **degenerate, **bad}
        ran = dict(zip(everything, run_isolated([jit_call(plain, positional, i) for i in everything.values()])))
        return not judge(make, dtype, "", ran, regular, degenerate, bad)[0]
    except Exception:  # noqa: BLE001 - it fails with the plain forms too
        return False


_STATUS_OF = {"IndexError": "PIPELINE_ERROR_INDEX", "CallError": "PIPELINE_ERROR_SIZE",
              "RuntimeError": "PIPELINE_ERROR_ASSERT"}
"""The library's status for what the JIT raises."""


def _compare_library(make: Callable[..., Any], dtype: torch.dtype, ran: dict[tuple[str, str], Ran], positional: str,
                     regular: dict[str, dict[str, torch.Tensor]], degenerate: dict[str, dict[str, torch.Tensor]],
                     bad: dict[str, dict[str, torch.Tensor]], failures: list[tuple[str, str]]) -> None:
    """The library against the JIT on one thread: the same bits, the same errors; where
    the JIT itself failed, against the reference."""
    for label, inputs in {**regular, **degenerate}.items():
        lib, jit = ran[("library", label)], ran[(positional, label)]
        if lib.died or lib.error:
            if not (jit.error and lib.error and _STATUS_OF.get(jit.error.split(":")[0], "-") in lib.error):
                failures.append(("library", f"{label}: the library {lib.text()}; the JIT {jit.text()}"))
            continue
        assert lib.outputs is not None
        if jit.outputs is not None:
            differs = [k for k, (a, b) in enumerate(zip(lib.outputs, jit.outputs)) if not same_bits(a, b)]
            if differs or len(lib.outputs) != len(jit.outputs):
                k = differs[0] if differs else 0
                failures.append(("library", f"{label}: output {k} of the library differs from the JIT's (1 thread): "
                                            f"relative {relative(lib.outputs[k], jit.outputs[k].double()):.3g}"))
            continue
        try:
            exp = expected(make, dtype, inputs, 0)
        except Exception:  # noqa: BLE001
            continue
        why = mismatch(lib.outputs, exp, dtype) if exp.finite or label not in regular else None
        if why:
            failures.append(("library", f"{label}: the library's {why} (the JIT {jit.text()})"))
    for label in bad:
        lib = ran[("library", label)]
        if not (lib.error and "PIPELINE_ERROR_INDEX" in lib.error and "'edge_index'" in lib.error):
            failures.append(("library", f"{label}: the library {lib.text()}; expected status PIPELINE_ERROR_INDEX "
                                        "naming 'edge_index'"))


def reproducer(source: str, dtype: torch.dtype, error: str, plan: Plan = Plan()) -> str:
    """A standalone file that rebuilds the failing program and checks it as `plan` says."""
    note = "\n".join(f"# {line}" for line in error.strip().splitlines()[-24:])
    return (f'"""A case found by `python -m pipeline fuzz`: run it from the repository root.\n\n'
            f'    python {{this file}}\n"""\n# The failure:\n{note}\n\n{source}\n\n'
            f'if __name__ == "__main__":\n    import sys\n    sys.path.insert(0, ".")\n'
            f'    from pipeline.tools.fuzz import Plan, check\n'
            f'    check(open(__file__).read(), torch.{str(dtype).split(".")[1]},\n          {plan!r})\n'
            f'    print("no longer fails")\n')


# --------------------------------------------------------------------------- driver


@dataclass
class Found:
    """A kind of failure: the cases it was seen in, the first one's time, its shrunk
    reproducer."""

    kind: str
    cases: list[int] = field(default_factory=list)
    seconds: float = 0.0
    """When it was first seen, from the start of the run."""
    message: str = ""
    """The first line of the shrunk case's failure of this kind."""
    reproducer: Path | None = None
    shrink_steps: int = 0


@dataclass
class Outcome:
    cases: int = 0
    """Programs run (not counting shrinking)."""
    exported: int = 0
    """Cases whose exported library was called next to the JIT."""
    rejected: int = 0
    """Programs rejected before compiling: their reference is not finite at any size."""
    seconds: float = 0.0
    shrink_steps: int = 0
    found: dict[str, Found] = field(default_factory=dict)
    """Failures by kind, in the order they were first seen."""

    @property
    def failure(self) -> str | None:
        """The first failure found (its shrunk message), or None."""
        first = next(iter(self.found.values()), None)
        return f"[{first.kind}] {first.message}" if first else None

    @property
    def reproducer(self) -> Path | None:
        return next((f.reproducer for f in self.found.values() if f.reproducer), None)

    def summary(self) -> str:
        lines = [f"{self.cases} cases in {self.seconds:.0f} s ({self.exported} exported and called through ctypes, "
                 f"{self.rejected} programs rejected: their reference overflows at every size)"]
        if not self.found:
            return lines[0] + "; no failure"
        lines.append("failures by kind:")
        for f in self.found.values():
            lines.append(f"  {f.kind:<16} {len(f.cases):>4} case(s), first case {f.cases[0] if f.cases else '-'} "
                         f"at {f.seconds:.0f} s: {f.message}")
            if f.reproducer:
                lines.append(f"  {'':<16} reproducer {f.reproducer} (shrunk in {f.shrink_steps} steps)")
        return "\n".join(lines)


def fuzz(seconds: float, seed: int, out: Path, log: Callable[[str], None] = print,
         shrink_seconds: float = SHRINK_SECONDS, check_case: Callable[..., Checked] = check,
         max_cases: int | None = None) -> Outcome:
    """Run random programs for about `seconds` (or until `max_cases` have run), in
    rounds of a few hypothesis examples (seeds seed, seed + 1, ...). The first case of a new kind of failure is shrunk
    (for at most `shrink_seconds`) and its reproducer goes into `out`; later cases of
    known kinds are counted. `check_case(source, dtype, plan)` checks one case."""
    from hypothesis import HealthCheck, Phase, given, reject, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
    from hypothesis.errors import Unsatisfiable

    outcome = Outcome()
    start = time.monotonic()
    export = can_export()
    if not export:
        log("no C compiler ($CC, cc or gcc): no case is exported (the library is not checked)")
    memo: dict[tuple[str, torch.dtype, Plan], CaseFailed | Checked] = {}
    state: dict[str, Any] = {"target": None}

    def run(source: str, dtype: torch.dtype, plan: Plan) -> CaseFailed | Checked:
        key = (source, dtype, plan)
        if key not in memo:
            try:
                memo[key] = check_case(source, dtype, plan)
            except CaseFailed as err:
                err.trace = traceback.format_exc()  # type: ignore[attr-defined]
                memo[key] = err
            except Exception as err:  # noqa: BLE001 - a defect of the fuzzer: reported, not fatal
                failed = CaseFailed([("internal", f"{type(err).__name__}: {err}")])
                failed.trace = traceback.format_exc()  # type: ignore[attr-defined]
                memo[key] = failed
        return memo[key]

    def case(data: Any, dtype: torch.dtype) -> None:
        program, energy = draw_program(data.draw)
        plan = draw_plan(data.draw)
        plan = plan if export else dataclasses.replace(plan, export=False)
        source = program.source(energy)
        target = state["target"]
        if not finite_sizes(source, dtype):
            if target is None:
                outcome.rejected += 1
            reject()
        if target is None:
            outcome.cases += 1
        else:
            outcome.shrink_steps += 1
            outcome.found[target].shrink_steps += 1
        if target is not None and (source, dtype, plan) not in memo \
                and time.monotonic() - state["shrink_start"] > shrink_seconds:
            return  # out of time to shrink: keep the best case so far
        result = run(source, dtype, plan)
        if target is None and plan.export and (isinstance(result, Checked) and result.exported
                                               or isinstance(result, CaseFailed) and result.checked.exported):
            outcome.exported += 1
        if not isinstance(result, CaseFailed):
            return
        if target is None:
            now = time.monotonic() - start
            for kind in result.kinds:
                found = outcome.found.setdefault(kind, Found(kind, seconds=now))
                found.cases.append(outcome.cases)
            log(f"case {outcome.cases} ({now:.0f} s): " + "; ".join(
                f"[{k}] {m}" for k, m in result.failures[:3]) + (" ..." if len(result.failures) > 3 else ""))
            new = [k for k in result.kinds if outcome.found[k].reproducer is None]
            if not new:
                return
            state.update(target=new[0], shrink_start=time.monotonic())
            log(f"new kind of failure [{new[0]}]: shrinking")
        elif target not in result.kinds:
            return
        state["last"] = (source, dtype, plan, result)
        raise result

    strategies = (st.data(), st.sampled_from([torch.float32, torch.float64]))
    round_ = 0
    while time.monotonic() - start < seconds and (max_cases is None or outcome.cases < max_cases):
        run_round = settings(max_examples=ROUND, deadline=None, database=None,
                             suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                             report_multiple_bugs=False)(given(*strategies)(case))
        memo.clear()
        try:
            hypothesis_seed(seed + round_)(run_round)()
        except Unsatisfiable:
            pass
        except Exception:
            if state["target"] is None:
                raise
            kind = state["target"]
            source, dtype, plan, failed = state["last"]
            found = outcome.found[kind]
            found.message = next(m for k, m in failed.failures if k == kind).splitlines()[0]
            out.mkdir(parents=True, exist_ok=True)
            found.reproducer = out / f"fuzz_seed{seed + round_}_{kind}.py"
            trace = getattr(failed, "trace", "") if kind in ("compile", "internal") else ""
            found.reproducer.write_text(reproducer(source, dtype, trace + str(failed), plan))
            log(f"[{kind}] shrunk in {found.shrink_steps} steps: {found.message}\n  reproducer: {found.reproducer}")
        finally:
            state["target"] = None
        round_ += 1
        outcome.seconds = time.monotonic() - start
        log(f"{outcome.cases} cases, {outcome.seconds:.0f} s, "
            + (", ".join(f"[{k}] {len(f.cases)}" for k, f in outcome.found.items()) or "no failure"))
    for found in outcome.found.values():  # seen, but only with other new kinds: unshrunk
        if not found.message:
            found.message = "(seen with another kind; not shrunk: see the log)"
    outcome.seconds = time.monotonic() - start
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="time to spend on new cases")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis' seed (a run is repeatable)")
    parser.add_argument("--out", default="fuzz-failures", help="where the reproducers of failing cases go")
    parser.add_argument("--shrink-minutes", type=float, default=SHRINK_SECONDS / 60,
                        help="time to spend shrinking each new kind of failure")
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases (and rounds of %d)"
                        % ROUND)
    args = parser.parse_args(argv)
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("error: the fuzzer needs hypothesis: pip install -e '.[test]'", file=sys.stderr)
        return 2
    outcome = fuzz(args.minutes * 60, args.seed, Path(args.out), shrink_seconds=args.shrink_minutes * 60,
                   max_cases=args.cases)
    print(outcome.summary())
    return 1 if outcome.found else 0


if __name__ == "__main__":
    sys.exit(main())
