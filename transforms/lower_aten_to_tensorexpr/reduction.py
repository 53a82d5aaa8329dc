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
from dialects import tensorexpr as te
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import (
    LoweringError,
    absolute,
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

    def _space(self, op: aten.AtenOp) -> tuple[list[SSAValue], list[SSAValue], Callable[[list[SSAValue]], list[SSAValue]]]:
        """(result extents, reduced extents, and the map from (result index, reduced
        index) to the index of the input) of a reduction op."""
        src = op.input  # type: ignore[attr-defined]
        shape = aten.shape_of(src)
        reduced_dims = getattr(op, "reduced_dims", None)
        reduced = sorted(reduced_dims()) if reduced_dims else list(range(len(shape)))
        keep = aten.bool_prop(op, "keepdim")
        src_ext = self.dims(src)
        kept = [k for k in range(len(shape)) if k not in reduced]
        red_ext = [src_ext[k] for k in reduced]
        out_ext = [self.index(1) if k in reduced else src_ext[k] for k in range(len(shape))] if keep else [src_ext[k] for k in kept]
        n_out = len(out_ext)

        def full(idx: list[SSAValue]) -> list[SSAValue]:
            out_idx, red_idx = idx[:n_out], idx[n_out:]
            it_out = iter(out_idx if not keep else [out_idx[k] for k in kept])
            it_red = iter(red_idx)
            return [next(it_red) if k in reduced else next(it_out) for k in range(len(shape))]

        return out_ext, red_ext, full

    def _reduce(self, op: aten.AtenOp, kind: str, value: Callable[[Builder, SSAValue, Attribute], SSAValue] | None = None,
                finish: Callable[[Builder, SSAValue, Attribute, list[SSAValue]], SSAValue] | None = None,
                result: int = 0) -> SSAValue:
        t = op.results[result].type
        assert isinstance(t, TensorType)
        src = op.input  # type: ignore[attr-defined]
        out_ext, red_ext, full = self._space(op)
        acc = self.accumulator(t.get_element_type(), red_ext)
        acc_t = TensorType(acc, t.get_shape())

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            x = cast(b, self.load(b, src, full(idx)), acc)
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
            return self._reduce(op, "max" if p > 0 else "min", value=lambda b, x, t: absolute(b, [x], t))
        if p == 0:
            return self._reduce(op, "add", value=lambda b, x, t: cast(b, cast(b, x, i1), t))

        def power(b: Builder, x: SSAValue, t: Attribute) -> SSAValue:
            a = absolute(b, [x], t)
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


    def lower_Prod(self, op: aten.AtenOp) -> SSAValue:
        return self._reduce(op, "mul")

    lower_ProdDimInt = lower_Prod

    def _first_extreme(self, op: aten.AtenOp, extreme: SSAValue, flat: bool) -> SSAValue:
        """The first index along the reduced dims (flattened when `flat`) where the
        input equals `extreme` or is NaN (torch's max and argmax rank NaN highest)."""
        t = op.results[-1].type
        assert isinstance(t, TensorType)
        it = t.get_element_type()
        src = op.input  # type: ignore[attr-defined]
        out_ext, red_ext, full = self._space(op)
        n_out = len(out_ext)
        big = self.numel(self.b, red_ext)

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            x = self.load(b, src, full(idx))
            m = self.load(b, extreme, idx[:n_out])
            if is_float(x.type):
                hit = b.insert(arith.OrIOp(b.insert(arith.CmpfOp(x, m, "oeq")).result,
                                           b.insert(arith.CmpfOp(x, x, "uno")).result)).result
            else:
                hit = b.insert(arith.CmpiOp(x, m, "eq")).result
            k = self.linearize(b, idx[n_out:], red_ext) if flat else idx[-1]
            return cast(b, b.insert(arith.SelectOp(hit, k, big)).result, it)

        return self.reduce("min", t, out_ext, red_ext, body)

    def _extreme(self, op: aten.AtenOp, kind: str) -> SSAValue:
        """max or min of the input over the reduced dims, in its own dtype."""
        src_t = aten.elem_of(op.input)  # type: ignore[attr-defined]
        out_ext, red_ext, full = self._space(op)
        t = TensorType(src_t, op.results[-1].type.get_shape())  # type: ignore[attr-defined]
        src = op.input  # type: ignore[attr-defined]
        return self.reduce(kind, t, out_ext, red_ext, lambda b, idx: self.load(b, src, full(idx)))

    def lower_Argmax(self, op: aten.AtenOp) -> SSAValue:
        flat = op.properties.get("dim") is None
        return self._first_extreme(op, self._extreme(op, "max"), flat)

    def lower_Argmin(self, op: aten.AtenOp) -> SSAValue:
        flat = op.properties.get("dim") is None
        return self._first_extreme(op, self._extreme(op, "min"), flat)

    def lower_MaxDim(self, op: aten.AtenOp) -> list[SSAValue]:
        values = self._extreme(op, "max")
        return [values, self._first_extreme(op, values, False)]

    def lower_MinDim(self, op: aten.AtenOp) -> list[SSAValue]:
        values = self._extreme(op, "min")
        return [values, self._first_extreme(op, values, False)]

    def _variance(self, op: aten.AtenOp) -> tuple[SSAValue, SSAValue]:
        """(variance, mean): the mean first, then the sum of squared deviations from
        it (two passes: no cancellation), divided by max(n - correction, 0)."""
        src = op.input  # type: ignore[attr-defined]
        var_t = op.results[0].type
        assert isinstance(var_t, TensorType)
        out_ext, red_ext, full = self._space(op)
        acc = self.accumulator(var_t.get_element_type(), red_ext)
        acc_t = TensorType(acc, var_t.get_shape())
        total = self.reduce("add", acc_t, out_ext, red_ext, lambda b, idx: cast(b, self.load(b, src, full(idx)), acc))

        def mean_of(b: Builder, idx: list[SSAValue]) -> SSAValue:
            return b.insert(arith.DivfOp(self.load(b, total, idx), cast(b, self.numel(b, red_ext), acc))).result

        mean = self.compute(acc_t, out_ext, mean_of)
        n_out = len(out_ext)

        def squares(b: Builder, idx: list[SSAValue]) -> SSAValue:
            d = b.insert(arith.SubfOp(cast(b, self.load(b, src, full(idx)), acc), self.load(b, mean, idx[:n_out]))).result
            return b.insert(arith.MulfOp(d, d)).result

        ss = self.reduce("add", acc_t, out_ext, red_ext, squares)
        correction = op.correction  # type: ignore[attr-defined]

        def divide(b: Builder, idx: list[SSAValue]) -> SSAValue:
            n = cast(b, self.numel(b, red_ext), acc)
            c = const(b, 1.0, acc) if correction is None else cast(b, correction, acc)
            dof = b.insert(arith.MaximumfOp(b.insert(arith.SubfOp(n, c)).result, const(b, 0.0, acc))).result
            return cast(b, b.insert(arith.DivfOp(self.load(b, ss, idx), dof)).result, var_t.get_element_type())

        return self.compute(var_t, out_ext, divide), mean

    def lower_VarCorrection(self, op: aten.AtenOp) -> SSAValue:
        return self._variance(op)[0]

    def lower_VarMeanCorrection(self, op: aten.AtenOp) -> list[SSAValue]:
        var, mean = self._variance(op)
        t = op.results[1].type
        assert isinstance(t, TensorType)
        if mean.type != t:
            m = mean
            mean = self.compute(t, self.dims(var), lambda b, idx: cast(b, self.load(b, m, idx), t.get_element_type()))
        return [var, mean]

    def lower_Cumsum(self, op: aten.CumsumOp) -> SSAValue:
        """te.scan "add" along the dim, in the accumulator type (f64 for f32 over a
        long or dynamic dim, as torch accumulates in double on the CPU)."""
        t = op.result.type
        assert isinstance(t, TensorType)
        rank = len(aten.shape_of(op.input))
        ext = self.dims(op.input)
        et = t.get_element_type()
        if rank == 0:
            return self.compute(t, [], lambda b, idx: cast(b, self.load(b, op.input, []), et))
        d = aten.int_prop(op, "dim", 0) % rank
        acc = self.accumulator(et, [ext[d]])
        acc_t = TensorType(acc, t.get_shape())
        terms = self.compute(acc_t, ext, lambda b, idx: cast(b, self.load(b, op.input, idx), acc))
        scan = self.b.insert(te.ScanOp("add", terms, d))
        self.extents[scan.result] = ext
        if acc == et:
            return scan.result
        return self.compute(t, ext, lambda b, idx: cast(b, self.load(b, scan.result, idx), et))
