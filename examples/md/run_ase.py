"""Molecular dynamics with ASE on a compiled potential: NVE velocity Verlet in a periodic cell.

    python examples/md/run_ase.py --model message_passing --repeat 4 --steps 500

Compiles a model of examples/md_potentials.py with `pipeline.compile_potential` (traced
once on a small cell: every size runs the same code), attaches `pipeline.md.ase.Calculator`
to an fcc Ar/Kr crystal, runs NVE and prints the energy drift and the speed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import ase.build  # noqa: E402
from ase import units  # noqa: E402
from ase.md.velocitydistribution import thermalize_momenta  # noqa: E402
from ase.md.verlet import VelocityVerlet  # noqa: E402

from examples import md_potentials  # noqa: E402
from pipeline import compile_potential  # noqa: E402
from pipeline.md.ase import Calculator, inputs  # noqa: E402


def crystal(repeat: int, seed: int = 0) -> ase.Atoms:
    """fcc Ar with 30% Kr, slightly rattled."""
    atoms = ase.build.bulk("Ar", "fcc", a=3.5, cubic=True).repeat(repeat)
    rng = np.random.default_rng(seed)
    atoms.positions += rng.normal(0.0, 0.05, atoms.positions.shape)
    atoms.set_chemical_symbols(rng.choice(md_potentials.SPECIES, len(atoms), p=[0.7, 0.3]))
    return atoms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(md_potentials.MODELS), default="message_passing")
    parser.add_argument("--repeat", type=int, default=4, help="unit cells per side (4 atoms each)")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    parser.add_argument("--temperature", type=float, default=40.0, help="initial temperature (K)")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)

    start = time.perf_counter()
    model = md_potentials.build(args.model, dtype)
    example = inputs(crystal(2), md_potentials.CUTOFF, md_potentials.SPECIES, dtype)
    potential = compile_potential(model, example, cutoff=md_potentials.CUTOFF, species=md_potentials.SPECIES,
                                  layers=md_potentials.MODELS[args.model][1])
    print(f"compiled {args.model} ({args.dtype}) in {time.perf_counter() - start:.1f} s")

    atoms = crystal(args.repeat)
    atoms.calc = Calculator(potential)
    thermalize_momenta(atoms, temperature_K=args.temperature, rng=np.random.default_rng(1))
    dyn = VelocityVerlet(atoms, timestep=2 * units.fs)
    total: list[float] = []
    dyn.attach(lambda: total.append(atoms.get_total_energy()), interval=10)
    start = time.perf_counter()
    dyn.run(args.steps)
    seconds = time.perf_counter() - start
    print(f"{len(atoms)} atoms, {args.steps} NVE steps of 2 fs: {args.steps / seconds:.1f} steps/s")
    print(f"total energy {total[0]:.6f} -> {total[-1]:.6f} eV, drift (max - min) {max(total) - min(total):.2e} eV, "
          f"temperature now {atoms.get_temperature():.1f} K")
    print(f"stress (eV/A^3, xx yy zz yz xz xy): {np.array2string(atoms.get_stress(), precision=6)}")


if __name__ == "__main__":
    main()
