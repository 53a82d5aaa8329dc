"""Views: index maps inlined into the loads of their consumers, never copies."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import cast, const, constant_value, same_extent


class ViewLowerings(LoweringBase):

    def view(self, op: aten.AtenOp, extents: Sequence[SSAValue | None], at: Callable[[Builder, list[SSAValue]], list[SSAValue]]) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        src = op.input  # type: ignore[attr-defined]
        return self.compute(t, extents, lambda b, idx: self.load(b, src, at(b, idx)), view=True)

    def lower_Permute(self, op: aten.PermuteOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        perm = [d % rank for d in aten.ints_prop(op, "dims") or ()]
        src = self.dims(op.input)

        def at(b: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            out: list[SSAValue] = [idx[0]] * rank
            for k, p in enumerate(perm):
                out[p] = idx[k]
            return out

        return self.view(op, [src[p] for p in perm], at)

    def lower_Unsqueeze(self, op: aten.UnsqueezeOp) -> SSAValue:
        rank = len(aten.shape_of(op.input)) + 1
        d = aten.int_prop(op, "dim", 0) % rank
        src = self.dims(op.input)
        return self.view(op, src[:d] + [self.index(1)] + src[d:], lambda b, idx: idx[:d] + idx[d + 1:])

    def lower_SqueezeDims(self, op: aten.SqueezeDimsOp) -> SSAValue:
        shape = aten.shape_of(op.input)
        dims = {d % max(len(shape), 1) for d in aten.ints_prop(op, "dim") or ()}
        gone = [k for k in range(len(shape)) if k in dims and shape[k] == 1]
        src = self.dims(op.input)
        kept = [e for k, e in enumerate(src) if k not in gone]

        def at(b: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            it = iter(idx)
            return [self.index(0) if k in gone else next(it) for k in range(len(shape))]

        return self.view(op, kept, at)

    def lower_SelectInt(self, op: aten.SelectIntOp) -> SSAValue:
        shape = aten.shape_of(op.input)
        d = aten.int_prop(op, "dim", 0) % len(shape)
        src = self.dims(op.input)
        at = self.position(op, op.index, d, op.input)
        return self.view(op, src[:d] + src[d + 1:], lambda b, idx: idx[:d] + [at(b)] + idx[d:])


    def lower_SliceTensor(self, op: aten.SliceTensorOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        d = aten.int_prop(op, "dim", 0) % rank
        src = self.dims(op.input)
        start, step, count = self.slice_bounds(self.b, op, src[d])

        def at(b: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            return idx[:d] + [self.affine(b, idx[d], step, start)] + idx[d + 1:]

        return self.view(op, src[:d] + [count] + src[d + 1:], at)


    def lower_Expand(self, op: aten.ExpandOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        shape, src = aten.shape_of(op.input), self.dims(op.input)
        lead = len(op.size) - len(shape)
        extents: list[SSAValue | None] = []
        for k, s in enumerate(op.size):
            keep = constant_value(s) == -1
            extents.append(src[k - lead] if keep and k >= lead else s)
        return self.view(op, extents, lambda b, idx: [
            self.index(0) if d == 1 and t.get_shape()[lead + k] != 1 else idx[lead + k]
            for k, d in enumerate(shape)
        ])

    def lower_View(self, op: aten.AtenOp) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        src = self.dims(op.input)  # type: ignore[attr-defined]
        sizes = list(op.size)  # type: ignore[attr-defined]
        b = self.b
        if any(constant_value(s) == -1 for s in sizes):
            known = self.numel(b, [s for s in sizes if constant_value(s) != -1])
            inferred = b.insert(arith.DivUIOp(self.numel(b, src), known)).result
            sizes = [inferred if constant_value(s) == -1 else s for s in sizes]
        out = self.result_extents(t, sizes)
        # dims that stay the same at the front map one to one
        same = 0
        while same < min(len(src), len(out)) and same_extent(src[same], out[same]):
            same += 1

        def at(bb: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            if len(src) == same and len(out) == same:
                return idx
            flat = self.linearize(bb, idx[same:], out[same:])
            return idx[:same] + self.delinearize(bb, flat, src[same:])

        return self.view(op, out, at)

    lower_UnsafeView = lower_View


    def _diagonal(self, op: aten.AtenOp) -> tuple[list[SSAValue], Callable[[Builder, list[SSAValue]], list[SSAValue]]]:
        """The extents of the diagonal of op's dim1 and dim2 (shifted by offset; the
        last dim), and the map from its index to the index of self."""
        d1, d2, offset = op.diagonal_dims()  # type: ignore[attr-defined]
        src = self.dims(op.input)  # type: ignore[attr-defined]
        rank = len(src)
        b = self.b
        shift = self.index(abs(offset))
        # the length: min(size1, size2 - offset) (offset >= 0) or min(size1 + offset, size2), >= 0
        a, c = src[d1], src[d2]
        if offset >= 0:
            c = b.insert(arith.SubiOp(c, shift)).result
        else:
            a = b.insert(arith.SubiOp(a, shift)).result
        n = b.insert(arith.MaxSIOp(b.insert(arith.MinSIOp(a, c)).result, self.index(0))).result
        rest = [e for k, e in enumerate(src) if k not in (d1, d2)]

        def at(bb: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            it = iter(idx[:-1])
            i = idx[-1]
            i1 = i if offset >= 0 else self.affine(bb, i, self.index(1), shift)
            i2 = self.affine(bb, i, self.index(1), shift) if offset > 0 else i
            return [i1 if k == d1 else i2 if k == d2 else next(it) for k in range(rank)]

        return rest + [n], at

    def lower_Diagonal(self, op: aten.DiagonalOp) -> SSAValue:
        return self.view(op, *self._diagonal(op))

    def lower_DiagonalScatter(self, op: aten.DiagonalScatterOp) -> SSAValue:
        extents, at = self._diagonal(op)
        et = aten.elem_of(op.result)
        return self.scatter("assign", op.input, extents, lambda b, idx: (at(b, idx), cast(b, self.load(b, op.src, idx), et)))

    def lower_Flip(self, op: aten.FlipOp) -> SSAValue:
        src = self.dims(op.input)
        dims = {d % len(src) for d in aten.ints_prop(op, "dims") or ()}
        last = {d: self.b.insert(arith.SubiOp(src[d], self.index(1))).result for d in sorted(dims)}

        def at(b: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            return [b.insert(arith.SubiOp(last[k], i)).result if k in dims else i for k, i in enumerate(idx)]

        return self.view(op, src, at)

    def lower_AsStrided(self, op: aten.AsStridedOp) -> SSAValue:
        """Element offset + sum of index * stride, in the contiguous order of self."""
        src = self.dims(op.input)
        offset = op.storage_offset

        def at(b: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            flat = offset if offset is not None else self.index(0)
            for i, stride in zip(idx, op.stride):
                flat = b.insert(arith.AddiOp(flat, b.insert(arith.MuliOp(i, stride)).result)).result
            return self.delinearize(b, flat, src)

        return self.view(op, list(op.size), at)

    def lower_SplitWithSizes(self, op: aten.SplitWithSizesOp) -> list[SSAValue]:
        src = self.dims(op.input)
        d = aten.int_prop(op, "dim", 0) % len(src)
        pieces: list[SSAValue] = []
        start = self.index(0)
        for size, result in zip(op.split_sizes, op.pieces):
            t = result.type
            assert isinstance(t, TensorType)
            s = start
            pieces.append(self.compute(
                t, src[:d] + [size] + src[d + 1:],
                lambda b, idx, s=s: self.load(b, op.input, idx[:d] + [self.affine(b, idx[d], self.index(1), s)] + idx[d + 1:]),
                view=True,
            ))
            start = size if start is self.index(0) else self.b.insert(arith.AddiOp(start, size)).result
        return pieces

    def lower_ConstantPadNd(self, op: aten.ConstantPadNdOp) -> SSAValue:
        """`value` everywhere, then the part of self that stays (negative pads crop)
        assigned into place: every load and store is in bounds, also for empty self."""
        t = op.result.type
        assert isinstance(t, TensorType)
        et = t.get_element_type()
        src = self.dims(op.input)
        rank = len(src)
        b = self.b
        zero = self.index(0)
        out, count = list(src), list(src)
        skip_src, skip_out = [zero] * rank, [zero] * rank
        pads = list(op.pad)
        for k in range(len(pads) // 2):
            d = rank - 1 - k
            lo, hi = pads[2 * k], pads[2 * k + 1]
            grown = b.insert(arith.AddiOp(b.insert(arith.AddiOp(src[d], lo)).result, hi)).result
            out[d] = b.insert(arith.MaxSIOp(grown, zero)).result
            neg = b.insert(arith.SubiOp(zero, lo)).result
            skip_src[d] = b.insert(arith.MaxSIOp(neg, zero)).result
            skip_out[d] = b.insert(arith.MaxSIOp(lo, zero)).result
            left = b.insert(arith.MinSIOp(b.insert(arith.SubiOp(src[d], skip_src[d])).result,
                                          b.insert(arith.SubiOp(out[d], skip_out[d])).result)).result
            count[d] = b.insert(arith.MaxSIOp(left, zero)).result
        value = op.value
        filled = self.compute(t, out, lambda bb, idx: const(bb, 0, et) if value is None else cast(bb, value, et))

        def body(bb: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            at = [self.affine(bb, i, self.index(1), s) for i, s in zip(idx, skip_out)]
            x = self.load(bb, op.input, [self.affine(bb, i, self.index(1), s) for i, s in zip(idx, skip_src)])
            return at, cast(bb, x, et)

        return self.scatter("assign", filled, count, body)
