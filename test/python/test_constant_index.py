"""A constant index into a symbolic dim: `pos[0]`, `pos[-1]`, `x[:, k]` where that dim
is N, E or T. It used to be a plain load checked by nothing: with N = 0 (or N <= k) the
JIT read outside the buffer and the process died (SIGSEGV). Now it is a te.index like a
gather's (lower-aten-to-tensorexpr's select.int and select_scatter), so the call raises
IndexError naming the op, the index, the dim and the argument indexed, as torch raises
IndexError, and the exported library returns PIPELINE_ERROR_INDEX (3). Every size that
torch computes matches eager (value and forces by autograd.grad), traced or not.

Each model's compiles and calls run in a child process (`outcomes`), the matches first
and the calls that used to crash last: a crash is a failed test, not a dead pytest.
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

import pytest
import torch
from conftest import TOLERANCE, in_child, relative_error

DTYPES = {"f32": torch.float32, "f64": torch.float64}


def energy_forces(energy):  # noqa: ANN001, ANN201 - a model's energy of its arguments
    """fn(pos, *rest) -> (energy, forces = -dE/dpos), by autograd.grad."""

    def fn(pos: torch.Tensor, *rest: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        e = energy(pos, *rest)
        (g,) = torch.autograd.grad(e, pos)
        return e.detach(), -g

    return fn


def first(pos: torch.Tensor) -> torch.Tensor:
    """Centred on the first atom: pos[0] is read only in loops over N."""
    d = pos - pos[0]
    return torch.tanh((d * d).sum(1)).sum()


def last(pos: torch.Tensor) -> torch.Tensor:
    """pos[-1]: torch counts from the end at run time (atom N - 1)."""
    r = pos[-1]
    return torch.exp(-((pos - r) ** 2).sum(1)).sum() + (r * r).sum()


def column(pos: torch.Tensor) -> torch.Tensor:
    """x[:, 1] of x = pos.T [3, N]: index 1 into the dynamic dim 1 (atom 1)."""
    c = pos.T[:, 1]
    return (1 + torch.cos(pos * c)).sum()


def penultimate(pos: torch.Tensor) -> torch.Tensor:
    """pos[-2]: atom N - 2, out of range for N < 2."""
    r = pos[-2]
    return torch.exp(-((pos - r) ** 2).sum(1)).sum()


def feature(pos: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
    """feats[:, 1] of feats [N, T], T dynamic: raises for T <= 1, not for N = 0. (An
    index k >= 2 into a dim that may be 0 makes torch's trace require T > k, which
    capture refuses unless the Dim says min=k + 1; a call below it is a CallError.)"""
    q = feats[:, 1]
    return (q * q * (pos * pos).sum(1)).sum()


def edges(pos: torch.Tensor, vec: torch.Tensor) -> torch.Tensor:
    """pos[0] read in loops over E (edge vectors [E, 3]): N = 0 with E > 0 raises."""
    return ((vec - pos[0]) ** 2).sum() + 0.5 * (pos * pos).sum()


MODELS = {
    # name: (energy, argument names, {argument: {dim: size name}}, sizes of the trace)
    "first": (first, ["pos"], {"pos": {0: "N"}}, {"N": 5}),
    "last": (last, ["pos"], {"pos": {0: "N"}}, {"N": 5}),
    "penultimate": (penultimate, ["pos"], {"pos": {0: "N"}}, {"N": 5}),
    "column": (column, ["pos"], {"pos": {0: "N"}}, {"N": 5}),
    "feature": (feature, ["pos", "feats"], {"pos": {0: "N"}, "feats": {0: "N", 1: "T"}}, {"N": 5, "T": 4}),
    "edges": (edges, ["pos", "vec"], {"pos": {0: "N"}, "vec": {0: "E"}}, {"N": 5, "E": 6}),
}
MATCH = {
    "first": [{"N": n} for n in (1, 2, 5, 7, 64)],
    "last": [{"N": n} for n in (1, 2, 5, 7, 64)],
    "penultimate": [{"N": n} for n in (2, 3, 5, 7, 64)],
    "column": [{"N": n} for n in (2, 3, 5, 7, 64)],
    "feature": [{"N": 5, "T": 4}, {"N": 1, "T": 2}, {"N": 7, "T": 9}, {"N": 64, "T": 2}, {"N": 0, "T": 3}],
    "edges": [{"N": 5, "E": 6}, {"N": 1, "E": 1}, {"N": 7, "E": 0}, {"N": 64, "E": 100}],
}
"""Sizes torch computes (traced, untraced, one atom): the compiled function matches eager."""
RAISE = {
    "first": ({"N": 0},),
    "last": ({"N": 0},),
    "penultimate": ({"N": 0}, {"N": 1}),
    "column": ({"N": 0}, {"N": 1}),
    "feature": ({"N": 4, "T": 1}, {"N": 4, "T": 0}, {"N": 0, "T": 0}),
    "edges": ({"N": 0, "E": 3}, {"N": 0, "E": 0}),
}
"""Sizes where torch raises IndexError (the index is out of range): so must we."""
SITE = {
    "first": "select.int: index 0 into dim 0 of size N of argument 'pos'",
    "last": "select.int: index -1 into dim 0 of size N of argument 'pos'",
    "penultimate": "select.int: index -2 into dim 0 of size N of argument 'pos'",
    "column": "select.int: index 1 into dim 1 of size N of argument 'pos'",
    "feature": "select.int: index 1 into dim 1 of size T of argument 'feats'",
    "edges": "select.int: index 0 into dim 0 of size N of argument 'pos'",
}
"""The message of each model's one check."""


def label(sizes: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def arguments(name: str, sizes: dict[str, int], dtype: torch.dtype) -> dict[str, torch.Tensor]:
    _, names, dims, _ = MODELS[name]
    gen = torch.Generator().manual_seed(sum(sizes.values()) + 7)
    args = {}
    for arg in names:
        shape = [sizes[dims[arg][0]], 3 if arg != "feats" else sizes[dims[arg][1]]]
        args[arg] = torch.randn(*shape, dtype=torch.float64, generator=gen).to(dtype)
    return args


def compile_model(name: str, dtype: torch.dtype):  # noqa: ANN201
    """(eager fn, compiled fn) of a model, every size in [0, inf)."""
    from pipeline import compile

    energy, _, dims, traced = MODELS[name]
    fn = energy_forces(energy)
    symbols: dict[str, torch.export.Dim] = {}
    shapes = {arg: {d: symbols.setdefault(s, torch.export.Dim(s, min=0)) for d, s in spec.items()}
              for arg, spec in dims.items()}
    return fn, compile(fn, arguments(name, traced, dtype), shapes)


def call(fn, args: dict[str, torch.Tensor]) -> dict[str, object]:  # noqa: ANN001
    """The outputs of fn(*args), or the error it raised."""
    try:
        return {"outputs": fn(*args.values())}
    except Exception as e:  # noqa: BLE001 - reported to the parent
        return {"error": type(e).__name__, "message": str(e)}


def child(name: str, directory: str) -> None:
    """In the child process: each case of `name`, one JSON line each: every match of
    both dtypes, then the exported library's, then the calls that used to crash."""
    from pipeline import export_library, load_library

    models = {dtype_name: compile_model(name, dtype) for dtype_name, dtype in DTYPES.items()}
    libraries = {dtype_name: load_library(export_library(compiled, Path(directory) / dtype_name,
                                                         name=f"{name}_{dtype_name}"))
                 for dtype_name, (_, compiled) in models.items()}

    def emit(how: str, dtype_name: str, sizes: dict[str, int], fn) -> None:  # noqa: ANN001
        args = arguments(name, sizes, DTYPES[dtype_name])
        want, got = call(models[dtype_name][0], args), call(fn, args)
        result: dict[str, object] = {"how": how, "dtype": dtype_name, "case": label(sizes),
                                     "eager": want.get("error"), **{k: v for k, v in got.items() if k != "outputs"}}
        if "outputs" in got and "outputs" in want:
            result["errors"] = [relative_error(g, w) for g, w in zip(got["outputs"], want["outputs"])]  # type: ignore[arg-type]
        print(json.dumps(result), flush=True)

    for cases in (MATCH[name], RAISE[name]):
        for how in ("jit", "library"):
            for dtype_name, (_, compiled) in models.items():
                for sizes in cases:
                    emit(how, dtype_name, sizes, compiled if how == "jit" else libraries[dtype_name])


@functools.cache
def outcomes(name: str) -> tuple[int, str, dict[tuple[str, str, str], dict]]:
    """(exit code, stderr, {(how, dtype, case): result}) of the child running `name`."""
    with tempfile.TemporaryDirectory(prefix=f"constant_index_{name}_") as directory:
        code, stderr, results = in_child("test_constant_index", name, directory)
    return code, stderr, {(r["how"], r["dtype"], r["case"]): r for r in results}


def outcome(name: str, how: str, dtype: str, sizes: dict[str, int]) -> dict:
    code, stderr, results = outcomes(name)
    if (how, dtype, label(sizes)) not in results:
        died = f"signal {-code}" if code < 0 else f"exit code {code}"
        pytest.fail(f"{name} {dtype}: the child process died ({died}) before the {how} call at "
                    f"{label(sizes)}:\n{stderr[-3000:]}")
    return results[(how, dtype, label(sizes))]


@pytest.mark.parametrize("name", MODELS)
def test_child_process_does_not_crash(name: str) -> None:
    code, stderr, results = outcomes(name)
    assert code == 0, f"{name}: exit {code}\n{stderr[-3000:]}"
    assert len(results) == 2 * len(DTYPES) * (len(MATCH[name]) + len(RAISE[name]))


CASES = [(name, sizes) for name in MODELS for sizes in MATCH[name]]


@pytest.mark.parametrize("how", ["jit", "library"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,sizes", CASES, ids=[f"{n}-{label(s)}" for n, s in CASES])
def test_matches_eager(name: str, sizes: dict[str, int], dtype: str, how: str) -> None:
    """Energy and forces at traced and untraced sizes, one atom, no edges."""
    r = outcome(name, how, dtype, sizes)
    assert r["eager"] is None, f"eager raised {r['eager']} at {label(sizes)}: not a case to match"
    assert "error" not in r, f"{name} {how} {dtype} {label(sizes)}: {r.get('error')}: {r.get('message')}"
    for what, err in zip(("energy", "forces"), r["errors"]):
        assert err <= TOLERANCE[DTYPES[dtype]], f"{name} {how} {dtype} {label(sizes)} {what}: relative error {err:.2e}"


RAISES = [(name, sizes) for name in MODELS for sizes in RAISE[name]]


@pytest.mark.parametrize("how", ["jit", "library"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name,sizes", RAISES, ids=[f"{n}-{label(s)}" for n, s in RAISES])
def test_out_of_range_raises_index_error(name: str, sizes: dict[str, int], dtype: str, how: str) -> None:
    """Where torch raises IndexError (N = 0, or the dim no longer than the index), the
    JIT raises IndexError naming the op, the index, the dim and the argument, and the
    library returns PIPELINE_ERROR_INDEX (load_library raises IndexError for it)."""
    r = outcome(name, how, dtype, sizes)
    assert r["eager"] == "IndexError", f"eager gave {r['eager']} at {label(sizes)}: not a case that raises"
    assert r.get("error") == "IndexError", f"{name} {how} {dtype} {label(sizes)}: {r}"
    assert SITE[name] in r["message"] and "out of range" in r["message"], r["message"]


def test_static_dim_constant_index_has_no_check() -> None:
    """A constant index into a static dim (edge_index[0] of [2, E], x[:, -1] of [N, 3])
    is used as is: no te.index, no site, nothing checked at run time."""
    from pipeline import compile

    def fn(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        e = (pos[edge_index[0]] - pos[edge_index[1]]).pow(2).sum() + pos[:, -1].sum()
        (g,) = torch.autograd.grad(e, pos)
        return e.detach(), -g

    N, E = torch.export.Dim("N", min=0), torch.export.Dim("E", min=0)
    compiled = compile(fn, {"pos": torch.randn(4, 3), "edge_index": torch.tensor([[0, 1, 2], [1, 2, 3]])},
                       {"pos": {0: N}, "edge_index": {1: E}})
    assert not [s for s in compiled.signature.sites if s.startswith(("select.int", "select_scatter"))], compiled.signature.sites
    for n in (0, 4):  # still computed as before, N = 0 included
        pos, ei = torch.randn(n, 3), torch.zeros(2, 0, dtype=torch.int64)
        got, want = compiled(pos, ei), fn(pos, ei)
        assert all(relative_error(g, w) <= TOLERANCE[torch.float32] for g, w in zip(got, want))


def test_constant_index_out_of_range_of_a_static_dim_is_a_lowering_error() -> None:
    """select.int 3 of a dim of size 3 cannot come from a trace (torch raised there);
    the lowering refuses it naming the op, the index, the dim and its size."""
    from xdsl.parser import Parser

    from pipeline.registry import context
    from transforms.lower_aten_to_tensorexpr import LowerAtenToTensorExprPass, LoweringError

    text = """
    func.func @f(%N: index, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<?xf32> {
      %c3 = arith.constant 3 : index
      %0 = aten.select.int %x, %c3 {dim = 1 : i64} : tensor<?x3xf32> -> tensor<?xf32>
      func.return %0 : tensor<?xf32>
    }
    """
    ctx = context()
    module = Parser(ctx, text).parse_module()
    with pytest.raises(LoweringError, match=r"aten.select.int: index 3 is out of range for dim 1 of size 3"):
        LowerAtenToTensorExprPass().apply(ctx, module)
