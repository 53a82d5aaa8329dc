"""SO3LR (`so3krates-torch`): the pretrained SO3LR its wheel ships (source `so3lr`), as
per-atom energies.

The model is loaded as `so3krates_torch.calculator.so3.SO3LRCalculator()` loads it (its
`so3lr.model` file, its long-range cutoff `r_max_lr` = 12 A and dispersion damping 2 A set
on the model) and called, like the calculator calls it, on one graph's batch dict, with
`compute_force=False`: its output `node_energy` is the per-atom energy before the sum
(the network's atomic energies plus ZBL, electrostatics and dispersion, each scattered to
its receiving atom); forces and virial come from our autograd through positions and
shifts (the model builds edge vectors as `positions[j] - positions[i] + shifts`, the
protocol's own, and reads the cell only for its own stress and PME, neither used here).

SO3LR takes two neighbour lists: 4.5 A (`r_max`, message passing, ZBL) and 12 A
(`r_max_lr`, electrostatics, dispersion). We get one, of the long-range cutoff; the
short-range list is its subset with |r| < r_max, as the calculator's neighbourhood takes it
(the short-range terms vanish at r_max, so the edge at the boundary does not matter). The
pretrained model's electrostatics is real space, shifted-force and switched to zero at
12 A (no Ewald / PME: its checkpoint predates `use_pme`), and dispersion is switched off
between 10 and 12 A, for molecules and periodic cells alike; so one 12 A list is the whole
of it. An atom's energy reaches r_max_lr + num_layers * r_max (its partner's charge and
Hirshfeld ratio depend on the partner's message-passing environment): `layers` covers it.

Not local: the partial charges are made to sum to the total charge (0) by shifting each
by the mean excess over ALL atoms the model is given. With ghost atoms (an MD engine's
halo) the mean counts the ghosts too, so per-atom energies there differ from the periodic
cell's; with every atom real (ASE, one periodic cell) the result is the package's own.

Species: the eight elements SO3LR was trained on (H C N O F P S Cl; the only ones whose
learned per-element energy scale moved off its initial 1.0); the network embeds any Z but
other elements carry untrained weights.
"""

from __future__ import annotations

import contextlib
import io
import math

import torch
from torch import Tensor, nn

from pipeline.md.adapters import Adapted, AdapterError, resolve_dtype

SPECIES = ("H", "C", "N", "O", "F", "P", "S", "Cl")
"""The elements of SO3LR's training data."""


class SO3LREnergies(nn.Module):
    """SO3LR's per-atom energies (`node_energy`) from one full neighbour list of r_max_lr."""

    def __init__(self, model: nn.Module, numbers: Tensor) -> None:
        super().__init__()
        self.model = model
        self.register_buffer("numbers", numbers)  # atomic number of each species index
        self.r_max = float(model.r_max)
        self.num_elements = int(model.num_elements)

    def forward(self, species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        numbers = self.numbers[species]
        lengths = torch.linalg.vector_norm(positions[edge_index[1]] - positions[edge_index[0]] + shifts, dim=-1)
        short = torch.nonzero(lengths < self.r_max).squeeze(-1)
        batch = torch.zeros_like(species)
        zeros = positions.new_zeros(1)
        data = {
            "positions": positions,
            "atomic_numbers": numbers,
            "node_attrs": nn.functional.one_hot(numbers - 1, self.num_elements).to(positions.dtype),
            "batch": batch,
            "ptr": torch.stack([batch[0], batch[0] + species.shape[0]]),
            "edge_index": edge_index[:, short],
            "shifts": shifts[short],
            "unit_shifts": shifts[short] * 0,  # read only for the model's own stress
            "edge_index_lr": edge_index,
            "shifts_lr": shifts,
            "unit_shifts_lr": shifts * 0,
            "cell": positions.new_zeros(3, 3),  # read only for its own stress and PME
            "total_charge": zeros,  # the calculator's defaults: neutral, singlet
            "total_spin": zeros,
            "head": batch[:1],
        }
        # The calculator sets the default dtype to the model's; its charge head computes
        # 1 / (atom count) of an int64 count in the default dtype.
        default = torch.get_default_dtype()
        torch.set_default_dtype(positions.dtype)
        try:
            out = self.model(data, compute_force=False)
        finally:
            torch.set_default_dtype(default)
        return out["node_energy"].reshape(-1)


def adapt(source: str, dtype: torch.dtype | None) -> Adapted:
    """The pretrained SO3LR of the so3krates-torch wheel (source `so3lr`) as per-atom energies."""
    if source != "so3lr":
        raise AdapterError(f"{source}: the so3lr adapter knows one model, the pretrained 'so3lr'")
    try:
        from so3krates_torch.calculator.so3 import SO3LRCalculator
    except ImportError as e:
        raise AdapterError(f"{source}: SO3LR needs the so3krates-torch package "
                           f"(pip install so3krates-torch): {e}") from None
    default = torch.get_default_dtype()
    try:  # the calculator sets the default dtype to the model's and prints that it did
        with contextlib.redirect_stdout(io.StringIO()):
            calculator = SO3LRCalculator(device="cpu")
    finally:
        torch.set_default_dtype(default)
    model = calculator.models[0]
    if getattr(model, "use_pme", False) or not getattr(model, "use_lr", False):
        raise AdapterError(f"{source}: an SO3LR with PME or without long-range terms; "
                           "only the real-space long-range one is supported")
    dtype = resolve_dtype(dtype, next(model.parameters()).dtype)
    model.to(dtype)
    from ase.data import atomic_numbers

    cutoff = float(calculator.r_max_lr)
    reach = cutoff + model.num_layers * float(model.r_max)
    return Adapted(
        model=SO3LREnergies(model, torch.tensor([atomic_numbers[s] for s in SPECIES])),
        species=SPECIES,
        cutoff=cutoff,
        layers=math.ceil(reach / cutoff),
        dtype=dtype,
        name="so3lr",
    )


__all__ = ["SO3LREnergies", "adapt"]
