"""Import a captured FX graph into one `func.func` of the `aten` dialect.

The import is driven by each overload's schema: every schema argument maps to the
operand or property of the same name (`self` is `input`), so supporting another
ATen overload means declaring its op, not writing import code. Size arithmetic on
SymInts is imported as `index` arithmetic on the size symbols, which are the
function's leading arguments.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

import sympy
import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    bf16,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import OptOperandDef, OptPropertyDef, VarOperandDef
from xdsl.rewriter import InsertPoint

from dialects.aten import OPS_BY_OVERLOAD, AssertAsyncMsgOp, AtenOp, LocalScalarDenseOp, NonzeroOp, ScalarTensorOp, SelectIntOp, SymSizeIntOp, WeightOp
from frontend.capture import Captured

DTYPES: dict[torch.dtype, Attribute] = {
    torch.float32: f32,
    torch.float64: f64,
    torch.float16: f16,
    torch.bfloat16: bf16,
    torch.int64: i64,
    torch.int32: i32,
    torch.int16: i16,
    torch.int8: i8,
    torch.bool: i1,
}

_DEFINE_SIZES = (torch.ops.aten.nonzero.default, torch.ops.aten.index.Tensor, torch.ops.aten._local_scalar_dense.default,
                 torch.ops.aten.repeat_interleave.Tensor)
"""Ops whose result may have a data-dependent size: the importer names it."""

# Schema arguments carried by the result type, or meaningless on CPU tensors.
_CARRIED_BY_TYPE = {"dtype", "layout", "device", "pin_memory", "memory_format", "non_blocking"}


class ImportError_(Exception):
    """An FX node has no counterpart in the aten dialect."""


UnsupportedOpError = ImportError_


@dataclass
class Imported:
    module: ModuleOp
    weights: dict[str, torch.Tensor]
    source_lines: dict[Operation, str] = field(default_factory=dict)


def tensor_type(dtype: torch.dtype, shape: Any) -> TensorType:
    if dtype not in DTYPES:
        raise ImportError_(f"dtype {dtype} is not supported")
    dims = [int(d) if _is_static(d) else DYNAMIC_INDEX for d in shape]
    return TensorType(DTYPES[dtype], dims)


def _is_static(d: Any) -> bool:
    return isinstance(d, int) or (
        isinstance(d, torch.SymInt) and d.node.expr.is_number  # type: ignore[union-attr]
    )


def source_line(node: torch.fx.Node) -> str | None:
    """The innermost user frame of the node's stack trace, as `file:line: code`."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in \S+\n\s*(.*)', trace)
    frames = [f for f in frames if "/torch/" not in f[0]]
    if not frames:
        return None
    path, line, code = frames[-1]
    return f"{path}:{line}: {code.strip()}"


def names_as_symbols(names: dict[sympy.Symbol, str]) -> dict[sympy.Symbol, sympy.Symbol]:
    """Traced size symbols (s26) as the Dims' names (N), for messages."""
    return {sym: sympy.Symbol(name) for sym, name in names.items()}


def import_graph(captured: Captured) -> Imported:
    return _Importer(captured).run()


class _Importer:
    def __init__(self, captured: Captured):
        self.captured = captured
        self.values: dict[torch.fx.Node, SSAValue] = {}
        self.tuples: dict[torch.fx.Node, list[SSAValue]] = {}
        """The results of multi-result ops (max.dim, sort, split_with_sizes), for getitem."""
        self.symbols: dict[sympy.Expr, SSAValue] = {}
        self.source_lines: dict[Operation, str] = {}
        self.pending_asserts = list(captured.runtime_asserts)
        """Asserted as soon as every size they name is read (frontend.capture.Captured)."""

    # ------------------------------------------------------------------ driver

    def run(self) -> Imported:
        cap = self.captured
        sym_types = [IndexType()] * len(cap.symbols)
        arg_types = [
            TensorType(DTYPES[a.dtype], [d if isinstance(d, int) else DYNAMIC_INDEX for d in a.dims])
            for a in cap.args
        ]
        block = Block(arg_types=sym_types + arg_types)
        self.builder = Builder(InsertPoint.at_end(block))
        by_name = {s.name: block.args[i] for i, s in enumerate(cap.symbols)}
        for i, s in enumerate(cap.symbols):
            block.args[i].name_hint = s.name
        for expr, name in cap.sympy_names.items():
            self.symbols[expr] = by_name[name]

        placeholders = [n for n in cap.graph.graph.nodes if n.op == "placeholder"]
        for node, arg, spec in zip(placeholders, block.args[len(cap.symbols) :], cap.args):
            arg.name_hint = _ssa_name(spec.name)
            self.values[node] = arg

        results: list[SSAValue] = []
        result_attrs: list[DictionaryAttr] = []
        for node in cap.graph.graph.nodes:
            if node.op == "placeholder":
                continue
            if node.op == "output":
                for out in torch.fx.node.map_arg(node.args[0], lambda n: n) or ():
                    if not isinstance(out, torch.fx.Node):
                        raise ImportError_(f"output {out!r} is not a tensor")
                    if free_unbacked_symbols(out.meta["val"]):
                        raise ImportError_(
                            f"output {len(results)} has a size that depends on tensor data ({out.meta['val'].shape}): "
                            "the caller allocates outputs from the argument sizes; reduce or scatter it to a known size")
                    results.append(self.values[out])
                    result_attrs.append(_dims_attr(cap, out.meta["val"].shape))
                continue
            self._import_node(node)
            if self.pending_asserts:
                self._assert_ready(bounds_only=True)
        self._assert_ready(bounds_only=False)

        self.builder.insert(func.ReturnOp(*results))
        arg_attrs = [DictionaryAttr({}) for _ in cap.symbols] + [
            DictionaryAttr({"aten.dims": _dims_list(spec.dims)}) for spec in cap.args
        ]
        fn = func.FuncOp(
            cap.name,
            (sym_types + arg_types, [r.type for r in results]),
            Region(block),
            arg_attrs=ArrayAttr(arg_attrs),
            res_attrs=ArrayAttr(result_attrs),
        )
        return Imported(ModuleOp([fn]), dict(cap.weights), self.source_lines)

    def _import_node(self, node: torch.fx.Node) -> None:
        if node.op == "get_attr":
            value = getattr(self.captured.graph, node.target)  # type: ignore[arg-type]
            op = WeightOp(
                properties={"weight_name": StringAttr(str(node.target))},
                result_types=[tensor_type(value.dtype, value.shape)],
            )
            if (positions := structural_nonzeros(value)) is not None:
                op.attributes[NONZEROS] = DenseArrayBase.from_list(i64, positions)
                values = value.detach().reshape(-1)[positions].double().tolist()
                op.attributes[NONZERO_VALUES] = DenseArrayBase.from_list(f64, values)
            self.values[node] = self._insert(op, node).results[0]
            return
        if node.op != "call_function":
            raise ImportError_(f"FX node kind '{node.op}' ({node.name}) is not supported")
        if node.target is operator.getitem and node.args[0] in self.tuples:
            parent, k = node.args
            self.values[node] = self.tuples[parent][k]  # type: ignore[index]
            return
        val = node.meta.get("val")
        unknown = sorted(str(u) for u in free_unbacked_symbols(val) if u not in self.symbols)
        if unknown and node.target not in _DEFINE_SIZES:
            raise ImportError_(_unsupported(
                node, f"{node.target} (its result depends on tensor data: data-dependent values such as "
                      f"{unknown[0]} are supported as the sizes of nonzero, boolean-mask indexing and repeat_interleave only)"))
        if node.target is torch.ops.aten._local_scalar_dense.default:
            self.values[node] = self._item(node)
            return
        if isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool, int, float)) and not isinstance(
            node.target, torch._ops.OpOverload
        ) or isinstance(val, (torch.SymInt, torch.SymFloat)):
            # size arithmetic: rebuilt from its sympy expression over the symbols
            self.values[node] = self._scalar(val)
            return
        if isinstance(node.target, torch._ops.OpOverload):
            results = self._aten(node)
            if isinstance(node.meta.get("val"), (tuple, list)):
                self.tuples[node] = results
            elif results:
                self.values[node] = results[0]
            if node.target in (torch.ops.aten.nonzero.default, torch.ops.aten.repeat_interleave.Tensor):
                self._define_size(val.shape[0], results[0], 0)
            return
        raise ImportError_(_unsupported(node, str(node.target)))

    def _insert(self, op: Operation, node: torch.fx.Node | None = None) -> Operation:
        self.builder.insert(op)
        if node is not None and (line := source_line(node)):
            self.source_lines[op] = line
        return op

    # ------------------------------------------------------------------ aten ops

    def _aten(self, node: torch.fx.Node) -> list[SSAValue]:
        target: torch._ops.OpOverload = node.target  # type: ignore[assignment]
        overload = target._overloadpacket.__name__
        if target._overloadname != "default":
            overload += "." + target._overloadname
        if target.namespace != "aten" or overload not in OPS_BY_OVERLOAD:
            raise ImportError_(_unsupported(node, f"{target.namespace}.{overload}"))
        op_cls = OPS_BY_OVERLOAD[overload]
        op_def = op_cls.get_irdl_definition()
        operand_defs = dict(op_def.operands)
        schema = target._schema
        val = node.meta.get("val")
        vals = val if isinstance(val, (tuple, list)) else () if val is None and not schema_returns(target) else (val,)
        if not all(isinstance(v, torch.Tensor) for v in vals):
            raise ImportError_(_unsupported(node, f"aten.{overload} (non-tensor result)"))

        operands: dict[str, SSAValue | list[SSAValue] | None] = {}
        props: dict[str, Attribute] = {}
        bound = _bind(schema, node)
        for arg in schema.arguments:
            name = "input" if arg.name == "self" else arg.name
            value = bound[arg.name]
            if name in _CARRIED_BY_TYPE and name not in operand_defs and name not in op_def.properties:
                _check_carried(node, name, value)
                continue
            is_default = arg.has_default_value() and _same(value, arg.default_value)
            if name in operand_defs:
                odef = operand_defs[name]
                if (value is None or is_default) and isinstance(odef, OptOperandDef):
                    operands[name] = None
                elif name in ("indices",) and isinstance(value, (list, tuple)) and overload in ("index.Tensor", "index_put"):
                    operands[name], present = self._indices(value, node)
                    props["indexed_dims"] = DenseArrayBase.from_list(i64, present)
                elif isinstance(odef, VarOperandDef) and not isinstance(odef, OptOperandDef):
                    operands[name] = [self._operand(v, arg.real_type, node) for v in value]
                else:
                    operands[name] = self._operand(value, arg.real_type, node)
            elif name in op_def.properties:
                pdef = op_def.properties[name]
                if (value is None or is_default) and isinstance(pdef, OptPropertyDef):
                    continue
                props[name] = _property(value)
            else:
                raise ImportError_(f"aten.{overload}: argument '{arg.name}' has no field in the dialect")

        try:
            result_types = [tensor_type(v.dtype, v.shape) for v in vals]
        except ImportError_ as e:
            raise ImportError_(_unsupported(node, f"aten.{overload} with a result of {e}")) from None
        ordered = [operands.get(n) for n, _ in op_def.operands]
        op = op_cls.create(
            operands=[v for o in ordered if o is not None for v in (o if isinstance(o, list) else [o])],
            result_types=result_types,
            properties={
                **props,
                "operandSegmentSizes": DenseArrayBase.from_list(
                    i32, [0 if o is None else len(o) if isinstance(o, list) else 1 for o in ordered]
                ),
            },
        )
        return list(self._insert(op, node).results)

    def _indices(self, value: Sequence[Any], node: torch.fx.Node) -> tuple[list[SSAValue], list[int]]:
        """The index tensors of index.Tensor / index_put and the dims they index. A
        boolean mask over R dims becomes the R columns of its nonzero (as torch
        defines it); the count of true elements is a size symbol of the result."""
        tensors: list[SSAValue] = []
        dims: list[int] = []
        d = 0
        for v in value:
            if v is None:
                d += 1
                continue
            mask = v.meta["val"]
            if mask.dtype != torch.bool:
                tensors.append(self.values[v])
                dims.append(d)
                d += 1
                continue
            rank = mask.dim()
            nz = self._create(NonzeroOp, [self.values[v]], {}, TensorType(i64, [DYNAMIC_INDEX, rank]), node)
            for k in range(rank):
                k_ = self._constant(k, IndexType())
                tensors.append(self._create(SelectIntOp, [nz, k_], {"dim": IntegerAttr(1, i64)},
                                            TensorType(DTYPES[torch.int64], [DYNAMIC_INDEX]), node))
                dims.append(d + k)
            d += rank
            out = node.meta["val"]
            for k, size in enumerate(out.shape):
                if isinstance(size, torch.SymInt) and free_unbacked_symbols(size):
                    self._define_size(size, nz, 0)
        return tensors, dims

    def _bound(self, expr: sympy.Basic) -> bool:
        """Whether every symbol of `expr` has a value here (no set built: this runs per node)."""
        return all(s in self.symbols for s in expr.free_symbols)

    def _assert_ready(self, bounds_only: bool) -> None:
        """The deferred assertions whose sizes are all read, each a te.check. A bound on
        one size from data (`0 <= u0`) is checked where the size is read, before a buffer
        is sized by it. A relation (`Eq(u0, N)`: torch replaced u0 by N) is checked at the
        end: every type and extent is N already, so nothing runs out of bounds meanwhile,
        and a speculation on the same relation (frontend.speculation), checked where its
        branch was, fails first and compiles the other side."""
        names = self.captured.sympy_names
        for expr, line in list(self.pending_asserts):
            if not self._bound(expr) or (bounds_only and len(expr.free_symbols) > 1):
                continue
            self.pending_asserts.remove((expr, line))
            try:
                cond = self._bool_expr(expr)
            except ImportError_ as e:  # never dropped: without its check the call could write out of bounds
                raise ImportError_(f"the run-time check of {expr}, which the code assumed of a size read from data"
                                   + (f" at {line}" if line else "") + f", cannot be compiled: {e}") from e
            flag = self._insert(ScalarTensorOp.create(
                operands=[cond], result_types=[TensorType(i1, [])],
                properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1])})).results[0]
            said = str(expr.xreplace(names_as_symbols(names)))
            message = f"a size read from tensor data breaks {said}, which the code assumed" + (f" at {line}" if line else "")
            self._insert(AssertAsyncMsgOp(operands=[flag], properties={"assert_msg": StringAttr(message)}))

    def _create(self, cls: type[AtenOp], operands: list[SSAValue], props: dict[str, Attribute],
                result: Attribute, node: torch.fx.Node) -> SSAValue:
        op = cls.create(operands=operands, result_types=[result], properties={
            **props, "operandSegmentSizes": DenseArrayBase.from_list(i32, [1] * len(operands))})
        return self._insert(op, node).results[0]

    def _item(self, node: torch.fx.Node) -> SSAValue:
        """.item(): a scalar read from the tensor; its (unbacked) symbol names it in
        later size and scalar expressions."""
        source = node.args[0]
        dtype = source.meta["val"].dtype  # type: ignore[union-attr]
        scalar_type = f64 if dtype.is_floating_point else i1 if dtype == torch.bool else i64
        op = LocalScalarDenseOp.create(operands=[self.values[source]], result_types=[scalar_type],  # type: ignore[index]
                                       properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1])})
        value = self._insert(op, node).results[0]
        sym = getattr(node.meta["val"], "node", None)
        if sym is not None:
            # its own symbol, and what torch later replaced it by (`u0` -> `N` where the
            # code broadcast the two: graph-side checks assert it, frontend.speculation)
            read = value if scalar_type != i64 else self._insert(arith.IndexCastOp(value, IndexType())).results[0]
            for expr in (sym._expr, sym.expr):
                if isinstance(expr, sympy.Symbol):
                    self.symbols.setdefault(expr, read)
        return value

    def _define_size(self, size: Any, tensor: SSAValue, dim: int) -> None:
        """A data-dependent size symbol (torch's unbacked `u0`) is the size of the
        tensor it first appears in, read with sym_size like any other."""
        expr = size.node.expr if isinstance(size, torch.SymInt) else None
        if expr is None or not isinstance(expr, sympy.Symbol) or expr in self.symbols:
            return
        op = SymSizeIntOp.create(operands=[tensor], result_types=[IndexType()],
                                 properties={"dim": IntegerAttr(dim, i64), "operandSegmentSizes": DenseArrayBase.from_list(i32, [1])})
        self.symbols[expr] = self._insert(op).results[0]

    def _operand(self, value: Any, arg_type: Any, node: torch.fx.Node) -> SSAValue:
        kind = _type_kind(arg_type)
        if isinstance(value, torch.fx.Node):
            v = self.values[value]
            if kind == "Tensor" and not isinstance(v.type, TensorType):
                # a SymInt/SymFloat where a tensor is expected: a 0-d tensor of it
                return self._scalar_tensor(v, node)
            val = value.meta.get("val")
            if kind == "SymInt" and isinstance(val, torch.SymInt) and self._bound(val.node.expr):
                # the size as torch's types have it: an item() read that the trace tied to N
                # sizes by N, as every type does (its run-time check says if the data disagree)
                return self._index_expr(val.node.expr)
            if kind == "SymInt" and v.type == i64:  # an item() read, used as a size
                return self._insert(arith.IndexCastOp(v, IndexType())).results[0]
            return v
        if kind == "Tensor":  # a Python number in a tensor position
            return self._scalar_tensor(self._constant(value), node)
        if kind == "SymInt":
            return self._constant(int(value), IndexType())
        if isinstance(value, (torch.SymInt, torch.SymFloat)):
            return self._scalar(value)
        return self._constant(value)

    def _scalar_tensor(self, scalar: SSAValue, node: torch.fx.Node) -> SSAValue:
        """A Python number (or SymInt/SymFloat) in a tensor position: a 0-d tensor of the
        dtype torch computes it in, i.e. the promotion of the op's tensors with a number of
        its kind (an int tensor times 14.3996 computes in the default float dtype, not in
        int64, and a bool tensor times 2 in int64)."""
        tensors = [a.meta["val"] for a in node.all_input_nodes if isinstance(a.meta.get("val"), torch.Tensor)]
        if tensors:
            number = True if scalar.type == i1 else 1.0 if scalar.type == f64 else 1
            promoted = functools.reduce(torch.promote_types, (t.dtype for t in tensors))
            dtype = torch.result_type(torch.empty(0, dtype=promoted), number)
        else:
            dtype = node.meta["val"].dtype
        op = ScalarTensorOp.create(
            operands=[scalar],
            result_types=[tensor_type(dtype, ())],
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1])},
        )
        return self._insert(op, node).results[0]

    # ------------------------------------------------------------------ scalars

    def _constant(self, value: Any, type_: Attribute | None = None) -> SSAValue:
        if isinstance(value, bool):
            attr = IntegerAttr(int(value), i1)
        elif isinstance(value, int):
            attr = IntegerAttr(value, type_ or i64)
        elif isinstance(value, float):
            attr = FloatAttr(value, f64)
        else:
            raise ImportError_(f"constant {value!r} of type {type(value).__name__} is not supported")
        return self._insert(arith.ConstantOp(attr)).results[0]

    def _scalar(self, value: Any) -> SSAValue:
        """A SymInt (as index), SymFloat (as f64) or SymBool (as i1, a check on sizes:
        frontend.python_idioms) built from its sympy expression."""
        if isinstance(value, (int, float, bool)):
            return self._constant(value, IndexType() if type(value) is int else None)
        expr = value.node.expr
        if isinstance(value, torch.SymFloat):
            return self._float_expr(expr)
        if isinstance(value, torch.SymBool):
            # as written, not as simplified by what torch assumed later (a condition
            # `u0 != N` that a check asserts must not fold to false where torch tied u0 to N)
            raw = value.node._expr
            return self._bool_expr(raw if self._bound(raw) else expr)
        return self._index_expr(expr)

    def _fold(self, cls: type[Operation], terms: list[SSAValue]) -> SSAValue:
        """terms[0] op terms[1] op ..., left to right (a sympy Add, Mul, And, ...)."""
        result = terms[0]
        for t in terms[1:]:
            result = self._insert(cls(result, t)).results[0]  # type: ignore[call-arg]
        return result

    _COMPARISONS = {sympy.StrictLessThan: "slt", sympy.LessThan: "sle", sympy.StrictGreaterThan: "sgt",
                    sympy.GreaterThan: "sge", sympy.Equality: "eq", sympy.Unequality: "ne"}

    def _bool_expr(self, expr: sympy.Basic) -> SSAValue:
        if expr in (sympy.true, sympy.false):
            return self._constant(bool(expr))
        predicate = next((p for cls, p in self._COMPARISONS.items() if isinstance(expr, cls)), None)
        if predicate is not None and all(x.is_integer for x in expr.args):
            a, b = (self._index_expr(x) for x in expr.args)
            return self._insert(arith.CmpiOp(a, b, predicate)).results[0]
        if predicate is not None:  # a size times a float (`torch._check(n * 1.5 > 2)`)
            a, b = (self._float_expr(x) for x in expr.args)
            fpred = "o" + {"slt": "lt", "sle": "le", "sgt": "gt", "sge": "ge", "eq": "eq"}.get(predicate, "ne")
            return self._insert(arith.CmpfOp(a, b, "une" if predicate == "ne" else fpred)).results[0]
        if isinstance(expr, sympy.Not):
            return self._insert(arith.XOrIOp(self._bool_expr(expr.args[0]), self._constant(True))).results[0]
        if isinstance(expr, (sympy.And, sympy.Or)):
            cls = arith.AndIOp if isinstance(expr, sympy.And) else arith.OrIOp
            return self._fold(cls, [self._bool_expr(a) for a in expr.args])
        raise ImportError_(f"size condition {expr} is not supported")

    def _index_expr(self, expr: sympy.Expr) -> SSAValue:
        if expr in self.symbols:
            return self.symbols[expr]
        from torch.utils._sympy.functions import FloorDiv, Max, Min, Mod, PythonMod

        if expr.is_Integer:
            result = self._constant(int(expr), IndexType())
        elif isinstance(expr, (sympy.Add, sympy.Mul, Max, Min)):
            kind = {sympy.Add: arith.AddiOp, sympy.Mul: arith.MuliOp, Max: arith.MaxSIOp, Min: arith.MinSIOp}
            cls = next(v for k, v in kind.items() if isinstance(expr, k))
            result = self._fold(cls, [self._index_expr(a) for a in expr.args])
        elif isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 0:  # n**2: cartesian_prod(arange(n))
            result = self._fold(arith.MuliOp, [self._index_expr(expr.base)] * int(expr.exp))
        elif isinstance(expr, FloorDiv):
            a, b = (self._index_expr(x) for x in expr.args)
            result = self._insert(arith.FloorDivSIOp(a, b)).results[0]
        elif isinstance(expr, (Mod, PythonMod)):
            a, b = (self._index_expr(x) for x in expr.args)
            result = self._insert(arith.RemSIOp(a, b)).results[0]
        else:
            raise ImportError_(f"size expression {expr} is not supported")
        self.symbols[expr] = result
        return result

    def _float_expr(self, expr: sympy.Expr) -> SSAValue:
        from torch.utils._sympy.functions import FloatTrueDiv, IntTrueDiv, ToFloat

        if expr.is_number:
            return self._constant(float(expr))
        if expr in self.symbols and self.symbols[expr].type == f64:
            return self.symbols[expr]
        if isinstance(expr, FloatTrueDiv):
            a, b = (self._float_expr(x) for x in expr.args)
            return self._insert(arith.DivfOp(a, b)).results[0]
        if isinstance(expr, (sympy.Add, sympy.Mul)):
            cls = arith.AddfOp if isinstance(expr, sympy.Add) else arith.MulfOp
            return self._fold(cls, [self._float_expr(a) for a in expr.args])
        if isinstance(expr, ToFloat):
            i = self._insert(arith.IndexCastOp(self._index_expr(expr.args[0]), i64)).results[0]
            return self._insert(arith.SIToFPOp(i, f64)).results[0]
        if isinstance(expr, IntTrueDiv):
            a, b = (self._float_expr(ToFloat(x)) for x in expr.args)
            return self._insert(arith.DivfOp(a, b)).results[0]
        raise ImportError_(f"size expression {expr} is not supported")


# ---------------------------------------------------------------------- helpers


def schema_returns(target: Any) -> int:
    return len(target._schema.returns)


def _ssa_name(name: str) -> str:
    return re.sub(r"\W", "_", name)


NONZEROS, NONZERO_VALUES = "nonzeros", "values"  # te.NONZEROS: a structural constant's nonzeros and their values
MAX_STRUCTURE, MAX_NONZEROS = 1 << 22, 1 << 16
"""The largest constant, and the most nonzeros, the IR lists (as attributes)."""


def structural_nonzeros(value: torch.Tensor) -> list[int] | None:
    """The flat nonzero positions of a structural constant, a mostly-zero float tensor
    that is not trained (a buffer: MACE's U matrices, e3nn's Wigner 3j blocks; an
    nn.Parameter or a tensor requiring grad is runtime data); None for the rest."""
    if (isinstance(value, torch.nn.Parameter) or value.requires_grad or not value.is_floating_point()
            or not 0 < value.numel() <= MAX_STRUCTURE):
        return None
    flat = value.detach().reshape(-1)
    positions = torch.nonzero(flat).reshape(-1)
    if positions.numel() * 2 > flat.numel() or positions.numel() > MAX_NONZEROS:
        return None
    return positions.tolist()


def _dims_list(dims: tuple[int | str, ...]) -> ArrayAttr:
    return ArrayAttr([StringAttr(d) if isinstance(d, str) else IntegerAttr(d, i64) for d in dims])


def _dims_attr(cap: Captured, shape: Any) -> DictionaryAttr:
    names = cap.sympy_names
    dims: list[int | str] = []
    for d in shape:
        if _is_static(d):
            dims.append(int(d))
        else:
            expr = d.node.expr
            dims.append(str(expr.subs({s: sympy.Symbol(n) for s, n in names.items()})))
    return DictionaryAttr({"aten.dims": _dims_list(tuple(dims))})


def _type_kind(t: Any) -> str:
    """`Tensor`, `SymInt` or `Scalar`, looking through Optional and List."""
    while isinstance(t, (torch.OptionalType, torch.ListType)):
        t = t.getElementType()
    if isinstance(t, torch.SymIntType):
        return "SymInt"
    return "Tensor" if isinstance(t, torch.TensorType) else "Scalar"


def _bind(schema: Any, node: torch.fx.Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args) and not arg.kwarg_only:
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
        else:
            out[arg.name] = None
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.fx.Node) or isinstance(b, torch.fx.Node):
        return False
    try:
        return type(a) is type(b) and bool(a == b) or (a == b and not isinstance(a, bool) and not isinstance(b, bool))
    except Exception:
        return False


def _property(value: Any) -> Attribute:
    if isinstance(value, bool):
        return IntegerAttr(int(value), i1)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return DenseArrayBase.from_list(i64, list(value))
    raise ImportError_(f"argument value {value!r} is not supported as a property")


def _check_carried(node: torch.fx.Node, name: str, value: Any) -> None:
    if name == "device" and value is not None and torch.device(value).type != "cpu":
        raise ImportError_(f"{node.target}: device {value} is not supported (only cpu)")
    if name == "layout" and value not in (None, torch.strided):
        raise ImportError_(f"{node.target}: layout {value} is not supported (only strided)")


def _unsupported(node: torch.fx.Node, what: str) -> str:
    line = source_line(node)
    text = f"op {what} is not supported by the aten dialect" + (
        f" (from {line})" if line else f" (FX node {node.name})"
    )
    target = node.target
    if isinstance(target, torch._ops.OpOverload) and target.namespace not in ("aten", "prims"):
        text += (f"; a custom op: give its computation in torch ops with "
                 f"pipeline.compile(..., decompositions={{torch.ops.{target.namespace}.{target._opname}: fn}})")
    return text
