"""lower-tensorexpr-to-loops: each te op becomes a loop nest over a buffer.

Every tensor becomes a flat buffer (`memref<?xf32>`, row-major) indexed by explicit
`index` arithmetic, so the memref-to-pointer lowering only ever sees 1-d accesses
whatever the symbolic shape. The function takes, in order: the size symbols, the
input buffers, the weight buffers, the output buffers it must fill, a status
buffer where an out-of-range index records its site (see `te.index_sites`), and
the number of threads its parallel loops may use (0: the OpenMP default).
One buffer per tensor, freed at the end (plan-memory makes them arena slots).
The loops follow the schedule's attributes: `te.order` (loop order) and
`te.parallel` (the outermost loop becomes an scf.parallel).
A te.index stores its site into status when out of range and reads index 0
instead, which is no element when the extent is 0 (`pos[edge_index[0]]` with N = 0
and E > 0): such a read, or a scatter's write, never runs. The entry tests once
whether a check into an extent that may be 0 would run (`%empty_index`: N = 0 while
every loop around the check runs, E > 0); if so the loops over E run to `%E_run` = 0
and the function ends storing that check's site. The hot loops keep their shape. A
check under no loop over a size, or into a count computed from data, is guarded in
its block instead (see `guard_empty_extents`).
The output is what canonicalize and CSE would leave of it: each constant once, at
the top of the function; index arithmetic folded (x + 0, x * 1, constants); a pure
op that a block already computes (a load's and a store's linear index, a register
tile's broadcast) reused. The pipeline runs no canonicalize after this pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from dialects import tensorexpr as te
from transforms.constant_pool import ConstantPool
from transforms.lower_aten_to_tensorexpr.scalars import LoweringError, scalar_attr


def buffer_type(t: Attribute) -> MemRefType:
    if not isinstance(t, TensorType):
        raise LoweringError(
            f"lower-tensorexpr-to-loops: arguments and results must be tensors or index "
            f"size symbols, got {t}"
        )
    return MemRefType(t.get_element_type(), [DYNAMIC_INDEX])


@dataclass(frozen=True)
class LowerTensorExprToLoopsPass(ModulePass):
    name = "lower-tensorexpr-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                new = _FunctionLowering(f).run()
                Rewriter.replace_op(f, new)


@dataclass
class _Buffer:
    memref: SSAValue
    extents: list[SSAValue]


@dataclass
class _Guard:
    """A te.index into an extent that may be 0 (a size symbol, a data-dependent
    count), checked from `first` on (its index_cast): when `empty` holds, every
    value it reads is out of range and there is no element to clamp it to."""

    first: Operation
    extent: SSAValue
    empty: SSAValue
    site: int


@dataclass
class _EmptyIndex:
    """A te.index into `extent` inside loops over `loops` (their extents that may be
    0, outermost first): it reads an index, out of range and with no element to
    clamp it to, exactly when `extent` is 0 and every one of those loops runs."""

    extent: SSAValue
    loops: tuple[SSAValue, ...]
    site: int


class _FunctionLowering:
    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.values: dict[SSAValue, SSAValue] = {}  # scalars and indices
        self.buffers: dict[SSAValue, _Buffer] = {}
        self.temporaries: list[SSAValue] = []
        self.teams: dict[SSAValue, SSAValue] = {}  # row blocks of partitioned scatters, by extent
        self.fills: dict[SSAValue, tuple[te.ComputeOp, int | None]] = {}
        """Constant fills read only as scatter bases (with their nest number): each
        scatter fills its own buffer, where a shared fill would be copied."""
        self.bounds: dict[SSAValue, SSAValue] = {}  # data-dependent extents (te.compact's count) -> bound
        self.guards: list[_Guard] = []  # the te op being lowered's checks into extents that may be 0
        self.empty_indices: list[_EmptyIndex] = []  # the checks the function's entry tests
        self.empties: dict[SSAValue, SSAValue] = {}  # extent -> i1 `extent == 0`, at the top
        self.guarded: dict[scf.IfOp, set[SSAValue]] = {}  # the guards made, and the `empty`s each tests

    # ------------------------------------------------------------ signature

    def run(self) -> func.FuncOp:
        old = self.fn.body.block
        ret = old.last_op
        assert isinstance(ret, func.ReturnOp)
        weights = list(dict.fromkeys(
            o.weight_name.data for o in old.ops if isinstance(o, te.WeightOp)
        ))
        arg_attrs = list(self.fn.arg_attrs.data) if self.fn.arg_attrs else [DictionaryAttr({})] * len(old.args)
        res_attrs = list(self.fn.res_attrs.data) if self.fn.res_attrs else [DictionaryAttr({})] * len(ret.operands)

        types: list[Attribute] = []
        attrs: list[DictionaryAttr] = []
        for a, at in zip(old.args, arg_attrs):
            types.append(a.type if isinstance(a.type, IndexType) else buffer_type(a.type))
            attrs.append(at)
        weight_types = {o.weight_name.data: o.result.type for o in old.ops if isinstance(o, te.WeightOp)}
        for w in weights:
            types.append(buffer_type(weight_types[w]))
            attrs.append(DictionaryAttr({"loops.weight": StringAttr(w)}))
        for k, (v, at) in enumerate(zip(ret.operands, res_attrs)):
            types.append(buffer_type(v.type))
            attrs.append(DictionaryAttr({**at.data, "loops.output": IntegerAttr(k, 64)}))
        types.append(MemRefType(i32, [DYNAMIC_INDEX]))
        attrs.append(DictionaryAttr({"loops.status": UnitAttr()}))
        types.append(IndexType())
        attrs.append(DictionaryAttr({"loops.num_threads": UnitAttr()}))

        block = Block(arg_types=types)
        for new, a in zip(block.args, list(old.args)):
            new.name_hint = a.name_hint
        n_in = len(old.args)
        self.weight_args = dict(zip(weights, block.args[n_in:n_in + len(weights)]))
        for w, a in self.weight_args.items():
            a.name_hint = "w_" + "".join(c if c.isalnum() else "_" for c in w)
        outs = block.args[n_in + len(weights):-2]
        for k, o in enumerate(outs):
            o.name_hint = f"out{k}"
        self.status = block.args[-2]
        self.status.name_hint = "status"
        self.num_threads = block.args[-1]
        self.num_threads.name_hint = "num_threads"
        self.b = Builder(InsertPoint.at_end(block))
        self.constants = ConstantPool(block)
        self.computed: dict[tuple[object, ...], SSAValue] = {}
        self.zero, self.one = self.index(0), self.index(1)

        for a, new in zip(old.args, block.args):
            if isinstance(a.type, IndexType):
                self.values[a] = new
        for a, new, at in zip(old.args, block.args, arg_attrs):
            if isinstance(a.type, TensorType):
                self.buffers[a] = _Buffer(new, self._arg_extents(a.type, at))

        # a returned te result is written straight into its output buffer
        self.destination: dict[SSAValue, SSAValue] = {}
        for v, o in zip(ret.operands, outs):
            if isinstance(v.owner, (te.ComputeOp, te.ReduceOp, te.ScatterOp)) and v not in self.destination:
                self.destination[v] = o

        nest = 0
        for op in old.ops:
            if op is ret:
                break
            last = block.last_op
            if _scatter_base_fill(op):
                assert isinstance(op, te.ComputeOp)
                self.fills[op.result] = (op, nest if te.origin(op) is not None else None)
            else:
                self.lower(op)
            if te.origin(op) is not None:  # provenance: which te op each loop nest comes from
                self._tag_nests(block, last, nest)
                if isinstance(op, te.ScatterOp) and op.base in self.fills and (k := self.fills[op.base][1]) is not None:
                    self._tag_nests(block, last, k)  # the loops filling its base compute the fill's aten op
                nest += 1
        for v, o in zip(ret.operands, outs):
            if self.destination.get(v) is not o:
                self.copy(self.buffers[v], o)
        self.empty_index_test()
        for t in self.temporaries:
            self.b.insert(memref.DeallocOp.get(t))
        self.b.insert(func.ReturnOp())
        self.constants.erase_unused()

        attributes = {k: v for k, v in self.fn.attributes.items() if k not in ("function_type", "sym_name", "arg_attrs", "res_attrs")}
        new_fn = func.FuncOp(
            self.fn.sym_name.data, (types, []), Region(block),
            arg_attrs=ArrayAttr(attrs),
        )
        for k, v in attributes.items():
            if k.startswith("te.") or k.startswith("llvm."):
                new_fn.attributes[k] = v
        return new_fn

    @staticmethod
    def _tag_nests(block: Block, last: Operation | None, nest: int) -> None:
        """`loops.nests = array<i64: k>` on the loops built for the k-th top-level te op
        (inside its guard, when one runs them only for nonzero extents)."""
        op = last.next_op if last is not None else block.first_op
        while op is not None:
            if isinstance(op, (scf.ForOp, scf.ParallelOp)):
                te.merge_array(op, te.NESTS, [nest])
            elif isinstance(op, scf.IfOp) and op.false_region.blocks:
                _FunctionLowering._tag_nests(op.false_region.block, None, nest)
            op = op.next_op

    def _arg_extents(self, t: TensorType, attrs: DictionaryAttr) -> list[SSAValue]:
        dims = attrs.data.get("te.dims") or attrs.data.get("aten.dims")
        symbols = {v.name_hint: v for k, v in self.values.items()}
        out = []
        for k, d in enumerate(t.get_shape()):
            if d != DYNAMIC_INDEX:
                out.append(self.index(d))
            else:
                name = dims.data[k] if isinstance(dims, ArrayAttr) else None
                if not isinstance(name, StringAttr) or name.data not in symbols:
                    raise LoweringError(f"dynamic dim {k} of an argument names no size symbol")
                out.append(symbols[name.data])
        return out

    # ------------------------------------------------------------ helpers

    def constant(self, value: IntegerAttr | FloatAttr) -> SSAValue:
        """The function's one arith.constant of `value`, at its top."""
        return self.constants.get(value)

    def emitted(self, op: arith.ConstantOp) -> SSAValue:
        """`self.constant` of a te body's constant, named as it was (if still unnamed)."""
        if not isinstance(op.value, (IntegerAttr, FloatAttr)):
            return self.b.insert(op.clone()).results[0]
        value = self.constant(op.value)
        value.name_hint = value.name_hint or op.result.name_hint
        return value

    def index(self, n: int) -> SSAValue:
        return self.constant(IntegerAttr(n, IndexType()))

    def add(self, b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
        """x + y, folded when one is the constant 0 or both are constants."""
        cx, cy = te.static_extent(x), te.static_extent(y)
        if cx is not None and cy is not None:
            return self.index(cx + cy)
        if cy == 0:
            return x
        if cx == 0:
            return y
        return self.once(b, arith.AddiOp, *((y, x) if cx is not None else (x, y)))  # a constant last

    def mul(self, b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
        """x * y, folded when one is the constant 1 or 0, or both are constants."""
        cx, cy = te.static_extent(x), te.static_extent(y)
        if cx is not None and cy is not None:
            return self.index(cx * cy)
        if cy == 1 or cx == 0:
            return x
        if cx == 1 or cy == 0:
            return y
        return self.once(b, arith.MuliOp, *((y, x) if cx is not None else (x, y)))

    def once(self, b: Builder, kind: type[Operation], *operands: SSAValue | Attribute) -> SSAValue:
        """kind(*operands), a pure op, appended to b's block, or the one already there
        (what CSE would merge): a load and the store after it compute the same linear
        index; a register tile broadcasts a scalar once."""
        point = b.insertion_point
        key = (point.block, kind, *operands)
        if point.insert_before is None and key in self.computed:
            return self.computed[key]
        value = b.insert(kind(*operands)).results[0]
        self.computed[key] = value
        return value

    def numel(self, b: Builder, extents: Sequence[SSAValue]) -> SSAValue:
        n: SSAValue | None = None
        for e in extents:
            n = e if n is None else self.mul(b, n, e)
        return n if n is not None else self.one

    def linear(self, b: Builder, idx: Sequence[SSAValue], extents: Sequence[SSAValue]) -> SSAValue:
        """Row-major offset of idx."""
        flat: SSAValue | None = None
        for i, e in zip(idx, extents):
            flat = i if flat is None else self.add(b, self.mul(b, flat, e), i)
        return flat if flat is not None else self.zero

    def nest(
        self, b: Builder, extents: Sequence[SSAValue], body: Callable[[Builder, list[SSAValue]], None],
        ivs: list[SSAValue] | None = None, enter: Callable[[Builder, list[SSAValue]], None] | None = None,
        parallel: int | None = None,
    ) -> None:
        """for i0 < e0: for i1 < e1: ... body(ivs); `enter(b, ivs)` runs first in
        every loop (the place for code that depends only on the ivs so far). With
        `parallel`, the outermost loop is an scf.parallel whose iterations go to
        threads in chunks of at least that many (`loops.min_chunk`)."""
        ivs = ivs or []
        if not extents:
            body(b, ivs)
            return
        if parallel is None and te.static_extent(extents[0]) == 1:  # one trip: its index is 0, no loop
            if enter:
                enter(b, ivs + [self.zero])
            self.nest(b, extents[1:], body, ivs + [self.zero], enter)
            return
        block = Block(arg_types=[IndexType()])
        inner = Builder(InsertPoint.at_end(block))
        if enter:
            enter(inner, ivs + [block.args[0]])
        self.nest(inner, extents[1:], body, ivs + [block.args[0]], enter)
        if parallel is None:
            inner.insert(scf.YieldOp())
            b.insert(scf.ForOp(self.zero, extents[0], self.one, [], Region(block)))
            return
        inner.insert(scf.ReduceOp())
        loop = b.insert(scf.ParallelOp([self.zero], [extents[0]], [self.one], Region(block)))
        loop.attributes["loops.min_chunk"] = IntegerAttr(parallel, 64)

    def reduce_nest(
        self, b: Builder, extents: Sequence[SSAValue], init: list[SSAValue],
        step: Callable[[Builder, list[SSAValue], list[SSAValue]], list[SSAValue]], ivs: list[SSAValue],
        enter: Callable[[Builder, list[SSAValue]], None],
    ) -> list[SSAValue]:
        """accs = init; for ...: accs = step(ivs, accs); the final accs. `ivs`
        starts with those of the enclosing loops; `enter` as for `nest`."""
        if not extents:
            return step(b, ivs, init)
        block = Block(arg_types=[IndexType(), *(v.type for v in init)])
        inner = Builder(InsertPoint.at_end(block))
        enter(inner, ivs + [block.args[0]])
        accs = self.reduce_nest(inner, extents[1:], list(block.args[1:]), step, ivs + [block.args[0]], enter)
        inner.insert(scf.YieldOp(*accs))
        return list(b.insert(scf.ForOp(self.zero, extents[0], self.one, init, Region(block))).results)

    def allocate(self, v: SSAValue, extents: list[SSAValue]) -> _Buffer:
        if v in self.destination:
            buf = _Buffer(self.destination[v], extents)
        else:
            size = self.numel(self.b, [self.bound(e) for e in extents])
            alloc = self.b.insert(memref.AllocOp([size], [], buffer_type(v.type)))
            self.temporaries.append(alloc.memref)
            buf = _Buffer(alloc.memref, extents)
        self.buffers[v] = buf
        return buf

    def bound(self, extent: SSAValue) -> SSAValue:
        """An upper bound of an extent that depends on data, built from the sizes
        (so that buffers, and the arenas of plan-memory, are sized before the data
        is known); the extent itself otherwise."""
        if extent in self.bounds:
            return self.bounds[extent]
        owner = extent.owner
        monotone = (arith.AddiOp, arith.MuliOp, arith.MaxSIOp, arith.MinSIOp, arith.DivUIOp, arith.FloorDivSIOp,
                    arith.CeilDivSIOp, arith.SubiOp)
        if not isinstance(owner, Operation) or not self._depends_on_data(extent):
            return extent
        if isinstance(owner, monotone) and not (
            isinstance(owner, (arith.SubiOp, arith.DivUIOp, arith.FloorDivSIOp, arith.CeilDivSIOp))
            and self._depends_on_data(owner.operands[1])
        ):
            bounded = self.b.insert(owner.clone(value_mapper={o: self.bound(o) for o in owner.operands}))
            return bounded.results[0]
        raise LoweringError(f"lower-tensorexpr-to-loops: no bound for the data-dependent extent {extent} ({owner.name})")

    def _depends_on_data(self, v: SSAValue) -> bool:
        if v in self.bounds:
            return True
        owner = v.owner
        return isinstance(owner, Operation) and owner.dialect_name() == "arith" and any(
            self._depends_on_data(o) for o in owner.operands)

    def lower_compact(self, op: te.CompactOp) -> None:
        """for i < n: positions[count] = i; count += flags[i] != 0. The store is
        unconditional (no branch): count <= i < n keeps it in the buffer, and a
        later position overwrites it."""
        flags = self.buffers[op.flags]
        n = self.values[op.extent]
        positions = self.allocate(op.positions, [n]).memref
        block = Block(arg_types=[IndexType(), IndexType()])
        i, count = block.args
        b = Builder(InsertPoint.at_end(block))
        flag = b.insert(memref.LoadOp.get(flags.memref, [i])).res
        b.insert(memref.StoreOp.get(b.insert(arith.IndexCastOp(i, i64)).result, positions, [count]))
        zero = self.constant(IntegerAttr(0, flag.type))
        hit = b.insert(arith.CmpiOp(flag, zero, "ne")).result
        step = b.insert(arith.SelectOp(hit, self.one, self.zero)).result
        b.insert(scf.YieldOp(b.insert(arith.AddiOp(count, step)).result))
        total = self.b.insert(scf.ForOp(self.zero, n, self.one, [self.zero], Region(block))).results[0]
        self.buffers[op.positions] = _Buffer(positions, [total])
        self.values[op.count] = total
        self.bounds[total] = n

    def lower_scan(self, op: te.ScanOp) -> None:
        """for every index of the other dims: acc = identity; for i along dim:
        acc = acc (+) in[.., i, ..]; out[.., i, ..] = acc."""
        src = self.buffers[op.input]
        ext, d, kind = src.extents, op.dim.value.data, op.kind.data
        out = self.allocate(op.result, ext).memref
        t = op.result.type
        assert isinstance(t, TensorType)
        et = t.get_element_type()

        def along(b: Builder, ivs: list[SSAValue]) -> None:
            block = Block(arg_types=[IndexType(), et])
            i, acc = block.args
            ib = Builder(InsertPoint.at_end(block))
            at = self.linear(ib, ivs[:d] + [i] + ivs[d:], ext)
            x = ib.insert(memref.LoadOp.get(src.memref, [at])).res
            acc = _combine(ib, kind, acc, x)
            ib.insert(memref.StoreOp.get(acc, out, [at]))
            ib.insert(scf.YieldOp(acc))
            b.insert(scf.ForOp(self.zero, ext[d], self.one, [self.constant(_identity(kind, et))], Region(block)))

        self.nest(self.b, [e for k, e in enumerate(ext) if k != d], along)

    def lower_check(self, op: te.CheckOp) -> None:
        """if !condition: status = site (the first failure is reported)."""
        cond = self.b.insert(memref.LoadOp.get(self.buffers[op.condition].memref, [self.zero])).res
        zero = self.constant(IntegerAttr(0, cond.type))
        failed = self.b.insert(arith.CmpiOp(cond, zero, "eq")).result
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = tb.insert(arith.ConstantOp(IntegerAttr(op.site.value.data, i32))).result
        tb.insert(memref.StoreOp.get(code, self.status, [self.zero]))
        tb.insert(scf.YieldOp())
        self.b.insert(scf.IfOp(failed, [], Region(then)))

    def copy(self, src: _Buffer, dst: SSAValue) -> None:
        n = self.numel(self.b, src.extents)

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            x = b.insert(memref.LoadOp.get(src.memref, ivs)).res
            b.insert(memref.StoreOp.get(x, dst, ivs))

        self.nest(self.b, [n], body)

    # ------------------------------------------------------------ ops

    LOWERINGS: dict[type[Operation], str] = {
        te.ComputeOp: "lower_compute", te.ReduceOp: "lower_reduce", te.ScatterOp: "lower_scatter",
        te.CompactOp: "lower_compact", te.CheckOp: "lower_check", te.ScanOp: "lower_scan",
    }
    """The te ops that become loop nests, and the method of each."""

    def lower(self, op: Operation) -> None:
        if isinstance(op, te.WeightOp):
            t = op.result.type
            assert isinstance(t, TensorType)
            self.buffers[op.result] = _Buffer(self.weight_args[op.weight_name.data],
                                              [self.index(d) for d in t.get_shape()])
        elif type(op) in self.LOWERINGS:
            getattr(self, self.LOWERINGS[type(op)])(op)
            self.guard_empty_extents()
        elif isinstance(op, te.LoadOp):  # a scalar the function reads itself (.item())
            buf = self.buffers[op.tensor]
            at = self.linear(self.b, [self.values[i] for i in op.indices], buf.extents)
            self.values[op.result] = self.b.insert(memref.LoadOp.get(buf.memref, [at])).res
        elif op.dialect_name() in ("arith", "math"):
            self.emit(self.b, op, self.values)
        else:
            raise LoweringError(f"lower-tensorexpr-to-loops: {op.name} has no lowering")

    def extents(self, op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> list[SSAValue]:
        return [self.values[e] for e in op.extents]

    def emit(self, b: Builder, op: Operation, mapping: dict[SSAValue, SSAValue]) -> None:
        """One op of a te body, its operands looked up in `mapping`."""
        if isinstance(op, te.LoadOp):
            buf = self.buffers[op.tensor]
            at = self.linear(b, [mapping[i] for i in op.indices], buf.extents)
            mapping[op.result] = b.insert(memref.LoadOp.get(buf.memref, [at])).res
        elif isinstance(op, te.IndexOp):
            mapping[op.result] = self.checked_index(b, op, mapping)
        elif isinstance(op, arith.ConstantOp) and isinstance(op.value, (IntegerAttr, FloatAttr)):
            mapping[op.result] = self.emitted(op)
        elif isinstance(op, (arith.AddiOp, arith.MuliOp)) and isinstance(op.result.type, IndexType):
            x, y = (mapping.get(v, v) for v in op.operands)
            value = mapping[op.result] = (self.add if isinstance(op, arith.AddiOp) else self.mul)(b, x, y)
            if value not in (x, y) and not isinstance(value.owner, arith.ConstantOp):
                value.name_hint = op.result.name_hint
        else:
            clone = op.clone(value_mapper=mapping)
            b.insert(clone)
            mapping.update(zip(op.results, clone.results))

    def checked_index(self, b: Builder, op: te.IndexOp, mapping: dict[SSAValue, SSAValue]) -> SSAValue:
        """status = site when i is out of range, and i clamped to 0 (in range, unless
        the extent is 0: see `guard_empty_extents`)."""
        extent = mapping[op.extent]
        empty = self.empty(extent) if te.static_extent(extent) in (None, 0) else None
        i = b.insert(arith.IndexCastOp(mapping[op.value], IndexType())).result
        if empty is not None:
            self.guards.append(_Guard(i.owner, extent, empty, op.site.value.data))  # type: ignore[arg-type]
        if op.wrap is not None:
            neg = b.insert(arith.CmpiOp(i, self.zero, "slt")).result
            i = b.insert(arith.SelectOp(neg, b.insert(arith.AddiOp(i, extent)).result, i)).result
        # one unsigned compare catches both i < 0 and i >= extent
        bad = b.insert(arith.CmpiOp(i, extent, "uge")).result
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = tb.insert(arith.ConstantOp(IntegerAttr(op.site.value.data, i32))).result
        tb.insert(memref.StoreOp.get(code, self.status, [self.zero]))
        tb.insert(scf.YieldOp())
        b.insert(scf.IfOp(bad, [], Region(then)))
        return b.insert(arith.SelectOp(bad, self.zero, i)).result

    def empty(self, extent: SSAValue) -> SSAValue:
        """`extent == 0` (i1), once per extent, at the top of the function (extents
        are sizes, or counts computed before the nests that use them)."""
        if extent not in self.empties:
            if te.static_extent(extent) == 0:
                self.empties[extent] = self.constant(IntegerAttr(1, i1))
            else:
                top = self.b.insertion_point.block
                if not (extent.owner is top or (isinstance(extent.owner, Operation)
                                                 and extent.owner.parent_block() is top)):
                    raise LoweringError(f"lower-tensorexpr-to-loops: the extent {extent} of a te.index "
                                        "is computed inside a loop nest; it must be known before the nest")
                cmp = self.b.insert(arith.CmpiOp(extent, self.zero, "eq")).result
                cmp.name_hint = f"{extent.name_hint}_empty" if extent.name_hint else "empty"
                self.empties[extent] = cmp
        return self.empties[extent]

    def guard_empty_extents(self) -> None:
        """After a te op's nests: the checks into extents that may be 0 (`select(bad,
        0, i)` has nothing to clamp to there: `pos` with N = 0 under a loop over
        E > 0) inside loops whose extents are known at the entry go to the entry's
        test (`empty_index_test`: no loop changes shape, the hot loops stay as they
        were); the others (a check outside any loop over a size, an extent counted
        from data) are guarded where they are (`guard_block`)."""
        guards, self.guards = self.guards, []
        local: dict[Block, list[_Guard]] = {}
        for g in guards:
            block = g.first.parent_block()
            assert block is not None
            loops = _enclosing_extents(block)
            if loops is not None and any(te.static_extent(e) == 0 for e in loops):
                continue  # a loop that never runs
            sizes = tuple(dict.fromkeys(e for e in loops or () if not _nonzero(e)))
            if loops is not None and _nonzero_when(g.extent, sizes):
                continue  # in a loop over the extent itself (or a factor of it): never read when it is 0
            if loops is not None and sizes and all(self.at_entry(v) for v in (g.extent, *sizes)):
                self.empty_indices.append(_EmptyIndex(g.extent, sizes, g.site))
            else:
                local.setdefault(block, []).append(g)
        for block in sorted(local, key=_depth):  # outer blocks first: an inner guard may be implied
            self.guard_block(block, local[block])

    def at_entry(self, v: SSAValue) -> bool:
        """Whether v can be computed at the function's entry: a size, a constant, or
        index arithmetic on them (wherever the top level computes it)."""
        top = self.b.insertion_point.block
        owner = v.owner
        if isinstance(v, BlockArgument):
            return owner is top
        if isinstance(owner, arith.ConstantOp):
            return True
        return (isinstance(owner, Operation) and owner.parent_block() is top and owner.dialect_name() == "arith"
                and all(self.at_entry(o) for o in owner.operands))

    def empty_index_test(self) -> None:
        """At the entry, `%empty_index`: some check would read an index into an empty
        dim (its extent is 0 and every loop around it runs). Then the loops around
        such checks run no iteration: the outermost one's extent E becomes `%E_run =
        select %empty_index, 0, E` in every loop over E (siblings stay fusible, no
        loop changes shape), and the function ends storing the first such check's
        site into status, over whatever else it stored. Otherwise nothing changes."""
        block = self.b.insertion_point.block
        if self.empty_indices:
            self._test_empty_indices(block)
        for empty in self.empties.values():
            if isinstance(empty.owner, arith.CmpiOp) and not empty.uses:
                block.erase_op(empty.owner)  # a check inside a loop over its own extent, or that never runs

    def _test_empty_indices(self, block: Block) -> None:
        first = next((o for o in block.ops if not isinstance(o, arith.ConstantOp)), None)
        last = [first.prev_op if first is not None else block.last_op]  # the constants, then what is placed
        placed: set[Operation] = set()

        def place(op: Operation) -> SSAValue:
            """op, right after the constants and what is placed already."""
            if (last[0].next_op if last[0] is not None else block.first_op) is not op:
                if op.parent is not None:
                    op.detach()
                at = InsertPoint.after(last[0]) if last[0] is not None else InsertPoint.at_start(block)
                Rewriter.insert_op(op, at)
            last[0] = op
            placed.add(op)
            return op.results[0]

        def hoist(v: SSAValue) -> None:
            """v's computation (index arithmetic on sizes, or a te.index's `empty`) at the entry."""
            owner = v.owner
            if isinstance(owner, Operation) and not isinstance(owner, arith.ConstantOp) and owner not in placed:
                for o in owner.operands:
                    hoist(o)
                place(owner)

        nonzero: dict[SSAValue, SSAValue] = {}
        terms: dict[tuple[SSAValue, tuple[SSAValue, ...]], tuple[SSAValue, int]] = {}  # -> (condition, site)
        for e in self.empty_indices:
            if (e.extent, e.loops) in terms:
                continue  # the first site
            for v in (e.extent, *e.loops):
                hoist(v)
            empty = self.empties[e.extent]
            cond = None if te.static_extent(e.extent) == 0 else empty
            if cond is not None:
                hoist(cond)
            for n in e.loops:
                if n not in nonzero:
                    nonzero[n] = place(arith.CmpiOp(n, self.zero, "ne"))
                    nonzero[n].name_hint = f"{n.name_hint}_nonzero" if n.name_hint else None
                cond = nonzero[n] if cond is None else place(arith.AndIOp(cond, nonzero[n]))
            assert cond is not None
            terms[(e.extent, e.loops)] = (cond, e.site)
        conditions = [c for c, _ in terms.values()]
        fail = conditions[0]
        for c in conditions[1:]:
            fail = place(arith.OrIOp(fail, c))
        fail.name_hint = "empty_index"
        for n in dict.fromkeys(loops[0] for _, loops in terms):
            run = place(arith.SelectOp(fail, self.zero, n))
            run.name_hint = f"{n.name_hint}_run" if n.name_hint else "run"
            for use in list(n.uses):
                loop = use.operation
                if isinstance(loop, scf.ForOp) and use.index == 1 or (
                        isinstance(loop, scf.ParallelOp) and use.index == len(loop.lowerBound)):
                    loop.operands[use.index] = run
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        *rest, (_, site) = terms.values()
        code = tb.insert(arith.ConstantOp(IntegerAttr(site, i32))).result
        for c, site in reversed(rest):  # the first such check's site
            code = tb.insert(arith.SelectOp(c, tb.insert(arith.ConstantOp(IntegerAttr(site, i32))).result, code)).result
        tb.insert(memref.StoreOp.get(code, self.status, [self.zero]))
        tb.insert(scf.YieldOp())
        self.b.insert(scf.IfOp(fail, [], Region(then)))

    def guard_block(self, block: Block, guards: list[_Guard]) -> None:
        """`scf.if %N_empty { status = site } else { the block from the first check on }`,
        the values its terminator uses yielded (zeros when empty: nothing reads them,
        the call fails). The block runs exactly when the checks would: the error is
        raised exactly when an index is read. One test for the checks of a block (an
        `ori` of their `empty`s, the first one's site); none for an extent that an
        enclosing guard tested."""
        known: set[SSAValue] = set()  # extents an enclosing guard found nonzero
        parent = block.parent_op()
        while parent is not None:
            known |= self.guarded.get(parent, set())  # type: ignore[arg-type]
            parent = parent.parent_op()
        position = {o: k for k, o in enumerate(block.ops)}
        sites: dict[SSAValue, int] = {}
        for g in sorted(guards, key=lambda g: position[g.first]):
            if g.empty not in known and g.empty not in sites:
                sites[g.empty] = g.site
        if not sites:
            return
        first = min((g.first for g in guards if g.empty in sites), key=lambda o: position[o])
        for empty in self.empties.values():  # (at the top level: an extent compared after the first check)
            if isinstance(empty.owner, arith.CmpiOp) and position.get(empty.owner, -1) > position[first]:
                empty.owner.detach()
                Rewriter.insert_op(empty.owner, InsertPoint.before(first))
        last = block.last_op
        end = last if last is not None and last.has_trait(IsTerminator) else None
        moved: list[Operation] = []
        op: Operation | None = first
        while op is not None and op is not end:
            moved.append(op)
            op = op.next_op
        inside = set(moved)

        def outside(use_op: Operation) -> bool:
            while use_op.parent_block() is not block:
                use_op = use_op.parent_op()  # type: ignore[assignment]
            return use_op not in inside

        escaping = [r for o in moved for r in o.results if any(outside(u.operation) for u in r.uses)]
        conditions = list(sites)
        b = Builder(InsertPoint.before(first))
        cond = conditions[0]
        for other in conditions[1:]:
            cond = b.insert(arith.OrIOp(cond, other)).result
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = tb.insert(arith.ConstantOp(IntegerAttr(sites[conditions[-1]], i32))).result
        for empty in reversed(conditions[:-1]):  # the first empty extent's site
            site = tb.insert(arith.ConstantOp(IntegerAttr(sites[empty], i32))).result
            code = tb.insert(arith.SelectOp(empty, site, code)).result
        tb.insert(memref.StoreOp.get(code, self.status, [self.zero]))
        tb.insert(scf.YieldOp(*[self.zero_of(tb, v.type) for v in escaping]))
        otherwise = Block()
        guard = b.insert(scf.IfOp(cond, [v.type for v in escaping], Region(then), Region(otherwise)))
        for o in moved:
            o.detach()
            otherwise.add_op(o)
        otherwise.add_op(scf.YieldOp(*escaping))
        for v, r in zip(escaping, guard.results):
            v.replace_uses_with_if(r, lambda use: not guard.is_ancestor(use.operation))
        self.guarded[guard] = known | set(sites)
        self.computed = {k: v for k, v in self.computed.items()
                         if not (isinstance(v.owner, Operation) and guard.is_ancestor(v.owner))}

    def zero_of(self, b: Builder, t: Attribute) -> SSAValue:
        """A value of type t (what a skipped block yields: it never reaches an output)."""
        if isinstance(t, IndexType):
            return self.zero
        if isinstance(t, VectorType):
            return self.once(b, vector.BroadcastOp, self.constant(scalar_attr(0, t.element_type)), t)
        return self.constant(scalar_attr(0, t))

    def lower_compute(self, op: te.ComputeOp, buf: _Buffer | None = None) -> None:
        """Into a new buffer, or `buf` (a scatter's, for a constant fill of its base)."""
        extents = self.extents(op)
        buf = buf or self.allocate(op.result, extents)
        order = _order(op)
        body = _Body(self, op.body.block, [op.body.block.args[d] for d in order])

        def store(b: Builder, ivs: list[SSAValue]) -> None:
            at = self.linear(b, _unpermute(ivs, order), extents)
            b.insert(memref.StoreOp.get(body.result(), buf.memref, [at]))

        body.enter(self.b, [])
        self.nest(self.b, [extents[d] for d in order], store, enter=body.enter, parallel=_parallel(op))

    def lower_reduce(self, op: te.ReduceOp) -> None:
        """Reduction loops inside the output loops carry the accumulator in iter_args
        (a dot product); output loops inside reduction loops (the order the schedule
        gives `x @ B`) accumulate in the output buffer, set to the identity first."""
        extents = self.extents(op)
        space = extents + [self.values[e] for e in op.reduce_extents]
        rank = len(extents)
        buf = self.allocate(op.result, extents)
        kind, et = op.kind.data, op.element_type()
        order = _order(op)
        body = _Body(self, op.body.block, [op.body.block.args[d] for d in order])
        outer = next((k for k, d in enumerate(order) if d >= rank), len(order))  # loops before the first reduction
        dims = order[outer:]
        body.enter(self.b, [])

        lanes = op.attributes.get("te.vector")
        if isinstance(lanes, IntegerAttr):
            tile = op.attributes.get("te.tile")
            rows, vectors = [int(v) for v in tile.get_values()] if isinstance(tile, DenseArrayBase) else (1, 1)
            self.lower_reduce_vectorized(op, buf, space, order, outer, lanes.value.data, (rows, vectors))
            return
        if all(d >= rank for d in dims):  # reduction loops innermost
            def step(b: Builder, ivs: list[SSAValue], acc: list[SSAValue]) -> list[SSAValue]:
                return [_combine(b, kind, acc[0], body.result(), reassociate=True)]

            def reduce(b: Builder, ivs: list[SSAValue]) -> None:
                [result] = self.reduce_nest(b, [space[d] for d in dims], [self.constant(_identity(kind, et))], step, ivs,
                                            body.enter)
                at = self.linear(b, _unpermute(ivs, order[:outer]), extents)
                b.insert(memref.StoreOp.get(result, buf.memref, [at]))

            self.nest(self.b, [space[d] for d in order[:outer]], reduce, enter=body.enter, parallel=_parallel(op))
            return

        inner = [d for d in dims if d < rank]  # output dims inside the reduction

        def accumulate(b: Builder, ivs: list[SSAValue]) -> None:
            at = self.linear(b, _unpermute(ivs, order, rank), extents)
            old = b.insert(memref.LoadOp.get(buf.memref, [at])).res
            b.insert(memref.StoreOp.get(_combine(b, kind, old, body.result()), buf.memref, [at]))

        def reduce(b: Builder, ivs: list[SSAValue]) -> None:
            def init(bb: Builder, inner_ivs: list[SSAValue]) -> None:
                at = self.linear(bb, _unpermute(ivs + inner_ivs, order[:outer] + inner), extents)
                bb.insert(memref.StoreOp.get(self.constant(_identity(kind, et)), buf.memref, [at]))

            self.nest(b, [space[d] for d in inner], init)
            self.nest(b, [space[d] for d in dims], accumulate, ivs, body.enter)

        self.nest(self.b, [space[d] for d in order[:outer]], reduce, enter=body.enter, parallel=_parallel(op))

    def lower_reduce_vectorized(
        self, op: te.ReduceOp, buf: _Buffer, space: list[SSAValue], order: list[int], outer: int,
        lanes: int, tile: tuple[int, int],
    ) -> None:
        """`te.vector = w`, `te.tile = [R, C]`: register tiles of R rows (iterations of
        the loop just outside the reduction) x C w-lane slices of the row J (the last
        dim, innermost in te.order), carried in the reduction loops' iter_args. Per
        reduction step, what varies along J is evaluated on vectors (its loads become
        vector.load), the rest once per row as scalars, broadcast; multiply-adds may
        contract to FMAs. J is walked in J / (C w) tiles, the rows in ceil(n / R) tiles;
        the last tile's rows past the end are clamped to the last row, which it then
        computes and stores more than once (the same values, by the same thread):
        no second copy of the code for the rows left over."""
        kind, et = op.kind.data, op.element_type()
        rank = op.rank()
        vt = VectorType(et, [lanes])
        rows, vectors = tile if outer >= 1 else (1, tile[1])
        row_extent = te.static_extent(op.extents[-1])
        assert row_extent is not None and row_extent % (lanes * vectors) == 0
        args = op.body.block.args
        red = order[outer:-1]
        row_arg = args[order[outer - 1]] if rows > 1 else None
        on_row = _dependents(row_arg) if row_arg is not None else set()

        def tiles(b: Builder, ivs: list[SSAValue], first: list[SSAValue]) -> None:
            """The tiles of the rows `first` (row ivs; `ivs` the outer loops')."""
            body = _Body(self, op.body.block, [args[d] for d in order])
            if row_arg is not None:
                body.only = {o for o in op.body.block.ops if not any(v in on_row for v in o.operands)}
            body.enter(b, [])
            body.enter(b, ivs)

            def columns(cb: Builder, start: SSAValue) -> None:
                lane0 = [self.add(cb, start, self.index(c * lanes)) for c in range(vectors)]

                def step(sb: Builder, _: list[SSAValue], accs: list[SSAValue]) -> list[SSAValue]:
                    values = body.vector_tile(sb, row_arg, first, lane0, vt)
                    return [_combine(sb, kind, acc, x, contract=True) for acc, x in zip(accs, values)]

                zero = self.once(cb, vector.BroadcastOp, self.constant(_identity(kind, et)), vt)
                accs = self.reduce_nest(cb, [space[d] for d in red], [zero] * (len(first) * vectors), step, ivs,
                                        body.enter)
                for k, acc in enumerate(accs):
                    r, c = divmod(k, vectors)
                    at_ivs = ivs[:-1] + [first[r]] if row_arg is not None else ivs
                    at = self.linear(cb, _unpermute(at_ivs + [lane0[c]], order[:outer] + [rank - 1]), buf.extents)
                    cb.insert(vector.StoreOp(acc, buf.memref, [at]))

            count = row_extent // (lanes * vectors)
            if count == 1:
                columns(b, self.zero)
                return
            block = Block(arg_types=[IndexType()])
            cb = Builder(InsertPoint.at_end(block))
            columns(cb, self.mul(cb, block.args[0], self.index(lanes * vectors)))
            cb.insert(scf.YieldOp())
            b.insert(scf.ForOp(self.zero, self.index(count), self.one, [], Region(block)))

        outer_extents = [space[d] for d in order[:outer]]
        if row_arg is None:
            self.nest(self.b, outer_extents, lambda b, ivs: tiles(b, ivs, [self.zero]), parallel=_parallel(op))
            return
        n = outer_extents[-1]
        count = self.once(self.b, arith.CeilDivUIOp, n, self.index(rows))
        last = self.once(self.b, arith.SubiOp, n, self.one)  # n >= 1 when there is a tile

        def tiled(b: Builder, ivs: list[SSAValue]) -> None:
            base = self.mul(b, ivs[-1], self.index(rows))
            first = [base] + [b.insert(arith.MinUIOp(self.add(b, base, self.index(k)), last)).result
                              for k in range(1, rows)]
            tiles(b, ivs[:-1] + [base], first)

        self.nest(self.b, outer_extents[:-1] + [count], tiled, parallel=_parallel(op))

    def lower_scatter(self, op: te.ScatterOp) -> None:
        if op.base in self.fills:  # a constant base: filled here, never copied
            fill, _ = self.fills[op.base]
            buf = self.allocate(op.result, self.extents(fill))
            blocks = _blocks(fill, op)
            if _overwritten(fill, op):
                pass  # slice assignments cover it: nothing reads the fill
            elif blocks is not None and len(blocks) == 1:
                (d, (lo, hi)), = blocks.items()
                self.fill_outside(fill, buf, d, lo, hi)
            else:
                self.lower_compute(fill, buf)
        else:
            buf = self.scatter_buffer(op)
        kind = op.kind.data
        order = _order(op)
        body = _Body(self, op.body.block, [op.body.block.args[d] for d in order])
        term = body.terminator
        assert isinstance(term, te.UpdateOp)

        def update(b: Builder, ivs: list[SSAValue]) -> None:
            at = self.linear(b, [body.value(i) for i in term.indices], buf.extents)
            value = body.value(term.value)
            if kind != "assign":
                old = b.insert(memref.LoadOp.get(buf.memref, [at])).res
                value = _combine(b, kind, old, value)
            b.insert(memref.StoreOp.get(value, buf.memref, [at]))

        extents = [self.extents(op)[d] for d in order]
        part = op.attributes.get("te.partition")
        if not isinstance(part, IntegerAttr):  # rows disjoint across the outermost loop, or sequential
            body.enter(self.b, [])
            self.nest(self.b, extents, update, enter=body.enter, parallel=_parallel(op))
            return
        self.lower_scatter_partitioned(body, extents, update, part.value.data, buf, _parallel(op) or 1)

    def fill_outside(self, fill: te.ComputeOp, buf: _Buffer, d: int, lo: int, hi: int) -> None:
        """The fill's constant everywhere but the block [lo, hi) of dim d, which the
        scatter assigns (a slice's backward: zeros around the gradient's block)."""
        constant = te.constant_fill(fill)
        assert constant is not None
        value = self.emitted(constant)
        extents = self.extents(fill)
        size = te.static_extent(fill.extents[d])
        assert size is not None
        for start, stop in ((0, lo), (hi, size)):
            if stop <= start:
                continue

            def store(b: Builder, ivs: list[SSAValue], start: int = start) -> None:
                at = list(ivs)
                at[d] = self.add(b, ivs[d], self.index(start))
                b.insert(memref.StoreOp.get(value, buf.memref, [self.linear(b, at, extents)]))

            part = list(extents)
            part[d] = self.index(stop - start)
            self.nest(self.b, part, store, parallel=_parallel(fill))

    def scatter_buffer(self, op: te.ScatterOp) -> _Buffer:
        """The buffer a scatter updates: its base's when nobody else reads the base,
        else a copy."""
        base = self.buffers[op.base]
        in_place = (
            isinstance(op.base.owner, (te.ComputeOp, te.ReduceOp, te.ScatterOp))
            and len(list(op.base.uses)) == 1 and op.result not in self.destination
        )
        if in_place:
            buf = self.buffers[op.result] = base
        else:
            buf = self.allocate(op.result, base.extents)
            self.copy(base, buf.memref)
        return buf

    def lower_scatter_partitioned(
        self, body: _Body, extents: list[SSAValue], update: Callable[[Builder, list[SSAValue]], None],
        dim: int, buf: _Buffer, min_chunk: int,
    ) -> None:
        """Threads split the base along `dim` into row blocks; each scans the whole
        update space and applies the updates that land in its block, guarding the
        work of an update (not only its store) by the block test. Every row sees its
        updates in the sequential order: the result is bit for bit the sequential one.
        There are min(threads, ceil(outermost extent / min_chunk)) blocks."""
        term = body.terminator
        assert isinstance(term, te.UpdateOp)
        target = term.indices[dim]
        body.only = te.body_slice([target], body.block)
        needed = max((body.order.index(a) + 1 for a in body.block.args
                      if a in te.body_args([target], body.block)), default=0)
        key = extents[0]
        if key not in self.teams:  # shared (the first scatter's chunk), so siblings can share a loop
            worth = self.b.insert(arith.CeilDivUIOp(extents[0], self.index(min_chunk))).result
            self.teams[key] = self.b.insert(arith.MaxSIOp(self.b.insert(arith.MinSIOp(self.num_threads, worth)).result,
                                                          self.one)).result
        teams = self.teams[key]
        block = Block(arg_types=[IndexType()])
        t = block.args[0]
        t.name_hint = "part"
        b = Builder(InsertPoint.at_end(block))
        rows = buf.extents[dim]
        lo = b.insert(arith.DivUIOp(b.insert(arith.MuliOp(rows, t)).result, teams)).result
        next_t = b.insert(arith.AddiOp(t, self.one)).result
        hi = b.insert(arith.DivUIOp(b.insert(arith.MuliOp(rows, next_t)).result, teams)).result

        def guarded(gb: Builder, ivs: list[SSAValue]) -> None:
            row = body.value(target)
            mine = gb.insert(arith.AndIOp(gb.insert(arith.CmpiOp(row, lo, "uge")).result,
                                          gb.insert(arith.CmpiOp(row, hi, "ult")).result)).result
            then = Block()
            tb = Builder(InsertPoint.at_end(then))
            body.only = None
            body.enter(tb, ivs)
            self.nest(tb, extents[needed:], update, ivs, body.enter)
            tb.insert(scf.YieldOp())
            gb.insert(scf.IfOp(mine, [], Region(then)))

        body.enter(b, [])
        self.nest(b, extents[:needed], guarded, enter=body.enter)
        b.insert(scf.ReduceOp())
        loop = self.b.insert(scf.ParallelOp([self.zero], [teams], [self.one], Region(block)))
        loop.attributes["loops.min_chunk"] = IntegerAttr(1, 64)


def _scatter_base_fill(op: Operation) -> bool:
    """A te.compute of one constant everywhere (zeros, full) read only as scatter bases."""
    if te.constant_fill(op) is None or not op.results[0].uses:
        return False
    return all(isinstance(u.operation, te.ScatterOp) and u.operation.base is op.results[0] and u.index == 0
               for u in op.results[0].uses)


def _blocks(fill: te.ComputeOp, op: te.ScatterOp) -> dict[int, tuple[int, int]] | None:
    """The blocks [lo, hi) of static dims of `fill` that an "assign" slice assignment
    `op` writes (every other dim whole), or None for any other scatter."""
    dims = te.slice_assignment(op, list(fill.extents))
    if op.kind.data != "assign" or dims is None:
        return None
    blocks = {d: (offset, offset + n) for d, (_, offset, n) in enumerate(dims) if n is not None}
    return None if any(te.static_extent(fill.extents[d]) is None for d in blocks) else blocks


def _overwritten(fill: te.ComputeOp, first: te.ScatterOp) -> bool:
    """Whether the chain of "assign" scatters from `first` (each the only reader of the
    one before) stores every element of `fill` before anything reads it: slice
    assignments (e3nn's `out[:, a:b] = ...` for each block of a concatenation) whose
    blocks tile one dim and cover the others whole. Then the fill is never seen."""
    covered: list[tuple[int, int]] = []
    split: int | None = None
    op: te.ScatterOp | None = first
    while op is not None:
        blocks = _blocks(fill, op)
        if blocks is None or len(blocks) > 1 or split not in (None, *blocks):
            return False
        if not blocks:
            return True  # one scatter assigns everything
        (split, interval), = blocks.items()
        covered.append(interval)
        uses = list(op.result.uses)
        nxt = uses[0].operation if len(uses) == 1 else None
        op = nxt if isinstance(nxt, te.ScatterOp) and nxt.base is op.result and uses[0].index == 0 else None
    end = 0
    for lo, hi in sorted(covered):
        if lo > end:
            return False
        end = max(end, hi)
    return end >= (te.static_extent(fill.extents[split]) or 0)  # type: ignore[index]


def _enclosing_extents(block: Block) -> list[SSAValue] | None:
    """The extents of the loops around `block` (all from 0 by 1), outermost first;
    None when a loop starts elsewhere."""
    extents: list[SSAValue] = []
    op = block.parent_op()
    while op is not None:
        if isinstance(op, scf.ForOp):
            bounds = (op.lb, op.ub, op.step)
        elif isinstance(op, scf.ParallelOp):
            if len(op.lowerBound) != 1:
                return None
            bounds = (op.lowerBound[0], op.upperBound[0], op.step[0])
        else:
            op = op.parent_op()
            continue
        if te.static_extent(bounds[0]) != 0 or te.static_extent(bounds[2]) != 1:
            return None
        extents.insert(0, bounds[1])
        op = op.parent_op()
    return extents


def _nonzero(v: SSAValue) -> bool:
    """Whether an extent is never 0: a constant >= 1, or max(x, k >= 1) (a team count)."""
    n = te.static_extent(v)
    if n is not None:
        return n > 0
    owner = v.owner
    return isinstance(owner, (arith.MaxSIOp, arith.MaxUIOp)) and any(
        (te.static_extent(o) or 0) > 0 for o in owner.operands)


def _nonzero_when(v: SSAValue, extents: Sequence[SSAValue]) -> bool:
    """Whether v is not 0 when none of `extents` is: one of them, a constant >= 1, or
    a product of such (N * 3 inside a loop over N)."""
    if v in extents or _nonzero(v):
        return True
    owner = v.owner
    return isinstance(owner, arith.MuliOp) and all(_nonzero_when(o, extents) for o in owner.operands)


def _depth(block: Block) -> int:
    """How many ops enclose `block`."""
    depth, op = 0, block.parent_op()
    while op is not None:
        depth, op = depth + 1, op.parent_op()
    return depth


def _inside(v: SSAValue, block: Block) -> bool:
    """Whether `v` is an argument or a result of an op of `block`."""
    return v.owner is block or (isinstance(v.owner, Operation) and v.owner.parent_block() is block)


def _dependents(arg: BlockArgument) -> set[SSAValue]:
    block = arg.owner
    assert isinstance(block, Block)
    return te.dependents(block, arg)


def _order(op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> list[int]:
    """The body's arguments in loop order, outermost first (`te.order`, set by `schedule`)."""
    order = op.attributes.get("te.order")
    n = len(op.body.block.args)
    if order is None:
        return list(range(n))
    assert isinstance(order, DenseArrayBase)
    values = [int(v) for v in order.get_values()]
    if sorted(values) != list(range(n)):
        raise LoweringError(f"lower-tensorexpr-to-loops: {op.name} te.order {values} is not a permutation of 0..{n - 1}")
    return values


def _parallel(op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> int | None:
    """The minimum chunk of a parallel outermost loop (`te.parallel`), or None."""
    chunk = op.attributes.get("te.parallel")
    return chunk.value.data if isinstance(chunk, IntegerAttr) else None


def _unpermute(ivs: Sequence[SSAValue], dims: Sequence[int], rank: int | None = None) -> list[SSAValue]:
    """The ivs of loops over `dims` (in loop order), as indices of the first
    `rank` dims in dim order (the output dims, for a linear index)."""
    rank = len(dims) if rank is None else rank
    out: list[SSAValue | None] = [None] * rank
    for d, iv in zip(dims, ivs):
        if d < rank:
            out[d] = iv
    assert all(v is not None for v in out)
    return out  # type: ignore[return-value]


class _Body:
    """A te body emitted into a loop nest, each op in the outermost loop where its
    operands exist: a gather's index check runs once per edge, not once per edge
    and feature, and leaves the inner loop free to vectorize. The terminator's
    operands are emitted innermost, where the caller uses them."""

    def __init__(self, lowering: _FunctionLowering, block: Block, order: list[BlockArgument]):
        self.lowering = lowering
        self.block = block
        self.order = order  # the block arguments in loop order, outermost first
        self.terminator = block.last_op
        self.mapping: dict[SSAValue, SSAValue] = dict(lowering.values)
        self.pending = [o for o in block.ops if o is not self.terminator]
        self.only: set[Operation] | None = None  # when set, emit only these ops

    def bound(self, v: SSAValue) -> bool:
        inside = (v.owner is self.block if isinstance(v, BlockArgument)
                  else isinstance(v.owner, Operation) and v.owner.parent_block() is self.block)
        return not inside or v in self.mapping

    def enter(self, b: Builder, ivs: list[SSAValue]) -> None:
        """The loops of the first len(ivs) arguments are open: emit what now can be."""
        self.mapping.update(zip(self.order, ivs))
        waiting = []
        for op in self.pending:
            if (self.only is None or op in self.only) and all(self.bound(v) for v in op.operands):
                self.lowering.emit(b, op, self.mapping)
            else:
                waiting.append(op)
        self.pending = waiting

    def value(self, v: SSAValue) -> SSAValue:
        return self.mapping.get(v, v)

    def vector_tile(self, b: Builder, row: BlockArgument | None, rows: list[SSAValue], lane0: list[SSAValue],
                    vt: VectorType) -> list[SSAValue]:
        """The yielded value at each row of `rows` (the values of argument `row`; None:
        the row is bound already) and each w-lane slice starting at `lane0` of the
        last (innermost, unbound) loop, row-major. What depends on the last loop is
        built on vectors (its loads along it, see schedule.vector_width), the rest
        as scalars, each once per row, or once if it ignores the row."""
        last = self.order[-1]
        on_row = _dependents(row) if row is not None else set()
        on_lane = _dependents(last)
        memo: dict[tuple[SSAValue, int | None, int | None], SSAValue] = {}
        contract = arith.FastMathFlagsAttr([arith.FastMathFlag.ALLOW_CONTRACT])

        def get(v: SSAValue, r: int, c: int) -> SSAValue:
            if v is row:
                return rows[r]
            if v is last:
                return lane0[c]
            if (v in self.mapping and v not in on_row) or not _inside(v, self.block):
                return self.mapping.get(v, v)
            key = (v, r if v in on_row else None, c if v in on_lane else None)
            if key not in memo:
                memo[key] = build(v, r, c)
            return memo[key]

        def vec(v: SSAValue, r: int, c: int) -> SSAValue:
            x = get(v, r, c)
            return x if isinstance(x.type, VectorType) else self.lowering.once(b, vector.BroadcastOp, x, vt)

        def build(v: SSAValue, r: int, c: int) -> SSAValue:
            op = v.owner
            assert isinstance(op, Operation)
            if v not in on_lane or isinstance(v.type, IndexType):  # a scalar (an index: of the slice's lane 0)
                local = {o: get(o, r, c) for o in op.operands}
                self.lowering.emit(b, op, local)
                return local[v]
            if isinstance(op, te.LoadOp):
                buf = self.lowering.buffers[op.tensor]
                at = self.lowering.linear(b, [get(i, r, c) for i in op.indices], buf.extents)
                return b.insert(vector.LoadOp(buf.memref, [at], vt)).result
            if isinstance(op, arith.NegfOp):
                return b.insert(arith.NegfOp(vec(op.operand, r, c))).result
            lhs, rhs = (vec(o, r, c) for o in op.operands)
            if isinstance(op, (arith.AddfOp, arith.SubfOp, arith.MulfOp)):
                return b.insert(type(op)(lhs, rhs, contract)).result
            return b.insert(type(op)(lhs, rhs)).results[0]

        assert isinstance(self.terminator, te.YieldOp)
        return [vec(self.terminator.value, r, c) for r in range(len(rows)) for c in range(len(lane0))]

    def result(self) -> SSAValue:
        """The value a te.yield yields."""
        assert isinstance(self.terminator, te.YieldOp)
        return self.value(self.terminator.value)


def _identity(kind: str, t: Attribute) -> IntegerAttr | FloatAttr:
    """The value a reduction of `kind` starts from."""
    from transforms.lower_aten_to_tensorexpr.scalars import is_float

    if kind == "add":
        return scalar_attr(0, t)
    if kind == "mul":
        return scalar_attr(1, t)
    if not is_float(t) and t.width.data == 1:  # type: ignore[attr-defined]
        return scalar_attr(kind == "min", t)  # bool: false < true (unsigned), min is all, max any
    big = float("inf") if is_float(t) else (2 ** (t.width.data - 1) - 1)  # type: ignore[attr-defined]
    return scalar_attr(-big if kind == "max" else big, t) if is_float(t) else scalar_attr(-big - 1 if kind == "max" else big, t)


def _combine(b: Builder, kind: str, acc: SSAValue, x: SSAValue, *, reassociate: bool = False,
             contract: bool = False) -> SSAValue:
    """acc (+, *, max, min) x; `reassociate` lets LLVM vectorize a float sum
    (it changes the order of additions, within rounding); `contract` lets it fuse
    a multiply into the add (an FMA: one rounding instead of two)."""
    from transforms.lower_aten_to_tensorexpr.scalars import is_float

    t = acc.type
    f = is_float(t.element_type if isinstance(t, VectorType) else t)
    if f and (reassociate or contract) and kind in ("add", "mul"):
        flags = arith.FastMathFlagsAttr([arith.FastMathFlag.REASSOC, arith.FastMathFlag.ALLOW_CONTRACT]
                                        if reassociate else [arith.FastMathFlag.ALLOW_CONTRACT])
        return b.insert((arith.AddfOp if kind == "add" else arith.MulfOp)(acc, x, flags)).result
    boolean = not f and (t.element_type if isinstance(t, VectorType) else t).width.data == 1  # type: ignore[attr-defined]
    op = {
        "add": arith.AddfOp if f else arith.AddiOp,
        "mul": arith.MulfOp if f else arith.MuliOp,
        "max": arith.MaximumfOp if f else arith.MaxUIOp if boolean else arith.MaxSIOp,
        "min": arith.MinimumfOp if f else arith.MinUIOp if boolean else arith.MinSIOp,
    }[kind]
    return b.insert(op(acc, x)).results[0]
