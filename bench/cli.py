"""Benchmark: ours against eager PyTorch, torch.compile and AOTInductor; the command line.

    python -m pipeline bench [--quick] [--models mlp,schnet] [--sizes 32,1024] [--threads 1,2]
                             [--json PATH] [--contenders eager,ours] [--no-memory] ...

For each model, thread count and size (atoms N; edges E ~ 30 N come from the examples'
neighbor lists) it times one energy+forces call of every contender. The models: the four
examples (examples/<name>.py, f32), then the real potentials NequIP, Allegro and MACE
(examples/real_models.py, f64), each skipped where its package does not import.
Every contender is compiled once per model (all are dynamic in N and E), in a fresh
process per model, and checked against eager at every size before it is timed. The
measurements of one size are interleaved round robin. See bench/README.md.

The modules of bench/, one job each, each importing only those listed before it:

    registry.py     the models and the contenders (names, sizes, dtypes)
    report.py       the table, the JSON file, the ratios and summary derived from the runs
    records.py      the records a worker sends the parent (JSON lines in a file)
    contenders.py   how each contender is compiled from a model's function
    measure.py      timing of one size, peak memory of one call
    worker.py       the subprocess that benches one model (`--_worker`)
    driver.py       the parent: a worker per model, the results gathered and written
    cli.py          this file: the options, and `main`, the one entry of both processes

Workers are started as `python -m bench --_worker ...`, so parent and child parse one
command line; the hidden `--_*` options are the only ones a user does not type.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from bench import driver, worker
from bench.registry import (ALIASES, CONTENDERS, FULL_SIZES, FULL_THREADS, GRID, LABELS, MODELS, QUICK_GRID,
                            QUICK_THREADS, REAL_SIZES, ROOT)


def _list(kind: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    def parse(text: str) -> list[Any]:
        return [kind(t) for t in text.replace(" ", ",").split(",") if t]

    return parse


def _model_name(text: str) -> str:
    if text in GRID:
        return text
    name = ALIASES.get(text.lower(), text.lower())
    if name not in MODELS:
        raise argparse.ArgumentTypeError(
            f"unknown model '{text}' (models: {', '.join(MODELS)}; aliases: {', '.join(ALIASES)}; "
            "or a cell of --grid, e.g. nequip-f32-l2-L4-n50)")
    return name


def _contender(text: str) -> str:
    if text not in CONTENDERS:
        raise argparse.ArgumentTypeError(f"unknown contender '{text}' (contenders: {', '.join(CONTENDERS)})")
    return text


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m pipeline bench",
        description="Time energy+forces of the example and real models: ours vs eager, torch.compile, AOTInductor.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"contenders: {', '.join(f'{k} ({v})' for k, v in LABELS.items())}\n"
               "full run: N = 32, 1024, 16384 (real models 64, 512, 2048); threads 1, 2. See bench/README.md.",
    )
    p.add_argument("--quick", action="store_true",
                   help="the first two sizes of each model, 1 thread, fewer repeats (a few minutes for the examples)")
    p.add_argument("--grid", action="store_true",
                   help=f"the grid of widths, depths and densities ({len(GRID)} cells, N = 512, 2048; contenders "
                        f"eager, aoti, ours unless --contenders); with --quick {len(QUICK_GRID)} of them at N = 512")
    p.add_argument("--models", type=_list(_model_name), default=None,
                   help=f"comma-separated, default all: {','.join(MODELS)}")
    p.add_argument("--sizes", type=_list(int), default=None,
                   help="atom counts for every model, e.g. 32,1024,16384 (default per model: "
                        f"examples {','.join(map(str, FULL_SIZES))}, real models {','.join(map(str, REAL_SIZES))})")
    p.add_argument("--threads", type=_list(int), default=None, help="thread counts, e.g. 1,2")
    p.add_argument("--contenders", type=_list(_contender), default=None,
                   help=f"comma-separated subset of {','.join(CONTENDERS)} (eager is always run: it is the reference)")
    p.add_argument("--json", default=str(ROOT / "bench" / "results" / "latest.json"),
                   help="where to write the results (default bench/results/latest.json)")
    p.add_argument("--target-s", type=float, default=None,
                   help="timed seconds per contender and size (default 0.75; --quick 0.25)")
    p.add_argument("--min-repeats", type=int, default=5, help="timed calls at least (default 5)")
    p.add_argument("--max-repeats", type=int, default=5000, help="timed calls at most (default 5000)")
    p.add_argument("--warmup-s", type=float, default=None,
                   help="untimed warm-up seconds per contender and size, after the checked first call "
                        "(at least one call; default 0.1; --quick 0.05)")
    p.add_argument("--compile-atoms", type=int, default=23,
                   help="atoms of the example every contender is compiled with (default 23)")
    p.add_argument("--rtol", type=float, default=1e-4,
                   help="correctness guard: max|got - eager| / max|eager| per output (default 1e-4)")
    p.add_argument("--dynamic-threads", action="store_true",
                   help="compile the inductor contenders once per model (under the largest thread count) with "
                        "torch._inductor.config.cpp.dynamic_threads = True, instead of once per thread count; "
                        "faster, but see bench/README.md: a recompile under another thread count can be wrong")
    p.add_argument("--tune", default="quick",
                   help="ours' register tiles (pipeline.compile's tune=): quick (cached, the default), full "
                        "(measured at the largest size of the cell), SECONDS, or off")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    p.add_argument("--worker-timeout", type=float, default=3600.0,
                   help="seconds one model's subprocess may take (default 3600)")
    p.add_argument("--_worker", choices=["timing", "memory"], help=argparse.SUPPRESS)
    p.add_argument("--_config", help=argparse.SUPPRESS)
    p.add_argument("--_out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.grid and args.models is not None:
        p.error("--grid and --models: choose one (grid cells can be given to --models by name)")
    if args.models is None:
        args.models = (QUICK_GRID if args.quick else list(GRID)) if args.grid else list(MODELS)
    if args.threads is None:
        args.threads = QUICK_THREADS if args.quick else FULL_THREADS
    if args.contenders is None:  # the grid asks for ours against eager and AOTInductor
        args.contenders = ["eager", "aoti", "ours"] if args.grid else list(CONTENDERS)
    args.contenders = [c for c in CONTENDERS if c in args.contenders or c == "eager"]
    if args.target_s is None:
        args.target_s = 0.25 if args.quick else 0.75
    if args.warmup_s is None:
        args.warmup_s = 0.05 if args.quick else 0.1
    if args.sizes is not None and any(n < 2 for n in args.sizes):
        p.error("--sizes: every size must be at least 2 atoms")
    if any(t < 1 for t in args.threads):
        p.error("--threads: every thread count must be at least 1")
    if args.min_repeats < 1 or args.max_repeats < args.min_repeats:
        p.error("need 1 <= --min-repeats <= --max-repeats")
    return args


def main(argv: list[str]) -> int:
    """`python -m bench ARGS`: a run (the parent), or with `--_worker` one model's worker."""
    args = parse_args(list(argv))
    if args._worker:
        return worker.main(args)
    args.argv = ["bench", *argv]
    return driver.main(args)
