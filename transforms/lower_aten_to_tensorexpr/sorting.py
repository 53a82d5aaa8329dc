"""Sorting (sort, topk) as ranking: each element's place along the dim is the count
of elements ordered before it (ties by position: stable), then each place picks the
element (and its position) whose place it is. Quadratic in the length of the sorted
dim, with no data-dependent control flow; meant for short dims (neighbours of an
atom, species, channels).

Searching (searchsorted) the same way: a value's insertion point is the count of the
sequence's elements before it, a te.reduce over the sequence."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import Attribute, IntegerType, TensorType, f64, i1, i64
from xdsl.ir import SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import cast, const, is_float, width


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

    def _searchsorted(self, op: aten.SearchsortedLike, value: Callable[[Builder, list[SSAValue]], SSAValue],
                      out_ext: list[SSAValue], value_type: Attribute, value_rank: int | None) -> SSAValue:
        """out[.., j] = the count of k with !(seq[.., k] >= v) (!(seq[.., k] > v) for
        right), v = self[.., j]: torch's binary-search predicate, so the count is its
        answer on any sorted sequence (NaN last). A te.reduce over the sequence: O(M)
        per value where a binary search is O(log M), but exact, branch-free and
        vectorizable, with no loop inside a body (which te bodies do not hold); bins
        and species tables are short. `sorter` reads the sequence through its indices."""
        t = op.result.type
        assert isinstance(t, TensorType)
        seq = op.sorted_sequence
        seq_ext = self.dims(seq)
        m, lead = seq_ext[-1], len(seq_ext) - 1
        common = _common_type(aten.elem_of(seq), value_type, value_rank)
        right = op.is_right()
        sorter = op.sorter

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            at, k = idx[:-1], idx[-1]
            row = at[:lead]
            if sorter is not None:
                k = self.to_index(b, self.load(b, sorter, row + [k]), m, "searchsorted: sorter", sorter)
            x = cast(b, self.load(b, seq, row + [k]), common)
            v = cast(b, value(b, at), common)
            if is_float(common):
                before = b.insert(arith.CmpfOp(x, v, "ule" if right else "ult")).result
            else:
                before = b.insert(arith.CmpiOp(x, v, "sle" if right else "slt")).result
            return cast(b, before, t.get_element_type())

        return self.reduce("add", t, out_ext, [m], body)

    def lower_SearchsortedTensor(self, op: aten.SearchsortedTensorOp) -> SSAValue:
        return self._searchsorted(op, lambda b, at: self.load(b, op.input, at), self.dims(op.input),
                                  aten.elem_of(op.input), len(aten.shape_of(op.input)))

    def lower_SearchsortedScalar(self, op: aten.SearchsortedScalarOp) -> SSAValue:
        return self._searchsorted(op, lambda b, at: op.input, [], op.input.type, None)


def _common_type(seq: Attribute, value: Attribute, value_rank: int | None) -> Attribute:
    """The type both sides are compared in: torch's result_type of the sequence and
    the values (`value_rank` None: a Python scalar). Values of a lower or equal kind
    (bool < int < float) take the sequence's type unless they are a tensor of rank > 0
    (then the wider of the two); a float scalar against an integer sequence compares
    in f64 (torch: the default dtype, f32; they differ only past 2**24)."""
    kind = lambda t: 2 if is_float(t) else 1 if isinstance(t, IntegerType) and t.width.data > 1 else 0  # noqa: E731
    if value_rank is not None and value_rank > 0 and kind(value) == kind(seq):
        return seq if width(seq) >= width(value) else value
    if kind(value) <= kind(seq):
        return seq
    return f64 if value_rank is None and is_float(value) else value
