"""The decompositions applied during capture.

torch's core ATen table rewrites non-core ops into core ones. On top of it, core ops
whose own aten-to-aten decomposition reaches only ops the compiler lowers are
decomposed too (softmax, layer norm, gelu, padding, ...): one lowering fewer per op,
and the fusion passes see the arithmetic. The core-opset test
(`test/python/test_core_opset.py`) checks every entry's decomposition against eager.
"""

from __future__ import annotations

from typing import Any

import torch
from torch._decomp import core_aten_decompositions, get_decompositions

aten = torch.ops.aten

DECOMPOSED: tuple[Any, ...] = (
    # activations
    aten.gelu.default, aten.elu.default, aten.hardtanh.default, aten.leaky_relu.default,
    aten._softmax.default, aten._log_softmax.default,
    # normalization (batch norm in inference and training form, layer and group norm)
    aten.native_layer_norm.default, aten.native_layer_norm_backward.default,
    aten.native_group_norm.default, aten.native_group_norm_backward.default,
    aten._native_batch_norm_legit.default, aten._native_batch_norm_legit.no_stats,
    aten._native_batch_norm_legit_no_training.default,
    # shapes and fills
    aten.squeeze.dim, aten.repeat.default, aten.fill.Scalar, aten.clamp.Tensor,
    aten.reflection_pad1d.default, aten.reflection_pad2d.default, aten.reflection_pad3d.default,
    aten.upsample_nearest2d.vec, aten.upsample_bilinear2d.vec,
    # predicates and reductions to bool
    aten.isinf.default, aten.logical_xor.default, aten.any.default, aten.any.dim, aten.any.dims,
    # backward formulas' own ops
    aten.embedding_dense_backward.default, aten.new_empty_strided.default,
)


def _cdist_forward(x1: torch.Tensor, x2: torch.Tensor, p: float, compute_mode: int | None = None) -> torch.Tensor:
    """||x1[..., i, :] - x2[..., j, :]||_p (torch has no aten-to-aten form of it)."""
    return torch.linalg.vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


def _cdist_backward(grad: torch.Tensor, x1: torch.Tensor, x2: torch.Tensor, p: float, cdist: torch.Tensor) -> torch.Tensor:
    """d cdist / d x1 contracted with grad: sum over j of grad[i, j] times the
    derivative of the p-norm of x1[i] - x2[j] (0 where the distance is 0, as torch)."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    dist = cdist.unsqueeze(-1)
    if p == 0:
        return torch.zeros_like(x1)
    if p == 1:
        term = torch.sign(diff)
    elif p == float("inf"):
        term = torch.sign(diff) * (diff.abs() == dist)
    else:
        term = torch.sign(diff) * diff.abs() ** (p - 1) / dist ** (p - 1)
    term = torch.where(dist == 0, torch.zeros_like(term), term)
    return (grad.unsqueeze(-1) * term).sum(-2)


OWN: dict[Any, Any] = {
    aten._cdist_forward.default: _cdist_forward,
    aten._cdist_backward.default: _cdist_backward,
}
"""Core ops torch has no aten-level decomposition for, written here."""


def decompositions() -> dict[Any, Any]:
    """torch's core table plus `DECOMPOSED` and `OWN`."""
    return {**core_aten_decompositions(), **get_decompositions(list(DECOMPOSED)), **OWN}
