"""Shared pieces of the example potentials: random atomic systems and the energy/forces wrappers.

`random_system` builds a finite (non-periodic) cluster of atoms and its directed radius graph,
the input every machine-learned interatomic potential consumes. The wrappers turn any
`model(pos, edge_index, *per_atom) -> energy` module into the two functions the compiler
captures: `energy_forces` (forces = -dE/dpos, a first-order autograd.grad) and `training_step`
(a force-matching loss and its gradient w.r.t. the weights, i.e. a double backward).

`protocol(model_cls, ...)` gives an example the six names of a model file that
pipeline/examples.py checks (energy_forces, inputs, dynamic_shapes and their training
variants), so that each example holds only its model and what its inputs add to
(pos, edge_index): species, triplets.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import torch
from torch import Tensor, nn

CUTOFF: float = 5.0  # radius of the neighbor graph and of every smooth cutoff, in length units
MIN_DISTANCE: float = 0.8  # no two atoms of `random_system` are closer than this
N = torch.export.Dim("N", min=1)  # atoms
E = torch.export.Dim("E", min=0)  # edges: a lone atom has none

DynamicShapes = dict[str, dict[int, torch.export.Dim] | None]
"""Argument name -> {dimension: size symbol}, as torch.export and pipeline.compile take them."""


def random_system(
    n_atoms: int, *, dtype: torch.dtype, seed: int, neighbors: float = 30.0
) -> tuple[Tensor, Tensor]:
    """Return `pos` (n, 3) and the directed radius graph `edge_index` (2, E) int64.

    Atoms are a random subset of a simple-cubic lattice, each jittered by less than half of
    (spacing - MIN_DISTANCE), so no pair is closer than MIN_DISTANCE. The spacing gives a
    density of `neighbors` atoms per cutoff sphere (fewer near the cluster surface).
    Both i->j and j->i are listed, sorted by (i, j); there are no self edges.
    """
    gen = torch.Generator().manual_seed(seed)
    side = max(1, math.ceil(n_atoms ** (1.0 / 3.0) - 1e-9))
    fill = n_atoms / side**3  # fraction of lattice sites occupied
    density = neighbors / (4.0 / 3.0 * math.pi * CUTOFF**3)
    spacing = (fill / density) ** (1.0 / 3.0)
    jitter = max(0.0, 0.5 * (spacing - MIN_DISTANCE)) * 0.99

    grid = torch.arange(side, dtype=torch.float64)
    sites = torch.cartesian_prod(grid, grid, grid).reshape(-1, 3)
    chosen = torch.randperm(sites.shape[0], generator=gen)[:n_atoms]
    noise = torch.rand(n_atoms, 3, generator=gen, dtype=torch.float64) * 2.0 - 1.0
    pos = sites[chosen] * spacing + noise * jitter
    edge_index = radius_graph(pos, CUTOFF)
    return pos.to(dtype), edge_index


def radius_graph(pos: Tensor, cutoff: float) -> Tensor:
    """Directed pairs (i, j), i != j, with |pos_j - pos_i| < cutoff, via a cell list.

    Cells have edge `cutoff`, so all partners of an atom lie in its 27 surrounding cells; each
    atom is compared with the (padded) occupants of those cells only: O(N) work and memory.
    """
    n = pos.shape[0]
    if n < 2:
        return torch.zeros(2, 0, dtype=torch.int64)
    rel = pos - pos.min(dim=0).values
    # +1: a ring of empty cells around the box, so neighbor-cell lookups never leave the grid.
    cell3 = torch.floor(rel / cutoff).to(torch.int64) + 1
    dims = cell3.max(dim=0).values + 2
    strides = torch.stack([dims[1] * dims[2], dims[2], torch.ones_like(dims[2])])
    cell = (cell3 * strides).sum(dim=1)

    order = torch.argsort(cell, stable=True)
    cell_sorted = cell[order]
    n_cells = int(dims.prod())
    counts = torch.bincount(cell_sorted, minlength=n_cells)
    starts = torch.cumsum(counts, 0) - counts
    rank = torch.arange(n) - starts[cell_sorted]
    table = torch.full((n_cells, int(counts.max())), -1, dtype=torch.int64)
    table[cell_sorted, rank] = order  # table[c] = atoms in cell c, padded with -1

    offs = torch.arange(-1, 2)
    offsets = (torch.cartesian_prod(offs, offs, offs) * strides).sum(dim=1)  # (27,)
    edges = []
    for chunk in torch.arange(n).split(4096):  # bounds the (chunk, 27 * max_occupancy) buffers
        cand = table[cell[chunk, None] + offsets].reshape(chunk.shape[0], -1)
        valid = cand >= 0
        other = cand.clamp(min=0)
        dist2 = ((pos[other] - pos[chunk, None]) ** 2).sum(dim=-1)
        keep = valid & (other != chunk[:, None]) & (dist2 < cutoff * cutoff)
        row, col = keep.nonzero(as_tuple=True)
        edges.append(torch.stack([chunk[row], other[row, col]]))
    edge_index = torch.cat(edges, dim=1)
    key = edge_index[0] * n + edge_index[1]
    return edge_index[:, torch.argsort(key)]


def cosine_cutoff(r: Tensor, cutoff: float = CUTOFF) -> Tensor:
    """0.5 (cos(pi r / rc) + 1) below rc, 0 above: smooth (C1) so forces stay continuous."""
    fc = 0.5 * (torch.cos(r * (math.pi / cutoff)) + 1.0)
    return torch.where(r < cutoff, fc, torch.zeros_like(fc))


class GaussianRBF(nn.Module):
    """(E,) distances -> (E, n) Gaussians centered on a uniform grid over [0, cutoff].

    The centers are a buffer, so they follow `.to(dtype)` and appear in a captured graph as one
    constant rather than as the arange arithmetic of a linspace.
    """

    centers: Tensor

    def __init__(self, n: int, cutoff: float = CUTOFF) -> None:
        super().__init__()
        self.register_buffer("centers", torch.linspace(0.0, cutoff, n))
        self.gamma = 0.5 / (cutoff / (n - 1)) ** 2

    def forward(self, r: Tensor) -> Tensor:
        return torch.exp(-self.gamma * (r[:, None] - self.centers) ** 2)


def edge_vectors(pos: Tensor, edge_index: Tensor) -> Tensor:
    """(E, 3) vectors from atom edge_index[0] (the center) to atom edge_index[1] (the neighbor)."""
    return pos.index_select(0, edge_index[1]) - pos.index_select(0, edge_index[0])


def build(model_cls: Callable[[], nn.Module], dtype: torch.dtype, seed: int = 0) -> nn.Module:
    """Instantiate with weights from a fixed seed, leaving the global RNG untouched."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return model_cls().to(dtype)


def make_energy_forces(model: nn.Module) -> Callable[..., tuple[Tensor, Tensor]]:
    """fn(pos, edge_index, *per_atom) -> (energy 0-d, forces = -dE/dpos (N, 3))."""

    def energy_forces(pos: Tensor, edge_index: Tensor, *rest: Tensor) -> tuple[Tensor, Tensor]:
        # detach() gives a fresh leaf, which works for real, fake and proxy tensors alike.
        pos = pos.detach().requires_grad_(True)
        energy = model(pos, edge_index, *rest)
        (grad,) = torch.autograd.grad(energy, pos, create_graph=False)
        return energy, -grad

    return energy_forces


def make_training_step(model: nn.Module) -> Callable[..., tuple[Tensor, ...]]:
    """fn(pos, edge_index, *per_atom, energy_ref, forces_ref) -> (loss, *dloss/dparams).

    Force matching differentiates the forces again (create_graph=True): a double backward.
    """
    params = list(model.parameters())

    def training_step(pos: Tensor, edge_index: Tensor, *rest: Tensor) -> tuple[Tensor, ...]:
        *per_atom, energy_ref, forces_ref = rest
        pos = pos.detach().requires_grad_(True)
        energy = model(pos, edge_index, *per_atom)
        (grad,) = torch.autograd.grad(energy, pos, create_graph=True)
        loss = (energy - energy_ref) ** 2 + torch.mean((-grad - forces_ref) ** 2)
        grads = torch.autograd.grad(loss, params)
        return (loss, *grads)

    return training_step


def references(n_atoms: int, dtype: torch.dtype, seed: int) -> dict[str, Tensor]:
    """Random regression targets for a training step: energy_ref (0-d), forces_ref (N, 3)."""
    gen = torch.Generator().manual_seed(seed + 1_000_003)
    return {
        "energy_ref": torch.randn((), generator=gen, dtype=torch.float64).to(dtype),
        "forces_ref": torch.randn(n_atoms, 3, generator=gen, dtype=torch.float64).to(dtype),
    }


def random_species(n_atoms: int, n_species: int, seed: int) -> Tensor:
    """(N,) int64 atom types in [0, n_species)."""
    gen = torch.Generator().manual_seed(seed + 2_000_003)
    return torch.randint(0, n_species, (n_atoms,), generator=gen)


class Protocol(NamedTuple):
    """The names a model file defines (pipeline/examples.py), in the order an example
    unpacks them: `energy_forces, inputs, dynamic_shapes, training_step, training_inputs,
    training_dynamic_shapes = common.protocol(Model)`."""

    energy_forces: Callable[..., Callable[..., tuple[Tensor, Tensor]]]
    """energy_forces(dtype=float32) -> fn(pos, edge_index, *per_atom) -> (energy, forces)"""
    inputs: Callable[..., dict[str, Tensor]]
    """inputs(n_atoms, dtype=float32, seed=0) -> {argument name: tensor}"""
    dynamic_shapes: DynamicShapes
    training_step: Callable[..., Callable[..., tuple[Tensor, ...]]]
    """training_step(dtype=float32) -> fn(..., energy_ref, forces_ref) -> (loss, *dloss/dparams)"""
    training_inputs: Callable[..., dict[str, Tensor]]
    """training_inputs(n_atoms, dtype=float32, seed=0): the inputs and the references"""
    training_dynamic_shapes: DynamicShapes


def protocol(
    model_cls: Callable[[], nn.Module],
    *,
    n_species: int | None = None,
    extra_inputs: Mapping[str, Callable[[Tensor, Tensor], Tensor]] | None = None,
    extra_shapes: Mapping[str, dict[int, torch.export.Dim] | None] | None = None,
) -> Protocol:
    """The model-file protocol of `model_cls()`, weights from seed 0 (`build`).

    Its inputs are `pos` (N, 3) and `edge_index` (2, E) of `random_system`; with `n_species`,
    then `species` (N,) from `random_species`; then each of `extra_inputs`, name ->
    fn(pos, edge_index) -> tensor, with its dynamic dims in `extra_shapes` (same names).
    The training variant adds `energy_ref` and `forces_ref` (`references`).
    """
    extra_inputs, extra_shapes = dict(extra_inputs or {}), dict(extra_shapes or {})
    if set(extra_inputs) != set(extra_shapes):
        raise ValueError(f"extra_inputs {sorted(extra_inputs)} and extra_shapes {sorted(extra_shapes)} "
                         "must name the same arguments")

    def energy_forces(dtype: torch.dtype = torch.float32, **sizes: Any) -> Callable[..., tuple[Tensor, Tensor]]:
        """`sizes`: constructor arguments other than the defaults (widths, depths)."""
        return make_energy_forces(build(functools.partial(model_cls, **sizes), dtype))

    def inputs(n_atoms: int, dtype: torch.dtype = torch.float32, seed: int = 0,
               neighbors: float = 30.0) -> dict[str, Tensor]:
        pos, edge_index = random_system(n_atoms, dtype=dtype, seed=seed, neighbors=neighbors)
        made = {"pos": pos, "edge_index": edge_index}
        if n_species is not None:
            made["species"] = random_species(n_atoms, n_species, seed)
        return {**made, **{name: make(pos, edge_index) for name, make in extra_inputs.items()}}

    dynamic_shapes: DynamicShapes = {"pos": {0: N}, "edge_index": {1: E}}
    if n_species is not None:
        dynamic_shapes["species"] = {0: N}
    dynamic_shapes.update((name, extra_shapes[name]) for name in extra_inputs)

    def training_step(dtype: torch.dtype = torch.float32) -> Callable[..., tuple[Tensor, ...]]:
        return make_training_step(build(model_cls, dtype))

    def training_inputs(n_atoms: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> dict[str, Tensor]:
        return {**inputs(n_atoms, dtype, seed), **references(n_atoms, dtype, seed)}

    training_dynamic_shapes: DynamicShapes = {**dynamic_shapes, "energy_ref": None, "forces_ref": {0: N}}
    return Protocol(energy_forces, inputs, dynamic_shapes, training_step, training_inputs, training_dynamic_shapes)
