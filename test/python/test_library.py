"""pipeline.load_library: an exported library called from Python through its C ABI, and
every damaged or foreign file refused before it is mapped, with an error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from conftest import needs_tools
from torch.export import Dim

import pipeline
from pipeline.deploy.library import LibraryError

pytestmark = needs_tools("cc")


def springs(x: torch.Tensor, k: torch.Tensor):
    x = x.detach().requires_grad_(True)
    energy = (k[:, None] * x**2).sum()
    return energy, -torch.autograd.grad(energy, x)[0]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    n = Dim("N")
    f = pipeline.compile(springs, {"x": torch.randn(5, 3, dtype=torch.float64), "k": torch.rand(5, dtype=torch.float64)},
                         {"x": {0: n}, "k": {0: n}})
    return pipeline.export_library(f, tmp_path_factory.mktemp("lib"), name="springs")


def copy(library: Path, directory: Path) -> Path:
    for suffix in (".so", ".json"):
        shutil.copyfile(library.with_suffix(suffix), directory / f"springs{suffix}")
    return directory / "springs.so"


def test_calls_like_the_function(exported: Path) -> None:
    lib = pipeline.load_library(exported)
    x, k = torch.randn(40, 3, dtype=torch.float64), torch.rand(40, dtype=torch.float64)
    for got in (lib(x, k), lib(k=k, x=x)):
        for g, w in zip(got, springs(x, k)):
            torch.testing.assert_close(g, w.detach(), rtol=1e-12, atol=0)
    with pytest.raises(pipeline.CallError, match="argument 'k' must be a cpu torch.float64"):
        lib(x, k.float())
    with pytest.raises(pipeline.CallError, match=r"argument .k. dim 0 is N = 39, but an earlier argument gave N = 40"):
        lib(x, k[:39])


def test_damaged_files_are_refused(exported: Path, tmp_path: Path) -> None:
    data = exported.read_bytes()
    cases = {
        "truncated": (lambda p: p.write_bytes(data[: len(data) // 2]), r"bytes, but its manifest says"),
        "garbage after the ELF header": (lambda p: p.write_bytes(data[:64] + bytes(len(data) - 64)),
                                         r"SHA-256 differs"),
        "no manifest": (lambda p: p.with_suffix(".json").unlink(), r"manifest springs.json is missing"),
        "manifest not JSON": (lambda p: p.with_suffix(".json").write_text("{"), r"cannot be read"),
    }
    for what, (damage, message) in cases.items():
        directory = tmp_path / what.replace(" ", "_")
        directory.mkdir()
        library = copy(exported, directory)
        damage(library)
        with pytest.raises(LibraryError, match=message) as error:
            pipeline.load_library(library)
        assert str(library) in str(error.value), what


def test_a_library_for_another_cpu_is_refused(exported: Path, tmp_path: Path) -> None:
    library = copy(exported, tmp_path)
    manifest = json.loads(library.with_suffix(".json").read_text())
    manifest["target"]["features"] += ",+made-up-feature"
    library.with_suffix(".json").write_text(json.dumps(manifest))
    with pytest.raises(LibraryError, match="lacks: made-up-feature"):
        pipeline.load_library(library)
