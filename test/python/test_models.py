"""NequIP and Allegro, as their packages build them, compiled and against eager PyTorch.

Needs the `models` extra (`pip install -e '.[models]'`: e3nn, nequip, nequip-allegro);
skipped without it. See `real_models.py` for how the models are built. Each is traced at
TRACE_ATOMS (23 atoms, plus the capture's own retrace at 24) and compared at three other
sizes, energy and forces, on 1 and 2 threads, in three configurations:

- f64: model_dtype float64, positions float64;
- f32: model_dtype float32, positions float32;
- f32-pos64: model_dtype float32, positions float64 (nequip's own data convention: its
  ASE calculator and datasets keep positions in float64 and cast inside the model).

The energy is float64 in all three (nequip sums per-atom energies in float64). Then the
models' own gradient path (`do_derivatives=True`: energy, forces and virial), float64.

Tolerances are the house ones of the model's dtype (conftest.TOLERANCE), the forces
relative to their largest; the energy sums per-atom energies of either sign (the per-type
shifts), so it is compared with the sum of their magnitudes (conftest.Sum).
"""

from __future__ import annotations

import functools
import time

import pytest
import torch

for _package in ("e3nn", "nequip", "allegro"):
    pytest.importorskip(_package, reason=f"`{_package}` does not import: the `models` extra (pip install -e '.[models]')")

import real_models
from conftest import TRACE_ATOMS, Sum, assert_canonical, assert_close

from pipeline.compiler import compile

ATOMS = [4, 57, 190]
# name: (model_dtype, positions dtype)
CONFIGS = {
    "f64": ("float64", torch.float64),
    "f32": ("float32", torch.float32),
    "f32-pos64": ("float32", torch.float64),
}


@functools.cache
def compiled(name: str, config: str):
    model_dtype, pos_dtype = CONFIGS[config]
    fn = real_models.energy_forces(name, model_dtype)
    start = time.perf_counter()
    native = compile(fn, real_models.inputs(TRACE_ATOMS, pos_dtype, 0), real_models.dynamic_shapes)
    print(f"{name} {config}: compiled in {time.perf_counter() - start:.1f} s "
          f"(capture {native.timings['capture_s']:.1f} s)")
    return fn, native


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("name", real_models.MODELS)
def test_energy_forces(name: str, config: str) -> None:
    model_dtype, pos_dtype = CONFIGS[config]
    fn, native = compiled(name, config)
    per_atom = real_models.per_atom_energies(name, model_dtype)
    for n in ATOMS:
        inputs = real_models.inputs(n, pos_dtype, 1000 + n)
        want = fn(**inputs)
        assert want[0].dtype == torch.float64 and want[1].dtype == pos_dtype
        pos, edge_index, atom_types = inputs["pos"], inputs["edge_index"], inputs["atom_types"]
        energies = per_atom(atom_types, pos, edge_index, pos.new_zeros(edge_index.shape[1], 3))
        for threads in (1, 2):
            native.num_threads = threads
            assert_close(native(**inputs), want, getattr(torch, model_dtype), f"{name} {config} N={n} threads={threads}",
                         sums={0: Sum.of(energies)})


@pytest.mark.parametrize("name", real_models.MODELS)
def test_loops_stage_is_canonical(name: str) -> None:
    assert_canonical(compiled(name, "f64")[1].ir("loops"), name)


@pytest.mark.parametrize("name", real_models.MODELS)
def test_package_forces_and_virial(name: str) -> None:
    """The model's own gradient path (`do_derivatives=True`, as nequip deploys it): energy,
    forces and virial, float64."""
    fn = real_models.package_outputs(name, "float64")
    start = time.perf_counter()
    native = compile(fn, real_models.inputs(TRACE_ATOMS, torch.float64, 0), real_models.dynamic_shapes)
    print(f"{name} package outputs: compiled in {time.perf_counter() - start:.1f} s")
    for n in ATOMS:
        inputs = real_models.inputs(n, torch.float64, 3000 + n)
        assert_close(native(**inputs), fn(**inputs), torch.float64, f"{name} N={n} (energy, forces, virial)")
