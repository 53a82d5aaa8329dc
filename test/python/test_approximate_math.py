"""approximate-math against libm, in ulps, f32 and f64, over each function's whole range.

The pass replaces libm calls with branch-free arithmetic so that loops vectorize; its
results must stay within a few ulp of the correctly rounded value (numpy's libm,
evaluated in float64 for the f32 functions and compared in float64 for the f64 ones)
and keep libm's special values. Below the smallest normal number exp flushes to zero.
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
import pytest
from test_codegen import elementwise, module_of, parse
from xdsl.context import Context

from codegen.jit import JitModule
from codegen.lowering import lower_to_llvm
from transforms.approximate_math import ApproximateMathPass

FUNCTIONS = {
    # name: (numpy reference, range of x drawn log-uniformly in magnitude, sign)
    "exp": (np.exp, {"f32": (-87.3, 88.7), "f64": (-708.3, 709.7)}),
    "expm1": (np.expm1, {"f32": (-20.0, 88.7), "f64": (-40.0, 709.7)}),
    "log": (np.log, {"f32": (1e-37, 3e38), "f64": (1e-307, 1e308)}),
    "log1p": (np.log1p, {"f32": (-0.999, 3e38), "f64": (-0.999999, 1e308)}),
    "tanh": (np.tanh, {"f32": (-30.0, 30.0), "f64": (-30.0, 30.0)}),
}
MAX_ULP = {"exp": 2, "expm1": 3, "log": 3, "log1p": 4, "tanh": 4}
NP = {"f32": np.float32, "f64": np.float64}
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1.0, -1.0, 0.5, -0.5]


@pytest.fixture(scope="module")
def kernels() -> JitModule:
    funcs = [elementwise(f"{op}_{t}", [t], t, f"%r = math.{op} %a0 : {t}") for t in NP for op in FUNCTIONS]
    module = parse(module_of(*funcs))
    ApproximateMathPass().apply(Context(), module)
    text = str(module)
    assert "math.exp" not in text and "math.log" not in text and "math.tanh" not in text
    lower_to_llvm(module)
    return JitModule(module)


def _draw(lo: float, hi: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """Values over [lo, hi], dense near zero and spread over the magnitudes."""
    uniform = rng.uniform(lo, hi, n)
    top = max(abs(lo), abs(hi))
    magnitudes = np.exp(rng.uniform(np.log(1e-12), np.log(top), n))
    signed = np.where(rng.random(n) < 0.5, -magnitudes, magnitudes)
    return np.concatenate([uniform, signed[(signed >= lo) & (signed <= hi)]])


def _ulps(got: np.ndarray, want: np.ndarray, t: str) -> np.ndarray:
    spacing = np.spacing(np.abs(want.astype(NP[t]))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(FUNCTIONS))
def test_within_a_few_ulp_of_libm(kernels: JitModule, op: str, t: str) -> None:
    ref, ranges = FUNCTIONS[op]
    x = _draw(*ranges[t], 20000, np.random.default_rng(len(op))).astype(NP[t])
    y = np.full_like(x, np.nan)
    kernels.callable(f"{op}_{t}")(len(x), x, y)
    want = ref(x.astype(np.float64))
    if t == "f64":  # numpy's f64 result is the reference itself (libm: < 1 ulp)
        want = ref(x)
    ulps = _ulps(y, want, t)
    worst = int(np.argmax(ulps))
    assert ulps[worst] <= MAX_ULP[op], f"{op} {t}: {ulps[worst]:.1f} ulp at x = {x[worst]!r} ({y[worst]!r} vs {want[worst]!r})"


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", sorted(FUNCTIONS))
def test_special_values_as_libm(kernels: JitModule, op: str, t: str) -> None:
    ref = FUNCTIONS[op][0]
    big = float(np.finfo(NP[t]).max)
    subnormal = float(np.finfo(NP[t]).smallest_subnormal)
    x = np.array(SPECIAL + [big, -big, 1000.0, -1000.0, subnormal, 1000 * subnormal], dtype=NP[t])
    y = np.full_like(x, 7.0)
    kernels.callable(f"{op}_{t}")(len(x), x, y)
    with np.errstate(all="ignore"):
        want = ref(x)
    for xi, got, w in zip(x, y, want):
        if np.isnan(w):
            assert np.isnan(got), f"{op}({xi!r}) = {got!r}, libm: nan"
        elif np.isinf(w) or w == 0:
            assert got == w and np.signbit(got) == np.signbit(w), f"{op}({xi!r}) = {got!r}, libm: {w!r}"
        else:
            assert _ulps(np.array([got]), np.array([w], dtype=np.float64), t)[0] <= MAX_ULP[op], f"{op}({xi!r})"


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_exp_flushes_below_the_smallest_normal_to_zero(kernels: JitModule, t: str) -> None:
    tiny = float(np.finfo(NP[t]).tiny)
    x = np.array([np.log(tiny) * 1.001, np.log(tiny) * 1.05], dtype=NP[t])
    y = np.full_like(x, 7.0)
    kernels.callable(f"exp_{t}")(len(x), x, y)
    assert (y == 0).all()


def test_polynomial_steps_become_fma_instructions(kernels: JitModule) -> None:
    """The Horner and reduction steps are marked `contract`: on a CPU with FMA each is
    one fused instruction (half the work of a multiply and an add, one rounding)."""
    if "+fma" not in llvm.get_host_cpu_features().flatten().split(","):
        pytest.skip("this CPU has no FMA")
    assembly = kernels.compiled.assembly
    exp64 = assembly[assembly.index("exp_f64:"):]
    exp64 = exp64[:exp64.index(".Lfunc_end")]
    assert exp64.count("vfmadd") + exp64.count("vfnmadd") >= 13, exp64
