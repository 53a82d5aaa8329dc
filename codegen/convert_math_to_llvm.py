"""math -> LLVM intrinsics where LLVM has them, libm calls where it does not.

- intrinsics (`llvm.call_intrinsic "llvm.<op>.<type>"`, scalar or vector): exp, exp2,
  log, log2, log10, sqrt, absf (fabs), sin, cos, tan, asin, acos, atan, atan2, sinh,
  cosh, tanh, floor, ceil, round, roundeven, trunc, copysign, powf (pow), fma,
  fpowi (powi, exponent as i32), absi (abs), ctlz, cttz, ctpop. LLVM's backend turns
  the transcendental ones into libm calls (`expf`, `tanhf`, ...), one per lane for
  vectors.
- libm calls (scalars only; `f` suffix for f32): erf, erfc, expm1, log1p, cbrt,
  asinh, acosh, atanh -> `func.call @erff` & co, with a private declaration that
  `convert-func-to-llvm` makes external.
- rsqrt -> 1 / sqrt(x).
- ipowi -> a call of a private helper `@__codegen_ipowi_iN` (square-and-multiply
  loop, written in arith + cf and lowered by the passes that follow; O3 inlines it).
  A negative exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise.

Fast-math flags of math ops are dropped (xDSL's translation of call_intrinsic rejects
them); results are the IEEE ones. Run before convert-arith/cf/func-to-llvm, since the
ops it creates are lowered by those.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, llvm, math
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.utils.exceptions import DiagnosticException

from codegen.llvm_ext import intrinsic
from codegen.symbols import Declarations

_INTRINSIC: dict[type[Operation], str] = {
    math.ExpOp: "exp",
    math.Exp2Op: "exp2",
    math.LogOp: "log",
    math.Log2Op: "log2",
    math.Log10Op: "log10",
    math.SqrtOp: "sqrt",
    math.AbsFOp: "fabs",
    math.SinOp: "sin",
    math.CosOp: "cos",
    math.TanOp: "tan",
    math.AsinOp: "asin",
    math.AcosOp: "acos",
    math.AtanOp: "atan",
    math.Atan2Op: "atan2",
    math.SinhOp: "sinh",
    math.CoshOp: "cosh",
    math.TanhOp: "tanh",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.RoundOp: "round",
    math.RoundEvenOp: "roundeven",
    math.TruncOp: "trunc",
    math.CopySignOp: "copysign",
    math.PowFOp: "pow",
    math.FmaOp: "fma",
    math.CtPopOp: "ctpop",
}

# intrinsics with a trailing `i1 false` flag (is_zero_poison / is_int_min_poison)
_INTRINSIC_WITH_FLAG: dict[type[Operation], str] = {
    math.AbsIOp: "abs",
    math.CountLeadingZerosOp: "ctlz",
    math.CountTrailingZerosOp: "cttz",
}

_LIBM: dict[type[Operation], str] = {
    math.ErfOp: "erf",
    math.ExpM1Op: "expm1",
    math.Log1pOp: "log1p",
    math.CbrtOp: "cbrt",
    math.AsinhOp: "asinh",
    math.AcoshOp: "acosh",
    math.AtanhOp: "atanh",
}
if hasattr(math, "ErfcOp"):
    _LIBM[math.ErfcOp] = "erfc"

_i1 = builtin.IntegerType(1)
_i32 = builtin.i32


def libm_name(base: str, t: Attribute) -> str:
    if isinstance(t, builtin.Float32Type):
        return base + "f"
    if isinstance(t, builtin.Float64Type):
        return base
    raise DiagnosticException(
        f"codegen: no libm function `{base}` for type {t} (scalar f32 and f64 only)"
    )


def _lower_intrinsic(op: Operation, rewriter: PatternRewriter, decls: Declarations) -> None:
    rewriter.replace(op, intrinsic(_INTRINSIC[type(op)], op.operands, op.results[0].type))


def _lower_intrinsic_with_flag(op: Operation, rewriter: PatternRewriter, decls: Declarations) -> None:
    false = rewriter.insert(llvm.ConstantOp(builtin.IntegerAttr(0, _i1), _i1)).result
    name = _INTRINSIC_WITH_FLAG[type(op)]
    rewriter.replace(op, intrinsic(name, [op.operands[0], false], op.results[0].type))


def _lower_libm(op: Operation, rewriter: PatternRewriter, decls: Declarations) -> None:
    t = op.results[0].type
    name = libm_name(_LIBM[type(op)], t)
    decls.declare(name, [t] * len(op.operands), [t])
    rewriter.replace(op, func.CallOp(name, list(op.operands), [t]))


def _lower_rsqrt(op: math.RsqrtOp, rewriter: PatternRewriter, decls: Declarations) -> None:
    t = op.result.type
    if isinstance(t, builtin.VectorType):
        one_attr = builtin.DenseIntOrFPElementsAttr.from_list(t, [1.0])
    else:
        one_attr = builtin.FloatAttr(1.0, t)
    one = rewriter.insert(llvm.ConstantOp(one_attr, t)).result
    root = rewriter.insert(intrinsic("sqrt", [op.operand], t)).results[0]
    rewriter.replace(op, llvm.FDivOp(one, root))


def _lower_fpowi(op: math.FPowIOp, rewriter: PatternRewriter, decls: Declarations) -> None:
    t = op.result.type
    power = op.rhs
    ptype = power.type
    if not isinstance(ptype, builtin.IntegerType):
        raise DiagnosticException("codegen: math.fpowi needs a scalar integer exponent (llvm.powi)")
    if ptype.width.data > 32:
        power = rewriter.insert(llvm.TruncOp(power, _i32)).res
    elif ptype.width.data < 32:
        power = rewriter.insert(llvm.SExtOp(power, _i32)).res
    rewriter.replace(op, intrinsic("powi", [op.lhs, power], t, overloads=[t, _i32]))


_IPOWI_TEMPLATE = """
func.func private @{name}(%b: {t}, %e: {t}) -> {t} {{
  %c0 = arith.constant 0 : {t}
  %c1 = arith.constant 1 : {t}
  %cm1 = arith.constant -1 : {t}
  %neg = arith.cmpi slt, %e, %c0 : {t}
  cf.cond_br %neg, ^negative, ^loop(%c1, %b, %e : {t}, {t}, {t})
^negative:
  %is1 = arith.cmpi eq, %b, %c1 : {t}
  %ism1 = arith.cmpi eq, %b, %cm1 : {t}
  %lowbit = arith.andi %e, %c1 : {t}
  %odd = arith.cmpi ne, %lowbit, %c0 : {t}
  %sign = arith.select %odd, %cm1, %c1 : {t}
  %r0 = arith.select %ism1, %sign, %c0 : {t}
  %r1 = arith.select %is1, %c1, %r0 : {t}
  func.return %r1 : {t}
^loop(%acc: {t}, %base: {t}, %exp: {t}):
  %done = arith.cmpi eq, %exp, %c0 : {t}
  cf.cond_br %done, ^exit, ^body
^body:
  %bit = arith.andi %exp, %c1 : {t}
  %take = arith.cmpi ne, %bit, %c0 : {t}
  %prod = arith.muli %acc, %base : {t}
  %acc2 = arith.select %take, %prod, %acc : {t}
  %base2 = arith.muli %base, %base : {t}
  %exp2 = arith.shrui %exp, %c1 : {t}
  cf.br ^loop(%acc2, %base2, %exp2 : {t}, {t}, {t})
^exit:
  func.return %acc : {t}
}}
"""


def ipowi_helper(t: builtin.IntegerType) -> func.FuncOp:
    """The private integer power function for type `t`, in arith + cf."""
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, cf.Cf):
        ctx.load_dialect(dialect)
    name = f"__codegen_ipowi_i{t.width.data}"  # keep in step with _lower_ipowi
    module = Parser(ctx, _IPOWI_TEMPLATE.format(name=name, t=t)).parse_module()
    helper = module.body.block.first_op
    assert isinstance(helper, func.FuncOp)
    helper.detach()
    return helper


def _lower_ipowi(op: math.IPowIOp, rewriter: PatternRewriter, decls: Declarations) -> None:
    t = op.result.type
    if not isinstance(t, builtin.IntegerType):
        raise DiagnosticException(f"codegen: math.ipowi on {t}: scalar integers only")
    name = f"__codegen_ipowi_i{t.width.data}"
    if not decls.has(name):
        decls.add_definition(ipowi_helper(t))
    rewriter.replace(op, func.CallOp(name, [op.lhs, op.rhs], [t]))


_Lowering = Callable[[Operation, PatternRewriter, Declarations], None]
_LOWERINGS: dict[type[Operation], _Lowering] = {
    math.RsqrtOp: _lower_rsqrt,
    math.FPowIOp: _lower_fpowi,
    math.IPowIOp: _lower_ipowi,
    **{t: _lower_intrinsic for t in _INTRINSIC},
    **{t: _lower_intrinsic_with_flag for t in _INTRINSIC_WITH_FLAG},
    **{t: _lower_libm for t in _LIBM},
}


class MathToLLVM(RewritePattern):
    def __init__(self, decls: Declarations):
        self.decls = decls

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        lowering = _LOWERINGS.get(type(op))
        if lowering is None:
            if op.dialect_name() == "math":
                raise DiagnosticException(f"codegen: convert-math-to-llvm does not handle {op.name}")
            return
        if type(op) in _LIBM and isinstance(op.results[0].type, builtin.VectorType):
            raise DiagnosticException(
                f"codegen: {op.name} on {op.results[0].type}: libm functions take scalars; "
                "scalarize before codegen"
            )
        lowering(op, rewriter, self.decls)


class ConvertMathToLLVMPass(ModulePass):
    name = "convert-math-to-llvm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(MathToLLVM(Declarations(op)), apply_recursively=False).rewrite_module(op)
