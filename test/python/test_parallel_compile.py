"""A module compiled in parts, in forked processes (pipeline.parallel_compile): the
numbers of eager PyTorch and of the module compiled in one piece (values and forces,
f32 and f64, untraced sizes, 1 and 2 threads), the stage texts of one module, the
exported library, and a part's failure raised in the caller."""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import llvmlite.binding as llvm
import pytest
import torch
from conftest import DTYPES, TRACE_ATOMS, assert_close, model, needs_tools
from test_export import assert_matches, inputs, programs, run
from xdsl.dialects import func
from xdsl.utils.exceptions import DiagnosticException

import pipeline.parallel_compile as parallel_compile
from codegen.forked import Forked, WorkerError
from codegen.split_module import EXPORTED, plan, restrict
from pipeline.deploy.export import export_library
from pipeline.compiler import REPLAYED, compile
from pipeline.registry import context
from xdsl.parser import Parser

NAME = "schnet"
PARTS = 3


@contextlib.contextmanager
def parts(jobs: int, min_ops: int = 1) -> Iterator[None]:
    """Compile in up to `jobs` parts of at least `min_ops` ops of loops each."""
    with mock.patch.dict(os.environ, {"PIPELINE_COMPILE_JOBS": str(jobs)}), \
            mock.patch.object(parallel_compile, "MIN_PART_OPS", min_ops):
        yield


@functools.cache
def compiled(dtype: torch.dtype, jobs: int):
    """In `jobs` parts; in one piece (jobs=1) with a dump_dir, which prints every stage
    while it compiles (a plain compile prints them on demand)."""
    mod = model(NAME)
    with parts(jobs), tempfile.TemporaryDirectory() as dump:
        return compile(mod.energy_forces(dtype), mod.inputs(TRACE_ATOMS, dtype, 0), mod.dynamic_shapes,
                       dump_dir=dump if jobs == 1 else None)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_values_and_forces(dtype: torch.dtype) -> None:
    native, whole = compiled(dtype, PARTS), compiled(dtype, 1)
    assert len(native.jit.compiled.objects) == PARTS and not whole.jit.compiled.objects
    fn = model(NAME).energy_forces(dtype)
    for n in (1, 7, 100, 2000):
        args = model(NAME).inputs(n, dtype, 500 + n)
        for threads in (1, 2):
            native.num_threads = whole.num_threads = threads
            got = native(*args.values())
            assert_close(got, fn(*args.values()), dtype, f"N={n} threads={threads}")
            assert all(torch.equal(g, w) for g, w in zip(got, whole(*args.values()))), "not the one-piece numbers"


def test_stage_texts_are_one_module() -> None:
    native, whole = compiled(torch.float64, PARTS), compiled(torch.float64, 1)
    assert set(native.stages) == {"fx"} and {*REPLAYED, "llvm"} <= set(whole.stages)
    for stage in (*REPLAYED, "llvm"):  # printed on demand, from the captured graph again
        assert native.ir(stage) == whole.ir(stage), stage
    for stage in ("ll", "opt.ll"):
        module = llvm.parse_assembly(native.ir(stage))
        module.verify()
        launchers = [f for f in module.functions if f.name.endswith("_launch")]
        assert launchers and all(f.linkage == llvm.Linkage.internal for f in launchers), "exported again"
        names = {f.name for f in module.functions if not f.is_declaration}
        assert {f.name for f in llvm.parse_assembly(whole.ir(stage)).functions if not f.is_declaration} <= names
        assert sum(n.startswith("pipeline_share") for n in names) == PARTS  # each part's own copy
    assert "energy_forces:" in native.ir("asm")


@needs_tools("cc", "gcc")
def test_library(tmp_path: Path) -> None:
    dtype = torch.float64
    library = export_library(compiled(dtype, PARTS), tmp_path, name=NAME)
    c, _ = programs(tmp_path, NAME)
    for n in (1, 9, 150):
        system = tmp_path / f"system{n}.txt"
        want = model(NAME).energy_forces(dtype)(*inputs(NAME, n, dtype, system).values())
        assert_matches(run([str(c), str(system)]).stdout, want, dtype, f"split library N={n}")
    assert library.exists()


def test_small_modules_stay_whole() -> None:
    mod = model("lennard_jones")
    with parts(2, min_ops=10**6):
        native = compile(mod.energy_forces(torch.float64), mod.inputs(TRACE_ATOMS, torch.float64, 0),
                         mod.dynamic_shapes)
    assert not native.jit.compiled.objects


def test_jobs_from_the_environment() -> None:
    with mock.patch.dict(os.environ, {"PIPELINE_COMPILE_JOBS": "3"}):
        assert parallel_compile.jobs() == 3
    with mock.patch.dict(os.environ, {"PIPELINE_COMPILE_JOBS": "two"}), \
            pytest.raises(ValueError, match="PIPELINE_COMPILE_JOBS='two'"):
        parallel_compile.jobs()
    with mock.patch.dict(os.environ, {"PIPELINE_COMPILE_JOBS": ""}):
        assert parallel_compile.jobs() == len(os.sched_getaffinity(0))


OUTLINED = """
func.func @f(%n: index, %x: memref<?xf64>) {
  func.call @f_par0_launch(%n, %n, %n, %x) : (index, index, index, memref<?xf64>) -> ()
  func.call @f_par1_launch(%n, %n, %n, %x) : (index, index, index, memref<?xf64>) -> ()
  func.call @f_par2_launch(%n, %n, %n, %x) : (index, index, index, memref<?xf64>) -> ()
  func.return
}
func.func private @f_par0(%lo: index, %hi: index, %x: memref<?xf64>) {
  %0 = arith.addi %lo, %hi : index
  %1 = arith.addi %0, %hi : index
  %2 = arith.addi %1, %hi : index
  func.return
}
func.func private @f_par0_launch(index, index, index, memref<?xf64>) attributes {codegen.launch = @f_par0, codegen.min_chunk = 1 : i64}
func.func private @f_par1(%lo: index, %hi: index, %x: memref<?xf64>) {
  %0 = arith.addi %lo, %hi : index
  func.return
}
func.func private @f_par1_launch(index, index, index, memref<?xf64>) attributes {codegen.launch = @f_par1, codegen.min_chunk = 1 : i64}
func.func private @f_par2(%lo: index, %hi: index, %x: memref<?xf64>) {
  %0 = arith.addi %lo, %hi : index
  %1 = arith.addi %0, %hi : index
  func.return
}
func.func private @f_par2_launch(index, index, index, memref<?xf64>) attributes {codegen.launch = @f_par2, codegen.min_chunk = 1 : i64}
"""


def test_plan_deals_loops_largest_first() -> None:
    module = Parser(context(), OUTLINED).parse_module()
    # ops: @f 5, loops 5, 3, 4; part 0 starts with @f, a tie goes to the first part
    assert plan(module, 2) == [{"f", "f_par2", "f_par2_launch"},
                               {"f_par0", "f_par0_launch", "f_par1", "f_par1_launch"}]
    assert len(plan(module, 8)) == 3  # one loop per part at most
    assert len(plan(module, 2, min_ops=10)) == 1  # 12 ops of loops: not two parts of 10


def test_a_loop_launched_twice_goes_with_both_launchers() -> None:
    """merge-identical-functions leaves two launchers of one loop where their chunk sizes
    differ: a part with the loop defines both (the other part would call a launcher
    whose loop it does not have)."""
    text = OUTLINED.replace("func.call @f_par2_launch", "func.call @f_par3_launch") + \
        "func.func private @f_par3_launch(index, index, index, memref<?xf64>) attributes " \
        "{codegen.launch = @f_par0, codegen.min_chunk = 8 : i64}"
    module = Parser(context(), text).parse_module()
    assert plan(module, 2) == [{"f", "f_par2", "f_par2_launch"},
                               {"f_par0", "f_par0_launch", "f_par3_launch", "f_par1", "f_par1_launch"}]
    assert restrict(module, {"f_par0", "f_par0_launch", "f_par3_launch"}) == {"f_par0_launch", "f_par3_launch"}


def test_a_serial_nest_is_dealt_and_called_across_parts() -> None:
    """outline-serial-nests' functions are dealt like loops: the part without one
    declares it, the part with it makes it public for the entry's part to call."""
    text = OUTLINED.replace("  func.return\n}\nfunc.func private @f_par0(", "  func.call @f_ser0(%n) : (index) -> ()\n"
                            "  func.return\n}\nfunc.func private @f_par0(", 1) + """
func.func private @f_ser0(%n: index) attributes {codegen.noinline, codegen.serial} {
  %0 = arith.addi %n, %n : index
  %1 = arith.addi %0, %n : index
  %2 = arith.addi %1, %n : index
  %3 = arith.addi %2, %n : index
  func.return
}"""
    module = Parser(context(), text).parse_module()
    groups = plan(module, 2)
    # ops: @f 6, f_ser0 6, loops 5, 4, 3: dealt largest first to the smaller part
    assert groups == [{"f", "f_par0", "f_par0_launch"},
                      {"f_ser0", "f_par2", "f_par2_launch", "f_par1", "f_par1_launch"}]
    restrict(module, groups[0])
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    assert funcs["f_ser0"].is_declaration and "f" in funcs
    module = Parser(context(), text).parse_module()
    assert restrict(module, groups[1]) == {"f_ser0", "f_par1_launch", "f_par2_launch"}
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    assert not funcs["f_ser0"].is_declaration and funcs["f_ser0"].sym_visibility.data == "public"


def test_restrict_keeps_one_part() -> None:
    module = Parser(context(), OUTLINED).parse_module()
    assert restrict(module, {"f_par0", "f_par0_launch"}) == {"f_par0_launch"}
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    assert not funcs["f_par0"].is_declaration and EXPORTED in funcs["f_par0_launch"].attributes
    assert "f" not in funcs and "f_par1" not in funcs  # defined by another part
    assert "codegen.launch" not in funcs["f_par1_launch"].attributes  # a plain declaration
    module = Parser(context(), OUTLINED).parse_module()
    assert restrict(module, {"f", "f_par1", "f_par1_launch"}) == set()  # its caller is in the part


def test_a_part_that_fails_raises_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.convert_cf_to_llvm import ConvertCfToLLVMPass

    parent, apply = os.getpid(), ConvertCfToLLVMPass.apply

    def failing(self, ctx, op):  # only in a part's own process
        if os.getpid() != parent:
            raise DiagnosticException("convert-cf-to-llvm: injected failure")
        apply(self, ctx, op)

    monkeypatch.setattr(ConvertCfToLLVMPass, "apply", failing)
    mod = model(NAME)
    with parts(2), pytest.raises(DiagnosticException, match="injected failure"):
        compile(mod.energy_forces(torch.float32), mod.inputs(TRACE_ATOMS, torch.float32, 0), mod.dynamic_shapes)


def test_without_a_process_to_fork_one_compiles_all(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    mod, dtype = model(NAME), torch.float64
    with parts(PARTS):
        native = compile(mod.energy_forces(dtype), mod.inputs(TRACE_ATOMS, dtype, 0), mod.dynamic_shapes)
    assert len(native.jit.compiled.objects) == 1
    args = mod.inputs(40, dtype, 9)
    assert_close(native(*args.values()), mod.energy_forces(dtype)(*args.values()), dtype, "N=40")


def test_a_child_that_dies_is_named() -> None:
    with pytest.raises(WorkerError, match=r"the child process died \(exit code 3\)"):
        Forked(lambda: os._exit(3), "a test").result()
    assert Forked(lambda: {"x": [1, 2]}).result() == {"x": [1, 2]}


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int):  # pickles as _Unpicklable(message): one argument
        super().__init__(f"{a} and {b}")


def test_a_child_error_that_does_not_unpickle_is_named() -> None:
    def fail() -> None:
        raise _Unpicklable(1, 2)

    with pytest.raises(WorkerError, match="does not unpickle"):
        Forked(fail, "a test").result()
