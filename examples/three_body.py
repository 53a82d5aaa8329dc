"""A three-body potential in the style of M3GNet: angles between pairs of edges that share
an atom update the edges, the edges update the atoms, for two blocks.

Triplets are pairs of distinct edges (i->j, i->k) with the same center atom i, both shorter
than a three-body cutoff: `triplets[0]` and `triplets[1]` index the edges (T of them, a
third symbolic size beside N and E). Per triplet, cos(theta_jik) from the two edge vectors
expands in powers, is weighted by a smooth cutoff of the second edge and gated by the
features of atom k; the terms are summed into the first edge, the edge terms into atoms.
Its graph holds what single-level models lack: data read by several consumers at two
levels of scatters (T -> E -> N), gathers through gathers (atom k of edge e2 of triplet t)
and per-edge dense layers on both sides of them.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

try:
    from . import common
except ImportError:  # executed as a script from inside examples/
    import common

T = torch.export.Dim("T", min=0)  # triplets: pairs of edges around one atom
DEFAULT_ATOMS = 32
THREE_BODY_CUTOFF = 0.6 * common.CUTOFF
FEATURES = 16
ANGULAR = 4  # powers of cos(theta): 1, c, c^2, c^3


class GatedLinear(nn.Module):
    """M3GNet's gated dense layer: (x W1 + b1) * sigmoid(x W2 + b2), two matmuls of one input."""

    def __init__(self, inputs: int) -> None:
        super().__init__()
        self.value = nn.Linear(inputs, FEATURES)
        self.gate = nn.Linear(inputs, FEATURES)

    def forward(self, x: Tensor) -> Tensor:
        return self.value(x) * torch.sigmoid(self.gate(x))


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.angular = nn.Linear(ANGULAR, FEATURES, bias=False)
        self.gate = nn.Linear(FEATURES, FEATURES)
        self.bond = GatedLinear(FEATURES)
        self.edge = GatedLinear(3 * FEATURES)
        self.atom = GatedLinear(3 * FEATURES)

    def forward(self, x: Tensor, h: Tensor, vec: Tensor, r: Tensor, edge_index: Tensor, triplets: Tensor) -> tuple[Tensor, Tensor]:
        e1, e2 = triplets[0], triplets[1]
        cos = (vec[e1] * vec[e2]).sum(-1) / (r[e1] * r[e2])
        powers = torch.stack([torch.ones_like(cos), cos, cos**2, cos**3], dim=-1)
        k = edge_index[1][e2]
        fc = common.cosine_cutoff(r[e2], THREE_BODY_CUTOFF)
        t = self.angular(powers) * torch.sigmoid(self.gate(x[k])) * fc[:, None]
        h = h + self.bond(torch.zeros_like(h).index_add(0, e1, t))
        i, j = edge_index[0], edge_index[1]
        h = h + self.edge(torch.cat([x[i], x[j], h], dim=-1))
        messages = self.atom(torch.cat([x[i], x[j], h], dim=-1)) * common.cosine_cutoff(r)[:, None]
        x = x + torch.zeros_like(x).index_add(0, i, messages)
        return x, h


class ThreeBody(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rbf = common.GaussianRBF(FEATURES)
        self.embed = nn.Linear(FEATURES, FEATURES)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.readout = nn.Linear(FEATURES, 1)

    def forward(self, pos: Tensor, edge_index: Tensor, triplets: Tensor) -> Tensor:
        vec = common.edge_vectors(pos, edge_index)
        r = torch.sqrt((vec**2).sum(-1))
        h = torch.tanh(self.embed(self.rbf(r)))
        x = torch.zeros(pos.shape[0], FEATURES, dtype=pos.dtype).index_add(0, edge_index[0], h)
        for block in self.blocks:
            x, h = block(x, h, vec, r, edge_index, triplets)
        return self.readout(x).sum()


def triplets_of(pos: Tensor, edge_index: Tensor, cutoff: float = THREE_BODY_CUTOFF) -> Tensor:
    """(2, T) int64: every ordered pair of distinct edges shorter than `cutoff` that leave
    the same atom (edge_index sorted by its first row, as `common.radius_graph` gives it)."""
    r = (pos[edge_index[1]] - pos[edge_index[0]]).norm(dim=-1)
    short = torch.nonzero(r < cutoff).squeeze(1)
    centers = edge_index[0][short]
    counts = torch.bincount(centers, minlength=pos.shape[0])
    starts = torch.cumsum(counts, 0) - counts
    reps = counts[centers]
    first = short.repeat_interleave(reps)
    offset = torch.arange(first.shape[0]) - (torch.cumsum(reps, 0) - reps).repeat_interleave(reps)
    second = short[starts[centers].repeat_interleave(reps) + offset]
    keep = first != second
    return torch.stack([first[keep], second[keep]])


# The names of a model file (pipeline/examples.py): the function, its inputs and their
# symbolic sizes, and the same for a training step.
energy_forces, inputs, dynamic_shapes, training_step, training_inputs, training_dynamic_shapes = common.protocol(
    ThreeBody, extra_inputs={"triplets": triplets_of}, extra_shapes={"triplets": {1: T}})
