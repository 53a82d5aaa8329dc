"""Integer tensors that hold a size: `torch.tensor(len(pos))`, its sum, its reshape.

Model code often carries the number of atoms as a tensor (SevenNet's
`data['num_atoms']`, summed and passed to `torch.zeros(tot_num, 3)`). Read back with
`.item()` or `int()`, such a value would be a new data-dependent symbol (torch's
unbacked `u0`), and everything sized by it - SevenNet's forces - would be of a size the
caller cannot know. Its value is known: it is the size it was made from.

During capture, `SizeValues` gives a one-element integer tensor made from a size the
value as FakeTensor's `item_memo`, the symbolic number torch's `.item()` returns when
present (torch sets it on tensors it knows the value of, and forgets it when the
tensor is written to), and carries it through the ops that keep or combine it.
"""

from __future__ import annotations

from typing import Any

import torch
from torch._subclasses.fake_tensor import is_fake
from torch.fx.experimental.symbolic_shapes import statically_known_true
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten

_KEEPS = {
    aten.sum.default, aten.sum.dim_IntList, aten.view.default, aten._unsafe_view.default,
    aten.reshape.default, aten.clone.default, aten.alias.default, aten.detach.default,
    aten.lift_fresh_copy.default, aten._to_copy.default, aten.squeeze.default, aten.squeeze.dim,
    aten.squeeze.dims, aten.unsqueeze.default, aten.amax.default, aten.amin.default,
    aten.max.default, aten.min.default, aten.prod.default, aten.select.int, aten.expand.default,
}
"""Ops whose one-element result holds their first argument's one value."""

_COMBINES = {
    aten.add.Tensor: lambda a, b, alpha=1: a + alpha * b,
    aten.sub.Tensor: lambda a, b, alpha=1: a - alpha * b,
    aten.mul.Tensor: lambda a, b: a * b,
}


class SizeValues(TorchDispatchMode):
    """Sets `item_memo` on the one-element integer results whose value is a known size."""

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor) and _holds_one_integer(out):
            value = _value(func, args, kwargs)
            if value is not None:
                out.item_memo = value
        return out


def _holds_one_integer(t: torch.Tensor) -> bool:
    return (is_fake(t) and not t.dtype.is_floating_point and not t.dtype.is_complex and t.dtype != torch.bool
            and t.dim() <= 1 and statically_known_true(t.numel() == 1) and not t.is_inference())


def _known(x: Any) -> Any:
    """The value of a number or of a tensor whose value is known, else None."""
    if isinstance(x, (int, torch.SymInt)) and not isinstance(x, bool):
        return x
    if isinstance(x, torch.Tensor) and is_fake(x) and _holds_one_integer(x):
        return x.item_memo
    return None


def _value(func: Any, args: tuple, kwargs: dict) -> Any:
    if func in (aten.scalar_tensor.default, aten.full.default):
        return _known(args[-1] if func is aten.full.default else args[0])
    if func in _KEEPS:
        return _known(args[0])
    if func in _COMBINES:
        operands = [_known(a) for a in args[:2]]
        if any(v is None for v in operands):
            return None
        return _COMBINES[func](*operands, **kwargs)
    return None
