"""profile-loops: time every top-level loop nest of the loop-level function.

Only for profiling (`pipeline.compile(..., profile=True)`, `python -m pipeline run
--profile`): each top-level scf.for / scf.parallel is bracketed by calls of
`omp_get_wtime()` (libgomp's wall clock, in seconds) and the difference is added to
`profile[k]`, k the nest's position, in a new last argument `%profile: memref<?xf64>
{loops.profile}`. The function attribute `loops.profile_nests` describes nest k: its
loops' extents, outermost first, and the buffers it stores to.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    f64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

CLOCK = "omp_get_wtime"


def _text(v: SSAValue) -> str:
    if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, IntegerAttr):
        return str(v.owner.value.value.data)
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
            start = func.CallOp(CLOCK, [], [f64])
            Rewriter.insert_op(start, InsertPoint.before(nest))
            stop = func.CallOp(CLOCK, [], [f64])
            at = arith.ConstantOp(IntegerAttr(k, IndexType()))
            spent = arith.SubfOp(stop.res[0], start.res[0])
            old = memref.LoadOp.get(profile, [at.result])
            new = arith.AddfOp(old.res, spent.result)
            for o in reversed([stop, at, spent, old, new, memref.StoreOp.get(new.result, profile, [at.result])]):
                Rewriter.insert_op(o, InsertPoint.after(nest))
        fn.attributes["loops.profile_nests"] = ArrayAttr([StringAttr(describe(n)) for n in nests])
