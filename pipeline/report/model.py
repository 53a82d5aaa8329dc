"""What the compile report shows, read off a traced compile (`compile(..., trace=True)`).

The numbering is provenance's: aten op k is the k-th aten op of the aten stage's
function (`te.origin` lists them), nest k is the k-th top-level te op with an origin at
the fused stage (`loops.nests` at the loop level says which nests a timed loop computes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.parser import Parser

from dialects import tensorexpr as te
from pipeline.registry import context
from transforms.plan_memory import assign_slots

if TYPE_CHECKING:
    from pipeline.compiler import CompiledFunction


@dataclass
class AtenNode:
    id: int
    name: str  # aten.mul.Tensor
    type: str  # its result type(s)
    inputs: list[int]  # aten ops whose results it reads
    arguments: list[str]  # function arguments it reads
    source: str | None  # file:line: code
    nests: list[int] = field(default_factory=list)


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
    aten: list[AtenNode]
    arguments: list[str]
    nests: list[Nest]
    buffers: list[Buffer]
    peak_bytes: int | None
    sizes: dict[str, int]
    timings: dict[str, float]


def _function(text: str) -> func.FuncOp:
    module = Parser(context(), text).parse_module()
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and not op.sym_name.data.endswith("_arena_sizes"))


def _count_ops(stage: str, text: str) -> int:
    """Operations in a stage's text, a cheap measure of its size: FX calls of torch ops,
    LLVM instructions, MLIR operations."""
    if stage == "fx":
        return text.count("torch.ops.")
    if stage in ("ll", "opt.ll"):
        return sum(1 for line in text.splitlines() if re.match(r"\s+(%\S+ = )?[a-z]", line))
    return sum(1 for line in text.splitlines() if re.match(r"\s*(%\S+ = )?\"?[a-z_]+\.[a-z_.]+", line))


def _aten_nodes(compiled: CompiledFunction) -> tuple[list[AtenNode], list[str]]:
    fn = _function(compiled.ir("aten"))
    producer: dict[SSAValue, int] = {}
    nodes: list[AtenNode] = []
    ops = [op for op in fn.body.block.ops if op.dialect_name() == "aten"]
    sources = compiled.trace.aten_sources if compiled.trace else []
    for k, op in enumerate(ops):
        inputs = sorted({producer[v] for v in op.operands if v in producer})
        arguments = [v.name_hint or "arg" for v in op.operands
                     if isinstance(v, BlockArgument) and not str(v.type).startswith("index")]
        types = ", ".join(str(r.type) for r in op.results)
        nodes.append(AtenNode(k, op.name, types, inputs, arguments, sources[k] if k < len(sources) else None))
        for r in op.results:
            producer[r] = k
    names = [a.name_hint or f"arg{k}" for k, a in enumerate(fn.body.block.args)
             if not str(a.type).startswith("index")]
    return nodes, names


def _schedule(op: Operation) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in ("te.order", "te.parallel", "te.partition", "te.vector", "te.tile"):
        attr = op.attributes.get(key)
        if isinstance(attr, DenseArrayBase):
            out[key.removeprefix("te.")] = ", ".join(str(v) for v in attr.get_values())
        elif isinstance(attr, IntegerAttr):
            out[key.removeprefix("te.")] = str(attr.value.data)
    return out


def _nests(compiled: CompiledFunction, aten: list[AtenNode]) -> list[Nest]:
    fn = _function(compiled.ir("fused"))
    nests = []
    for op in fn.body.block.ops:
        ids = te.origin(op)
        if ids is None:
            continue
        shape = ", ".join(str(r.type) for r in op.results)
        nests.append(Nest(len(nests), op.name, shape, _schedule(op), list(ids)))
        for i in ids:
            aten[i].nests.append(nests[-1].id)
    if compiled.profile_nests and compiled.trace and compiled.trace.profile_members:
        per_loop = {int(p.nest.split(":")[0].split()[1]): p for p in compiled.profile()}
        for loop, members in enumerate(compiled.trace.profile_members):
            for m in members:
                if m < len(nests) and loop in per_loop:
                    nests[m].seconds, nests[m].gflops, nests[m].loop = (
                        per_loop[loop].seconds, per_loop[loop].gflops, loop)
    return nests


def _evaluate(v: SSAValue, sizes: dict[str, int], interpreter: Interpreter) -> int | None:
    """An index value of the loop level at these sizes (xDSL's arith interpreter)."""
    if isinstance(v, BlockArgument):
        return sizes.get(v.name_hint or "")
    op = v.owner
    assert isinstance(op, Operation)
    args = [_evaluate(o, sizes, interpreter) for o in op.operands]
    if any(a is None for a in args):
        return None
    try:
        return int(interpreter.run_op(op, tuple(args))[0])
    except Exception:  # an op the interpreter does not know: the chart says "?"
        return None


def _memory(compiled: CompiledFunction, sizes: dict[str, int]) -> list[Buffer]:
    """The memory plan: plan-memory's slots, recomputed on the IR it planned."""
    if not compiled.trace:
        return []
    before = [b for _, p, b, _, _ in _pass_pairs(compiled) if p == "plan-memory"]
    if not before:
        return []
    fn = _function(before[0])
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(ArithFunctions())
    buffers = []
    for elem, slots in assign_slots(fn.body.block).items():
        for k, slot in enumerate(slots):
            for alloc, (start, end) in zip(slot.buffers, slot.spans):
                assert isinstance(alloc, memref.AllocOp)
                n = _evaluate(alloc.dynamic_sizes[0], sizes, interpreter)
                width = elem.bitwidth // 8 if hasattr(elem, "bitwidth") else 8  # type: ignore[attr-defined]
                buffers.append(Buffer(f"{elem} slot {k}", start, end, None if n is None else n * width))
    return buffers


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
    if compiled.trace is None:
        raise ValueError(f"{compiled.name} was compiled without trace=True: the report needs "
                         "pipeline.compile(..., trace=True)")
    aten, arguments = _aten_nodes(compiled)
    nests = _nests(compiled, aten)
    stage_names = ["fx", "aten", "tensorexpr", "fused", "loops", "llvm", "ll", "opt.ll"]
    keys = {"fx": "capture_s", "aten": "import_s", "ll": "native_s"}
    stages = []
    for s in stage_names:
        text = compiled.ir(s)
        seconds = compiled.timings.get(keys.get(s, f"{s}_s"))
        stages.append((s, text, seconds, _count_ops(s, text)))
    pairs = _pass_pairs(compiled)
    try:
        peak = compiled.workspace_bytes([sizes[s] for s, _, _ in compiled.symbols])
    except KeyError:
        peak = None
    return Report(compiled.name, stages, pairs, aten, arguments, nests, _memory(compiled, sizes), peak, sizes,
                  dict(compiled.timings))
