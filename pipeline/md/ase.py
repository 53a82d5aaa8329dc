"""An ASE calculator around a compiled potential.

    from pipeline.md.ase import Calculator
    atoms.calc = Calculator(potential)            # or Calculator(potential, species=["Ar", "Kr"])
    atoms.get_potential_energy(); atoms.get_forces(); atoms.get_stress()

The neighbor list comes from vesin (`ase_neighbor_list` semantics, linear in the atoms),
with integer cell shifts `S` turned into the Cartesian `shifts = S @ cell` the potential
takes. Stress is ASE's: `-virial / volume`, in eV/A^3 for a model in eV and A, Voigt order
xx yy zz yz xz xy; it needs a cell with a volume (periodic, or a given box).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from ase import Atoms
from ase.calculators.calculator import Calculator as _AseCalculator
from ase.calculators.calculator import PropertyNotImplementedError, all_changes

from pipeline.md.potential import Potential

_VOIGT = ((0, 0), (1, 1), (2, 2), (1, 2), (0, 2), (0, 1))


class Calculator(_AseCalculator):
    """energy, free_energy, energies, forces and stress from a `pipeline.Potential`."""

    implemented_properties = ["energy", "free_energy", "energies", "forces", "stress"]

    def __init__(self, potential: Potential, species: Sequence[str] | None = None, **kwargs: Any) -> None:
        """`species[k]` is the chemical symbol of the model's species index k (default: the
        potential's own species names)."""
        super().__init__(**kwargs)
        self.potential = potential
        names = list(species if species is not None else potential.species)
        if len(set(names)) != len(names):
            raise ValueError(f"species {names} names a symbol twice")
        self.species_index = {name: k for k, name in enumerate(names)}

    def calculate(self, atoms: Atoms | None = None, properties: Sequence[str] = ("energy",),
                  system_changes: Sequence[str] = all_changes) -> None:
        super().calculate(atoms, properties, system_changes)
        atoms = self.atoms
        if "stress" in properties and atoms.cell.rank < 3:
            raise PropertyNotImplementedError("stress needs a cell with a volume (a 3-D cell); "
                                              f"this one has rank {atoms.cell.rank}")
        potential = self.potential
        result = potential(*inputs(atoms, potential.cutoff, self.species_index, potential.dtype))
        energy = float(result.energy)
        self.results = {
            "energy": energy,
            "free_energy": energy,
            "energies": result.energies.double().numpy(),
            "forces": result.forces.double().numpy(),
        }
        if atoms.cell.rank == 3:
            stress = -result.virial.double().numpy() / atoms.get_volume()
            self.results["stress"] = np.array([stress[a, b] for a, b in _VOIGT])


def inputs(atoms: Atoms, cutoff: float, species: Sequence[str] | dict[str, int],
           dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(species, positions, edge_index, shifts) of `atoms` for a potential: `species` names
    the symbol of each species index (or maps symbols to indices)."""
    from vesin import ase_neighbor_list

    index = species if isinstance(species, dict) else {name: k for k, name in enumerate(species)}
    missing = sorted(set(atoms.get_chemical_symbols()) - set(index))
    if missing:
        raise ValueError(f"the atoms hold {', '.join(missing)}, which the potential does not know "
                         f"(its species: {', '.join(index)})")
    i, j, cell_shifts = ase_neighbor_list("ijS", atoms, cutoff)
    shifts = cell_shifts.astype(np.float64) @ atoms.cell.array
    return (
        torch.tensor([index[s] for s in atoms.get_chemical_symbols()], dtype=torch.int64),
        torch.tensor(atoms.positions, dtype=dtype),
        torch.from_numpy(np.stack([i, j]).astype(np.int64)),
        torch.tensor(shifts, dtype=dtype),
    )


__all__ = ["Calculator", "inputs"]
