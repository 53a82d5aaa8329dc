"""pack-operands: give a contraction's small static operand a copy laid out along the row.

A te.reduce whose last output dim (the row, J) is static and long enough to
vectorize computes `x @ B` fast only when B is read along the row: then
lower-tensorexpr-to-loops picks the i-k-j order and the row stays in vector
registers across the reduction. Weights often come the other way: `x @ W.T`
loads W[j, k]; e3nn's and MACE's contractions load a weight product through
reshapes, `W[e * 8 + c, j * 9 + m]` for a reduction index r = (e, m), with
stride 9 along the row.

Such a load, of a static-shaped tensor of at most MAX_ELEMENTS elements whose
indices are index arithmetic of static loop arguments only (the row among them),
is replaced by a load of a packed copy

    P = te.compute [reduction args..., other static output args..., row] { T[indices] }

made once before the reduce, which then loads `P[k..., c..., j]`: contiguous along
the row. The copy costs one load per element of P per call, against one
multiply-add per element of P for every row of x.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects import tensorexpr as te

MIN_ROW = 8  # the output row must fill a vector
MAX_ELEMENTS = 1 << 16  # only small operands (weights and products of weights), copied every call
INDEX_ARITH = (arith.AddiOp, arith.MuliOp, arith.SubiOp, arith.DivUIOp, arith.RemUIOp, arith.ConstantOp)


def _index_slice(load: te.LoadOp, block: Block) -> list[Operation] | None:
    """The body ops computing load's indices, in order; None when one is not index
    arithmetic (a gather through te.index, a value loaded from data)."""
    needed = te.body_slice(load.indices, block)
    if not all(isinstance(o, INDEX_ARITH) for o in needed):
        return None
    return [o for o in block.ops if o in needed]


def _along_row(load: te.LoadOp, row: SSAValue, block: Block) -> bool:
    """Already contiguous along the row: row only in the last index, with unit stride."""
    depends = te.dependents(block, row)
    return te.unit_stride(load.indices[-1], row, block) and not any(i in depends for i in load.indices[:-1])


def _packed(op: te.ReduceOp, load: te.LoadOp, slice_: list[Operation], dims: list[SSAValue]) -> SSAValue:
    """te.compute over `dims` (args of op's body) of load's element at those args."""
    block = op.body.block
    extents = list(op.extents) + list(op.reduce_extents)
    position = {a: k for k, a in enumerate(block.args)}
    body = Block(arg_types=[IndexType()] * len(dims))
    mapping: dict[SSAValue, SSAValue] = {d: body.args[k] for k, d in enumerate(dims)}
    for o in slice_:
        clone = o.clone(value_mapper=mapping)
        body.add_op(clone)
        mapping.update(zip(o.results, clone.results))
    element = te.LoadOp(load.tensor, [mapping.get(i, i) for i in load.indices])
    body.add_ops([element, te.YieldOp(element.result)])
    t = load.tensor.type
    assert isinstance(t, TensorType)
    shape = [te.static_extent(extents[position[d]]) for d in dims]
    result = TensorType(t.get_element_type(), shape)
    compute = te.ComputeOp([extents[position[d]] for d in dims], result, Region(body))
    Rewriter.insert_op(compute, InsertPoint.before(op))
    if te.origin(op) is not None:  # a layout copy: it computes no aten op of its own
        te.add_origin(compute, [])
    return compute.result


def _rewrite(op: te.ReduceOp) -> None:
    extents = list(op.extents) + list(op.reduce_extents)
    rank = len(op.extents)
    if not rank or (te.static_extent(extents[rank - 1]) or 0) < MIN_ROW:
        return
    block = op.body.block
    row = block.args[rank - 1]
    static = {a for a, e in zip(block.args, extents) if te.static_extent(e) is not None}
    for load in [o for o in block.ops if isinstance(o, te.LoadOp)]:
        t = load.tensor.type
        if not (isinstance(t, TensorType) and t.has_static_shape() and t.element_count() <= MAX_ELEMENTS):
            continue
        used = te.body_args(load.indices, block)
        if row not in used or not used <= static or _along_row(load, row, block):
            continue
        slice_ = _index_slice(load, block)
        if slice_ is None:
            continue
        reduction = [a for a in block.args[rank:] if a in used]
        others = [a for a in block.args[:rank - 1] if a in used]
        dims = reduction + others + [row]
        packed = _packed(op, load, slice_, dims)
        Rewriter.replace_op(load, te.LoadOp(packed, dims))
        for o in reversed(slice_):  # the index arithmetic only the old load used
            if not any(r.uses for r in o.results):
                Rewriter.erase_op(o)


@dataclass(frozen=True)
class PackOperandsPass(ModulePass):
    name = "pack-operands"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                for o in list(fn.body.block.ops):
                    if isinstance(o, te.ReduceOp):
                        _rewrite(o)
