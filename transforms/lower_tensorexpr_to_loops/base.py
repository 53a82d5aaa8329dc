"""The nest builder every family of lower-tensorexpr-to-loops builds with.

Every tensor becomes a flat buffer (`memref<?xf32>`, row-major) indexed by explicit
`index` arithmetic, so the memref-to-pointer lowering only ever sees 1-d accesses
whatever the symbolic shape. A buffer whose extent is computed from data (te.compact's
count) is sized by a bound built from the sizes, so that buffers, and the arenas of
plan-memory, are sized before the data is known.
The loops follow the schedule's attributes: `te.order` (loop order) and
`te.parallel` (the outermost loop becomes an scf.parallel).
The output is what canonicalize and CSE would leave of it: each constant once, at
the top of the function; index arithmetic folded (x + 0, x * 1, constants); a pure
op that a block already computes (a load's and a store's linear index, a register
tile's broadcast) reused. The pipeline runs no canonicalize after this pass.
The accumulation of reductions, scans and scatters (`_combine`, from `_identity`)
is here too: three families share it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    TensorType,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from dialects import tensorexpr as te
from transforms.constant_pool import ConstantPool
from transforms.lower_aten_to_tensorexpr.scalars import LoweringError, is_float, scalar_attr


def buffer_type(t: Attribute) -> MemRefType:
    if not isinstance(t, TensorType):
        raise LoweringError(
            f"lower-tensorexpr-to-loops: arguments and results must be tensors or index "
            f"size symbols, got {t}"
        )
    return MemRefType(t.get_element_type(), [DYNAMIC_INDEX])


@dataclass
class _Buffer:
    memref: SSAValue
    extents: list[SSAValue]


class NestBuilder:
    """One function being lowered: the buffer and the value of every te value, and
    the builders of buffers, index arithmetic and loop nests. The pass's `run`
    (in `__init__`) binds the rest as it builds the new signature."""

    b: Builder  # at the end of the new function's block
    constants: ConstantPool
    computed: dict[tuple[object, ...], SSAValue]  # see `once`
    zero: SSAValue
    one: SSAValue
    status: BlockArgument
    num_threads: BlockArgument
    weight_args: dict[str, BlockArgument]
    destination: dict[SSAValue, SSAValue]  # a returned te result -> its output buffer

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.values: dict[SSAValue, SSAValue] = {}  # scalars and indices
        self.buffers: dict[SSAValue, _Buffer] = {}
        self.temporaries: list[SSAValue] = []
        self.bounds: dict[SSAValue, SSAValue] = {}  # data-dependent extents (te.compact's count) -> bound

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

    def fail(self, b: Builder, code: SSAValue) -> None:
        """An index check's failure: status = code unless something failed before (the first
        failure is reported; an assertion's, `lower_check`, overrides it)."""
        before = b.insert(memref.LoadOp.get(self.status, [self.zero])).res
        zero = b.insert(arith.ConstantOp(IntegerAttr(0, i32))).result
        clean = b.insert(arith.CmpiOp(before, zero, "eq")).result
        b.insert(memref.StoreOp.get(b.insert(arith.SelectOp(clean, code, before)).result, self.status, [self.zero]))

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
        if isinstance(owner, arith.SelectOp):  # either side: the larger bound
            return self.b.insert(arith.MaxSIOp(self.bound(owner.lhs), self.bound(owner.rhs))).results[0]
        raise LoweringError(f"lower-tensorexpr-to-loops: no bound for the data-dependent extent {extent} ({owner.name})")

    def _depends_on_data(self, v: SSAValue) -> bool:
        if v in self.bounds:
            return True
        owner = v.owner
        return isinstance(owner, Operation) and owner.dialect_name() == "arith" and any(
            self._depends_on_data(o) for o in owner.operands)

    def copy(self, src: _Buffer, dst: SSAValue) -> None:
        n = self.numel(self.b, src.extents)

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            x = b.insert(memref.LoadOp.get(src.memref, ivs)).res
            b.insert(memref.StoreOp.get(x, dst, ivs))

        self.nest(self.b, [n], body)

    def extents(self, op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> list[SSAValue]:
        return [self.values[e] for e in op.extents]


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


def _identity(kind: str, t: Attribute) -> IntegerAttr | FloatAttr:
    """The value a reduction of `kind` starts from."""
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
