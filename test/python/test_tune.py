"""Register tiles chosen by measurement (pipeline/tune.py): every candidate computes the
function, a measured choice is cached, a cached compile measures nothing and is
deterministic, and the exported library of a tuned compile computes what the JIT does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from conftest import TOLERANCE, needs_tools, relative_error
from torch.export import Dim

import pipeline
import pipeline.compiler as compiler
from pipeline.tune import Choice, tunables

SHAPES = {"pos": {0: Dim("N")}}


def layers(dtype: torch.dtype):
    """A two-layer MLP energy: the 32 -> 48 layer is a register-tiled `x @ B`."""
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(3, 32, generator=gen, dtype=dtype)
    b = torch.randn(32, 48, generator=gen, dtype=dtype) / 6

    def energy_forces(pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        energy = torch.tanh(torch.tanh(pos @ a) @ b).sum()
        return energy, -torch.autograd.grad(energy, pos)[0]

    return energy_forces


def example(n: int, dtype: torch.dtype, seed: int = 0) -> dict[str, torch.Tensor]:
    return {"pos": torch.randn(n, 3, generator=torch.Generator().manual_seed(seed), dtype=dtype)}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "tune.json"
    monkeypatch.setenv("PIPELINE_TUNE_CACHE", str(path))
    return path


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every compile_captured call (each tuning round is one)."""
    calls: list[object] = []
    real = compiler.compile_captured

    def counted(*args, **kwargs):
        calls.append(kwargs.get("schedules"))
        return real(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile_captured", counted)
    return calls


def fused_module(dtype: torch.dtype):
    """The fused stage before `schedule`, where tunable nests are found."""
    from xdsl.passes import PassPipeline

    from pipeline.registry import all_passes, context

    captured = pipeline.capture(layers(dtype), example(23, dtype), SHAPES)
    module = pipeline.to_aten(captured).module
    for stage, passes in compiler.stage_passes():
        if stage in ("aten", "tensorexpr", "fused"):
            names = passes[:-1] if stage == "fused" else passes
            PassPipeline.parse_spec(all_passes(), ",".join(names)).apply(context(), module)
    return captured, module


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_every_candidate_matches_eager(dtype: torch.dtype) -> None:
    captured, module = fused_module(dtype)
    found = tunables(module)
    assert found, "the 32 -> 48 layer has register-tile candidates"
    fn = layers(dtype)
    for key, t in found.items():
        assert t.candidates[-1] == Choice(0, 0, 0)  # no register tile is always tried
        assert len(set(t.candidates)) == len(t.candidates) > 2
        for choice in t.candidates:
            compiled = compiler.compile_captured(captured, schedules={key: choice})
            assert "te.tuned" in compiled.ir("fused")
            for n in (1, 7, 130):  # untraced sizes, rows left over in every tile height
                args = example(n, dtype, seed=n)
                for got, want in zip(compiled(**args), fn(**args)):
                    assert relative_error(got, want.detach()) <= TOLERANCE[dtype], (t.nest, str(choice), n)


def test_measured_once_then_cached(cache: Path, compiles: list[object]) -> None:
    fn, dtype = layers(torch.float64), torch.float64
    first = pipeline.compile(fn, example(23, dtype), SHAPES, tune="full", tune_inputs=example(4096, dtype))
    report = first.tuning
    assert report is not None and report.nests and report.rounds == len(compiles) - 1 > 1
    for nest in report.nests:
        assert not nest.cached and len(nest.tried) > 2 and nest.dtype == "f64" and nest.gflops and nest.gflops > 0
        assert nest.choice == min(nest.tried, key=lambda cs: cs[1])[0]
    saved = json.loads(cache.read_text())
    assert [n.key for n in report.nests] == [k for m in saved["machines"].values() for k in m]

    compiles.clear()
    again = pipeline.compile(fn, example(23, dtype), SHAPES, tune="full")
    assert len(compiles) == 1 and again.tuning.rounds == 0  # no measurement
    assert all(n.cached for n in again.tuning.nests)
    assert [n.choice for n in again.tuning.nests] == [n.choice for n in report.nests]
    quick = pipeline.compile(fn, example(23, dtype), SHAPES)  # the default budget reads the cache too
    assert quick.ir("loops") == again.ir("loops") == first.ir("loops")
    args = example(300, dtype, seed=1)
    for a, b in zip(quick(**args), first(**args)):
        assert torch.equal(a, b)


def test_quick_measures_nothing_and_off_ignores_the_cache(cache: Path, compiles: list[object]) -> None:
    fn, dtype = layers(torch.float32), torch.float32
    heuristic = pipeline.compile(fn, example(23, dtype), SHAPES)
    assert len(compiles) == 1 and heuristic.tuning.rounds == 0 and not cache.exists()
    assert all(not n.cached and not n.tried for n in heuristic.tuning.nests)
    assert "te.tuned" not in heuristic.ir("fused")
    pipeline.compile(fn, example(23, dtype), SHAPES, tune=0.01, tune_inputs=example(64, dtype))
    assert cache.exists()
    off = pipeline.compile(fn, example(23, dtype), SHAPES, tune="off")
    assert off.tuning is None and off.ir("loops") == heuristic.ir("loops")


def test_a_bad_budget_is_refused() -> None:
    with pytest.raises(ValueError, match=r"tune='fast': expected one of off, quick, full or a positive number"):
        pipeline.compile(layers(torch.float32), example(23, torch.float32), SHAPES, tune="fast")


@needs_tools("cc")
def test_the_exported_library_of_a_tuned_compile_computes_what_the_jit_does(cache: Path, tmp_path: Path) -> None:
    fn, dtype = layers(torch.float64), torch.float64
    tuned = pipeline.compile(fn, example(23, dtype), SHAPES, tune="full", tune_inputs=example(2048, dtype))
    assert "te.tuned" in tuned.ir("fused")
    lib = pipeline.load_library(pipeline.export_library(tuned, tmp_path, name="tuned"))
    for n in (5, 333):
        args = example(n, dtype, seed=n)
        for a, b in zip(lib(**args), tuned(**args)):
            assert torch.equal(a, b)
