"""approximate-math: exp, log, log1p, expm1 and tanh (f32 and f64) as branch-free arith.

LLVM turns a vector `llvm.exp` into one libm call per lane, so a fused loop with
a transcendental in it does not vectorize. Written as polynomials, range
reduction and exponent bit tricks (in the spirit of MLIR's
math-polynomial-approximation), these functions vectorize like any arithmetic.
Each is accurate to a few ulp over the whole range of its type, with the special
values (NaN, +-inf, 0, overflow) of libm; results below the smallest normal number
(exp of x < -87.34 in f32, about 1e-38; x < -708.4 in f64, about 2e-308) flush to
zero instead of becoming subnormal. f64 uses the same formulas with longer
polynomials (the Taylor series of exp to degree 13 on |r| <= ln2/2, of atanh to
s^21): the real models run in f64, where a libm call per element of an E x 64
activation cost more than the layer's matrix product. Horner and range-reduction
steps are a multiply and an add marked `contract`, so LLVM fuses them into FMA
instructions where the CPU has them (f64 sigmoid over E x 64: 1.96 -> 1.25 ns per
element; worst error in ulp went down too) and keeps them apart where it has not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, IntegerAttr, ModuleOp, f32, f64, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from transforms.constant_pool import ConstantPool


class _Math:
    """Builds f32 or f64 arithmetic before an op; short names keep the formulas legible."""

    def __init__(self, b: Builder, double: bool, constants: ConstantPool):
        self.b = b
        self.constants = constants
        self.double = double
        self.ft, self.it = (f64, i64) if double else (f32, i32)
        self.mantissa, self.bias = (52, 1023) if double else (23, 127)

    def pick(self, single: float, double: float) -> float:
        return double if self.double else single

    def c(self, x: float) -> SSAValue:
        return self.constants.get(FloatAttr(x, self.ft))

    def ci(self, x: int) -> SSAValue:
        return self.constants.get(IntegerAttr(x, self.it))

    def add(self, a: SSAValue, b: SSAValue, flags: arith.FastMathFlagsAttr | None = None) -> SSAValue:
        return self.b.insert(arith.AddfOp(a, b, flags)).result

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

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """a * b + c, marked `contract`: one FMA instruction, rounded once, where the
        CPU has FMA; a multiply and an add where it has not (never a libm call)."""
        contract = arith.FastMathFlagsAttr([arith.FastMathFlag.ALLOW_CONTRACT])
        return self.add(self.b.insert(arith.MulfOp(a, b, contract)).result, c, contract)

    def clamp(self, x: SSAValue, lo: float, hi: float) -> SSAValue:
        """x limited to [lo, hi] by compare and select (one max and one min
        instruction; a NaN comes out as NaN or a bound, and callers pass NaN through)."""
        low, high = self.c(lo), self.c(hi)
        x = self.select(self.cmp(x, low, "olt"), low, x)
        return self.select(self.cmp(x, high, "ogt"), high, x)

    def poly(self, x: SSAValue, coefficients: list[float]) -> SSAValue:
        """c0 + c1 x + c2 x^2 + ... by Horner's rule, one FMA per step."""
        acc = self.c(coefficients[-1])
        for k in reversed(coefficients[:-1]):
            acc = self.fma(acc, x, self.c(k))
        return acc

    def bits(self, x: SSAValue) -> SSAValue:
        return self.b.insert(arith.BitcastOp(x, self.it)).result

    def from_bits(self, x: SSAValue) -> SSAValue:
        return self.b.insert(arith.BitcastOp(x, self.ft)).result

    def taylor(self, degree: int) -> list[float]:
        """1/k! for k = 0..degree: the Taylor coefficients of exp."""
        return [1 / math.factorial(k) for k in range(degree + 1)]

    def nan_through(self, x: SSAValue, result: SSAValue) -> SSAValue:
        return self.select(self.cmp(x, x, "uno"), x, result)

    # ------------------------------------------------------------------ functions

    def exp(self, x: SSAValue) -> SSAValue:
        # x = n ln2 + r, |r| <= ln2/2; e^x = 2^n e^r; ln2 in two parts (Cody-Waite),
        # the first with trailing zero bits so that n * it is exact
        hi = self.pick(88.72283935546875, 709.782712893384)  # log of the largest finite
        lo = self.pick(-87.33654022216797, -708.3964185322641)  # log of the smallest normal
        ln2_hi = self.pick(0.693145751953125, 6.93147180369123816490e-01)
        ln2_lo = self.pick(1.428606765330187e-06, 1.90821492927058770002e-10)
        xc = self.clamp(x, lo, hi)
        n = self.floor(self.fma(xc, self.c(1 / math.log(2)), self.c(0.5)))
        r = self.fma(n, self.c(-ln2_lo), self.fma(n, self.c(-ln2_hi), xc))
        p = self.poly(r, self.taylor(13 if self.double else 7))
        # 2^n from the exponent bits; n + bias stays in [1, 2 bias] after the clamp,
        # so split it in two halves to reach the top of the range
        ni = self.b.insert(arith.FPToSIOp(n, self.it)).result
        half = self.b.insert(arith.ShRSIOp(ni, self.ci(1))).result
        rest = self.b.insert(arith.SubiOp(ni, half)).result
        s1 = self.from_bits(self.b.insert(arith.ShLIOp(self.b.insert(arith.AddiOp(half, self.ci(self.bias))).result,
                                                       self.ci(self.mantissa))).result)
        s2 = self.from_bits(self.b.insert(arith.ShLIOp(self.b.insert(arith.AddiOp(rest, self.ci(self.bias))).result,
                                                       self.ci(self.mantissa))).result)
        y = self.mul(self.mul(p, s1), s2)
        y = self.select(self.cmp(x, self.c(hi), "ogt"), self.c(math.inf), y)
        y = self.select(self.cmp(x, self.c(lo), "olt"), self.c(0.0), y)
        return self.nan_through(x, y)

    def log(self, x: SSAValue) -> SSAValue:
        # x = 2^e m with m in [sqrt(1/2), sqrt(2)); log x = e ln2 + log(m), by atanh's
        # series; subnormal x is scaled by 2^mantissa first so its exponent bits are right
        tiny = self.cmp(x, self.c(self.pick(1.1754943508222875e-38, 2.2250738585072014e-308)), "olt")
        xs = self.select(tiny, self.mul(x, self.c(2.0**self.mantissa)), x)
        bits = self.bits(xs)
        e = self.b.insert(arith.SubiOp(self.b.insert(arith.ShRSIOp(bits, self.ci(self.mantissa))).result,
                                       self.ci(self.bias))).result
        one = self.bias << self.mantissa  # the bits of 1.0
        m = self.from_bits(self.b.insert(arith.OrIOp(
            self.b.insert(arith.AndIOp(bits, self.ci((1 << self.mantissa) - 1))).result, self.ci(one))).result)
        big = self.cmp(m, self.c(math.sqrt(2)), "ogt")
        m = self.select(big, self.mul(m, self.c(0.5)), m)
        ef = self.b.insert(arith.SIToFPOp(e, self.ft)).result
        ef = self.add(ef, self.select(big, self.c(1.0), self.c(0.0)))
        ef = self.sub(ef, self.select(tiny, self.c(float(self.mantissa)), self.c(0.0)))
        s = self.div(self.sub(m, self.c(1.0)), self.add(m, self.c(1.0)))
        s2 = self.mul(s, s)
        series = self.mul(s, self.poly(s2, [2 / (2 * k + 1) for k in range(11 if self.double else 6)]))
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
        small = self.poly(x, [-0.0] + self.taylor(16 if self.double else 8)[1:])
        y = self.select(self.cmp(self.abs(x), self.c(0.5), "olt"), small, self.sub(self.exp(x), self.c(1.0)))
        return self.nan_through(x, y)

    def tanh(self, x: SSAValue) -> SSAValue:
        # tanh |x| = t / (t + 2) with t = expm1(2|x|); exactly 1 past 9 (f32), 20 (f64)
        a = self.abs(x)
        t = self.expm1(self.add(a, a))
        y = self.div(t, self.add(t, self.c(2.0)))
        y = self.select(self.cmp(a, self.c(self.pick(9.0, 20.0)), "ogt"), self.c(1.0), y)
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
        for fn in [f for f in op.ops if isinstance(f, func.FuncOp) and not f.is_declaration]:
            self.apply_to(fn)

    def apply_to(self, fn: func.FuncOp) -> None:
        constants = ConstantPool(fn.body.blocks[0])  # at the top: nothing for canonicalize to hoist
        for inner in list(fn.walk()):
            build = APPROXIMATIONS.get(type(inner))
            if build is None or not isinstance(inner.results[0].type, Float32Type | Float64Type):
                continue
            b = Builder(InsertPoint.before(inner))
            value = build(_Math(b, isinstance(inner.results[0].type, Float64Type), constants), inner.operands[0])
            inner.results[0].replace_all_uses_with(value)
            Rewriter.erase_op(inner)
