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
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import sympy
import torch
from conftest import DTYPES, MODELS, ROOT, TOLERANCE, model, needs_tools, relative_error
from test_compile_examples import compiled
from torch.utils._sympy.functions import CeilDiv, FloorDiv, Max, Min, Mod, PythonMod

import pipeline
from codegen.object_file import c_compiler, exported_symbols
from pipeline.deploy.c_text import fill
from pipeline.deploy.export import (
    POTENTIAL_HEADER,
    STATUS_CODES,
    ExportError,
    PotentialInfo,
    _potential_entry,
    _signature,
    _Signature,
    export_library,
    header_text,
    manifest_data,
    wrapper_source,
)
from pipeline.signature import Argument, Output, Signature, Size, Weight, symbol

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


# --------------------------------------------------------------------------- the C templates


def _records() -> dict[str, tuple[Signature, PotentialInfo | None]]:
    """Signature records, no compile needed, that reach every branch of the templates: the
    smallest one (no weights, checks or arenas; a 0-d output), one without size symbols but
    with arenas, one with everything (bounded ranges, torch's integer functions in dims,
    every element type and special floats in weights, names that are C keywords or
    taken, checks whose text needs escapes), and the potentials in f64 and f32 (their
    arguments in another order)."""
    n, e, t = symbol("N"), symbol("E"), symbol("T")
    minimal = Signature("f", (Argument("x", 0, torch.float32, ("N",)),), (Size("N", 0, None, (("x", 0),)),),
                        (Output(0, torch.float32, ()),), (), (), ())
    static = Signature("g", (Argument("x", 0, torch.float64, (3,)),), (), (Output(0, torch.float64, (3,)),),
                       (Weight("w", torch.tensor([1.5, 2.0, -0.0], dtype=torch.float64)),), (), (torch.float64,))
    every = Signature(
        "h",
        (Argument("int", 0, torch.float64, ("N", 3)), Argument("sizes", 1, torch.int64, (2, "E")),
         Argument("status", 2, torch.int32, ("T",)), Argument("flag", 3, torch.bool, ("N",)),
         Argument("small", 4, torch.int16, ("T", "N")), Argument("b", 5, torch.int8, ()),
         Argument("u", 6, torch.uint8, ("E",))),
        (Size("N", 2, 100, (("int", 0), ("flag", 0), ("small", 1))), Size("E", 0, None, (("sizes", 1), ("u", 0))),
         Size("T", 1, 7, (("status", 0), ("small", 0)))),
        (Output(0, torch.float64, ()), Output(1, torch.float64, (FloorDiv(n, 2), 3)),
         Output(2, torch.float32, (CeilDiv(e, 3),)), Output(3, torch.int64, (Mod(n, 4) + 1,)),
         Output(4, torch.float64, (Max(n, e, t), Min(n, t))), Output(5, torch.float64, (n**2,)),
         Output(6, torch.int32, (n * e + 1, PythonMod(e, 5))), Output(7, torch.bool, (n,))),
        (Weight("a*/b", torch.tensor([float("nan"), float("inf"), -float("inf"), 0.1, -2.5, 1e-40, 3.0])),
         Weight("d", torch.arange(20, dtype=torch.float64).reshape(4, 5) / 7),
         Weight("i", torch.tensor([-(2**63), 2**63 - 1, 0, -5])),
         Weight("j", torch.tensor([[-(2**31), 7]], dtype=torch.int32)),
         Weight("k", torch.tensor([-128, 127], dtype=torch.int8)),
         Weight("m", torch.tensor([0, 255], dtype=torch.uint8)),
         Weight("z", torch.tensor([True, False])), Weight("s", torch.tensor([-3, 4], dtype=torch.int16)),
         Weight("empty", torch.zeros(0, 3))),
        ('index "x" \\ of énergie', "assertion failed: N > 2", "edge_index dim 1 */"),
        (torch.float32, torch.int64, torch.float64),
    )

    def potential(real: torch.dtype, order: list[str]) -> Signature:
        dims = {"species": ("N",), "positions": ("N", 3), "edge_index": (2, "E"), "shifts": ("E", 3), "n_local": ()}
        dtype = {"positions": real, "shifts": real}
        return Signature(
            "energy_forces", tuple(Argument(a, k, dtype.get(a, torch.int64), dims[a]) for k, a in enumerate(order)),
            (Size("E", 0, None, (("edge_index", 1), ("shifts", 0))), Size("N", 1, None, (("positions", 0),))),
            (Output(0, real, ()), Output(1, real, (n,)), Output(2, real, (n, 3)), Output(3, real, (3, 3))),
            (Weight("c", torch.ones(3, dtype=real)),), ("edge_index: an index is out of range",), (real,))

    return {"minimal": (minimal, None), "static_shapes": (static, None), "every_branch": (every, None),
            "potential64": (potential(torch.float64, ["species", "positions", "edge_index", "shifts", "n_local"]),
                            PotentialInfo(5.0, 2, ("H", "O", 'A"b\\'))),
            "potential32": (potential(torch.float32, ["positions", "n_local", "shifts", "species", "edge_index"]),
                            PotentialInfo(0.1, 1, ("Si",)))}


def _sig(lib: str) -> _Signature:
    record = _records()[lib][0]
    return _signature(SimpleNamespace(signature=record, name=record.name, profile_nests=False), lib)


@pytest.mark.parametrize("lib", list(_records()))
def test_templates_fill_to_c_that_compiles(lib: str, tmp_path: Path) -> None:
    """The lint of templates/: each template filled from a small record is C that compiles
    with export's flags, -pedantic besides, at -O0 and -O2, and the header also as C++; the
    header declares the prototypes the manifest gives."""
    sig, info = _sig(lib), _records()[lib][1]
    entry = _potential_entry(sig, info) if info else None
    (tmp_path / f"{lib}.h").write_text(header_text(sig, "x86-64-v3", entry))
    (tmp_path / f"{lib}_abi.c").write_text(wrapper_source(sig, entry))
    shutil.copyfile(POTENTIAL_HEADER, tmp_path / POTENTIAL_HEADER.name)
    flags = ["-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{tmp_path}"]
    for level in ("-O0", "-O2"):
        run([*c_compiler().split(), "-std=c11", level, "-fPIC", *flags, "-c", str(tmp_path / f"{lib}_abi.c"),
             "-o", str(tmp_path / "abi.o")])
    run(["g++", "-std=c++11", "-fsyntax-only", *flags, "-x", "c++", str(tmp_path / f"{lib}.h")])
    declared = " ".join((tmp_path / f"{lib}.h").read_text().split())
    for prototype in manifest_data(sig, "x86-64-v3", "", [])["abi"].values():
        assert f"{prototype};" in declared, prototype


def test_fill_needs_every_placeholder_and_no_other_value() -> None:
    """fill refuses a placeholder left without a value and a value without a placeholder;
    a block repeats its line's lead before each item, and an empty block drops the line."""
    values = {"function": "f", "cutoff": "1.0", "layers": 1, "species": "H"}
    text = fill("potential_entry.h", **values)
    assert " * (cutoff 1.0, 1 layer(s), species H)\n" in text and "$" not in text
    with pytest.raises(KeyError, match="layers"):
        fill("potential_entry.h", **{k: v for k, v in values.items() if k != "layers"})
    with pytest.raises(ValueError, match="no placeholder for stale"):
        fill("potential_entry.h", **values, stale="x")
    header = header_text(_sig("static_shapes"), "x86-64-v3")
    assert "#define static_shapes_num_sizes 0\n#define static_shapes_num_inputs 1\n" in header
    assert " *   x: const double, shape (3,)\n *   out0: double, shape (3,) (written)\n * A pointer" in header


def test_a_dim_without_c_form_is_an_export_error() -> None:
    weird = Output(0, torch.float32, (sympy.Function("Weird")(symbol("N")),))
    record = replace(_records()["minimal"][0], outputs=(weird,))
    with pytest.raises(ExportError, match=r"output 0: the size expression Weird\(N\) has no C form"):
        _signature(SimpleNamespace(signature=record, name=record.name, profile_nests=False), "weird")


def test_function_without_size_symbols(tmp_path: Path) -> None:
    """Static shapes and a workspace: the ABI layer sizes the arenas with no size argument."""
    def f(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.tanh(x @ x.T).sin().sum()
        return y, torch.autograd.grad(y, x)[0]

    native = pipeline.compile(f, (torch.randn(5, 3, requires_grad=True),))
    assert native.signature.arenas and not native.signature.sizes
    lib = pipeline.load_library(export_library(native, tmp_path, name="static_shapes"))
    x = torch.randn(5, 3)
    for got, want in zip(lib(x), native(x)):
        assert relative_error(got, want) <= TOLERANCE[torch.float32]
