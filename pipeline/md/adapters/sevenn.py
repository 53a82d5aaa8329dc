"""SevenNet (`sevenn`): a pretrained model of the wheel (`sevenn:7net-0`, any name
`sevenn.util.load_checkpoint` takes) or a checkpoint file of sevenn's training (a
`torch.save` dict of 'config' and 'model_state_dict'), as per-atom energies. A
multi-fidelity model names its modal after a colon: `sevenn:7net-mf-0:PBE`
(`sevenn:PATH:MODAL` for a file), as `SevenNetCalculator(model, modal=...)` takes it.

The model is built as `SevenNetCalculator` builds it (`load_checkpoint(...).build_model()`,
`set_is_batch_data(False)`) and its own modules are run in order on the data dict the
calculator gives them (`edge_index`, `edge_vec = pos[j] - pos[i] + shift`), up to the
input of its `AtomReduce`: the per-atom energies after the species-wise rescale. What
follows is left out: the sum, and `ForceStressOutputFromEdge`, which takes its own
autograd.grad and branches on the cell volume (`elif volume < vlim:`, not capturable);
forces and virial come from our autograd through positions and shifts instead.

Species index k is the model's one-hot index k (its type map, atomic number -> index,
inverted), so the type-map lookup of `AtomGraphSequential._preprocess` is the species
argument itself, and the modal's index is the constant `modal_type` that `_preprocess`
would set. The one-hot embedding is float32 whatever the weights; for float64 its
output is cast to the model's dtype.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from pipeline.md.adapters import Adapted, AdapterError, resolve_dtype
from pipeline.md.adapters.files import claims

PREFIX = "sevenn:"


class SevenNetEnergies(nn.Module):
    """`AtomGraphSequential`'s modules up to its energy sum, in the potential protocol."""

    def __init__(self, net: nn.Module, dtype: torch.dtype, modal: int | None = None) -> None:
        super().__init__()
        from sevenn.nn.linear import AtomReduce
        from sevenn.nn.node_embedding import OnehotEmbedding

        self.net = net
        self.dtype = dtype
        modules = list(net)
        ends = [k for k, m in enumerate(modules) if isinstance(m, AtomReduce)]
        if not ends or modules[ends[0]].reduce != "sum":
            raise AdapterError("sevenn model without an AtomReduce summing the atomic energies; "
                               f"its modules: {', '.join(net._modules)}")
        self.reduce = modules[ends[0]]
        self.stages = modules[: ends[0]]
        self.onehot = tuple(m for m in self.stages if isinstance(m, OnehotEmbedding))
        self.modal = modal

    def forward(self, species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        data: dict[str, Any] = {
            self.net.key_node_feature: species,  # the one-hot index: our species order is the type map's
            "pos": positions,
            "edge_index": edge_index,
            "edge_vec": positions[edge_index[1]] - positions[edge_index[0]] + shifts,
        }
        if self.modal is not None:  # AtomGraphSequential._eval_modal_map, not batched
            data["modal_type"] = torch.tensor(self.modal, dtype=torch.int64)
        for module in self.stages:
            data = module(data)
            if module in self.onehot:  # one_hot(...).float(): the model's dtype instead
                for key in {module.key_output, module.key_additional_output} - {None}:
                    data[key] = data[key].to(self.dtype)
        return data[self.reduce.key_input].reshape(-1) * self.reduce.constant


def adapt(source: str, dtype: torch.dtype | None) -> Adapted:
    """The SevenNet model of `source` (`sevenn:NAME` or a checkpoint path) as per-atom energies."""
    try:
        import sevenn._keys as KEY
        from sevenn.util import load_checkpoint
    except ImportError as e:
        raise AdapterError(f"{source}: SevenNet models need the sevenn package "
                           f"(pip install sevenn): {e}") from None
    name, modal = source.removeprefix(PREFIX), None
    if not Path(name).is_file():
        if not source.startswith(PREFIX):
            raise AdapterError(f"{source}: neither sevenn:NAME nor a sevenn checkpoint file")
        if ":" in name:
            name, modal = name.rsplit(":", 1)
    if Path(name).is_file() and not claims(name, "sevenn"):
        raise AdapterError(f"{source}: not a sevenn checkpoint (a dict of 'config' and 'model_state_dict')")
    try:
        checkpoint = load_checkpoint(name)
        config = checkpoint.config
    except (ValueError, FileNotFoundError) as e:
        raise AdapterError(f"{source}: {e}") from None
    modals: dict[str, int] = config.get(KEY.MODAL_MAP, {}) if config.get(KEY.USE_MODALITY, False) else {}
    chosen = {k.lower(): v for k, v in modals.items()}.get((modal or "").lower())
    if (modal is not None or modals) and chosen is None:
        raise AdapterError(f"{source}: " + (f"a multi-fidelity model: name its modal, sevenn:{name}:MODAL with "
                                            f"MODAL one of {', '.join(modals)}" if modals else
                                            f"a single-fidelity model has no modal {modal!r}"))
    net = checkpoint.build_model()
    net.set_is_batch_data(False)
    net.eval()
    native = next(net.parameters()).dtype
    dtype = resolve_dtype(dtype, native)
    net.to(dtype)
    for p in net.parameters():
        p.requires_grad_(False)

    from ase.data import chemical_symbols

    type_map: dict[int, int] = config[KEY.TYPE_MAP]
    if sorted(type_map.values()) != list(range(len(type_map))):
        raise AdapterError(f"{source}: its type map {type_map} is not onto 0..{len(type_map) - 1}")
    species = tuple(chemical_symbols[z] for z, _ in sorted(type_map.items(), key=lambda item: item[1]))
    stem = (Path(name).name.split(".")[0] if Path(name).is_file() else name) + (f"_{modal}" if modal else "")
    return Adapted(
        model=SevenNetEnergies(net, dtype, chosen),
        species=species,
        cutoff=float(config[KEY.CUTOFF]),
        layers=int(config[KEY.NUM_CONVOLUTION]),
        dtype=dtype,
        name="sevenn_" + re.sub(r"\W", "_", stem.lower()),
    )


__all__ = ["SevenNetEnergies", "adapt"]
