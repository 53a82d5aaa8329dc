"""NequIP and Allegro from a `.nequip.zip` package: `pipeline.load_potential(path)`.

Each package is made the way nequip's users make one: `nequip-train` (one epoch on four
Si/O frames the test writes, labelled by ASE's Lennard-Jones) on a small model built by
nequip's constructors (`NequIPGNNModel`, two layers; `AllegroModel`, one layer; types Si
and O, r_max 4 A), then `nequip-package build` of the checkpoint. The compiled potential,
in process and as the exported `.so` loaded back, is compared through
`pipeline.md.ase.Calculator` with nequip's own ASE calculator on the same package
(`NequIPCalculator._from_saved_model`): energy, forces, stress on rattled diamond Si
(64 atoms) and a 96-atom cell with every seventh atom O.

NequIP runs with `model_dtype: float64` (house tolerance 1e-10), Allegro with
`model_dtype: float32` (nequip computes edge lengths and the per-type scale and shift in
float64 and the rest in float32, with float64 positions; both sides do, so 1e-5).
Needs the `models` and `md` extras (skipped without nequip).
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import TOLERANCE

pytest.importorskip("nequip", reason="the `models` extra: pip install -e '.[models]'")
pytest.importorskip("vesin", reason="the `md` extra: pip install -e '.[md]'")

import ase.build  # noqa: E402
import ase.io  # noqa: E402
from ase.calculators.lj import LennardJones  # noqa: E402

from pipeline.md.adapters import AdapterError  # noqa: E402
from pipeline.md.ase import Calculator  # noqa: E402
from pipeline.md.load import load_potential  # noqa: E402

BIN = Path(sys.executable).parent  # nequip-train and nequip-package, beside this python
MODELS = {
    "nequip": ("float64", """
    _target_: nequip.model.NequIPGNNModel
    num_layers: 2
    num_features: 4
    radial_mlp_depth: 1
    radial_mlp_width: 8
    num_bessels: 4"""),
    "allegro": ("float32", """
    _target_: allegro.model.AllegroModel
    num_layers: 1
    num_scalar_features: 8
    num_tensor_features: 4
    radial_chemical_embed: {_target_: allegro.nn.TwoBodyBesselScalarEmbed, num_bessels: 4}
    scalar_embed_mlp_hidden_layers_depth: 1
    scalar_embed_mlp_hidden_layers_width: 8
    allegro_mlp_hidden_layers_depth: 1
    allegro_mlp_hidden_layers_width: 8
    readout_mlp_hidden_layers_depth: 1
    readout_mlp_hidden_layers_width: 8"""),
}
LAYERS = {"nequip": 2, "allegro": 1}

CONFIG = """
run: [train]
seed: 1
cutoff_radius: 4.0
model_type_names: [Si, O]
data:
  _target_: nequip.data.datamodule.NequIPDataModule
  seed: ${{seed}}
  split_dataset:
    dataset:
      _target_: nequip.data.dataset.ASEDataset
      file_path: {data}
      transforms:
        - _target_: nequip.data.transforms.ChemicalSpeciesToAtomTypeMapper
          model_type_names: ${{model_type_names}}
          chemical_species_to_atom_type_map: {{Si: Si, O: O}}
        - _target_: nequip.data.transforms.NeighborListTransform
          r_max: ${{cutoff_radius}}
    train: 2
    val: 2
  train_dataloader: {{_target_: torch.utils.data.DataLoader, batch_size: 2}}
  val_dataloader: {{_target_: torch.utils.data.DataLoader, batch_size: 2}}
trainer:
  _target_: lightning.Trainer
  max_epochs: 1
  num_sanity_val_steps: 0
  logger: false
  enable_progress_bar: false
  callbacks:
    - {{_target_: lightning.pytorch.callbacks.ModelCheckpoint, dirpath: "${{hydra:runtime.output_dir}}", save_last: true}}
training_module:
  _target_: nequip.train.NequIPLightningModule
  loss: {{_target_: nequip.train.EnergyForceLoss, per_atom_energy: true}}
  val_metrics: {{_target_: nequip.train.EnergyForceMetrics}}
  optimizer: {{_target_: torch.optim.Adam, lr: 0.01}}
  model:
    seed: ${{seed}}
    model_dtype: {dtype}
    type_names: ${{model_type_names}}
    r_max: ${{cutoff_radius}}
    l_max: 1
    parity: true
    avg_num_neighbors: 16.0
    per_type_energy_shifts: {{Si: -4.0, O: -1.5}}
    per_type_energy_scales: {{Si: 1.1, O: 0.9}}{model}
"""


def _run(*cmd: str | Path, cwd: Path) -> None:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{cmd[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


def make_package(name: str, root: Path) -> Path:
    """`nequip-train` for one epoch, then `nequip-package build`: root/NAME.nequip.zip."""
    if not (BIN / "nequip-train").exists():
        pytest.skip(f"nequip's scripts are not in {BIN}")
    if name == "allegro":
        pytest.importorskip("allegro", reason="nequip-allegro (the `models` extra)")
    frames = []
    rng = np.random.default_rng(0)
    for k in range(4):
        atoms = ase.build.bulk("Si", "diamond", a=5.43, cubic=True)
        atoms.symbols[[k, k + 3]] = "O"
        atoms.positions += rng.normal(0.0, 0.05, atoms.positions.shape)
        atoms.calc = LennardJones(sigma=2.0, epsilon=0.1, rc=4.0)
        atoms.get_forces()
        frames.append(atoms)
    ase.io.write(root / "data.xyz", frames, format="extxyz")
    dtype, model = MODELS[name]
    (root / "conf.yaml").write_text(CONFIG.format(data=root / "data.xyz", dtype=dtype, model=model))
    _run(BIN / "nequip-train", "-cn", "conf", f"hydra.run.dir={root / 'train'}", cwd=root)
    package = root / f"{name}.nequip.zip"
    _run(BIN / "nequip-package", "build", root / "train" / "last.ckpt", package, cwd=root)
    return package


@contextlib.contextmanager
def nequip_global_state():
    """The process state nequip's calculator needs and sets, put back after. It calls
    `set_global_state()`, which sets the default dtype (float64), seeds and two
    torch._dynamo flags, but only the first time in a process: the default dtype is set
    here each time (under float32, nequip's `from_ase` makes positions and cell float32)."""
    dtype = torch.get_default_dtype()
    dynamo = {k: getattr(torch._dynamo.config, k) for k in ("capture_dynamic_output_shape_ops", "capture_scalar_outputs")}
    states = random.getstate(), np.random.get_state(), torch.random.get_rng_state()
    try:
        torch.set_default_dtype(torch.float64)
        yield
    finally:
        torch.set_default_dtype(dtype)
        for k, v in dynamo.items():
            setattr(torch._dynamo.config, k, v)
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.random.set_rng_state(states[2])


def cells() -> list[ase.Atoms]:
    """Rattled diamond Si, 2x2x2 cubic cells (64 atoms), and 2x2x3 (96) with every 7th atom O."""
    out = []
    for k, repeat in enumerate([(2, 2, 2), (2, 2, 3)]):
        atoms = ase.build.bulk("Si", "diamond", a=5.43, cubic=True).repeat(repeat)
        atoms.rattle(stdev=0.05, seed=k + 1)
        if k:
            atoms.symbols[::7] = "O"
        out.append(atoms)
    return out


def results(atoms: ase.Atoms, calc) -> dict[str, np.ndarray]:
    atoms = atoms.copy()
    atoms.calc = calc
    return {"energy": np.array(atoms.get_potential_energy()), "forces": atoms.get_forces(),
            "stress": atoms.get_stress()}


@pytest.fixture(scope="module", params=list(MODELS))
def loaded(request, tmp_path_factory) -> tuple[str, Path, dict]:
    """(name, the package, {"in-process": compiled potential, "library": its .so loaded back})."""
    name = request.param
    root = tmp_path_factory.mktemp(f"nequip_{name}")
    package = make_package(name, root)
    start = time.perf_counter()
    potential = load_potential(str(package))
    compiled = time.perf_counter() - start
    library = potential.export(root / "lib", name=f"{name}_si_o")
    print(f"\n{name}: load_potential (compile) {compiled:.1f} s")
    return name, package, {"in-process": potential, "library": load_potential(str(library))}


def test_adapter_reads_the_package(loaded) -> None:
    from pipeline.md.adapters.nequip import adapt

    name, package, potentials = loaded
    a = adapt(str(package), None)
    assert (a.species, a.cutoff, a.layers, a.dtype, a.name) == (("Si", "O"), 4.0, LAYERS[name], torch.float64,
                                                                f"nequip_{name}")
    lib = potentials["library"]
    assert (lib.species, lib.cutoff, lib.layers) == (("Si", "O"), 4.0, LAYERS[name])
    (package.parent / "other.nequip.zip").write_bytes(b"not a zip")
    with pytest.raises(AdapterError, match="nequip cannot load it"):
        adapt(str(package.parent / "other.nequip.zip"), None)


@pytest.mark.parametrize("which", ["in-process", "library"])
def test_matches_nequip_calculator(loaded, which: str) -> None:
    from nequip.integrations.ase import NequIPCalculator

    name, package, potentials = loaded
    tolerance = TOLERANCE[torch.float64 if MODELS[name][0] == "float64" else torch.float32]
    calc = Calculator(potentials[which])
    with nequip_global_state():
        own = NequIPCalculator._from_saved_model(str(package), device="cpu", chemical_species_to_atom_type_map=True)
        wanted = [results(atoms, own) for atoms in cells()]
    for atoms, want in zip(cells(), wanted):
        got = results(atoms, calc)
        for p in ("energy", "forces", "stress"):
            err = float(np.abs(got[p] - want[p]).max() / np.abs(want[p]).max())
            print(f"{name} {which} {len(atoms)} atoms {p}: {err:.1e} vs NequIPCalculator")
            assert err <= tolerance, (name, len(atoms), p, err)
