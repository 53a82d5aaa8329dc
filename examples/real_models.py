"""Real interatomic potentials, built by their packages' own constructors.

NequIP (`nequip.model.NequIPGNNModel`) and Allegro (`allegro.model.AllegroModel`), from
the `models` extra, and MACE (mace-torch's `ScaleShiftMACE`), which pins e3nn 0.4.4 and so
cannot share a venv with nequip's e3nn 0.6.0: it is built only where `import mace` works.
Two species, random weights from a fixed seed, run as shipped: no package code is patched.
The float dtype is the model's own (`model_dtype` for nequip and allegro; MACE is built
under that default dtype, as its own tools do).

`energy_forces(name, model_dtype, config)` returns the function the compiler captures,
fn(pos [N, 3], edge_index [2, E] int64, atom_types [N] int64) -> (energy 0-d, forces
[N, 3]): the energy through the model's forward (without the package's own derivatives),
forces = -dE/dpos by `torch.autograd.grad`. `inputs` and `dynamic_shapes` are shared by
all three models.

Configurations (`CONFIGS`):

- "small" (two species, l_max = 1, a few channels): what test/python/test_models.py
  compiles, small enough that a test traces and checks it in seconds;
- "bench" (what `python -m pipeline bench` times): sizes of the kind people train and run
  MD with, not test toys, so that the timings say something about real use: l_max = 2
  (the packages' "more accurate" setting, where the tensor products dominate the cost),
  8 Bessel functions, MLPs 64 wide, but 2 layers / interactions, so that the cold compiles
  of every contender stay within minutes on a small machine. NequIP: 32 features (its
  default), radial MLP 2 x 64. Allegro: 64 scalar and 16 tensor features, Allegro MLPs
  2 x 64. MACE: hidden irreps 8x0e+8x1o, max_ell 2, correlation 3, 2 interactions (the
  rest as mace's `run_train` defaults). The bench runs them in float64 with float64
  positions: the precision MLIP users run MD in.

Dtypes, as nequip has them: the per-atom energies are scaled, shifted and summed in
float64 whatever `model_dtype` is, so the energy is float64 always; the forces have the
positions' dtype. nequip's own data pipeline keeps positions in float64 and casts to
`model_dtype` inside; positions in `model_dtype` run too. MACE needs positions in its dtype.
"""

from __future__ import annotations

import functools
import importlib
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch.export import Dim

from examples.common import CUTOFF, random_system

TYPE_NAMES = ["H", "C"]
ATOMIC_NUMBERS = [1, 6]
MODELS = ["nequip", "allegro", "mace"]  # also the names of their packages' modules

# Shared by nequip's builders (its `model_builder` requires seed, model_dtype, type_names).
COMMON = {
    "seed": 0,
    "type_names": TYPE_NAMES,
    "r_max": CUTOFF,
    "avg_num_neighbors": 20.0,
    "per_type_energy_scales": {"H": 1.1, "C": 0.9},
    "per_type_energy_shifts": {"H": -0.1, "C": 0.05},
}

# model -> configuration -> the size arguments of its package's constructor
CONFIGS: dict[str, dict[str, dict[str, Any]]] = {
    "nequip": {
        "small": {"num_layers": 2, "l_max": 1, "parity": True, "num_features": 4,
                  "radial_mlp_depth": 1, "radial_mlp_width": 8, "num_bessels": 4},
        "bench": {"num_layers": 2, "l_max": 2, "parity": True, "num_features": 32,
                  "radial_mlp_depth": 2, "radial_mlp_width": 64, "num_bessels": 8},
    },
    "allegro": {
        "small": {
            "l_max": 1, "parity": True, "num_layers": 1, "num_scalar_features": 8, "num_tensor_features": 4,
            "radial_chemical_embed": {"_target_": "allegro.nn.TwoBodyBesselScalarEmbed", "num_bessels": 4},
            "scalar_embed_mlp_hidden_layers_depth": 1, "scalar_embed_mlp_hidden_layers_width": 8,
            "allegro_mlp_hidden_layers_depth": 1, "allegro_mlp_hidden_layers_width": 8,
            "readout_mlp_hidden_layers_depth": 1, "readout_mlp_hidden_layers_width": 8,
        },
        "bench": {
            "l_max": 2, "parity": True, "num_layers": 2, "num_scalar_features": 64, "num_tensor_features": 16,
            "radial_chemical_embed": {"_target_": "allegro.nn.TwoBodyBesselScalarEmbed", "num_bessels": 8},
            "scalar_embed_mlp_hidden_layers_depth": 1, "scalar_embed_mlp_hidden_layers_width": 64,
            "allegro_mlp_hidden_layers_depth": 2, "allegro_mlp_hidden_layers_width": 64,
            "readout_mlp_hidden_layers_depth": 1, "readout_mlp_hidden_layers_width": 32,
        },
    },
    "mace": {
        "bench": {"hidden_irreps": "8x0e + 8x1o", "max_ell": 2, "correlation": 3, "num_interactions": 2,
                  "num_bessel": 8, "num_polynomial_cutoff": 5, "MLP_irreps": "16x0e", "radial_MLP": [64, 64, 64]},
    },
}

dynamic_shapes = {
    "pos": {0: Dim("N", min=1)},
    "edge_index": {1: Dim("E", min=0)},
    "atom_types": {0: Dim("N", min=1)},
}


def register_config(name: str, key: str, sizes: dict[str, Any]) -> str:
    """Configuration `key` of model `name`: its "bench" configuration with `sizes`
    changed (the benchmark's grid); returns key."""
    CONFIGS[name][key] = {**CONFIGS[name]["bench"], **sizes}
    return key


def unavailable(name: str) -> str | None:
    """Why `name` cannot be built in this interpreter (its package, of that name, does not
    import), or None. Any exception counts, not only ImportError: a package built against
    another e3nn may fail in other ways while it imports."""
    try:
        importlib.import_module(name)
    except Exception as e:  # noqa: BLE001
        why = f"`import {name}` fails here ({type(e).__name__}: {e})"
        if name == "mace":
            why += "; mace-torch pins e3nn 0.4.4 and nequip needs 0.6.0, so it needs a venv of its own"
        return why
    return None


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
def build(name: str, model_dtype: str, config: str, do_derivatives: bool = False) -> torch.nn.Module:
    """The package's model in configuration `config` ("small" or "bench"), `model_dtype`
    "float32" or "float64". With `do_derivatives` (nequip and allegro) the model's own
    `ForceStressOutput` takes the gradients (forces, virial) itself."""
    if name == "mace":
        return _build_mace(model_dtype, **CONFIGS[name][config])
    _global_state()
    if name == "nequip":
        from nequip.model import NequIPGNNModel as constructor
    elif name == "allegro":
        from allegro.model import AllegroModel as constructor
    else:
        raise ValueError(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    return constructor(model_dtype=model_dtype, do_derivatives=do_derivatives, **CONFIGS[name][config], **COMMON)


def _build_mace(model_dtype: str, hidden_irreps: str, MLP_irreps: str, **sizes: Any) -> torch.nn.Module:
    """mace's `ScaleShiftMACE` with its standard residual interaction blocks, built under
    `model_dtype` as the default dtype (so its buffers are computed in it), weights from
    seed 0; the global default dtype and RNG are left as they were."""
    # mace first: it sets TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD, without which e3nn 0.4.4's
    # import (a torch.load of its constants) fails on torch >= 2.6
    import mace  # noqa: F401
    from e3nn import o3
    from mace import modules

    interaction = modules.interaction_classes["RealAgnosticResidualInteractionBlock"]
    dtype = torch.get_default_dtype()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        torch.set_default_dtype(getattr(torch, model_dtype))
        try:
            return modules.ScaleShiftMACE(
                r_max=CUTOFF,
                num_elements=len(TYPE_NAMES),
                atomic_numbers=ATOMIC_NUMBERS,
                atomic_energies=np.array([-0.1, 0.05]),
                avg_num_neighbors=COMMON["avg_num_neighbors"],
                interaction_cls=interaction,
                interaction_cls_first=interaction,
                hidden_irreps=o3.Irreps(hidden_irreps),
                MLP_irreps=o3.Irreps(MLP_irreps),
                gate=torch.nn.functional.silu,
                atomic_inter_scale=1.0,
                atomic_inter_shift=0.0,
                **sizes,
            )
        finally:
            torch.set_default_dtype(dtype)


def energy_forces(name: str, model_dtype: str, config: str) -> Callable[..., tuple[Tensor, Tensor]]:
    if name == "mace":
        return _mace_energy_forces(build(name, model_dtype, config))
    from nequip.data import AtomicDataDict

    model = build(name, model_dtype, config)

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


def _mace_energy_forces(model: torch.nn.Module, num_types: int = len(TYPE_NAMES)) -> Callable[..., tuple[Tensor, Tensor]]:
    """MACE takes a batch of graphs: one graph (batch all 0, ptr [0, N]), no periodic
    shifts, species one-hot over `num_types` (the model's elements); `compute_force=False`,
    so the gradient is ours as for nequip."""

    def energy_forces(pos: Tensor, edge_index: Tensor, atom_types: Tensor) -> tuple[Tensor, Tensor]:
        pos = pos.detach().requires_grad_(True)
        batch = torch.zeros_like(atom_types)
        out = model({
            "positions": pos,
            "edge_index": edge_index,
            "node_attrs": torch.nn.functional.one_hot(atom_types, num_types).to(pos.dtype),
            "batch": batch,
            # [0, N] from tensors: torch.tensor([0, N]) would bake the traced N into the graph
            "ptr": torch.stack([batch[0], batch[0] + atom_types.shape[0]]),
            "shifts": pos.new_zeros(edge_index.shape[1], 3),
            "cell": pos.new_zeros(1, 3, 3),
        }, compute_force=False)
        energy = out["energy"]  # [1]: one graph
        (grad,) = torch.autograd.grad(energy.sum(), pos)
        return energy.reshape(()), -grad

    return energy_forces


def per_atom_energies(name: str, model_dtype: str, config: str) -> Callable[..., Tensor]:
    """model(species [N], positions [N, 3], edge_index [2, E], shifts [E, 3]) -> energies [N]:
    the protocol of `pipeline.compile_potential`, for MD in periodic cells. The Cartesian
    shifts go in as nequip's `edge_cell_shift` with an identity cell (its edge vectors are
    pos[j] - pos[i] + shift @ cell) and as MACE's `shifts` (pos[j] - pos[i] + shifts)."""
    model = build(name, model_dtype, config)
    if name == "mace":
        def mace_energies(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
            batch = torch.zeros_like(species)
            return model({
                "positions": positions, "edge_index": edge_index, "shifts": shifts,
                "node_attrs": torch.nn.functional.one_hot(species, len(TYPE_NAMES)).to(positions.dtype),
                "batch": batch, "ptr": torch.stack([batch[0], batch[0] + species.shape[0]]),
                "cell": positions.new_zeros(1, 3, 3),
            }, compute_force=False)["node_energy"]

        return mace_energies
    from nequip.data import AtomicDataDict

    def nequip_energies(species: Tensor, positions: Tensor, edge_index: Tensor, shifts: Tensor) -> Tensor:
        out = model({
            AtomicDataDict.POSITIONS_KEY: positions,
            AtomicDataDict.EDGE_INDEX_KEY: edge_index,
            AtomicDataDict.ATOM_TYPE_KEY: species,
            AtomicDataDict.CELL_KEY: torch.eye(3, dtype=positions.dtype)[None],
            AtomicDataDict.EDGE_CELL_SHIFT_KEY: shifts,
        })
        return out[AtomicDataDict.PER_ATOM_ENERGY_KEY].reshape(-1)

    return nequip_energies


def package_outputs(name: str, model_dtype: str, config: str) -> Callable[..., tuple[Tensor, Tensor, Tensor]]:
    """fn(pos, edge_index, atom_types) -> (energy 0-d, forces [N, 3], virial [1, 3, 3]) as
    a nequip or allegro model computes them itself (`do_derivatives=True`: the path nequip
    deploys, which takes `autograd.grad` of the energy with respect to the positions and a
    symmetric (3, 3) strain applied to them)."""
    from nequip.data import AtomicDataDict

    model = build(name, model_dtype, config, do_derivatives=True)

    def package_outputs(pos: Tensor, edge_index: Tensor, atom_types: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        out = model({
            AtomicDataDict.POSITIONS_KEY: pos,
            AtomicDataDict.EDGE_INDEX_KEY: edge_index,
            AtomicDataDict.ATOM_TYPE_KEY: atom_types,
        })
        return (out[AtomicDataDict.TOTAL_ENERGY_KEY].reshape(()), out[AtomicDataDict.FORCE_KEY],
                out[AtomicDataDict.VIRIAL_KEY])

    return package_outputs


def inputs(n_atoms: int, dtype: torch.dtype, seed: int, neighbors: float = 30.0) -> dict[str, Tensor]:
    """A random cluster of `neighbors` atoms per cutoff sphere (fewer at its surface), its
    radius graph (cutoff = the models' r_max), random species."""
    pos, edge_index = random_system(n_atoms, dtype=dtype, seed=seed, neighbors=neighbors)
    gen = torch.Generator().manual_seed(seed)
    atom_types = torch.randint(0, len(TYPE_NAMES), (n_atoms,), generator=gen)
    return {"pos": pos, "edge_index": edge_index, "atom_types": atom_types}
