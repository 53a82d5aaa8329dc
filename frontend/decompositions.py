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


def decompositions() -> dict[Any, Any]:
    """torch's core table plus `DECOMPOSED`."""
    return {**core_aten_decompositions(), **get_decompositions(list(DECOMPOSED))}
