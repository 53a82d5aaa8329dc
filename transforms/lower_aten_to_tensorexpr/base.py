"""The state and builders shared by every op family of lower-aten-to-tensorexpr."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import aten
from dialects import tensorexpr as te
from transforms.lower_aten_to_tensorexpr.scalars import LoweringError, cast, const, constant_value


class LoweringBase:
    """One function being lowered: the extents of every tensor value, the builders of
    te ops, and index arithmetic shared by the op families."""

    def __init__(self, fn: func.FuncOp, provenance: bool = False):
        self.fn = fn
        self.provenance = provenance
        self.absorbed: set[int] = set()  # origins of the views inlined into the op being lowered
        self.block = fn.body.block
        self.extents: dict[SSAValue, list[SSAValue]] = {}
        self.views: set[Operation] = set()
        self.consts: dict[int, SSAValue] = {}
        self.sites: list[str] = []
        self._bind_arguments()


    def run(self) -> None:
        position = 0
        for op in list(self.block.ops):
            if not isinstance(op, (aten.AtenOp,)):
                continue
            self.b = Builder(InsertPoint.before(op))
            before = op.prev_op
            lowered = self.lower(op)
            if self.provenance:
                self._tag(before, op, position)
            position += 1
            for old, new in zip(op.results, lowered if isinstance(lowered, list) else [lowered], strict=True):
                old.replace_all_uses_with(new)
            Rewriter.erase_op(op)
        for op in reversed(list(self.block.ops)):
            if op in self.views and not op.results[0].uses:
                Rewriter.erase_op(op)
        self._rename_dims()
        if self.sites:
            self.fn.attributes["te.index_sites"] = ArrayAttr([StringAttr(s) for s in self.sites])

    def _tag(self, before: Operation | None, op: Operation, position: int) -> None:
        """te.origin of the te ops just built for the aten op at `position` (and of the
        views whose bodies they inlined)."""
        new = op.prev_op
        while new is not None and new is not before:
            if new.dialect_name() == "te":
                te.add_origin(new, [position, *self.absorbed])
            new = new.prev_op
        self.absorbed.clear()

    def _rename_dims(self) -> None:
        """The symbolic shapes of arguments and results carry over as `te.dims`."""
        for name in ("arg_attrs", "res_attrs"):
            attrs = getattr(self.fn, name)
            if attrs is not None:
                setattr(self.fn, name, ArrayAttr([
                    DictionaryAttr({("te.dims" if k == "aten.dims" else k): v for k, v in d.data.items()})
                    for d in attrs.data
                ]))

    def _bind_arguments(self) -> None:
        symbols = {a.name_hint: a for a in self.block.args if isinstance(a.type, IndexType)}
        attrs = self.fn.arg_attrs.data if self.fn.arg_attrs else ()
        for arg, dattr in zip(self.block.args, attrs):
            if not isinstance(arg.type, TensorType):
                continue
            dims = dattr.data.get("aten.dims")
            shape = arg.type.get_shape()
            extents = []
            for k, d in enumerate(shape):
                name = dims.data[k] if dims else None
                if d != DYNAMIC_INDEX:
                    extents.append(self.index(d))
                elif isinstance(name, StringAttr) and name.data in symbols:
                    extents.append(symbols[name.data])
                else:
                    raise LoweringError(
                        f"argument {arg.name_hint or arg.index} dim {k} is dynamic but "
                        "names no size symbol (aten.dims)"
                    )
            self.extents[arg] = extents


    def index(self, n: int) -> SSAValue:
        if n not in self.consts:
            c = arith.ConstantOp(IntegerAttr(n, IndexType()))
            Rewriter.insert_op(c, InsertPoint.at_start(self.block))
            self.consts[n] = c.result
        return self.consts[n]

    def dims(self, v: SSAValue) -> list[SSAValue]:
        if v not in self.extents:
            raise LoweringError(f"no extents known for {v}")
        return self.extents[v]

    def result_extents(self, t: TensorType, dynamic: Sequence[SSAValue | None]) -> list[SSAValue]:
        """Static dims from the type, dynamic ones from `dynamic`."""
        out = []
        for k, d in enumerate(t.get_shape()):
            if d != DYNAMIC_INDEX:
                out.append(self.index(d))
            else:
                e = dynamic[k]
                if e is None:
                    raise LoweringError(f"dim {k} of {t} has no extent")
                out.append(e)
        return out

    def _region(self, n: int, body: Callable[[Builder, list[SSAValue]], Operation]) -> Region:
        block = Block(arg_types=[IndexType()] * n)
        body(Builder(InsertPoint.at_end(block)), list(block.args))
        return Region(block)

    def compute(
        self, t: TensorType, extents: Sequence[SSAValue | None],
        body: Callable[[Builder, list[SSAValue]], SSAValue], *, view: bool = False,
    ) -> SSAValue:
        ext = self.result_extents(t, extents)
        region = self._region(len(ext), lambda b, idx: b.insert(te.YieldOp(body(b, idx))))
        op = self.b.insert(te.ComputeOp(ext, t, region))
        self.extents[op.result] = ext
        if view:
            self.views.add(op)
        return op.result

    def reduce(
        self, kind: str, t: TensorType, extents: Sequence[SSAValue | None],
        reduce_extents: list[SSAValue], body: Callable[[Builder, list[SSAValue]], SSAValue],
    ) -> SSAValue:
        ext = self.result_extents(t, extents)
        region = self._region(len(ext) + len(reduce_extents), lambda b, idx: b.insert(te.YieldOp(body(b, idx))))
        op = self.b.insert(te.ReduceOp(kind, ext, reduce_extents, t, region))
        self.extents[op.result] = ext
        return op.result

    def scatter(
        self, kind: str, base: SSAValue, space: list[SSAValue],
        body: Callable[[Builder, list[SSAValue]], tuple[list[SSAValue], SSAValue]],
    ) -> SSAValue:
        def build(b: Builder, idx: list[SSAValue]) -> Operation:
            at, value = body(b, idx)
            return b.insert(te.UpdateOp(at, value))

        op = self.b.insert(te.ScatterOp(kind, base, space, self._region(len(space), build)))
        self.extents[op.result] = self.dims(base)
        return op.result

    def load(self, b: Builder, v: SSAValue, idx: list[SSAValue]) -> SSAValue:
        """v[idx]; loads of views are replaced by the view's own body (no copy)."""
        owner = v.owner
        if isinstance(owner, te.ComputeOp) and owner in self.views:
            self.absorbed.update(te.origin(owner) or ())
            mapping = dict(zip(owner.body.block.args, idx))
            for inner in owner.body.block.ops:
                if isinstance(inner, te.YieldOp):
                    return mapping.get(inner.value, inner.value)
                clone = inner.clone(value_mapper=mapping)
                b.insert(clone)
                mapping.update(zip(inner.results, clone.results))
        return b.insert(te.LoadOp(v, idx)).result

    def load_broadcast(self, b: Builder, v: SSAValue, idx: list[SSAValue], out_shape: Sequence[int]) -> SSAValue:
        """v[idx] with numpy broadcasting of v against a result of shape out_shape."""
        shape = aten.shape_of(v)
        lead = len(idx) - len(shape)
        zero = self.index(0)
        at = [
            zero if d == 1 and out_shape[lead + k] != 1 else idx[lead + k]
            for k, d in enumerate(shape)
        ]
        return self.load(b, v, at)

    def broadcast_extents(self, t: TensorType, operands: list[SSAValue]) -> list[SSAValue | None]:
        """For each result dim, the extent of an operand that is not broadcast there."""
        rank = t.get_num_dims()
        out: list[SSAValue | None] = [None] * rank
        for v in operands:
            if not isinstance(v.type, TensorType):
                continue
            shape = aten.shape_of(v)
            for k, d in enumerate(shape):
                pos = rank - len(shape) + k
                if out[pos] is None and d != 1:
                    out[pos] = self.dims(v)[k]
        return out

    def site(self, what: str, data: SSAValue) -> int:
        origin = argument_of(data)
        self.sites.append(what + (f" (index data from argument '{origin}')" if origin else ""))
        return len(self.sites)

    def to_index(self, b: Builder, value: SSAValue, extent: SSAValue, what: str, data: SSAValue, *, wrap: bool = False) -> SSAValue:
        return b.insert(te.IndexOp(value, extent, self.site(what, data), wrap)).result

    def position(self, op: aten.AtenOp, index: SSAValue, d: int, tensor: SSAValue) -> Callable[[Builder], SSAValue]:
        """Where a constant or SymInt `index` (Python's: negative counts from the end)
        falls along dim d of `tensor`, built in a body by the returned function.

        A constant into a static dim is checked here (torch rejected anything else when
        it traced) and used as is. Anything else may be out of range at run time (`x[0]`
        with N = 0, `x[-1]`, `x[:, 3]` of a [E, T] tensor): a `te.index` of the index into
        the dim's extent, as a gather's, with a site naming the op, the dim and the
        argument indexed, so that lower-tensorexpr-to-loops checks it (once per nest:
        its operands are outside the loops) and never reads an empty dim."""
        extent = self.dims(tensor)[d]
        value, n = constant_value(index), te.static_extent(extent)
        if isinstance(value, int) and n is not None:
            if not -n <= value < n:
                raise LoweringError(f"lower-aten-to-tensorexpr: {op.name}: index {value} is out of range "
                                    f"for dim {d} of size {n}")
            at = self.normalize(self.b, index, extent)
            return lambda b: at
        what = value if isinstance(value, int) else describe(index) or "computed from the sizes"
        size, origin = describe(extent), argument_of(tensor)
        self.sites.append(f"{op.overload()}: index {what} into dim {d} "
                          + (f"of size {size}" if size is not None else "(of a size known at run time)")
                          + (f" of argument '{origin}'" if origin else ""))
        site = len(self.sites)
        if isinstance(value, int):
            return lambda b: b.insert(te.IndexOp(const(b, value, i64), extent, site, value < 0)).result
        raw = cast(self.b, index, i64)
        return lambda b: b.insert(te.IndexOp(raw, extent, site, True)).result


    def lower(self, op: aten.AtenOp) -> SSAValue | list[SSAValue]:
        """The value of each result of `op` (a list for multi-result ops)."""
        method = getattr(self, "lower_" + type(op).__name__.removesuffix("Op"), None)
        if method is None:
            raise LoweringError(f"lower-aten-to-tensorexpr: {op.name} has no lowering")
        return method(op)


    def numel(self, b: Builder, extents: list[SSAValue]) -> SSAValue:
        n = self.index(1)
        for e in extents:
            n = e if n is self.index(1) else b.insert(arith.MuliOp(n, e)).result
        return n


    def normalize(self, b: Builder, i: SSAValue, size: SSAValue) -> SSAValue:
        """A Python index (negative counts from the end) as a non-negative index."""
        value = constant_value(i)
        if isinstance(value, int) and value >= 0:
            return i
        if isinstance(value, int):
            n = constant_value(size)
            return self.index(n + value) if isinstance(n, int) else b.insert(arith.AddiOp(size, i)).result
        neg = b.insert(arith.CmpiOp(i, self.index(0), "slt")).result
        return b.insert(arith.SelectOp(neg, b.insert(arith.AddiOp(size, i)).result, i)).result

    def slice_bounds(self, b: Builder, op: aten.AtenOp, size: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(start, step, count) of Python slicing start:end:step over size."""
        start = op.start or self.index(0)  # type: ignore[attr-defined]
        step = op.step or self.index(1)  # type: ignore[attr-defined]
        end = op.end  # type: ignore[attr-defined]
        end_value = constant_value(end) if end is not None else None
        if end is None or (isinstance(end_value, int) and end_value >= 2**62):
            end = size
        start, end = (self.clamp_index(b, self.normalize(b, v, size), size) for v in (start, end))
        bounds = [constant_value(v) for v in (start, end, step)]
        if constant_value(start) == 0 and constant_value(step) == 1:
            length = end
        elif all(isinstance(v, int) for v in bounds):
            first, stop, stride = bounds
            length = self.index(max(0, -(-(stop - first) // stride)))
        else:
            span = b.insert(arith.SubiOp(end, start)).result
            span = b.insert(arith.MaxSIOp(span, self.index(0))).result
            length = b.insert(arith.CeilDivSIOp(span, step)).result
        return start, step, length

    def clamp_index(self, b: Builder, i: SSAValue, size: SSAValue) -> SSAValue:
        if i is size or constant_value(i) == 0:
            return i
        value, n = constant_value(i), constant_value(size)
        if isinstance(value, int) and isinstance(n, int):
            return self.index(min(max(value, 0), n))
        i = b.insert(arith.MaxSIOp(i, self.index(0))).result
        return b.insert(arith.MinSIOp(i, size)).result


    def affine(self, b: Builder, i: SSAValue, step: SSAValue, start: SSAValue) -> SSAValue:
        """start + i * step, without the trivial parts."""
        if constant_value(step) != 1:
            i = b.insert(arith.MuliOp(i, step)).result
        if constant_value(start) != 0:
            i = b.insert(arith.AddiOp(i, start)).result
        return i


    def linearize(self, b: Builder, idx: list[SSAValue], extents: list[SSAValue]) -> SSAValue:
        flat = self.index(0)
        for i, e in zip(idx, extents):
            if constant_value(flat) != 0:
                flat = b.insert(arith.AddiOp(b.insert(arith.MuliOp(flat, e)).result, i)).result
            else:
                flat = i
        return flat

    def delinearize(self, b: Builder, flat: SSAValue, extents: list[SSAValue]) -> list[SSAValue]:
        out: list[SSAValue] = []
        for k in reversed(range(len(extents))):
            if k == 0:
                out.append(flat)
            else:
                out.append(b.insert(arith.RemUIOp(flat, extents[k])).result)
                flat = b.insert(arith.DivUIOp(flat, extents[k])).result
        return list(reversed(out))



def describe(v: SSAValue) -> str | None:
    """A size or index as the user would write it (`N`, `3`, `N - 1`, `E * 3`), from
    constants, size symbols and index arithmetic; None for anything else."""
    n = constant_value(v)
    if isinstance(n, int):
        return str(n)
    if isinstance(v, BlockArgument):
        return v.name_hint
    owner = v.owner
    symbols = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.DivUIOp: "//", arith.FloorDivSIOp: "//"}
    if not isinstance(owner, tuple(symbols)):
        return None
    x, y = owner.operands  # type: ignore[union-attr]
    cx, cy = constant_value(x), constant_value(y)
    if (cy == 0 and isinstance(owner, (arith.AddiOp, arith.SubiOp))) or (
            cy == 1 and not isinstance(owner, (arith.AddiOp, arith.SubiOp))):
        return describe(x)  # x + 0, x - 0, x * 1, x // 1
    if (cx == 0 and isinstance(owner, arith.AddiOp)) or (cx == 1 and isinstance(owner, arith.MuliOp)):
        return describe(y)
    if isinstance(owner, (arith.DivUIOp, arith.FloorDivSIOp)) and isinstance(x.owner, arith.MuliOp):
        a, b = x.owner.operands
        for keep, k in ((a, b), (b, a)):  # (keep * k) // k
            if k is y or (cy is not None and constant_value(k) == cy):
                return describe(keep)
    dx, dy = describe(x), describe(y)
    if dx is None or dy is None:
        return None
    if isinstance(owner, arith.AddiOp) and isinstance(cy, int) and cy < 0:
        return f"{dx} - {-cy}"
    if isinstance(owner, (arith.MuliOp, arith.DivUIOp, arith.FloorDivSIOp)):
        dx = f"({dx})" if isinstance(x.owner, (arith.AddiOp, arith.SubiOp)) else dx
    if not isinstance(owner, arith.AddiOp):
        dy = f"({dy})" if " " in dy else dy
    return f"{dx} {symbols[type(owner)]} {dy}"


def argument_of(v: SSAValue) -> str | None:
    """The function argument a tensor was read from, through views."""
    while True:
        if isinstance(v, BlockArgument):
            return v.name_hint
        owner = v.owner
        if isinstance(owner, aten.AtenOp) and owner.operands and isinstance(
            owner, (aten.AliasOp, aten.SelectIntOp, aten.SliceTensorOp, aten.ViewOp, aten.PermuteOp,
                    aten.UnsqueezeOp, aten.SqueezeDimsOp, aten.ExpandOp, aten.CloneOp, aten.ToCopyOp)
        ):
            v = owner.operands[0]
            continue
        if isinstance(owner, te.ComputeOp):
            loads = [o for o in owner.body.block.ops if isinstance(o, te.LoadOp)]
            if len(loads) == 1:
                v = loads[0].tensor
                continue
        return None

