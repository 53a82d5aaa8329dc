"""fuse-sibling-loops on the graphs that once broke it, compiled with the IR verified
after every pass, against eager PyTorch.

- A sum read back inside a later loop over the same edges ((r * r.sum()).sum(),
  exp(-r / r.mean()), r ** r.mean()): the dependent loop was moved above the load
  it reads, and the compile died in LLVM translation.
- The three-body example (triplets of edges, gated dense layers, two blocks): a loop
  writing rows with vector.store merged with one reading them, so forces were wrong
  and varied from call to call. Compared at three untraced sizes, 20 calls
  bit-identical, on 1 and 2 threads.
"""

from __future__ import annotations

import functools

import pytest
import torch
from conftest import DTYPES, assert_close, model
from torch.export import Dim

from pipeline.compiler import compile

VARIANTS = {
    "r_times_sum": lambda r: (r * r.sum()).sum(),
    "exp_over_mean": lambda r: torch.exp(-r / r.mean()).sum(),
    "pow_mean": lambda r: (r ** r.mean()).sum(),
}


def pair_energy(energy):
    def f(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        v = pos.index_select(0, edge_index[1]) - pos.index_select(0, edge_index[0])
        r = torch.sqrt((v**2).sum(-1))
        e = energy(r)
        (g,) = torch.autograd.grad(e, pos)
        return e, -g

    return f


def system(n: int, e: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Random positions and edges without self pairs (r > 0, so every gradient is finite)."""
    gen = torch.Generator().manual_seed(seed)
    pos = torch.randn(n, 3, generator=gen, dtype=dtype)
    src = torch.randint(0, n, (e,), generator=gen)
    dst = (src + torch.randint(1, n, (e,), generator=gen)) % n
    return pos, torch.stack([src, dst])


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_sum_read_back_in_a_sibling_loop(variant: str, dtype: torch.dtype) -> None:
    f = pair_energy(VARIANTS[variant])
    pos, edge_index = system(20, 60, dtype, 0)
    native = compile(f, {"pos": pos, "edge_index": edge_index},
                     {"pos": {0: Dim("N")}, "edge_index": {1: Dim("E")}}, verify=True)
    for n, e in ((7, 15), (33, 100), (300, 2000)):
        pos, edge_index = system(n, e, dtype, n)
        for threads in (1, 2):
            native.num_threads = threads
            assert_close(native(pos, edge_index), f(pos, edge_index), dtype, f"{variant} N={n} threads={threads}")


@functools.cache
def three_body(dtype: torch.dtype):
    mod = model("three_body")
    fn = mod.energy_forces(dtype)
    return fn, compile(fn, mod.inputs(23, dtype, 0), mod.dynamic_shapes, verify=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_three_body_matches_eager_and_repeats(dtype: torch.dtype) -> None:
    fn, native = three_body(dtype)
    for n in (9, 40, 150):
        inputs = list(model("three_body").inputs(n, dtype, 100 + n).values())
        assert inputs[2].shape[1] > inputs[1].shape[1] // 2, "enough triplets to exercise them"
        want = fn(*inputs)
        for threads in (1, 2):
            native.num_threads = threads
            first = native(*inputs)
            assert_close(first, want, dtype, f"three-body N={n} threads={threads}")
            for _ in range(19):
                again = native(*inputs)
                assert all(torch.equal(a, b) for a, b in zip(again, first)), f"N={n} threads={threads}: calls differ"
