"""torch's core ATen opset, accounted for op by op.

Every overload tagged `torch.Tag.core` is either
- covered: a case of `test_ops_numerics` names it (the op in the captured graph, or a
  core op capture decomposes into others, seen called by eager), so its values and
  gradient are checked against eager at untraced sizes in f32 and f64;
- evaluated at capture: a size query make_fx turns into symbolic size arithmetic; or
- in `EXCLUDED`, with the reason it is deliberately not compiled.
"""

from __future__ import annotations

import torch
from test_ops_numerics import CASES, TEXT_ONLY


aten = torch.ops.aten


def core_ops() -> set[str]:
    """`add.Tensor`, `neg`, ...: every core overload (`.default` dropped)."""
    out = set()
    for name in dir(aten):
        packet = getattr(aten, name)
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in packet.overloads():
            if torch.Tag.core in getattr(packet, overload).tags:
                out.add(name if overload == "default" else f"{name}.{overload}")
    return out


AT_CAPTURE = {
    "sym_stride.int": "strides of the (contiguous) values: products of sizes, imported as index arithmetic",
    "sym_storage_offset": "0 for every value here; make_fx folds it into size arithmetic",
    "sym_is_contiguous": "every value here is contiguous",
}
"""Size queries: never in a graph; the `strides` case compiles a function using them."""

_IMAGE = "image/signal processing (convolution, pooling, resampling): no interatomic potential uses it"
_RANDOM = "random sampling: a compiled potential is deterministic, and torch's generator state is not ours"

EXCLUDED = {
    "rand": _RANDOM, "randn": _RANDOM, "randperm": _RANDOM,
    "native_dropout": _RANDOM + " (dropout is the identity at inference, and make_fx drops it in eval mode)",
    "_fft_r2c": "complex dtypes", "_fft_c2r": "complex dtypes",
    "atan2.out": "an out= variant: functional graphs never hold one (atan2 is covered)",
    "convolution": _IMAGE, "convolution_backward": _IMAGE, "col2im": _IMAGE, "grid_sampler_2d": _IMAGE,
    "avg_pool2d": _IMAGE, "avg_pool2d_backward": _IMAGE, "avg_pool3d": _IMAGE,
    "_adaptive_avg_pool2d": _IMAGE, "_adaptive_avg_pool2d_backward": _IMAGE, "_adaptive_avg_pool3d": _IMAGE,
    "max_pool2d_with_indices": _IMAGE, "max_pool2d_with_indices_backward": _IMAGE, "max_pool3d_with_indices": _IMAGE,
    "replication_pad2d": _IMAGE, "replication_pad3d": _IMAGE, "avg_pool1d": _IMAGE, "adaptive_avg_pool1d": _IMAGE,
    "_embedding_bag": "bags of embeddings (NLP): models here index with embedding",
}
"""Deliberately not compiled, with the reason."""


def covered() -> set[str]:
    return {op for c in CASES for op in (*c.ops, *c.decomposed)} | set(TEXT_ONLY)


def test_every_core_op_is_accounted_for() -> None:
    core = core_ops()
    tables = {"covered": covered() & core, "at capture": set(AT_CAPTURE), "excluded": set(EXCLUDED)}
    missing = core - set().union(*tables.values())
    assert not missing, f"core ops with neither a numerics case nor an exclusion: {sorted(missing)}"
    names = list(tables)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not tables[a] & tables[b], f"in both {a} and {b}: {sorted(tables[a] & tables[b])}"
    assert set(AT_CAPTURE) | set(EXCLUDED) <= core, "tables name ops that are not core"
