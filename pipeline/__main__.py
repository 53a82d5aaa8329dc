"""The `python -m pipeline` driver.

    python -m pipeline capture examples/mlp.py --emit fx|aten [--training] [--atoms N]
    python -m pipeline opt FILE.mlir -p pass1,pass2      (xdsl-opt with our dialects)
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

DTYPES = {"f32": torch.float32, "f64": torch.float64}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "opt":
        from pipeline.opt import main as opt_main

        opt_main(argv[1:])
        return 0

    parser = argparse.ArgumentParser(prog="python -m pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("opt", help="xdsl-opt with our dialects and passes (see `opt --help`)")
    cap = sub.add_parser("capture", help="capture a model file and print a stage")
    cap.add_argument("model", help="a model file, e.g. examples/mlp.py")
    cap.add_argument("--emit", choices=["fx", "aten"], default="aten", help="the stage to print")
    cap.add_argument("--training", action="store_true", help="the training variant")
    cap.add_argument("--atoms", type=int, default=None, help="atoms in the traced example")
    cap.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
    cap.add_argument("-o", "--output", help="write the stage here instead of stdout")
    args = parser.parse_args(argv)
    return _capture(args)


def _capture(args: argparse.Namespace) -> int:
    from pipeline import CaptureError, UnsupportedOpError, capture, to_aten
    from pipeline.examples import load_example

    example = load_example(args.model, training=args.training, dtype=DTYPES[args.dtype])
    n = args.atoms or example.default_atoms
    start = time.perf_counter()
    try:
        captured = capture(example.fn, example.make_inputs(n, DTYPES[args.dtype], 0), example.dynamic_shapes)
        text = captured.graph.code if args.emit == "fx" else str(to_aten(captured).module)
    except (CaptureError, UnsupportedOpError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    print(f"// {example.name}: captured at N={n} in {elapsed:.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
