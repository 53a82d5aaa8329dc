"""NequIP and Allegro: a `.nequip.zip` package file, as `nequip-package build` writes it.

Loaded as nequip's own ASE calculator (`NequIPCalculator._from_saved_model`) loads it:
`nequip.model.saved_models.load_utils.load_saved_model(path, compile_mode="eager")`
(`ModelFromPackage`: the model's own code, interned in the package, through
`torch.package`). nequip's persistent model modifier `disable_ForceStressOutput` (what
`nequip-package modify --modifier disable_ForceStressOutput` applies) leaves the energy
model without its own autograd.grad, so the output's per-atom energies (`atomic_energy`,
after the per-type scale and shift) are what we differentiate, through positions and
shifts. The shifts go in as nequip's `edge_cell_shift` with an identity `cell` (its edge
vectors are `pos[j] - pos[i] + edge_cell_shift @ cell`), so nothing geometric comes from a
cell. Species are the package's type names (which must be chemical symbols, as the
calculator's default identity map assumes), the cutoff its `r_max`: a model with
per-edge-type cutoffs sees the extra edges of the r_max list with its cutoff function's
zero, as nequip computes them. Layers: NequIP's `ConvNetLayer`s (message passing);
Allegro is strictly local (1).

Dtype: nequip computes edge lengths and the per-type scale and shift in float64 and the
rest in the model's `model_dtype` (its calculator passes float64 positions), so the
model's own dtype here is float64 whatever `model_dtype` is; dtype=float32 passes float32
positions to the same model (its weights are not converted).
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from torch import Tensor

from pipeline.md.adapters import Adapted, AdapterError, resolve_dtype


def adapt(source: str, dtype: torch.dtype | None) -> Adapted:
    try:
        from ase.data import chemical_symbols
        from nequip.data import AtomicDataDict
        from nequip.model.modify_utils import modify
        from nequip.model.saved_models.load_utils import load_saved_model
    except ImportError as e:
        raise AdapterError(f"{source}: a NequIP package needs nequip (pip install nequip, and "
                           f"nequip-allegro for Allegro); {e}") from None
    path = Path(source)
    if not (path.is_file() and path.name.endswith(".nequip.zip")):
        raise AdapterError(f"{source}: not a NequIP package file (`nequip-package build` writes NAME.nequip.zip)")
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # nequip's global dtype (its set_global_state's), while loading
    try:
        models = load_saved_model(str(path), compile_mode="eager", model_key=None)
    except Exception as e:  # noqa: BLE001  (not a package, an extension not installed, ...)
        raise AdapterError(f"{source}: nequip cannot load it ({type(e).__name__}: {e})") from None
    finally:
        torch.set_default_dtype(default)
    if list(models.keys()) != ["sole_model"]:
        raise AdapterError(f"{source}: holds the models {list(models.keys())}; pipeline takes a package "
                           "of one model")
    modify(models, [{"modifier": "disable_ForceStressOutput"}])
    model = models["sole_model"].eval()
    for p in model.parameters():
        p.requires_grad_(False)
    metadata = model.metadata
    type_names = metadata["type_names"].split(" ")
    unknown = [t for t in type_names if t not in chemical_symbols[1:]]
    if unknown:
        raise AdapterError(f"{source}: the type names {unknown} are not chemical symbols (the model's "
                           f"types: {type_names})")
    dtype = resolve_dtype(dtype, torch.float64)

    def nequip_energies(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        out = model({
            AtomicDataDict.POSITIONS_KEY: positions,
            AtomicDataDict.EDGE_INDEX_KEY: edge_index,
            AtomicDataDict.ATOM_TYPE_KEY: species,
            AtomicDataDict.CELL_KEY: torch.eye(3, dtype=positions.dtype)[None],
            AtomicDataDict.EDGE_CELL_SHIFT_KEY: shifts,
        })
        return out[AtomicDataDict.PER_ATOM_ENERGY_KEY].reshape(-1).to(positions.dtype)

    return Adapted(model=nequip_energies, species=tuple(type_names), cutoff=float(metadata["r_max"]),
                   layers=_layers(source, model), dtype=dtype,
                   name="nequip_" + re.sub(r"\W", "_", path.name.removesuffix(".nequip.zip").lower()))


def _layers(source: str, model: torch.nn.Module) -> int:
    """Message-passing depth: NequIP's `ConvNetLayer`s; Allegro (`Allegro_Module`) is strictly
    local, whatever its number of layers (they act on the edges of one atom's neighbourhood)."""
    names = [type(m).__name__ for m in model.modules()]
    if names.count("ConvNetLayer"):
        return names.count("ConvNetLayer")
    if "Allegro_Module" in names:
        return 1
    raise AdapterError(f"{source}: neither NequIP's ConvNetLayer nor Allegro's Allegro_Module is in the "
                       "model, so its reach (message-passing layers) is unknown")
