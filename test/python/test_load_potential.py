"""load_potential: a potential library loaded back through its C ABI is the potential it
was exported from (energy, energies, forces, virial, cutoff, layers, species), under ASE
too; `python -m pipeline potential` on a library copies it; a source that is not a model
gets an error naming what a source is. (The packages' adapters are tested in
test/packages and test_load_potential_nequip.py, where the packages install.)"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from conftest import TOLERANCE, relative_error
from md_systems import crystal, potential

from examples.md_potentials import CUTOFF, SPECIES
from pipeline import load_potential
from pipeline.deploy.library import LibraryError
from pipeline.md.adapters import AdapterError
from pipeline.md.ase import Calculator, inputs
from pipeline.md.adapters.files import pickled_names


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    """The message-passing potential in f64 and the pair potential in f32, exported."""
    out = tmp_path_factory.mktemp("potentials")
    return {(name, dtype): potential(name, dtype).export(out, name=f"{name}_{str(dtype)[6:]}")
            for name, dtype in [("message_passing", torch.float64), ("pair", torch.float32)]}


@pytest.mark.parametrize("name, dtype", [("message_passing", torch.float64), ("pair", torch.float32)])
def test_library_is_the_potential(exported, name: str, dtype: torch.dtype) -> None:
    jit, lib = potential(name, dtype), load_potential(exported[name, dtype])
    assert (lib.cutoff, lib.layers, lib.species, lib.dtype) == (jit.cutoff, jit.layers, jit.species, dtype)
    for repeat, seed in [(2, 4), (3, 5)]:  # 32 and 108 atoms
        args = inputs(crystal(repeat, seed), CUTOFF, SPECIES, dtype)
        n = args[1].shape[0]
        for n_local in (n, n // 3):
            got, want = lib(*args, n_local=n_local), jit(*args, n_local=n_local)
            for field, g, w in zip(got._fields, got, want):
                assert relative_error(g, w) <= TOLERANCE[dtype], (field, n, n_local)


def test_library_under_ase_needs_no_species(exported) -> None:
    atoms = crystal((2, 2, 3), seed=6)
    got, want = atoms.copy(), atoms.copy()
    got.calc = Calculator(load_potential(exported["message_passing", torch.float64]))
    want.calc = Calculator(potential("message_passing", torch.float64))
    for prop in ("get_potential_energy", "get_forces", "get_stress"):
        g, w = getattr(got, prop)(), getattr(want, prop)()
        assert relative_error(torch.as_tensor(g), torch.as_tensor(w)) <= 1e-12, prop


def test_library_dtype_cannot_change(exported) -> None:
    with pytest.raises(AdapterError, match="computes in torch.float32; dtype=torch.float64 needs a compile"):
        load_potential(exported["pair", torch.float32], dtype=torch.float64)


def test_library_without_potential_entry_is_refused(tmp_path) -> None:
    import pipeline

    compiled = pipeline.compile(lambda x: (x * x).sum(), (torch.ones(3),))
    path = pipeline.export_library(compiled, tmp_path, name="square")
    with pytest.raises(AdapterError, match="not a potential"):
        load_potential(path)
    (tmp_path / "damaged.so").write_bytes(path.read_bytes()[:100])
    (tmp_path / "damaged.json").write_text((tmp_path / "square.json").read_text())
    with pytest.raises(LibraryError, match="bytes, but its manifest says"):
        load_potential(tmp_path / "damaged.so")


@pytest.mark.parametrize("source, message", [
    ("nothing-here.model", "no such file, and not a packaged model"),
    ("sevenn", "no such file"),
    ("orb:v3", "no such file, and not a packaged model"),
])
def test_unknown_sources_say_what_a_source_is(source: str, message: str) -> None:
    with pytest.raises(AdapterError, match=message) as e:
        load_potential(source)
    assert "sevenn:NAME" in str(e.value) and "chgnet:VERSION" in str(e.value)


def test_file_kind_is_read_without_unpickling(tmp_path) -> None:
    torch.save({"config": {"cutoff": 5.0}, "model_state_dict": {"w": torch.ones(2)}}, tmp_path / "ckpt.pth")
    assert {"config", "model_state_dict"} <= pickled_names(tmp_path / "ckpt.pth")[1]
    torch.save(torch.nn.Linear(2, 2), tmp_path / "linear.pt")
    assert "torch.nn.modules.linear.Linear" in pickled_names(tmp_path / "linear.pt")[0]
    with pytest.raises(AdapterError, match="not a model file of a package pipeline knows .*only torch"):
        load_potential(tmp_path / "linear.pt")
    (tmp_path / "text.pt").write_text("not an archive")
    with pytest.raises(AdapterError, match="not a torch.save archive"):
        load_potential(tmp_path / "text.pt")


def test_driver_copies_a_library(exported, tmp_path) -> None:
    source = exported["pair", torch.float32]
    run = subprocess.run([sys.executable, "-m", "pipeline", "potential", str(source), "-o", str(tmp_path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(tmp_path / source.name)
    assert "2 species: Ar Kr; cutoff" in run.stderr
    copied = load_potential(tmp_path / source.name)
    args = inputs(crystal(2, 1), CUTOFF, SPECIES, torch.float32)
    assert torch.equal(copied(*args).forces, load_potential(source)(*args).forces)
    renamed = subprocess.run([sys.executable, "-m", "pipeline", "potential", str(source), "-o", str(tmp_path),
                              "--name", "other"], capture_output=True, text=True)
    assert renamed.returncode == 1 and "can only be copied" in renamed.stderr
    missing = subprocess.run([sys.executable, "-m", "pipeline", "potential", "chgnet", "-o", str(tmp_path)],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "not a packaged model" in missing.stderr
