"""Empty sizes (issue 28): no atoms, no edges, one atom, no triplets, through the JIT
and through an exported library (natively and under valgrind).

An index into an empty dim has no element to be clamped to: with N = 0 atoms and
E > 0 edges, `pos[edge_index[0]]` used to read (and the forces' scatter to write)
outside the buffers, and the process died. Now the call raises IndexError naming the
argument the indices came from (the library returns PIPELINE_ERROR_INDEX), and every
empty system that torch computes matches eager.

The examples are compiled with every size allowed to be 0 (their own dynamic shapes
say N >= 1). Each model's calls run in a child process (`outcomes`), one compile per
dtype, the calls that used to crash last: a crash is a failed test, not a dead pytest.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from conftest import TOLERANCE, in_child, model, relative_error

MODELS = ["lennard_jones", "schnet", "three_body"]
DTYPES = {"f32": torch.float32, "f64": torch.float64}
MATCH = ["no_atoms_no_edges", "one_atom", "atoms_no_edges", "atoms_and_edges"]
"""Cases that torch computes: energy and forces match eager."""
MATCH_THREE_BODY = [*MATCH, "edges_no_triplets"]
RAISE = {"no_atoms_with_edges": "edge_index", "index_out_of_range": "edge_index"}
"""Cases that raise IndexError, and the argument the message names."""
RAISE_THREE_BODY = {**RAISE, "triplets_no_edges": "triplets", "triplets_no_atoms_no_edges": "triplets"}
EDGES = [[0, 1, 2], [1, 2, 0]]


def match_cases(name: str) -> list[str]:
    return MATCH_THREE_BODY if name == "three_body" else MATCH


def raise_cases(name: str) -> dict[str, str]:
    return RAISE_THREE_BODY if name == "three_body" else RAISE


def compile_model(name: str, dtype: torch.dtype):
    """(eager fn, compiled fn) of an example, every size in [0, inf)."""
    from pipeline import compile

    mod = model(name)
    dims: dict[str, torch.export.Dim] = {}
    shapes = {arg: {d: dims.setdefault(dim.__name__, torch.export.Dim(dim.__name__, min=0)) for d, dim in spec.items()}
              for arg, spec in mod.dynamic_shapes.items()}
    fn = mod.energy_forces(dtype)
    return fn, compile(fn, mod.inputs(23, dtype, 0), shapes)


def inputs(name: str, case: str, dtype: torch.dtype) -> list[torch.Tensor]:
    """The arguments of `case`, in the order of the model's inputs."""
    mod = model(name)
    edges = torch.tensor(EDGES)
    none = torch.zeros(2, 0, dtype=torch.int64)
    if case in ("atoms_and_edges", "edges_no_triplets", "index_out_of_range"):
        data = mod.inputs(12, dtype, 5)
        if name == "three_body":
            assert data["triplets"].shape[1] > 0
            if case == "edges_no_triplets":
                data["triplets"] = none
        if case == "index_out_of_range":
            data["edge_index"] = data["edge_index"].clone()
            data["edge_index"][1, 0] = data["pos"].shape[0]  # one past the last atom
        return list(data.values())
    atoms, edge_index, triplets = {
        "no_atoms_no_edges": (0, none, none),
        "one_atom": (1, none, none),
        "atoms_no_edges": (5, none, none),
        "no_atoms_with_edges": (0, edges, none),
        "triplets_no_edges": (4, none, torch.tensor([[0, 1], [1, 0]])),
        "triplets_no_atoms_no_edges": (0, none, torch.tensor([[0], [0]])),
    }[case]
    pos = torch.randn(atoms, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(atoms)).to(dtype)
    extra = {"schnet": [torch.zeros(atoms, dtype=torch.int64)], "three_body": [triplets]}.get(name, [])
    return [pos, edge_index, *extra]


def child(name: str) -> None:
    """In the child process: each case of `name`, one JSON line each (the matches of
    both dtypes first, then the calls that used to crash)."""
    models = {dtype_name: compile_model(name, dtype) for dtype_name, dtype in DTYPES.items()}
    for cases in (match_cases(name), list(raise_cases(name))):
        for dtype_name, (fn, compiled) in models.items():
            for case in cases:
                args = inputs(name, case, DTYPES[dtype_name])
                result: dict[str, object] = {"dtype": dtype_name, "case": case}
                try:
                    got = compiled(*args)
                    result["errors"] = [relative_error(g, w.detach()) for g, w in zip(got, fn(*args))]
                except Exception as e:  # noqa: BLE001 - reported to the parent
                    result["error"] = type(e).__name__
                    result["message"] = str(e)
                print(json.dumps(result), flush=True)


@functools.cache
def outcomes(name: str) -> tuple[int, str, dict[tuple[str, str], dict]]:
    """(exit code, stderr, {(dtype, case): result}) of the child running `name`."""
    code, stderr, results = in_child("test_empty_sizes", name, timeout=900)
    return code, stderr, {(r["dtype"], r["case"]): r for r in results}


def outcome(name: str, dtype: str, case: str) -> dict:
    code, stderr, results = outcomes(name)
    if (dtype, case) not in results:
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        pytest.fail(f"{name} {dtype}: the child process died ({how}) before case {case}:\n{stderr[-3000:]}")
    return results[(dtype, case)]


@pytest.mark.parametrize("name", MODELS)
def test_child_process_does_not_crash(name: str) -> None:
    code, stderr, results = outcomes(name)
    assert code == 0, f"{name}: exit {code}\n{stderr[-3000:]}"
    assert len(results) == len(DTYPES) * (len(match_cases(name)) + len(raise_cases(name)))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,case", [(n, c) for n in MODELS for c in match_cases(n)])
def test_empty_systems_match_eager(name: str, case: str, dtype: str) -> None:
    r = outcome(name, dtype, case)
    assert "error" not in r, f"{name} {dtype} {case}: {r.get('error')}: {r.get('message')}"
    for what, err in zip(("energy", "forces"), r["errors"]):
        assert err <= TOLERANCE[DTYPES[dtype]], f"{name} {dtype} {case} {what}: relative error {err:.2e}"


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,case", [(n, c) for n in MODELS for c in raise_cases(n)])
def test_index_into_empty_dim_raises(name: str, case: str, dtype: str) -> None:
    """N = 0 with E > 0 (and, for three_body, triplets with E = 0) raise IndexError
    naming the argument the indices came from, as a plain out-of-range index does."""
    r = outcome(name, dtype, case)
    assert r.get("error") == "IndexError", f"{name} {dtype} {case}: {r}"
    argument = raise_cases(name)[case]
    assert f"argument '{argument}'" in r["message"] and "out of range" in r["message"], r["message"]


# --------------------------------------------------------------------------- the exported library

DRIVER = r"""
#include <math.h>
#include <stdio.h>
#include "NAME.h"

typedef NAME_pos_t real;

/* One call: prints "<case> <code> <message>". NULL buffers are the library's empty tensors. */
static int call(const char *what, int64_t n, int64_t e, const real *pos, const int64_t *edges, real *forces) {
  const int64_t sizes[2] = {n, e};
  real energy = 0;
  char message[256] = "";
  int code = NAME_run(sizes, pos, edges, &energy, forces, message, sizeof message);
  printf("%s %d %s\n", what, code, message);
  return code == 0 && !isfinite((double)energy);
}

int main(void) {
  const int64_t edges[6] = {0, 1, 2, 1, 2, 0}; /* (2, 3): 0->1, 1->2, 2->0 */
  const int64_t bad[6] = {0, 1, 2, 1, 4, 0};   /* 1->4 with 4 atoms */
  const real pos[12] = {0, 0, 0, 1.1, 0, 0, 0, 1.2, 0, 0, 0, 1.3};
  real forces[12];
  int nan = call("no_atoms_with_edges", 0, 3, NULL, edges, NULL);
  nan |= call("no_atoms_no_edges", 0, 0, NULL, NULL, NULL);
  nan |= call("index_out_of_range", 4, 3, pos, bad, forces);
  nan |= call("atoms_and_edges", 4, 3, pos, edges, forces);
  return nan;
}
"""


@functools.cache
def driver(directory: Path, dtype: str) -> Path:
    """lennard_jones (every size from 0) exported for x86-64-v3 (valgrind decodes no
    AVX-512), and DRIVER built against it with the system cc."""
    from pipeline.deploy.export import export_library

    _, compiled = compile_model("lennard_jones", DTYPES[dtype])
    name = f"lj_empty_{dtype}"
    out = directory / name
    library = export_library(compiled, out, name=name, target_cpu="x86-64-v3")
    source = out / "driver.c"
    source.write_text(DRIVER.replace("NAME", name))
    exe = out / "driver"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{out}", str(source), str(library),
                    f"-Wl,-rpath,{out}", "-lm", "-o", str(exe)], check=True, capture_output=True, text=True)
    return exe


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("empty")
    return lambda dtype: driver(root, dtype)


def check_driver_output(stdout: str) -> None:
    from pipeline.deploy.export import STATUS_CODES

    codes = {k: v for k, (v, _) in STATUS_CODES.items()}
    lines = {line.split(" ", 1)[0]: line.split(" ", 2)[1:] for line in stdout.splitlines()}
    for case in ("no_atoms_with_edges", "index_out_of_range"):
        code, message = lines[case]
        assert int(code) == codes["PIPELINE_ERROR_INDEX"], (case, code, message)
        assert "argument 'edge_index'" in message and "out of range" in message, (case, message)
    for case in ("no_atoms_no_edges", "atoms_and_edges"):
        assert int(lines[case][0]) == codes["PIPELINE_OK"], (case, lines[case])


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_exported_library_returns_index_error(built, dtype: str) -> None:
    """N = 0 with E = 3 and an index one past the last atom: PIPELINE_ERROR_INDEX,
    the message naming edge_index; the empty and the valid systems succeed."""
    result = subprocess.run([str(built(dtype))], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"driver: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    check_driver_output(result.stdout)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_exported_library_valgrind_clean(built, dtype: str) -> None:
    """The same calls under memcheck: no invalid read or write (an empty pos and
    forces are NULL: nothing may touch them), no uninitialised value steering a
    branch, no leak."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    exe = built(dtype)
    result = subprocess.run(["valgrind", "-q", "--error-exitcode=99", "--leak-check=full", str(exe)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"valgrind: exit {result.returncode}\n{result.stderr[-4000:]}"
    check_driver_output(result.stdout)
