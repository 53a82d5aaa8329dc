"""Calls on a busy machine: default thread settings against `num_threads=1`.

    PYTHONPATH=. .venv/bin/python bench/oversubscription.py [--model examples/lennard_jones.py]

Molecular dynamics runs one MPI rank per core, shared machines and CI run other
jobs: a parallel loop whose team waits for a thread that has no core can cost a
scheduler time slice per region. This starts one busy-loop process per core, then
times, interleaved, calls of one compiled potential with its default thread count
and with one thread, at several sizes; and the same without load, for reference.
The ratio default / one thread should stay near 1 under load (<= 2 is the bar).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

import torch


def busy() -> None:
    while True:
        pass


def per_call(f, budget: float = 0.4) -> float:
    """Median seconds of f over rounds of about `budget` / 5 seconds each."""
    f()
    start = time.perf_counter()
    f()
    once = max(time.perf_counter() - start, 1e-7)
    repeat = max(1, int(budget / 5 / once))
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            f()
        times.append((time.perf_counter() - start) / repeat)
    return statistics.median(times)


def measure(native, inputs: dict[int, list[torch.Tensor]], default_threads: int) -> dict[int, tuple[float, float]]:
    out = {}
    for n, args in inputs.items():
        rounds = {"default": [], "one": []}
        for _ in range(3):  # interleaved, so both see the same load
            for label, threads in (("default", default_threads), ("one", 1)):
                native.num_threads = threads
                rounds[label].append(per_call(lambda: native(*args)))
        out[n] = (statistics.median(rounds["default"]), statistics.median(rounds["one"]))
    native.num_threads = default_threads
    return out


def main() -> None:
    from pipeline.compiler import compile
    from pipeline.examples import load_example

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="examples/lennard_jones.py")
    parser.add_argument("--atoms", type=int, nargs="+", default=[64, 1000, 16384])
    args = parser.parse_args()
    example = load_example(args.model)
    native = compile(example.fn, example.make_inputs(example.default_atoms, torch.float32, 0), example.dynamic_shapes)
    default_threads = native.num_threads
    inputs = {n: list(example.make_inputs(n, torch.float32, 1).values()) for n in args.atoms}
    cores = len(os.sched_getaffinity(0))
    print(f"{example.name}, f32, {cores} cores, default num_threads = {default_threads}")

    idle = measure(native, inputs, default_threads)
    workers = [multiprocessing.Process(target=busy, daemon=True) for _ in range(cores)]
    for w in workers:
        w.start()
    try:
        time.sleep(1.0)
        loaded = measure(native, inputs, default_threads)
    finally:
        for w in workers:
            w.terminate()
    print(f"{'N':>6} | {'idle default':>12} {'idle 1 thr':>10} | {'busy default':>12} {'busy 1 thr':>10} {'ratio':>6}")
    for n in args.atoms:
        (di, oi), (dl, ol) = idle[n], loaded[n]
        print(f"{n:>6} | {di * 1e6:>10.1f}us {oi * 1e6:>8.1f}us | {dl * 1e6:>10.1f}us {ol * 1e6:>8.1f}us {dl / ol:>6.2f}")


if __name__ == "__main__":
    main()
