"""TorchANI (torchani 2.9.0): an ANI-style model from the package's own builder
`torchani.arch.simple_ani` (H, C, N, O; ANI-2x-like AEVs, the xTB repulsion term, one
network per element, random weights: ANI-2x's pretrained weights download at run time),
in float64 and float32. The model builds its own neighbor list (`all_pairs`: a cutoff mask
of all pairs, a data-dependent number of pairs) and its angular triples."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import TOLERANCE, check_aten_ops, check_eager, cluster, compile_and_compare, relative_error, species

pytest.importorskip("torchani")

ELEMENTS = (1, 6, 7, 8)
DYNAMIC = {"pos": {0: Dim("N", min=2)}, "atomic_numbers": {0: Dim("N", min=2)}}
# As shipped, passes since 9027961: `if selected_idxs.shape[0] > 0:` (torchani/nn/_containers.py:447, a
# branch on how many atoms of an element there are) is speculated on (frontend/speculation.py), and
# torch.unique (aten._unique2) decomposes. Before: GuardOnDataDependentSymNode there.


@functools.cache
def model(dtype: torch.dtype):
    from torchani.arch import simple_ani

    torch.manual_seed(0)
    return simple_ani(["H", "C", "N", "O"], "wb97x-631gd", ensemble_size=1, strategy="pyaev").to(dtype).eval()


def energy_forces_of(dtype: torch.dtype):
    ani = model(dtype)  # built before tracing

    def energy_forces(pos, atomic_numbers):
        pos = pos.detach().requires_grad_(True)
        energy = ani((atomic_numbers[None], pos[None])).energies.sum()
        (grad,) = torch.autograd.grad(energy, pos)
        return energy, -grad

    return energy_forces


def inputs_of(dtype: torch.dtype):
    def inputs(n: int, seed: int):
        return {"pos": cluster(n, seed, spacing=1.6, jitter=0.2, dtype=dtype), "atomic_numbers": species(n, seed, ELEMENTS)}

    return inputs


DTYPES = [torch.float64, torch.float32]


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager(dtype):
    check_eager(energy_forces_of(dtype), inputs_of(dtype))


def test_aten_ops():
    check_aten_ops(energy_forces_of(torch.float64), inputs_of(torch.float64)(13, 0), DYNAMIC)


@pytest.mark.parametrize("dtype", DTYPES)
def test_compiled_matches_eager(dtype):
    compile_and_compare(energy_forces_of(dtype), inputs_of(dtype), DYNAMIC, dtype)


def test_an_element_absent_takes_the_other_side():
    """Traced with all four elements; a cluster of H and C only takes the other side of the
    per-element branch: compiled again, and equal to eager."""
    import pipeline

    fn, inputs = energy_forces_of(torch.float64), inputs_of(torch.float64)
    compiled = pipeline.compile(fn, inputs(13, 0), DYNAMIC)
    hc = {"pos": cluster(17, 4, spacing=1.6, jitter=0.2), "atomic_numbers": species(17, 4, (1, 6))}
    with pytest.warns(RuntimeWarning, match="compiling again"):
        got = compiled(**hc)
    for g, w in zip(got, fn(**hc)):
        assert relative_error(g, w) <= TOLERANCE[torch.float64]
