"""SchNet-style message-passing network (Schütt et al. 2017), two interaction blocks.

Atoms start from a species embedding; each interaction block builds continuous filters from a
Gaussian expansion of edge lengths (filter MLP, times a cosine cutoff), multiplies them into
the neighbors' features gathered with index_select, sums the messages onto the center atom
with index_add, and updates the features residually. An atom-wise MLP reads out the energy.
It is here as the canonical continuous-filter convolution: gathers and scatters of (E, F)
feature blocks between dense layers, with an integer per-atom input (species).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

try:
    from . import common
except ImportError:  # executed as a script from inside examples/
    import common

DEFAULT_ATOMS = 32
N_SPECIES = 5


def shifted_softplus(x: Tensor) -> Tensor:
    """softplus(x) - log 2: SchNet's activation, zero at the origin."""
    return F.softplus(x) - math.log(2.0)


class Interaction(nn.Module):
    """Continuous-filter convolution x_i += g(sum_j x_j * W(r_ij)) over the edges (i, j)."""

    def __init__(self, features: int, n_rbf: int) -> None:
        super().__init__()
        self.filter1 = nn.Linear(n_rbf, features)
        self.filter2 = nn.Linear(features, features)
        self.in2f = nn.Linear(features, features, bias=False)
        self.f2out = nn.Linear(features, features)
        self.dense = nn.Linear(features, features)

    def forward(self, x: Tensor, rbf: Tensor, fc: Tensor, edge_index: Tensor) -> Tensor:
        w = self.filter2(shifted_softplus(self.filter1(rbf))) * fc[:, None]  # (E, F)
        msg = self.in2f(x).index_select(0, edge_index[1]) * w
        agg = torch.zeros_like(x).index_add(0, edge_index[0], msg)
        return x + self.dense(shifted_softplus(self.f2out(agg)))


class SchNet(nn.Module):
    def __init__(self, features: int = 32, n_rbf: int = 20, n_blocks: int = 2) -> None:
        super().__init__()
        self.embedding = nn.Embedding(N_SPECIES, features)
        self.rbf = common.GaussianRBF(n_rbf)
        self.blocks = nn.ModuleList(Interaction(features, n_rbf) for _ in range(n_blocks))
        self.out1 = nn.Linear(features, features // 2)
        self.out2 = nn.Linear(features // 2, 1)

    def forward(self, pos: Tensor, edge_index: Tensor, species: Tensor) -> Tensor:
        r = torch.sqrt((common.edge_vectors(pos, edge_index) ** 2).sum(dim=-1))
        rbf, fc = self.rbf(r), common.cosine_cutoff(r)
        x = self.embedding(species)
        for block in self.blocks:
            x = block(x, rbf, fc, edge_index)
        return self.out2(F.silu(self.out1(x))).sum()


# The names of a model file (pipeline/examples.py): the function, its inputs and their
# symbolic sizes, and the same for a training step.
energy_forces, inputs, dynamic_shapes, training_step, training_inputs, training_dynamic_shapes = common.protocol(
    SchNet, n_species=N_SPECIES)
