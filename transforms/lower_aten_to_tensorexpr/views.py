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
from transforms.lower_aten_to_tensorexpr.scalars import constant_value, same_extent


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
        index = self.normalize(self.b, op.index, src[d])
        return self.view(op, src[:d] + src[d + 1:], lambda b, idx: idx[:d] + [index] + idx[d:])


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

