"""Schedules chosen by measurement: register tiles timed on this CPU, kept in a cache.

The `schedule` pass picks each matmul-like reduction's register tile by a ratio of
loads to multiply-adds (`transforms/schedule.py: register_tile`). That ratio ignores
the caches, the output's size, the loads the fused producers add, so the fixed choice
stops paying at some widths and densities. Here each such nest gets its candidates
(`tile_candidates`: lanes, rows x vectors, or no register tile), and the whole function
is compiled once per round with every nest on its next candidate, run on representative
inputs with each loop nest timed (`profile-loops`, attributed to te ops by provenance),
and each nest keeps its fastest candidate.

Choices are cached on disk (`$PIPELINE_TUNE_CACHE`, default
`~/.cache/pipeline/tune.json`), keyed by the machine (CPU name, SIMD width, features)
and by the nest's structure (its te op's text with names normalized: the same layer in
another model, or the same model compiled again, finds it). A compile with every nest
in the cache measures nothing and is deterministic given the cache.

Budgets (`pipeline.compile(..., tune=...)`): "off" (the heuristic, no cache), "quick"
(the default: cached choices where there are, the heuristic elsewhere; no
measurement), "full" (every uncached nest measured), or seconds (as "full", until the
rounds have taken that long).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, UnitAttr, i64

from dialects import tensorexpr as te
from transforms.schedule import TUNED, host_vector_bits, loop_order, tile_candidates

BUDGETS = ("off", "quick", "full")
CACHE_VERSION = 2  # 2: rates (gflops, dtype, threads) beside the times


@dataclass(frozen=True)
class Choice:
    """A register tile: `lanes` per vector, `rows` x `vectors` accumulators (0: none)."""

    lanes: int
    rows: int
    vectors: int

    def __str__(self) -> str:
        if not self.lanes:
            return "no register tile"
        return f"{self.rows} x {self.vectors} tile of {self.lanes}-lane vectors"


@dataclass
class TunedNest:
    """One nest's choice: its candidates' times (seconds per call, this run or cached),
    and the rate of the chosen one (GFLOP/s of `dtype` arithmetic on `threads`)."""

    key: str
    nest: str
    choice: Choice
    tried: list[tuple[Choice, float]] = field(default_factory=list)
    cached: bool = False
    gflops: float | None = None
    dtype: str = ""
    threads: int = 1

    def peak(self, fma_gflops: Mapping[str, float]) -> float | None:
        """The share of the machine's FMA peak (one thread's GFLOP/s by dtype) reached."""
        one = fma_gflops.get(self.dtype)
        return self.gflops / (one * self.threads) if self.gflops is not None and one else None


@dataclass
class TuneReport:
    """What a compile's tuning did: the budget, the rounds it measured, the time spent."""

    budget: str
    rounds: int = 0
    seconds: float = 0.0
    nests: list[TunedNest] = field(default_factory=list)

    def table(self, fma_gflops: Mapping[str, float] | None = None) -> str:
        """The choices and the candidates' times; with the machine's FMA peak (one
        thread's GFLOP/s by dtype: pipeline/tools/peak.py), the share of it reached."""
        lines = [f"tuning ({self.budget}): {len(self.nests)} nests, {self.rounds} measured rounds, "
                 f"{self.seconds:.1f} s"]
        for n in self.nests:
            source = "cached" if n.cached else "measured" if n.tried else "heuristic"
            share = n.peak(fma_gflops) if fma_gflops else None
            rate = f", {n.gflops:.1f} GFLOP/s" if n.gflops is not None else ""
            peak = rate + (f" ({share:.0%} of peak)" if share is not None else "")
            lines.append(f"  {n.nest}: {n.choice} ({source}{peak})")
            for c, s in sorted(n.tried, key=lambda t: t[1]):
                lines.append(f"      {s * 1e6:10.1f} us  {c}")
        return "\n".join(lines)


def check_budget(tune: str | float) -> str | float:
    if isinstance(tune, (int, float)) and not isinstance(tune, bool) and tune > 0:
        return float(tune)
    if tune in BUDGETS:
        return tune
    raise ValueError(f"tune={tune!r}: expected one of {', '.join(BUDGETS)} or a positive number of seconds")


def machine_id() -> str:
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    features = ",".join(sorted(k for k, on in llvm.get_host_cpu_features().items() if on))
    digest = hashlib.sha256(features.encode()).hexdigest()[:12]
    return f"{llvm.get_host_cpu_name()}-{host_vector_bits()}-{digest}"


def cache_path() -> Path:
    given = os.environ.get("PIPELINE_TUNE_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "pipeline" / "tune.json"


class TuneCache:
    """The choices measured on this machine, one JSON file shared by every compile."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_path()
        self.machine = machine_id()
        self.data: dict[str, Any] = {"version": CACHE_VERSION, "machines": {}}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text())
                if data.get("version") == CACHE_VERSION:
                    self.data = data
            except (OSError, ValueError):
                pass  # an unreadable cache is an empty one; the next save replaces it
        self.entries: dict[str, Any] = self.data["machines"].setdefault(self.machine, {})

    def get(self, key: str) -> TunedNest | None:
        e = self.entries.get(key)
        if e is None:
            return None
        return TunedNest(key, e["nest"], Choice(*e["choice"]),
                         [(Choice(*c), s) for c, s in e["tried"]], cached=True, gflops=e.get("gflops"),
                         dtype=e.get("dtype", ""), threads=e.get("threads", 1))

    def put(self, n: TunedNest) -> None:
        self.entries[n.key] = {"nest": n.nest, "choice": [n.choice.lanes, n.choice.rows, n.choice.vectors],
                               "tried": [[[c.lanes, c.rows, c.vectors], s] for c, s in n.tried],
                               "gflops": n.gflops, "dtype": n.dtype, "threads": n.threads}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True))
        tmp.replace(self.path)


@dataclass
class Tunable:
    """The ops of one structure (key) in a module, with their candidates."""

    key: str
    nest: str
    candidates: list[Choice]


def _key(op: te.ReduceOp, bits: int) -> str:
    """The op's text with value names replaced by their order of appearance, provenance
    dropped: equal for the same nest in any function."""
    clone = op.clone()
    clone.attributes.pop(te.ORIGIN, None)
    names: dict[str, str] = {}
    text = re.sub(r"%[\w$.-]+", lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), str(clone))
    return hashlib.sha256(f"{bits}\n{text}".encode()).hexdigest()[:20]


def _describe(op: te.ReduceOp) -> str:
    def extent(v: Any) -> str:
        s = te.static_extent(v)
        return str(s) if s is not None else (v.name_hint or "?")

    out = " x ".join(extent(e) for e in op.extents)
    red = " x ".join(extent(e) for e in op.reduce_extents)
    return f"{out} over {red} ({op.element_type()})"


def _ops(module: ModuleOp) -> list[te.ReduceOp]:
    return [o for f in module.ops if isinstance(f, func.FuncOp) and not f.is_declaration
            for o in f.body.block.ops if isinstance(o, te.ReduceOp)]


def tunables(module: ModuleOp) -> dict[str, Tunable]:
    """The nests with more than one candidate, by key (before the schedule pass)."""
    bits = host_vector_bits()
    out: dict[str, Tunable] = {}
    for o in _ops(module):
        if te.SPARSE in o.attributes:
            continue
        cands = tile_candidates(o, loop_order(o), bits)
        if len(cands) > 1:
            key = _key(o, bits)
            out.setdefault(key, Tunable(key, _describe(o), [Choice(*c) for c in cands]))
    return out


def apply_choices(module: ModuleOp, choices: Mapping[str, Choice]) -> list[str | None]:
    """Mark the ops whose key has a choice `te.tuned`, with that choice's te.order,
    te.vector and te.tile; returns the key of every nest (top-level te op with
    provenance, in the order lower-tensorexpr-to-loops numbers them), None if untuned."""
    bits = host_vector_bits()
    keys: list[str | None] = []
    for f in module.ops:
        if not isinstance(f, func.FuncOp) or f.is_declaration:
            continue
        for o in f.body.block.ops:
            key = None
            if isinstance(o, te.ReduceOp) and choices:
                key = _key(o, bits)
                choice = choices.get(key)
                if choice is not None:
                    order = loop_order(o)
                    if order != sorted(order):
                        o.attributes["te.order"] = DenseArrayBase.from_list(i64, order)
                    if choice.lanes:
                        o.attributes["te.vector"] = IntegerAttr(choice.lanes, 64)
                        o.attributes["te.tile"] = DenseArrayBase.from_list(i64, [choice.rows, choice.vectors])
                    o.attributes[TUNED] = UnitAttr()
            if te.ORIGIN in o.attributes:
                keys.append(key)
    return keys


@dataclass
class Measured:
    """One round: a compile with some choices, run with every loop nest timed."""

    keys: list[str | None]
    """The tuning key of each fused-stage nest."""
    seconds: list[float]
    """Each timed loop's seconds per call."""
    flops: list[float]
    """... and floating-point operations per call."""
    members: list[list[int]]
    """The fused-stage nests each timed loop computes."""
    dtypes: list[str]
    """The float type of each timed loop's arithmetic ("f32", "f64", "")."""
    threads: int


Measure = Callable[[Mapping[str, Choice]], Measured]


def choose(found: dict[str, Tunable], budget: str | float, measure: Measure, cache: TuneCache) -> TuneReport:
    """Each tunable nest's choice under `budget`: from the cache, measured, or the
    heuristic (its first candidate)."""
    report = TuneReport(str(budget) if isinstance(budget, str) else f"{budget:g} s")
    start = time.perf_counter()
    chosen: dict[str, TunedNest] = {}
    todo: dict[str, Tunable] = {}
    for key, t in found.items():
        hit = cache.get(key)
        if hit is not None and hit.choice in t.candidates:  # (a choice this compiler no longer offers is stale)
            chosen[key] = hit
        elif budget == "quick":
            chosen[key] = TunedNest(key, t.nest, t.candidates[0])
        else:
            todo[key] = t
    times: dict[str, dict[Choice, float]] = {k: {} for k in todo}
    rates: dict[str, dict[Choice, tuple[float, str, int]]] = {k: {} for k in todo}
    rounds = max((len(t.candidates) for t in todo.values()), default=0)
    for r in range(rounds):
        if isinstance(budget, float) and r and time.perf_counter() - start > budget:
            break
        trial = {k: t.candidates[min(r, len(t.candidates) - 1)] for k, t in todo.items()}
        m = measure({**{k: n.choice for k, n in chosen.items()}, **trial})
        spent: dict[str, list[Any]] = {}
        for loop, nests in enumerate(m.members):
            for key in {m.keys[k] for k in nests if k < len(m.keys) and m.keys[k] in todo}:
                s = spent.setdefault(key, [0.0, 0.0, ""])
                s[0] += m.seconds[loop]
                s[1] += m.flops[loop]
                s[2] = max(s[2], m.dtypes[loop])  # "f64" > "f32" > ""
        for key, (s, flops, dtype) in spent.items():
            c = trial[key]
            if s < times[key].get(c, float("inf")):
                times[key][c], rates[key][c] = s, (flops / s / 1e9 if s > 0 else 0.0, dtype, m.threads)
        report.rounds += 1
    for key, t in todo.items():
        tried = sorted(times[key].items(), key=lambda cs: cs[1])
        best = tried[0][0] if tried else t.candidates[0]
        gflops, dtype, threads = rates[key].get(best, (None, "", 1))
        chosen[key] = TunedNest(key, t.nest, best, tried, gflops=gflops, dtype=dtype, threads=threads)
        if len(tried) == len(t.candidates):  # only what was measured in full is kept
            cache.put(chosen[key])
    if todo:
        cache.save()
    report.nests = [chosen[k] for k in found]
    report.seconds = time.perf_counter() - start
    return report
