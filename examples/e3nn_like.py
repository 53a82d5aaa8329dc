"""A hand-written E(3)-equivariant tensor-product layer in the style of e3nn / NequIP.

Each edge carries real spherical harmonics Y_l(r_ij / |r_ij|) for l = 0, 1, 2 (component
normalization: sum_m Y_lm^2 = 2l + 1). A radial MLP on the Gaussian expansion of |r_ij|
gives per-edge, per-l, per-channel weights; the tensor product of the neighbor's scalar
features (N, 8) with Y_l (an einsum) yields l = 0, 1, 2 edge features that are summed onto
the center atom and mixed across channels by an equivariant linear layer (an einsum that
lowers to bmm, one (C, C) matrix per l). Rotation invariants (the l = 0 part and sum over m of
the squares of the l = 1 and l = 2 parts) feed an MLP that gives atomic energies.
It is here for the angular math, einsum and the (E, C, 2l+1) irreps layout of equivariant
potentials, with none of e3nn's machinery.
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
L_OF_M = (0, 1, 1, 1, 2, 2, 2, 2, 2)  # degree l of each of the 9 spherical-harmonic components


def spherical_harmonics(vec: Tensor) -> Tensor:
    """(E, 3) vectors -> (E, 9) real spherical harmonics l <= 2 of their directions (e3nn order)."""
    r = torch.sqrt((vec**2).sum(dim=-1, keepdim=True))
    x, y, z = (vec / r).unbind(dim=-1)
    s3, s5, s15 = math.sqrt(3.0), math.sqrt(5.0), math.sqrt(15.0)
    return torch.stack([
        torch.ones_like(x),
        s3 * x, s3 * y, s3 * z,
        s15 * x * z, s15 * x * y, s5 * (y**2 - 0.5 * (x**2 + z**2)), s15 * y * z, 0.5 * s15 * (z**2 - x**2),
    ], dim=-1)


class TensorProductModel(nn.Module):
    l_of_m: Tensor

    def __init__(self, channels: int = 8, n_rbf: int = 16, hidden: int = 32) -> None:
        super().__init__()
        self.channels = channels
        self.embedding = nn.Embedding(N_SPECIES, channels)
        self.rbf = common.GaussianRBF(n_rbf)
        self.radial1 = nn.Linear(n_rbf, hidden)
        self.radial2 = nn.Linear(hidden, 3 * channels)  # one weight per (l, channel)
        self.register_buffer("l_of_m", torch.tensor(L_OF_M), persistent=False)
        # Equivariant linear layer: mixes channels with one (C, C) matrix per l, shared over m.
        self.mix = nn.Parameter(torch.randn(3, channels, channels) / math.sqrt(channels))
        self.out1 = nn.Linear(4 * channels, hidden)
        self.out2 = nn.Linear(hidden, 1)

    def forward(self, pos: Tensor, edge_index: Tensor, species: Tensor) -> Tensor:
        vec = common.edge_vectors(pos, edge_index)
        r = torch.sqrt((vec**2).sum(dim=-1))
        sh = spherical_harmonics(vec)  # (E, 9)
        radial = self.radial2(F.silu(self.radial1(self.rbf(r)))) * common.cosine_cutoff(r)[:, None]
        radial = radial.view(-1, 3, self.channels).index_select(1, self.l_of_m)  # (E, 9, C)
        s = self.embedding(species)  # (N, C) scalar features
        weighted = radial * s.index_select(0, edge_index[1])[:, None, :]  # (E, 9, C)
        edge_feat = torch.einsum("emc,em->ecm", weighted, sh)  # (E, C, 9): l = 0, 1, 2 irreps
        atom_feat = torch.zeros(pos.shape[0], self.channels, 9, dtype=pos.dtype)
        atom_feat = atom_feat.index_add(0, edge_index[0], edge_feat)
        mix = self.mix.index_select(0, self.l_of_m)  # (9, C, C)
        atom_feat = torch.einsum("ncm,mcd->ndm", atom_feat, mix)  # a batched matmul over m
        invariants = torch.cat([
            s,
            atom_feat[:, :, 0],
            (atom_feat[:, :, 1:4] ** 2).sum(dim=-1),
            (atom_feat[:, :, 4:9] ** 2).sum(dim=-1),
        ], dim=-1)  # (N, 4C)
        return self.out2(F.silu(self.out1(invariants))).sum()


# The names of a model file (pipeline/examples.py): the function, its inputs and their
# symbolic sizes, and the same for a training step.
energy_forces, inputs, dynamic_shapes, training_step, training_inputs, training_dynamic_shapes = common.protocol(
    TensorProductModel, n_species=N_SPECIES)
