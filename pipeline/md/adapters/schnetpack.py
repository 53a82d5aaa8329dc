"""SchNetPack: a model file, the `torch.save` of a `NeuralNetworkPotential` that schnetpack's
training writes (`best_model`, with post-processing on).

Loaded as schnetpack's `SpkCalculator` loads it: `schnetpack.utils.load_model` (its own
loader, which also converts files of older versions), given `weights_only=False` (a
pickled module; torch >= 2.6 refuses it otherwise). The model's own modules run in its
order: the input modules (`PairwiseDistances`: `R[j] - R[i] + offsets`, our shifts), the
representation, then of the energy's `Atomwise` the per-atom part, `outnet` of the
scalar representation (the sum over atoms that follows is ours), and of the
post-processors the energy's `AddOffsets` per atom (its mean per atom, and `atomref[Z]`).
`Forces` is left out: forces and virial are our autograd through positions and shifts.

What a schnetpack file does not say is chosen so: units eV and A (what pipeline's
potentials compute; schnetpack's calculator is told its units by its user); species, the
elements its embedding has rows for (atomic numbers 1 .. num_embeddings - 1, row 0 is
the padding), as chemical symbols; cutoff, the representation's `cutoff`; layers, its
interactions. Import needs, on torch 2.x, `torch.utils.data.dataloader.T_co` (which
schnetpack 2.1's loader imports and torch no longer defines): set here if missing, a
`TypeVar`, as torch 1.x had it.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import torch
from torch import Tensor

from pipeline.md.adapters import Adapted, AdapterError, resolve_dtype


def adapt(source: str, dtype: torch.dtype | None) -> Adapted:
    import torch.utils.data.dataloader as dataloader

    if not hasattr(dataloader, "T_co"):  # schnetpack 2.1 imports it; torch 2.x dropped it
        dataloader.T_co = typing.TypeVar("T_co", covariant=True)
    try:
        import schnetpack
        from ase.data import chemical_symbols
        from schnetpack import properties as p
        from schnetpack.utils import load_model
    except ImportError as e:
        raise AdapterError(f"{source}: a SchNetPack model needs schnetpack (pip install schnetpack); {e}") from None
    if not Path(source).is_file():
        raise AdapterError(f"{source}: no such SchNetPack model file")
    try:
        model = load_model(source, device="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001  (a pickle of another kind, a broken file)
        raise AdapterError(f"{source}: schnetpack's load_model fails ({type(e).__name__}: {e})") from None
    if not isinstance(model, schnetpack.model.NeuralNetworkPotential):
        raise AdapterError(f"{source}: not a SchNetPack NeuralNetworkPotential (it holds {type(model).__name__})")
    model = model.to(resolve_dtype(dtype, next(model.parameters()).dtype)).eval()
    dtype = next(model.parameters()).dtype
    for q in model.parameters():
        q.requires_grad_(False)
    rep = model.representation
    energy_key, atomwise = _energy(source, model)
    offsets = []  # the energy's AddOffsets post-processors, per atom
    for pp in model.postprocessors if model.do_postprocessing else []:
        if isinstance(pp, schnetpack.transform.AddOffsets) and pp._property == energy_key and pp.is_extensive:
            offsets.append(pp)
        elif not isinstance(pp, (schnetpack.transform.CastTo64, schnetpack.transform.CastTo32)):
            raise AdapterError(f"{source}: a post-processor pipeline cannot split per atom: {pp!r} (of "
                               f"{[type(q).__name__ for q in model.postprocessors]})")
    embedding = getattr(rep, "embedding", None)
    if not isinstance(embedding, torch.nn.Embedding) or getattr(rep, "electronic_embeddings", None):
        raise AdapterError(f"{source}: the representation {type(rep).__name__} has no nuclear nn.Embedding "
                           "(or needs charge or spin inputs): its elements are unknown")
    numbers = list(range(1, min(embedding.num_embeddings, len(chemical_symbols))))
    z_of = torch.tensor(numbers)  # species index -> atomic number

    def schnetpack_energies(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        z = z_of[species]
        inputs = {
            p.Z: z,
            p.R: positions,
            p.idx_i: edge_index[0],
            p.idx_j: edge_index[1],
            p.offsets: shifts,
            p.idx_m: torch.zeros_like(species),
            p.n_atoms: torch.stack([species.new_ones(()) * species.shape[0]]),
            p.cell: positions.new_zeros(1, 3, 3),
            p.pbc: torch.zeros(1, 3, dtype=torch.bool),
        }
        for m in model.input_modules:
            inputs = m(inputs)
        inputs = rep(inputs)
        energies = atomwise.outnet(inputs["scalar_representation"]).reshape(-1)
        for pp in offsets:
            if pp.add_mean:
                energies = energies + pp.mean.reshape(()).to(energies.dtype)
            if pp.add_atomrefs:
                energies = energies + pp.atomref[z].to(energies.dtype)
        return energies.to(positions.dtype)

    stem = re.sub(r"\W", "_", Path(source).name.lower())
    return Adapted(model=schnetpack_energies, species=tuple(chemical_symbols[z] for z in numbers),
                   cutoff=float(rep.cutoff), layers=int(getattr(rep, "n_interactions", None) or len(rep.interactions)),
                   dtype=dtype, name="schnetpack_" + stem)


def _energy(source: str, model: torch.nn.Module) -> tuple[str, torch.nn.Module]:
    """The energy's key (the `Forces` module's `energy_key`, else "energy") and its `Atomwise`
    (summed over atoms); every other output module is the energy's derivatives or refused."""
    import schnetpack

    forces = [m for m in model.output_modules if isinstance(m, schnetpack.atomistic.Forces)]
    key = forces[0].energy_key if forces else schnetpack.properties.energy
    atomwise = [m for m in model.output_modules if isinstance(m, schnetpack.atomistic.Atomwise) and m.output_key == key]
    others = [type(m).__name__ for m in model.output_modules if not isinstance(m, schnetpack.atomistic.Forces)
              and not (atomwise and m is atomwise[0])]
    if not atomwise or atomwise[0].aggregation_mode != "sum" or atomwise[0].n_out != 1 or others:
        raise AdapterError(f"{source}: pipeline takes an energy model, an Atomwise '{key}' summed over atoms "
                           f"and its Forces; its output modules are "
                           f"{[type(m).__name__ for m in model.output_modules]}")
    return key, atomwise[0]
