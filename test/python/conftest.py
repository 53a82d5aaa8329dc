"""Shared fixtures: the example models, captured once per session."""

from __future__ import annotations

import functools
import importlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import pytest
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
# Every compile in the tests checks SSA dominance after each pass, so a pass that breaks
# it fails as that pass, and runs xDSL's verifier after each stage (the fuzzer and the
# fusion tests verify everything after every pass: `verify=True`).
os.environ.setdefault("PIPELINE_VERIFY", "stage")
# Measured schedules from this machine's cache would make a test's code depend on what
# was tuned before it: the tests start from an empty cache of their own.
os.environ.setdefault("PIPELINE_TUNE_CACHE", os.path.join(tempfile.mkdtemp(prefix="pipeline-tune-"), "tune.json"))

MODELS = ["mlp", "lennard_jones", "schnet", "e3nn_like"]
DTYPES = [torch.float32, torch.float64]
TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-10}
"""The house tolerances, relative to the scale of what is compared (see assert_close)."""
UNIT_ROUNDOFF = {torch.float32: 2.0**-24, torch.float64: 2.0**-53}
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


@dataclass(frozen=True)
class Sum:
    """An output that sums many terms of either sign (an energy over edges, a contraction):
    `magnitude` is the sum of the |terms| (a number, or a tensor of the output's shape: one
    per element) and `count` how many terms each element sums. Compared with it, not with
    the result, which cancellation can make as small as it likes."""

    magnitude: float | torch.Tensor
    count: int

    @staticmethod
    def of(terms: torch.Tensor) -> Sum:
        """The sum of all of `terms` (the tensor whose .sum() is the output)."""
        return Sum(terms.detach().abs().sum().item(), terms.numel())


def sum_tolerance(dtype: torch.dtype, count: int) -> float:
    """The relative tolerance of a sum of `count` rounded terms, relative to the sum of
    their magnitudes: the rounding error of a sum of n terms is of the order of
    sqrt(n) * u * sum |terms| (u the unit roundoff; Higham and Mary's probabilistic bound,
    2019; n * u in the worst case), eager's as well as ours, each in its own order. The
    house tolerance (168 u in f32) covers the short sums and the rounding of each term;
    sqrt(n) * u takes over beyond 28000 terms in f32, and never in f64 (8e11 terms)."""
    return max(TOLERANCE[dtype], math.sqrt(count) * UNIT_ROUNDOFF[dtype])


def assert_close(got, want, dtype: torch.dtype, what: str = "", *, sums: dict[int, Sum] | None = None) -> None:
    """Each output within the house tolerance of `dtype`, relative to its largest element
    (elements are short sums: per-atom forces, per-edge features); an output that is a long
    sum (`sums[i]`, an energy) relative to the magnitude of its terms (`sum_tolerance`)."""
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if sums and i in sums:
            assert_sum_close(g, w.detach(), sums[i], dtype, f"{what} output {i}")
            continue
        err = relative_error(g, w.detach())
        assert err <= TOLERANCE[dtype], f"{what} output {i}: relative error {err:.2e}"


def assert_sum_close(got: torch.Tensor, want: torch.Tensor, terms: Sum, dtype: torch.dtype, what: str = "") -> None:
    """|got - want| <= sum_tolerance(dtype, terms.count) * terms.magnitude, elementwise."""
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype, want.dtype)
    tolerance = sum_tolerance(dtype, terms.count)
    magnitude = torch.as_tensor(terms.magnitude, dtype=torch.float64)
    err = (got.double() - want.double()).abs()
    ratio = (err / (tolerance * magnitude)).nan_to_num(nan=0.0, posinf=math.inf).max().item() if err.numel() else 0
    assert ratio <= 1, (f"{what}: error {err.max().item():.2e}, {ratio:.2f} x the tolerance {tolerance:.1e} of a "
                        f"sum of {terms.count} terms of magnitude {magnitude.max().item():.3g}")


SYSTEM_TOOLS = {
    "dot": "graphviz draws the report's fusion picture: apt-get install graphviz, as .ci/run does",
    "chromium": "the report's browser test: apt-get install chromium, as .ci/run does",
    "chromedriver": "the report's browser test: apt-get install chromium-driver, as .ci/run does",
    "cc": "a C compiler links exported libraries: apt-get install gcc, or set $CC",
    "gcc": "builds the C programs of examples/deploy: apt-get install gcc",
    "g++": "builds the C++ program of examples/deploy: apt-get install g++",
    "c++": "a C++ compiler builds the LAMMPS plugin: apt-get install g++, or set $CXX",
    "nm": "lists a library's symbols: apt-get install binutils",
    "ldd": "lists a library's dependencies: libc-bin",
    "valgrind": "apt-get install valgrind",
}
"""Programs some tests run that `pip install -e '.[test]'` does not bring: each such test
skips, naming what is missing, where it is not on PATH."""


def _found(tool: str) -> bool:
    if tool == "cc":  # what codegen.object_file.c_compiler takes: $CC, cc or gcc
        return any(c and shutil.which(c.split()[0]) for c in (os.environ.get("CC"), "cc", "gcc"))
    if tool == "c++":  # what pipeline.md.lammps takes: $CXX, else g++
        return shutil.which(os.environ.get("CXX", "g++").split()[0]) is not None
    return shutil.which(tool) is not None


def missing_tools(*tools: str) -> str | None:
    """Why a test that runs `tools` cannot run here, or None."""
    missing = [t for t in tools if not _found(t)]
    return "; ".join(f"needs `{t}`, not on PATH ({SYSTEM_TOOLS.get(t, 'not installed')})" for t in missing) or None


def needs_tools(*tools: str) -> pytest.MarkDecorator:
    """Skip the test (or, as `pytestmark`, the module) where one of `tools` is missing."""
    why = missing_tools(*tools)
    return pytest.mark.skipif(why is not None, reason=why or "")


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


def in_child(module: str, *args: object, timeout: float = 1200) -> tuple[int, str, list[dict]]:
    """Run `<module>.child(*args)` (a test module's function printing one JSON object per
    line) in a new Python process, so that a call that crashes the process fails the test
    that asked for it instead of killing pytest: (exit code, stderr, the objects)."""
    tests = os.path.dirname(os.path.abspath(__file__))
    code = (f"import sys; sys.path[:0] = [{ROOT!r}, {tests!r}]; "
            f"import {module}; {module}.child(*{args!r})")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, "OMP_NUM_THREADS": "2"})
    return proc.returncode, proc.stderr, [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]

