"""Behler-Parrinello-style atomistic MLP: radial symmetry functions -> per-atom MLP -> sum.

Each atom's environment becomes a fixed-size invariant descriptor (a Gaussian radial basis of
its neighbor distances times a smooth cutoff, summed onto the atom with index_add); an MLP with
tanh maps it to an atomic energy. It is the simplest learned potential, one gather/scatter pair
plus dense layers, so it is the baseline for the scatter -> MLP -> backward-through-index_add
path. It is also the one example that uses torch.linalg.vector_norm (whose backward decomposes
with an in-place copy_); the others use sqrt of a sum of squares.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

try:
    from . import common
except ImportError:  # executed as a script from inside examples/
    import common

N = torch.export.Dim("N", min=1)  # atoms
E = torch.export.Dim("E", min=0)  # edges: a lone atom has none
DEFAULT_ATOMS = 32


class BehlerParrinello(nn.Module):
    def __init__(self, n_rbf: int = 16, hidden: int = 64) -> None:
        super().__init__()
        self.rbf = common.GaussianRBF(n_rbf)
        self.mlp = nn.Sequential(
            nn.Linear(n_rbf, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )

    def forward(self, pos: Tensor, edge_index: Tensor) -> Tensor:
        r = torch.linalg.vector_norm(common.edge_vectors(pos, edge_index), dim=-1)
        g = self.rbf(r) * common.cosine_cutoff(r)[:, None]  # (E, n_rbf)
        desc = torch.zeros(pos.shape[0], g.shape[1], dtype=pos.dtype).index_add(0, edge_index[0], g)
        return self.mlp(desc).sum()


def energy_forces(dtype: torch.dtype = torch.float32) -> Callable[..., tuple[Tensor, Tensor]]:
    return common.make_energy_forces(common.build(BehlerParrinello, dtype))


def inputs(n_atoms: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> dict[str, Tensor]:
    pos, edge_index = common.random_system(n_atoms, dtype=dtype, seed=seed)
    return {"pos": pos, "edge_index": edge_index}


dynamic_shapes: dict[str, dict[int, torch.export.Dim] | None] = {"pos": {0: N}, "edge_index": {1: E}}


def training_step(dtype: torch.dtype = torch.float32) -> Callable[..., tuple[Tensor, ...]]:
    return common.make_training_step(common.build(BehlerParrinello, dtype))


def training_inputs(n_atoms: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> dict[str, Tensor]:
    return {**inputs(n_atoms, dtype, seed), **common.references(n_atoms, dtype, seed)}


training_dynamic_shapes: dict[str, dict[int, torch.export.Dim] | None] = {
    **dynamic_shapes, "energy_ref": None, "forces_ref": {0: N}}
