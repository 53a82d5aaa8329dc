"""codegen on the kernels of the brief (elementwise exp, reduction, 2-level nest, gather,
scf.if, malloc): loop-level modules -> LOOPS_TO_LLVM -> O3 -> MCJIT, vs numpy; and the callable."""

from __future__ import annotations

import ctypes
import math
import re

import numpy as np
import pytest
from codegen_helpers import NP, SIZES, TOL, assert_close, elementwise, jit, module_of, parse

from codegen.jit import JitModule
from codegen.lowering import lower_to_llvm


# ---------------------------------------------------------------------------------------
# the kernels of the brief: elementwise exp, reduction, 2-level nest, gather, scf.if, malloc

KERNELS = module_of(
    elementwise("exp_f32", ["f32"], "f32", "%r = math.exp %a0 : f32"),
    elementwise("exp_f64", ["f64"], "f64", "%r = math.exp %a0 : f64"),
    """
  func.func @sum_f64(%n: index, %x: memref<?xf64>, %out: memref<?xf64>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f64
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
      %v = memref.load %x[%i] : memref<?xf64>
      %a = arith.addf %acc, %v : f64
      scf.yield %a : f64
    }
    memref.store %s, %out[%c0] : memref<?xf64>
    func.return
  }
  func.func @dot_f32(%n: index, %x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %s:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %mx = %zero) -> (f32, f32) {
      %a = memref.load %x[%i] : memref<?xf32>
      %b = memref.load %y[%i] : memref<?xf32>
      %p = arith.mulf %a, %b : f32
      %acc2 = arith.addf %acc, %p : f32
      %mx2 = arith.maximumf %mx, %p : f32
      scf.yield %acc2, %mx2 : f32, f32
    }
    memref.store %s#0, %out[%c0] : memref<?xf32>
    memref.store %s#1, %out[%c1] : memref<?xf32>
    func.return
  }
  func.func @outer(%n: index, %m: index, %x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %m step %c1 {
        %xi = memref.load %x[%i] : memref<?xf32>
        %yj = memref.load %y[%j] : memref<?xf32>
        %p = arith.mulf %xi, %yj : f32
        %d = arith.subi %i, %j : index
        %di = arith.index_cast %d : index to i64
        %df = arith.sitofp %di : i64 to f32
        %r = arith.addf %p, %df : f32
        %row = arith.muli %i, %m : index
        %k = arith.addi %row, %j : index
        memref.store %r, %out[%k] : memref<?xf32>
      }
    }
    func.return
  }
  func.func @gather(%n: index, %idx: memref<?xi64>, %x: memref<?xf64>, %out: memref<?xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = memref.load %idx[%i] : memref<?xi64>
      %ki = arith.index_cast %k : i64 to index
      %v = memref.load %x[%ki] : memref<?xf64>
      memref.store %v, %out[%i] : memref<?xf64>
    }
    func.return
  }
  func.func @scatter_add(%n: index, %idx: memref<?xi32>, %x: memref<?xf64>, %out: memref<?xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = memref.load %idx[%i] : memref<?xi32>
      %ki = arith.index_cast %k : i32 to index
      %v = memref.load %x[%i] : memref<?xf64>
      %o = memref.load %out[%ki] : memref<?xf64>
      %s = arith.addf %o, %v : f64
      memref.store %s, %out[%ki] : memref<?xf64>
    }
    func.return
  }
  func.func @leaky(%n: index, %x: memref<?xf32>, %out: memref<?xf32>, %count: memref<?xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %slope = arith.constant 0.1 : f32
    %one = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %x[%i] : memref<?xf32>
      %pos = arith.cmpf ogt, %v, %zero : f32
      %r = scf.if %pos -> (f32) {
        scf.yield %v : f32
      } else {
        %s = arith.mulf %v, %slope : f32
        scf.yield %s : f32
      }
      memref.store %r, %out[%i] : memref<?xf32>
      scf.if %pos {
        %c = memref.load %count[%c0] : memref<?xi32>
        %c2 = arith.addi %c, %one : i32
        memref.store %c2, %count[%c0] : memref<?xi32>
      }
    }
    func.return
  }
  func.func @reverse_tmp(%n: index, %x: memref<?xf32>, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2.0 : f32
    %tmp = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %x[%i] : memref<?xf32>
      %d = arith.mulf %v, %two : f32
      memref.store %d, %tmp[%i] : memref<?xf32>
    }
    %last = arith.subi %n, %c1 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.subi %last, %i : index
      %v = memref.load %tmp[%k] : memref<?xf32>
      memref.store %v, %out[%i] : memref<?xf32>
    }
    memref.dealloc %tmp : memref<?xf32>
    func.return
  }
  func.func @strided_sum(%n: index, %x: memref<?xf64>, %out: memref<?xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f64
    %rows = arith.ceildivsi %n, %c3 : index
    %big = arith.muli %rows, %c3 : index
    %tmp = memref.alloc(%big) {alignment = 64 : i64} : memref<?xf64>
    scf.for %i = %c0 to %big step %c1 {
      %in = arith.cmpi slt, %i, %n : index
      %v = scf.if %in -> (f64) {
        %l = memref.load %x[%i] : memref<?xf64>
        scf.yield %l : f64
      } else {
        scf.yield %zero : f64
      }
      memref.store %v, %tmp[%i] : memref<?xf64>
    }
    scf.for %r = %c0 to %rows step %c1 {
      %base = arith.muli %r, %c3 : index
      %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %k = arith.addi %base, %j : index
        %v = memref.load %tmp[%k] : memref<?xf64>
        %a = arith.addf %acc, %v : f64
        scf.yield %a : f64
      }
      memref.store %s, %out[%r] : memref<?xf64>
    }
    memref.dealloc %tmp : memref<?xf64>
    func.return
  }
""",
)


@pytest.fixture(scope="module")
def kernels() -> JitModule:
    return jit(KERNELS)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_elementwise_exp(kernels, n, t):
    x = np.random.default_rng(n).uniform(-20, 20, n).astype(NP[t])
    y = np.full(n, np.nan, NP[t])
    kernels.callable(f"exp_{t}")(n, x, y)
    assert_close(y, np.exp(x.astype(np.float64)), TOL[t], f"exp {t}")


@pytest.mark.parametrize("n", SIZES)
def test_reduction_iter_args(kernels, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    out = np.zeros(1)
    kernels.callable("sum_f64")(n, x, out)
    assert abs(out[0] - math.fsum(x)) <= 1e-12 * max(1.0, np.abs(x).sum())
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out32 = np.zeros(2, np.float32)
    kernels.callable("dot_f32")(n, a, b, out32)
    prods = a.astype(np.float64) * b.astype(np.float64)
    assert abs(out32[0] - prods.sum()) <= 1e-5 * max(1.0, np.abs(prods).sum())
    assert out32[1] == np.float32(max([0.0, *(a * b)]))


@pytest.mark.parametrize("n,m", [(0, 3), (1, 1), (3, 0), (5, 7), (17, 33)])
def test_two_level_nest(kernels, n, m):
    rng = np.random.default_rng(n * 100 + m)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(m).astype(np.float32)
    out = np.full(n * m, np.nan, np.float32)
    kernels.callable("outer")(n, m, x, y, out)
    want = x[:, None] * y[None, :] + (np.arange(n)[:, None] - np.arange(m)[None, :]).astype(np.float32)
    assert_close(out, want.ravel(), TOL["f32"], "outer")


@pytest.mark.parametrize("n", SIZES)
def test_gather_and_scatter(kernels, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(max(n, 1))
    idx = rng.integers(0, max(n, 1), n).astype(np.int64)
    out = np.zeros(n)
    kernels.callable("gather")(n, idx, x, out)
    assert (out == x[idx]).all()
    idx32 = idx.astype(np.int32) % 5
    acc = np.zeros(5)
    kernels.callable("scatter_add")(n, idx32, x, acc)
    want = np.zeros(5)
    np.add.at(want, idx32, x[:n])
    assert np.allclose(acc, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", SIZES)
def test_scf_if(kernels, n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    out, count = np.zeros(n, np.float32), np.zeros(1, np.int32)
    kernels.callable("leaky")(n, x, out, count)
    assert (out == np.where(x > 0, x, x * np.float32(0.1))).all()
    assert count[0] == (x > 0).sum()


@pytest.mark.parametrize("n", SIZES)
def test_malloc_temporary(kernels, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    kernels.callable("reverse_tmp")(n, x, out)
    assert (out == (2 * x)[::-1]).all()
    x64 = rng.standard_normal(n)
    rows = -(-n // 3)
    out64 = np.zeros(rows)
    kernels.callable("strided_sum")(n, x64, out64)
    padded = np.concatenate([x64, np.zeros(rows * 3 - n)])
    assert np.allclose(out64, padded.reshape(rows, 3).sum(axis=1), rtol=1e-12, atol=0)


def test_elementwise_loop_vectorizes(kernels):
    ir = kernels.ir_after
    body = ir[ir.index("define void @exp_f32") :]
    body = body[: body.index("\n}\n")]
    assert "x float>" in body and "@llvm.exp.v" in body, "the f32 exp loop did not vectorize"
    assert "ptrtoint" not in ir and "inttoptr" not in ir
    assert "noalias" in body


REASSOC_SUM = module_of("""
  func.func @sum_fast(%n: index, %x: memref<?xf32>, %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i] : memref<?xf32>
      %a = arith.addf %acc, %v fastmath<reassoc, contract> : f32
      scf.yield %a : f32
    }
    memref.store %s, %out[%c0] : memref<?xf32>
    func.return
  }""")


def test_reduction_vectorizes_with_reassoc():
    """Strict FP reductions stay scalar; fastmath<reassoc> on the addf reaches LLVM."""
    jm = jit(REASSOC_SUM)
    assert re.search(r"fadd reassoc contract <\d+ x float>", jm.ir_after), jm.ir_after
    for n in SIZES:
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        out = np.zeros(1, np.float32)
        jm.callable("sum_fast")(n, x, out)
        assert abs(out[0] - x.astype(np.float64).sum()) <= 1e-5 * max(1.0, np.abs(x).sum())


def test_raw_ctypes_function(kernels):
    f = kernels.function("exp_f64", [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p])
    x = np.linspace(-1, 1, 9)
    y = np.zeros_like(x)
    f(len(x), x.ctypes.data, y.ctypes.data)
    assert_close(y, np.exp(x), 1e-12)
    assert kernels.signature("outer") == (None, [ctypes.c_int64] * 2 + [ctypes.c_void_p] * 3)


def test_callable_refuses_strided_views(kernels):
    x = np.zeros(10)[::2]
    with pytest.raises(ValueError, match="non-contiguous"):
        kernels.callable("exp_f64")(5, x, np.zeros(5))


def test_callable_on_torch_tensors(kernels):
    torch = pytest.importorskip("torch")
    x = torch.linspace(-3, 3, 50, dtype=torch.float32)
    y = torch.empty_like(x)
    kernels.callable("exp_f32")(50, x, y)
    assert_close(y.numpy(), np.exp(x.numpy().astype(np.float64)), 1e-6)


def test_function_keeps_engine_alive():
    f = JitModule(lower_to_llvm(parse(KERNELS))).callable("exp_f64")  # no reference kept
    import gc

    gc.collect()
    x = np.arange(4.0)
    y = np.zeros(4)
    f(4, x, y)
    assert_close(y, np.exp(x), 1e-12)
