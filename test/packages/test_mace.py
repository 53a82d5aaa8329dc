"""MACE (mace-torch 0.3.16) from its model file: `pipeline.load_potential("x.model")`.

A small `ScaleShiftMACE` (O and Si, r_max 4.5 A, 2 interactions, hidden irreps
8x0e + 8x1o, max_ell 2, correlation 2, random weights from seed 0) is built with mace's
own constructors under its dtype, as mace's training builds it, and `torch.save`d as
training writes `NAME.model`. `load_potential` compiles it (`pipeline.md.adapters.mace`);
the compiled potential, in process and as the exported `.so` loaded back, is compared
through `pipeline.md.ase.Calculator` with mace's own `MACECalculator(model_paths=file)`
on rattled diamond Si (64 and 96 atoms): energy, forces, stress.

float64: within the house tolerance (1e-10 relative to the largest element). float32:
both computations round in float32 in their own orders, so each is compared with mace's
calculator on the same file converted to float64 (`default_dtype="float64"`); ours must
be within 1e-5 of it, or no further than twice mace's own float32 result is (measured:
forces ~1.7e-5 for both, energy and stress < 1e-6); `-s` prints the figures.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import torch

from common import error, results, silicon
from conftest import TOLERANCE

pytest.importorskip("mace")
pytest.importorskip("vesin", reason="pipeline.md.ase's neighbour list")


from pipeline.md.adapters import AdapterError  # noqa: E402
from pipeline.md.ase import Calculator  # noqa: E402
from pipeline.md.load import load_potential  # noqa: E402

CUTOFF = 4.5
CELLS = [(2, 2, 2), (2, 2, 3)]  # 64 and 96 atoms
PROPERTIES = ("energy", "forces", "stress")


def build(dtype: torch.dtype) -> torch.nn.Module:
    """A small ScaleShiftMACE from mace's constructors, under `dtype` as the default dtype."""
    from e3nn import o3
    from mace import modules

    interaction = modules.interaction_classes["RealAgnosticResidualInteractionBlock"]
    default = torch.get_default_dtype()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        torch.set_default_dtype(dtype)
        try:
            return modules.ScaleShiftMACE(
                r_max=CUTOFF, num_bessel=8, num_polynomial_cutoff=5, max_ell=2,
                interaction_cls=interaction, interaction_cls_first=interaction, num_interactions=2,
                num_elements=2, atomic_numbers=[8, 14], atomic_energies=np.array([-1.5, -4.0]),
                hidden_irreps=o3.Irreps("8x0e + 8x1o"), MLP_irreps=o3.Irreps("16x0e"),
                avg_num_neighbors=16.0, correlation=2, gate=torch.nn.functional.silu,
                radial_MLP=[16, 16], atomic_inter_scale=1.3, atomic_inter_shift=0.1,
            )
        finally:
            torch.set_default_dtype(default)


@pytest.fixture(scope="module", params=[torch.float64, torch.float32], ids=["float64", "float32"])
def loaded(request, tmp_path_factory) -> tuple[torch.dtype, Path, dict]:
    """(dtype, the .model file, {"in-process": compiled potential, "library": its .so loaded back})."""
    dtype = request.param
    root = tmp_path_factory.mktemp(f"mace_{str(dtype)[6:]}")
    path = root / "si_o.model"
    torch.save(build(dtype), path)
    start = time.perf_counter()
    potential = load_potential(str(path))
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    library = potential.export(root / "lib", name="mace_si_o")
    exported = time.perf_counter() - start
    print(f"\nmace {dtype}: load_potential (compile) {compiled:.1f} s, export {exported:.1f} s")
    return dtype, path, {"in-process": potential, "library": load_potential(str(library))}


def test_adapter_reads_the_file(loaded) -> None:
    from pipeline.md.adapters.mace import adapt

    dtype, path, _ = loaded
    a = adapt(str(path), None)
    assert (a.species, a.cutoff, a.layers, a.dtype, a.name) == (("O", "Si"), CUTOFF, 2, dtype, "mace_si_o")
    assert adapt(str(path), torch.float64).dtype == torch.float64
    with pytest.raises(AdapterError, match="not a MACE energy model"):
        torch.save({"weights": torch.zeros(2)}, path.parent / "other.model")
        adapt(str(path.parent / "other.model"), None)


@pytest.mark.parametrize("which", ["in-process", "library"])
def test_matches_mace_calculator(loaded, which: str) -> None:
    from mace.calculators import MACECalculator

    dtype, path, potentials = loaded
    calc = Calculator(potentials[which])
    own = MACECalculator(model_paths=str(path), device="cpu")
    own64 = MACECalculator(model_paths=str(path), device="cpu", default_dtype="float64")
    for k, repeat in enumerate(CELLS):
        atoms = silicon(repeat, seed=k + 1)
        got, want, exact = results(atoms, calc), results(atoms, own), results(atoms, own64)
        for p in PROPERTIES:
            err = error(got[p], want[p])
            print(f"mace {dtype} {which} {len(atoms)} atoms {p}: {err:.1e} vs MACECalculator"
                  + (f", {error(got[p], exact[p]):.1e} vs its float64 (MACECalculator float32: "
                     f"{error(want[p], exact[p]):.1e})" if dtype == torch.float32 else ""))
            if dtype == torch.float64:
                assert err <= TOLERANCE[dtype], (repeat, p, err)
            else:
                bound = max(TOLERANCE[dtype], 2 * error(want[p], exact[p]))
                assert error(got[p], exact[p]) <= bound, (repeat, p, error(got[p], exact[p]), bound)


def test_the_symmetric_contraction_skips_the_zeros_of_its_u_matrices(loaded) -> None:
    """MACE's U matrices are buffers, ~1 % nonzero: their contractions (through the
    per-element weights) are unrolled over their nonzero terms (sparse-contractions);
    the comparisons above check the numbers."""
    _, _, potentials = loaded
    fused = potentials["in-process"].compiled.ir("fused")
    assert "nonzeros = array<i64:" in potentials["in-process"].compiled.ir("aten")
    assert fused.count("te.sparse_dims") >= 4, "the symmetric contractions of both interactions"
