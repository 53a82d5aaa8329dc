"""Our generated dense layers against torch.mm at the shapes of the example models.

    PYTHONPATH=. .venv/bin/python bench/matmul.py [--threads 1]

For each (K, J) of a potential's dense layer (SchNet's 20 -> 32 and 32 -> 32 filters,
the MLP's 16 -> 64 and 64 -> 64, radial and readout MLPs of widths 128 and 256) and N
rows, it compiles `x @ W` (W a K x J weight, N dynamic; the schedule computes it in
register tiles of rows x vectors, `te.vector` and `te.tile`) and times it against
`torch.mm(x, W)` into a preallocated output, one thread each; medians. Ours includes
its call path (~5 us). `ours/mm` <= 1.25 is 80% of torch.mm's throughput.
"""

from __future__ import annotations

import argparse
import time

import torch
from torch.export import Dim

from pipeline.compiler import compile

SHAPES = [(20, 32), (32, 32), (16, 64), (64, 64), (64, 128), (128, 128), (128, 256), (256, 256)]
ROWS = [1024, 16384]


def median_time(f, seconds: float = 0.3) -> float:
    f()
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 5:
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def _layer(weight: torch.Tensor):
    def layer(x: torch.Tensor) -> tuple[torch.Tensor]:
        return (x @ weight,)

    return layer


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(0)
    print(f"threads = {args.threads}; f32; median per call")
    print(f"{'K x J':>9} {'N':>6} {'torch.mm':>10} {'ours':>10} {'ours/mm':>8}  {'GFLOP/s ours':>12}")
    for k, j in SHAPES:
        weight = torch.randn(k, j, generator=gen)
        layer = _layer(weight)

        compiled = compile(layer, {"x": torch.randn(23, k, generator=gen)}, {"x": {0: Dim("N")}})
        compiled.num_threads = args.threads
        for n in ROWS:
            x = torch.randn(n, k, generator=gen)
            out = torch.empty(n, j)
            (got,) = compiled(x)
            want = x @ weight
            err = ((got - want).abs().max() / want.abs().max()).item()
            assert err <= 1e-5, f"{k} x {j}, N = {n}: relative error {err:.1e}"
            mm = median_time(lambda: torch.mm(x, weight, out=out))
            ours = median_time(lambda: compiled(x))
            flops = 2.0 * n * k * j
            print(f"{k:>4} x {j:<3} {n:>6} {mm * 1e6:>8.1f}us {ours * 1e6:>8.1f}us {ours / mm:>8.2f}  "
                  f"{flops / ours / 1e9:>12.1f}")


if __name__ == "__main__":
    main()
