"""The differential fuzzer: a fixed-seed run in CI, and proof that it catches what
it is for, each defect injected here (so that the proof does not depend on a defect
still being in the compiler): a wrong answer, a thread mismatch, arguments bound in
the wrong order, a call that segfaults or hangs, an out-of-range index that returns
numbers, a wrong answer at an empty size, an exported library that disagrees with
the JIT, a program that compares nothing; that its driver goes on after a failure
and reports every kind; and that it writes a reproducer that runs."""

from __future__ import annotations

import ast
import ctypes
import inspect
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from conftest import ROOT, missing_tools, needs_tools

import pipeline
import pipeline.deploy.export
from pipeline.tools import fuzz
from pipeline.compiler import CompiledFunction


def program(params: str = "pos, edge_index, triplets", energy: str = "v5.sum() + 1e-3 * r.sum()") -> str:
    return fuzz.TEMPLATE.format(
        params=params,
        weights="    w0 = (torch.randn(4, 8, generator=g, dtype=torch.float64) / 2.0)"
                ".to(rounded_to or dtype).to(dtype)",
        body="        v3 = torch.exp(-(r[:, None] - torch.arange(4, dtype=r.dtype)) ** 2) @ w0\n"
             "        v4 = torch.zeros(pos.shape[0], 8, dtype=pos.dtype).index_add(0, src, torch.tanh(v3))\n"
             "        v5 = v4 * v4.sum()\n"
             "        v6 = torch.zeros(edge_index.shape[1], dtype=pos.dtype).index_add(0, first, r[second])",
        energy=energy)


PROGRAM = program()
SHUFFLED = program("triplets, pos, edge_index", "v5.sum() + 1e-3 * r.sum() + 1e-2 * v6.sum()")
"""Parameters in another order than the dict of example arguments gives them, and a
gather over triplets (so that a triplets/edge_index mix-up shows in the numbers)."""
OVERFLOW = program(energy="torch.exp(1e4 * r).sum()")
"""Its reference is inf at every size."""


def kinds_of(source: str, dtype: torch.dtype, plan: fuzz.Plan = fuzz.Plan()) -> tuple[list[str], str]:
    with pytest.raises(fuzz.CaseFailed) as failed:
        fuzz.check(source, dtype, plan)
    return failed.value.kinds, str(failed.value)


def by_name(args: tuple, kwargs: dict, params: str = "pos, edge_index, triplets") -> dict:
    return {**dict(zip(params.split(", "), args)), **kwargs}


def test_fixed_seed_run_finds_nothing(tmp_path) -> None:
    outcome = fuzz.fuzz(seconds=60, seed=20261203, out=tmp_path, log=lambda _: None, shrink_seconds=60)
    assert not outcome.found, outcome.summary()
    assert outcome.cases >= 5 and (outcome.exported >= 1 or missing_tools("cc")), outcome.summary()


@needs_tools("cc")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_a_correct_program_passes(dtype: torch.dtype) -> None:
    checked = fuzz.check(PROGRAM, dtype, fuzz.Plan(export=True))
    assert checked.compared == len(fuzz.SIZES) and checked.exported


@pytest.mark.parametrize("plan", [
    fuzz.Plan(example=("pos", "edge_index", "triplets"), shapes=None, keywords=("edge_index", "triplets", "pos")),
    fuzz.Plan(example=("edge_index", "pos", "triplets"), shapes=("triplets", "pos", "edge_index"), mixed=2),
    pytest.param(fuzz.Plan(shapes=None, keywords=("pos", "triplets", "edge_index"), export=True),
                 marks=needs_tools("cc")),
], ids=["dict-in-other-order", "dict-and-dict", "list-and-list"])
def test_every_form_of_arguments_passes(plan: fuzz.Plan) -> None:
    fuzz.check(SHUFFLED, torch.float32, plan)


def test_a_wrong_answer_is_caught(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def off_by_a_little(self, *args, **kwargs):
        energy, forces = call(self, *args, **kwargs)
        return energy, forces * (1 + 1e-4)

    monkeypatch.setattr(CompiledFunction, "__call__", off_by_a_little)
    kinds, text = kinds_of(PROGRAM, torch.float32)
    assert "numbers" in kinds and "output 1 relative error" in text


def test_threads_that_disagree_are_caught(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def by_threads(self, *args, **kwargs):
        energy, forces = call(self, *args, **kwargs)
        return energy * (1 + (self.num_threads - 1) * 1e-12), forces  # within tolerance

    monkeypatch.setattr(CompiledFunction, "__call__", by_threads)
    kinds, text = kinds_of(PROGRAM, torch.float64)
    assert "threads" in kinds and "differs between 1 and 2 threads" in text


def test_keywords_bound_to_the_wrong_arguments_are_caught(monkeypatch) -> None:
    """A stand-in that swaps two arguments passed by keyword."""
    call = CompiledFunction.__call__

    def swapped(self, *args, **kwargs):
        if "edge_index" in kwargs and "triplets" in kwargs:
            kwargs["edge_index"], kwargs["triplets"] = kwargs["triplets"], kwargs["edge_index"]
        return call(self, *args, **kwargs)

    monkeypatch.setattr(CompiledFunction, "__call__", swapped)
    kinds, text = kinds_of(SHUFFLED, torch.float32, fuzz.Plan(keywords=("triplets", "edge_index", "pos")))
    assert kinds == ["binding"], text
    assert "f(triplets=, edge_index=, pos=)" in text and "f(triplets, edge_index=, pos=)" not in text


def _bind_a_dict_by_position(monkeypatch) -> None:
    """The defect of issue 28: a dict of example arguments traced in its own order, by
    position, whatever the function's parameters are called."""
    compile_ = pipeline.compile

    def by_position(fn, example_args, dynamic_shapes=None, **options):
        if not isinstance(example_args, dict):
            return compile_(fn, example_args, dynamic_shapes, **options)

        def positional(*args):
            return fn(*args)

        positional.__name__ = fn.__name__
        positional.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in example_args])
        return compile_(positional, example_args, dynamic_shapes, **options)

    monkeypatch.setattr(pipeline, "compile", by_position)


def test_a_dict_bound_by_position_is_caught(monkeypatch) -> None:
    _bind_a_dict_by_position(monkeypatch)
    # traced with the tensors in the wrong parameters: it compiles, then calls by keyword disagree
    kinds, text = kinds_of(SHUFFLED, torch.float32, fuzz.Plan(example=("edge_index", "pos", "triplets")))
    assert "binding" in kinds, text
    # pos lands in an integer parameter: only the plain forms compile
    kinds, text = kinds_of(PROGRAM, torch.float64, fuzz.Plan(example=("edge_index", "pos", "triplets"), shapes=None))
    assert kinds == ["binding"] and "with the plain forms it compiles" in text, text


def test_numbers_wrong_only_when_compiled_from_a_dict_are_a_binding_failure(monkeypatch) -> None:
    compile_ = pipeline.compile

    def off_from_a_dict(fn, example_args, dynamic_shapes=None, **options):
        if not isinstance(example_args, dict):
            return compile_(fn, example_args, dynamic_shapes, **options)

        def off(*args, **kwargs):
            energy, forces = fn(*args, **kwargs)
            return energy * 1.001, forces

        off.__name__, off.__signature__ = fn.__name__, inspect.signature(fn)  # type: ignore[attr-defined]
        return compile_(off, example_args, dynamic_shapes, **options)

    monkeypatch.setattr(pipeline, "compile", off_from_a_dict)
    kinds, text = kinds_of(PROGRAM, torch.float64, fuzz.Plan(example=fuzz.ARGS))
    assert kinds == ["binding"] and "output 0 relative error" in text, text
    assert "(compiled from the plain forms it is right)" in text


def test_a_segfault_is_a_failure_of_the_case(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def segfault_on_dangling_edges(self, *args, **kwargs):
        a = by_name(args, kwargs)
        if a["pos"].shape[0] == 0 and a["edge_index"].shape[1] > 0:
            ctypes.string_at(0)  # reads address 0: SIGSEGV
        return call(self, *args, **kwargs)

    monkeypatch.setattr(CompiledFunction, "__call__", segfault_on_dangling_edges)
    kinds, text = kinds_of(PROGRAM, torch.float32)
    assert kinds == ["crash"] and "N=0 E=2" in text and "signal SIGSEGV" in text, text


def test_children_that_die_or_hang_are_reported() -> None:
    def raises():
        raise IndexError("index 7 is out of range")

    ran = fuzz.run_isolated([lambda: torch.ones(2), lambda: ctypes.string_at(0), raises,
                             lambda: (torch.zeros(1), torch.ones(3))])
    assert torch.equal(ran[0].outputs[0], torch.ones(2)) and ran[0].died is None
    assert ran[1].died == "signal SIGSEGV" and ran[1].outputs is None
    assert ran[2].error == "IndexError: index 7 is out of range"
    assert [t.shape for t in ran[3].outputs] == [(1,), (3,)]  # in a new child
    start = time.monotonic()
    ran = fuzz.run_isolated([lambda: time.sleep(60), lambda: torch.ones(1)], timeout=1.0)
    assert ran[0].died.startswith("hung") and ran[1].outputs is not None and time.monotonic() - start < 30


def test_an_index_out_of_range_that_returns_numbers_is_caught(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def zeros_instead(self, *args, **kwargs):
        try:
            return call(self, *args, **kwargs)
        except IndexError:
            n = by_name(args, kwargs)["pos"].shape[0]
            return torch.zeros(()), torch.zeros(n, 3)

    monkeypatch.setattr(CompiledFunction, "__call__", zeros_instead)
    kinds, text = kinds_of(PROGRAM, torch.float32)
    assert kinds == ["bad-index"] and "expected IndexError naming 'edge_index'" in text, text


def test_a_wrong_answer_without_edges_is_caught(monkeypatch) -> None:
    call = CompiledFunction.__call__

    def off_without_edges(self, *args, **kwargs):
        energy, forces = call(self, *args, **kwargs)
        return (energy + 1.0, forces) if by_name(args, kwargs)["edge_index"].shape[1] == 0 else (energy, forces)

    monkeypatch.setattr(CompiledFunction, "__call__", off_without_edges)
    kinds, text = kinds_of(PROGRAM, torch.float64)
    assert kinds == ["degenerate"] and "N=0 E=0 T=0" in text and "N=4 E=0 T=0" in text, text


@needs_tools("cc")
def test_a_library_that_disagrees_with_the_jit_is_caught(monkeypatch) -> None:
    """A manifest that lists edge_index and triplets in the other order than the C
    function takes them: the fuzzer calls the library as the manifest says."""
    export = pipeline.deploy.export.export_library

    def swapped_manifest(compiled, directory, **options):
        library = export(compiled, directory, **options)
        manifest = json.loads(library.with_suffix(".json").read_text())
        inputs = manifest["inputs"]
        i, j = (next(k for k, a in enumerate(inputs) if a["name"] == n) for n in ("edge_index", "triplets"))
        inputs[i], inputs[j] = inputs[j], inputs[i]
        library.with_suffix(".json").write_text(json.dumps(manifest))
        return library

    monkeypatch.setattr(pipeline.deploy.export, "export_library", swapped_manifest)
    kinds, text = kinds_of(SHUFFLED, torch.float32, fuzz.Plan(export=True))
    assert kinds == ["library"], text


def test_a_program_that_compares_nothing_fails() -> None:
    assert fuzz.finite_sizes(OVERFLOW, torch.float64) == []  # so the driver rejects it
    kinds, text = kinds_of(OVERFLOW, torch.float64)
    assert "nothing-compared" in kinds and "nothing was compared" in text, text


def test_the_driver_goes_on_and_reports_every_kind(tmp_path, monkeypatch) -> None:
    """With a stand-in check (no compile): each new kind is shrunk once and written
    out, known kinds are counted, the rejected and exported cases too."""
    monkeypatch.setattr(fuzz.driver, "can_export", lambda: True)  # nothing is exported here
    finite_sizes = fuzz.finite_sizes
    monkeypatch.setattr(fuzz.driver, "finite_sizes", lambda source, dtype: [] if "torch.sin(" in source
                        else finite_sizes(source, dtype))

    def stand_in(source: str, dtype: torch.dtype, plan: fuzz.Plan) -> fuzz.Checked:
        assert "torch.sin(" not in source  # rejected before
        failures = []
        if plan.keywords != fuzz.ARGS:
            failures.append(("binding", f"keywords {plan.keywords}"))
        if "torch.tanh" in source:
            failures.append(("numbers", "tanh"))
        if failures:
            raise fuzz.CaseFailed(failures, fuzz.Checked(exported=plan.export))
        return fuzz.Checked(compared=3, exported=plan.export)

    lines: list[str] = []
    outcome = fuzz.fuzz(seconds=600, seed=3, out=tmp_path, log=lines.append, check_case=stand_in, max_cases=20)
    assert set(outcome.found) == {"binding", "numbers"}, outcome.summary()
    binding, numbers = outcome.found["binding"], outcome.found["numbers"]
    assert outcome.cases >= 20 and len(binding.cases) > 1 and outcome.cases > len(binding.cases)
    assert outcome.exported > 0 and outcome.rejected > 0
    shrunk = binding.reproducer.read_text()
    keywords = ast.literal_eval(re.search(r"keywords=(\(.*?\))", shrunk).group(1))
    assert binding.reproducer.parent == tmp_path
    assert sum(a != b for a, b in zip(keywords, fuzz.ARGS)) == 2, shrunk  # one swap: the smallest change
    assert "torch.tanh" in numbers.reproducer.read_text()
    summary = outcome.summary()
    assert "failures by kind" in summary and "binding" in summary and str(numbers.reproducer) in summary


def test_the_package_is_split_by_job() -> None:
    """Each module of pipeline/tools/fuzz/ says why it exists and stays small."""
    modules = sorted(Path(fuzz.__file__).parent.glob("*.py"))
    assert {m.stem for m in modules} >= {"programs", "systems", "plans", "reference", "isolation", "case", "driver"}
    for module in modules:
        text = module.read_text()
        assert ast.get_docstring(ast.parse(text)), module.name
        assert len(text.splitlines()) < 400, module.name


def test_reproducer_runs(tmp_path) -> None:
    path = tmp_path / "case.py"
    plan = fuzz.Plan(example=("triplets", "edge_index", "pos"), shapes=None, keywords=("edge_index", "pos", "triplets"),
                     export=fuzz.can_export())
    path.write_text(fuzz.reproducer(SHUFFLED, torch.float64, "[binding] example", plan))
    done = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no longer fails" in done.stdout
