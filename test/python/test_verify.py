"""Verification after every pass: a pass that breaks the IR fails as that pass,
with SSA dominance checked (xDSL's verifier leaves it out)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import VerifyException

from pipeline.registry import context
from pipeline.verify import PassBrokeIR, VerifyEachPass, verify_ir


def parse(text: str) -> ModuleOp:
    return Parser(context(), text).parse_module()


@dataclass(frozen=True)
class HoistLastOp(ModulePass):
    """A broken pass: moves each function's op before the return to the top."""

    name = "hoist-last-op"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            assert isinstance(fn, func.FuncOp)
            block = fn.body.block
            last = block.last_op.prev_op
            last.detach()
            block.insert_op_before(last, block.first_op)


GOOD = """
func.func @f(%a: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<?xf32>
  %y = arith.addf %x, %x : f32
  func.return %y : f32
}
"""


def test_a_pass_that_breaks_dominance_is_named() -> None:
    module = parse(GOOD)
    verify_ir(module)
    with pytest.raises(PassBrokeIR, match=r"pass 'hoist-last-op' produced invalid IR: operand 0 of 'arith.addf'"):
        PassPipeline((HoistLastOp(),), VerifyEachPass()).apply(context(), module)


def test_dominance_across_blocks() -> None:
    """A value from one arm of a branch used after the join is not dominated."""
    bad = parse("""
func.func @f(%c: i1, %a: f32) -> f32 {
  cf.cond_br %c, ^then, ^else
^then:
  %x = arith.addf %a, %a : f32
  cf.br ^join
^else:
  cf.br ^join
^join:
  %y = arith.mulf %x, %a : f32
  func.return %y : f32
}
""")
    with pytest.raises(VerifyException, match=r"operand 0 of 'arith.mulf'.*%x, result of 'arith.addf'"):
        verify_ir(bad)
    good = parse("""
func.func @f(%c: i1, %a: f32) -> f32 {
  %x = arith.addf %a, %a : f32
  cf.cond_br %c, ^then, ^join
^then:
  %z = arith.mulf %x, %a : f32
  cf.br ^join
^join:
  func.return %x : f32
}
""")
    verify_ir(good)
