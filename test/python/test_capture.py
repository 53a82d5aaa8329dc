"""capture -> import -> reference execution equals eager, at sizes never traced."""

from __future__ import annotations

import re

import pytest
import torch
from conftest import DTYPES, TRACE_ATOMS, assert_close, captured

from frontend.reference import run_reference

SIZES = [5, 41, 230]  # none is TRACE_ATOMS; E follows from the neighbor list


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("training", [False, True], ids=["energy_forces", "training"])
def test_aten_matches_eager(model_name: str, training: bool, dtype: torch.dtype) -> None:
    fn, make_inputs, imported = captured(model_name, training, dtype)
    seen_edges = set()
    for i, n in enumerate(SIZES):
        inputs = make_inputs(n, dtype, 100 + i)
        seen_edges.add(inputs["edge_index"].shape[1])
        want = fn(*inputs.values())
        got = run_reference(imported.module, list(inputs.values()), imported.weights)
        assert_close(got, want, dtype, f"{model_name} N={n}")
    assert len(seen_edges) == len(SIZES)


def test_imported_ir_is_symbolic(model_name: str) -> None:
    _, _, imported = captured(model_name, False, torch.float32)
    text = str(imported.module)
    assert "%N: index" in text and "%E: index" in text
    assert "tensor<?x3xf32>" in text
    assert not re.search(rf"[<x]{TRACE_ATOMS}x", text), "the traced atom count leaked into a type"
    assert "aten.weight" in text


def test_weights_stay_out_of_the_ir() -> None:
    _, _, imported = captured("schnet", True, torch.float32)
    text = str(imported.module)
    assert "dense<" not in text
    assert sum(w.numel() for w in imported.weights.values()) > 1000
    assert len(text) < 400_000
