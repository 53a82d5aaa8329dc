"""What a traced compile (`compile(..., trace=True)`) keeps for the compile report.

Read off the modules while the compile holds them, never parsed back from a stage's
text: the aten graph (each op, what it reads, its source line), the fused stage's
nests with their schedules and provenance, and the memory plan (each temporary's
arena slot, lifetime and size as an expression of the size symbols).

The numbering is provenance's: aten op k is the k-th aten op of the aten stage's
function (`te.origin` lists them), nest k the k-th top-level te op with an origin at
the fused stage (`loops.nests` at the loop level says which nests a timed loop computes).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from dialects import tensorexpr as te
from transforms.sparse_contractions import sparse_points
from pipeline.signature import symbol
from transforms.plan_memory import assign_slots


@dataclass
class AtenOp:
    id: int
    name: str  # aten.mul.Tensor
    type: str  # its result type(s)
    inputs: list[int]  # aten ops whose results it reads
    arguments: list[str]  # function arguments it reads
    source: str | None  # file:line: code
    nests: list[int] = field(default_factory=list)  # the fused nests that compute it


@dataclass(frozen=True)
class FusedNest:
    kind: str  # te.compute, te.reduce, te.scatter, ...
    shape: str  # its result type
    schedule: dict[str, str]
    origin: list[int]


@dataclass(frozen=True)
class PlannedBuffer:
    slot: str  # f32 slot 3
    start: int  # top-level op positions
    end: int
    elements: sympy.Expr | None  # None: not an expression of the size symbols here
    itemsize: int

    def bytes(self, sizes: Mapping[str, int]) -> int | None:
        if self.elements is None:
            return None
        value = self.elements.subs({symbol(n): v for n, v in sizes.items()})
        return int(value) * self.itemsize if value.is_Integer else None


@dataclass
class CompileTrace:
    passes: list[tuple[str, str, str, float]] = field(default_factory=list)
    """(stage, pass, the module after it, the pass's seconds), in order."""
    aten: list[AtenOp] = field(default_factory=list)
    nests: list[FusedNest] = field(default_factory=list)
    buffers: list[PlannedBuffer] = field(default_factory=list)
    """The temporaries plan-memory places in arenas, as it finds them."""
    profile_members: list[list[int]] = field(default_factory=list)
    """With profile=True: the fused-stage nests (k-th te op with an origin) each timed loop computes."""


def _function(module: ModuleOp) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp))


def aten_ops(module: ModuleOp, lines: Mapping[Any, str]) -> list[AtenOp]:
    """The aten function's ops, with the user's source line of each."""
    producer: dict[SSAValue, int] = {}
    out: list[AtenOp] = []
    for op in _function(module).body.block.ops:
        if op.dialect_name() != "aten":
            continue
        k = len(out)
        inputs = sorted({producer[v] for v in op.operands if v in producer})
        arguments = [v.name_hint or "arg" for v in op.operands
                     if isinstance(v, BlockArgument) and not str(v.type).startswith("index")]
        out.append(AtenOp(k, op.name, ", ".join(str(r.type) for r in op.results), inputs, arguments, lines.get(op)))
        for r in op.results:
            producer[r] = k
    return out


def _schedule(op: Operation) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in ("te.order", "te.parallel", "te.partition", "te.vector", "te.tile"):
        attr = op.attributes.get(key)
        if isinstance(attr, DenseArrayBase):
            out[key.removeprefix("te.")] = ", ".join(str(v) for v in attr.get_values())
        elif isinstance(attr, IntegerAttr):
            out[key.removeprefix("te.")] = str(attr.value.data)
    if isinstance(op, te.ReduceOp) and (sparse := sparse_points(op)) is not None:
        dims, points = sparse
        out["sparse"] = f"{len(points)} terms over dims {', '.join(map(str, dims))}"
    return out


def fused_nests(module: ModuleOp, aten: list[AtenOp]) -> list[FusedNest]:
    """The fused stage's top-level te ops that have provenance (and, in `aten`, the
    nests of each aten op)."""
    out = []
    for op in _function(module).body.block.ops:
        ids = te.origin(op)
        if ids is not None:
            for i in ids:
                aten[i].nests.append(len(out))
            out.append(FusedNest(op.name, ", ".join(str(r.type) for r in op.results), _schedule(op), list(ids)))
    return out


def planned_buffers(module: ModuleOp) -> list[PlannedBuffer]:
    """plan-memory's slots of the loop-level function (before it rewrites the allocs)."""
    block = _function(module).body.block
    out = []
    for elem, slots in assign_slots(block).items():
        width = elem.bitwidth // 8 if hasattr(elem, "bitwidth") else 8  # type: ignore[attr-defined]
        for k, slot in enumerate(slots):
            for alloc, (start, end) in zip(slot.buffers, slot.spans):
                assert isinstance(alloc, memref.AllocOp)
                out.append(PlannedBuffer(f"{elem} slot {k}", start, end, _index_expression(alloc.dynamic_sizes[0]),
                                         width))
    return out


_INDEX_OPS: dict[type[Operation], Callable[[sympy.Expr, sympy.Expr], sympy.Expr]] = {
    arith.AddiOp: operator.add,
    arith.SubiOp: operator.sub,
    arith.MuliOp: operator.mul,
    arith.DivUIOp: lambda a, b: sympy.floor(a / b),
    arith.FloorDivSIOp: lambda a, b: sympy.floor(a / b),
    arith.CeilDivUIOp: lambda a, b: sympy.ceiling(a / b),
    arith.CeilDivSIOp: lambda a, b: sympy.ceiling(a / b),
    arith.RemUIOp: sympy.Mod,
    arith.MaxUIOp: sympy.Max,
    arith.MaxSIOp: sympy.Max,
    arith.MinUIOp: sympy.Min,
    arith.MinSIOp: sympy.Min,
}
"""The index arithmetic of buffer sizes, on sizes >= 0."""


def _index_expression(v: SSAValue) -> sympy.Expr | None:
    """A loop-level index value as an expression of the size symbols (function
    arguments named after them); None for anything else."""
    if isinstance(v, BlockArgument):
        return symbol(v.name_hint) if v.name_hint else None
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return sympy.Integer(op.value.value.data)
    if type(op) in _INDEX_OPS:
        a, b = (_index_expression(x) for x in op.operands)  # type: ignore[union-attr]
        return None if a is None or b is None else _INDEX_OPS[type(op)](a, b)
    return None


__all__ = ["AtenOp", "CompileTrace", "FusedNest", "PlannedBuffer", "aten_ops", "fused_nests", "planned_buffers"]
