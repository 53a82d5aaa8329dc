"""profile-loops: time every top-level loop nest of the loop-level function.

Only for profiling (`pipeline.compile(..., profile=True)`, `python -m pipeline run
--profile`): each top-level scf.for / scf.parallel is bracketed by calls of
`omp_get_wtime()` (libgomp's wall clock, in seconds) and the difference is added to
`profile[k]`, k the nest's position, in a new last argument `%profile: memref<?xf64>
{loops.profile}` of 2 x nests slots; `profile[nests + k]` accumulates the nest's
floating-point operations, computed before it from its loops' trip counts: every
float add, sub, mul, div and math function counts one per lane (an FMA two), times
the trip counts of the loops around it (conditional code counts as if it ran; the
team loop of a partitioned scatter, `loops.partition`, once). The function
attribute `loops.profile_nests` describes nest k: its loops' extents, outermost
first, and the buffers it stores to; `loops.profile_dtypes` its widest float type
("f64", "f32", or "" without float arithmetic), for the peak it is measured against.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, func, math, memref, scf, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    VectorType,
    f64,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te

CLOCK = "omp_get_wtime"
FLOPS = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp)


def _text(v: SSAValue) -> str:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return str(owner.value.value.data)
    if not v.name_hint and isinstance(owner, (arith.DivUIOp, arith.RemUIOp, arith.MuliOp)):
        sign = {arith.DivUIOp: "/", arith.RemUIOp: "%", arith.MuliOp: "*"}[type(owner)]
        return f"{_text(owner.lhs)}{sign}{_text(owner.rhs)}"  # tiles of rows: N/4, N%4
    return v.name_hint or "?"


def describe(nest: Operation) -> str:
    """`N x 64 -> out1`: the extents of the loops down the first chain, and the
    buffers stored to."""
    extents = []
    op: Operation | None = nest
    while isinstance(op, (scf.ForOp, scf.ParallelOp)):
        extents.append(_text(op.ub if isinstance(op, scf.ForOp) else op.upperBound[0]))
        op = next((o for o in op.body.block.ops if isinstance(o, (scf.ForOp, scf.ParallelOp))), None)
    stored = dict.fromkeys(_text(o.operands[1]) if o.operands[1].name_hint else "a temporary"
                           for o in nest.walk() if isinstance(o, (memref.StoreOp, vector.StoreOp)))
    return f"{' x '.join(extents)} -> {', '.join(stored) or 'nothing'}"


class ProfileLoopsPass(ModulePass):
    name = "profile-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        timed = False
        for fn in list(op.ops):
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                self.instrument(fn)
                timed = True
        if timed and not any(isinstance(f, func.FuncOp) and f.sym_name.data == CLOCK for f in op.ops):
            op.body.block.add_op(func.FuncOp.external(CLOCK, [], [f64]))

    def instrument(self, fn: func.FuncOp) -> None:
        block = fn.body.block
        profile = block.insert_arg(MemRefType(f64, [DYNAMIC_INDEX]), len(block.args))
        profile.name_hint = "profile"
        attrs = list(fn.arg_attrs.data) if fn.arg_attrs else [DictionaryAttr({})] * (len(block.args) - 1)
        fn.arg_attrs = ArrayAttr(attrs + [DictionaryAttr({"loops.profile": UnitAttr()})])
        fn.function_type = func.FunctionType.from_lists([a.type for a in block.args], [])
        nests = [o for o in block.ops if isinstance(o, (scf.ForOp, scf.ParallelOp))]
        for k, nest in enumerate(nests):
            flops = _flops(nest)
            start = func.CallOp(CLOCK, [], [f64])
            Rewriter.insert_op(start, InsertPoint.before(nest))
            stop = func.CallOp(CLOCK, [], [f64])
            spent = arith.SubfOp(stop.res[0], start.res[0])
            after = [stop, spent, *_accumulate(profile, k, spent.result)]
            if flops is not None:
                after += _accumulate(profile, len(nests) + k, flops)
            for o in reversed(after):
                Rewriter.insert_op(o, InsertPoint.after(nest))
        fn.attributes["loops.profile_nests"] = ArrayAttr([StringAttr(describe(n)) for n in nests])
        fn.attributes["loops.profile_dtypes"] = ArrayAttr([StringAttr(_float_type(n)) for n in nests])
        if any(te.NESTS in n.attributes for n in nests):  # provenance: nest k computes te ops ...
            fn.attributes["loops.profile_members"] = ArrayAttr(
                [n.attributes.get(te.NESTS, DenseArrayBase.from_list(i64, [])) for n in nests])


def _float_type(nest: Operation) -> str:
    """The widest float type of the nest's arithmetic: "f64", "f32", or ""."""
    types = set()
    for o in nest.walk():
        if isinstance(o, FLOPS + (math.FmaOp,)):
            t = o.results[0].type
            types.add(str(t.element_type if isinstance(t, VectorType) else t))
    return "f64" if "f64" in types else "f32" if "f32" in types else ""


def _accumulate(profile: SSAValue, slot: int, value: SSAValue) -> list[Operation]:
    """profile[slot] += value."""
    at = arith.ConstantOp(IntegerAttr(slot, IndexType()))
    old = memref.LoadOp.get(profile, [at.result])
    new = arith.AddfOp(old.res, value)
    return [at, old, new, memref.StoreOp.get(new.result, profile, [at.result])]


def _flops(nest: Operation) -> SSAValue | None:
    """The nest's floating-point operations as an f64 computed before it (None: none)."""
    inside = set(nest.walk())
    cloned: dict[SSAValue, SSAValue] = {}

    def before(v: SSAValue) -> SSAValue | None:
        """`v` available before the nest: itself, or a clone of the pure index
        arithmetic (constants, products of sizes) it is computed by inside."""
        owner = v.owner
        if not isinstance(owner, Operation) or owner not in inside:
            return None if isinstance(owner, Block) and owner.parent_op() in inside else v
        if v in cloned:
            return cloned[v]
        if owner.dialect_name() != "arith" or len(owner.results) != 1:
            return None
        operands = [before(o) for o in owner.operands]
        if any(o is None for o in operands):
            return None
        clone = owner.clone(value_mapper=dict(zip(owner.operands, operands)))  # type: ignore[arg-type]
        Rewriter.insert_op(clone, InsertPoint.before(nest))
        cloned[v] = clone.results[0]
        return cloned[v]

    def trips(loop: Operation) -> SSAValue | None:
        if isinstance(loop, scf.ParallelOp) and "loops.partition" in loop.attributes:
            return None
        lb, ub, step = ((loop.lb, loop.ub, loop.step) if isinstance(loop, scf.ForOp)
                        else (loop.lowerBound[0], loop.upperBound[0], loop.step[0]))
        lb, ub, step = before(lb), before(ub), before(step)
        if lb is None or ub is None or step is None:
            return None
        return _insert(nest, arith.CeilDivUIOp(_insert(nest, arith.SubiOp(ub, lb)), step))

    total: SSAValue | None = None
    for o in nest.walk():
        count = 2 if isinstance(o, math.FmaOp) else 1 if isinstance(o, FLOPS) or (
            o.dialect_name() == "math" and o.results and not isinstance(o.results[0].type, IndexType)) else 0
        if not count:
            continue
        t = o.results[0].type
        lanes = _product(t.get_shape()) if isinstance(t, VectorType) else 1
        n = _insert(nest, arith.ConstantOp(IntegerAttr(count * lanes, IndexType())))
        parent = o.parent_op()
        while parent is not None and parent in inside:
            if isinstance(parent, (scf.ForOp, scf.ParallelOp)) and (trip := trips(parent)) is not None:
                n = _insert(nest, arith.MuliOp(n, trip))
            parent = parent.parent_op()
        total = n if total is None else _insert(nest, arith.AddiOp(total, n))
    if total is None:
        return None
    return _insert(nest, arith.SIToFPOp(_insert(nest, arith.IndexCastOp(total, i64)), f64))


def _insert(nest: Operation, op: Operation) -> SSAValue:
    Rewriter.insert_op(op, InsertPoint.before(nest))
    return op.results[0]


def _product(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
