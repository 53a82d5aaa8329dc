"""Outline each serial loop nest of a function into a function of its own.

    scf.for %i = %c0 to %n step %c1 { body(%i, %x, %buf) }      (top level of @f)

becomes `func.call @f_ser0(%n, %x, %buf)`, with `@f_ser0` (private, marked
`codegen.noinline` and `codegen.serial`) running the same loop; what the nest uses
from outside becomes arguments, constants are rematerialized inside.

After outline-parallel-loops, a model's entry function still holds every nest too
light for threads: Allegro's is a sixth of the llvm stage's code but cost LLVM 0.5
of its 1.13 s (one function of many loops, for which O3 and code generation are
superlinear), all of it in the process that holds the entry. As functions of their
own the nests are dealt to the parts like the parallel loops (`codegen.split_module`),
and identical ones merge (`merge-identical-functions`). Nests with fewer than
`MIN_OPS` ops stay (a call and a function are not worth it), as do nests with results
and nests that call a function (a launcher: `plan` keeps the parts' calls among
outlined functions simple), and a function with one nest to outline keeps it.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, func, scf
from xdsl.ir import Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from codegen.outline_parallel_loops import captures, function_block, remap

MIN_OPS = 8
"""Fewest ops of a nest worth a function."""

SERIAL = "codegen.serial"
"""Marks a function outlined from a serial nest (split_module deals it to a part)."""


def _outlinable(loop: scf.ForOp) -> bool:
    if loop.results:
        return False
    ops = 0
    for op in loop.walk():
        if isinstance(op, func.CallOp):
            return False
        ops += 1
    return ops >= MIN_OPS


class OutlineSerialNestsPass(ModulePass):
    name = "outline-serial-nests"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration
                   and "codegen.noinline" not in f.attributes]:
            nests = [o for o in fn.body.block.ops if isinstance(o, scf.ForOp) and _outlinable(o)]
            if len(nests) < 2:  # a kernel of one nest: nothing to deal apart
                continue
            for k, loop in enumerate(nests):
                self.outline(op, loop, f"{fn.sym_name.data}_ser{k}")

    @staticmethod
    def outline(module: builtin.ModuleOp, loop: scf.ForOp, name: str) -> None:
        block, args, mapping = function_block([], [*loop.operands, *captures(loop)])  # its bounds too
        Rewriter.insert_op(func.CallOp(name, args, []), InsertPoint.before(loop))
        loop.detach()  # moved into the function, not copied
        block.add_op(loop)
        remap(loop, mapping)
        block.add_op(func.ReturnOp())
        outlined = func.FuncOp(name, ([a.type for a in block.args], []), Region(block), visibility="private")
        outlined.attributes["codegen.noinline"] = builtin.UnitAttr()
        outlined.attributes[SERIAL] = builtin.UnitAttr()
        module.body.block.add_op(outlined)
