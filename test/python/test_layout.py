"""rows-first against eager PyTorch: temporaries that aten builds static dims first
(per-element weights `U @ attrs.T`, a batched product over a leading batch dim) are
laid out atoms first, and the numbers do not change (value and gradient, f32 and f64,
untraced sizes, 1 and 2 threads)."""

from __future__ import annotations

import functools
import re

import pytest
import torch
from conftest import DTYPES, assert_close
from torch.export import Dim

from pipeline.compiler import compile


def per_atom_weights(x: torch.Tensor, attrs: torch.Tensor, u: torch.Tensor, wb: torch.Tensor) -> tuple[torch.Tensor, ...]:
    x = x.detach().requires_grad_(True)
    n = x.shape[0]
    w = u @ attrs.T  # 6 x N
    h = x * w.T
    b = torch.bmm(h.view(n, 2, 3).permute(1, 0, 2), wb)  # 2 x N x 4
    energy = (torch.tanh(b.permute(1, 0, 2)) ** 2).sum()
    return energy, *torch.autograd.grad(energy, (x,))


def inputs(n: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return {"x": torch.randn(n, 6, generator=gen, dtype=dtype),
            "attrs": torch.randn(n, 3, generator=gen, dtype=dtype),
            "u": torch.randn(6, 3, generator=gen, dtype=dtype),
            "wb": torch.randn(2, 3, 4, generator=gen, dtype=dtype)}


@functools.cache
def compiled(dtype: torch.dtype):
    n = Dim("N", min=1)
    return compile(per_atom_weights, inputs(17, dtype, 0), {"x": {0: n}, "attrs": {0: n}, "u": None, "wb": None})


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_layout_is_rows_first(dtype: torch.dtype) -> None:
    fused = compiled(dtype).ir("fused")
    assert not re.search(r"tensor<\d+x\?", fused)  # without rows-first: 6 x N, 2 x N x 3, 2 x N x 4
    assert "tensor<?x2x3x" in fused


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_values_and_gradients(dtype: torch.dtype, threads: int) -> None:
    c = compiled(dtype)
    c.num_threads = threads
    for i, n in enumerate([1, 5, 130, 1000]):
        args = inputs(n, dtype, 10 + i)
        assert_close(c(**args), per_atom_weights(**args), dtype, f"N={n}")
