"""Gathers (te.compute with te.index of the loaded index), scatters and concatenation (te.scatter)."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import SSAValue

from dialects import aten
from transforms.lower_aten_to_tensorexpr.base import LoweringBase
from transforms.lower_aten_to_tensorexpr.scalars import cast, const, is_float


class IndexingLowerings(LoweringBase):
    def lower_IndexSelect(self, op: aten.IndexSelectOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        d = op.index_dim()
        src = self.dims(op.input)
        index_ext = self.dims(op.index)
        n = index_ext[0] if index_ext else self.index(1)
        scalar_index = not index_ext

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            raw = self.load(b, op.index, [] if scalar_index else [idx[d]])
            k = self.to_index(b, raw, src[d], f"{op.overload()} along dim {d}", op.index)
            return self.load(b, op.input, idx[:d] + [k] + idx[d + 1:])

        return self.compute(t, src[:d] + [n] + src[d + 1:], body)

    def lower_Embedding(self, op: aten.EmbeddingOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        rows = self.dims(op.weight)
        ext = self.dims(op.indices) + rows[1:]
        r = len(self.dims(op.indices))

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            raw = self.load(b, op.indices, idx[:r])
            k = self.to_index(b, raw, rows[0], f"{op.overload()} row", op.indices)
            return self.load(b, op.weight, [k] + idx[r:])

        return self.compute(t, ext, body)

    def lower_Gather(self, op: aten.GatherOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        d = op.index_dim()
        src = self.dims(op.input)

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            # torch rejects negative indices here (as in scatter_add and index_add): no wrap
            k = self.to_index(b, self.load(b, op.index, idx), src[d], f"{op.overload()} along dim {d}", op.index)
            return self.load(b, op.input, idx[:d] + [k] + idx[d + 1:])

        return self.compute(t, self.dims(op.index), body)

    def _advanced(self, op: aten.IndexListOp) -> tuple[list[int], list[SSAValue], int, list[SSAValue]]:
        """(indexed dims, broadcast index extents, where the index dims go, space extents)."""
        dims = list(aten.ints_prop(op, "indexed_dims") or ())
        src = self.dims(op.input)
        shapes = [aten.shape_of(i) for i in op.indices]
        bshape = aten.broadcast(*shapes)
        bext: list[SSAValue] = []
        for k in range(len(bshape)):
            found = None
            for i, s in zip(op.indices, shapes):
                pos = k - (len(bshape) - len(s))
                if pos >= 0 and s[pos] != 1:
                    found = self.dims(i)[pos]
                    break
            bext.append(found or self.index(1))
        adjacent = dims == list(range(dims[0], dims[0] + len(dims))) if dims else True
        at = dims[0] if adjacent and dims else 0
        rest = [e for k, e in enumerate(src) if k not in dims]
        space = rest[:at] + bext + rest[at:]
        return dims, bext, at, space

    def _advanced_target(self, b: Builder, op: aten.IndexListOp, idx: list[SSAValue]) -> list[SSAValue]:
        dims, bext, at, _ = self._advanced(op)
        src = self.dims(op.input)
        bidx = idx[at:at + len(bext)]
        other = idx[:at] + idx[at + len(bext):]
        it = iter(other)
        target: list[SSAValue] = []
        for k in range(len(src)):
            if k in dims:
                tensor = op.indices[dims.index(k)]
                raw = self.load_broadcast(b, tensor, bidx, [0 if e is not self.index(1) else 1 for e in bext])
                target.append(self.to_index(b, raw, src[k], f"{op.overload()} along dim {k}", tensor, wrap=True))
            else:
                target.append(next(it))
        return target

    def lower_IndexTensor(self, op: aten.IndexTensorOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        *_, space = self._advanced(op)
        return self.compute(t, space, lambda b, idx: self.load(b, op.input, self._advanced_target(b, op, idx)))

    def lower_IndexPut(self, op: aten.IndexPutOp) -> SSAValue:
        *_, space = self._advanced(op)
        shape = [0] * len(space)
        vshape = aten.shape_of(op.values)
        shape = [1 if (k >= len(space) - len(vshape) and vshape[k - len(space) + len(vshape)] == 1) else 0 for k in range(len(space))]
        et = aten.elem_of(op.result)

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            value = cast(b, self.load_broadcast(b, op.values, idx, [0] * len(idx)), et)
            return self._advanced_target(b, op, idx), value

        kind = "add" if aten.bool_prop(op, "accumulate") else "assign"
        del shape
        return self.scatter(kind, op.input, space, body)

    def lower_ScatterAdd(self, op: aten.ScatterAddOp) -> SSAValue:
        d = op.index_dim()
        src = self.dims(op.input)

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            k = self.to_index(b, self.load(b, op.index, idx), src[d], f"{op.overload()} along dim {d}", op.index)
            return idx[:d] + [k] + idx[d + 1:], self.load(b, op.src, idx)

        return self.scatter("add", op.input, self.dims(op.index), body)

    def lower_IndexAdd(self, op: aten.IndexAddOp) -> SSAValue:
        d = op.index_dim()
        src = self.dims(op.input)
        et = aten.elem_of(op.result)
        alpha = op.alpha

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            raw = self.load(b, op.index, [idx[d]] if aten.shape_of(op.index) else [])
            k = self.to_index(b, raw, src[d], f"{op.overload()} along dim {d}", op.index)
            v = cast(b, self.load(b, op.source, idx), et)
            if alpha is not None:
                v = b.insert((arith.MulfOp if is_float(et) else arith.MuliOp)(v, cast(b, alpha, et))).results[0]
            return idx[:d] + [k] + idx[d + 1:], v

        return self.scatter("add", op.input, self.dims(op.source), body)

    def lower_SliceScatter(self, op: aten.SliceScatterOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        d = aten.int_prop(op, "dim", 0) % rank
        src = self.dims(op.input)
        start, step, _ = self.slice_bounds(self.b, op, src[d])
        et = aten.elem_of(op.result)

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            at = idx[:d] + [self.affine(b, idx[d], step, start)] + idx[d + 1:]
            return at, cast(b, self.load(b, op.src, idx), et)

        return self.scatter("assign", op.input, self.dims(op.src), body)

    def lower_SelectScatter(self, op: aten.SelectScatterOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        d = aten.int_prop(op, "dim", 0) % rank
        src = self.dims(op.input)
        index = self.normalize(self.b, op.index, src[d])
        et = aten.elem_of(op.result)

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            return idx[:d] + [index] + idx[d:], cast(b, self.load(b, op.src, idx), et)

        return self.scatter("assign", op.input, self.dims(op.src), body)

    def lower_Cat(self, op: aten.CatOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        pieces = [v for v in op.tensors if aten.shape_of(v) != (0,)]
        rank = t.get_num_dims()
        d = aten.int_prop(op, "dim", 0) % rank
        total: SSAValue | None = None
        offsets: list[SSAValue] = []
        for v in pieces:
            offsets.append(total or self.index(0))
            e = self.dims(v)[d]
            total = e if total is None else self.b.insert(arith.AddiOp(total, e)).result
        ext = self.broadcast_extents(t, pieces)
        ext[d] = total
        et = t.get_element_type()
        result = self.compute(t, ext, lambda b, idx: const(b, 0, et))
        for v, off in zip(pieces, offsets):
            def body(b: Builder, idx: list[SSAValue], v: SSAValue = v, off: SSAValue = off) -> tuple[list[SSAValue], SSAValue]:
                return idx[:d] + [self.affine(b, idx[d], self.index(1), off)] + idx[d + 1:], cast(b, self.load(b, v, idx), et)

            result = self.scatter("assign", result, self.dims(v), body)
        return result


