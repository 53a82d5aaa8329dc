"""Sorting (sort, topk) as ranking: each element's place along the dim is the count
of elements ordered before it (ties by position: stable), then each place picks the
element (and its position) whose place it is. Quadratic in the length of the sorted
dim, with no data-dependent control flow; meant for short dims (neighbours of an
atom, species, channels)."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, i1, i64
from xdsl.ir import SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import cast, const, is_float


def _before(b: Builder, a: SSAValue, c: SSAValue, descending: bool) -> SSAValue:
    """Whether a sorts strictly before c; NaN is the largest value (last ascending,
    first descending, as torch sorts)."""
    if not is_float(a.type):
        return b.insert(arith.CmpiOp(a, c, "sgt" if descending else "slt")).result
    a_nan = b.insert(arith.CmpfOp(a, a, "uno")).result
    c_nan = b.insert(arith.CmpfOp(c, c, "uno")).result
    if descending:
        plain = b.insert(arith.CmpfOp(a, c, "ogt")).result
        nan = b.insert(arith.AndIOp(a_nan, b.insert(arith.XOrIOp(c_nan, const(b, 1, i1))).result)).result
    else:
        plain = b.insert(arith.CmpfOp(a, c, "olt")).result
        nan = b.insert(arith.AndIOp(c_nan, b.insert(arith.XOrIOp(a_nan, const(b, 1, i1))).result)).result
    return b.insert(arith.OrIOp(plain, nan)).result


def _same(b: Builder, a: SSAValue, c: SSAValue) -> SSAValue:
    if not is_float(a.type):
        return b.insert(arith.CmpiOp(a, c, "eq")).result
    both_nan = b.insert(arith.AndIOp(b.insert(arith.CmpfOp(a, a, "uno")).result,
                                     b.insert(arith.CmpfOp(c, c, "uno")).result)).result
    return b.insert(arith.OrIOp(b.insert(arith.CmpfOp(a, c, "oeq")).result, both_nan)).result


class SortingLowerings(LoweringBase):
    def _sorted(self, op: aten.SortLikeOp, descending: bool, keep: SSAValue | None) -> list[SSAValue]:
        """(values, indices) of the stable sort along op's dim, restricted to the
        first `keep` places (all when None)."""
        src = op.input
        ext = self.dims(src)
        rank = len(ext)
        vt, it = op.values.type, op.indices.type
        assert isinstance(vt, TensorType) and isinstance(it, TensorType)
        if rank == 0:
            return [self.compute(vt, [], lambda b, idx: self.load(b, src, [])),
                    self.compute(it, [], lambda b, idx: const(b, 0, it.get_element_type()))]
        d = op.sort_dim()

        def count(b: Builder, idx: list[SSAValue]) -> SSAValue:
            at, k = idx[:rank], idx[rank]
            x = self.load(b, src, at)
            y = self.load(b, src, at[:d] + [k] + at[d + 1:])
            tie = b.insert(arith.AndIOp(_same(b, y, x), b.insert(arith.CmpiOp(k, at[d], "ult")).result)).result
            first = b.insert(arith.OrIOp(_before(b, y, x, descending), tie)).result
            return cast(b, first, i64)

        places = self.reduce("add", TensorType(i64, aten.shape_of(src)), ext, [ext[d]], count)
        out_ext = ext[:d] + [keep or ext[d]] + ext[d + 1:]

        def pick(t: TensorType, value) -> SSAValue:  # noqa: ANN001
            """out[.., p, ..]: the one element whose place is p (a max over the dim,
            everything else the lowest value)."""
            et = t.get_element_type()

            def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
                at, k = idx[:rank], idx[rank]
                row = at[:d] + [k] + at[d + 1:]
                hit = b.insert(arith.CmpiOp(self.load(b, places, row), cast(b, at[d], i64), "eq")).result
                lowest = const(b, float("-inf"), et) if is_float(et) else const(b, -(2 ** (et.width.data - 1)), et)  # type: ignore[attr-defined]
                return b.insert(arith.SelectOp(hit, value(b, row, k), lowest)).result

            return self.reduce("max", t, out_ext, [ext[d]], body)

        return [pick(vt, lambda b, row, k: self.load(b, src, row)),
                pick(it, lambda b, row, k: cast(b, k, it.get_element_type()))]

    def lower_Sort(self, op: aten.SortOp) -> list[SSAValue]:
        return self._sorted(op, aten.bool_prop(op, "descending"), None)

    lower_SortStable = lower_Sort

    def lower_Topk(self, op: aten.TopkOp) -> list[SSAValue]:
        largest = op.properties.get("largest") is None or aten.bool_prop(op, "largest")
        return self._sorted(op, largest, op.k)
