"""approximate-math: f32 exp, log, log1p, expm1 and tanh as branch-free arith.

LLVM turns a vector `llvm.exp` into one libm call per lane, so a fused loop with
a transcendental in it does not vectorize. Written as polynomials, range
reduction and exponent bit tricks (in the spirit of MLIR's
math-polynomial-approximation), these functions vectorize like any arithmetic.
Each is accurate to a few ulp over the whole f32 range, with the special values
(NaN, +-inf, 0, overflow) of libm; results below the smallest normal f32 (exp of
x < -87.34, about 1e-38) flush to zero instead of becoming subnormal. f64 keeps libm: its tolerance is
far tighter and the models' speed-critical paths are f32.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, ModuleOp, f32, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


class _Math:
    """Builds f32 arithmetic before an op; short names keep the formulas legible."""

    def __init__(self, b: Builder):
        self.b = b

    def c(self, x: float) -> SSAValue:
        return self.b.insert(arith.ConstantOp(FloatAttr(x, f32))).result

    def ci(self, x: int) -> SSAValue:
        return self.b.insert(arith.ConstantOp(IntegerAttr(x, i32))).result

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.b.insert(arith.AddfOp(a, b)).result

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.b.insert(arith.SubfOp(a, b)).result

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.b.insert(arith.MulfOp(a, b)).result

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.b.insert(arith.DivfOp(a, b)).result

    def cmp(self, a: SSAValue, b: SSAValue, pred: str) -> SSAValue:
        return self.b.insert(arith.CmpfOp(a, b, pred)).result

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.b.insert(arith.SelectOp(c, a, b)).result

    def abs(self, a: SSAValue) -> SSAValue:
        return self.b.insert(xmath.AbsFOp(a)).result

    def copysign(self, a: SSAValue, sign: SSAValue) -> SSAValue:
        return self.b.insert(xmath.CopySignOp(a, sign)).result

    def floor(self, a: SSAValue) -> SSAValue:
        return self.b.insert(xmath.FloorOp(a)).result

    def poly(self, x: SSAValue, coefficients: list[float]) -> SSAValue:
        """c0 + c1 x + c2 x^2 + ... by Horner's rule."""
        acc = self.c(coefficients[-1])
        for k in reversed(coefficients[:-1]):
            acc = self.add(self.mul(acc, x), self.c(k))
        return acc

    def bits(self, x: SSAValue) -> SSAValue:
        return self.b.insert(arith.BitcastOp(x, i32)).result

    def from_bits(self, x: SSAValue) -> SSAValue:
        return self.b.insert(arith.BitcastOp(x, f32)).result

    def nan_through(self, x: SSAValue, result: SSAValue) -> SSAValue:
        return self.select(self.cmp(x, x, "uno"), x, result)

    # ------------------------------------------------------------------ functions

    def exp(self, x: SSAValue) -> SSAValue:
        # x = n ln2 + r, |r| <= ln2/2; e^x = 2^n e^r
        hi, lo = 88.72283935546875, -87.33654022216797
        xc = self.b.insert(arith.MinimumfOp(self.b.insert(arith.MaximumfOp(x, self.c(lo))).result, self.c(hi))).result
        n = self.floor(self.add(self.mul(xc, self.c(1 / math.log(2))), self.c(0.5)))
        r = self.sub(self.sub(xc, self.mul(n, self.c(0.693145751953125))), self.mul(n, self.c(1.428606765330187e-06)))
        p = self.poly(r, [1.0, 1.0, 1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040])
        # 2^n from the exponent bits; n + 127 stays in [1, 254] after the clamp, so
        # split it in two halves to reach 2^128 at the top of the range
        ni = self.b.insert(arith.FPToSIOp(n, i32)).result
        half = self.b.insert(arith.ShRSIOp(ni, self.ci(1))).result
        rest = self.b.insert(arith.SubiOp(ni, half)).result
        s1 = self.from_bits(self.b.insert(arith.ShLIOp(self.b.insert(arith.AddiOp(half, self.ci(127))).result, self.ci(23))).result)
        s2 = self.from_bits(self.b.insert(arith.ShLIOp(self.b.insert(arith.AddiOp(rest, self.ci(127))).result, self.ci(23))).result)
        y = self.mul(self.mul(p, s1), s2)
        y = self.select(self.cmp(x, self.c(hi), "ogt"), self.c(math.inf), y)
        y = self.select(self.cmp(x, self.c(lo), "olt"), self.c(0.0), y)
        return self.nan_through(x, y)

    def log(self, x: SSAValue) -> SSAValue:
        # x = 2^e m with m in [sqrt(1/2), sqrt(2)); log x = e ln2 + log(m), by atanh's
        # series; subnormal x is scaled by 2^23 first so its exponent bits are right
        tiny = self.cmp(x, self.c(1.1754943508222875e-38), "olt")
        xs = self.select(tiny, self.mul(x, self.c(2.0**23)), x)
        bits = self.bits(xs)
        e = self.b.insert(arith.SubiOp(self.b.insert(arith.ShRSIOp(bits, self.ci(23))).result, self.ci(127))).result
        m = self.from_bits(self.b.insert(arith.OrIOp(self.b.insert(arith.AndIOp(bits, self.ci(0x7FFFFF))).result,
                                                    self.ci(0x3F800000))).result)
        big = self.cmp(m, self.c(math.sqrt(2)), "ogt")
        m = self.select(big, self.mul(m, self.c(0.5)), m)
        ef = self.b.insert(arith.SIToFPOp(e, f32)).result
        ef = self.add(ef, self.select(big, self.c(1.0), self.c(0.0)))
        ef = self.sub(ef, self.select(tiny, self.c(23.0), self.c(0.0)))
        s = self.div(self.sub(m, self.c(1.0)), self.add(m, self.c(1.0)))
        s2 = self.mul(s, s)
        series = self.mul(s, self.poly(s2, [2.0, 2 / 3, 2 / 5, 2 / 7, 2 / 9, 2 / 11]))
        y = self.add(self.mul(ef, self.c(math.log(2))), series)
        y = self.select(self.cmp(x, self.c(0.0), "oeq"), self.c(-math.inf), y)
        y = self.select(self.cmp(x, self.c(0.0), "olt"), self.c(math.nan), y)
        y = self.select(self.cmp(x, self.c(math.inf), "oeq"), x, y)
        return self.nan_through(x, y)

    def log1p(self, x: SSAValue) -> SSAValue:
        # log(u) * x / (u - 1) with u = 1 + x cancels the rounding of u (Goldberg)
        u = self.add(x, self.c(1.0))
        d = self.sub(u, self.c(1.0))
        y = self.mul(self.log(u), self.div(x, d))
        y = self.select(self.cmp(d, self.c(0.0), "oeq"), x, y)
        y = self.select(self.cmp(x, self.c(math.inf), "oeq"), x, y)
        return self.nan_through(x, y)

    def expm1(self, x: SSAValue) -> SSAValue:
        # a series near 0 (where exp(x) - 1 cancels), exp(x) - 1 elsewhere; the
        # constant term -0.0 keeps expm1(-0.0) = -0.0
        small = self.poly(x, [-0.0, 1.0, 1 / 2, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040, 1 / 40320])
        y = self.select(self.cmp(self.abs(x), self.c(0.5), "olt"), small, self.sub(self.exp(x), self.c(1.0)))
        return self.nan_through(x, y)

    def tanh(self, x: SSAValue) -> SSAValue:
        # tanh |x| = t / (t + 2) with t = expm1(2|x|); exactly 1 past 9
        a = self.abs(x)
        t = self.expm1(self.add(a, a))
        y = self.div(t, self.add(t, self.c(2.0)))
        y = self.select(self.cmp(a, self.c(9.0), "ogt"), self.c(1.0), y)
        return self.nan_through(x, self.copysign(y, x))


APPROXIMATIONS: dict[type[Operation], Callable[[_Math, SSAValue], SSAValue]] = {
    xmath.ExpOp: _Math.exp,
    xmath.LogOp: _Math.log,
    xmath.Log1pOp: _Math.log1p,
    xmath.ExpM1Op: _Math.expm1,
    xmath.TanhOp: _Math.tanh,
}


@dataclass(frozen=True)
class ApproximateMathPass(ModulePass):
    name = "approximate-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            build = APPROXIMATIONS.get(type(inner))
            if build is None or not isinstance(inner.results[0].type, Float32Type):
                continue
            b = Builder(InsertPoint.before(inner))
            value = build(_Math(b), inner.operands[0])
            inner.results[0].replace_all_uses_with(value)
            Rewriter.erase_op(inner)
