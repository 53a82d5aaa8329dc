"""What the compile report shows, from a traced compile (`compile(..., trace=True)`):
its signature record, what the trace kept of each stage (`pipeline.compile_trace`:
the aten graph, the fused nests, the memory plan), the stages' texts to show and the
profile. Nothing here parses a stage's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.compile_trace import AtenOp

if TYPE_CHECKING:
    from pipeline.tune import TuneReport
    from pipeline.compile_trace import CompileTrace
    from pipeline.compiler import CompiledFunction


@dataclass
class Nest:
    id: int
    kind: str  # te.compute, te.reduce, te.scatter, ...
    shape: str  # its result type
    schedule: dict[str, str]
    origin: list[int]
    seconds: float | None = None  # per call, with profile=True (shared when a loop computes several nests)
    gflops: float | None = None
    loop: int | None = None  # the timed loop it runs in


@dataclass
class Buffer:
    slot: str  # f32 slot 3
    start: int  # top-level op positions
    end: int
    bytes: int | None


@dataclass
class Report:
    name: str
    stages: list[tuple[str, str, float | None, int]]  # (stage, IR, seconds, op count)
    passes: list[tuple[str, str, str, str, float]]  # (stage, pass, IR before, IR after, seconds)
    aten: list[AtenOp]
    arguments: list[str]
    nests: list[Nest]
    buffers: list[Buffer]
    peak_bytes: int | None
    sizes: dict[str, int]
    timings: dict[str, float]
    tuning: TuneReport | None = None
    tuned: dict[str, list[int]] | None = None  # tuning key -> the nests it schedules


def _count_ops(stage: str, text: str) -> int:
    """Operations in a stage's text, a cheap measure of its size: FX calls of torch ops,
    LLVM instructions, MLIR operations."""
    if stage == "fx":
        return text.count("torch.ops.")
    if stage in ("ll", "opt.ll"):
        return sum(1 for line in text.splitlines() if re.match(r"\s+(%\S+ = )?[a-z]", line))
    return sum(1 for line in text.splitlines() if re.match(r"\s*(%\S+ = )?\"?[a-z_]+\.[a-z_.]+", line))


def _nests(compiled: CompiledFunction, trace: CompileTrace) -> list[Nest]:
    nests = [Nest(k, n.kind, n.shape, n.schedule, n.origin) for k, n in enumerate(trace.nests)]
    if compiled.profile_nests and trace.profile_members:
        per_loop = {int(p.nest.split(":")[0].split()[1]): p for p in compiled.profile()}
        for loop, members in enumerate(trace.profile_members):
            for m in members:
                if m < len(nests) and loop in per_loop:
                    nests[m].seconds, nests[m].gflops, nests[m].loop = (
                        per_loop[loop].seconds, per_loop[loop].gflops, loop)
    return nests


def _memory(trace: CompileTrace, sizes: dict[str, int]) -> list[Buffer]:
    """The memory plan: plan-memory's slots, each buffer sized at `sizes`."""
    return [Buffer(b.slot, b.start, b.end, b.bytes(sizes)) for b in trace.buffers]


def _pass_pairs(compiled: CompiledFunction) -> list[tuple[str, str, str, str, float]]:
    """(stage, pass, IR before, IR after, seconds) for every pass."""
    assert compiled.trace is not None
    out = []
    previous = compiled.ir("fx")
    for stage, name, after, seconds in compiled.trace.passes:
        out.append((stage, name, previous, after, seconds))
        previous = after
    return out


def build(compiled: CompiledFunction, sizes: dict[str, int]) -> Report:
    trace = compiled.trace
    if trace is None:
        raise ValueError(f"{compiled.name} was compiled without trace=True: the report needs "
                         "pipeline.compile(..., trace=True)")
    aten = trace.aten
    nests = _nests(compiled, trace)
    stage_names = ["fx", "aten", "tensorexpr", "fused", "loops", "llvm", "ll", "opt.ll"]
    keys = {"fx": "capture_s", "aten": "import_s", "ll": "native_s"}
    stages = []
    for s in stage_names:
        text = compiled.ir(s)
        seconds = compiled.timings.get(keys.get(s, f"{s}_s"))
        stages.append((s, text, seconds, _count_ops(s, text)))
    pairs = _pass_pairs(compiled)
    names = [s.name for s in compiled.signature.sizes]
    peak = compiled.workspace_bytes([sizes[n] for n in names]) if all(n in sizes for n in names) else None
    tuned: dict[str, list[int]] = {}
    for k, key in enumerate(compiled.tuned_nests):
        if key is not None:
            tuned.setdefault(key, []).append(k)
    return Report(compiled.name, stages, pairs, aten, compiled.signature.names, nests, _memory(trace, sizes), peak,
                  sizes, dict(compiled.timings), compiled.tuning, tuned)
