"""The integer a value holds when it is a constant (xDSL's `ConstantLike` folding)."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue
from xdsl.traits import ConstantLike


def int_constant(value: SSAValue) -> int | None:
    """`value`'s integer if a constant op defines it (arith.constant), else None."""
    attr = ConstantLike.get_constant_value(value)
    return attr.value.data if isinstance(attr, IntegerAttr) else None
