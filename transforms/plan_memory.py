"""plan-memory: every temporary buffer gets a place in one arena per dtype.

Liveness over the function's top-level ops decides which temporaries may share
memory. Sizes are symbolic (N, E), so places are planned in units: a buffer of
c * E elements is c units of the E class (a constant size: c units of one
element), and buffers of one class are packed greedily by size, largest first,
each at the lowest offset clear of every placed buffer alive with it (TFLite's
greedy-by-size). A buffer of 96 * E can so live inside a dead 864 * E one, and the
plan holds for every N and E; planning by equal sizes only kept NequIP (4 layers)
at 1.5 times the peak of what is alive at once.

Buffers whose places overlap (at different times) form a slot: one noalias argument
of `@<name>_body`, each buffer a view at its offset. Slots never overlap, so LLVM
knows a loop reading one slot and writing another touches disjoint memory; within a
slot it assumes nothing, and every outlined loop nest receives its buffers as
separate (noalias) arguments, which holds while the nest runs: buffers alive
together never overlap. (Pointers into one arena everywhere would need overlap
checks LLVM often gives up on: SchNet's i-k-j matmuls ran scalar.)

The arenas are arguments after the status buffer, so the caller allocates them once
and reuses them across calls of the same sizes (no malloc, no page faults per call);
a companion function `@<name>_arena_sizes(symbols..., out)` tells it how many
elements each arena needs for given sizes. `@<name>` cuts the arenas into slots
(offsets are running sums, folded as canonicalize would) and calls the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te


@dataclass
class Slot:
    """A block of an arena, `units` units of `unit` elements (None: one element),
    holding buffers at offsets (in units) where none overlaps another it is alive with."""

    unit: SSAValue | None
    units: int = 0
    buffers: list[memref.AllocOp] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    """Each buffer's lifetime: (its alloc, its last use), as positions among the top-level ops."""


@dataclass
class _Placed:
    alloc: memref.AllocOp
    units: int
    span: tuple[int, int]
    offset: int = 0


def units_of(size: SSAValue) -> tuple[SSAValue | None, int]:
    """size as (unit, c): c * unit for a constant c, through nested products
    ((E * 32) * 27 is 864 units of E); (None, c) for a constant size."""
    if (n := te.static_extent(size)) is not None:
        return None, n
    if (product := te.times_constant(size)) is not None:
        unit, units = units_of(product[0])
        return unit, units * product[1]
    return size, 1


def assign_slots(block: Block) -> dict[Attribute, list[Slot]]:
    """The slots of the temporaries of a function body, by element type (also what the
    compile report draws as the memory plan)."""
    ops = list(block.ops)
    position = {o: k for k, o in enumerate(ops)}
    classes: dict[tuple[Attribute, SSAValue | None], list[_Placed]] = {}
    for alloc in ops:
        if not (isinstance(alloc, memref.AllocOp) and len(alloc.dynamic_sizes) == 1
                and _depends_only_on_arguments(alloc.dynamic_sizes[0], block)):
            continue
        uses = [u.operation for u in alloc.memref.uses if not isinstance(u.operation, memref.DeallocOp)]
        last = max((position[_top_level(u, block)] for u in uses), default=position[alloc])
        unit, units = units_of(alloc.dynamic_sizes[0])
        elem = alloc.memref.type.get_element_type()  # type: ignore[attr-defined]
        classes.setdefault((elem, unit), []).append(_Placed(alloc, max(units, 1), (position[alloc], last)))
    slots: dict[Attribute, list[Slot]] = {}
    for (elem, unit), buffers in classes.items():
        slots.setdefault(elem, []).extend(_pack(unit, buffers))
    for elem_slots in slots.values():
        for slot in elem_slots:
            order = sorted(range(len(slot.buffers)), key=lambda k: slot.spans[k])
            slot.buffers, slot.offsets, slot.spans = ([xs[k] for k in order]
                                                      for xs in (slot.buffers, slot.offsets, slot.spans))
    for elem_slots in slots.values():
        elem_slots.sort(key=lambda s: min(sp[0] for sp in s.spans))
    return slots


def _pack(unit: SSAValue | None, buffers: list[_Placed]) -> list[Slot]:
    """Greedy by size: largest first, each at the lowest offset clear of the placed
    buffers alive with it; then the buffers whose places overlap form one slot."""
    placed: list[_Placed] = []
    for b in sorted(buffers, key=lambda b: (-b.units, b.span)):
        taken = sorted((p.offset, p.offset + p.units) for p in placed
                       if not (p.span[1] < b.span[0] or b.span[1] < p.span[0]))
        for lo, hi in taken:
            if b.offset + b.units <= lo:
                break
            b.offset = max(b.offset, hi)
        placed.append(b)
    slots: list[Slot] = []
    end = -1
    for b in sorted(placed, key=lambda b: b.offset):
        if b.offset >= end:
            slots.append(Slot(unit, 0))
            base = b.offset
        slot = slots[-1]
        end = max(end, b.offset + b.units)
        slot.units = end - base
        slot.buffers.append(b.alloc)
        slot.offsets.append(b.offset - base)
        slot.spans.append(b.span)
    return slots


def _slot_sizes(block: Block, slots: list[Slot], mapping: dict[SSAValue, SSAValue]) -> list[SSAValue]:
    """The slots' element counts at the end of `block` (units cloned through `mapping`);
    slots of equal size share one value."""
    made: dict[tuple[SSAValue | None, int], SSAValue] = {}
    out = []
    for slot in slots:
        key = slot.unit, slot.units
        if key not in made:
            if slot.unit is None:
                made[key] = _index_constant(block, slot.units)
            else:
                (unit,) = _clone_slice([slot.unit], block, mapping)
                made[key] = unit if slot.units == 1 else _add(
                    block, arith.MuliOp(unit, _index_constant(block, slot.units))).result
        out.append(made[key])
    return out


def _view(slot: SSAValue, unit: SSAValue | None, offset: int, alloc: memref.AllocOp,
          view_type: MemRefType) -> SSAValue:
    """The buffer `alloc` as a view of its slot at `offset` units, made where it was allocated."""
    if offset == 0:
        return slot
    at = InsertPoint.before(alloc)
    if unit is not None and offset == 1:
        start = unit
    else:
        units = arith.ConstantOp(IntegerAttr(offset, IndexType()))
        Rewriter.insert_op(units, at)
        start = units.result
        if unit is not None:
            scaled = arith.MuliOp(unit, start)
            Rewriter.insert_op(scaled, at)
            start = scaled.result
    view = memref.SubviewOp.get(slot, [start], [alloc.dynamic_sizes[0]], [1], view_type)
    Rewriter.insert_op(view, at)
    return view.result


def _add(block: Block, op: Operation) -> Operation:
    block.add_op(op)
    return op


def _index_constant(block: Block, n: int) -> SSAValue:
    """The block's index constant n (made at its end if it has none)."""
    value = IntegerAttr(n, IndexType())
    for op in block.ops:
        if isinstance(op, arith.ConstantOp) and op.value == value:
            return op.result
    return _add(block, arith.ConstantOp(value)).result


def _plus(block: Block, a: SSAValue, b: SSAValue) -> SSAValue:
    """a + b at the end of block, folded as canonicalize would (0 + b, constants)."""
    ca, cb = (v.owner.value.value.data if isinstance(v.owner, arith.ConstantOp) else None for v in (a, b))
    if ca is not None and cb is not None:
        return _index_constant(block, ca + cb)
    if ca == 0 or cb == 0:
        return b if ca == 0 else a
    return _add(block, arith.AddiOp(b, a) if ca is not None else arith.AddiOp(a, b)).result  # constant last


def _erase_if_unused(v: SSAValue) -> None:
    """Erase the arithmetic computing v (an erased buffer's size) that nothing else uses."""
    op = v.owner
    if isinstance(op, Operation) and op.dialect_name() == "arith" and not any(r.uses for r in op.results):
        operands = list(op.operands)
        Rewriter.erase_op(op)
        for o in operands:
            _erase_if_unused(o)


def _top_level(op: Operation, block: Block) -> Operation:
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _depends_only_on_arguments(v: SSAValue, block: Block) -> bool:
    """Whether v is pure index arithmetic over the function's index arguments."""
    if isinstance(v, BlockArgument):
        return v.owner is block and isinstance(v.type, IndexType)
    op = v.owner
    return (isinstance(op, Operation) and op.parent_block() is block and op.dialect_name() == "arith"
            and all(_depends_only_on_arguments(o, block) for o in op.operands))


def _clone_slice(values: list[SSAValue], into: Block, mapping: dict[SSAValue, SSAValue]) -> list[SSAValue]:
    """Rebuild the arithmetic computing `values` at the end of `into`; `mapping` (the
    function arguments' values in `into`) grows by what is built, so a size shared by
    two calls is built once."""

    def build(v: SSAValue) -> SSAValue:
        if v not in mapping:
            op = v.owner
            assert isinstance(op, Operation)
            for o in op.operands:
                build(o)
            clone = op.clone(value_mapper=mapping)
            into.add_op(clone)
            mapping.update(zip(op.results, clone.results))
        return mapping[v]

    return [build(v) for v in values]


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    name = "plan-memory"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in list(op.ops):
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                sizes_fn = self.plan(fn)
                if sizes_fn is not None:
                    op.body.block.add_op(sizes_fn)

    def plan(self, fn: func.FuncOp) -> func.FuncOp | None:
        block = fn.body.block
        slots = assign_slots(block)
        if not slots:
            return None

        # the body: one noalias argument per slot, so LLVM knows the slots never overlap
        outer_types = [a.type for a in block.args]
        outer_attrs = list(fn.arg_attrs.data) if fn.arg_attrs else [DictionaryAttr({})] * len(outer_types)
        symbol_args = [a for a, d in zip(block.args, outer_attrs)
                       if isinstance(a.type, IndexType) and "loops.num_threads" not in d.data]
        view_type = {e: MemRefType(e, [DYNAMIC_INDEX], StridedLayoutAttr([1], None)) for e in slots}
        dead: list[SSAValue] = []  # the sizes of the erased allocs
        for elem, elem_slots in slots.items():
            for k, slot in enumerate(elem_slots):
                arg = block.insert_arg(view_type[elem], len(block.args))
                arg.name_hint = f"slot{k}_{elem}"
                for alloc, offset in zip(slot.buffers, slot.offsets):
                    for use in list(alloc.memref.uses):
                        if isinstance(use.operation, memref.DeallocOp):
                            Rewriter.erase_op(use.operation)
                    alloc.memref.replace_all_uses_with(_view(arg, slot.unit, offset, alloc, view_type[elem]))
                    dead.append(alloc.dynamic_sizes[0])
                    Rewriter.erase_op(alloc)
        name = fn.sym_name.data
        fn.sym_name = StringAttr(f"{name}_body")
        fn.sym_visibility = StringAttr("private")
        fn.arg_attrs = ArrayAttr(outer_attrs + [DictionaryAttr({})] * (len(block.args) - len(outer_types)))
        fn.function_type = func.FunctionType.from_lists([a.type for a in block.args], [])

        # the entry point: the arenas (one per element type, after the status buffer) cut into slots
        entry = Block(arg_types=outer_types + [MemRefType(e, [DYNAMIC_INDEX]) for e in slots])
        for new, old in zip(entry.args, block.args):
            new.name_hint = old.name_hint
        arenas = entry.args[len(outer_types):]
        mapping = {a: entry.args[k] for k, a in enumerate(block.args[:len(outer_types)]) if a in symbol_args}
        views: list[SSAValue] = []
        for arena, elem in zip(arenas, slots):
            arena.name_hint = f"arena_{elem}"
            offset = _index_constant(entry, 0)
            sizes = _slot_sizes(entry, slots[elem], mapping)
            for k, size in enumerate(sizes):
                if k:  # the running sum of the slot sizes before this one
                    offset = _plus(entry, offset, sizes[k - 1])
                views.append(_add(entry, memref.SubviewOp.get(arena, [offset], [size], [1], view_type[elem])).result)
        entry.add_op(func.CallOp(fn.sym_name.data, list(entry.args[:len(outer_types)]) + views, []))
        entry.add_op(func.ReturnOp())
        outer = func.FuncOp(
            name, ([a.type for a in entry.args], []), Region(entry),
            arg_attrs=ArrayAttr(outer_attrs + [DictionaryAttr({"loops.arena": UnitAttr()}) for _ in slots]),
        )
        for k, v in fn.attributes.items():
            if k.startswith("te.") or k.startswith("llvm."):
                outer.attributes[k] = v
        Rewriter.insert_op(outer, InsertPoint.before(fn))
        sizes_fn = self.sizes_function(name, symbol_args, list(slots.values()))
        for size in dead:  # once cloned into the entry and the sizes function
            _erase_if_unused(size)
        return sizes_fn

    def sizes_function(self, name: str, symbols: list[BlockArgument], arenas: list[list[Slot]]) -> func.FuncOp:
        """@<name>_arena_sizes(symbols..., out: memref<?xi64>): elements per arena."""
        block = Block(arg_types=[IndexType()] * len(symbols) + [MemRefType(i64, [DYNAMIC_INDEX])])
        for new, old in zip(block.args, symbols):
            new.name_hint = old.name_hint
        out = block.args[-1]
        out.name_hint = "sizes"
        mapping: dict[SSAValue, SSAValue] = dict(zip(symbols, block.args))
        values = [_slot_sizes(block, slots, mapping) for slots in arenas]
        for k, arena_values in enumerate(values):
            total = arena_values[0]
            for v in arena_values[1:]:
                total = _plus(block, total, v)
            at = _index_constant(block, k)
            count = _add(block, arith.IndexCastOp(total, i64)).result
            block.add_op(memref.StoreOp.get(count, out, [at]))
        block.add_op(func.ReturnOp())
        sizes_fn = func.FuncOp(
            f"{name}_arena_sizes", ([a.type for a in block.args], []), Region(block),
        )
        sizes_fn.attributes["loops.arena_sizes_of"] = StringAttr(name)
        return sizes_fn
