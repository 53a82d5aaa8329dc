"""codegen of every math op of the input contract, f32 and f64, vs numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from codegen_helpers import NP, TOL, assert_close, elementwise, jit, module_of

from codegen.jit import JitModule


# ---------------------------------------------------------------------------------------
# math: every op of the input contract, f32 and f64

UNARY = {
    # op: (numpy reference in f64, input domain)
    "exp": (np.exp, (-20, 20)),
    "expm1": (np.expm1, (-5, 5)),
    "log": (np.log, (1e-3, 1e3)),
    "log1p": (np.log1p, (-0.9, 10)),
    "log2": (np.log2, (1e-3, 1e3)),
    "log10": (np.log10, (1e-3, 1e3)),
    "exp2": (np.exp2, (-20, 20)),
    "sqrt": (np.sqrt, (0, 100)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (1e-3, 100)),
    "tanh": (np.tanh, (-5, 5)),
    "sinh": (np.sinh, (-5, 5)),
    "cosh": (np.cosh, (-5, 5)),
    "sin": (np.sin, (-3, 3)),
    "cos": (np.cos, (-1.5, 1.5)),
    "tan": (np.tan, (-1.2, 1.2)),
    "asin": (np.arcsin, (-0.99, 0.99)),
    "acos": (np.arccos, (-0.99, 0.99)),
    "atan": (np.arctan, (-10, 10)),
    "erf": (np.vectorize(math.erf, otypes=[np.float64]), (-3, 3)),
    "cbrt": (np.cbrt, (-10, 10)),
    "absf": (np.abs, (-10, 10)),
    "floor": (np.floor, (-10, 10)),
    "ceil": (np.ceil, (-10, 10)),
    "trunc": (np.trunc, (-10, 10)),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-10, 10)),
    "roundeven": (np.round, (-10, 10)),
}
BINARY = {
    "atan2": (np.arctan2, (-5, 5)),
    "powf": (np.power, (0.1, 4)),
    "copysign": (np.copysign, (-5, 5)),
}
HALVES = np.array([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.0, -0.0])


def _math_module() -> str:
    funcs = []
    for t in ("f32", "f64"):
        for op in UNARY:
            funcs.append(elementwise(f"{op}_{t}", [t], t, f"%r = math.{op} %a0 : {t}"))
        for op in BINARY:
            funcs.append(elementwise(f"{op}_{t}", [t, t], t, f"%r = math.{op} %a0, %a1 : {t}"))
        funcs.append(elementwise(f"fma_{t}", [t, t, t], t, f"%r = math.fma %a0, %a1, %a2 : {t}"))
        funcs.append(elementwise(f"fpowi_{t}", [t, "i32"], t, f"%r = math.fpowi %a0, %a1 : {t}, i32"))
        funcs.append(elementwise(f"fpowi64_{t}", [t, "i64"], t, f"%r = math.fpowi %a0, %a1 : {t}, i64"))
    funcs.append(elementwise("ipowi_i64", ["i64", "i64"], "i64", "%r = math.ipowi %a0, %a1 : i64"))
    funcs.append(elementwise("ipowi_i32", ["i32", "i32"], "i32", "%r = math.ipowi %a0, %a1 : i32"))
    funcs.append(elementwise("absi_i32", ["i32"], "i32", "%r = math.absi %a0 : i32"))
    funcs.append(elementwise("ctpop_i64", ["i64"], "i64", "%r = math.ctpop %a0 : i64"))
    return module_of(*funcs)


@pytest.fixture(scope="module")
def mathmod() -> JitModule:
    return jit(_math_module())


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_math_unary(mathmod, op, t):
    ref, (lo, hi) = UNARY[op]
    for n in (0, 1, 257):
        x = np.random.default_rng(n).uniform(lo, hi, n).astype(NP[t])
        if op in ("floor", "ceil", "trunc", "round", "roundeven", "absf") and n:
            x[: len(HALVES)] = HALVES[:n]
        y = np.full(n, np.nan, NP[t])
        mathmod.callable(f"{op}_{t}")(n, x, y)
        want = ref(x.astype(np.float64)).astype(NP[t]) if op in ("round", "roundeven") else ref(x.astype(np.float64))
        assert_close(y, want, TOL[t], f"math.{op} {t}")


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_math_binary(mathmod, op, t):
    ref, (lo, hi) = BINARY[op]
    rng = np.random.default_rng(1)
    n = 129
    a, b = rng.uniform(lo, hi, n).astype(NP[t]), rng.uniform(lo, hi, n).astype(NP[t])
    y = np.zeros(n, NP[t])
    mathmod.callable(f"{op}_{t}")(n, a, b, y)
    assert_close(y, ref(a.astype(np.float64), b.astype(np.float64)), TOL[t], f"math.{op} {t}")


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_math_fma_fpowi(mathmod, t):
    rng = np.random.default_rng(2)
    n = 65
    a, b, c = (rng.uniform(-3, 3, n).astype(NP[t]) for _ in range(3))
    y = np.zeros(n, NP[t])
    mathmod.callable(f"fma_{t}")(n, a, b, c, y)
    assert_close(y, a.astype(np.float64) * b + c, TOL[t] * 10, "math.fma")
    e = rng.integers(-6, 7, n).astype(np.int32)
    mathmod.callable(f"fpowi_{t}")(n, a, e, y)
    assert_close(y, np.power(a.astype(np.float64), e.astype(np.float64)), TOL[t] * 10, "math.fpowi")
    mathmod.callable(f"fpowi64_{t}")(n, a, e.astype(np.int64), y)
    assert_close(y, np.power(a.astype(np.float64), e.astype(np.float64)), TOL[t] * 10, "math.fpowi i64")


def test_math_integer(mathmod):
    base = np.array([2, -3, 0, 1, -1, 7, 5, -1, 1, 2, 0], np.int64)
    exp_ = np.array([10, 3, 0, -5, -3, 0, 1, -4, 100, -1, 5], np.int64)
    out = np.zeros(len(base), np.int64)
    mathmod.callable("ipowi_i64")(len(base), base, exp_, out)
    want = [b**e if e >= 0 else (1 if b == 1 else (-1) ** (-e) if b == -1 else 0) for b, e in zip(base.tolist(), exp_.tolist())]
    assert out.tolist() == want
    out32 = np.zeros(len(base), np.int32)
    mathmod.callable("ipowi_i32")(len(base), base.astype(np.int32), exp_.astype(np.int32), out32)
    assert out32.tolist() == [int(np.int32(w)) for w in want]
    v = np.array([-5, 0, 7, -(2**31) + 1], np.int32)
    mathmod.callable("absi_i32")(len(v), v, out32)
    assert out32[: len(v)].tolist() == np.abs(v).tolist()
    p = np.array([0, 1, 255, -1], np.int64)
    mathmod.callable("ctpop_i64")(len(p), p, out)
    assert out[:4].tolist() == [0, 1, 8, 64]


def test_private_helpers_are_internal(mathmod):
    assert "define internal i64 @__codegen_ipowi_i64" in mathmod.ir_before.replace('"', "") or \
        "__codegen_ipowi_i64" not in mathmod.ir_after  # inlined and gone
    assert "__codegen_ipowi_i64" not in mathmod.function_names
