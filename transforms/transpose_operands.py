"""transpose-operands: `x @ W.T` reads W along the reduction; give it a transposed copy.

A te.reduce whose last output dim is static and long enough to vectorize, and which
loads a small static 2-d tensor as `W[j, k]` (j the last output dim, k a reduction
dim), gets `Wt = te.compute [K, J] { W[b, a] }` before it and loads `Wt[k, j]`
instead. Then every load runs along the output row or is invariant in it, and
lower-tensorexpr-to-loops picks the i-k-j order (the output row stays in vector
registers across k) instead of one horizontal dot product per output element.
The copy costs J * K loads per call, once, against E * J * K multiply-adds.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te

MIN_ROW = 8  # the output row must fill a vector
MAX_ELEMENTS = 1 << 16  # only small operands (weights), copied every call


def _transposed(b: Builder, tensor: SSAValue, extents: tuple[SSAValue, SSAValue]) -> SSAValue:
    t = tensor.type
    assert isinstance(t, TensorType)
    rows, cols = t.get_shape()
    block = Block(arg_types=[IndexType(), IndexType()])
    load = te.LoadOp(tensor, [block.args[1], block.args[0]])
    block.add_ops([load, te.YieldOp(load.result)])
    return b.insert(te.ComputeOp(list(extents), TensorType(t.get_element_type(), [cols, rows]), Region(block))).result


def _rewrite(op: te.ReduceOp) -> None:
    extents = list(op.extents)
    if not extents or (te.static_extent(extents[-1]) or 0) < MIN_ROW:
        return
    args = op.body.block.args
    row, reduction = args[len(extents) - 1], set(args[len(extents):])
    copies: dict[SSAValue, SSAValue] = {}
    for load in [o for o in op.body.block.walk() if isinstance(o, te.LoadOp)]:
        t = load.tensor.type
        if not (isinstance(t, TensorType) and t.get_num_dims() == 2 and all(d > 0 for d in t.get_shape())
                and t.get_shape()[0] * t.get_shape()[1] <= MAX_ELEMENTS):
            continue
        j, k = load.indices
        if j is not row or k not in reduction or load.tensor.owner is op:
            continue
        if load.tensor not in copies:
            b = Builder(InsertPoint.before(op))
            shape = t.get_shape()
            n = [b.insert(arith.ConstantOp(IntegerAttr(d, IndexType()))).result for d in (shape[1], shape[0])]
            copies[load.tensor] = _transposed(b, load.tensor, (n[0], n[1]))
            if te.origin(op) is not None:  # a layout copy: it computes no aten op of its own
                te.add_origin(copies[load.tensor].owner, [])
        Rewriter.replace_op(load, te.LoadOp(copies[load.tensor], [k, j]))


@dataclass(frozen=True)
class TransposeOperandsPass(ModulePass):
    name = "transpose-operands"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                for o in list(fn.body.block.ops):
                    if isinstance(o, te.ReduceOp):
                        _rewrite(o)
