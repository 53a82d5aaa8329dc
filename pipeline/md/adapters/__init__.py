"""Adapters: a pretrained model from a package's own file, as a per-atom energy function.

Each package has one module here with `adapt(source, dtype) -> Adapted`; it loads the
model the way the package itself does (its own loader, its own classes, no patch of its
code) and wraps it in the potential protocol of `pipeline.md.potential`:
`model(species[N], positions[N, 3], edge_index[2, E], shifts[E, 3]) -> energies[N]`,
edges (i, j) with vectors `positions[j] - positions[i] + shifts`, `species` indices into
`Adapted.species` (chemical symbols). `pipeline.md.load.load_potential` picks the adapter
from the source and compiles what it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor


class AdapterError(Exception):
    """The source is not a model this adapter can load (missing package, unknown name,
    a file of another kind); the message says what was expected."""


@dataclass(frozen=True)
class Adapted:
    """A package's model in the potential protocol, and what an engine must know of it."""

    model: Callable[..., Tensor]  # per-atom energies (or, differentiate=False, the full result)
    species: tuple[str, ...]  # chemical symbol of each species index
    cutoff: float  # the neighbour list's cutoff (A); a second, shorter one is the model's business
    layers: int  # an atom's energy reaches layers * cutoff: the ghost shell of an MD engine
    dtype: torch.dtype  # the float dtype it computes in
    name: str  # the default library name (a C identifier)
    differentiate: bool = True  # False: model computes energy, energies, forces, virial itself


def resolve_dtype(requested: torch.dtype | None, native: torch.dtype) -> torch.dtype:
    """The dtype to compile in: the model's own unless the user asks for another."""
    dtype = native if requested is None else requested
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64; got {dtype}")
    return dtype


__all__ = ["Adapted", "AdapterError", "resolve_dtype"]
