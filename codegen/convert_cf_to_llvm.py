"""cf -> llvm: br, cond_br, and switch / assert lowered to what xDSL's LLVM export knows.

- `cf.br` -> `llvm.br`, `cf.cond_br` -> `llvm.cond_br` (block arguments become phis
  when translated);
- `cf.switch` -> a chain of `llvm.icmp eq` + `llvm.cond_br`, one new block per case
  (xDSL's llvm dialect and its translation have no `llvm.switch`; LLVM's SimplifyCFG
  turns the chain back into a `switch` at O3);
- `cf.assert %c, "msg"` -> `llvm.cond_br %c, ^continue, ^trap` with `llvm.trap` +
  `llvm.unreachable` (the message is dropped).

Block argument types must be LLVM types already: run `convert-index-to-i64` first.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, cf, llvm
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException


def _lower_switch(op: cf.SwitchOp, rewriter: PatternRewriter) -> None:
    flag = op.flag
    flag_type = flag.type
    if not isinstance(flag_type, builtin.IntegerType):
        raise DiagnosticException(
            f"codegen: cf.switch on {flag_type}; run convert-index-to-i64 before convert-cf-to-llvm"
        )
    block = op.parent_block()
    assert block is not None
    region = block.parent_region()
    assert region is not None
    values = op.case_values.get_values() if op.case_values is not None else ()
    segments = op.case_operand_segments.get_values()
    operands = list(op.case_operands)
    cases: list[tuple[int, Block, list]] = []
    start = 0
    for value, dest, size in zip(values, op.case_blocks, segments, strict=True):
        cases.append((value, dest, operands[start : start + size]))
        start += size

    if not cases:
        rewriter.replace(op, llvm.BrOp(op.default_block, *op.default_operands))
        return

    eq = builtin.IntegerAttr(llvm.ICmpPredicateFlag.EQ.to_int(), builtin.i64)
    chain: list[list[Operation]] = []
    blocks: list[Block] = []  # the blocks that test cases 1, 2, ...
    for index, (value, dest, args) in enumerate(cases):
        if index + 1 < len(cases):
            otherwise, otherwise_args = Block(), []
            region.insert_block_after(otherwise, blocks[-1] if blocks else block)
            blocks.append(otherwise)
        else:
            otherwise, otherwise_args = op.default_block, list(op.default_operands)
        constant = llvm.ConstantOp(builtin.IntegerAttr(value, flag_type), flag_type)
        compare = llvm.ICmpOp(flag, constant.result, eq)
        branch = llvm.CondBrOp(compare.res, dest, args, otherwise, otherwise_args)
        chain.append([constant, compare, branch])
    for test_block, ops in zip(blocks, chain[1:], strict=True):
        test_block.add_ops(ops)
    rewriter.replace(op, chain[0])


def _lower_assert(op: cf.AssertOp, rewriter: PatternRewriter) -> None:
    block = op.parent_block()
    assert block is not None
    region = block.parent_region()
    assert region is not None
    rest = block.split_before(op)  # `rest` starts with the assert
    trap = Block()
    region.insert_block_after(trap, block)
    trap.add_ops([llvm.CallIntrinsicOp("llvm.trap", [], []), llvm.UnreachableOp()])
    rewriter.insert_op(llvm.CondBrOp(op.arg, rest, [], trap, []), InsertPoint.at_end(block))
    rewriter.erase_op(op)


class CfToLLVM(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        match op:
            case cf.BranchOp():
                rewriter.replace(op, llvm.BrOp(op.successor, *op.arguments))
            case cf.ConditionalBranchOp():
                rewriter.replace(
                    op,
                    llvm.CondBrOp(
                        op.cond, op.then_block, list(op.then_arguments), op.else_block, list(op.else_arguments)
                    ),
                )
            case cf.SwitchOp():
                _lower_switch(op, rewriter)
            case cf.AssertOp():
                _lower_assert(op, rewriter)
            case _ if op.dialect_name() == "cf":
                raise DiagnosticException(f"codegen: convert-cf-to-llvm does not handle {op.name}")
            case _:
                pass


class ConvertCfToLLVMPass(ModulePass):
    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(CfToLLVM(), apply_recursively=False).rewrite_module(op)
