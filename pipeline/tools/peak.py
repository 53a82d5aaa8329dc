"""The machine's ceiling, measured: what one thread can reach, to say how far a loop is from it.

Two numbers per float type, each measured once per process (cached):

- `fma_gflops(dtype)`: an FMA-bound loop, JIT-compiled for this CPU with llvmlite:
  `CHAINS` independent chains of vector FMAs (the widest vector the CPU has), enough
  to cover the FMA latency on every port; nothing else in the loop. The arithmetic
  ceiling: no real kernel beats it.
- `mm_gflops(dtype)`: torch.mm of two square 1024 x 1024 matrices (MKL/oneDNN's
  GEMM), one thread: the ceiling a tuned library reaches with memory traffic.

GFLOP/s count a multiply-add as two operations.
"""

from __future__ import annotations

import ctypes
import functools
import time

import llvmlite.binding as llvm
import torch

from codegen.llvm_ir import host_target_machine
from pipeline.compiler import NestProfile
from transforms.schedule import host_vector_bits

CHAINS = 12  # independent accumulators: FMA latency (4-5 cycles) x 2 ports, and some
ITERATIONS = 1 << 22

_IR = """
declare <{n} x {t}> @llvm.fma.v{n}{s}(<{n} x {t}>, <{n} x {t}>, <{n} x {t}>)

define {t} @fma_loop(i64 %iterations, {t} %seed) {{
entry:
  %x0 = insertelement <{n} x {t}> undef, {t} %seed, i32 0
  %x = shufflevector <{n} x {t}> %x0, <{n} x {t}> undef, <{n} x i32> zeroinitializer
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
{phis}
{fmas}
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %iterations
  br i1 %done, label %exit, label %loop
exit:
{sums}
  %r = extractelement <{n} x {t}> %s{last}, i32 0
  ret {t} %r
}}
"""


def _ir(dtype: torch.dtype) -> tuple[str, int]:
    """The FMA loop's LLVM IR for `dtype` and its lanes per vector."""
    t, s, bits = ("double", "f64", 64) if dtype == torch.float64 else ("float", "f32", 32)
    n = host_vector_bits() // bits
    phis = "\n".join(f"  %a{c} = phi <{n} x {t}> [ %x, %entry ], [ %b{c}, %loop ]" for c in range(CHAINS))
    fmas = "\n".join(f"  %b{c} = call <{n} x {t}> @llvm.fma.v{n}{s}(<{n} x {t}> %a{c}, <{n} x {t}> %x, <{n} x {t}> %x)"
                     for c in range(CHAINS))
    sums = "\n".join(f"  %s{c} = fadd <{n} x {t}> %{'s' if c > 1 else 'b'}{c - 1}, %b{c}" for c in range(1, CHAINS))
    return _IR.format(n=n, t=t, s=s, phis=phis, fmas=fmas, sums=sums, last=CHAINS - 1), n


@functools.cache
def fma_gflops(dtype: torch.dtype = torch.float32) -> float:
    """One thread's FMA ceiling in GFLOP/s (best of 3 runs)."""
    text, lanes = _ir(dtype)
    module = llvm.parse_assembly(text)
    module.verify()
    engine = llvm.create_mcjit_compiler(module, host_target_machine(jit=True))
    engine.finalize_object()
    ctype = ctypes.c_double if dtype == torch.float64 else ctypes.c_float
    loop = ctypes.CFUNCTYPE(ctype, ctypes.c_int64, ctype)(engine.get_function_address("fma_loop"))
    loop(1000, 1e-9)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        loop(ITERATIONS, 1e-9)
        best = min(best, time.perf_counter() - start)
    del engine
    return 2.0 * CHAINS * lanes * ITERATIONS / best / 1e9


@functools.cache
def mm_gflops(dtype: torch.dtype = torch.float32, size: int = 1024) -> float:
    """torch.mm's GFLOP/s on square `size` matrices, one thread (best of 5)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        gen = torch.Generator().manual_seed(0)
        a, b = (torch.randn(size, size, generator=gen, dtype=dtype) for _ in range(2))
        out = torch.empty(size, size, dtype=dtype)
        torch.mm(a, b, out=out)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            torch.mm(a, b, out=out)
            best = min(best, time.perf_counter() - start)
    finally:
        torch.set_num_threads(threads)
    return 2.0 * size**3 / best / 1e9


def fraction_of_peak(nest: NestProfile) -> float | None:
    """A profiled nest's GFLOP/s over one thread's FMA ceiling for its float type; None
    without float arithmetic. A parallel nest can exceed 1."""
    if not nest.dtype:
        return None
    return nest.gflops / fma_gflops(torch.float64 if nest.dtype == "f64" else torch.float32)
