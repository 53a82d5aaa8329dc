"""The standalone library: every example exported as `.so` + `.h` + manifest, then called
from the C and the C++ program of examples/deploy/ at untraced sizes, against eager torch.

Each model is compiled once per dtype (shared with test_compile_examples when the whole
suite runs) and exported once; the programs are built once per library.
"""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import DTYPES, MODELS, ROOT, TOLERANCE, model, needs_tools, relative_error
from test_compile_examples import compiled

from codegen.object_file import exported_symbols
from pipeline.deploy.export import STATUS_CODES, ExportError, export_library

sys.path.insert(0, str(Path(ROOT) / "examples" / "deploy"))
from make_system import write_system  # noqa: E402

DEPLOY = Path(ROOT) / "examples" / "deploy"
# every test links a library (cc), most build examples/deploy's programs (gcc, g++) and read
# what the library exports and needs (nm, ldd)
pytestmark = needs_tools("cc", "gcc", "g++", "nm", "ldd")
ATOMS = (1, 9, 150)  # traced at 23 (and retraced at 24): none of these
DTYPE_IDS = ["f32", "f64"]
_cache: dict[tuple[str, torch.dtype], tuple[Path, Path, Path]] = {}


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory):
    """build(model, dtype) -> (library, C program, C++ program), each made once."""
    root = tmp_path_factory.mktemp("export")

    def get(name: str, dtype: torch.dtype) -> tuple[Path, Path, Path]:
        key = (name, dtype)
        if key not in _cache:
            directory = root / f"{name}-{str(dtype)[6:]}"
            library = export_library(compiled(name, False, dtype)[2], directory, name=name)
            _cache[key] = (library, *programs(directory, name))
        return _cache[key]

    yield get
    _cache.clear()


def programs(directory: Path, name: str) -> tuple[Path, Path]:
    """deploy.c linked against the library, deploy.cpp that dlopens it."""
    c, cpp = directory / "deploy_c", directory / "deploy_cpp"
    warn = ["-O2", "-Wall", "-Wextra", "-Werror", f"-I{directory}", f"-DMODEL={name}"]
    run(["gcc", "-std=c11", *warn, str(DEPLOY / "deploy.c"), str(directory / f"{name}.so"),
         f"-Wl,-rpath,{directory}", "-o", str(c)])
    run(["g++", "-std=c++17", *warn, str(DEPLOY / "deploy.cpp"), "-ldl", "-pthread", "-o", str(cpp)])
    return c, cpp


def run(cmd: list[str], *, expect: int = 0) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == expect, f"{' '.join(cmd)} -> {result.returncode}:\n{result.stderr}"
    return result


def parse(stdout: str, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """`energy E`, `forces N`, then N lines of three floats -> (energy, forces)."""
    lines = stdout.splitlines()
    assert lines[0].startswith("energy ") and lines[1].startswith("forces "), stdout[:200]
    n = int(lines[1].split()[1])
    forces = [[float(v) for v in line.split()] for line in lines[2:2 + n]]
    return (torch.tensor(float(lines[0].split()[1]), dtype=dtype),
            torch.tensor(forces, dtype=dtype).reshape(n, 3))


def inputs(name: str, n: int, dtype: torch.dtype, path: Path) -> dict[str, torch.Tensor]:
    data = model(name).inputs(n, dtype, 3000 + n)
    write_system(path, data)
    return data


def assert_matches(stdout: str, want: tuple[torch.Tensor, ...], dtype: torch.dtype, what: str) -> None:
    for label, g, w in zip(("energy", "forces"), parse(stdout, dtype), want):
        err = relative_error(g, w.detach())
        assert err <= TOLERANCE[dtype], f"{what} {label}: relative error {err:.2e}"


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", MODELS)
def test_c_and_cpp_programs_match_eager(build, name: str, dtype: torch.dtype, tmp_path: Path) -> None:
    library, c, cpp = build(name, dtype)
    fn = compiled(name, False, dtype)[0]
    for n in ATOMS:
        system = tmp_path / f"system{n}.txt"
        want = fn(*inputs(name, n, dtype, system).values())
        assert_matches(run([str(c), str(system)]).stdout, want, dtype, f"{name} C N={n}")
        result = run([str(cpp), str(library), str(system), "3"])
        assert_matches(result.stdout, want, dtype, f"{name} C++ N={n}")
        assert "3 threads agree" in result.stderr


@pytest.mark.parametrize("name", MODELS)
def test_library_is_standalone(build, name: str) -> None:
    library = build(name, torch.float32)[0]
    ldd = run(["ldd", str(library)]).stdout
    assert "libpython" not in ldd and "libtorch" not in ldd, ldd
    needed = {line.split()[0] for line in ldd.splitlines() if line.strip()}
    allowed = ("linux-vdso", "libc.so", "libm.so", "libgomp.so", "ld-linux", "/lib64/ld-linux")
    assert all(lib.startswith(allowed) for lib in needed), ldd
    assert sorted(exported_symbols(library)) == [f"{name}_output_shapes", f"{name}_run", f"{name}_run_with_workspace",
                                                  f"{name}_workspace_bytes"]

    manifest = json.loads(library.with_suffix(".json").read_text())
    cf = compiled(name, False, torch.float32)[2]
    assert manifest["name"] == name and manifest["library"] == f"{name}.so"
    assert [(a["name"], a["dtype"], a["dims"]) for a in manifest["inputs"]] == [
        (a.name, str(a.dtype)[6:], list(a.dims)) for a in cf.signature.arguments]
    assert [o["dims"] for o in manifest["outputs"]] == [[], ["N", 3]]
    assert [(s["name"], s["index"], s["min"]) for s in manifest["sizes"]] == [("N", 0, 1), ("E", 1, 0)]
    assert manifest["compiler"]["version"] and manifest["target"]["cpu"]
    assert [p["stage"] for p in manifest["passes"]][-2:] == ["llvm", "object"]
    assert manifest["status_codes"] == {k: v for k, (v, _) in STATUS_CODES.items()}


def test_valgrind_clean(tmp_path: Path) -> None:
    """The C program under memcheck (leaks included): a library for x86-64-v3, since
    valgrind does not decode AVX-512. Exported by the method, under its default name."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    fn, _, native = compiled("schnet", False, torch.float32)
    library = export_library(native, tmp_path, target_cpu="x86-64-v3")
    assert library == tmp_path / "energy_forces.so"
    assert json.loads((tmp_path / "energy_forces.json").read_text())["target"]["cpu"] == "x86-64-v3"
    c, _ = programs(tmp_path, "energy_forces")
    system = tmp_path / "system.txt"
    want = fn(*inputs("schnet", 9, torch.float32, system).values())
    result = run(["valgrind", "-q", "--error-exitcode=1", "--leak-check=full",
                  "--errors-for-leak-kinds=definite,indirect", str(c), str(system)])
    assert_matches(result.stdout, want, torch.float32, "schnet under valgrind")


class _Library:
    """lennard_jones f32 through ctypes: the error paths of the C ABI."""

    def __init__(self, path: Path) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.message = ctypes.create_string_buffer(256)

    def run(self, sizes: list[int], *tensors: torch.Tensor | None) -> tuple[int, str]:
        ptrs = [ctypes.c_void_p(t.data_ptr() if t is not None else None) for t in tensors]
        code = self.lib.lennard_jones_run((ctypes.c_int64 * 2)(*sizes), *ptrs, self.message,
                                          ctypes.c_size_t(256))
        return code, self.message.value.decode()

    def output_shapes(self, sizes: list[int]) -> tuple[int, list[int], str]:
        shapes = (ctypes.c_int64 * 2)()
        code = self.lib.lennard_jones_output_shapes((ctypes.c_int64 * 2)(*sizes), shapes, self.message,
                                                    ctypes.c_size_t(256))
        return code, list(shapes), self.message.value.decode()


def test_errors_return_a_code_and_name_the_argument(build, tmp_path: Path) -> None:
    library, c, _ = build("lennard_jones", torch.float32)
    lib = _Library(library)
    codes = {k: v for k, (v, _) in STATUS_CODES.items()}
    pos, edges = model("lennard_jones").inputs(9, torch.float32, 7).values()
    n, e = pos.shape[0], edges.shape[1]
    energy, forces = torch.empty(()), torch.empty(n, 3)

    assert lib.output_shapes([n, e]) == (0, [n, 3], "")
    assert lib.run([n, e], pos, edges, energy, forces) == (0, "")
    want = model("lennard_jones").energy_forces(torch.float32)(pos, edges)
    assert relative_error(forces, want[1].detach()) <= TOLERANCE[torch.float32]

    code, _, message = lib.output_shapes([0, e])
    assert code == codes["PIPELINE_ERROR_SIZE"] and "size N = 0 (argument 'pos' dim 0)" in message
    code, message = lib.run([n, -1], pos, edges, energy, forces)
    assert code == codes["PIPELINE_ERROR_SIZE"] and "argument 'edge_index' dim 1" in message, message
    code, message = lib.run([n, 2**62], pos, edges, energy, forces)
    assert code == codes["PIPELINE_ERROR_SIZE"] and "argument 'edge_index' would be too large" in message

    for bad in (n, -1, 10**6):
        broken = edges.clone()
        broken[1, 3] = bad
        code, message = lib.run([n, e], pos, broken, energy, forces)
        assert code == codes["PIPELINE_ERROR_INDEX"], (bad, code, message)
        assert "argument 'edge_index'" in message and "out of range" in message, message

    code, message = lib.run([n, e], None, edges, energy, forces)
    assert code == codes["PIPELINE_ERROR_NULL"] and "argument 'pos' is NULL" in message
    code, message = lib.run([n, e], pos, edges, energy, None)
    assert code == codes["PIPELINE_ERROR_NULL"] and "argument 'out1' is NULL" in message
    one = torch.zeros(1, 3)  # one atom, no edges: a NULL edge_index is fine
    assert lib.run([1, 0], one, None, energy, torch.empty(1, 3)) == (0, "")

    with pytest.raises(ExportError, match="LLVM does not know the CPU 'bogus'"):
        export_library(compiled("lennard_jones", False, torch.float32)[2], tmp_path / "bogus",
                       target_cpu="bogus")

    # and end to end: the C program exits with the code and prints the message
    system = tmp_path / "bad.txt"
    broken = edges.clone()
    broken[0, 0] = n
    write_system(system, {"pos": pos, "edge_index": broken})
    result = run([str(c), str(system)], expect=codes["PIPELINE_ERROR_INDEX"])
    assert "argument 'edge_index'" in result.stderr


def test_two_models_in_one_program(build, tmp_path: Path) -> None:
    """The name prefix keeps symbols apart: one C file includes and links two libraries."""
    lj, mlp = build("lennard_jones", torch.float64)[0], build("mlp", torch.float64)[0]
    source = tmp_path / "two.c"
    source.write_text(
        '#include <stdio.h>\n#include "lennard_jones.h"\n#include "mlp.h"\n'
        "int main(void) {\n"
        "  const int64_t sizes[2] = {2, 2}, edges[4] = {0, 1, 1, 0};\n"
        "  const double pos[6] = {0, 0, 0, 1.1, 0.2, 0.3};\n"
        "  double e1, e2, f1[6], f2[6];\n"
        "  int a = lennard_jones_run(sizes, pos, edges, &e1, f1, NULL, 0);\n"
        "  int b = mlp_run(sizes, pos, edges, &e2, f2, NULL, 0);\n"
        '  printf("%d %d %.17g %.17g\\n", a, b, e1, e2);\n'
        "  return a || b;\n}\n")
    exe = tmp_path / "two"
    run(["gcc", "-std=c11", "-Wall", "-Werror", f"-I{lj.parent}", f"-I{mlp.parent}", str(source), str(lj),
         str(mlp), f"-Wl,-rpath,{lj.parent}:{mlp.parent}", "-o", str(exe)])
    a, b, e1, e2 = run([str(exe)]).stdout.split()
    pos = torch.tensor([[0, 0, 0], [1.1, 0.2, 0.3]], dtype=torch.float64)
    edges = torch.tensor([[0, 1], [1, 0]])
    for got, name in ((e1, "lennard_jones"), (e2, "mlp")):
        want = model(name).energy_forces(torch.float64)(pos, edges)[0].item()
        assert abs(float(got) - want) <= 1e-10 * max(1.0, abs(want)), (name, got, want)
