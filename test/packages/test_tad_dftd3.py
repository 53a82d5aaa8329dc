"""tad-dftd3 0.7.0: the DFT-D3(BJ) dispersion energy, `tad_dftd3.dftd3(numbers, positions,
param)` as shipped (its reference C6 table is in the wheel), with PBE's rational-damping
parameters, float64 and float32. It has no neighbor list: all pairs, the coordination
numbers by its counting function, C6 by Gaussian weighting of the reference C6 table.
Positions in Bohr; energy the sum of its per-atom energies, forces by autograd.grad."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, compile_f32_as_exact_as_eager, species

pytest.importorskip("tad_dftd3")

ELEMENTS = (1, 6, 7, 8, 16)
ANGSTROM = 1.8897261246
DYNAMIC = {"numbers": {0: Dim("N", min=2)}, "positions": {0: Dim("N", min=2)}}
DTYPES = [torch.float64, torch.float32]
VARIANTS = ["shipped", "reference_given"]
"""`shipped`: dftd3(...) as its docs call it, which loads the reference C6 table (torch.load)
on every call; `reference_given`: the same with the tables it would load made beforehand and passed
as the arguments it takes (`ref=Reference(...)`, `rcov`, `rvdw`, `r4r2` indexed by the
atomic numbers inside)."""


def energy_forces_of(dtype: torch.dtype, variant: str = "shipped"):
    import tad_dftd3 as d3

    from tad_mctc.data import radii

    given = variant == "reference_given"
    ref = d3.reference.Reference(dtype=dtype) if given else None
    tables = (radii.COV_D3(dtype=dtype), radii.VDW_PAIRWISE(dtype=dtype), d3.data.R4R2(dtype=dtype)) if given else None

    def energy_forces(numbers, positions):
        param = {"s6": positions.new_tensor(1.0), "s8": positions.new_tensor(0.7875),
                 "a1": positions.new_tensor(0.4289), "a2": positions.new_tensor(4.4407)}
        positions = positions.detach().requires_grad_(True)
        energy = d3.dftd3(numbers, positions, param, **({} if tables is None else {
            "ref": ref, "rcov": tables[0][numbers], "rvdw": tables[1][numbers.unsqueeze(-1), numbers.unsqueeze(-2)],
            "r4r2": tables[2][numbers]})).sum()
        (grad,) = torch.autograd.grad(energy, positions)
        return energy, -grad

    return energy_forces


def inputs_of(dtype: torch.dtype):
    def inputs(n: int, seed: int):
        return {"numbers": species(n, seed, ELEMENTS), "positions": cluster(n, seed, spacing=1.6 * ANGSTROM, dtype=dtype)}

    return inputs


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager(dtype):
    check_eager(energy_forces_of(dtype), inputs_of(dtype))


@pytest.mark.parametrize("variant", VARIANTS)
def test_aten_ops(variant):
    check_aten_ops(energy_forces_of(torch.float64, variant), inputs_of(torch.float64)(13, 0), DYNAMIC)


@pytest.mark.parametrize("variant", VARIANTS)
def test_compiled_matches_eager_f64(variant):
    compile_and_compare(energy_forces_of(torch.float64, variant), inputs_of(torch.float64), DYNAMIC, torch.float64)


@pytest.mark.parametrize("variant", VARIANTS)
def test_compiled_f32_is_as_exact_as_eager(variant):
    """Eager float32 forces are 7e-6 to 1e-5 (relative to the largest) from float64 at
    N = 22 and 40 (measured), so eager float32 is no reference at 1e-5: ours are held to
    float64 as eager float32 is."""
    exact = energy_forces_of(torch.float64, variant)

    def exact_of_f32(numbers, positions):
        return exact(numbers, positions.double())

    compile_f32_as_exact_as_eager(energy_forces_of(torch.float32, variant), exact_of_f32, inputs_of(torch.float32), DYNAMIC)
