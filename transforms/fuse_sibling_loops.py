"""fuse-sibling-loops: merge adjacent loop nests over the same range that read the same data.

The backward of a potential reads the same per-edge data in several reductions
(dE/dr through the Gaussians and through their centers, say): each a loop nest over
the edges that gathers the same rows and, after fusion at the te level, recomputes
the same exp. A loop and one of the next few loops with the same bounds and step
(scf.for with scf.for, scf.parallel with scf.parallel) become one when

- they read at least one common buffer (the reason to share a loop), and
- neither writes a buffer the other reads or writes (the status buffer aside: it
  only records an index error), so every iteration order gives the same result.
  Accesses are scalar and vector loads and stores (a register-blocked `x @ W`
  stores its rows with vector.store); any other op with a memory effect, or none
  declared, conflicts with everything;

the ops between them move out of the way (those that depend on the first loop,
through a value used anywhere in their regions or through memory, below the
second, the others above the first) when no memory access is reordered across a
conflicting one. Their bodies are then fused the same way, loop by
loop, down to the innermost (reductions carry both accumulators in one scf.for),
and `cse` removes the work the two bodies shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import MemoryEffectKind, RecursiveMemoryEffect, get_effects

from dialects import tensorexpr as te

Loop = scf.ForOp | scf.ParallelOp
WINDOW = 4  # how many following loops to look at for a partner


def _bounds(loop: Loop) -> tuple[SSAValue, ...]:
    if isinstance(loop, scf.ForOp):
        return (loop.lb, loop.ub, loop.step)
    return (*loop.lowerBound, *loop.upperBound, *loop.step)


@dataclass
class _Effects:
    """The buffers an op reads and writes, anywhere inside it; `unknown` when it
    has an effect on memory that is not a load or store of a known buffer."""

    reads: set[SSAValue] = field(default_factory=set)
    writes: set[SSAValue] = field(default_factory=set)
    unknown: bool = False

    def conflicts(self, other: _Effects) -> bool:
        """Whether the two may not be reordered: one writes what the other touches."""
        if (self.unknown and (other.unknown or other.reads or other.writes)) or (
                other.unknown and (self.reads or self.writes)):
            return True
        return bool(self.writes & (other.reads | other.writes) or other.writes & self.reads)

    def add(self, other: _Effects) -> None:
        self.reads |= other.reads
        self.writes |= other.writes
        self.unknown |= other.unknown


_LOADS = (memref.LoadOp, vector.LoadOp)
_STORES = (memref.StoreOp, vector.StoreOp)


def _effects(op: Operation, status: set[SSAValue]) -> _Effects:
    """What op and the ops nested in it do to memory. Loads and stores (scalar or
    vector) name their buffer; a store into the status buffer is left out (it only
    records an index error); allocations touch nothing yet; any other op with a
    memory effect, or with none declared (a call), may touch everything."""
    fx = _Effects()
    for o in op.walk():
        if isinstance(o, _LOADS):
            fx.reads.add(o.base if isinstance(o, vector.LoadOp) else o.memref)
        elif isinstance(o, _STORES):
            buffer = o.base if isinstance(o, vector.StoreOp) else o.memref
            if buffer not in status:
                fx.writes.add(buffer)
        elif isinstance(o, memref.DeallocOp):
            fx.writes.add(o.memref)
        elif not o.has_trait(RecursiveMemoryEffect):
            effects = get_effects(o)
            if effects is None or any(e.kind != MemoryEffectKind.ALLOC for e in effects):
                fx.unknown = True
    return fx


def _uses(op: Operation) -> Iterator[SSAValue]:
    """The values op and the ops nested in it use."""
    for o in op.walk():
        yield from o.operands


def _fusible(a: Loop, b: Loop, status: set[SSAValue]) -> bool:
    if type(a) is not type(b) or _bounds(a) != _bounds(b):
        return False
    if isinstance(a, scf.ParallelOp) and (a.initVals or b.initVals or len(a.lowerBound) != 1):
        return False
    fa, fb = _effects(a, status), _effects(b, status)
    return bool(fa.reads & fb.reads) and not fa.conflicts(fb)


def _make_adjacent(a: Loop, b: Loop, status: set[SSAValue]) -> bool:
    """Move the ops between a and b out of the way, if that reorders no conflicting
    memory accesses: those that depend on a (use a value it or an op kept after it
    computes, anywhere in their regions, or touch memory such an op touches: a sum
    stored, then loaded) go after b, the others (allocations, index arithmetic,
    loads) before a. False when b itself depends on a."""
    before: list[tuple[Operation, _Effects]] = []
    after: list[tuple[Operation, _Effects]] = []
    tainted: set[SSAValue] = set(a.results)
    after_fx = _Effects()
    op = a.next_op
    while op is not b:
        assert op is not None
        fx = _effects(op, status)
        if any(v in tainted for v in _uses(op)) or fx.conflicts(after_fx):
            after.append((op, fx))
            tainted.update(op.results)
            after_fx.add(fx)
        else:
            before.append((op, fx))
        op = op.next_op
    if any(v in tainted for v in _uses(b)):
        return False  # b reads what a computes
    fa, fb = _effects(a, status), _effects(b, status)
    if any(fx.conflicts(fa) for _, fx in before) or any(fx.conflicts(fb) for _, fx in after):
        return False
    for o, _ in before:
        o.detach()
        Rewriter.insert_op(o, InsertPoint.before(a))
    for o, _ in reversed(after):
        o.detach()
        Rewriter.insert_op(o, InsertPoint.after(b))
    return True


def _merge(a: Loop, b: Loop) -> Loop:
    """One loop running a's body then b's, with both loops' iteration arguments."""
    body_a, body_b = a.body.block, b.body.block
    iv_a, iv_b = body_a.args[0], body_b.args[0]
    n_a = len(body_a.args) - 1
    block = Block(arg_types=[a.type for a in body_a.args] + [a.type for a in body_b.args[1:]])
    for new, old in zip(block.args, list(body_a.args) + list(body_b.args[1:])):
        new.name_hint = old.name_hint
    mapping = {iv_a: block.args[0], iv_b: block.args[0]}
    mapping.update(zip(body_a.args[1:], block.args[1:1 + n_a]))
    mapping.update(zip(body_b.args[1:], block.args[1 + n_a:]))
    yielded: list[SSAValue] = []
    for body in (body_a, body_b):
        for op in body.ops:
            if op is body.last_op:
                yielded += [mapping.get(v, v) for v in op.operands]
                break
            clone = op.clone(value_mapper=mapping)
            block.add_op(clone)
            mapping.update(zip(op.results, clone.results))
    if isinstance(a, scf.ForOp):
        assert isinstance(b, scf.ForOp)
        block.add_op(scf.YieldOp(*yielded))
        merged: Loop = scf.ForOp(a.lb, a.ub, a.step, [*a.iter_args, *b.iter_args], Region(block))
    else:
        assert isinstance(b, scf.ParallelOp)
        block.add_op(scf.ReduceOp())
        merged = scf.ParallelOp(list(a.lowerBound), list(a.upperBound), list(a.step), Region(block))
        chunks = [x.value.data for x in (a.attributes.get("loops.min_chunk"), b.attributes.get("loops.min_chunk"))
                  if isinstance(x, IntegerAttr)]
        if chunks:
            merged.attributes["loops.min_chunk"] = IntegerAttr(min(chunks), 64)
    for x in (a, b):  # provenance: the te ops both computed
        if (nests := x.attributes.get(te.NESTS)) is not None:
            te.merge_array(merged, te.NESTS, nests.get_values())  # type: ignore[attr-defined]
    Rewriter.insert_op(merged, InsertPoint.before(a))
    for old, new in zip(list(a.results) + list(b.results), merged.results):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(a)
    Rewriter.erase_op(b)
    return merged


def fuse_block(block: Block, status: set[SSAValue]) -> None:
    """Fuse sibling loops in `block`, then inside every loop it holds."""
    op = block.first_op
    while op is not None:
        if isinstance(op, (scf.ForOp, scf.ParallelOp)):
            for b in _next_loops(op, WINDOW):
                if _fusible(op, b, status) and _make_adjacent(op, b, status):
                    op = _merge(op, b)
                    break
            else:
                fuse_block(op.body.block, status)
                op = op.next_op
            continue  # the merged loop may take another sibling too
        op = op.next_op


def _next_loops(op: Operation, n: int) -> list[Loop]:
    """The next n loops after op in its block."""
    loops: list[Loop] = []
    nxt = op.next_op
    while nxt is not None and len(loops) < n:
        if isinstance(nxt, (scf.ForOp, scf.ParallelOp)):
            loops.append(nxt)
        nxt = nxt.next_op
    return loops


class FuseSiblingLoopsPass(ModulePass):
    name = "fuse-sibling-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                attrs = fn.arg_attrs.data if fn.arg_attrs else ()
                status = {a for a, d in zip(fn.body.block.args, attrs) if "loops.status" in d.data}
                fuse_block(fn.body.block, status)
