"""The four example models, compiled to native code, against eager PyTorch.

Energy and forces at N in {1, 7, 100, 2000} atoms (traced at 23), in f32 and f64,
on 1 and 2 threads (parallel loops split rows across threads at the larger sizes);
the training variants' loss and parameter gradients (a double backward).
"""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim
from conftest import DTYPES, TRACE_ATOMS, assert_canonical, assert_close, model

from pipeline.compiler import compile
from pipeline.tools.peak import fraction_of_peak

ATOMS = [1, 7, 100, 2000]


@functools.cache
def compiled(name: str, training: bool, dtype: torch.dtype):
    mod = model(name)
    fn = (mod.training_step if training else mod.energy_forces)(dtype)
    make = mod.training_inputs if training else mod.inputs
    shapes = mod.training_dynamic_shapes if training else mod.dynamic_shapes
    return fn, make, compile(fn, make(TRACE_ATOMS, dtype, 0), shapes)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_energy_forces(model_name: str, dtype: torch.dtype) -> None:
    fn, make, native = compiled(model_name, False, dtype)
    for n in ATOMS:
        inputs = make(n, dtype, 1000 + n)
        want = fn(*inputs.values())
        for threads in (1, 2):
            native.num_threads = threads
            assert_close(native(*inputs.values()), want, dtype, f"{model_name} N={n} threads={threads}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_training_gradients(model_name: str, dtype: torch.dtype) -> None:
    fn, make, native = compiled(model_name, True, dtype)
    for n in (7, 100):
        inputs = make(n, dtype, 2000 + n)
        got, want = native(*inputs.values()), fn(*inputs.values())
        assert len(got) > 1, "the loss and at least one parameter gradient"
        assert_close(got, want, dtype, f"{model_name} training N={n}")


@pytest.mark.parametrize("training", [False, True], ids=["energy_forces", "training"])
def test_loops_stage_is_canonical(model_name: str, training: bool) -> None:
    assert_canonical(compiled(model_name, training, torch.float32)[2].ir("loops"), model_name)


def test_numpy_in_numpy_out() -> None:
    fn, make, native = compiled("lennard_jones", False, torch.float64)
    inputs = make(9, torch.float64, 5)
    got = native(*(t.numpy() for t in inputs.values()))
    assert all(type(g).__name__ == "ndarray" for g in got)
    assert_close([torch.from_numpy(g) for g in got], fn(*inputs.values()), torch.float64)


def test_every_stage_is_visible(tmp_path) -> None:
    fn, make, _ = compiled("lennard_jones", False, torch.float32)
    native = compile(fn, make(TRACE_ATOMS, torch.float32, 0), model("lennard_jones").dynamic_shapes,
                     dump_dir=tmp_path)
    for stage in ("fx", "aten", "tensorexpr", "loops", "llvm", "ll", "opt.ll", "asm"):
        assert native.ir(stage)
    assert "aten." not in native.ir("tensorexpr").split("{", 1)[1].replace("aten.dims", "")
    assert "te." not in native.ir("loops").replace("te.dims", "").replace("te.index_sites", "")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[0] == "00-fx.txt" and names[1] == "01-aten.mlir"
    assert any(n.endswith("-lower-aten-to-tensorexpr.mlir") for n in names)
    assert any(n.endswith("-lower-tensorexpr-to-loops.mlir") for n in names)
    assert names[-3].endswith("module.ll") and names[-2].endswith("module.opt.ll")
    assert names[-1].endswith("module.s")


def test_driver_knows_every_stage() -> None:
    import pipeline.__main__ as driver
    import pipeline.compiler as compiler

    assert driver.STAGE_NAMES == compiler.STAGE_NAMES


def test_profile_times_every_loop_nest() -> None:
    fn, make, _ = compiled("lennard_jones", False, torch.float64)
    native = compile(fn, make(TRACE_ATOMS, torch.float64, 0), model("lennard_jones").dynamic_shapes, profile=True)
    inputs = make(300, torch.float64, 3)
    for _ in range(3):
        assert_close(native(*inputs.values()), fn(*inputs.values()), torch.float64, "profiled")
    rows = native.profile()
    assert len(rows) == len(native.profile_nests) > 3
    assert all(r.seconds >= 0 for r in rows) and sum(r.seconds for r in rows) > 0
    assert [r.seconds for r in rows] == sorted((r.seconds for r in rows), reverse=True)
    assert rows[0].nest.startswith("nest ") and " -> " in rows[0].nest
    assert sum(r.flops for r in rows) > 0 and {r.dtype for r in rows if r.flops} == {"f64"}
    with pytest.raises(ValueError, match="profile=True"):
        compiled("lennard_jones", False, torch.float64)[2].profile()
    assert "loops.profile_nests" in native.ir("loops")  # printed on demand, as profiled


def test_profile_counts_the_flops_of_a_dense_layer() -> None:
    """x @ W: 2 N K J floating-point operations (a multiply and an add per term), in
    the nests that write the output; their GFLOP/s and fraction of peak follow. N is
    a multiple of every tile height (840 = lcm(1..8)): no clamped row is computed twice."""
    k, j, n = 64, 32, 840
    weight = torch.randn(k, j, generator=torch.Generator().manual_seed(0))

    def layer(x: torch.Tensor) -> tuple[torch.Tensor]:
        return (x @ weight,)

    native = compile(layer, {"x": torch.randn(23, k)}, {"x": {0: Dim("N")}}, profile=True)
    native(torch.randn(n, k))
    rows = [r for r in native.profile() if r.nest.endswith("-> out0")]
    assert sum(r.flops for r in rows) == 2 * n * k * j and {r.dtype for r in rows} == {"f32"}
    fraction = fraction_of_peak(rows[0])
    assert fraction is not None and fraction > 0
