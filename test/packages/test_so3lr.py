"""SO3LR (so3krates-torch 0.2.1): the pretrained SO3LR shipped in the wheel
(`so3krates_torch.calculator.so3.SO3LRCalculator()`: a 4.5 A short-range and a 12 A
long-range neighbor list; ZBL repulsion, electrostatics and D3-like dispersion inside),
float32 (its weights' dtype).

A molecule-like cluster of H, C, N, O; the batch dict the calculator hands the model,
built from tensors (one graph: batch all 0, ptr [0, N], zero shifts and cell, neutral,
head 0), and the model's own forces (`compute_force=True`: its autograd.grad of the energy
with respect to the positions)."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.export import Dim

from common import check_aten_ops, check_eager, cluster, compile_and_compare, radius_graph, species

pytest.importorskip("so3krates_torch")

ELEMENTS = (1, 6, 7, 8)
N = Dim("N", min=2)
DYNAMIC = {"positions": {0: N}, "atomic_numbers": {0: N}, "edge_index": {1: Dim("E", min=1)},
           "edge_index_lr": {1: Dim("L", min=1)}}


@functools.cache
def calculator():
    from so3krates_torch.calculator.so3 import SO3LRCalculator

    return SO3LRCalculator(device="cpu")


def energy_forces(positions, atomic_numbers, edge_index, edge_index_lr):
    model = calculator().models[0]
    batch = torch.zeros_like(atomic_numbers)
    out = model({
        "positions": positions,
        "atomic_numbers": atomic_numbers,
        "node_attrs": torch.nn.functional.one_hot(atomic_numbers - 1, 118).to(positions.dtype),
        "batch": batch,
        "ptr": torch.stack([batch[0], batch[0] + atomic_numbers.shape[0]]),
        "edge_index": edge_index,
        "edge_index_lr": edge_index_lr,
        "shifts": positions.new_zeros(edge_index.shape[1], 3),
        "shifts_lr": positions.new_zeros(edge_index_lr.shape[1], 3),
        "unit_shifts": positions.new_zeros(edge_index.shape[1], 3),
        "unit_shifts_lr": positions.new_zeros(edge_index_lr.shape[1], 3),
        "cell": positions.new_zeros(3, 3),
        "total_charge": positions.new_zeros(1),
        "total_spin": positions.new_zeros(1),
        "head": batch[:1] * 0,
    })
    return out["energy"].reshape(()), out["forces"]


def inputs(n: int, seed: int):
    calc = calculator()
    pos = cluster(n, seed, spacing=1.5, jitter=0.15, dtype=torch.float32)
    return {"positions": pos, "atomic_numbers": species(n, seed, ELEMENTS),
            "edge_index": radius_graph(pos, calc.r_max), "edge_index_lr": radius_graph(pos, calc.r_max_lr)}


def test_eager_matches_the_ase_calculator():
    from ase import Atoms

    args = inputs(12, 3)
    energy, forces = energy_forces(**args)
    atoms = Atoms(numbers=args["atomic_numbers"].numpy(), positions=args["positions"].detach().double().numpy())
    atoms.calc = calculator()
    assert abs(atoms.get_potential_energy() - energy.item()) <= 1e-5 * abs(energy.item())
    assert torch.allclose(torch.as_tensor(atoms.get_forces(), dtype=torch.float32), forces, atol=1e-4)


def test_eager():
    check_eager(energy_forces, inputs)


def test_aten_ops():
    check_aten_ops(energy_forces, inputs(13, 0), DYNAMIC)


def test_compiled_matches_eager_f32():
    compile_and_compare(energy_forces, inputs, DYNAMIC, torch.float32)
