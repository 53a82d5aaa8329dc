"""Gathers (te.compute with te.index of the loaded index), scatters and concatenation (te.scatter)."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, i1
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

    def _scatter_along(self, op: aten.ScatterLike, kind: str, base: SSAValue, value: SSAValue | None) -> SSAValue:
        """base with value[i] (src, or the scalar `value` of scatter.value) combined by
        `kind` into base at index[i] along dim; the space is the index's."""
        d = op.index_dim()
        src = self.dims(op.input)
        et = aten.elem_of(op.results[0])

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            k = self.to_index(b, self.load(b, op.index, idx), src[d], f"{op.overload()} along dim {d}", op.index)
            v = value if value is not None else op.src  # type: ignore[attr-defined]
            x = self.load(b, v, idx) if isinstance(v.type, TensorType) else v
            return idx[:d] + [k] + idx[d + 1:], cast(b, x, et)

        return self.scatter(kind, base, self.dims(op.index), body)

    def lower_ScatterSrc(self, op: aten.ScatterSrcOp) -> SSAValue:
        return self._scatter_along(op, "assign", op.input, None)

    def lower_ScatterValue(self, op: aten.ScatterValueOp) -> SSAValue:
        return self._scatter_along(op, "assign", op.input, op.value)

    def lower_ScatterReduceTwo(self, op: aten.ScatterReduceTwoOp) -> SSAValue:
        """sum/prod/amax/amin combine into self (or, without include_self, into the
        identity where an update lands); mean divides a sum by the count of terms."""
        reduce = op.reduce.data
        include_self = op.properties.get("include_self") is None or aten.bool_prop(op, "include_self")
        t = op.result.type
        assert isinstance(t, TensorType)
        et = t.get_element_type()
        ext = self.dims(op.input)
        counts_t = TensorType(et, t.get_shape())
        counts = None
        if not include_self or reduce == "mean":
            zeros = self.compute(counts_t, ext, lambda b, idx: const(b, 0, et))
            ones = self.compute(counts_t, self.dims(op.index), lambda b, idx: const(b, 1, et))
            counts = self._scatter_along(op, "add", zeros, ones)
        kind = {"sum": "add", "mean": "add", "prod": "mul", "amax": "max", "amin": "min"}[reduce]
        base = op.input
        if not include_self:
            identity = {"add": 0, "mul": 1}.get(kind)
            c = counts

            def start(b: Builder, idx: list[SSAValue]) -> SSAValue:
                hit = cast(b, self.load(b, c, idx), i1)
                if identity is not None:
                    neutral = const(b, identity, et)
                else:  # max/min: the first update itself, via the largest/smallest value
                    big = float("inf") if is_float(et) else 2 ** (et.width.data - 1) - 1  # type: ignore[attr-defined]
                    neutral = const(b, -big if kind == "max" else big, et) if is_float(et) else \
                        const(b, -big - 1 if kind == "max" else big, et)
                return b.insert(arith.SelectOp(hit, neutral, cast(b, self.load(b, op.input, idx), et))).result

            base = self.compute(t, ext, start)
        combined = self._scatter_along(op, kind, base, None)
        if reduce != "mean":
            return combined
        c = counts

        def mean(b: Builder, idx: list[SSAValue]) -> SSAValue:
            n = self.load(b, c, idx)
            if include_self:
                n = b.insert((arith.AddfOp if is_float(et) else arith.AddiOp)(n, const(b, 1, et))).results[0]
            else:  # untouched entries keep self: divide by 1
                n = b.insert(arith.SelectOp(cast(b, n, i1), n, const(b, 1, et))).result
            total = self.load(b, combined, idx)
            if is_float(et):
                return b.insert(arith.DivfOp(total, n)).result
            return b.insert(arith.FloorDivSIOp(total, n)).result

        return self.compute(t, ext, mean)

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
        at = self.position(op, op.index, d, op.input)
        et = aten.elem_of(op.result)

        def body(b: Builder, idx: list[SSAValue]) -> tuple[list[SSAValue], SSAValue]:
            return idx[:d] + [at(b)] + idx[d:], cast(b, self.load(b, op.src, idx), et)

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


