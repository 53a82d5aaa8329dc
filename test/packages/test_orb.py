"""Orb (orb-models 0.5.5): the orb-v3 conservative architecture from the package's own
`orb_v3_conservative_architecture` (pretrained weights download at run time: here a small
one, latent 32, MLPs 64 wide, 2 message-passing steps, random weights; radius 6 A, pair
repulsion on), float32 and float64, through its own `predict` (its forces are
autograd.grad of the energy with respect to the positions, `grad_forces`).

A molecule-like cluster; the `AtomGraphs` that `ase_atoms_to_atom_graphs` builds, made from
tensors (zero cell and shifts, one graph: n_node [N], n_edge [E])."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, radius_graph, species

pytest.importorskip("orb_models")

RADIUS = 6.0
ELEMENTS = (1, 6, 7, 8)
DYNAMIC = {"positions": {0: Dim("N", min=2)}, "atomic_numbers": {0: Dim("N", min=2)},
           "edge_index": {1: Dim("E", min=1)}}
DTYPES = [torch.float64, torch.float32]

@functools.cache
def model(dtype: torch.dtype):
    from orb_models.forcefield.atomic_system import SystemConfig
    from orb_models.forcefield.pretrained import orb_v3_conservative_architecture

    torch.manual_seed(0)
    m = orb_v3_conservative_architecture(latent_dim=32, base_mlp_hidden_dim=64, head_mlp_hidden_dim=32,
                                         num_message_passing_steps=2, has_stress=False,
                                         system_config=SystemConfig(radius=RADIUS, max_num_neighbors=120))
    return m.to(dtype).eval()


def graphs(positions, atomic_numbers, edge_index):
    from orb_models.forcefield.base import AtomGraphs

    senders, receivers = edge_index[0], edge_index[1]
    e = senders.shape[0]
    return AtomGraphs(
        senders=senders, receivers=receivers,
        n_node=torch.tensor([atomic_numbers.shape[0]]), n_edge=torch.tensor([e]),
        node_features={
            "positions": positions, "atomic_numbers": atomic_numbers,
            "atomic_numbers_embedding": torch.nn.functional.one_hot(atomic_numbers, 118).to(positions.dtype),
            "atom_identity": torch.arange(atomic_numbers.shape[0]),
        },
        edge_features={"vectors": positions[receivers] - positions[senders],
                       "unit_shifts": positions.new_zeros(e, 3)},
        system_features={"cell": positions.new_zeros(1, 3, 3), "pbc": torch.zeros(1, 3, dtype=torch.bool),
                         "lattice": positions.new_zeros(1, 6)},
        node_targets={}, edge_targets={}, system_targets={}, system_id=None, fix_atoms=None,
        tags=positions.new_zeros(atomic_numbers.shape[0]), radius=RADIUS,
        max_num_neighbors=torch.tensor([120]),
    )


def energy_forces_of(dtype: torch.dtype):
    orb = model(dtype)  # built before tracing

    def energy_forces(positions, atomic_numbers, edge_index):
        out = orb.predict(graphs(positions, atomic_numbers, edge_index))
        return out["energy"].reshape(()), out["grad_forces"]

    return energy_forces


def inputs_of(dtype: torch.dtype):
    def inputs(n: int, seed: int):
        pos = cluster(n, seed, spacing=1.6, jitter=0.2, dtype=dtype)
        return {"positions": pos, "atomic_numbers": species(n, seed, ELEMENTS), "edge_index": radius_graph(pos, RADIUS)}

    return inputs


def test_eager_matches_the_ase_graph():
    """The same energy and forces as from the package's own `ase_atoms_to_atom_graphs`."""
    from ase import Atoms
    from orb_models.forcefield.atomic_system import ase_atoms_to_atom_graphs

    args = inputs_of(torch.float64)(12, 3)
    energy, forces = energy_forces_of(torch.float64)(**args)
    atoms = Atoms(numbers=args["atomic_numbers"].numpy(), positions=args["positions"].detach().numpy())
    out = model(torch.float64).predict(ase_atoms_to_atom_graphs(atoms, model(torch.float64).system_config,
                                                                output_dtype=torch.float64))
    assert abs(out["energy"].item() - energy.item()) <= 1e-10 * abs(energy.item())
    assert torch.allclose(out["grad_forces"], forces, rtol=0, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager(dtype):
    check_eager(energy_forces_of(dtype), inputs_of(dtype))


def test_aten_ops():
    check_aten_ops(energy_forces_of(torch.float64), inputs_of(torch.float64)(13, 0), DYNAMIC)


@pytest.mark.parametrize("dtype", DTYPES)
def test_compiled_matches_eager(dtype):
    compile_and_compare(energy_forces_of(dtype), inputs_of(dtype), DYNAMIC, dtype)
