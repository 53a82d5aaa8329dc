"""Dense layers in register tiles (`te.vector`, `te.tile`) against eager PyTorch.

`y = silu(x) @ W` with a static weight W [K, J] and N dynamic, energy = sum(tanh(y))
and its gradient with respect to x (the backward multiplies by W^T: a second tiled
product, after pack-operands). Sizes cover what the tiling must get right: N
not a multiple of the tile's rows (the rows left over) and N below it, J of one
vector, of several column tiles (128, 256 f32: 16 and 32 vectors), and not a
multiple of 8 (24), K of 3 (a dot product: not tiled), 32 and 64; f32 and f64; 1 and 2
threads (the parallel loop walks tiles of rows).

Each energy sums N x J terms (tanh(y) of either sign): it is compared with the magnitude
of its terms (conftest.Sum), the gradients elementwise with their largest element.
"""

from __future__ import annotations

import pytest
import torch
from conftest import Sum, assert_close
from torch.export import Dim

from pipeline.compiler import compile

SHAPES = [(3, 8), (64, 24), (64, 128), (32, 256)]  # (K, J)
ROWS = [1, 5, 13, 100]  # untraced (traced at 23)


def dense_terms(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """The N x J terms the energy sums."""
    return torch.tanh(torch.nn.functional.silu(x) @ weight)


def layer(weight: torch.Tensor):
    def energy_grad(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.detach().requires_grad_(True)
        energy = dense_terms(x, weight).sum()
        (grad,) = torch.autograd.grad(energy, x)
        return energy, grad

    return energy_grad


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("k,j", SHAPES)
def test_dense_layer_matches_eager(k: int, j: int, dtype: torch.dtype) -> None:
    gen = torch.Generator().manual_seed(k * 1000 + j)
    weight = torch.randn(k, j, generator=gen, dtype=dtype) / k**0.5
    fn = layer(weight)
    native = compile(fn, {"x": torch.randn(23, k, generator=gen, dtype=dtype)}, {"x": {0: Dim("N")}})
    if k >= 8:  # a shorter reduction stays a dot product per output (schedule.SHORT_REDUCTION)
        assert "te.tile" in native.ir("fused")
    for threads in (1, 2):
        native.num_threads = threads
        for n in ROWS:
            x = torch.randn(n, k, generator=gen, dtype=dtype)
            want, got = fn(x), native(x)
            assert_close(got, want, dtype, f"N={n}, {threads} threads", sums={0: Sum.of(dense_terms(x, weight))})


def channelwise_contraction(u: torch.Tensor, w: torch.Tensor):
    """MACE's symmetric contraction in miniature: per channel c, a product of a fixed
    tensor U [J, M, S] (J = 27 not a multiple of a vector) with per-species weights
    w [S, E, C] and the node features x [N, C, M], through an einsum whose weight
    product reaches the contraction through reshapes (pack-operands packs it)."""

    def energy_grad(x: torch.Tensor, onehot: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.detach().requires_grad_(True)
        energy = terms(x, onehot).sum()
        (grad,) = torch.autograd.grad(energy, x)
        return energy, grad

    def terms(x: torch.Tensor, onehot: torch.Tensor) -> torch.Tensor:
        """The N x C x J terms the energy sums."""
        uw = torch.einsum("jms,sec->jmec", u, w)  # [J, M, E, C]
        a = onehot[:, :, None, None] * x[:, None]  # [N, E, C, M]
        y = torch.einsum("necm,jmec->ncj", a, uw)  # a bmm over channels: [C, N, E*M] @ [C, E*M, J]
        return torch.nn.functional.silu(y) * y

    return energy_grad, terms


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_channelwise_contraction_matches_eager(dtype: torch.dtype) -> None:
    gen = torch.Generator().manual_seed(7)
    j, m, s, e, c = 27, 9, 4, 2, 8
    u = torch.randn(j, m, s, generator=gen, dtype=dtype)
    w = torch.randn(s, e, c, generator=gen, dtype=dtype) / s
    fn, terms = channelwise_contraction(u, w)

    def sample(n: int) -> dict[str, torch.Tensor]:
        species = torch.randint(0, e, (n,), generator=gen)
        return {"x": torch.randn(n, c, m, generator=gen, dtype=dtype),
                "onehot": torch.nn.functional.one_hot(species, e).to(dtype)}

    native = compile(fn, sample(23), {"x": {0: Dim("N")}, "onehot": {0: Dim("N")}})
    assert "te.order" in native.ir("fused")  # some contraction accumulates along its row
    for threads in (1, 2):
        native.num_threads = threads
        for n in ROWS:
            args = sample(n)
            want, got = fn(**args), native(**args)
            assert_close(got, want, dtype, f"N={n}, {threads} threads", sums={0: Sum.of(terms(**args))})
