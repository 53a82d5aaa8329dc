"""Potentials for molecular dynamics: per-atom energies from species, positions and edges.

Both models follow the protocol of `pipeline.compile_potential`:
`model(species[N], positions[N, 3], edge_index[2, E], shifts[E, 3]) -> energies[N]`,
with edge vectors `positions[j] - positions[i] + shifts` (shifts: Cartesian periodic
images), so they run in periodic cells, in ASE and in LAMMPS alike.

- `PairPotential`: Lennard-Jones with per-species-pair epsilon and sigma and a C2 switch
  to zero at the cutoff; strictly local (one layer).
- `MessagePassing`: SchNet-like, two continuous-filter interaction layers: an atom's energy
  depends on atoms up to 2 x cutoff away, which is what an MD engine's ghost shell must cover.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

try:
    from . import common
    from .lennard_jones import switch
except ImportError:  # executed as a script from inside examples/
    import common
    from lennard_jones import switch

CUTOFF = 5.0
SPECIES = ("Ar", "Kr")


def edge_vectors(positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
    """(E, 3) vectors from the center edge_index[0] to the neighbor edge_index[1], image shift included."""
    return positions.index_select(0, edge_index[1]) - positions.index_select(0, edge_index[0]) + shifts


def per_atom(values: Tensor, centers: Tensor, n_atoms: int) -> Tensor:
    """Sum edge values onto their center atoms: (E,) -> (N,)."""
    return values.new_zeros(n_atoms).index_add(0, centers, values)


class PairPotential(nn.Module):
    """E_i = 1/2 sum_j 4 eps_ab [(sigma_ab/r)^12 - (sigma_ab/r)^6] S(r), a, b the species of i, j."""

    def __init__(self, cutoff: float = CUTOFF, n_species: int = len(SPECIES)) -> None:
        super().__init__()
        grid = torch.arange(n_species, dtype=torch.float32)
        mix = (grid[:, None] + grid[None, :]) / 2  # symmetric: E_ij = E_ji
        self.epsilon = nn.Parameter(0.0104 * (1.0 + 0.5 * mix))  # eV, argon-like
        self.sigma = nn.Parameter(2.0 + 0.2 * mix)  # Angstrom: cutoff = 2.5 sigma
        self.cutoff = cutoff

    def forward(self, species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        r2 = (edge_vectors(positions, edge_index, shifts) ** 2).sum(dim=-1)
        pair = species.index_select(0, edge_index[0]) * self.sigma.shape[0] + species.index_select(0, edge_index[1])
        eps = self.epsilon.reshape(-1).index_select(0, pair)
        sigma = self.sigma.reshape(-1).index_select(0, pair)
        sr6 = (sigma**2 / r2) ** 3
        e = 4.0 * eps * (sr6 * sr6 - sr6) * switch(torch.sqrt(r2), 0.8 * self.cutoff, self.cutoff)
        return per_atom(0.5 * e, edge_index[0], positions.shape[0])


def shifted_softplus(x: Tensor) -> Tensor:
    return F.softplus(x) - math.log(2.0)


class Interaction(nn.Module):
    """x_i += g(sum_j x_j * W(r_ij)): one message-passing layer."""

    def __init__(self, features: int, n_rbf: int) -> None:
        super().__init__()
        self.filter = nn.Sequential(nn.Linear(n_rbf, features), nn.Tanh(), nn.Linear(features, features))
        self.update = nn.Sequential(nn.Linear(features, features), nn.Tanh(), nn.Linear(features, features))

    def forward(self, x: Tensor, rbf: Tensor, fc: Tensor, edge_index: Tensor) -> Tensor:
        msg = x.index_select(0, edge_index[1]) * self.filter(rbf) * fc[:, None]
        return x + self.update(torch.zeros_like(x).index_add(0, edge_index[0], msg))


class MessagePassing(nn.Module):
    """Species embedding, two interaction layers, an atom-wise readout: E_i = readout(x_i)."""

    def __init__(self, cutoff: float = CUTOFF, features: int = 16, n_rbf: int = 8, layers: int = 2) -> None:
        super().__init__()
        self.embedding = nn.Embedding(len(SPECIES), features)
        self.rbf = common.GaussianRBF(n_rbf, cutoff)
        self.layers = nn.ModuleList(Interaction(features, n_rbf) for _ in range(layers))
        self.readout = nn.Sequential(nn.Linear(features, features), nn.Tanh(), nn.Linear(features, 1))
        self.cutoff = cutoff

    def forward(self, species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        r = torch.sqrt((edge_vectors(positions, edge_index, shifts) ** 2).sum(dim=-1))
        rbf, fc = self.rbf(r), common.cosine_cutoff(r, self.cutoff)
        x = self.embedding(species)
        for layer in self.layers:
            x = layer(x, rbf, fc, edge_index)
        return 0.1 * self.readout(x).squeeze(-1)


MODELS = {"pair": (PairPotential, 1), "message_passing": (MessagePassing, 2)}
"""name -> (class, message-passing layers)."""


def build(name: str, dtype: torch.dtype = torch.float64, seed: int = 0) -> nn.Module:
    """The model `name` with weights from a fixed seed (the global RNG untouched)."""
    return common.build(MODELS[name][0], dtype, seed)
