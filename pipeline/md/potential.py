"""Compile an interatomic potential: per-atom energies in, energy, forces and virial out.

    potential = pipeline.compile_potential(model, example, cutoff=5.0, species=["H", "O"])
    result = potential(species, positions, edge_index, shifts)     # energy, energies, forces, virial
    potential.export("build", name="water")                        # water.so for ASE-free engines

`model(species[N], positions[N, 3], edge_index[2, E], shifts[E, 3]) -> energies[N]` sees
edges `(i, j)` with vectors `positions[j] - positions[i] + shifts` (shifts Cartesian:
`cell_shift @ cell`). The function compiled around it is one graph, forward and grad:

- the virial comes from the strain derivative, as NequIP and MACE do it: a zero strain
  `eps` requiring grad deforms positions and shifts alike (`x + x @ sym(eps)`), and
  `autograd.grad(energy, [positions, eps])` gives forces and virial = -dE/d(eps) together;
- `n_local` (a 0-d int64) says how many atoms, from the first, have their energies summed:
  an MD engine with ghost atoms (images owned by other ranks) passes its own count, and the
  forces on the ghosts are what it sends home. A plain call has `n_local = N`.

The exported library adds `pipeline_potential()` (see `pipeline_potential.h`) to the usual
C ABI, so engines that load models at run time (the LAMMPS pair style) find the entry point,
the cutoff, the layers and the species names without a model-specific header.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import torch
from torch import Tensor

from pipeline.compiler import CallError, CompiledFunction, compile
from pipeline.deploy.export import PotentialInfo, export_library
from pipeline.deploy.library import Library

ARGUMENTS = ("species", "positions", "edge_index", "shifts", "n_local")


class PotentialResult(NamedTuple):
    energy: Tensor  # 0-d: the sum of the first n_local per-atom energies
    energies: Tensor  # (N,)
    forces: Tensor  # (N, 3) = -d energy / d positions
    virial: Tensor  # (3, 3) = -d energy / d strain, symmetric; stress = -virial / volume


def energy_forces_virial(model: Callable[..., Tensor]) -> Callable[..., tuple[Tensor, ...]]:
    """fn(species, positions, edge_index, shifts, n_local) -> (energy, energies, forces, virial):
    the function that `compile_potential` captures, also the eager reference."""

    def potential(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor,
                  n_local: Tensor) -> tuple[Tensor, ...]:
        # detach(): a fresh leaf, for real, fake and proxy tensors alike.
        positions = positions.detach().requires_grad_(True)
        strain = torch.zeros(3, 3, dtype=positions.dtype, requires_grad=True)
        sym = 0.5 * (strain + strain.transpose(0, 1))
        energies = model(species, positions + positions @ sym, edge_index, shifts + shifts @ sym)
        local = torch.arange(positions.shape[0]) < n_local
        energy = torch.where(local, energies, torch.zeros_like(energies)).sum()
        d_positions, d_strain = torch.autograd.grad(energy, [positions, strain])
        return energy, energies.detach(), -d_positions, -d_strain

    return potential


class Potential:
    """A compiled potential: call it on a configuration, or export it for an MD engine.

    `compiled` is the JIT's `CompiledFunction`, or a `Library` (an exported potential loaded
    back through its C ABI: `pipeline.load_potential("DIR/NAME.so")`); both are called by
    argument name."""

    def __init__(self, compiled: CompiledFunction | Library, info: PotentialInfo) -> None:
        self.compiled = compiled
        self.info = info
        if isinstance(compiled, Library):
            self.dtype: torch.dtype = next(d for n, d, _ in compiled.inputs if n == "positions")
        else:
            self.dtype = next(a.dtype for a in compiled.signature.arguments if a.name == "positions")

    @property
    def cutoff(self) -> float:
        return self.info.cutoff

    @property
    def layers(self) -> int:
        return self.info.layers

    @property
    def species(self) -> tuple[str, ...]:
        return self.info.species

    def __call__(self, species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor,
                 n_local: int | None = None) -> PotentialResult:
        """Energy, per-atom energies, forces and virial; the energy sums atoms [0, n_local)
        (default: all)."""
        n = int(positions.shape[0]) if hasattr(positions, "shape") else 0
        n_local = n if n_local is None else int(n_local)
        if not 0 <= n_local <= n:
            raise CallError(f"{self.compiled.name}: n_local = {n_local} is outside [0, {n}] "
                            f"(the number of atoms in 'positions')")
        out = self.compiled(species=species, positions=positions, edge_index=edge_index, shifts=shifts,
                            n_local=torch.tensor(n_local))
        return PotentialResult(*out)

    def export(self, directory: str | Path, *, name: str | None = None,
               target_cpu: str | None = None) -> Path:
        """Write `<name>.so`, `<name>.h`, `<name>.json` and `pipeline_potential.h` into
        `directory`; the library exports `pipeline_potential()` besides `<name>_run`. A
        potential loaded from a library is copied (its symbols carry its own name)."""
        if isinstance(self.compiled, Library):
            return self.compiled.copy_to(Path(directory), name=name, target_cpu=target_cpu)
        return export_library(self.compiled, Path(directory), target_cpu=target_cpu, name=name,
                              potential=self.info)


def compile_potential(
    model: Callable[..., Tensor],
    example: Sequence[Tensor] | Mapping[str, Tensor],
    *,
    cutoff: float,
    species: Sequence[str],
    layers: int = 1,
    differentiate: bool = True,
    name: str | None = None,
    **options: Any,
) -> Potential:
    """Capture and compile `model` (per-atom energies) with forces and virial.

    `example` is `(species, positions, edge_index, shifts)` (or a dict of those names) of
    any small configuration: N and E are symbolic, so every size compiles to the same code.
    `cutoff` is the model's edge cutoff, `species` the names of its species indices (for
    ASE and LAMMPS), `name` the compiled function's (and library's) name, `layers` the
    message-passing depth (an atom's energy reaches
    `layers * cutoff`: an MD engine's ghost shell must be that thick). `options` go to
    `pipeline.compile` (profile, dump_dir, verify, decompositions).

    `differentiate=False` takes a model that computes its own derivatives:
    `model(species, positions, edge_index, shifts, n_local) -> (energy, energies, forces,
    virial)` with the meanings of `PotentialResult` (forces by its own autograd.grad, say,
    as Allegro and MACE do it through the edge vectors).
    """
    args = dict(example) if isinstance(example, Mapping) else dict(zip(ARGUMENTS, example))
    missing = [a for a in ARGUMENTS[:4] if a not in args]
    if missing or len(args) > 5:
        raise TypeError(f"example must hold {', '.join(ARGUMENTS[:4])}; "
                        f"missing {', '.join(missing) or 'nothing'}, got {', '.join(args)}")
    positions = args["positions"]
    if positions.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"example positions have dtype {positions.dtype}; a potential computes in "
                        "float32 or float64")
    if cutoff <= 0 or layers < 1 or not species:
        raise ValueError(f"cutoff must be > 0 (got {cutoff}), layers >= 1 (got {layers}), "
                         f"and species name at least one species (got {list(species)})")
    args.setdefault("n_local", torch.tensor(positions.shape[0]))
    n, e = torch.export.Dim("N", min=1), torch.export.Dim("E", min=0)
    dynamic = {"species": {0: n}, "positions": {0: n}, "edge_index": {1: e}, "shifts": {0: e},
               "n_local": None}
    fn = energy_forces_virial(model) if differentiate else _positional(model)
    fn.__name__ = name or getattr(model, "__name__", type(model).__name__.lower())
    compiled = compile(fn, {k: args[k] for k in ARGUMENTS}, dynamic, **options)
    return Potential(compiled, PotentialInfo(float(cutoff), int(layers), tuple(species)))


def _positional(model: Callable[..., tuple[Tensor, ...]]) -> Callable[..., tuple[Tensor, ...]]:
    """`model` called by position, as the protocol says, whatever its parameters are named."""

    def potential(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor,
                  n_local: Tensor) -> tuple[Tensor, ...]:
        return model(species, positions, edge_index, shifts, n_local)

    return potential


__all__ = ["Potential", "PotentialInfo", "PotentialResult", "compile_potential", "energy_forces_virial"]
