"""Write a system file for deploy.c / deploy.cpp, and optionally eager torch's answer.

    python examples/deploy/make_system.py examples/schnet.py 50 system.txt [--dtype f64] [--reference]

The format, all text: "N E", then N lines "x y z species" (species 0 for models without
them), then E lines "i j" (edge_index[0][k], edge_index[1][k]). Floats are written with
repr, so a double reads back exactly and a float32 is exact too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def write_system(path: str | Path, inputs: dict[str, torch.Tensor]) -> None:
    """`inputs` as the example models take them: pos, edge_index and maybe species."""
    pos, edges = inputs["pos"], inputs["edge_index"]
    species = inputs.get("species", torch.zeros(pos.shape[0], dtype=torch.int64))
    lines = [f"{pos.shape[0]} {edges.shape[1]}"]
    lines += [" ".join(repr(float(v)) for v in p) + f" {int(s)}" for p, s in zip(pos.tolist(), species.tolist())]
    lines += [f"{i} {j}" for i, j in zip(edges[0].tolist(), edges[1].tolist())]
    Path(path).write_text("\n".join(lines) + "\n")


def main() -> None:
    from pipeline.examples import load_example

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a model file, e.g. examples/lennard_jones.py")
    parser.add_argument("atoms", type=int)
    parser.add_argument("output")
    parser.add_argument("--dtype", choices=["f32", "f64"], default="f32")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", action="store_true", help="print eager torch's energy and forces")
    args = parser.parse_args()
    dtype = {"f32": torch.float32, "f64": torch.float64}[args.dtype]
    example = load_example(args.model, dtype=dtype)
    inputs = example.make_inputs(args.atoms, dtype, args.seed)
    write_system(args.output, inputs)
    if args.reference:
        energy, forces = example.fn(*inputs.values())
        print(f"energy {energy.item()!r}\nforces {forces.shape[0]}")
        for f in forces.detach().tolist():
            print(" ".join(repr(v) for v in f))


if __name__ == "__main__":
    main()
