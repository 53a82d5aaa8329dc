"""lower-tensorexpr-to-loops: each te op becomes a loop nest over a buffer.

Every tensor becomes a flat buffer (`memref<?xf32>`, row-major) indexed by explicit
`index` arithmetic, so the memref-to-pointer lowering only ever sees 1-d accesses
whatever the symbolic shape. The function takes, in order: the size symbols, the
input buffers, the weight buffers, the output buffers it must fill, and a status
buffer where an out-of-range index records its site (see `te.index_sites`).
One buffer per tensor, freed at the end: the unfused baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te
from transforms.lower_aten_to_tensorexpr import LoweringError, const


def buffer_type(t: Attribute) -> MemRefType:
    if not isinstance(t, TensorType):
        raise LoweringError(
            f"lower-tensorexpr-to-loops: arguments and results must be tensors or index "
            f"size symbols, got {t}"
        )
    return MemRefType(t.get_element_type(), [DYNAMIC_INDEX])


@dataclass(frozen=True)
class LowerTensorExprToLoopsPass(ModulePass):
    name = "lower-tensorexpr-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                new = _FunctionLowering(f).run()
                Rewriter.replace_op(f, new)


@dataclass
class _Buffer:
    memref: SSAValue
    extents: list[SSAValue]


class _FunctionLowering:
    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.values: dict[SSAValue, SSAValue] = {}  # scalars and indices
        self.buffers: dict[SSAValue, _Buffer] = {}
        self.temporaries: list[SSAValue] = []

    # ------------------------------------------------------------ signature

    def run(self) -> func.FuncOp:
        old = self.fn.body.block
        ret = old.last_op
        assert isinstance(ret, func.ReturnOp)
        weights = list(dict.fromkeys(
            o.weight_name.data for o in old.ops if isinstance(o, te.WeightOp)
        ))
        arg_attrs = list(self.fn.arg_attrs.data) if self.fn.arg_attrs else [DictionaryAttr({})] * len(old.args)
        res_attrs = list(self.fn.res_attrs.data) if self.fn.res_attrs else [DictionaryAttr({})] * len(ret.operands)

        types: list[Attribute] = []
        attrs: list[DictionaryAttr] = []
        for a, at in zip(old.args, arg_attrs):
            types.append(a.type if isinstance(a.type, IndexType) else buffer_type(a.type))
            attrs.append(at)
        weight_types = {o.weight_name.data: o.result.type for o in old.ops if isinstance(o, te.WeightOp)}
        for w in weights:
            types.append(buffer_type(weight_types[w]))
            attrs.append(DictionaryAttr({"loops.weight": StringAttr(w)}))
        for k, (v, at) in enumerate(zip(ret.operands, res_attrs)):
            types.append(buffer_type(v.type))
            attrs.append(DictionaryAttr({**at.data, "loops.output": IntegerAttr(k, 64)}))
        types.append(MemRefType(i32, [DYNAMIC_INDEX]))
        attrs.append(DictionaryAttr({"loops.status": UnitAttr()}))

        block = Block(arg_types=types)
        for new, a in zip(block.args, list(old.args)):
            new.name_hint = a.name_hint
        n_in = len(old.args)
        self.weight_args = dict(zip(weights, block.args[n_in:n_in + len(weights)]))
        for w, a in self.weight_args.items():
            a.name_hint = "w_" + "".join(c if c.isalnum() else "_" for c in w)
        outs = block.args[n_in + len(weights):-1]
        for k, o in enumerate(outs):
            o.name_hint = f"out{k}"
        self.status = block.args[-1]
        self.status.name_hint = "status"
        self.b = Builder(InsertPoint.at_end(block))
        self.zero = self.b.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))).result
        self.one = self.b.insert(arith.ConstantOp(IntegerAttr(1, IndexType()))).result

        for a, new in zip(old.args, block.args):
            if isinstance(a.type, IndexType):
                self.values[a] = new
        for a, new, at in zip(old.args, block.args, arg_attrs):
            if isinstance(a.type, TensorType):
                self.buffers[a] = _Buffer(new, self._arg_extents(a.type, at))

        # a returned te result is written straight into its output buffer
        self.destination: dict[SSAValue, SSAValue] = {}
        for v, o in zip(ret.operands, outs):
            if isinstance(v.owner, (te.ComputeOp, te.ReduceOp, te.ScatterOp)) and v not in self.destination:
                self.destination[v] = o

        for op in old.ops:
            if op is ret:
                break
            self.lower(op)
        for v, o in zip(ret.operands, outs):
            if self.destination.get(v) is not o:
                self.copy(self.buffers[v], o)
        for t in self.temporaries:
            self.b.insert(memref.DeallocOp.get(t))
        self.b.insert(func.ReturnOp())

        attributes = {k: v for k, v in self.fn.attributes.items() if k not in ("function_type", "sym_name", "arg_attrs", "res_attrs")}
        new_fn = func.FuncOp(
            self.fn.sym_name.data, (types, []), Region(block),
            arg_attrs=ArrayAttr(attrs),
        )
        for k, v in attributes.items():
            if k.startswith("te.") or k.startswith("llvm."):
                new_fn.attributes[k] = v
        return new_fn

    def _arg_extents(self, t: TensorType, attrs: DictionaryAttr) -> list[SSAValue]:
        dims = attrs.data.get("te.dims") or attrs.data.get("aten.dims")
        symbols = {v.name_hint: v for k, v in self.values.items()}
        out = []
        for k, d in enumerate(t.get_shape()):
            if d != DYNAMIC_INDEX:
                out.append(self.index(d))
            else:
                name = dims.data[k] if isinstance(dims, ArrayAttr) else None
                if not isinstance(name, StringAttr) or name.data not in symbols:
                    raise LoweringError(f"dynamic dim {k} of an argument names no size symbol")
                out.append(symbols[name.data])
        return out

    # ------------------------------------------------------------ helpers

    def index(self, n: int, b: Builder | None = None) -> SSAValue:
        return (b or self.b).insert(arith.ConstantOp(IntegerAttr(n, IndexType()))).result

    def numel(self, b: Builder, extents: Sequence[SSAValue]) -> SSAValue:
        n: SSAValue | None = None
        for e in extents:
            n = e if n is None else b.insert(arith.MuliOp(n, e)).result
        return n if n is not None else self.one

    def linear(self, b: Builder, idx: Sequence[SSAValue], extents: Sequence[SSAValue]) -> SSAValue:
        flat: SSAValue | None = None
        for i, e in zip(idx, extents):
            flat = i if flat is None else b.insert(arith.AddiOp(b.insert(arith.MuliOp(flat, e)).result, i)).result
        return flat if flat is not None else self.zero

    def nest(
        self, b: Builder, extents: Sequence[SSAValue], body: Callable[[Builder, list[SSAValue]], None],
        ivs: list[SSAValue] | None = None,
    ) -> None:
        """for i0 < e0: for i1 < e1: ... body(ivs)."""
        ivs = ivs or []
        if not extents:
            body(b, ivs)
            return
        block = Block(arg_types=[IndexType()])
        inner = Builder(InsertPoint.at_end(block))
        self.nest(inner, extents[1:], body, ivs + [block.args[0]])
        inner.insert(scf.YieldOp())
        b.insert(scf.ForOp(self.zero, extents[0], self.one, [], Region(block)))

    def reduce_nest(
        self, b: Builder, extents: Sequence[SSAValue], init: SSAValue,
        step: Callable[[Builder, list[SSAValue], SSAValue], SSAValue], ivs: list[SSAValue] | None = None,
    ) -> SSAValue:
        """acc = init; for ...: acc = step(ivs, acc); the final acc."""
        ivs = ivs or []
        if not extents:
            return step(b, ivs, init)
        block = Block(arg_types=[IndexType(), init.type])
        inner = Builder(InsertPoint.at_end(block))
        acc = self.reduce_nest(inner, extents[1:], block.args[1], step, ivs + [block.args[0]])
        inner.insert(scf.YieldOp(acc))
        return b.insert(scf.ForOp(self.zero, extents[0], self.one, [init], Region(block))).results[0]

    def allocate(self, v: SSAValue, extents: list[SSAValue]) -> _Buffer:
        if v in self.destination:
            buf = _Buffer(self.destination[v], extents)
        else:
            alloc = self.b.insert(memref.AllocOp([self.numel(self.b, extents)], [], buffer_type(v.type)))
            self.temporaries.append(alloc.memref)
            buf = _Buffer(alloc.memref, extents)
        self.buffers[v] = buf
        return buf

    def copy(self, src: _Buffer, dst: SSAValue) -> None:
        n = self.numel(self.b, src.extents)

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            x = b.insert(memref.LoadOp.get(src.memref, ivs)).res
            b.insert(memref.StoreOp.get(x, dst, ivs))

        self.nest(self.b, [n], body)

    # ------------------------------------------------------------ ops

    def lower(self, op: Operation) -> None:
        if isinstance(op, te.WeightOp):
            t = op.result.type
            assert isinstance(t, TensorType)
            self.buffers[op.result] = _Buffer(self.weight_args[op.weight_name.data],
                                              [self.index(d) for d in t.get_shape()])
        elif isinstance(op, te.ComputeOp):
            self.lower_compute(op)
        elif isinstance(op, te.ReduceOp):
            self.lower_reduce(op)
        elif isinstance(op, te.ScatterOp):
            self.lower_scatter(op)
        elif op.dialect_name() in ("arith", "math"):
            clone = op.clone(value_mapper=dict(self.values))
            self.b.insert(clone)
            self.values.update(zip(op.results, clone.results))
        else:
            raise LoweringError(f"lower-tensorexpr-to-loops: {op.name} has no lowering")

    def extents(self, op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> list[SSAValue]:
        return [self.values[e] for e in op.extents]

    def body(self, b: Builder, block: Block, ivs: list[SSAValue]) -> tuple[Operation, dict[SSAValue, SSAValue]]:
        """Emit a te body with its block arguments bound to ivs; return its terminator."""
        mapping = dict(self.values)
        mapping.update(zip(block.args, ivs))
        for op in block.ops:
            if isinstance(op, (te.YieldOp, te.UpdateOp)):
                return op, mapping
            if isinstance(op, te.LoadOp):
                buf = self.buffers[op.tensor]
                at = self.linear(b, [mapping[i] for i in op.indices], buf.extents)
                mapping[op.result] = b.insert(memref.LoadOp.get(buf.memref, [at])).res
            elif isinstance(op, te.IndexOp):
                mapping[op.result] = self.checked_index(b, op, mapping)
            else:
                clone = op.clone(value_mapper=mapping)
                b.insert(clone)
                mapping.update(zip(op.results, clone.results))
        raise LoweringError("te body without terminator")

    def checked_index(self, b: Builder, op: te.IndexOp, mapping: dict[SSAValue, SSAValue]) -> SSAValue:
        i = b.insert(arith.IndexCastOp(mapping[op.value], IndexType())).result
        extent = mapping[op.extent]
        if op.wrap is not None:
            neg = b.insert(arith.CmpiOp(i, self.zero, "slt")).result
            i = b.insert(arith.SelectOp(neg, b.insert(arith.AddiOp(i, extent)).result, i)).result
        # one unsigned compare catches both i < 0 and i >= extent
        bad = b.insert(arith.CmpiOp(i, extent, "uge")).result
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        code = tb.insert(arith.ConstantOp(IntegerAttr(op.site.value.data, i32))).result
        tb.insert(memref.StoreOp.get(code, self.status, [self.zero]))
        tb.insert(scf.YieldOp())
        b.insert(scf.IfOp(bad, [], Region(then)))
        return b.insert(arith.SelectOp(bad, self.zero, i)).result

    def lower_compute(self, op: te.ComputeOp) -> None:
        extents = self.extents(op)
        buf = self.allocate(op.result, extents)

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            term, mapping = self.body(b, op.body.block, ivs)
            assert isinstance(term, te.YieldOp)
            b.insert(memref.StoreOp.get(mapping.get(term.value, term.value), buf.memref, [self.linear(b, ivs, extents)]))

        self.nest(self.b, extents, body)

    def lower_reduce(self, op: te.ReduceOp) -> None:
        extents = self.extents(op)
        red = [self.values[e] for e in op.reduce_extents]
        buf = self.allocate(op.result, extents)
        kind = op.kind.data
        et = op.element_type()
        inner = _accumulating_dims(op, extents, red)
        if inner:
            self.lower_reduce_accumulating(op, buf, extents, red, inner)
            return

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            init = _identity(b, kind, et)

            def step(bb: Builder, rivs: list[SSAValue], acc: SSAValue) -> SSAValue:
                term, mapping = self.body(bb, op.body.block, ivs + rivs)
                assert isinstance(term, te.YieldOp)
                return _combine(bb, kind, acc, mapping.get(term.value, term.value), reassociate=True)

            result = self.reduce_nest(b, red, init, step)
            b.insert(memref.StoreOp.get(result, buf.memref, [self.linear(b, ivs, extents)]))

        self.nest(self.b, extents, body)

    def lower_reduce_accumulating(
        self, op: te.ReduceOp, buf: _Buffer, extents: list[SSAValue], red: list[SSAValue], inner: list[int],
    ) -> None:
        """Loops (dynamic output dims, reduction dims, static output dims): the
        innermost loop runs along contiguous output elements and vectorizes, as the
        i-k-j order of a matmul does; partial results accumulate in the buffer."""
        kind, et = op.kind.data, op.element_type()
        outer = [d for d in range(len(extents)) if d not in inner]
        self.nest(self.b, extents, lambda b, ivs: b.insert(
            memref.StoreOp.get(_identity(b, kind, et), buf.memref, [self.linear(b, ivs, extents)])))

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            out: list[SSAValue] = [self.zero] * len(extents)
            for d, iv in zip(outer + inner, ivs[:len(outer)] + ivs[len(outer) + len(red):]):
                out[d] = iv
            term, mapping = self.body(b, op.body.block, out + ivs[len(outer):len(outer) + len(red)])
            assert isinstance(term, te.YieldOp)
            at = self.linear(b, out, extents)
            old = b.insert(memref.LoadOp.get(buf.memref, [at])).res
            b.insert(memref.StoreOp.get(_combine(b, kind, old, mapping.get(term.value, term.value)), buf.memref, [at]))

        self.nest(self.b, [extents[d] for d in outer] + red + [extents[d] for d in inner], body)

    def lower_scatter(self, op: te.ScatterOp) -> None:
        base = self.buffers[op.base]
        in_place = (
            isinstance(op.base.owner, (te.ComputeOp, te.ReduceOp, te.ScatterOp))
            and len(list(op.base.uses)) == 1 and op.result not in self.destination
        )
        if in_place:  # nobody else reads the base: update its buffer instead of a copy
            buf = self.buffers[op.result] = base
        else:
            buf = self.allocate(op.result, base.extents)
            self.copy(base, buf.memref)
        kind = op.kind.data

        def body(b: Builder, ivs: list[SSAValue]) -> None:
            term, mapping = self.body(b, op.body.block, ivs)
            assert isinstance(term, te.UpdateOp)
            at = self.linear(b, [mapping[i] for i in term.indices], buf.extents)
            value = mapping.get(term.value, term.value)
            if kind == "add":
                old = b.insert(memref.LoadOp.get(buf.memref, [at])).res
                value = _combine(b, "add", old, value)
            b.insert(memref.StoreOp.get(value, buf.memref, [at]))

        self.nest(self.b, self.extents(op), body)


def _static(v: SSAValue) -> int | None:
    if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, IntegerAttr):
        return v.owner.value.value.data
    return None


def _accumulating_dims(op: te.ReduceOp, extents: list[SSAValue], red: list[SSAValue]) -> list[int]:
    """The output dims to put inside the reduction loops (the schedule of `x @ B`
    and of column sums): the static dims, when the last one is long enough to
    vectorize, the reduction is not a short static one (a norm over xyz), and the
    loads run contiguously along the last output dim at least as often as along a
    reduction dim (`x @ W.T` reads both operands along k: it stays a dot product)."""
    if not extents or (_static(extents[-1]) or 0) < 8:
        return []
    if all(_static(r) is not None and _static(r) < 8 for r in red):  # type: ignore[operator]
        return []
    args = op.body.block.args
    last_out, reduction = args[len(extents) - 1], set(args[len(extents):])
    lasts = [o.indices[-1] for o in op.body.block.walk() if isinstance(o, te.LoadOp) and o.indices]
    along_out = sum(1 for v in lasts if v is last_out)
    along_red = sum(1 for v in lasts if v in reduction)
    if along_out == 0 or along_out < along_red:
        return []
    return [d for d, e in enumerate(extents) if _static(e) is not None]


def _identity(b: Builder, kind: str, t: Attribute) -> SSAValue:
    from transforms.lower_aten_to_tensorexpr import is_float

    if kind == "add":
        return const(b, 0, t)
    if kind == "mul":
        return const(b, 1, t)
    big = float("inf") if is_float(t) else (2 ** (t.width.data - 1) - 1)  # type: ignore[attr-defined]
    return const(b, -big if kind == "max" else big, t) if is_float(t) else const(b, -big - 1 if kind == "max" else big, t)


def _combine(b: Builder, kind: str, acc: SSAValue, x: SSAValue, *, reassociate: bool = False) -> SSAValue:
    """acc (+, *, max, min) x; `reassociate` lets LLVM vectorize a float sum
    (it changes the order of additions, within rounding)."""
    from transforms.lower_aten_to_tensorexpr import is_float

    f = is_float(acc.type)
    if f and reassociate and kind in ("add", "mul"):
        flags = arith.FastMathFlagsAttr([arith.FastMathFlag.REASSOC, arith.FastMathFlag.ALLOW_CONTRACT])
        return b.insert((arith.AddfOp if kind == "add" else arith.MulfOp)(acc, x, flags)).result
    op = {
        "add": arith.AddfOp if f else arith.AddiOp,
        "mul": arith.MulfOp if f else arith.MuliOp,
        "max": arith.MaximumfOp if f else arith.MaxSIOp,
        "min": arith.MinimumfOp if f else arith.MinSIOp,
    }[kind]
    return b.insert(op(acc, x)).results[0]
