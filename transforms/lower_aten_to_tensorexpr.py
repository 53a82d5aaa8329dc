"""lower-aten-to-tensorexpr: every aten op becomes a te.compute/reduce/scatter.

Elementwise ops become one `te.compute` with a scalar body; views become index
arithmetic inlined into the loads of their consumers (a view is never copied);
reductions and matmuls become `te.reduce`; scatters and concatenation become
`te.scatter`. Extents are SSA `index` values: the size symbols of the function
or constants, so everything stays symbolic in N and E.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DYNAMIC_INDEX,
    DictionaryAttr,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import aten
from dialects import tensorexpr as te

Scalar = Callable[[Builder, list[SSAValue], Attribute], SSAValue]


class LoweringError(Exception):
    """An aten op this lowering cannot express."""


# --------------------------------------------------------------------------- scalar helpers


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore[attr-defined]


def const(b: Builder, value: float | int | bool, t: Attribute) -> SSAValue:
    if is_float(t):
        if math.isnan(value):
            attr = FloatAttr(float("nan"), t)  # type: ignore[arg-type]
        else:
            attr = FloatAttr(float(value), t)  # type: ignore[arg-type]
    elif isinstance(t, IntegerType) and t.width.data == 1:
        attr = IntegerAttr(int(bool(value)), t)
    else:
        attr = IntegerAttr(int(value), t)  # type: ignore[arg-type]
    return b.insert(arith.ConstantOp(attr)).result


def cast(b: Builder, v: SSAValue, to: Attribute) -> SSAValue:
    """Convert a scalar as torch does (floats truncate toward zero, != 0 is true)."""
    src = v.type
    if src == to:
        return v
    if isinstance(src, IndexType):
        v = b.insert(arith.IndexCastOp(v, i64)).result
        return cast(b, v, to)
    if isinstance(to, IndexType):
        return b.insert(arith.IndexCastOp(cast(b, v, i64), IndexType())).result
    if isinstance(to, IntegerType) and to.width.data == 1:
        zero = const(b, 0, src)
        if is_float(src):
            return b.insert(arith.CmpfOp(v, zero, "une")).result
        return b.insert(arith.CmpiOp(v, zero, "ne")).result
    if is_float(src) and is_float(to):
        op = arith.ExtFOp if width(to) > width(src) else arith.TruncFOp
        return b.insert(op(v, to)).result
    if is_float(to):
        if width(src) == 1:
            return b.insert(arith.UIToFPOp(v, to)).result
        return b.insert(arith.SIToFPOp(v, to)).result
    if is_float(src):
        return b.insert(arith.FPToSIOp(v, to)).result
    if width(to) > width(src):
        op = arith.ExtUIOp if width(src) == 1 else arith.ExtSIOp
        return b.insert(op(v, to)).result
    return b.insert(arith.TruncIOp(v, to)).result


def binary(float_op: type[Operation], int_op: type[Operation] | None = None) -> Scalar:
    def build(b: Builder, args: list[SSAValue], t: Attribute) -> SSAValue:
        if is_float(t):
            return b.insert(float_op(args[0], args[1])).results[0]
        if int_op is None:
            raise LoweringError(f"no integer form of {float_op.name}")
        return b.insert(int_op(args[0], args[1])).results[0]

    return build


def unary_math(op: type[Operation]) -> Scalar:
    return lambda b, a, t: b.insert(op(a[0])).results[0]


def _neg(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if is_float(t):
        return b.insert(arith.NegfOp(a[0])).result
    return b.insert(arith.SubiOp(const(b, 0, t), a[0])).result


def _abs(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if is_float(t):
        return b.insert(xmath.AbsFOp(a[0])).result
    return b.insert(xmath.AbsIOp(a[0])).result


def _recip(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    return b.insert(arith.DivfOp(const(b, 1.0, t), a[0])).result


def _sigmoid(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    e = b.insert(xmath.ExpOp(_neg(b, a, t))).result
    s = b.insert(arith.AddfOp(const(b, 1.0, t), e)).result
    return _recip(b, [s], t)


def _relu(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    zero = const(b, 0, t)
    if is_float(t):
        # NaN-propagating, like torch.relu
        return b.insert(arith.MaximumfOp(a[0], zero)).result
    return b.insert(arith.MaxSIOp(a[0], zero)).result


def _sign(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    zero = const(b, 0, t)
    if is_float(t):
        pos = cast(b, b.insert(arith.CmpfOp(a[0], zero, "ogt")).result, t)
        neg = cast(b, b.insert(arith.CmpfOp(a[0], zero, "olt")).result, t)
        d = b.insert(arith.SubfOp(pos, neg)).result
        nan = b.insert(arith.CmpfOp(a[0], a[0], "uno")).result
        return b.insert(arith.SelectOp(nan, a[0], d)).result
    pos = cast(b, b.insert(arith.CmpiOp(a[0], zero, "sgt")).result, t)
    neg = cast(b, b.insert(arith.CmpiOp(a[0], zero, "slt")).result, t)
    return b.insert(arith.SubiOp(pos, neg)).result


def _not(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    return b.insert(arith.XOrIOp(a[0], const(b, -1 if width(t) > 1 else 1, t))).result


def _pow(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    base, exp = a
    if is_float(t):
        return b.insert(xmath.PowFOp(base, exp)).result
    return b.insert(xmath.IPowIOp(base, exp)).result


def _div(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
    if not is_float(t):
        raise LoweringError("true division with an integer result")
    return b.insert(arith.DivfOp(a[0], a[1])).result


UNARY: dict[type[Operation], Scalar] = {
    aten.NegOp: _neg,
    aten.AbsOp: _abs,
    aten.SignOp: _sign,
    aten.ReluOp: _relu,
    aten.BitwiseNotOp: _not,
    aten.ReciprocalOp: _recip,
    aten.SqrtOp: unary_math(xmath.SqrtOp),
    aten.RsqrtOp: unary_math(xmath.RsqrtOp),
    aten.ExpOp: unary_math(xmath.ExpOp),
    aten.Expm1Op: unary_math(xmath.ExpM1Op),
    aten.LogOp: unary_math(xmath.LogOp),
    aten.Log1pOp: unary_math(xmath.Log1pOp),
    aten.SinOp: unary_math(xmath.SinOp),
    aten.CosOp: unary_math(xmath.CosOp),
    aten.TanhOp: unary_math(xmath.TanhOp),
    aten.ErfOp: unary_math(xmath.ErfOp),
    aten.SigmoidOp: _sigmoid,
}
"""Unary elementwise ops, computed in the result element type."""

BINARY: dict[type[Operation], Scalar] = {
    aten.MulTensorOp: binary(arith.MulfOp, arith.MuliOp),
    aten.MulScalarOp: binary(arith.MulfOp, arith.MuliOp),
    aten.DivTensorOp: _div,
    aten.DivScalarOp: _div,
    aten.MaximumOp: binary(arith.MaximumfOp, arith.MaxSIOp),
    aten.MinimumOp: binary(arith.MinimumfOp, arith.MinSIOp),
    aten.Atan2Op: binary(xmath.Atan2Op),
    aten.BitwiseAndTensorOp: binary(arith.AndIOp, arith.AndIOp),
    aten.BitwiseOrTensorOp: binary(arith.OrIOp, arith.OrIOp),
    aten.PowTensorTensorOp: _pow,
    aten.PowScalarOp: _pow,
}
"""Binary elementwise ops, computed in the result element type."""

COMPARE: dict[type[Operation], tuple[str, str]] = {
    aten.EqTensorOp: ("oeq", "eq"), aten.EqScalarOp: ("oeq", "eq"),
    aten.NeTensorOp: ("une", "ne"), aten.NeScalarOp: ("une", "ne"),
    aten.LtTensorOp: ("olt", "slt"), aten.LtScalarOp: ("olt", "slt"),
    aten.LeTensorOp: ("ole", "sle"), aten.LeScalarOp: ("ole", "sle"),
    aten.GtTensorOp: ("ogt", "sgt"), aten.GtScalarOp: ("ogt", "sgt"),
    aten.GeTensorOp: ("oge", "sge"), aten.GeScalarOp: ("oge", "sge"),
}
"""Comparisons: (float predicate, integer predicate), computed in the promoted type."""

LOGICAL: dict[type[Operation], type[Operation]] = {
    aten.LogicalAndOp: arith.AndIOp,
    aten.LogicalOrOp: arith.OrIOp,
}


# --------------------------------------------------------------------------- the pass


@dataclass(frozen=True)
class LowerAtenToTensorExprPass(ModulePass):
    name = "lower-aten-to-tensorexpr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.walk()):
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                _FunctionLowering(f).run()


class _FunctionLowering:
    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.block = fn.body.block
        self.extents: dict[SSAValue, list[SSAValue]] = {}
        self.views: set[Operation] = set()
        self.consts: dict[int, SSAValue] = {}
        self.sites: list[str] = []
        self._bind_arguments()

    # ------------------------------------------------------------ driver

    def run(self) -> None:
        for op in list(self.block.ops):
            if not isinstance(op, (aten.AtenOp,)):
                continue
            self.b = Builder(InsertPoint.before(op))
            result = self.lower(op)
            op.results[0].replace_all_uses_with(result)
            Rewriter.erase_op(op)
        for op in reversed(list(self.block.ops)):
            if op in self.views and not op.results[0].uses:
                Rewriter.erase_op(op)
        self._rename_dims()
        if self.sites:
            self.fn.attributes["te.index_sites"] = ArrayAttr([StringAttr(s) for s in self.sites])

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

    # ------------------------------------------------------------ builders

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
        origin = _argument_of(data)
        self.sites.append(what + (f" (index data from argument '{origin}')" if origin else ""))
        return len(self.sites)

    def to_index(self, b: Builder, value: SSAValue, extent: SSAValue, what: str, data: SSAValue, *, wrap: bool = False) -> SSAValue:
        return b.insert(te.IndexOp(value, extent, self.site(what, data), wrap)).result

    # ------------------------------------------------------------ dispatch

    def lower(self, op: aten.AtenOp) -> SSAValue:
        t = op.results[0].type
        kind = type(op)
        if kind in UNARY:
            return self.elementwise(op, [op.input], UNARY[kind])
        if kind in BINARY:
            operands = [op.operands[0], op.operands[1]]
            return self.elementwise(op, operands, BINARY[kind])
        if kind in COMPARE:
            return self.compare(op, *COMPARE[kind])
        if kind in LOGICAL:
            return self.elementwise(op, [op.input, op.other], lambda b, a, _: b.insert(
                LOGICAL[kind](cast(b, a[0], i1), cast(b, a[1], i1))).results[0], compute_type=i1)
        method = getattr(self, "lower_" + kind.__name__.removesuffix("Op"), None)
        if method is None:
            raise LoweringError(f"lower-aten-to-tensorexpr: {op.name} has no lowering")
        return method(op)

    # ------------------------------------------------------------ elementwise

    def elementwise(
        self, op: Operation, operands: list[SSAValue], scalar: Scalar,
        compute_type: Attribute | None = None, extents: Sequence[SSAValue | None] | None = None,
    ) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        ct = compute_type or t.get_element_type()
        shape = t.get_shape()

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            args = [
                cast(b, self.load_broadcast(b, v, idx, shape), ct) if isinstance(v.type, TensorType)
                else cast(b, v, ct)
                for v in operands
            ]
            return cast(b, scalar(b, args, ct), t.get_element_type())

        if extents is None:
            extents = self.broadcast_extents(t, operands)
        return self.compute(t, extents, body)

    def compare(self, op: aten.AtenOp, fpred: str, ipred: str) -> SSAValue:
        operands = [op.operands[0], op.operands[1]]
        tensor_types = [aten.elem_of(v) for v in operands if isinstance(v.type, TensorType)]
        floats = [x for x in tensor_types if is_float(x)]
        if floats:
            ct = max(floats, key=width)
        elif any(is_float(v.type) for v in operands):
            ct = f64
        else:
            ct = max(tensor_types, key=width)

        def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
            if is_float(t):
                return b.insert(arith.CmpfOp(a[0], a[1], fpred)).result
            return b.insert(arith.CmpiOp(a[0], a[1], ipred)).result

        return self.elementwise(op, operands, scalar, compute_type=ct)

    def lower_AddTensor(self, op: aten.AtenOp) -> SSAValue:
        return self._add_sub(op, arith.AddfOp, arith.AddiOp)

    lower_AddScalar = lower_AddTensor

    def lower_SubTensor(self, op: aten.AtenOp) -> SSAValue:
        return self._add_sub(op, arith.SubfOp, arith.SubiOp)

    lower_SubScalar = lower_SubTensor
    lower_SubInplace = lower_SubTensor

    def _add_sub(self, op: aten.AtenOp, fop: type[Operation], iop: type[Operation]) -> SSAValue:
        alpha = op.alpha  # type: ignore[attr-defined]
        operands = [op.input, op.other] + ([alpha] if alpha is not None else [])  # type: ignore[attr-defined]

        def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
            x, y = a[0], a[1]
            if len(a) == 3:
                y = b.insert((arith.MulfOp if is_float(t) else arith.MuliOp)(y, a[2])).results[0]
            if isinstance(t, IntegerType) and t.width.data == 1:
                return b.insert(arith.OrIOp(x, y)).result  # bool + bool
            return b.insert((fop if is_float(t) else iop)(x, y)).results[0]

        return self.elementwise(op, operands, scalar)

    def lower_PowTensorScalar(self, op: aten.PowTensorScalarOp) -> SSAValue:
        exponent = _constant_value(op.exponent)
        if isinstance(exponent, (int, float)) and float(exponent).is_integer() and abs(exponent) <= 8:
            n = int(exponent)
            if n < 0 and not is_float(aten.elem_of(op.result)):
                raise LoweringError(f"{op.name}: integers to a negative power (torch rejects it too)")

            def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
                if n == 0:
                    return const(b, 1, t)
                mul = arith.MulfOp if is_float(t) else arith.MuliOp
                result = a[0]
                for _ in range(abs(n) - 1):
                    result = b.insert(mul(result, a[0])).results[0]
                return _recip(b, [result], t) if n < 0 else result

            return self.elementwise(op, [op.input], scalar)
        if exponent == 0.5:
            return self.elementwise(op, [op.input], unary_math(xmath.SqrtOp))
        return self.elementwise(op, [op.input, op.exponent], _pow)

    def lower_Clamp(self, op: aten.ClampOp) -> SSAValue:
        bounds = [v for v in (op.min, op.max) if v is not None]
        has_min, has_max = op.min is not None, op.max is not None

        def scalar(b: Builder, a: list[SSAValue], t: Attribute) -> SSAValue:
            x, rest = a[0], a[1:]
            if has_min:
                lo, rest = rest[0], rest[1:]
                x = b.insert((arith.MaximumfOp if is_float(t) else arith.MaxSIOp)(x, lo)).results[0]
            if has_max:
                x = b.insert((arith.MinimumfOp if is_float(t) else arith.MinSIOp)(x, rest[0])).results[0]
            return x

        return self.elementwise(op, [op.input, *bounds], scalar)

    def lower_WhereSelf(self, op: aten.WhereSelfOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        ct = t.get_element_type()
        shape = t.get_shape()

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            c = cast(b, self.load_broadcast(b, op.condition, idx, shape), i1)
            x = cast(b, self.load_broadcast(b, op.input, idx, shape), ct)
            y = cast(b, self.load_broadcast(b, op.other, idx, shape), ct)
            return b.insert(arith.SelectOp(c, x, y)).result

        return self.compute(t, self.broadcast_extents(t, [op.condition, op.input, op.other]), body)

    def lower_Isnan(self, op: aten.AtenOp) -> SSAValue:
        src = aten.elem_of(op.input)  # type: ignore[attr-defined]
        if not is_float(src):
            return self.compute(op.results[0].type, self.dims(op.input), lambda b, idx: const(b, 0, i1))  # type: ignore[attr-defined]
        return self.elementwise(op, [op.input], lambda b, a, _: b.insert(  # type: ignore[attr-defined]
            arith.CmpfOp(a[0], a[0], "uno")).result, compute_type=src)

    def lower_LogicalNot(self, op: aten.AtenOp) -> SSAValue:
        return self.elementwise(op, [op.input], lambda b, a, _: _not(b, [cast(b, a[0], i1)], i1), compute_type=i1)

    def _convert(self, op: aten.AtenOp, src: SSAValue, extents: Sequence[SSAValue] | None = None) -> SSAValue:
        """src broadcast to the result shape (of `extents`) and converted to its dtype;
        identity if same."""
        if src.type == op.results[0].type:
            return src
        return self.elementwise(op, [src], lambda b, a, t: a[0], extents=extents)

    def lower_Alias(self, op: aten.AtenOp) -> SSAValue:
        return self._convert(op, op.input)

    lower_Clone = lower_Alias
    lower_LiftFreshCopy = lower_Alias
    lower_ToCopy = lower_Alias

    def lower_Copy(self, op: aten.AtenOp) -> SSAValue:
        # the result has self's shape, which src may broadcast to
        return self._convert(op, op.src, self.dims(op.input))

    lower_CopyInplace = lower_Copy

    # ------------------------------------------------------------ factories

    def _fill(self, op: aten.AtenOp, value: SSAValue | None, extents: Sequence[SSAValue | None]) -> SSAValue:
        t = op.results[0].type
        assert isinstance(t, TensorType)
        ct = t.get_element_type()
        if value is not None and not isinstance(value.owner, arith.ConstantOp):
            v = value
            return self.compute(t, extents, lambda b, idx: cast(b, v, ct))
        number = 0 if value is None else _constant_value(value)
        return self.compute(t, extents, lambda b, idx: const(b, number, ct))

    def lower_Full(self, op: aten.FullOp) -> SSAValue:
        return self._fill(op, op.fill_value, list(op.size))

    def lower_FullLike(self, op: aten.FullLikeOp) -> SSAValue:
        return self._fill(op, op.fill_value, self.dims(op.input))

    def lower_ScalarTensor(self, op: aten.ScalarTensorOp) -> SSAValue:
        return self._fill(op, op.s, [])

    def lower_EmptyPermuted(self, op: aten.EmptyPermutedOp) -> SSAValue:
        return self._fill(op, None, list(op.size))

    lower_EmptyMemoryFormat = lower_EmptyPermuted

    def lower_ArangeStartStep(self, op: aten.ArangeStartStepOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        ct = t.get_element_type()
        b = self.b
        start = op.start
        step = op.step if op.step is not None else const(b, 1, i64)
        count = None
        if t.get_shape()[0] == DYNAMIC_INDEX:
            # ceil((end - start) / step), in f64 as torch does
            s, e, st = (cast(b, v, f64) for v in (start, op.end, step))
            n = b.insert(xmath.CeilOp(b.insert(arith.DivfOp(b.insert(arith.SubfOp(e, s)).result, st)).result)).result
            count = cast(b, b.insert(arith.MaximumfOp(n, const(b, 0.0, f64))).result, IndexType())

        def body(bb: Builder, idx: list[SSAValue]) -> SSAValue:
            i = cast(bb, idx[0], ct)
            mul = arith.MulfOp if is_float(ct) else arith.MuliOp
            add = arith.AddfOp if is_float(ct) else arith.AddiOp
            return bb.insert(add(cast(bb, start, ct), bb.insert(mul(i, cast(bb, step, ct))).results[0])).results[0]

        return self.compute(t, [count], body)

    def lower_Weight(self, op: aten.WeightOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        w = self.b.insert(te.WeightOp(op.weight_name.data, t))
        self.extents[w.result] = [self.index(d) for d in t.get_shape()]
        return w.result

    # ------------------------------------------------------------ sizes

    def lower_SymSizeInt(self, op: aten.SymSizeIntOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        return self.dims(op.input)[aten.int_prop(op, "dim", 0) % max(rank, 1)]

    def lower_SymNumel(self, op: aten.SymNumelOp) -> SSAValue:
        return self.numel(self.b, self.dims(op.input))

    def numel(self, b: Builder, extents: list[SSAValue]) -> SSAValue:
        n = self.index(1)
        for e in extents:
            n = e if n is self.index(1) else b.insert(arith.MuliOp(n, e)).result
        return n

    # ------------------------------------------------------------ views

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

    def normalize(self, b: Builder, i: SSAValue, size: SSAValue) -> SSAValue:
        """A Python index (negative counts from the end) as a non-negative index."""
        value = _constant_value(i)
        if isinstance(value, int) and value >= 0:
            return i
        if isinstance(value, int):
            return b.insert(arith.AddiOp(size, i)).result
        neg = b.insert(arith.CmpiOp(i, self.index(0), "slt")).result
        return b.insert(arith.SelectOp(neg, b.insert(arith.AddiOp(size, i)).result, i)).result

    def slice_bounds(self, b: Builder, op: aten.AtenOp, size: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(start, step, count) of Python slicing start:end:step over size."""
        start = op.start or self.index(0)  # type: ignore[attr-defined]
        step = op.step or self.index(1)  # type: ignore[attr-defined]
        end = op.end  # type: ignore[attr-defined]
        end_value = _constant_value(end) if end is not None else None
        if end is None or (isinstance(end_value, int) and end_value >= 2**62):
            end = size
        start, end = (self.clamp_index(b, self.normalize(b, v, size), size) for v in (start, end))
        if _constant_value(start) == 0 and _constant_value(step) == 1:
            length = end
        else:
            span = b.insert(arith.SubiOp(end, start)).result
            span = b.insert(arith.MaxSIOp(span, self.index(0))).result
            length = b.insert(arith.CeilDivSIOp(span, step)).result
        return start, step, length

    def clamp_index(self, b: Builder, i: SSAValue, size: SSAValue) -> SSAValue:
        if i is size or _constant_value(i) == 0:
            return i
        i = b.insert(arith.MaxSIOp(i, self.index(0))).result
        return b.insert(arith.MinSIOp(i, size)).result

    def lower_SliceTensor(self, op: aten.SliceTensorOp) -> SSAValue:
        rank = len(aten.shape_of(op.input))
        d = aten.int_prop(op, "dim", 0) % rank
        src = self.dims(op.input)
        start, step, count = self.slice_bounds(self.b, op, src[d])

        def at(b: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            return idx[:d] + [self.affine(b, idx[d], step, start)] + idx[d + 1:]

        return self.view(op, src[:d] + [count] + src[d + 1:], at)

    def affine(self, b: Builder, i: SSAValue, step: SSAValue, start: SSAValue) -> SSAValue:
        """start + i * step, without the trivial parts."""
        if _constant_value(step) != 1:
            i = b.insert(arith.MuliOp(i, step)).result
        if _constant_value(start) != 0:
            i = b.insert(arith.AddiOp(i, start)).result
        return i

    def lower_Expand(self, op: aten.ExpandOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        shape, src = aten.shape_of(op.input), self.dims(op.input)
        lead = len(op.size) - len(shape)
        extents: list[SSAValue | None] = []
        for k, s in enumerate(op.size):
            keep = _constant_value(s) == -1
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
        if any(_constant_value(s) == -1 for s in sizes):
            known = self.numel(b, [s for s in sizes if _constant_value(s) != -1])
            inferred = b.insert(arith.DivUIOp(self.numel(b, src), known)).result
            sizes = [inferred if _constant_value(s) == -1 else s for s in sizes]
        out = self.result_extents(t, sizes)
        # dims that stay the same at the front map one to one
        same = 0
        while same < min(len(src), len(out)) and _same_extent(src[same], out[same]):
            same += 1

        def at(bb: Builder, idx: list[SSAValue]) -> list[SSAValue]:
            if len(src) == same and len(out) == same:
                return idx
            flat = self.linearize(bb, idx[same:], out[same:])
            return idx[:same] + self.delinearize(bb, flat, src[same:])

        return self.view(op, out, at)

    lower_UnsafeView = lower_View

    def linearize(self, b: Builder, idx: list[SSAValue], extents: list[SSAValue]) -> SSAValue:
        flat = self.index(0)
        for i, e in zip(idx, extents):
            if _constant_value(flat) != 0:
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

    # ------------------------------------------------------------ reductions

    def accumulator(self, t: Attribute, extents: list[SSAValue]) -> Attribute:
        """f32 sums over a dynamic (or long) axis accumulate in f64."""
        long = any(_constant_value(e) is None or _constant_value(e) > 256 for e in extents)
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
        p = 2.0 if op.ord is None else _constant_value(op.ord)
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

    # ------------------------------------------------------------ matmul

    def _matmul(self, t: TensorType, a: SSAValue, bm: SSAValue, batch: bool) -> SSAValue:
        ea, eb = self.dims(a), self.dims(bm)
        ct = t.get_element_type()
        if batch:
            out = [ea[0] if aten.shape_of(a)[0] != 1 else eb[0], ea[1], eb[2]]
        else:
            out = [ea[0], eb[1]]
        k_ext = ea[-1]

        def body(b: Builder, idx: list[SSAValue]) -> SSAValue:
            *o, k = idx
            if batch:
                x = self.load_broadcast(b, a, [o[0], o[1], k], (t.get_shape()[0], 0, 0))
                y = self.load_broadcast(b, bm, [o[0], k, o[2]], (t.get_shape()[0], 0, 0))
            else:
                x = self.load(b, a, [o[0], k])
                y = self.load(b, bm, [k, o[1]])
            return b.insert(arith.MulfOp(cast(b, x, ct), cast(b, y, ct)) if is_float(ct) else arith.MuliOp(x, y)).results[0]

        return self.reduce("add", t, out, [k_ext], body)

    def lower_Mm(self, op: aten.MmOp) -> SSAValue:
        return self._matmul(op.result.type, op.input, op.mat2, batch=False)  # type: ignore[arg-type]

    def lower_Bmm(self, op: aten.BmmOp) -> SSAValue:
        return self._matmul(op.result.type, op.input, op.mat2, batch=True)  # type: ignore[arg-type]

    def lower_Addmm(self, op: aten.AddmmOp) -> SSAValue:
        t = op.result.type
        assert isinstance(t, TensorType)
        mm = self._matmul(TensorType(t.get_element_type(), t.get_shape()), op.mat1, op.mat2, batch=False)
        operands = [op.input, mm] + [v for v in (op.beta, op.alpha) if v is not None]
        has_beta, has_alpha = op.beta is not None, op.alpha is not None

        def scalar(b: Builder, a: list[SSAValue], ct: Attribute) -> SSAValue:
            bias, prod, rest = a[0], a[1], a[2:]
            mul = arith.MulfOp if is_float(ct) else arith.MuliOp
            if has_beta:
                bias, rest = b.insert(mul(bias, rest[0])).results[0], rest[1:]
            if has_alpha:
                prod = b.insert(mul(prod, rest[0])).results[0]
            return b.insert((arith.AddfOp if is_float(ct) else arith.AddiOp)(bias, prod)).results[0]

        return self.elementwise(op, operands, scalar)

    # ------------------------------------------------------------ gathers

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


def _constant_value(v: SSAValue | None) -> int | float | bool | None:
    if v is None or not isinstance(v.owner, arith.ConstantOp):
        return None
    attr = v.owner.value
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return None


def _same_extent(a: SSAValue, b: SSAValue) -> bool:
    return a is b or (_constant_value(a) is not None and _constant_value(a) == _constant_value(b))


def _argument_of(v: SSAValue) -> str | None:
    """The function argument a tensor was read from, through views."""
    from xdsl.ir import BlockArgument

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
