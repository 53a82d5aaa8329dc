"""Our generated dense layers against torch.mm, on a grid of the shapes potentials use.

    PYTHONPATH=. .venv/bin/python bench/matmul.py [--threads 1] [--dtypes f32,f64] [--quick]

Every (K, J) with K, J in 16, 32, 64, 128, 256 (a layer `x @ W`, W a K x J weight, N
rows dynamic: the schedule computes it in register tiles of rows x vectors, `te.vector`
and `te.tile`), at N = 1024 and 16384, f32 and f64, against `torch.mm(x, W)`; one
thread each, medians. Both allocate their output, as a model's layer does (an output
over glibc's 32 MB mmap threshold is fresh pages every call: ~1 ms per 8 MB of page
faults, on both sides). Ours includes its call path (~5 us).
`ours/mm` <= 1.25 is 80% of torch.mm's throughput. `peak` is ours' share of this
CPU's FMA peak (`pipeline/tools/peak.py`). `+act` times `silu(x @ W + b)`, compiled
as one nest, over `x @ W`: the bias and the activation are free when it is ~1.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import torch
from torch.export import Dim

from pipeline.compiler import compile
from pipeline.tools.peak import fma_gflops

WIDTHS = [16, 32, 64, 128, 256]
ROWS = [1024, 16384]
DTYPES = {"f32": torch.float32, "f64": torch.float64}


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


def _activated(weight: torch.Tensor, bias: torch.Tensor):
    def activated(x: torch.Tensor) -> tuple[torch.Tensor]:
        return (torch.nn.functional.silu(x @ weight + bias),)

    return activated


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dtypes", default="f32,f64", help="comma-separated: f32, f64")
    p.add_argument("--quick", action="store_true", help="K, J in 32 and 128 only")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    widths = [32, 128] if args.quick else WIDTHS
    print(f"threads = {args.threads}; median per call")
    print(f"{'dtype':>5} {'K x J':>9} {'N':>6} {'torch.mm':>10} {'ours':>10} {'ours/mm':>8} "
          f"{'GFLOP/s':>8} {'peak':>5} {'+act':>5}")
    ratios = []
    for name in args.dtypes.split(","):
        dtype = DTYPES[name]
        peak = fma_gflops(dtype) * args.threads
        gen = torch.Generator().manual_seed(0)
        tolerance = 1e-5 if dtype == torch.float32 else 1e-10
        for k, j in itertools.product(widths, widths):
            weight = torch.randn(k, j, generator=gen, dtype=dtype)
            bias = torch.randn(j, generator=gen, dtype=dtype)
            example = {"x": torch.randn(23, k, generator=gen, dtype=dtype)}
            compiled = compile(_layer(weight), example, {"x": {0: Dim("N")}})
            fused = compile(_activated(weight, bias), example, {"x": {0: Dim("N")}})
            compiled.num_threads = fused.num_threads = args.threads
            for n in ROWS:
                x = torch.randn(n, k, generator=gen, dtype=dtype)
                want = x @ weight
                for got, ref in ((compiled(x)[0], want), (fused(x)[0], torch.nn.functional.silu(want + bias))):
                    err = ((got - ref).abs().max() / ref.abs().max()).item()
                    assert err <= tolerance, f"{name} {k} x {j}, N = {n}: relative error {err:.1e}"
                mm = median_time(lambda: torch.mm(x, weight))
                ours = median_time(lambda: compiled(x))
                act = median_time(lambda: fused(x))
                gflops = 2.0 * n * k * j / ours / 1e9
                ratios.append(ours / mm)
                print(f"{name:>5} {k:>4} x {j:<3} {n:>6} {mm * 1e6:>8.1f}us {ours * 1e6:>8.1f}us {ours / mm:>8.2f} "
                      f"{gflops:>8.1f} {gflops / peak:>5.0%} {act / ours:>5.2f}")
    print(f"ours/mm: worst {max(ratios):.2f}, geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} "
          f"over {len(ratios)} cells")


if __name__ == "__main__":
    main()
