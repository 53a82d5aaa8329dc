"""Library calls that read a traced size or a file as a Python value, made traceable.

- opt_einsum's `contract_path` reads every size with `int()` to cost the contraction
  orders: torch.einsum of three or more operands calls it, and so do packages that call
  opt_einsum directly (tad-mctc's `einsum`). Under a trace that pins every dynamic size.
  The order changes the cost, not the result, so during capture the path is chosen at
  the traced sizes (the symbols' hints) and nothing is pinned.
- `torch.load` during the trace (tad-dftd3 loads its reference table on every call)
  reads a file: its tensors are constants of the graph, read outside the trace's modes
  (under them torch.load fails on fake storages).
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch._subclasses.fake_tensor import is_fake
from torch.utils._python_dispatch import _disable_current_modes

UNBACKED_HINT = 64
"""The size a data-dependent dim is costed at when choosing a contraction order."""


@contextlib.contextmanager
def library_calls() -> Iterator[None]:
    """For the duration of a trace: opt_einsum's contract_path and torch.load rebound."""
    rebound: list[tuple[Any, str, Any]] = [(torch, "load", _load_outside_the_trace(torch.load))]
    if importlib.util.find_spec("opt_einsum") is not None:
        import opt_einsum

        module = sys.modules["opt_einsum.contract"]  # the package's `contract` is the function
        path = _path_at_traced_sizes(module.contract_path)
        rebound += [(opt_einsum, "contract_path", path), (module, "contract_path", path)]
    with attributes_set(rebound):
        yield


@contextlib.contextmanager
def attributes_set(values: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """`owner.name = value` for each (owner, name, value) while the block runs (a module's
    function, a class's method), then what each was (its own, not an inherited one)."""
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in values]
    try:
        for owner, name, value in values:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def _load_outside_the_trace(load: Callable[..., Any]) -> Callable[..., Any]:
    def traced_load(*args: Any, **kwargs: Any) -> Any:
        with _disable_current_modes():
            return load(*args, **kwargs)

    return traced_load


def _path_at_traced_sizes(contract_path: Callable[..., Any]) -> Callable[..., Any]:
    def traced_contract_path(subscripts: Any, *operands: Any, **kwargs: Any) -> Any:
        traced = [op for op in operands if isinstance(op, torch.Tensor) and is_fake(op)]
        if not traced or not isinstance(subscripts, str) or kwargs.get("shapes"):
            return contract_path(subscripts, *operands, **kwargs)
        shapes = [tuple(_hint(d) for d in op.shape) if isinstance(op, torch.Tensor) else op for op in operands]
        result = contract_path(subscripts, *shapes, **kwargs, shapes=True)
        if kwargs.get("einsum_call"):  # (operands, contraction list): opt_einsum.contract's inner call
            return list(operands), result[1]
        return result

    return traced_contract_path


def _hint(size: int | torch.SymInt) -> int:
    if isinstance(size, int):
        return size
    hint = size.node.hint
    return int(hint) if hint is not None else UNBACKED_HINT
