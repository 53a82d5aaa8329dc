"""arith -> llvm dialect, one op at a time (types must be free of `index`).

Run after `convert-index-to-i64`: llvm ops take signless integers, floats and vectors
of them. Mapping:

- constant -> llvm.mlir.constant; addi/subi/muli/shli keep their nsw/nuw flags;
  divsi/divui/remsi/remui/andi/ori/xori/shrsi/shrui -> sdiv/udiv/srem/urem/and/or/
  xor/ashr/lshr; addf/subf/mulf/divf/negf keep their fast-math flags.
- floordivsi, ceildivsi, ceildivui -> sdiv/udiv + a remainder correction.
- maxsi/minsi/maxui/minui -> llvm.smax/smin/umax/umin; maximumf/minimumf ->
  llvm.maximum/minimum (NaN-propagating); maxnumf/minnumf -> llvm.maxnum/minnum.
- cmpi -> llvm.icmp; cmpf -> llvm.fcmp (`false` / `true` fold to constants); select.
- casts: extsi/extui/trunci/extf/truncf/sitofp/bitcast -> sext/zext/trunc/fpext/
  fptrunc/sitofp/bitcast; fptosi/fptoui/uitofp -> the llvm ops of `codegen.llvm_ext`
  (missing from xDSL's llvm dialect).

An arith op not listed, or one still on `index`, is an error naming the op.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import arith, builtin, llvm
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.utils.exceptions import DiagnosticException

from codegen import llvm_ext
from codegen.llvm_ext import intrinsic

_INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}
_WITH_OVERFLOW = (llvm.AddOp, llvm.SubOp, llvm.MulOp, llvm.ShlOp)

_FLOAT_BINARY: dict[type[Operation], type[llvm.AbstractFloatArithOp]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

_INTRINSIC_BINARY: dict[type[Operation], str] = {
    arith.MaxSIOp: "smax",
    arith.MinSIOp: "smin",
    arith.MaxUIOp: "umax",
    arith.MinUIOp: "umin",
    arith.MaximumfOp: "maximum",
    arith.MinimumfOp: "minimum",
    arith.MaxnumfOp: "maxnum",
    arith.MinnumfOp: "minnum",
}

_CASTS: dict[type[Operation], type[Operation]] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.BitcastOp: llvm.BitcastOp,
    arith.FPToSIOp: llvm_ext.FPToSIOp,
    arith.FPToUIOp: llvm_ext.FPToUIOp,
    arith.UIToFPOp: llvm_ext.UIToFPOp,
}

# arith.cmpi / arith.cmpf predicates are numbered like llvm.icmp / llvm.fcmp ones
_CMPF_FALSE, _CMPF_TRUE = 0, 15


def _fastmath(op: Operation) -> llvm.FastMathAttr:
    flags = op.properties.get("fastmath")
    if isinstance(flags, arith.FastMathFlagsAttr):
        return llvm.FastMathAttr(flags.data)
    return llvm.FastMathAttr(None)


def _overflow(op: Operation) -> llvm.OverflowAttr:
    flags = op.properties.get("overflowFlags")
    if isinstance(flags, arith.IntegerOverflowAttr):
        return llvm.OverflowAttr([llvm.OverflowFlag(f.value) for f in flags.data])
    return llvm.OverflowAttr(None)


def _check_no_index(op: Operation) -> None:
    for value in (*op.operands, *op.results):
        t = value.type
        if isinstance(t, builtin.IndexType) or (
            isinstance(t, builtin.VectorType) and isinstance(t.element_type, builtin.IndexType)
        ):
            raise DiagnosticException(
                f"codegen: {op.name} on index; run convert-index-to-i64 before convert-arith-to-llvm"
            )


def _constant(value: int, t: Attribute) -> llvm.ConstantOp:
    return llvm.ConstantOp(builtin.IntegerAttr(value, t), t)


def _lower_constant(op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
    rewriter.replace(op, llvm.ConstantOp(op.value, op.result.type))


def _lower_int_binary(op: Operation, rewriter: PatternRewriter) -> None:
    target = _INT_BINARY[type(op)]
    lhs, rhs = op.operands
    if target in _WITH_OVERFLOW:
        new = target(lhs, rhs, overflow=_overflow(op))
    else:
        new = target(lhs, rhs)
    rewriter.replace(op, new)


def _lower_float_binary(op: Operation, rewriter: PatternRewriter) -> None:
    lhs, rhs = op.operands
    rewriter.replace(op, _FLOAT_BINARY[type(op)](lhs, rhs, _fastmath(op)))


def _lower_negf(op: arith.NegfOp, rewriter: PatternRewriter) -> None:
    rewriter.replace(op, llvm.FNegOp(op.operand, _fastmath(op)))


def _lower_intrinsic_binary(op: Operation, rewriter: PatternRewriter) -> None:
    rewriter.replace(op, intrinsic(_INTRINSIC_BINARY[type(op)], op.operands, op.results[0].type))


def _splat(value: int, t: Attribute) -> llvm.ConstantOp:
    if isinstance(t, builtin.VectorType):
        return llvm.ConstantOp(builtin.DenseIntOrFPElementsAttr.from_list(t, [value]), t)
    return _constant(value, t)


def _icmp(pred: str, lhs: SSAValue, rhs: SSAValue) -> llvm.ICmpOp:
    code = llvm.ICmpPredicateFlag(pred).to_int()
    return llvm.ICmpOp(lhs, rhs, builtin.IntegerAttr(code, builtin.i64))


def _lower_div_rounding(op: Operation, rewriter: PatternRewriter) -> None:
    """floordivsi / ceildivsi / ceildivui: quotient corrected by the remainder's sign."""
    a, b = op.operands
    t = op.results[0].type
    unsigned = isinstance(op, arith.CeilDivUIOp)
    q = rewriter.insert(llvm.UDivOp(a, b) if unsigned else llvm.SDivOp(a, b)).res
    r = rewriter.insert(llvm.URemOp(a, b) if unsigned else llvm.SRemOp(a, b)).res
    zero = rewriter.insert(_splat(0, t)).result
    inexact = rewriter.insert(_icmp("ne", r, zero)).res
    if unsigned:
        adjust = inexact
    else:
        # sign(r) != sign(b)  <=>  (r xor b) < 0
        signs = rewriter.insert(llvm.XOrOp(r, b)).res
        pred = "slt" if isinstance(op, arith.FloorDivSIOp) else "sge"
        mixed = rewriter.insert(_icmp(pred, signs, zero)).res
        adjust = rewriter.insert(llvm.AndOp(inexact, mixed)).res
    if isinstance(op, arith.FloorDivSIOp):
        # q + sext(adjust) == q - 1 when adjusting
        step = rewriter.insert(llvm.SExtOp(adjust, t)).res
    else:
        step = rewriter.insert(llvm.ZExtOp(adjust, t)).res
    rewriter.replace(op, llvm.AddOp(q, step))


def _lower_cmpi(op: arith.CmpiOp, rewriter: PatternRewriter) -> None:
    pred = builtin.IntegerAttr(op.predicate.value.data, builtin.i64)
    rewriter.replace(op, llvm.ICmpOp(op.lhs, op.rhs, pred))


def _lower_cmpf(op: arith.CmpfOp, rewriter: PatternRewriter) -> None:
    code = op.predicate.value.data
    if isinstance(op.lhs.type, builtin.VectorType):
        raise DiagnosticException("codegen: vector arith.cmpf is not supported (xDSL's llvm.fcmp is scalar)")
    if code in (_CMPF_FALSE, _CMPF_TRUE):
        rewriter.replace(op, _constant(1 if code == _CMPF_TRUE else 0, builtin.IntegerType(1)))
        return
    new = llvm.FCmpOp(op.lhs, op.rhs, builtin.IntegerAttr(code, builtin.i64))
    new.fastmathFlags = _fastmath(op)
    rewriter.replace(op, new)


def _lower_select(op: arith.SelectOp, rewriter: PatternRewriter) -> None:
    if not isinstance(op.cond.type, builtin.IntegerType):
        raise DiagnosticException("codegen: arith.select with a vector condition is not supported")
    rewriter.replace(op, llvm.SelectOp(op.cond, op.lhs, op.rhs))


def _lower_cast(op: Operation, rewriter: PatternRewriter) -> None:
    rewriter.replace(op, _CASTS[type(op)](op.operands[0], op.results[0].type))


_LOWERINGS: dict[type[Operation], Callable[[Operation, PatternRewriter], None]] = {
    arith.ConstantOp: _lower_constant,
    arith.NegfOp: _lower_negf,
    arith.FloorDivSIOp: _lower_div_rounding,
    arith.CeilDivSIOp: _lower_div_rounding,
    arith.CeilDivUIOp: _lower_div_rounding,
    arith.CmpiOp: _lower_cmpi,
    arith.CmpfOp: _lower_cmpf,
    arith.SelectOp: _lower_select,
    **{t: _lower_int_binary for t in _INT_BINARY},
    **{t: _lower_float_binary for t in _FLOAT_BINARY},
    **{t: _lower_intrinsic_binary for t in _INTRINSIC_BINARY},
    **{t: _lower_cast for t in _CASTS},
}


class ArithToLLVM(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        lowering = _LOWERINGS.get(type(op))
        if lowering is None:
            if op.dialect_name() == "arith":
                raise DiagnosticException(f"codegen: convert-arith-to-llvm does not handle {op.name}")
            return
        _check_no_index(op)
        lowering(op, rewriter)


class ConvertArithToLLVMPass(ModulePass):
    name = "convert-arith-to-llvm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(ArithToLLVM(), apply_recursively=False).rewrite_module(op)
