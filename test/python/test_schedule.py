"""Schedules that run loops on threads, and loop shapes chosen from index arithmetic,
against eager PyTorch (value and gradient, f32 and f64, untraced sizes, 1 and 2 threads).

The e3nn pattern: per-edge outer products of features (32) with the components of
spherical harmonics (1, 3, 5), each flattened by a reshape (index j -> j / 5, j % 5)
and concatenated into one E x 288 tensor (slice assignments, `out[e, j + 32] = ...`),
then a weighted sum; its gradient slices the concatenation apart again.

The energy sums E x 288 terms of either sign: it is compared with the magnitude of its
terms (conftest.Sum), not with its value, which is a random walk sqrt(E x 288) terms
long while f32's rounding follows the terms.
"""

from __future__ import annotations

import functools

import pytest
import torch
from conftest import DTYPES, Sum, assert_close
from torch.export import Dim

from pipeline.compiler import compile


def energy_terms(x: torch.Tensor, sh: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """The E x 288 terms the energy sums."""
    e = x.shape[0]
    blocks = [(x[:, :, None] * sh[:, None, lo:hi]).reshape(e, 32 * (hi - lo)) for lo, hi in ((0, 1), (1, 4), (4, 9))]
    return torch.tanh(torch.cat(blocks, dim=1)) * w


def outer_products(x: torch.Tensor, sh: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
    x = x.detach().requires_grad_(True)
    sh = sh.detach().requires_grad_(True)
    energy = energy_terms(x, sh, w).sum()
    gx, gsh = torch.autograd.grad(energy, (x, sh))
    return energy, gx, gsh


def inputs(e: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return {"x": torch.randn(e, 32, generator=gen, dtype=dtype),
            "sh": torch.randn(e, 9, generator=gen, dtype=dtype),
            "w": torch.randn(288, generator=gen, dtype=dtype)}


@functools.cache
def compiled(dtype: torch.dtype):
    return compile(outer_products, inputs(17, dtype, 0), {"x": {0: Dim("E")}, "sh": {0: Dim("E")}, "w": None},
                   verify=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_concatenated_outer_products_match_eager(dtype: torch.dtype) -> None:
    native = compiled(dtype)
    concatenation = [line for line in native.ir("fused").splitlines()
                     if "te.scatter" in line and "tensor<?x288x" in line]
    assert len(concatenation) == 3 and all("te.parallel" in line for line in concatenation), concatenation
    for e in (1, 5, 130, 1000):
        args = inputs(e, dtype, e)
        want = outer_products(**args)
        energy = Sum.of(energy_terms(**args))
        for threads in (1, 2):
            native.num_threads = threads
            assert_close(native(**args), want, dtype, f"E={e} threads={threads}", sums={0: energy})
