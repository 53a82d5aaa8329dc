"""Give each parallel launcher (declared by outline-parallel-loops) its body: GOMP_parallel.

`@f_par0_launch(num_threads, lb, ub, args...)`, marked `codegen.launch = @f_par0` and
`codegen.min_chunk = K`, becomes

    n = ub - lb;  teams = min(num_threads or omp_get_max_threads(), ceil(n / K))
    if teams <= 1: f_par0(lb, ub, args...)                 -- no thread wakes up
    else: ctx = [lb, ub, args...] on the stack
          GOMP_parallel(@f_par0_task, &ctx, teams, 0)

and `@f_par0_task(ctx)` runs on each of the `teams` threads: it reads ctx, takes the
thread's contiguous share [lo, hi) of [lb, ub) (omp_get_thread_num / _num_threads:
a static schedule, the same split on every call) and calls `f_par0(lo, hi, args...)`.
GOMP_parallel returns when every thread is done, so the loop ends where it did.

A team only pays when its threads have cores. On a busy machine (an MPI rank per
core, other jobs) a woken thread may wait a scheduler time slice, milliseconds, for
a region of microseconds: calls ran 250x slower. So each launcher measures itself:
the master's share is timed (`llvm.readcyclecounter`) and, when the whole region
took longer than `teams` times that share (the serial estimate: running alone would
have been faster), the next `backoff` regions of this loop run serially, `backoff`
doubling on each failed try up to MAX_BACKOFF and back to 1 once a team pays again.
The counters are internal globals, one pair per loop; they only steer the choice
of serial or parallel, never the result (the same split and order either way).

The runtime is GCC's libgomp (`GOMP_parallel` is the entry point GCC emits for
`#pragma omp parallel`): the JIT shares the copy torch loads, an exported library
links it. Runs on the llvm dialect, after convert-func-to-llvm, where every argument
is a plain LLVM value that fits in an 8-byte slot of the context.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, llvm
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

_I32 = builtin.i32
_I64 = builtin.i64
_PTR = llvm.LLVMPointerType()

MAX_BACKOFF = 1024  # regions run serially after repeated failed tries of a team

RUNTIME = {
    "GOMP_parallel": ([_PTR, _PTR, _I32, _I32], None),
    "omp_get_thread_num": ([], _I32),
    "omp_get_num_threads": ([], _I32),
    "omp_get_max_threads": ([], _I32),
}
"""libgomp's functions the launchers call: (argument types, result type)."""


class _Emit:
    """Appends llvm ops to a block; each helper returns the result value."""

    def __init__(self, block: Block):
        self.block = block

    def op(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: int, t: Attribute = _I64) -> SSAValue:
        return self.op(llvm.ConstantOp(builtin.IntegerAttr(value, t), t))

    def icmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(llvm.ICmpOp(a, b, builtin.IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), _I64)))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(llvm.SelectOp(cond, a, b))

    def min(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.select(self.icmp("slt", a, b), a, b)

    def call(self, name: str, args: list[SSAValue], result: Attribute | None = None) -> SSAValue:
        return self.op(llvm.CallOp(name, *args, return_type=result))

    def cycles(self) -> SSAValue:
        return self.op(llvm.CallIntrinsicOp("llvm.readcyclecounter", [], [_I64]))

    def load_global(self, name: str) -> SSAValue:
        return self.op(llvm.LoadOp(self.op(llvm.AddressOfOp(name, _PTR)), _I64))

    def store_global(self, value: SSAValue, name: str) -> None:
        self.op(llvm.StoreOp(value, self.op(llvm.AddressOfOp(name, _PTR))))

    def ceil_div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(llvm.SDivOp(self.op(llvm.AddOp(a, self.op(llvm.SubOp(b, self.const(1))))), b))


def _name(v: SSAValue, hint: str) -> SSAValue:
    v.name_hint = hint
    return v


def _stored_type(t: Attribute) -> Attribute | None:
    """How a value of type t is kept in its 8-byte slot of the context: pointers and
    narrow integers as i64 (llvmlite's typed GEP mistypes pointers to pointers, and
    structs' fields: hence slots), floats as they are; None if it does not fit."""
    if isinstance(t, llvm.LLVMPointerType) or (isinstance(t, builtin.IntegerType) and t.width.data <= 64):
        return _I64
    if t in (builtin.f32, builtin.f64):
        return t
    return None


def _slot_index(k: int, stored: Attribute) -> int:
    """Slot k of the context as an index in elements of the stored type."""
    return 2 * k if stored == builtin.f32 else k


def _declare(module: builtin.ModuleOp, name: str) -> None:
    if any(isinstance(o, llvm.FuncOp) and o.sym_name.data == name for o in module.ops):
        return
    inputs, output = RUNTIME[name]
    module.body.block.add_op(llvm.FuncOp(
        name, llvm.LLVMFunctionType(inputs, output or llvm.LLVMVoidType()), linkage=llvm.LinkageAttr("external")))


class DefineParallelLaunchersPass(ModulePass):
    name = "define-parallel-launchers"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        launchers = [f for f in op.ops if isinstance(f, llvm.FuncOp) and "codegen.launch" in f.attributes]
        if not launchers:
            return
        for name in RUNTIME:
            _declare(op, name)
        for launcher in launchers:
            self.define(op, launcher)

    def define(self, module: builtin.ModuleOp, launcher: llvm.FuncOp) -> None:
        target = launcher.attributes["codegen.launch"]
        chunk = launcher.attributes.get("codegen.min_chunk")
        assert isinstance(target, builtin.SymbolRefAttr) and isinstance(chunk, builtin.IntegerAttr)
        body_name = target.string_value()
        inputs = list(launcher.function_type.inputs.data)
        if len(inputs) < 3 or any(t != _I64 for t in inputs[:3]):
            raise DiagnosticException(
                f"codegen: launcher @{launcher.sym_name.data} must take (i64 threads, i64 lb, i64 ub, ...), "
                "after convert-index-to-i64")
        fields = inputs[1:]  # lb, ub, args...: one 8-byte slot each
        for t in fields:
            if _stored_type(t) is None:
                raise DiagnosticException(f"codegen: launcher @{launcher.sym_name.data}: cannot pass a {t}")
        task_name = f"{body_name}_task"

        # the launcher: run in place, or pack the context and start the team
        serial_left, backoff = f"{body_name}_serial_left", f"{body_name}_backoff"
        for name in (serial_left, backoff):
            module.body.block.add_op(llvm.GlobalOp(_I64, name, "internal", value=builtin.IntegerAttr(0, _I64)))
        entry, check, skip, serial, team, slow, paid = (Block(arg_types=inputs), *(Block() for _ in range(6)))
        threads, lb, ub, *args = entry.args
        _name(threads, "num_threads"), _name(lb, "lb"), _name(ub, "ub")
        e = _Emit(entry)
        n = _name(e.op(llvm.SubOp(ub, lb)), "n")
        default = e.op(llvm.SExtOp(e.call("omp_get_max_threads", [], _I32), _I64))
        asked = e.select(e.icmp("sgt", threads, e.const(0)), threads, default)
        teams = _name(e.min(asked, e.ceil_div(n, e.const(max(1, chunk.value.data)))), "teams")
        e.op(llvm.CondBrOp(e.icmp("sle", teams, e.const(1)), serial, [], check, []))
        c = _Emit(check)  # serial for now: a team recently did not pay
        left = _name(c.load_global(serial_left), "serial_left")
        c.op(llvm.CondBrOp(c.icmp("sgt", left, c.const(0)), skip, [], team, []))
        k = _Emit(skip)
        k.store_global(k.op(llvm.SubOp(left, k.const(1))), serial_left)
        k.op(llvm.BrOp(serial))
        s = _Emit(serial)
        s.call(body_name, [lb, ub, *args])
        s.op(llvm.ReturnOp())
        t = _Emit(team)
        start = _name(t.cycles(), "start")
        ctx = _name(t.op(llvm.AllocaOp(t.const(len(fields) + 1), _I64, alignment=8)), "ctx")
        for k_, v in enumerate([lb, ub, *args]):
            st = _stored_type(v.type)
            if isinstance(v.type, llvm.LLVMPointerType):
                v = t.op(llvm.PtrToIntOp(v, _I64))
            elif st != v.type:
                v = t.op(llvm.ZExtOp(v, st))
            t.op(llvm.StoreOp(v, t.op(llvm.GEPOp(ctx, [_slot_index(k_, st)], st))))
        task = t.op(llvm.AddressOfOp(task_name, _PTR))
        t.call("GOMP_parallel", [task, ctx, t.op(llvm.TruncOp(teams, _I32)), t.const(0, _I32)])
        took = _name(t.op(llvm.SubOp(t.cycles(), start)), "took")
        share = _name(t.op(llvm.LoadOp(t.op(llvm.GEPOp(ctx, [len(fields)], _I64)), _I64)), "master_share")
        alone = t.op(llvm.MulOp(share, teams))
        t.op(llvm.CondBrOp(t.icmp("sgt", took, alone), slow, [], paid, []))
        w = _Emit(slow)  # the team cost more than running alone: serial for a while
        doubled = w.op(llvm.ShlOp(w.load_global(backoff), w.const(1)))
        wait = w.min(w.select(w.icmp("sgt", doubled, w.const(0)), doubled, w.const(1)), w.const(MAX_BACKOFF))
        w.store_global(wait, backoff)
        w.store_global(wait, serial_left)
        w.op(llvm.ReturnOp())
        p = _Emit(paid)
        p.store_global(p.const(0), backoff)
        p.op(llvm.ReturnOp())
        for block in (entry, check, skip, serial, team, slow, paid):
            launcher.body.add_block(block)
        launcher.linkage = llvm.LinkageAttr("internal")
        for key in ("codegen.launch", "codegen.min_chunk"):
            del launcher.attributes[key]

        # the task: this thread's share of [lb, ub)
        block, work, done = Block(arg_types=[_PTR]), Block(), Block()
        _name(block.args[0], "ctx")
        b = _Emit(block)
        values = []
        for k, ft in enumerate(fields):
            st = _stored_type(ft)
            assert st is not None
            v = b.op(llvm.LoadOp(b.op(llvm.GEPOp(block.args[0], [_slot_index(k, st)], st)), st))
            if isinstance(ft, llvm.LLVMPointerType):
                v = b.op(llvm.IntToPtrOp(v))
            elif st != ft:
                v = b.op(llvm.TruncOp(v, ft))
            values.append(v)
        lb, ub, *args = values
        _name(lb, "lb"), _name(ub, "ub")
        me = b.op(llvm.SExtOp(b.call("omp_get_thread_num", [], _I32), _I64))
        team_size = b.op(llvm.SExtOp(b.call("omp_get_num_threads", [], _I32), _I64))
        share = b.ceil_div(b.op(llvm.SubOp(ub, lb)), team_size)
        lo = _name(b.min(b.op(llvm.AddOp(lb, b.op(llvm.MulOp(me, share)))), ub), "lo")
        hi = _name(b.min(b.op(llvm.AddOp(lo, share)), ub), "hi")
        b.op(llvm.CondBrOp(b.icmp("slt", lo, hi), work, [], done, []))
        w = _Emit(work)
        began = w.cycles()
        w.call(body_name, [lo, hi, *args])
        elapsed = w.op(llvm.SubOp(w.cycles(), began))
        master, store = Block(), Block()
        w.op(llvm.CondBrOp(w.icmp("eq", me, w.const(0)), master, [], store, []))
        m = _Emit(master)  # the master's share time, for the launcher's check
        m.op(llvm.StoreOp(elapsed, m.op(llvm.GEPOp(block.args[0], [len(fields)], _I64))))
        m.op(llvm.ReturnOp())
        _Emit(store).op(llvm.ReturnOp())
        _Emit(done).op(llvm.ReturnOp())
        task_fn = llvm.FuncOp(task_name, llvm.LLVMFunctionType([_PTR], llvm.LLVMVoidType()),
                              linkage=llvm.LinkageAttr("internal"), body=Region([block, work, master, store, done]))
        module.body.block.add_op(task_fn)
