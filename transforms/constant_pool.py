"""A function's arith.constants, one per value, at the top of its body.

The loop-level passes take their constants from here, so the loops come out as
canonicalize and CSE would leave them (no constant to hoist out of a loop or merge)
and the pipeline runs no canonicalize after them (see pipeline.compiler.STAGES).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


class ConstantPool:
    """`get(value)`: the block's constant of `value`, made after the pool's last one
    the first time; `erase_unused()` drops those nothing uses."""

    def __init__(self, block: Block):
        self.block = block
        self.values: dict[tuple[object, Attribute], SSAValue] = {}

    def get(self, value: IntegerAttr | FloatAttr) -> SSAValue:
        x = value.value.data
        key = (float.hex(x) if isinstance(x, float) else x, value.type)  # -0.0 is not 0.0
        if key not in self.values:
            op = arith.ConstantOp(value)
            last = next(reversed(self.values.values()), None)
            Rewriter.insert_op(op, InsertPoint.after(last.owner) if last else InsertPoint.at_start(self.block))  # type: ignore[arg-type]
            self.values[key] = op.result
        return self.values[key]

    def erase_unused(self) -> None:
        for value in self.values.values():
            if not value.uses:
                self.block.erase_op(value.owner)  # type: ignore[arg-type]


__all__ = ["ConstantPool"]
