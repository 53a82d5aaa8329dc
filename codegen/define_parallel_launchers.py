"""Give each parallel launcher (declared by outline-parallel-loops) its body: GOMP_parallel.

`@f_par0_launch(num_threads, lb, ub, args...)`, marked `codegen.launch = @f_par0` and
`codegen.min_chunk = K`, becomes

    teams = pipeline_team_size(num_threads, ub - lb, K, &f_par0_serial_left)
    if teams <= 1: f_par0(lb, ub, args...)                 -- no thread wakes up
    else: ctx = [0, lb, ub, args...] on the stack
          pipeline_run_team(@f_par0_task, &ctx, teams, &f_par0_serial_left, &f_par0_backoff)

and `@f_par0_task(ctx)` runs on each of the `teams` threads: it reads ctx, asks
`pipeline_share` for the thread's contiguous share [lo, hi) of [lb, ub)
(omp_get_thread_num / _num_threads: a static schedule, the same split on every
call), calls `f_par0(lo, hi, args...)` and `pipeline_master_time`. GOMP_parallel
returns when every thread is done, so the loop ends where it did.

A launcher marked `codegen.exported` (its callers are in another part of a split
module, see codegen.split_module) keeps external linkage; the others become internal.

The four `pipeline_*` functions are defined once per module and never inlined:
what each loop needs of its own is only the packing of its arguments (before, each
launcher and task held its own copy of the logic: 45 % of MACE's optimized IR).
`pipeline_team_size`: min(num_threads, or omp_get_max_threads() when it is 0, and
ceil(n / K)), 1 while the loop runs serially for a while (below).

A team only pays when its threads have cores. On a busy machine (an MPI rank per
core, other jobs) a woken thread may wait a scheduler time slice, milliseconds, for
a region of microseconds: calls ran 250x slower. So each region measures itself:
the master's share is timed (`llvm.readcyclecounter`, kept in ctx[0]) and, when the
whole region took longer than `teams` times that share (the serial estimate: running
alone would have been faster), the next `backoff` regions of this loop run serially,
`backoff` doubling on each failed try up to MAX_BACKOFF and back to 1 once a team
pays again. The counters are internal globals, one pair per launcher; they only steer
the choice of serial or parallel, never the result (the same split and order either
way).

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

from codegen.split_module import EXPORTED

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


def _function(name: str, inputs: list[Attribute], output: Attribute | None, blocks: list[Block]) -> llvm.FuncOp:
    fn = llvm.FuncOp(name, llvm.LLVMFunctionType(inputs, output or llvm.LLVMVoidType()),
                     linkage=llvm.LinkageAttr("internal"), body=Region(blocks))
    fn.attributes["codegen.noinline"] = builtin.UnitAttr()
    return fn


def _team_size() -> llvm.FuncOp:
    """pipeline_team_size(num_threads, n, min_chunk, serial_left) -> teams (1: serial)."""
    entry, check, skip, serial, team = Block(arg_types=[_I64, _I64, _I64, _PTR]), Block(), Block(), Block(), Block()
    threads, n, chunk, serial_left = entry.args
    for arg, name in zip(entry.args, ("num_threads", "n", "min_chunk", "serial_left")):
        _name(arg, name)
    e = _Emit(entry)
    default = e.op(llvm.SExtOp(e.call("omp_get_max_threads", [], _I32), _I64))
    asked = e.select(e.icmp("sgt", threads, e.const(0)), threads, default)
    teams = _name(e.min(asked, e.ceil_div(n, chunk)), "teams")
    e.op(llvm.CondBrOp(e.icmp("sle", teams, e.const(1)), serial, [], check, []))
    c = _Emit(check)  # serial for now: a team recently did not pay
    left = _name(c.op(llvm.LoadOp(serial_left, _I64)), "left")
    c.op(llvm.CondBrOp(c.icmp("sgt", left, c.const(0)), skip, [], team, []))
    k = _Emit(skip)
    k.op(llvm.StoreOp(k.op(llvm.SubOp(left, k.const(1))), serial_left))
    k.op(llvm.BrOp(serial))
    one = _Emit(serial)
    one.op(llvm.ReturnOp(one.const(1)))
    _Emit(team).op(llvm.ReturnOp(teams))
    return _function("pipeline_team_size", [_I64, _I64, _I64, _PTR], _I64, [entry, check, skip, serial, team])


def _run_team() -> llvm.FuncOp:
    """pipeline_run_team(task, ctx, teams, serial_left, backoff): GOMP_parallel, timed
    against teams x the master's share (ctx[0]); a team that did not pay sets backoff."""
    entry, slow, paid = Block(arg_types=[_PTR, _PTR, _I64, _PTR, _PTR]), Block(), Block()
    task, ctx, teams, serial_left, backoff = entry.args
    for arg, name in zip(entry.args, ("task", "ctx", "teams", "serial_left", "backoff")):
        _name(arg, name)
    t = _Emit(entry)
    start = _name(t.cycles(), "start")
    t.call("GOMP_parallel", [task, ctx, t.op(llvm.TruncOp(teams, _I32)), t.const(0, _I32)])
    took = _name(t.op(llvm.SubOp(t.cycles(), start)), "took")
    share = _name(t.op(llvm.LoadOp(ctx, _I64)), "master_share")
    t.op(llvm.CondBrOp(t.icmp("sgt", took, t.op(llvm.MulOp(share, teams))), slow, [], paid, []))
    w = _Emit(slow)  # the team cost more than running alone: serial for a while
    doubled = w.op(llvm.ShlOp(w.op(llvm.LoadOp(backoff, _I64)), w.const(1)))
    wait = w.min(w.select(w.icmp("sgt", doubled, w.const(0)), doubled, w.const(1)), w.const(MAX_BACKOFF))
    w.op(llvm.StoreOp(wait, backoff))
    w.op(llvm.StoreOp(wait, serial_left))
    w.op(llvm.ReturnOp())
    p = _Emit(paid)
    p.op(llvm.StoreOp(p.const(0), backoff))
    p.op(llvm.ReturnOp())
    return _function("pipeline_run_team", [_PTR, _PTR, _I64, _PTR, _PTR], None, [entry, slow, paid])


def _share() -> llvm.FuncOp:
    """pipeline_share(lb, ub, range): this thread's [lo, hi) of [lb, ub) into range[0, 1]."""
    block = Block(arg_types=[_I64, _I64, _PTR])
    lb, ub, out = block.args
    for arg, name in zip(block.args, ("lb", "ub", "range")):
        _name(arg, name)
    b = _Emit(block)
    me = b.op(llvm.SExtOp(b.call("omp_get_thread_num", [], _I32), _I64))
    team_size = b.op(llvm.SExtOp(b.call("omp_get_num_threads", [], _I32), _I64))
    share = b.ceil_div(b.op(llvm.SubOp(ub, lb)), team_size)
    lo = _name(b.min(b.op(llvm.AddOp(lb, b.op(llvm.MulOp(me, share)))), ub), "lo")
    hi = _name(b.min(b.op(llvm.AddOp(lo, share)), ub), "hi")
    b.op(llvm.StoreOp(lo, out))
    b.op(llvm.StoreOp(hi, b.op(llvm.GEPOp(out, [1], _I64))))
    b.op(llvm.ReturnOp())
    return _function("pipeline_share", [_I64, _I64, _PTR], None, [block])


def _master_time() -> llvm.FuncOp:
    """pipeline_master_time(began, ctx): the master's share time into ctx[0]."""
    block, master, other = Block(arg_types=[_I64, _PTR]), Block(), Block()
    began, ctx = block.args
    _name(began, "began"), _name(ctx, "ctx")
    b = _Emit(block)
    elapsed = _name(b.op(llvm.SubOp(b.cycles(), began)), "elapsed")
    me = b.call("omp_get_thread_num", [], _I32)
    b.op(llvm.CondBrOp(b.icmp("eq", me, b.const(0, _I32)), master, [], other, []))
    _Emit(master).op(llvm.StoreOp(elapsed, ctx))
    _Emit(master).op(llvm.ReturnOp())
    _Emit(other).op(llvm.ReturnOp())
    return _function("pipeline_master_time", [_I64, _PTR], None, [block, master, other])


SHARED = (_team_size, _run_team, _share, _master_time)
"""The functions every launcher and task calls, defined once per module."""


class DefineParallelLaunchersPass(ModulePass):
    name = "define-parallel-launchers"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        launchers = [f for f in op.ops if isinstance(f, llvm.FuncOp) and "codegen.launch" in f.attributes]
        if not launchers:
            return
        for name in RUNTIME:
            _declare(op, name)
        for make in SHARED:
            op.body.block.add_op(make())
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
        fields = inputs[1:]  # lb, ub, args...: one 8-byte slot each, after the master's time
        for t in fields:
            if _stored_type(t) is None:
                raise DiagnosticException(f"codegen: launcher @{launcher.sym_name.data}: cannot pass a {t}")
        # named after the launcher: a loop may have two (merge-identical-functions)
        stem = launcher.sym_name.data.removesuffix("_launch")
        task_name = f"{stem}_task"

        # the launcher: run in place, or pack the context and start the team
        serial_left, backoff = f"{stem}_serial_left", f"{stem}_backoff"
        for name in (serial_left, backoff):
            module.body.block.add_op(llvm.GlobalOp(_I64, name, "internal", value=builtin.IntegerAttr(0, _I64)))
        entry, serial, team = Block(arg_types=inputs), Block(), Block()
        threads, lb, ub, *args = entry.args
        _name(threads, "num_threads"), _name(lb, "lb"), _name(ub, "ub")
        e = _Emit(entry)
        n = _name(e.op(llvm.SubOp(ub, lb)), "n")
        counters = [e.op(llvm.AddressOfOp(name, _PTR)) for name in (serial_left, backoff)]
        teams = _name(e.call("pipeline_team_size", [threads, n, e.const(max(1, chunk.value.data)), counters[0]], _I64),
                      "teams")
        e.op(llvm.CondBrOp(e.icmp("sle", teams, e.const(1)), serial, [], team, []))
        s = _Emit(serial)
        s.call(body_name, [lb, ub, *args])
        s.op(llvm.ReturnOp())
        t = _Emit(team)
        ctx = _name(t.op(llvm.AllocaOp(t.const(len(fields) + 1), _I64, alignment=8)), "ctx")
        for k_, v in enumerate([lb, ub, *args]):
            st = _stored_type(v.type)
            if isinstance(v.type, llvm.LLVMPointerType):
                v = t.op(llvm.PtrToIntOp(v, _I64))
            elif st != v.type:
                v = t.op(llvm.ZExtOp(v, st))
            t.op(llvm.StoreOp(v, t.op(llvm.GEPOp(ctx, [_slot_index(k_ + 1, st)], st))))
        t.call("pipeline_run_team", [t.op(llvm.AddressOfOp(task_name, _PTR)), ctx, teams, *counters])
        t.op(llvm.ReturnOp())
        for block in (entry, serial, team):
            launcher.body.add_block(block)
        exported = launcher.attributes.pop(EXPORTED, None) is not None  # called from another part
        launcher.linkage = llvm.LinkageAttr("external" if exported else "internal")
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
            v = b.op(llvm.LoadOp(b.op(llvm.GEPOp(block.args[0], [_slot_index(k + 1, st)], st)), st))
            if isinstance(ft, llvm.LLVMPointerType):
                v = b.op(llvm.IntToPtrOp(v))
            elif st != ft:
                v = b.op(llvm.TruncOp(v, ft))
            values.append(v)
        lb, ub, *args = values
        _name(lb, "lb"), _name(ub, "ub")
        span = _name(b.op(llvm.AllocaOp(b.const(2), _I64, alignment=8)), "range")
        b.call("pipeline_share", [lb, ub, span])
        lo = _name(b.op(llvm.LoadOp(span, _I64)), "lo")
        hi = _name(b.op(llvm.LoadOp(b.op(llvm.GEPOp(span, [1], _I64)), _I64)), "hi")
        b.op(llvm.CondBrOp(b.icmp("slt", lo, hi), work, [], done, []))
        w = _Emit(work)
        began = w.cycles()
        w.call(body_name, [lo, hi, *args])
        w.call("pipeline_master_time", [began, block.args[0]])
        w.op(llvm.ReturnOp())
        _Emit(done).op(llvm.ReturnOp())
        task_fn = llvm.FuncOp(task_name, llvm.LLVMFunctionType([_PTR], llvm.LLVMVoidType()),
                              linkage=llvm.LinkageAttr("internal"), body=Region([block, work, done]))
        module.body.block.add_op(task_fn)
