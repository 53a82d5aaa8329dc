"""Custom ops (torch.library): one the trace cannot go through is named with the line
that calls it, and `decompositions=` gives it a computation in torch ops. The example is
torchmd-net's kind: a neighbour search that is a compiled op inside the model, whose
result has a data-dependent size."""

from __future__ import annotations

import pytest
import torch
from conftest import DTYPES, TOLERANCE, relative_error
from torch.export import Dim

import pipeline
from frontend.errors import CaptureError
from frontend.import_fx import UnsupportedOpError

CUTOFF = 1.2


@torch.library.custom_op("pipeline_test::neighbors", mutates_args=())
def neighbors(pos: torch.Tensor, cutoff: float) -> torch.Tensor:
    """The pairs closer than `cutoff` (a stand-in for a compiled neighbour search)."""
    d = torch.cdist(pos, pos)
    close = (d < cutoff) & ~torch.eye(pos.shape[0], dtype=torch.bool)
    return close.nonzero().t().contiguous()


@neighbors.register_fake
def _(pos: torch.Tensor, cutoff: float) -> torch.Tensor:
    pairs = torch.library.get_ctx().new_dynamic_size()
    return pos.new_empty((2, pairs), dtype=torch.long)


def neighbors_in_torch(pos: torch.Tensor, cutoff: float) -> torch.Tensor:
    """The same search in differentiable-free torch ops the compiler has."""
    diff = pos[:, None, :] - pos[None, :, :]
    close = (diff.square().sum(-1) < cutoff**2) & ~torch.eye(pos.shape[0], dtype=torch.bool)
    return close.nonzero().t()


def pair_energy(pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    pos.requires_grad_(True)
    edges = neighbors(pos.detach(), CUTOFF)
    r = (pos[edges[0]] - pos[edges[1]]).norm(dim=-1)
    energy = (torch.exp(-r) * (CUTOFF - r) ** 2).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


@torch.library.custom_op("pipeline_test::soft_norm", mutates_args=())
def soft_norm(x: torch.Tensor) -> torch.Tensor:
    return (x.square().sum(-1) + 1).sqrt()


soft_norm.register_fake(lambda x: x.new_empty(x.shape[:-1]))


def norm_energy(pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    pos.requires_grad_(True)
    energy = soft_norm(pos).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


N = ({0: Dim("N", min=2)},)


def positions(atoms: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.rand(atoms, 3, generator=g, dtype=dtype) * atoms ** (1 / 3)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_decomposition_of_a_neighbour_search(dtype: torch.dtype) -> None:
    compiled = pipeline.compile(pair_energy, (positions(12, dtype, 0),), N,
                                decompositions={torch.ops.pipeline_test.neighbors: neighbors_in_torch})
    for atoms, seed in ((7, 1), (40, 2), (90, 3)):
        pos = positions(atoms, dtype, seed)
        for got, want in zip(compiled(pos), pair_energy(pos.clone())):
            assert relative_error(got, want.detach()) <= TOLERANCE[dtype], (atoms, relative_error(got, want.detach()))


def test_op_without_autograd_names_op_and_line() -> None:
    line = norm_energy.__code__.co_firstlineno + 2
    with pytest.raises(CaptureError, match=r"custom op pipeline_test\.soft_norm") as err:
        pipeline.compile(norm_energy, (positions(8, torch.float64, 0),), N)
    text = str(err.value)
    assert f"test_custom_ops.py:{line}" in text and "decompositions={torch.ops.pipeline_test.soft_norm" in text, text


def test_op_with_autograd_but_no_lowering_names_op_and_line() -> None:
    """Differentiable (its formula registered) but still no aten op: the import names it."""

    @torch.library.custom_op("pipeline_test::cube", mutates_args=())
    def cube(x: torch.Tensor) -> torch.Tensor:
        return x**3

    cube.register_fake(lambda x: torch.empty_like(x))
    cube.register_autograd(lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2,
                           setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))

    def energy(pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos.requires_grad_(True)
        e = cube(pos).sum()
        return e, -torch.autograd.grad(e, pos)[0]

    line = energy.__code__.co_firstlineno + 2
    with pytest.raises(UnsupportedOpError, match=r"pipeline_test\.cube") as err:
        pipeline.compile(energy, (positions(8, torch.float64, 0),), N)
    text = str(err.value)
    assert f"test_custom_ops.py:{line}" in text and "decompositions={torch.ops.pipeline_test.cube" in text, text
    compiled = pipeline.compile(energy, (positions(8, torch.float64, 0),), N,
                                decompositions={cube: lambda x: x * x * x})
    pos = positions(21, torch.float64, 4)
    for got, want in zip(compiled(pos), energy(pos.clone())):
        assert relative_error(got, want.detach()) <= TOLERANCE[torch.float64]


def test_decompositions_must_name_ops() -> None:
    with pytest.raises(TypeError, match="is not an op"):
        pipeline.compile(norm_energy, (positions(8, torch.float64, 0),), N, decompositions={"soft_norm": soft_norm})
