"""plan-memory: every temporary buffer becomes a slot of one arena per dtype.

Liveness over the function's top-level ops decides which temporaries may share a
slot: a buffer takes the slot of one that is dead by then, when both have the same
element type and the same size (the same SSA size value, so the reuse holds for
every N and E). The arenas are arguments after the status buffer, so the caller
allocates them once and reuses them across calls of the same sizes (no malloc,
no page faults per call); a companion function `@<name>_arena_sizes(symbols...,
out)` tells it how many elements each arena needs for given sizes.

The function becomes `@<name>_body`, private, with one argument per slot, and
`@<name>` cuts the arenas into slots and calls it (offsets are running sums, folded
as canonicalize would; the sizes of the erased allocs go with them). Slots never overlap, and as
separate (noalias) arguments LLVM knows it: a loop reading one slot and writing
another vectorizes, where pointers into one arena would need overlap checks it
often gives up on (SchNet's i-k-j matmuls ran scalar).
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


@dataclass
class Slot:
    """Buffers of one element type and size whose lifetimes do not overlap."""

    size: SSAValue
    busy_until: int
    buffers: list[memref.AllocOp] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    """Each buffer's lifetime: (its alloc, its last use), as positions among the top-level ops."""


def assign_slots(block: Block) -> dict[Attribute, list[Slot]]:
    """The slots of the temporaries of a function body, by element type (also what the
    compile report draws as the memory plan)."""
    ops = list(block.ops)
    position = {o: k for k, o in enumerate(ops)}
    allocs = [o for o in ops if isinstance(o, memref.AllocOp) and len(o.dynamic_sizes) == 1
              and _depends_only_on_arguments(o.dynamic_sizes[0], block)]
    slots: dict[Attribute, list[Slot]] = {}
    for alloc in allocs:
        uses = [u.operation for u in alloc.memref.uses if not isinstance(u.operation, memref.DeallocOp)]
        last = max((position[_top_level(u, block)] for u in uses), default=position[alloc])
        elem = alloc.memref.type.get_element_type()  # type: ignore[attr-defined]
        size = alloc.dynamic_sizes[0]
        free = next((s for s in slots.get(elem, []) if s.busy_until < position[alloc] and s.size is size), None)
        if free is None:
            free = Slot(size, last)
            slots.setdefault(elem, []).append(free)
        free.busy_until = max(free.busy_until, last)
        free.buffers.append(alloc)
        free.spans.append((position[alloc], last))
    return slots


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
                for alloc in slot.buffers:
                    for use in list(alloc.memref.uses):
                        if isinstance(use.operation, memref.DeallocOp):
                            Rewriter.erase_op(use.operation)
                    alloc.memref.replace_all_uses_with(arg)
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
        totals: list[list[SSAValue]] = []
        sizes = [_clone_slice([s.size for s in elem_slots], entry, mapping) for elem_slots in slots.values()]
        for arena, elem, elem_sizes in zip(arenas, slots, sizes):
            arena.name_hint = f"arena_{elem}"
            offset = _index_constant(entry, 0)
            for k, size in enumerate(elem_sizes):
                if k:  # the running sum of the slot sizes before this one
                    offset = _plus(entry, offset, elem_sizes[k - 1])
                views.append(_add(entry, memref.SubviewOp.get(arena, [offset], [size], [1], view_type[elem])).result)
            totals.append([s.size for s in slots[elem]])
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
        sizes_fn = self.sizes_function(name, symbol_args, totals)
        for size in dead:  # once cloned into the entry and the sizes function
            _erase_if_unused(size)
        return sizes_fn

    def sizes_function(self, name: str, symbols: list[BlockArgument], totals: list[list[SSAValue]]) -> func.FuncOp:
        """@<name>_arena_sizes(symbols..., out: memref<?xi64>): elements per arena."""
        block = Block(arg_types=[IndexType()] * len(symbols) + [MemRefType(i64, [DYNAMIC_INDEX])])
        for new, old in zip(block.args, symbols):
            new.name_hint = old.name_hint
        out = block.args[-1]
        out.name_hint = "sizes"
        mapping: dict[SSAValue, SSAValue] = dict(zip(symbols, block.args))
        values = [_clone_slice(sizes, block, mapping) for sizes in totals]
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
