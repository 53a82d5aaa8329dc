"""Compile a potential of examples/md_potentials.py and export it for an MD engine.

    python examples/md/export_potential.py --model message_passing -o build/md

writes build/md/<model>.so (with `pipeline_potential()`: cutoff, layers, species names),
its header and manifest: what `pair_coeff * * build/md/<model>.so Ar Kr` loads in LAMMPS.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).parent)]

from examples import md_potentials  # noqa: E402
from examples.md_potentials import CUTOFF, SPECIES  # noqa: E402
from pipeline import compile_potential  # noqa: E402
from pipeline.md.ase import inputs  # noqa: E402
from run_ase import crystal  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(md_potentials.MODELS), default="message_passing")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    parser.add_argument("-o", "--output", required=True, help="directory for <model>.so, .h, .json")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    start = time.perf_counter()
    example = inputs(crystal(2), CUTOFF, SPECIES, dtype)  # traced once: any size runs
    potential = compile_potential(md_potentials.build(args.model, dtype), example, cutoff=CUTOFF,
                                  species=SPECIES, layers=md_potentials.MODELS[args.model][1])
    library = potential.export(args.output, name=args.model)
    print(f"{library} ({args.dtype}, cutoff {CUTOFF}, {potential.layers} layer(s), species {' '.join(SPECIES)}; "
          f"{time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
