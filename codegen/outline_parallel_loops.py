"""Outline each scf.parallel into a function over a range, called through a launcher.

    scf.parallel (%i) = (%lb) to (%ub) step (%s) { body(%i, %x, %buf) } {loops.min_chunk = 64}

becomes, in a function `@f`,

    func.call @f_par0_launch(%num_threads, %lb, %ub, %s, %x, %buf)

with `@f_par0(%lo, %hi, %s, %x, %buf)` running `scf.for %i = %lo to %hi step %s`
over the body, and `@f_par0_launch` only declared, marked `codegen.launch = @f_par0`
and `codegen.min_chunk`: `define-parallel-launchers` gives it its body once the
arguments are LLVM values (it packs them for the OpenMP runtime, which runs
`@f_par0` on each thread's share of [lb, ub)). Values the body uses from outside
become arguments (buffers stay separate noalias pointers, so the loop vectorizes as
before); constants are rematerialized inside, so strides stay known.

`%num_threads` is the function argument marked `loops.num_threads` (0, the OpenMP
default, if there is none). Runs first in `LOOPS_TO_LLVM`: scf-to-cf does not know
scf.parallel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, scf
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException


def captures(loop: Operation) -> list[SSAValue]:
    """Values defined outside `loop` and used inside it, in order of first use."""
    seen: dict[SSAValue, None] = {}
    for op in loop.body.walk():
        for v in op.operands:
            if not loop.is_ancestor(v.owner):
                seen.setdefault(v, None)
    return list(seen)


def function_block(leading: Sequence[Attribute], used: Iterable[SSAValue]
                   ) -> tuple[Block, list[SSAValue], dict[SSAValue, SSAValue]]:
    """The entry block of a function outlined from code that uses `used` (values from
    outside it): the `leading` arguments, then one per used value that is not a
    constant (returned, in order: what a call passes); constants are cloned into it,
    so strides stay known. The mapping takes each used value to its value inside."""
    used = list(dict.fromkeys(used))
    passed = [v for v in used if not isinstance(v.owner, arith.ConstantOp)]
    block = Block(arg_types=[*leading, *(v.type for v in passed)])
    mapping: dict[SSAValue, SSAValue] = dict(zip(passed, block.args[len(leading):]))
    for v, arg in mapping.items():
        arg.name_hint = v.name_hint
    for c in {v.owner: None for v in used if isinstance(v.owner, arith.ConstantOp)}:
        clone = c.clone()
        block.add_op(clone)
        mapping[c.result] = clone.result
    return block, passed, mapping


def remap(code: Operation | Block, mapping: dict[SSAValue, SSAValue]) -> None:
    """The operands of the ops in `code` that `mapping` names, replaced."""
    for inner in code.walk():
        if any(v in mapping for v in inner.operands):
            inner.operands = [mapping.get(v, v) for v in inner.operands]


def _num_threads(fn: func.FuncOp, b: Block) -> SSAValue:
    attrs = fn.arg_attrs.data if fn.arg_attrs else ()
    for arg, d in zip(fn.body.block.args, attrs):
        if "loops.num_threads" in d.data:
            return arg
    zero = arith.ConstantOp(builtin.IntegerAttr(0, builtin.IndexType()))
    Rewriter.insert_op(zero, InsertPoint.at_start(b))
    return zero.result


class OutlineParallelLoopsPass(ModulePass):
    name = "outline-parallel-loops"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration]:
            loops = [o for o in fn.walk() if isinstance(o, scf.ParallelOp)
                     and not any(isinstance(p, scf.ParallelOp) for p in _ancestors(o))]
            if not loops:
                continue
            threads = _num_threads(fn, fn.body.block)
            for k, loop in enumerate(loops):
                self.outline(op, fn, loop, f"{fn.sym_name.data}_par{k}", threads)

    def outline(self, module: builtin.ModuleOp, fn: func.FuncOp, loop: scf.ParallelOp, name: str,
                threads: SSAValue) -> None:
        step = loop.step[0].owner
        if len(loop.lowerBound) != 1 or loop.initVals or not isinstance(step, arith.ConstantOp):
            raise DiagnosticException(
                "codegen: outline-parallel-loops handles 1-d scf.parallel loops with a constant step "
                f"and no reduction, not {loop.name} in @{fn.sym_name.data}")
        index = builtin.IndexType()
        block, passed, mapping = function_block([index, index], [step.result, *captures(loop)])
        lo, hi = block.args[0], block.args[1]
        lo.name_hint, hi.name_hint = "lo", "hi"

        body = loop.body.block
        for_block = Block(arg_types=[index])
        for_block.args[0].name_hint = body.args[0].name_hint
        mapping[body.args[0]] = for_block.args[0]
        for inner in list(body.ops):  # moved, not cloned: the loop goes away
            inner.detach()
            if isinstance(inner, scf.ReduceOp):
                inner.erase()
                for_block.add_op(scf.YieldOp())
            else:
                for_block.add_op(inner)
        remap(for_block, mapping)
        block.add_op(scf.ForOp(lo, hi, mapping[step.result], [], Region(for_block)))
        block.add_op(func.ReturnOp())
        outlined = func.FuncOp(name, ([a.type for a in block.args], []), Region(block), visibility="private")
        outlined.attributes["codegen.noinline"] = builtin.UnitAttr()

        launch_types = [index, index, index, *(v.type for v in passed)]
        launcher = func.FuncOp.external(f"{name}_launch", launch_types, [])
        launcher.attributes["codegen.launch"] = builtin.SymbolRefAttr(name)
        chunk = loop.attributes.get("loops.min_chunk")
        launcher.attributes["codegen.min_chunk"] = chunk if chunk is not None else builtin.IntegerAttr(1, 64)
        module.body.block.add_ops([outlined, launcher])

        call = func.CallOp(launcher.sym_name.data, [threads, loop.lowerBound[0], loop.upperBound[0], *passed], [])
        Rewriter.replace_op(loop, call)


def _ancestors(op: Operation) -> list[Operation]:
    out = []
    while (op := op.parent_op()) is not None:  # type: ignore[assignment]
        out.append(op)
    return out
