"""The aten dialect mirrors ATen schemas, and its tests cover every op."""

from __future__ import annotations

import os

import pytest
import torch

from dialects.aten import ATEN_OPS, WeightOp
from frontend.import_fx import _CARRIED_BY_TYPE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def schema(op) -> torch.FunctionSchema:
    packet, _, overload = op.overload().partition(".")
    return getattr(getattr(torch.ops.aten, packet), overload or "default")._schema


@pytest.mark.parametrize("op", [o for o in ATEN_OPS if o is not WeightOp], ids=lambda o: o.name)
def test_fields_mirror_schema(op) -> None:
    d = op.get_irdl_definition()
    fields = {n for n, _ in d.operands} | set(d.properties) - {"operandSegmentSizes", "indexed_dims"}
    args = {"input" if a.name == "self" else a.name for a in schema(op).arguments} - _CARRIED_BY_TYPE
    assert fields == args


def test_round_trip_test_covers_every_op() -> None:
    with open(os.path.join(ROOT, "test", "dialects", "aten", "ops.mlir")) as f:
        text = f.read()
    missing = [op.name for op in ATEN_OPS if f"{op.name} " not in text]
    assert not missing, f"ops.mlir does not exercise {missing}"
