"""Behler-Parrinello-style atomistic MLP: radial symmetry functions -> per-atom MLP -> sum.

Each atom's environment becomes a fixed-size invariant descriptor (a Gaussian radial basis of
its neighbor distances times a smooth cutoff, summed onto the atom with index_add); an MLP with
tanh maps it to an atomic energy. It is the simplest learned potential, one gather/scatter pair
plus dense layers, so it is the baseline for the scatter -> MLP -> backward-through-index_add
path. It is also the one example that uses torch.linalg.vector_norm (whose backward decomposes
with an in-place copy_); the others use sqrt of a sum of squares.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

try:
    from . import common
except ImportError:  # executed as a script from inside examples/
    import common

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


# The names of a model file (pipeline/examples.py): the function, its inputs and their
# symbolic sizes, and the same for a training step.
energy_forces, inputs, dynamic_shapes, training_step, training_inputs, training_dynamic_shapes = common.protocol(
    BehlerParrinello)
