"""The inputs a case runs on: small clusters of atoms, and the empty, degenerate and
out-of-range inputs every compiled program must get right.

The fuzzer draws its own clusters (it imports nothing from bench/ or examples/): a
jittered cubic lattice, so that no two atoms are close enough for a distance to
divide by nearly 0, with every pair within CUTOFF as an edge and every pair of edges
leaving an atom as a triplet. The sizes run (SIZES) are never the size traced
(TRACE_ATOMS): a size specialised at trace time shows as wrong numbers.
"""

from __future__ import annotations

import math

import torch

TRACE_ATOMS = 11
SIZES = (5, 17, 40)  # atoms at which a compiled program is run (none is traced)

CUTOFF = 2.5
"""The radius of the graph: about 6 neighbors an atom on the lattice below."""


def system(n: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Positions, edges and triplets (every ordered pair of distinct edges leaving one atom)
    of a small cluster: atoms on random sites of a cubic lattice of spacing 1.6, each moved
    by less than 0.3 along each axis, so no two are closer than 1 (no r near 0 to divide
    by). Edges are every directed pair within CUTOFF, sorted by their first atom; sizes are
    the fuzzer's (at most a few dozen atoms), so all pairs are compared."""
    g = torch.Generator().manual_seed(seed)
    side = max(1, math.ceil(n ** (1 / 3) - 1e-9))
    grid = torch.arange(side, dtype=torch.float64)
    sites = torch.cartesian_prod(grid, grid, grid).reshape(-1, 3)[torch.randperm(side**3, generator=g)[:n]]
    pos = 1.6 * sites + 0.3 * (2 * torch.rand(n, 3, generator=g, dtype=torch.float64) - 1)
    i, j = torch.nonzero((torch.cdist(pos, pos) < CUTOFF) & ~torch.eye(n, dtype=torch.bool)).T
    edges = i.shape[0]
    a, b = torch.nonzero((i[:, None] == i[None, :]) & ~torch.eye(edges, dtype=torch.bool)).T
    return pos.to(dtype), torch.stack([i, j]), torch.stack([a, b])


def degenerate_systems(dtype: torch.dtype) -> dict[str, dict[str, torch.Tensor]]:
    """Empty and degenerate inputs, all valid (every index in range)."""
    g = torch.Generator().manual_seed(7)
    none = torch.zeros(2, 0, dtype=torch.int64)

    def atoms(n: int) -> torch.Tensor:
        return (2 * torch.randn(n, 3, generator=g, dtype=torch.float64)).to(dtype)

    pos, edge_index, _ = system(5, dtype, 5)
    # No coordinate 0 (nor two equal): the pair's two edges cancel exactly, so a sum of its
    # edge vectors is 0 in exact arithmetic, and max(pos, that sum) would tie at a
    # coordinate 0, where the gradient is a matter of rounding (eager's sum is 1e-17).
    pair = torch.tensor([[0.37, -0.52, 0.21], [1.1, 0.3, -0.2]], dtype=dtype)
    return {
        "N=0 E=0 T=0": dict(pos=atoms(0), edge_index=none, triplets=none),
        "N=1 E=0 T=0 (one atom)": dict(pos=atoms(1), edge_index=none, triplets=none),
        "N=4 E=0 T=0": dict(pos=atoms(4), edge_index=none, triplets=none),
        "N=2 E=2 T=0": dict(pos=pair, edge_index=torch.tensor([[0, 1], [1, 0]]), triplets=none),
        f"N=5 E={edge_index.shape[1]} T=0": dict(pos=pos, edge_index=edge_index, triplets=none),
    }


def bad_index_systems(dtype: torch.dtype) -> dict[str, dict[str, torch.Tensor]]:
    """Inputs whose `edge_index` holds an index out of range: a call must raise
    IndexError (status PIPELINE_ERROR_INDEX from the library) naming `edge_index`."""
    pos, edge_index, triplets = system(5, dtype, 5)
    broken = edge_index.clone()
    broken[1, 0] = pos.shape[0]
    none = torch.zeros(2, 0, dtype=torch.int64)
    return {
        "N=0 E=2 (edge_index out of range)": dict(pos=torch.zeros(0, 3, dtype=dtype),
                                                  edge_index=torch.tensor([[0, 0], [0, 0]]), triplets=none),
        f"N=5 E={edge_index.shape[1]} with edge_index[1, 0] = 5": dict(pos=pos, edge_index=broken, triplets=triplets),
    }
