"""MACE: a `.model` file, the `torch.save` of a MACE module that mace's training writes.

Loaded as mace's own `MACECalculator(model_paths=...)` loads it (`torch.load` of the whole
module, so `weights_only=False`: the file is trusted code, as for mace). The file keeps
e3nn's generated code (`CodeGenMixin`: each `o3.Linear`'s, tensor product's
`_compiled_main`) as TorchScript IR only, which `torch.jit.load` brings back without
Python source, and TorchScript cannot be traced with symbolic sizes; so the model is built
anew by mace's own constructor from `extract_config_mace_model` of the loaded one (as
mace's `extract_model` does for fine-tuning), and the file's weights loaded into it
(strict). Species are the model's `atomic_numbers`, the cutoff its `r_max`, the reach
`num_interactions` layers.
The per-atom energies are mace's own `node_energy` (E0 + scaled interaction energy per
atom), computed by the model's forward with `compute_force=False` on one graph: the data
dict mace's `AtomicData` batches hold (one-hot `node_attrs` over `atomic_numbers`,
`batch`, `ptr`, Cartesian `shifts`; edge vectors `positions[j] - positions[i] + shifts`,
the protocol's), so forces and virial come from our autograd through positions and
shifts. A multi-head model runs the head `MACECalculator` picks: its only head, else the
one named "default".
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from torch import Tensor

from pipeline.md.adapters import Adapted, AdapterError, resolve_dtype


def adapt(source: str, dtype: torch.dtype | None) -> Adapted:
    try:
        import mace  # noqa: F401  (sets TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD for e3nn 0.4.4's import)
        from ase.data import chemical_symbols
    except ImportError as e:
        raise AdapterError(f"{source}: a MACE model needs mace-torch (pip install mace-torch); {e}") from None
    path = Path(source)
    if not path.is_file():
        raise AdapterError(f"{source}: no such MACE .model file")
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001  (a pickle of another kind, a broken file)
        raise AdapterError(f"{source}: torch.load fails ({type(e).__name__}: {e})") from None
    if type(loaded).__name__ != "ScaleShiftMACE" or not type(loaded).__module__.startswith("mace."):
        raise AdapterError(f"{source}: not a MACE energy model (torch.load gives {type(loaded).__name__}; "
                           "pipeline takes mace's ScaleShiftMACE, what mace's training writes)")
    native = next(loaded.parameters()).dtype
    model = _rebuilt(source, loaded, native).to(resolve_dtype(dtype, native)).eval()
    dtype = next(model.parameters()).dtype
    for p in model.parameters():
        p.requires_grad_(False)
    numbers = [int(z) for z in model.atomic_numbers]
    head = _head(source, list(getattr(model, "heads", None) or ["default"]))

    def mace_energies(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        batch = torch.zeros_like(species)
        out = model({
            "positions": positions,
            "edge_index": edge_index,
            "shifts": shifts,
            "node_attrs": torch.nn.functional.one_hot(species, len(numbers)).to(positions.dtype),
            "batch": batch,
            # [0, N] from tensors: torch.tensor([0, N]) would bake the traced N into the graph
            "ptr": torch.stack([batch[0], batch[0] + species.shape[0]]),
            "head": torch.full((1,), head, dtype=torch.int64),
            "cell": positions.new_zeros(1, 3, 3),
        }, training=False, compute_force=False)
        return out["node_energy"].to(positions.dtype)  # mace's is float64 whatever the model's dtype

    return Adapted(model=mace_energies, species=tuple(chemical_symbols[z] for z in numbers),
                   cutoff=float(model.r_max), layers=int(model.num_interactions), dtype=dtype,
                   name="mace_" + re.sub(r"\W", "_", path.name.removesuffix(".model").lower()))


def _rebuilt(source: str, loaded: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    """The model anew from its own constructor, with the file's weights: as mace's
    `extract_model` (its fine-tuning's load of a foundation model) does it, but under the
    file's dtype and with a strict `load_state_dict`."""
    from mace.tools.scripts_utils import extract_config_mace_model

    config = extract_config_mace_model(loaded)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # the constructor's buffers (e3nn's constants) in the file's dtype
    try:
        model = type(loaded)(**config)
    finally:
        torch.set_default_dtype(default)
    try:
        model.load_state_dict(loaded.state_dict(), strict=True)
    except RuntimeError as e:
        raise AdapterError(f"{source}: mace's constructor, from extract_config_mace_model of the file, "
                           f"does not take the file's weights ({e})") from None
    return model


def _head(source: str, heads: list[str]) -> int:
    """The index of the head `MACECalculator` runs without a `head=`: the only one, else "default"."""
    if len(heads) == 1:
        return 0
    default = [k for k, h in enumerate(heads) if h.lower() == "default"]
    if not default:
        raise AdapterError(f"{source}: the model has heads {heads} and none is 'default'")
    return default[0]
