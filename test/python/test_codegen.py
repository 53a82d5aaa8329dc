"""codegen as a whole: only llvm ops left, translation errors, LLVM IR and assembly, object
files and shared libraries, symbol names, compile time."""

from __future__ import annotations

import ctypes
import re
import subprocess

import numpy as np
import pytest
from codegen_helpers import assert_close, elementwise, module_of, parse
from conftest import needs_tools
from xdsl.dialects import arith, builtin, func, math as math_d, memref, scf

from codegen import CODEGEN_PASSES, LOOPS_TO_LLVM
from codegen.jit import JitModule
from codegen.llvm_ir import LLVMTranslationError, compile_llvm
from codegen.lowering import lower_to_llvm
from codegen.object_file import SymbolClashError, build_shared_library, emit_object, exported_symbols
from test_codegen_arith import _arith_module
from test_codegen_kernels import KERNELS
from test_codegen_math import _math_module

# ---------------------------------------------------------------------------------------
# pipeline, translation, object file / shared library


def test_pipeline_leaves_only_llvm_ops():
    for text in (KERNELS, _math_module(), _arith_module()):
        module = lower_to_llvm(parse(text))
        names = {op.name for op in module.walk()} - {"builtin.module"}
        assert names and all(n.startswith("llvm.") for n in names), sorted(names)
    assert LOOPS_TO_LLVM[0] == "rename-c-library-clashes" and LOOPS_TO_LLVM[-1] == "reconcile-unrealized-casts"
    for name in LOOPS_TO_LLVM:
        base = name.split("{")[0]
        if base in CODEGEN_PASSES:
            assert CODEGEN_PASSES[base]().name == base


def test_built_in_python_module():
    """A loop module built with xDSL's Python API, not parsed."""
    f32 = builtin.f32
    mref = builtin.MemRefType(f32, [builtin.DYNAMIC_INDEX])
    body = func.FuncOp("tanh_py", ([builtin.IndexType(), mref, mref], []))
    n, x, y = body.args
    block = body.body.block
    c0 = arith.ConstantOp.from_int_and_width(0, builtin.IndexType())
    c1 = arith.ConstantOp.from_int_and_width(1, builtin.IndexType())
    loop_body = builtin.Block(arg_types=[builtin.IndexType()])
    i = loop_body.args[0]
    load = memref.LoadOp.get(x, [i])
    t = math_d.TanhOp(load.res)
    loop_body.add_ops([load, t, memref.StoreOp.get(t.result, y, [i]), scf.YieldOp()])
    block.add_ops([c0, c1, scf.ForOp(c0, n, c1, [], loop_body), func.ReturnOp()])
    module = builtin.ModuleOp([body])
    module.verify()
    f = JitModule(lower_to_llvm(module)).callable("tanh_py")
    xs = np.linspace(-4, 4, 101).astype(np.float32)
    ys = np.zeros_like(xs)
    f(101, xs, ys)
    assert_close(ys, np.tanh(xs.astype(np.float64)), 1e-6, "tanh")


def test_translation_reports_unlowered_ops():
    module = parse(KERNELS)
    with pytest.raises(LLVMTranslationError, match="scf.for .*convert-scf-to-cf"):
        compile_llvm(module)


def test_compile_llvm_ir_text_and_assembly():
    compiled = compile_llvm(lower_to_llvm(parse(KERNELS)))
    assert re.search(r'define void @"?sum_f64"?\(', compiled.ir_before)
    assert re.search(r"define void @sum_f64\(", compiled.ir_after)
    assert "exp_f32:" in compiled.assembly
    assert set(compiled.function_names) >= {"exp_f32", "sum_f64", "reverse_tmp"}
    for key in ("translate_s", "optimize_s"):
        assert compiled.timings[key] >= 0


@needs_tools("nm", "cc")
def test_shared_library_exports_and_runs(tmp_path):
    module = lower_to_llvm(parse(KERNELS))
    obj = emit_object(module)
    assert obj[:4] == b"\x7fELF"
    so = build_shared_library(lower_to_llvm(parse(KERNELS)), tmp_path / "kernels.so", keep_object=True)
    assert (tmp_path / "kernels.so.o").exists()
    symbols = exported_symbols(so)
    for name in ("exp_f32", "exp_f64", "sum_f64", "outer", "gather", "leaky", "reverse_tmp"):
        assert name in symbols, symbols
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True).stdout
    assert "malloc" in undefined and "free" in undefined
    lib = ctypes.CDLL(str(so))
    fn = lib.sum_f64
    fn.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    fn.restype = None
    x = np.arange(10.0)
    out = np.zeros(1)
    fn(10, x.ctypes.data, out.ctypes.data)
    assert out[0] == 45.0


def test_kernel_named_like_libm():
    """A kernel called `exp` must not capture the libm call LLVM emits for llvm.exp."""
    text = module_of(elementwise("exp", ["f64"], "f64", "%r = math.exp %a0 : f64"),
                     elementwise("free", ["f32"], "f32", "%r = math.exp %a0 : f32"),
                     elementwise("expm1", ["f64"], "f64", "%r = math.expm1 %a0 : f64"))
    compiled = compile_llvm(lower_to_llvm(parse(text)))
    jm = JitModule(compiled)
    x = np.linspace(-2, 2, 7)
    y = np.zeros_like(x)
    jm.callable("exp")(7, x, y)
    assert_close(y, np.exp(x), 1e-12, "exp kernel")
    x32, y32 = x.astype(np.float32), np.zeros(7, np.float32)
    jm.callable("free")(7, x32, y32)
    assert_close(y32, np.exp(x), 1e-6, "free kernel")
    jm.callable("expm1")(7, x, y)
    assert_close(y, np.expm1(x), 1e-12, "expm1 kernel")
    assert set(jm.function_names) == {"exp", "free", "expm1"}
    with pytest.raises(SymbolClashError, match="@exp"):
        emit_object(lower_to_llvm(parse(text)))


def test_jit_compile_time_of_fifty_loops():
    """~50 elementwise loops: translate + O3 + MCJIT in well under the 0.2 s/loop budget."""
    ops = ["exp", "tanh", "log1p", "sqrt", "erf"]
    funcs = [elementwise(f"k{k}", ["f32", "f32"], "f32",
                         f"%m = arith.mulf %a0, %a1 : f32\n      %r = math.{ops[k % len(ops)]} %m : f32")
             for k in range(50)]
    module = lower_to_llvm(parse(module_of(*funcs)))
    jm = JitModule(module)
    assert len(jm.function_names) == 50
    assert jm.timings["total_s"] < 10.0
