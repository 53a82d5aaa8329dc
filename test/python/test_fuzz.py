"""The differential fuzzer: a fixed-seed run in CI, and proof that it catches what
it is for (a wrong answer, a thread mismatch) and writes a reproducer that runs."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from conftest import ROOT

from pipeline import fuzz
from pipeline.compiler import CompiledFunction

PROGRAM = fuzz._TEMPLATE.format(
    weights="    w0 = (torch.randn(4, 8, generator=g, dtype=torch.float64) / 2.0).to(rounded_to or dtype).to(dtype)",
    body="        v3 = torch.exp(-(r[:, None] - torch.arange(4, dtype=r.dtype)) ** 2) @ w0\n"
         "        v4 = torch.zeros(pos.shape[0], 8, dtype=pos.dtype).index_add(0, src, torch.tanh(v3))\n"
         "        v5 = v4 * v4.sum()",
    energy="v5.sum() + 1e-3 * r.sum()")


def test_fixed_seed_run_finds_nothing(tmp_path) -> None:
    outcome = fuzz.fuzz(seconds=60, seed=20261203, out=tmp_path, log=lambda _: None)
    assert outcome.failure is None, f"{outcome.failure}: see {outcome.reproducer}"
    assert outcome.cases >= 5


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_a_correct_program_passes(dtype: torch.dtype) -> None:
    fuzz.check(PROGRAM, dtype)


def test_a_wrong_answer_is_caught(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def off_by_a_little(self, *args, **kwargs):
        energy, forces = call(self, *args, **kwargs)
        return energy, forces * (1 + 1e-4)

    monkeypatch.setattr(CompiledFunction, "__call__", off_by_a_little)
    with pytest.raises(fuzz.Mismatch, match=r"output 1 relative error"):
        fuzz.check(PROGRAM, torch.float32)


def test_threads_that_disagree_are_caught(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def by_threads(self, *args, **kwargs):
        energy, forces = call(self, *args, **kwargs)
        return energy * (1 + (self.num_threads - 1) * 1e-12), forces  # within tolerance

    monkeypatch.setattr(CompiledFunction, "__call__", by_threads)
    with pytest.raises(fuzz.Mismatch, match=r"differs between 1 and 2 threads"):
        fuzz.check(PROGRAM, torch.float64)


def test_reproducer_runs(tmp_path) -> None:
    path = tmp_path / "case.py"
    path.write_text(fuzz.reproducer(PROGRAM, torch.float64, "Mismatch: example"))
    done = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no longer fails" in done.stdout
