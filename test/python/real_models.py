"""Real interatomic potentials, built by their packages' own constructors (the `models` extra).

NequIP (`nequip.model.NequIPGNNModel`) and Allegro (`allegro.model.AllegroModel`), small
(two species, l_max = 1, a few channels) with random weights from a fixed seed, run as
shipped: no package code is patched. The float dtype is the packages' own `model_dtype`
option. `energy_forces(name, model_dtype)` returns the function the compiler
captures, fn(pos [N, 3], edge_index [2, E] int64, atom_types [N] int64) -> (energy 0-d,
forces [N, 3]): the energy through the model's forward (built with `do_derivatives=False`,
so the model returns the total energy and leaves the gradient to us), forces = -dE/dpos by
`torch.autograd.grad`.

Dtypes, as nequip has them: the per-atom energies are scaled, shifted and summed in
float64 whatever `model_dtype` is, so the energy is float64 always; the forces have the
positions' dtype. nequip's own data pipeline (ASE calculator, datasets) keeps positions in
float64 and casts to `model_dtype` inside; positions in `model_dtype` run too.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor
from torch.export import Dim

from examples.common import CUTOFF, random_system

TYPE_NAMES = ["H", "C"]
MODELS = ["nequip", "allegro"]

# Shared by both builders (nequip's `model_builder` requires seed, model_dtype, type_names).
COMMON = {
    "seed": 0,
    "type_names": TYPE_NAMES,
    "r_max": CUTOFF,
    "avg_num_neighbors": 20.0,
    "per_type_energy_scales": {"H": 1.1, "C": 0.9},
    "per_type_energy_shifts": {"H": -0.1, "C": 0.05},
}

dynamic_shapes = {
    "pos": {0: Dim("N", min=1)},
    "edge_index": {1: Dim("E", min=0)},
    "atom_types": {0: Dim("N", min=1)},
}


@functools.cache
def _global_state() -> None:
    """nequip refuses to build a model before `set_global_state()`. That call also sets
    process-wide state meant for nequip's own scripts: the default dtype to float64, the
    global seeds, two torch._dynamo flags. Those are put back, so the rest of a test session
    runs as before; what nequip needs from it (its e3nn flags: `jit_mode="eager"` on torch
    >= 2.10, so no TorchScript) stays."""
    from nequip.utils.global_state import set_global_state

    dtype = torch.get_default_dtype()
    dynamo = {k: getattr(torch._dynamo.config, k) for k in ("capture_dynamic_output_shape_ops", "capture_scalar_outputs")}
    states = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    try:
        set_global_state()
    finally:
        torch.set_default_dtype(dtype)
        for k, v in dynamo.items():
            setattr(torch._dynamo.config, k, v)
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.random.set_rng_state(states[2])


@functools.cache
def build(name: str, model_dtype: str, do_derivatives: bool = False) -> torch.nn.Module:
    """The package's model, `model_dtype` "float32" or "float64". With `do_derivatives`
    the model's own `ForceStressOutput` takes the gradients (forces, virial) itself."""
    _global_state()
    if name == "nequip":
        from nequip.model import NequIPGNNModel

        return NequIPGNNModel(
            model_dtype=model_dtype,
            do_derivatives=do_derivatives,
            num_layers=2,
            l_max=1,
            parity=True,
            num_features=4,
            radial_mlp_depth=1,
            radial_mlp_width=8,
            num_bessels=4,
            **COMMON,
        )
    if name == "allegro":
        from allegro.model import AllegroModel

        return AllegroModel(
            model_dtype=model_dtype,
            do_derivatives=do_derivatives,
            l_max=1,
            parity=True,
            num_layers=1,
            num_scalar_features=8,
            num_tensor_features=4,
            radial_chemical_embed={"_target_": "allegro.nn.TwoBodyBesselScalarEmbed", "num_bessels": 4},
            scalar_embed_mlp_hidden_layers_depth=1,
            scalar_embed_mlp_hidden_layers_width=8,
            allegro_mlp_hidden_layers_depth=1,
            allegro_mlp_hidden_layers_width=8,
            readout_mlp_hidden_layers_depth=1,
            readout_mlp_hidden_layers_width=8,
            **COMMON,
        )
    raise ValueError(f"unknown model {name!r} (known: {', '.join(MODELS)})")


def energy_forces(name: str, model_dtype: str) -> Callable[..., tuple[Tensor, Tensor]]:
    from nequip.data import AtomicDataDict

    model = build(name, model_dtype)

    def energy_forces(pos: Tensor, edge_index: Tensor, atom_types: Tensor) -> tuple[Tensor, Tensor]:
        pos = pos.detach().requires_grad_(True)
        out = model({
            AtomicDataDict.POSITIONS_KEY: pos,
            AtomicDataDict.EDGE_INDEX_KEY: edge_index,
            AtomicDataDict.ATOM_TYPE_KEY: atom_types,
        })
        energy = out[AtomicDataDict.TOTAL_ENERGY_KEY]  # [1, 1]: one frame
        (grad,) = torch.autograd.grad(energy.sum(), pos)
        return energy.reshape(()), -grad

    return energy_forces


def package_outputs(name: str, model_dtype: str) -> Callable[..., tuple[Tensor, Tensor, Tensor]]:
    """fn(pos, edge_index, atom_types) -> (energy 0-d, forces [N, 3], virial [1, 3, 3]) as
    the model computes them itself (`do_derivatives=True`: the path nequip deploys, which
    takes `autograd.grad` of the energy with respect to the positions and a symmetric
    (3, 3) strain applied to them)."""
    from nequip.data import AtomicDataDict

    model = build(name, model_dtype, do_derivatives=True)

    def package_outputs(pos: Tensor, edge_index: Tensor, atom_types: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        out = model({
            AtomicDataDict.POSITIONS_KEY: pos,
            AtomicDataDict.EDGE_INDEX_KEY: edge_index,
            AtomicDataDict.ATOM_TYPE_KEY: atom_types,
        })
        return (out[AtomicDataDict.TOTAL_ENERGY_KEY].reshape(()), out[AtomicDataDict.FORCE_KEY],
                out[AtomicDataDict.VIRIAL_KEY])

    return package_outputs


def inputs(n_atoms: int, dtype: torch.dtype, seed: int) -> dict[str, Tensor]:
    """A random cluster, its radius graph (cutoff = the models' r_max), random species."""
    pos, edge_index = random_system(n_atoms, dtype=dtype, seed=seed)
    gen = torch.Generator().manual_seed(seed)
    atom_types = torch.randint(0, len(TYPE_NAMES), (n_atoms,), generator=gen)
    return {"pos": pos, "edge_index": edge_index, "atom_types": atom_types}
