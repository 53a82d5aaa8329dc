"""lower-tensorexpr-to-loops: each te op becomes a loop nest over a buffer.

The function takes, in order: the size symbols, the input buffers, the weight
buffers, the output buffers it must fill, a status buffer where an out-of-range
index records its site (see `te.index_sites`), and the number of threads its
parallel loops may use (0: the OpenMP default). One buffer per tensor, freed at
the end (plan-memory makes them arena slots); a returned te result is computed
straight into its output buffer.

One pass over one nest builder, one module per family of te ops (as
lower-aten-to-tensorexpr is split), each tested by its file in
`test/transforms/lower-tensorexpr-to-loops/`:
- `base`: flat buffers, linear indices, loop nests, constants, folded index
  arithmetic: what every family builds with;
- `index_checks`: the checked te.index, and the guard of an index into an extent
  that may be 0 (one test at the function's entry, or one in its block);
- `compute`: te.compute, and how every te body is emitted into its nest;
- `reduction`: te.reduce, with its vectorized, register-tiled form;
- `scatter`: te.scatter, with its partitioned form and the constant fills of its base;
- `compact_scan_check`: te.compact, te.scan and te.check.
This module builds the new signature and walks the function's te ops, handing
each to its family.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import func, memref, scf
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
from transforms.sparse_contractions import ConstantValues, folded_only
from transforms.constant_pool import ConstantPool
from transforms.lower_aten_to_tensorexpr.scalars import LoweringError
from transforms.lower_tensorexpr_to_loops.base import _Buffer, buffer_type
from transforms.lower_tensorexpr_to_loops.compact_scan_check import CompactScanCheckLowerings
from transforms.lower_tensorexpr_to_loops.compute import ComputeLowerings
from transforms.lower_tensorexpr_to_loops.index_checks import IndexChecks
from transforms.lower_tensorexpr_to_loops.reduction import ReductionLowerings
from transforms.lower_tensorexpr_to_loops.scatter import ScatterLowerings, _scatter_base_fill

__all__ = ["LowerTensorExprToLoopsPass"]


@dataclass(frozen=True)
class LowerTensorExprToLoopsPass(ModulePass):
    name = "lower-tensorexpr-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and not f.is_declaration:
                new = _FunctionLowering(f).run()
                Rewriter.replace_op(f, new)


class _FunctionLowering(
    ScatterLowerings, ReductionLowerings, ComputeLowerings, CompactScanCheckLowerings, IndexChecks,
):
    """Every family's `lower_<op>` methods over one function, and its new signature."""

    def run(self) -> func.FuncOp:
        old = self.fn.body.block
        ret = old.last_op
        assert isinstance(ret, func.ReturnOp)
        self.constant_values = ConstantValues()
        weights = list(dict.fromkeys(
            o.weight_name.data for o in old.ops if isinstance(o, te.WeightOp) and not self.folded_away(o)
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
        types.append(IndexType())
        attrs.append(DictionaryAttr({"loops.num_threads": UnitAttr()}))

        block = Block(arg_types=types)
        for new, a in zip(block.args, list(old.args)):
            new.name_hint = a.name_hint
        n_in = len(old.args)
        self.weight_args = dict(zip(weights, block.args[n_in:n_in + len(weights)]))
        for w, a in self.weight_args.items():
            a.name_hint = "w_" + "".join(c if c.isalnum() else "_" for c in w)
        outs = block.args[n_in + len(weights):-2]
        for k, o in enumerate(outs):
            o.name_hint = f"out{k}"
        self.status = block.args[-2]
        self.status.name_hint = "status"
        self.checks: list[SSAValue] = []
        self.num_threads = block.args[-1]
        self.num_threads.name_hint = "num_threads"
        self.b = Builder(InsertPoint.at_end(block))
        self.constants = ConstantPool(block)
        self.computed: dict[tuple[object, ...], SSAValue] = {}
        self.zero, self.one = self.index(0), self.index(1)

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

        nest = 0
        for op in old.ops:
            if op is ret:
                break
            last = block.last_op
            if _scatter_base_fill(op):
                assert isinstance(op, te.ComputeOp)
                self.fills[op.result] = (op, nest if te.origin(op) is not None else None)
            elif not self.folded_away(op):
                self.lower(op)
            if te.origin(op) is not None:  # provenance: which te op each loop nest comes from
                self._tag_nests(block, last, nest)
                if isinstance(op, te.ScatterOp) and op.base in self.fills and (k := self.fills[op.base][1]) is not None:
                    self._tag_nests(block, last, k)  # the loops filling its base compute the fill's aten op
                nest += 1
        for v, o in zip(ret.operands, outs):
            if self.destination.get(v) is not o:
                self.copy(self.buffers[v], o)
        self.empty_index_test()
        for t in self.temporaries:
            self.b.insert(memref.DeallocOp.get(t))
        self.b.insert(func.ReturnOp())
        self.constants.erase_unused()

        attributes = {k: v for k, v in self.fn.attributes.items() if k not in ("function_type", "sym_name", "arg_attrs", "res_attrs")}
        new_fn = func.FuncOp(
            self.fn.sym_name.data, (types, []), Region(block),
            arg_attrs=ArrayAttr(attrs),
        )
        for k, v in attributes.items():
            if k.startswith("te.") or k.startswith("llvm."):
                new_fn.attributes[k] = v
        return new_fn

    def folded_away(self, op: Operation) -> bool:
        """A static tensor of constants read only where sparse contractions fold its
        values into their code: never stored."""
        return isinstance(op, (te.ComputeOp, te.ReduceOp, te.WeightOp)) and folded_only(op.result, self.constant_values)

    @staticmethod
    def _tag_nests(block: Block, last: Operation | None, nest: int) -> None:
        """`loops.nests = array<i64: k>` on the loops built for the k-th top-level te op
        (inside its guard, when one runs them only for nonzero extents)."""
        op = last.next_op if last is not None else block.first_op
        while op is not None:
            if isinstance(op, (scf.ForOp, scf.ParallelOp)):
                te.merge_array(op, te.NESTS, [nest])
            elif isinstance(op, scf.IfOp) and op.false_region.blocks:
                _FunctionLowering._tag_nests(op.false_region.block, None, nest)
            op = op.next_op

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

    LOWERINGS: dict[type[Operation], str] = {
        te.ComputeOp: "lower_compute", te.ReduceOp: "lower_reduce", te.ScatterOp: "lower_scatter",
        te.CompactOp: "lower_compact", te.CheckOp: "lower_check", te.ScanOp: "lower_scan",
    }
    """The te ops that become loop nests, and the method of each."""

    def lower(self, op: Operation) -> None:
        if isinstance(op, te.WeightOp):
            t = op.result.type
            assert isinstance(t, TensorType)
            self.buffers[op.result] = _Buffer(self.weight_args[op.weight_name.data],
                                              [self.index(d) for d in t.get_shape()])
        elif type(op) in self.LOWERINGS:
            getattr(self, self.LOWERINGS[type(op)])(op)
            self.guard_empty_extents()
        elif isinstance(op, te.LoadOp):  # a scalar the function reads itself (.item())
            buf = self.buffers[op.tensor]
            at = self.linear(self.b, [self.values[i] for i in op.indices], buf.extents)
            self.values[op.result] = self.b.insert(memref.LoadOp.get(buf.memref, [at])).res
        elif op.dialect_name() in ("arith", "math"):
            self.emit(self.b, op, self.values)
        else:
            raise LoweringError(f"lower-tensorexpr-to-loops: {op.name} has no lowering")
