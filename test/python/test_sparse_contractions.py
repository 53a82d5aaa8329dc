"""Structural constants (mostly-zero buffers) folded into the code: contractions with
them skip their zeros (transforms/sparse_contractions.py), values and gradients as
eager's at untraced sizes; parameters stay runtime data."""

from __future__ import annotations

import pytest
import torch
from conftest import DTYPES, TOLERANCE, relative_error
from torch.export import Dim

import pipeline

SHAPES = {"x": {0: Dim("N")}}


def structure(dtype: torch.dtype) -> torch.Tensor:
    """A 9 x 7 constant with 6 nonzeros, two in one column."""
    u = torch.zeros(9, 7, dtype=dtype)
    u[0, 0], u[3, 1], u[4, 1], u[8, 6], u[2, 3], u[5, 4] = 0.5, -1.25, 2.0, 0.75, 1.5, -3.0
    return u


def check(compiled, fn, dtype: torch.dtype) -> None:
    for n in (1, 5, 130):  # none of them traced
        x = torch.randn(n, 9, generator=torch.Generator().manual_seed(n), dtype=dtype)
        for got, want in zip(compiled(x), fn(x)):
            assert relative_error(got, want.detach()) <= TOLERANCE[dtype], n


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_contraction_with_a_constant_reads_no_constant(dtype: torch.dtype) -> None:
    u = structure(dtype)
    w = torch.nn.Parameter(torch.randn(7, 7, generator=torch.Generator().manual_seed(0), dtype=dtype))

    def energy_forces(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.detach().requires_grad_(True)
        energy = ((torch.tanh(x) @ u @ w) ** 2).sum()
        return energy, -torch.autograd.grad(energy, x)[0]

    compiled = pipeline.compile(energy_forces, {"x": torch.randn(23, 9, dtype=dtype)}, SHAPES)
    assert "nonzeros = array<i64: 0, 17, 22, 29, 39, 62>" in compiled.ir("aten")
    assert compiled.ir("fused").count("te.sparse_dims") == 2  # x @ U and its gradient, g @ U.T
    assert [w.tensor.shape for w in compiled.signature.weights] == [(7, 7)]  # U is in the code
    check(compiled, energy_forces, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_through_weights_and_parameters_stay_runtime_data(dtype: torch.dtype) -> None:
    """MACE's pattern: the constant times a parameter (weights only), then the product
    with the atoms' features. The zeros of the product are U's, whatever the weights."""
    u = structure(dtype)
    w = torch.nn.Parameter(torch.randn(7, generator=torch.Generator().manual_seed(1), dtype=dtype))

    def energy_forces(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.detach().requires_grad_(True)
        energy = torch.sin(x @ (u * w)).sum()
        return energy, -torch.autograd.grad(energy, x)[0]

    compiled = pipeline.compile(energy_forces, {"x": torch.randn(23, 9, dtype=dtype)}, SHAPES)
    assert "te.sparse_dims" in compiled.ir("fused")
    check(compiled, energy_forces, dtype)
    with torch.no_grad():
        w.mul_(-2.0)  # trained further: the compiled code reads the new values
    check(compiled, energy_forces, dtype)


def test_zeros_a_parameter_decides_are_not_skipped() -> None:
    """relu(U * w) is zero where U is and where U * w < 0: only U's zeros are
    structure; after w changes sign the other entries are nonzero."""
    u = structure(torch.float64)
    w = torch.nn.Parameter(torch.randn(7, generator=torch.Generator().manual_seed(2), dtype=torch.float64))

    def fn(x: torch.Tensor) -> tuple[torch.Tensor]:
        return (x @ torch.relu(u * w),)

    compiled = pipeline.compile(fn, {"x": torch.randn(23, 9, dtype=torch.float64)}, SHAPES)
    check(compiled, fn, torch.float64)
    with torch.no_grad():
        w.neg_()
    check(compiled, fn, torch.float64)


def test_what_is_not_a_structural_constant() -> None:
    """A parameter with zeros, a buffer more than half nonzero, an integer table:
    no `nonzeros`, multiplied densely."""
    dense = torch.ones(9, 7, dtype=torch.float64)
    dense[0, :3] = 0.0
    zero_param = torch.nn.Parameter(structure(torch.float64))
    table = torch.tensor([0, 0, 2, 0, 0, 0, 0, 1, 0])

    def fn(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return x @ dense, x @ zero_param, x[:, table]

    compiled = pipeline.compile(fn, {"x": torch.randn(23, 9, dtype=torch.float64)}, SHAPES)
    assert "nonzeros" not in compiled.ir("aten")
    assert "te.sparse" not in compiled.ir("fused")
    check(compiled, fn, torch.float64)
