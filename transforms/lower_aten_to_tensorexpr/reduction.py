"""Reductions: te.reduce over the reduced dims, then a te.compute for what follows."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    TensorType,
    f64,
    i1,
)
from xdsl.ir import Attribute, SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import (
    LoweringError,
    _abs,
    cast,
    const,
    constant_value,
    is_float,
    width,
)


class ReductionLowerings(LoweringBase):
    def accumulator(self, t: Attribute, extents: list[SSAValue]) -> Attribute:
        """f32 sums over a dynamic (or long) axis accumulate in f64."""
        long = any(constant_value(e) is None or constant_value(e) > 256 for e in extents)
        return f64 if is_float(t) and width(t) < 64 and long else t

    def _reduce(self, op: aten.AtenOp, kind: str, value: Callable[[Builder, SSAValue, Attribute], SSAValue] | None = None,
                finish: Callable[[Builder, SSAValue, Attribute, list[SSAValue]], SSAValue] | None = None) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        src = op.input  # type: ignore[attr-defined]
        shape = aten.shape_of(src)
        if isinstance(op, aten.ReduceOp):
            reduced = sorted(op.reduced_dims())
            keep = aten.bool_prop(op, "keepdim")
        else:
            reduced, keep = list(range(len(shape))), False
        src_ext = self.dims(src)
        kept = [k for k in range(len(shape)) if k not in reduced]
        red_ext = [src_ext[k] for k in reduced]
        out_ext = [self.index(1) if k in reduced else src_ext[k] for k in range(len(shape))] if keep else [src_ext[k] for k in kept]
        acc = self.accumulator(t.get_element_type(), red_ext)
        acc_t = TensorType(acc, t.get_shape())
        n_out = len(out_ext)

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            out_idx, red_idx = idx[:n_out], idx[n_out:]
            full: list[SSAValue] = []
            it_out = iter(out_idx if not keep else [out_idx[k] for k in kept])
            it_red = iter(red_idx)
            for k in range(len(shape)):
                full.append(next(it_red) if k in reduced else next(it_out))
            x = cast(b, self.load(b, src, full), acc)
            return value(b, x, acc) if value else x

        result = self.reduce(kind, acc_t, out_ext, red_ext, body)
        if finish is None and acc == t.get_element_type():
            return result
        r = result
        fin = finish

        def post(b: Builder, idx: list[SSAValue]) -> SSAValue:
            x = self.load(b, r, idx)
            if fin:
                x = fin(b, x, acc, red_ext)
            return cast(b, x, t.get_element_type())

        return self.compute(t, out_ext, post)

    def _mean(self, b: Builder, x: SSAValue, t: Attribute, red_ext: list[SSAValue]) -> SSAValue:
        n = cast(b, self.numel(b, red_ext), t)
        return b.insert(arith.DivfOp(x, n)).result

    def lower_SumDimIntList(self, op: aten.AtenOp) -> SSAValue:
        return self._reduce(op, "add")

    lower_Sum = lower_SumDimIntList

    def lower_MeanDim(self, op: aten.AtenOp) -> SSAValue:
        return self._reduce(op, "add", finish=self._mean)

    lower_Mean = lower_MeanDim

    def lower_Amax(self, op: aten.AtenOp) -> SSAValue:
        return self._reduce(op, "max")

    def lower_Amin(self, op: aten.AtenOp) -> SSAValue:
        return self._reduce(op, "min")

    def lower_LinalgVectorNorm(self, op: aten.LinalgVectorNormOp) -> SSAValue:
        p = 2.0 if op.ord is None else constant_value(op.ord)
        if not isinstance(p, (int, float)):
            raise LoweringError(f"{op.name}: the order must be a constant")
        p = float(p)
        if math.isinf(p):
            return self._reduce(op, "max" if p > 0 else "min", value=lambda b, x, t: _abs(b, [x], t))
        if p == 0:
            return self._reduce(op, "add", value=lambda b, x, t: cast(b, cast(b, x, i1), t))

        def power(b: Builder, x: SSAValue, t: Attribute) -> SSAValue:
            a = _abs(b, [x], t)
            if p == 1:
                return a
            if p == 2:
                return b.insert(arith.MulfOp(a, a)).result
            return b.insert(xmath.PowFOp(a, const(b, p, t))).result

        def root(b: Builder, x: SSAValue, t: Attribute, _: list[SSAValue]) -> SSAValue:
            if p == 1:
                return x
            if p == 2:
                return b.insert(xmath.SqrtOp(x)).result
            return b.insert(xmath.PowFOp(x, const(b, 1.0 / p, t))).result

        return self._reduce(op, "add", value=power, finish=root)

