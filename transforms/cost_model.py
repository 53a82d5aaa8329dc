"""The cost units the fusion and scheduling passes share (not a pass).

One unit is a load or an arithmetic op; transcendental math and division are 8
(a polynomial or a libm call). Constants are free: they fold into the code.
"""

from __future__ import annotations

from xdsl.dialects import math as xmath

from dialects import tensorexpr as te

EXPENSIVE = (xmath.ExpOp, xmath.LogOp, xmath.Log1pOp, xmath.ExpM1Op, xmath.TanhOp, xmath.SinOp,
             xmath.CosOp, xmath.ErfOp, xmath.PowFOp, xmath.Atan2Op, xmath.SqrtOp, xmath.RsqrtOp)


def body_cost(op: te.ComputeOp | te.ReduceOp | te.ScatterOp) -> int:
    """Units of work to evaluate the body once (one element, one point of its space)."""
    cost = 0
    for inner in op.body.block.ops:
        if isinstance(inner, (te.YieldOp, te.UpdateOp)) or inner.name == "arith.constant":
            continue
        cost += 8 if isinstance(inner, EXPENSIVE) or inner.name in ("arith.divf", "arith.divsi") else 1
    return cost

