"""Lennard-Jones pair potential over the neighbor list, with sigma and epsilon learnable.

E = 1/2 sum over directed edges of 4 eps [(sigma/r)^12 - (sigma/r)^6] * S(r), where S is a
quintic switch from 1 at R_ON to 0 at the cutoff, so energy and forces go smoothly to zero.
The classical baseline: no gather of features, no matmul, only pairwise elementwise math and
the scatter of the backward; its training step has exactly two (0-d) parameter gradients.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

try:
    from . import common
except ImportError:  # executed as a script from inside examples/
    import common

DEFAULT_ATOMS = 32
R_ON = 0.8 * common.CUTOFF  # start of the switching region


def switch(r: Tensor, r_on: float = R_ON, r_off: float = common.CUTOFF) -> Tensor:
    """1 - 10x^3 + 15x^4 - 6x^5 with x = (r - r_on) / (r_off - r_on) clamped to [0, 1]: C2."""
    x = torch.clamp((r - r_on) / (r_off - r_on), 0.0, 1.0)
    return 1.0 - x**3 * (10.0 - 15.0 * x + 6.0 * x**2)


class LennardJones(nn.Module):
    def __init__(self, epsilon: float = 1.0, sigma: float = 1.0) -> None:
        super().__init__()
        self.epsilon = nn.Parameter(torch.tensor(epsilon))
        self.sigma = nn.Parameter(torch.tensor(sigma))

    def forward(self, pos: Tensor, edge_index: Tensor) -> Tensor:
        r2 = (common.edge_vectors(pos, edge_index) ** 2).sum(dim=-1)
        sr6 = (self.sigma**2 / r2) ** 3
        pair = 4.0 * self.epsilon * (sr6 * sr6 - sr6) * switch(torch.sqrt(r2))
        return 0.5 * pair.sum()


# The names of a model file (pipeline/examples.py): the function, its inputs and their
# symbolic sizes, and the same for a training step.
energy_forces, inputs, dynamic_shapes, training_step, training_inputs, training_dynamic_shapes = common.protocol(
    LennardJones)
