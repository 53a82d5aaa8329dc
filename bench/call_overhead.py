"""The cost of the Python call path of a compiled function, apart from its native code.

    PYTHONPATH=. .venv/bin/python bench/call_overhead.py

Compiles a trivial energy+forces (E = sum x^2 over N x 3, one thread) and times, per
call, `compiled(x)` (argument checks, output allocation, the native call) against the
bare ctypes call of the kernel with prepared pointers; the difference is the Python
path's cost.
"""

from __future__ import annotations

import ctypes
import time

import torch
from torch.export import Dim

from pipeline.compiler import compile


def energy_forces(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x = x.detach().requires_grad_(True)
    energy = (x * x).sum()
    (grad,) = torch.autograd.grad(energy, x)
    return energy, -grad


def per_call(f, repeat: int = 2000, rounds: int = 15) -> float:
    for _ in range(repeat):
        f()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            f()
        times.append((time.perf_counter() - start) / repeat)
    return sorted(times)[len(times) // 2]


def main() -> None:
    x = torch.randn(4, 3)
    compiled = compile(energy_forces, {"x": x}, {"x": {0: Dim("N")}})
    compiled.num_threads = 1
    energy, forces = torch.empty(()), torch.empty(4, 3)
    status = ctypes.c_int32(0)
    arenas = [a.data_ptr() for a in compiled.workspace([4])] if compiled.signature.arenas else []
    pointers = (4, x.data_ptr(), energy.data_ptr(), forces.data_ptr(), ctypes.addressof(status), 1, *arenas)
    full = per_call(lambda: compiled(x))
    bare = per_call(lambda: compiled._native(*pointers))
    print(f"compiled(x): {full * 1e6:.2f} us; the kernel through ctypes: {bare * 1e6:.2f} us; "
          f"the Python path: {(full - bare) * 1e6:.2f} us")


if __name__ == "__main__":
    main()
