"""graph-pes 1.0.2: its EDDP (with the three-body term) and TensorNet, built by their own
constructors with random weights, in float64 and float32, through the package's own
`GraphPESModel.predict(graph, ["energy", "forces"])`: it trims the edges to the model's
cutoff, sums the local energies and takes autograd.grad of the energy for the forces.

A molecule-like cluster of H, C, O: `AtomicGraph.create_with_defaults` with a zero cell
and zero cell offsets, the neighbor list from the test (4 A)."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, radius_graph, species

pytest.importorskip("graph_pes")

CUTOFF = 4.0
ELEMENTS = (1, 6, 8)
DYNAMIC = {"Z": {0: Dim("N", min=2)}, "R": {0: Dim("N", min=2)}, "neighbour_list": {1: Dim("E", min=1)}}
MODELS = ["eddp", "tensornet"]
DTYPES = [torch.float64, torch.float32]
SPECIALIZE = {"eddp": True, "tensornet": False}
"""EDDP builds its three-body triplets in a Python loop over the atoms
(`for i in range(number_of_atoms(graph))`, graph_pes/utils/threebody.py:171), which fixes N:
compiled with specialize=True (static in N, compiled again for each N a call brings). Before:
the unknown-element check at graph_pes/utils/nn.py:700, then the loop. TensorNet passes
with N symbolic (since bdc3c7f+83aea09: nn.Parameter subclasses reach torch as tensors)."""


@functools.cache
def model(name: str, dtype: torch.dtype):
    from graph_pes.models import EDDP, TensorNet

    torch.manual_seed(0)
    if name == "eddp":
        m = EDDP(elements=["H", "C", "O"], cutoff=CUTOFF, features=6, mlp_width=16, mlp_layers=1,
                 three_body_cutoff=3.0, three_body_features=4)
    else:
        m = TensorNet(cutoff=CUTOFF, radial_features=8, channels=8, layers=2)
    return m.to(dtype).eval()


def energy_forces_of(name: str, dtype: torch.dtype):
    pes = model(name, dtype)  # built before tracing

    def energy_forces(Z, R, neighbour_list):
        from graph_pes import AtomicGraph

        graph = AtomicGraph.create_with_defaults(
            Z=Z, R=R, cell=R.new_zeros(3, 3), neighbour_list=neighbour_list,
            neighbour_cell_offsets=R.new_zeros(neighbour_list.shape[1], 3), cutoff=CUTOFF)
        out = pes.predict(graph, ["energy", "forces"])
        return out["energy"].reshape(()), out["forces"]

    return energy_forces


def inputs_of(dtype: torch.dtype):
    def inputs(n: int, seed: int):
        pos = cluster(n, seed, spacing=1.6, jitter=0.2, dtype=dtype)
        return {"Z": species(n, seed, ELEMENTS), "R": pos, "neighbour_list": radius_graph(pos, CUTOFF)}

    return inputs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", MODELS)
def test_eager(name, dtype):
    check_eager(energy_forces_of(name, dtype), inputs_of(dtype))


@pytest.mark.parametrize("name", MODELS)
def test_aten_ops(name):
    dynamic = {"neighbour_list": DYNAMIC["neighbour_list"]} if SPECIALIZE[name] else DYNAMIC  # EDDP: N static
    check_aten_ops(energy_forces_of(name, torch.float64), inputs_of(torch.float64)(13, 0), dynamic)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", MODELS)
def test_compiled_matches_eager(name, dtype):
    compile_and_compare(energy_forces_of(name, dtype), inputs_of(dtype), DYNAMIC, dtype, specialize=SPECIALIZE[name])


def test_eddp_fixes_n_and_says_where():
    """Without specialize, EDDP is refused at the loop that fixes N (not at the data-dependent
    branch the trace meets after it, threebody.py:188)."""
    import pipeline
    from frontend.errors import PinnedSize

    with pytest.raises(PinnedSize, match=r"fixes it to 13 at .*graph_pes/utils/threebody.py:171"):
        pipeline.compile(energy_forces_of("eddp", torch.float64), dict(inputs_of(torch.float64)(13, 0)), DYNAMIC)
