"""Shared fixtures: the example models, captured once per session."""

from __future__ import annotations

import functools
import importlib
import os
import sys

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
# Every compile in the tests checks SSA dominance after each pass, so a pass that breaks
# it fails as that pass, and runs xDSL's verifier after each stage (the fuzzer and the
# fusion tests verify everything after every pass: `verify=True`).
os.environ.setdefault("PIPELINE_VERIFY", "stage")

MODELS = ["mlp", "lennard_jones", "schnet", "e3nn_like"]
DTYPES = [torch.float32, torch.float64]
TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-10}
TRACE_ATOMS = 23  # no feature width of the examples is 23


def model(name: str):
    return importlib.import_module(f"examples.{name}")


@functools.cache
def captured(name: str, training: bool, dtype: torch.dtype):
    """(fn, make_inputs, Imported) for an example, captured at TRACE_ATOMS."""
    from pipeline import capture, to_aten

    mod = model(name)
    fn = (mod.training_step if training else mod.energy_forces)(dtype)
    make = mod.training_inputs if training else mod.inputs
    shapes = mod.training_dynamic_shapes if training else mod.dynamic_shapes
    cap = capture(fn, make(TRACE_ATOMS, dtype, 0), shapes)
    return fn, make, to_aten(cap)


def relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    """max |got - want| / max |want| (absolute when want is all zeros)."""
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (got - want).abs().max().item() if want.numel() else 0.0
    return err / scale if scale > 0 else err


def assert_close(got, want, dtype: torch.dtype, what: str = "") -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        err = relative_error(g, w.detach())
        assert err <= TOLERANCE[dtype], f"{what} output {i}: relative error {err:.2e}"


def assert_canonical(loops: str, what: str) -> None:
    """The loops stage's text is what canonicalize and cse would leave: the pipeline
    runs neither after the lowering (only one cse after plan-memory), so a lowering
    that starts leaving constants in loops, x + 0 or duplicate index arithmetic fails
    here instead of slowing every compile down."""
    from xdsl.parser import Parser
    from xdsl.passes import PassPipeline

    from pipeline.registry import all_passes, context

    module = Parser(context(), loops).parse_module()
    assert str(module) == loops, f"{what}: the loops stage does not print back as it parsed"
    PassPipeline.parse_spec(all_passes(), "canonicalize,cse").apply(context(), module)
    changed = [(a, b) for a, b in zip(loops.splitlines(), str(module).splitlines()) if a != b]
    assert str(module) == loops, f"{what}: canonicalize + cse change the loops stage, first at {changed[:1]}"


@pytest.fixture(params=MODELS)
def model_name(request) -> str:
    return request.param
