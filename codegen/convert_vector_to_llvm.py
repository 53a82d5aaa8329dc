"""vector -> llvm for what xDSL's convert-vector-to-ptr leaves: vector.broadcast.

    %v = vector.broadcast %x : f32 to vector<16xf32>

becomes an llvm.insertelement of %x into lane 0 of an undefined vector and an
llvm.shufflevector of lane 0 into every lane (LLVM's splat idiom; it selects to one
vbroadcastss). Loads and stores of vectors are convert-vector-to-ptr's.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, llvm, vector
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException


class ConvertVectorToLLVMPass(ModulePass):
    name = "convert-vector-to-llvm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, vector.BroadcastOp):
                t = inner.vector.type
                if isinstance(inner.source.type, builtin.VectorType) or t.get_num_dims() != 1:
                    raise DiagnosticException(f"codegen: convert-vector-to-llvm broadcasts scalars to 1-d vectors, "
                                              f"not {inner.source.type} to {t}")
                lanes = t.get_shape()[0]
                undef = llvm.UndefOp(t)
                zero = llvm.ConstantOp(builtin.IntegerAttr(0, builtin.i32), builtin.i32)
                lane0 = llvm.InsertElementOp(undef.res, inner.source, zero.result)
                splat = llvm.ShuffleVectorOp(lane0.res, lane0.res, builtin.DenseArrayBase.from_list(builtin.i32, [0] * lanes), t)
                Rewriter.insert_op([undef, zero, lane0], InsertPoint.before(inner))
                Rewriter.replace_op(inner, splat)
            elif inner.dialect_name() == "vector":
                raise DiagnosticException(f"codegen: {inner.name} has no lowering (only broadcast, and loads and "
                                          "stores through convert-vector-to-ptr)")
