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
- or the second reads what the first writes, element by element (a producer and
  its consumer: `s = sigmoid(h)` stored, then `h * s` read back): each such buffer
  has one scalar store in the first loop and only scalar loads in the second, at
  the same index of corresponding loop variables (nests of the same bounds, no
  condition around the store), the index a row-major position of those variables
  (`(i * C + j) + k` with j + k < C), so iteration i of the first loop writes
  exactly what iteration i of the second reads and no other iteration writes it;
  the second writes nothing the first touches. The element is then read right
  after it is stored, from a register or the cache, not from memory.

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
from xdsl.dialects import arith, func, memref, scf, vector
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


class _Memory:
    """What each op does to memory (`effects`), computed once per op: a loop is
    checked against each of the next few, and the ops between two loops again for
    every pair they sit between. `status` is the status buffer, left out."""

    def __init__(self, status: set[SSAValue]) -> None:
        self.status = status
        self._known: dict[Operation, _Effects] = {}

    def effects(self, op: Operation) -> _Effects:
        """What op and the ops nested in it do to memory. Loads and stores (scalar or
        vector) name their buffer; a store into the status buffer is left out (it only
        records an index error); allocations touch nothing yet; any other op with a
        memory effect, or with none declared (a call), may touch everything. An op's
        answer stays valid while its block is being fused: only the loops after it
        move or merge, and it is fused inside only once the block is done with it."""
        if op in self._known:
            return self._known[op]
        fx = _Effects()
        for o in op.walk():
            if isinstance(o, _LOADS):
                fx.reads.add(o.base if isinstance(o, vector.LoadOp) else o.memref)
            elif isinstance(o, _STORES):
                buffer = o.base if isinstance(o, vector.StoreOp) else o.memref
                if buffer not in self.status:
                    fx.writes.add(buffer)
            elif isinstance(o, memref.DeallocOp):
                fx.writes.add(o.memref)
            elif not o.has_trait(RecursiveMemoryEffect):
                effects = get_effects(o)
                if effects is None or any(e.kind != MemoryEffectKind.ALLOC for e in effects):
                    fx.unknown = True
        self._known[op] = fx
        return fx


def _uses(op: Operation) -> Iterator[SSAValue]:
    """The values op and the ops nested in it use."""
    for o in op.walk():
        yield from o.operands


def _fusible(a: Loop, b: Loop, memory: _Memory) -> bool:
    if type(a) is not type(b) or _bounds(a) != _bounds(b):
        return False
    if isinstance(a, scf.ParallelOp) and (a.initVals or b.initVals or len(a.lowerBound) != 1):
        return False
    fa, fb = memory.effects(a), memory.effects(b)
    flow = fa.writes & fb.reads
    if not flow:
        return bool(fa.reads & fb.reads) and not fa.conflicts(fb)
    if fa.unknown or fb.unknown or fb.writes & (fa.reads | fa.writes) or flow & fa.reads:
        return False
    return all(_pointwise(a, b, x) for x in flow)


def _pointwise(a: Loop, b: Loop, x: SSAValue) -> bool:
    """Whether iteration i of b reads buffer x only where iteration i of a stores
    into it, and no other iteration of a does (see the module docstring)."""
    if any(isinstance(o, vector.LoadOp | vector.StoreOp) and o.base is x for o in (*a.walk(), *b.walk())):
        return False
    stores = [o for o in a.walk() if isinstance(o, memref.StoreOp) and o.memref is x]
    loads = [o for o in b.walk() if isinstance(o, memref.LoadOp) and o.memref is x]
    if len(stores) != 1 or not loads:
        return False
    store = stores[0]
    outer = _loops_between(store, a)
    if outer is None or not _row_major(store.indices[0], [a, *outer]):
        return False
    for load in loads:
        other = _loops_between(load, b)
        if other is None or len(other) != len(outer) or any(_bounds(p) != _bounds(q) for p, q in zip(outer, other)):
            return False
        ivs = {p.body.block.args[0]: q.body.block.args[0] for p, q in zip([a, *outer], [b, *other])}
        if not _same(store.indices[0], load.indices[0], ivs):
            return False
    return True


def _loops_between(op: Operation, top: Loop) -> list[scf.ForOp] | None:
    """The scf.for loops around op inside `top`, outermost first; None when another
    op (a condition, a parallel loop) is in between."""
    loops: list[scf.ForOp] = []
    parent = op.parent_op()
    while parent is not top:
        if not isinstance(parent, scf.ForOp) or parent.iter_args:
            return None
        loops.insert(0, parent)
        parent = parent.parent_op()
    return loops


def _row_major(index: SSAValue, loops: list[Loop]) -> bool:
    """index = ((i0 * C1 + i1 [+ k1]) * C2 + i2 [+ k2]) ... over the variables of
    `loops` (outermost first; i0 may also be i0 [+ k0], or P * C0 + i0 [+ k0] with P
    defined outside them), each scaled loop from 0 by 1 to a constant n with
    k + n <= C: distinct iterations of the outermost loop, distinct elements."""
    last = loops[-1]
    iv = last.body.block.args[0]
    if len(loops) == 1 and (index is iv or _offset_of(index, iv) is not None):
        return True
    owner = index.owner
    bounds = [te.static_extent(v) for v in _bounds(last)]
    if not isinstance(owner, arith.AddiOp) or len(bounds) != 3 or bounds[0] != 0 or bounds[2] != 1 or bounds[1] is None:
        return False
    n = bounds[1]
    for scaled, inner in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        offset = 0 if inner is iv else _offset_of(inner, iv)
        product = te.times_constant(scaled)
        if offset is None or product is None or offset + n > product[1]:
            continue
        prefix = product[0]
        if _row_major(prefix, loops[:-1]) if len(loops) > 1 else not _defined_in(prefix, last):
            return True
    return False


def _defined_in(v: SSAValue, loop: Loop) -> bool:
    """Whether v is computed inside `loop` (or is one of its variables)."""
    op = v.owner.parent_op() if isinstance(v.owner, Block) else v.owner
    return op is not None and (op is loop or loop.is_ancestor(op))


def _offset_of(v: SSAValue, iv: SSAValue) -> int | None:
    """k when v = iv + k for a constant k >= 0."""
    shifted = te.plus_constant(v)
    return shifted[1] if shifted is not None and shifted[0] is iv and shifted[1] >= 0 else None


def _same(u: SSAValue, v: SSAValue, ivs: dict[SSAValue, SSAValue]) -> bool:
    """u (in a's nest) and v (in b's) compute the same index: corresponding loop
    variables, the same outside values, the same index arithmetic on them."""
    if ivs.get(u, u) is v:
        return True
    x, y = u.owner, v.owner
    if not isinstance(x, arith.AddiOp | arith.MuliOp | arith.ConstantOp) or type(x) is not type(y):
        return False
    if isinstance(x, arith.ConstantOp):
        return x.value == y.value  # type: ignore[union-attr]
    return all(_same(p, q, ivs) for p, q in zip(x.operands, y.operands))


def _make_adjacent(a: Loop, b: Loop, memory: _Memory) -> bool:
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
        fx = memory.effects(op)
        if any(v in tainted for v in _uses(op)) or fx.conflicts(after_fx):
            after.append((op, fx))
            tainted.update(op.results)
            after_fx.add(fx)
        else:
            before.append((op, fx))
        op = op.next_op
    if any(v in tainted for v in _uses(b)):
        return False  # b reads what a computes
    fa, fb = memory.effects(a), memory.effects(b)
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


def fuse_block(block: Block, memory: _Memory) -> None:
    """Fuse sibling loops in `block`, then inside every loop it holds."""
    op = block.first_op
    while op is not None:
        if isinstance(op, (scf.ForOp, scf.ParallelOp)):
            for b in _next_loops(op, WINDOW):
                if _fusible(op, b, memory) and _make_adjacent(op, b, memory):
                    op = _merge(op, b)
                    break
            else:
                fuse_block(op.body.block, memory)
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
                fuse_block(fn.body.block, _Memory(status))
