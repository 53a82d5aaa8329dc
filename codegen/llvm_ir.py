"""llvm dialect module -> LLVM IR (llvmlite) -> verified, O3-optimized for the host CPU.

    from codegen.llvm_ir import compile_llvm
    compiled = compile_llvm(module)       # module: only llvm.* ops (after LOOPS_TO_LLVM)
    compiled.ir_before, compiled.ir_after, compiled.assembly

Translation is xDSL's `xdsl.backend.llvm.convert.convert_module`, extended by
`codegen.llvm_ext` with the casts it lacks (fptosi / fptoui / uitofp), then given what
it drops: each llvm.func's linkage (it exports everything, private helpers included)
and argument names. Ops it cannot translate are reported up front with the pass that
should have removed them.
Optimization is LLVM's new pass manager at O3 (loop + SLP vectorization) with a target
machine for the host CPU (name and features from llvmlite), so AVX-512 hosts get
`<16 x float>` loops.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import llvmlite.binding as llvm
import llvmlite.ir as ir
from xdsl.backend.llvm.convert import convert_module
from xdsl.dialects import builtin
from xdsl.dialects import llvm as llvm_dialect

from codegen import llvm_ext

llvm_ext.install_translations()

# Which earlier pass removes an op that must not reach translation, by dialect.
_HINTS = {
    "arith": "convert-arith-to-llvm",
    "math": "convert-math-to-llvm",
    "cf": "convert-cf-to-llvm",
    "func": "convert-func-to-llvm",
    "scf": "convert-scf-to-cf",
    "memref": "convert-memref-to-ptr / convert-memref-alloc-to-malloc",
    "ptr_xdsl": "convert-ptr-to-llvm",
    "builtin": "reconcile-unrealized-casts",
}


class LLVMTranslationError(Exception):
    """The module holds ops the LLVM export cannot translate."""


@functools.cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


def host_target_machine(
    *,
    opt: int = 3,
    reloc: str = "default",
    codemodel: str = "jitdefault",
    jit: bool = False,
    cpu: str | None = None,
    features: str | None = None,
) -> llvm.TargetMachine:
    """A target machine for this CPU (host name and features, e.g. znver5 + avx512f).

    A fresh one each call: MCJIT takes ownership of the one it is given.
    `reloc="pic", codemodel="default"` for objects that go into a shared library;
    `cpu="generic", features=""` for code that runs on any x86-64.
    """
    _initialize()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    if cpu is None:
        cpu = llvm.get_host_cpu_name()
        if features is None:
            features = llvm.get_host_cpu_features().flatten()
    return target.create_target_machine(
        cpu=cpu,
        features=features or "",
        opt=opt,
        reloc=reloc,
        codemodel=codemodel,
        jit=jit,
    )


def check_llvm_only(module: builtin.ModuleOp) -> None:
    """Raise LLVMTranslationError naming every non-llvm op kind left in `module`."""
    leftovers: dict[str, int] = {}
    for op in module.walk():
        if op is module or op.name.startswith("llvm."):
            continue
        leftovers[op.name] = leftovers.get(op.name, 0) + 1
    if leftovers:
        lines = [
            f"  {name} (x{count}): expected to be removed by {_HINTS.get(name.split('.')[0], 'a lowering pass')}"
            for name, count in sorted(leftovers.items())
        ]
        raise LLVMTranslationError(
            "codegen: the module is not pure llvm dialect; run codegen.LOOPS_TO_LLVM first:\n"
            + "\n".join(lines)
        )


def translate(module: builtin.ModuleOp, target_machine: llvm.TargetMachine | None = None) -> ir.Module:
    """llvm dialect -> llvmlite `ir.Module` with the target's triple and data layout.

    Every defined function is marked `nounwind` (generated code never throws), and each
    instruction's fast-math flags are sorted: xDSL keeps them in a set, whose order
    follows Python's string hashing (PYTHONHASHSEED), so the text differed from one
    process to the next (`fadd contract reassoc` or `fadd reassoc contract`)."""
    check_llvm_only(module)
    tm = target_machine or host_target_machine()
    try:
        ir_module = convert_module(module, fallback_target_triple=tm.triple, data_layout=str(tm.target_data))
    except NotImplementedError as err:
        raise LLVMTranslationError(f"codegen: xDSL's LLVM export failed: {err}") from err
    for fn in ir_module.functions:
        if not fn.is_declaration:
            fn.attributes.add("nounwind")
            for block in fn.blocks:
                for instruction in block.instructions:
                    flags = getattr(instruction, "flags", None)
                    if isinstance(flags, list):
                        flags.sort()
    _apply_function_properties(module, ir_module)
    return ir_module


def _apply_function_properties(module: builtin.ModuleOp, ir_module: ir.Module) -> None:
    """What xDSL's export drops: the linkage of each llvm.func (every function came
    out external, so private helpers were exported), `noinline` where a codegen pass
    asked for it (`codegen.noinline`: an outlined parallel loop, called from two
    places, exists once), and argument names (`%n`, `%x` from the SSA names) for
    readable IR."""
    for op in module.ops:
        if not isinstance(op, llvm_dialect.FuncOp) or not op.body.blocks:
            continue
        fn = ir_module.get_global(op.sym_name.data)
        linkage = op.linkage.linkage.data
        if linkage != "external":
            fn.linkage = linkage
        if "codegen.noinline" in op.attributes:
            fn.attributes.add("noinline")
        taken: set[str] = set()
        for arg, value in zip(op.body.blocks[0].args, fn.args):
            hint = arg.name_hint
            if hint and hint not in taken:
                value.name = hint
                taken.add(hint)


def optimize(ref: llvm.ModuleRef, target_machine: llvm.TargetMachine, speed_level: int = 3) -> None:
    """Run LLVM's default O<speed_level> pipeline (loop + SLP vectorization) in place.

    Loop unrolling is off: on the many short static loops of a fused model it grew
    SchNet's IR from 0.5 to 5 MB and O3 + codegen from 2 s to 20 s, while the
    vectorizer's interleaving keeps the instruction-level parallelism; the small
    innermost loops are unrolled before (`codegen.unroll_small_loops`)."""
    if speed_level == 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = False
    pb = llvm.create_pass_builder(target_machine, pto)
    pb.getModulePassManager().run(ref, pb)


@dataclass
class CompiledLLVM:
    """An LLVM module, verified and optimized, with its IR before and after O3.

    A module compiled in parts (`codegen.split_module`) holds the first part in `ref`,
    every part's object code in `objects` (the first part's first: `ref` is compiled
    already), and each part's IR: `ir_before` and `ir_after` join them on first use
    (`join`)."""

    ref: llvm.ModuleRef
    target_machine: llvm.TargetMachine
    parts_before: list[str]
    parts_after: list[str]
    timings: dict[str, float] = field(default_factory=dict)
    objects: list[bytes] = field(default_factory=list)
    exported: set[str] = field(default_factory=set)
    """Functions external only so that another part could call them."""
    _assembly: str | None = None

    @functools.cached_property
    def ir_before(self) -> str:
        return join(self.parts_before, self.exported)

    @functools.cached_property
    def ir_after(self) -> str:
        return join(self.parts_after, self.exported)

    @property
    def assembly(self) -> str:
        """Host assembly text (generated on first use, from `ir_after`, so it works
        also once a JIT engine owns `ref`)."""
        if self._assembly is None:
            start = time.perf_counter()
            self._assembly = self.target_machine.emit_assembly(llvm.parse_assembly(self.ir_after))
            self.timings["assembly_s"] = time.perf_counter() - start
        return self._assembly

    @property
    def function_names(self) -> list[str]:
        return [f.name for f in self.ref.functions if not f.is_declaration]


def join(parts: list[str], exported: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """One module from the IR of a module's parts, by LLVM's linker: what each part
    defines, once; the functions in `exported` internal again. A helper that several
    parts define for themselves (internal) is kept once per part, renamed by the
    linker (`@pipeline_share.1`), as each part's code calls its own."""
    if len(parts) == 1:
        return parts[0]
    _initialize()
    joined = llvm.parse_assembly(parts[0])
    for text in parts[1:]:
        joined.link_in(llvm.parse_assembly(text))
    for fn in joined.functions:
        if fn.name in exported and not fn.is_declaration:
            fn.linkage = "internal"
    return str(joined)


def compile_llvm(
    module: builtin.ModuleOp | ir.Module | str,
    *,
    speed_level: int = 3,
    target_machine: llvm.TargetMachine | None = None,
) -> CompiledLLVM:
    """Translate (if given the llvm dialect), parse, verify and optimize a module.

    `module` may also be an llvmlite `ir.Module` or LLVM IR text.
    """
    _initialize()
    tm = target_machine or host_target_machine()
    timings: dict[str, float] = {}
    start = time.perf_counter()
    if isinstance(module, builtin.ModuleOp):
        module = translate(module, tm)
    ir_before = str(module)
    timings["translate_s"] = time.perf_counter() - start

    start = time.perf_counter()
    ref = llvm.parse_assembly(ir_before)
    ref.triple = tm.triple
    ref.data_layout = str(tm.target_data)
    ref.verify()
    timings["parse_verify_s"] = time.perf_counter() - start

    start = time.perf_counter()
    optimize(ref, tm, speed_level)
    timings["optimize_s"] = time.perf_counter() - start
    return CompiledLLVM(ref, tm, [ir_before], [str(ref)], timings)


__all__ = [
    "CompiledLLVM",
    "LLVMTranslationError",
    "check_llvm_only",
    "compile_llvm",
    "host_target_machine",
    "join",
    "optimize",
    "translate",
]
