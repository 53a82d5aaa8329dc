"""Reference execution of an `aten` module: each op runs as its torch overload.

This checks the import numerically (capture -> import -> execute equals eager)
and gives every later stage an oracle that runs the IR itself, not the FX graph.
The mapping back is the inverse of the import, driven by the same schemas.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from dialects.aten import AtenOp, WeightOp
from frontend.import_fx import DTYPES

TORCH_DTYPES = {v: k for k, v in DTYPES.items()}

_ARITH: dict[type[Operation], Callable[..., Any]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.DivSIOp: lambda a, b: int(a / b),
    arith.RemSIOp: lambda a, b: a - b * int(a / b),
    arith.MaxSIOp: max,
    arith.MinSIOp: min,
    arith.IndexCastOp: int,
    arith.SIToFPOp: float,
    arith.AddfOp: lambda a, b: a + b,
    arith.SubfOp: lambda a, b: a - b,
    arith.MulfOp: lambda a, b: a * b,
    arith.DivfOp: lambda a, b: a / b,
}


_VALUE_SEMANTICS: dict[str, Callable[..., Any]] = {
    "view": lambda self, size: self.reshape(size),
    "_unsafe_view": lambda self, size: self.reshape(size),
}
"""Ops whose torch overload depends on strides, which the module's values do not have
(a view of a clone of a permute): their meaning on values."""


class ReferenceError_(Exception):
    """The module cannot be executed by the reference interpreter."""


def run_reference(
    module: ModuleOp,
    args: Sequence[torch.Tensor],
    weights: Mapping[str, torch.Tensor],
) -> tuple[torch.Tensor, ...]:
    """Run the module's function on tensors (size symbols are read off their shapes)."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    block = fn.body.block
    n_sym = sum(1 for a in block.args if not isinstance(a.type, TensorType))
    tensor_args = block.args[n_sym:]
    if len(args) != len(tensor_args):
        raise ReferenceError_(f"{fn.sym_name.data} takes {len(tensor_args)} tensors, got {len(args)}")
    env: dict[SSAValue, Any] = dict(zip(tensor_args, args))
    env.update(zip(block.args[:n_sym], _symbol_values(fn, n_sym, args)))
    with torch.no_grad():
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                return tuple(env[v] for v in op.operands)
            value = _execute(op, env, weights)
            if len(op.results) == 1:
                env[op.results[0]] = value
            else:  # several results (sort, split), or none (an assertion: run for its effect)
                env.update(zip(op.results, value or (), strict=True))
    raise ReferenceError_("function has no return")


def _symbol_values(fn: func.FuncOp, n_sym: int, args: Sequence[torch.Tensor]) -> list[int]:
    names = [a.name_hint for a in fn.body.block.args[:n_sym]]
    values: dict[str, int] = {}
    for i, t in enumerate(args):
        attrs = fn.arg_attrs.data[n_sym + i].data if fn.arg_attrs else {}
        dims = attrs.get("aten.dims")
        for d, dim in enumerate(dims.data if dims else ()):
            if isinstance(dim, StringAttr):
                values.setdefault(dim.data, int(t.shape[d]))
    return [values[n] for n in names]  # type: ignore[index]


def _execute(op: Operation, env: dict[SSAValue, Any], weights: Mapping[str, torch.Tensor]) -> Any:
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if isinstance(value, FloatAttr):
            return float(value.value.data)
        return _python(value)
    if type(op) in _ARITH:
        return _ARITH[type(op)](*(env[o] for o in op.operands))
    if isinstance(op, WeightOp):
        return weights[op.weight_name.data]
    if isinstance(op, AtenOp):
        return _aten(op, env)
    raise ReferenceError_(f"op {op.name} has no reference implementation")


def _aten(op: AtenOp, env: dict[SSAValue, Any]) -> Any:
    packet, _, overload = op.overload().partition(".")
    target = getattr(getattr(torch.ops.aten, packet), overload or "default")
    result_type = op.results[0].type if op.results else None
    op_def = op.get_irdl_definition()
    operand_names = [n for n, _ in op_def.operands]
    values: dict[str, Any] = {}
    for name in operand_names:
        got = getattr(op, name)
        if got is None:
            continue
        values[name] = [env[v] for v in got] if isinstance(got, Sequence) else env[got]
    for name in op_def.properties:
        attr = op.properties.get(name)
        if attr is not None and name != "operandSegmentSizes":
            values[name] = _python(attr)

    kwargs: dict[str, Any] = {}
    for arg in target._schema.arguments:
        name = "input" if arg.name == "self" else arg.name
        if name == "indices" and "indexed_dims" in values:
            listed: list[Any] = [None] * (max(values["indexed_dims"], default=-1) + 1)
            for d, t in zip(values["indexed_dims"], values["indices"]):
                listed[d] = t
            kwargs[arg.name] = listed
        elif name in values:
            kwargs[arg.name] = values[name]
        elif arg.name == "dtype" and isinstance(result_type, TensorType):
            kwargs[arg.name] = TORCH_DTYPES[result_type.element_type]
        elif not arg.has_default_value() and isinstance(arg.type, torch.OptionalType):
            kwargs[arg.name] = None  # an absent optional without a default (sum.dim_IntList's dim)
    result = _VALUE_SEMANTICS.get(packet, target)(**kwargs)
    if len(op.results) > 1:
        return result
    if isinstance(result_type, TensorType) and isinstance(result, torch.Tensor):
        expected = TORCH_DTYPES[result_type.element_type]
        if result.dtype != expected:
            raise ReferenceError_(f"{op.name} gave {result.dtype}, its result type says {expected}: {op}")
    return result


def _python(attr: Any) -> Any:
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(attr.value.data)
        return int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    raise ReferenceError_(f"attribute {attr} has no Python value")
