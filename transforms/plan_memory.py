"""plan-memory: every temporary buffer becomes a slice of one arena per dtype.

Liveness over the function's top-level ops decides which temporaries may share a
slot: a buffer takes the slot of one that is dead by then, when both have the same
element type and the same size (the same SSA size value, so the reuse holds for
every N and E). The arenas are arguments after the status buffer, so the caller
allocates them once and reuses them across calls of the same sizes (no malloc,
no page faults per call); a companion function `@<name>_arena_sizes(symbols...,
out)` tells it how many elements each arena needs for given sizes.
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
class _Slot:
    size: SSAValue
    busy_until: int
    buffers: list[memref.AllocOp] = field(default_factory=list)


def _add(block: Block, op: Operation) -> Operation:
    block.add_op(op)
    return op


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


def _clone_slice(values: list[SSAValue], into: Block, args: dict[SSAValue, SSAValue]) -> list[SSAValue]:
    """Rebuild the arithmetic computing `values` at the end of `into`."""
    mapping = dict(args)

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
        ops = list(block.ops)
        position = {o: k for k, o in enumerate(ops)}
        allocs = [o for o in ops if isinstance(o, memref.AllocOp) and len(o.dynamic_sizes) == 1
                  and _depends_only_on_arguments(o.dynamic_sizes[0], block)]
        if not allocs:
            return None

        slots: dict[Attribute, list[_Slot]] = {}
        for alloc in allocs:
            uses = [u.operation for u in alloc.memref.uses if not isinstance(u.operation, memref.DeallocOp)]
            last = max((position[_top_level(u, block)] for u in uses), default=position[alloc])
            elem = alloc.memref.type.get_element_type()  # type: ignore[attr-defined]
            size = alloc.dynamic_sizes[0]
            free = next((s for s in slots.get(elem, []) if s.busy_until < position[alloc] and s.size is size), None)
            if free is None:
                free = _Slot(size, last)
                slots.setdefault(elem, []).append(free)
            free.busy_until = max(free.busy_until, last)
            free.buffers.append(alloc)

        # arenas: one argument per element type, after the status buffer
        symbol_args = [a for a in block.args if isinstance(a.type, IndexType)]
        entry = Block()
        offsets: dict[memref.AllocOp, SSAValue] = {}
        totals: list[list[SSAValue]] = []
        for elem, elem_slots in slots.items():
            arena = block.insert_arg(MemRefType(elem, [DYNAMIC_INDEX]), len(block.args))
            arena.name_hint = f"arena_{elem}"
            sizes = _clone_slice([s.size for s in elem_slots], entry, {a: a for a in symbol_args})
            offset: SSAValue = _add(entry, arith.ConstantOp(IntegerAttr(0, IndexType()))).result
            for slot, size in zip(elem_slots, sizes):
                for alloc in slot.buffers:
                    offsets[alloc] = offset
                offset = _add(entry, arith.AddiOp(offset, size)).result
            totals.append([s.size for s in elem_slots])
            for slot in elem_slots:
                for alloc in slot.buffers:
                    view = memref.SubviewOp.get(
                        arena, [offsets[alloc]], [alloc.dynamic_sizes[0]], [1],
                        MemRefType(elem, [DYNAMIC_INDEX], StridedLayoutAttr([1], None)),
                    )
                    Rewriter.insert_op(view, InsertPoint.before(alloc))
                    for use in list(alloc.memref.uses):
                        if isinstance(use.operation, memref.DeallocOp):
                            Rewriter.erase_op(use.operation)
                    alloc.memref.replace_all_uses_with(view.result)
                    Rewriter.erase_op(alloc)
        # the offsets are computed once, at the top
        first = block.first_op
        for o in list(entry.ops):
            o.detach()
            Rewriter.insert_op(o, InsertPoint.before(first) if first else InsertPoint.at_end(block))

        attrs = list(fn.arg_attrs.data) if fn.arg_attrs else [DictionaryAttr({})] * (len(block.args) - len(slots))
        attrs += [DictionaryAttr({"loops.arena": UnitAttr()}) for _ in slots]
        fn.arg_attrs = ArrayAttr(attrs)
        fn.function_type = func.FunctionType.from_lists([a.type for a in block.args], fn.function_type.outputs.data)
        return self.sizes_function(fn, symbol_args, totals)

    def sizes_function(self, fn: func.FuncOp, symbols: list[BlockArgument], totals: list[list[SSAValue]]) -> func.FuncOp:
        """@<name>_arena_sizes(symbols..., out: memref<?xi64>): elements per arena."""
        block = Block(arg_types=[IndexType()] * len(symbols) + [MemRefType(i64, [DYNAMIC_INDEX])])
        for new, old in zip(block.args, symbols):
            new.name_hint = old.name_hint
        out = block.args[-1]
        out.name_hint = "sizes"
        mapping: dict[SSAValue, SSAValue] = dict(zip(symbols, block.args))
        for k, sizes in enumerate(totals):
            values = _clone_slice(sizes, block, mapping)
            total = values[0]
            for v in values[1:]:
                total = _add(block, arith.AddiOp(total, v)).result
            at = _add(block, arith.ConstantOp(IntegerAttr(k, IndexType()))).result
            count = _add(block, arith.IndexCastOp(total, i64)).result
            block.add_op(memref.StoreOp.get(count, out, [at]))
        block.add_op(func.ReturnOp())
        sizes_fn = func.FuncOp(
            f"{fn.sym_name.data}_arena_sizes", ([a.type for a in block.args], []), Region(block),
        )
        sizes_fn.attributes["loops.arena_sizes_of"] = StringAttr(fn.sym_name.data)
        return sizes_fn
