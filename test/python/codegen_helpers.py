"""What the codegen tests share: parsing a loop-level module, lowering and JIT-compiling it,
kernels written as text, and numpy comparison."""

from __future__ import annotations

import functools

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.parser import Parser
from xdsl.universe import Universe

from codegen.jit import JitModule
from codegen.lowering import lower_to_llvm

SIZES = [0, 1, 2, 7, 33, 1000]
TOL = {"f32": 1e-6, "f64": 1e-12}
NP = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32, "i8": np.int8, "i1": np.bool_}


def _context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def parse(text: str) -> builtin.ModuleOp:
    return Parser(_context(), text).parse_module()


@functools.cache
def jit(text: str) -> JitModule:
    module = parse(text)
    lower_to_llvm(module)
    return JitModule(module)


def elementwise(name: str, ins: list[str], out: str, body: str) -> str:
    """A kernel `out[i] = body(in0[i], in1[i], ...)`; `body` reads %a0.. and defines %r."""
    args = ", ".join(f"%in{k}: memref<?x{t}>" for k, t in enumerate(ins))
    loads = "\n".join(f"      %a{k} = memref.load %in{k}[%i] : memref<?x{t}>" for k, t in enumerate(ins))
    return f"""
  func.func @{name}(%n: index, {args}, %out: memref<?x{out}>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {{
{loads}
      {body}
      memref.store %r, %out[%i] : memref<?x{out}>
    }}
    func.return
  }}"""


def module_of(*funcs: str) -> str:
    return "builtin.module {" + "".join(funcs) + "\n}\n"


def assert_close(got: np.ndarray, want: np.ndarray, tol: float, what: str = "") -> None:
    """Elementwise relative error <= tol (absolute below 1e-30); NaN must match NaN."""
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(want64)
    assert (np.isnan(got64) == nan).all(), f"{what}: NaN mismatch"
    scale = np.maximum(np.abs(want64[~nan]), 1e-30)
    err = np.abs(got64[~nan] - want64[~nan]) / scale
    inf = np.isinf(want64[~nan])
    assert (got64[~nan][inf] == want64[~nan][inf]).all(), f"{what}: inf mismatch"
    err = err[~inf]
    assert err.size == 0 or err.max() <= tol, f"{what}: max relative error {err.max():.3e} > {tol:.0e}"
