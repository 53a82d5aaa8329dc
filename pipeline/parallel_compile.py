"""The llvm stage and LLVM's code generation of one module, in parts on several cores.

After `merge-identical-functions` (the head of the llvm stage) the module is split
(`codegen.split_module`): each part is lowered by the rest of the stage's passes,
translated, optimized and compiled to machine code in a process of its own (forked:
the parts start from the parent's module without copying it through a pipe; xDSL
holds the GIL and llvmlite serializes its calls, so threads would not run in
parallel). Part 0, with the entry points, stays in this process and becomes the JIT
engine's module; the other parts come back as object code, which the engine links
in, and as their LLVM IR, joined into the texts of one module on first use. Every
part is compiled to object code before the parent waits for the others (the engine
only links). No stage's text is printed while compiling: `CompiledFunction.ir`
prints them on first use.

A module is split only when each part gets at least `MIN_PART_OPS` ops of loops (a
fork and the objects' trip back cost ~50 ms), and into at most `jobs()` parts: the
cores this process may use, or PIPELINE_COMPILE_JOBS.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import builtin

from codegen.forked import Forked, can_fork
from codegen.jit import JitModule
from codegen.llvm_ir import CompiledLLVM, compile_llvm, host_target_machine, translate
from codegen.split_module import plan, restrict

MIN_PART_OPS = 1500
"""Fewest ops of outlined loops per part (NequIP has ~8500, whose llvm stage and LLVM took 6.9 s in one process)."""

PARENT_EXTRA = 0.06
"""This process's work besides its part (linking the objects; its part holds the entry
points, whose serial loops cost LLVM more per op) as a fraction of the module's.
Without it the other part was done 0.5 s (Allegro) and 0.3 s (NequIP) before this one
on 2 cores (op counts are a rough proxy for LLVM's work)."""


def jobs() -> int:
    """Processes a compile may use: PIPELINE_COMPILE_JOBS, else the cores of this
    process's affinity mask; 1 where the platform does not fork safely."""
    if not can_fork():
        return 1
    value = os.environ.get("PIPELINE_COMPILE_JOBS", "")
    if value:
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"PIPELINE_COMPILE_JOBS={value!r}: expected a positive integer")
        return int(value)
    return len(os.sched_getaffinity(0))


def split(module: builtin.ModuleOp, processes: int) -> list[set[str]]:
    """The parts `module` (after merge-identical-functions) is compiled in."""
    return plan(module, processes, MIN_PART_OPS, PARENT_EXTRA)


@dataclass
class _Part:
    """What a part's process sends back."""

    ll: str
    opt_ll: str
    code: bytes
    exported: set[str]


def compile_parts(
    module: builtin.ModuleOp, parts: list[set[str]], lower: Callable[[builtin.ModuleOp], None]
) -> tuple[JitModule, float]:
    """Lower each part of `module` with `lower` (the rest of the llvm stage), compile
    it, and link the parts into one JIT engine. Returns the engine and the seconds
    this process spent in `lower`. No part prints its llvm-dialect text (0.2-0.4 s of
    CPU per part, while every core is busy): `llvm_stage_text` derives it on demand."""
    target = host_target_machine(jit=True)

    def part(keep: set[str]) -> tuple[set[str], CompiledLLVM, bytes, float]:
        """Part `keep` of the module compiled to object code: the launchers it exports,
        its LLVM module, its code, and the seconds spent in `lower`."""
        start = time.perf_counter()
        exported = restrict(module, keep)
        lower(module)
        lowered_s = time.perf_counter() - start
        compiled = compile_llvm(translate(module, target), target_machine=target)
        return exported, compiled, target.emit_object(compiled.ref), lowered_s

    def other(keep: set[str]) -> _Part:
        exported, compiled, code, _ = part(keep)
        return _Part(compiled.parts_before[0], compiled.parts_after[0], code, exported)

    workers: list[Forked] = []
    try:
        for keep in parts[1:]:
            workers.append(Forked(lambda keep=keep: other(keep), "compiling a part of the module"))
    except OSError:  # no process to be had (a limit on processes or memory): all parts here
        for w in workers:
            w.cancel()
        workers, parts = [], [set().union(*parts)]
    try:
        exported, compiled, code, lowered_s = part(parts[0])
        results: list[_Part] = [w.result() for w in workers]
        compiled.objects = [code, *(r.code for r in results)]
        compiled.parts_before += [r.ll for r in results]
        compiled.parts_after += [r.opt_ll for r in results]
        compiled.exported = exported.union(*(r.exported for r in results))
    finally:
        for w in workers:
            w.cancel()
    return JitModule(compiled), lowered_s


__all__ = ["MIN_PART_OPS", "compile_parts", "jobs", "split"]
