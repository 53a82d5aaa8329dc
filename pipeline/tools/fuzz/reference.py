"""What a program's result should be, and how far a result may be from it.

The reference is the same program made in float64 (its weights rounded to the
program's dtype first), evaluated eagerly. A compiled result may differ from it by the
dtype's tolerance, or by 10x what eager PyTorch in the program's own dtype gets wrong,
or by 10x the program's own sensitivity to the order of its sums (the reference with
the edges listed in another order): a program whose result is the rounding noise of a
cancelling sum has no right answer to match. `same_bits` is the other measure, for
results that must agree exactly (threads, call forms, the library against the JIT).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from pipeline.tools.fuzz.programs import ARGS
from pipeline.tools.fuzz.systems import SIZES, system

TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-10}


def load(source: str) -> Callable[[torch.dtype], Callable[..., Any]]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<fuzz program>", "exec"), namespace)
    return namespace["make"]



def relative(got: torch.Tensor, want: torch.Tensor) -> float:
    scale = want.abs().max().item() if want.numel() else 0.0
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    return err / max(scale, 1e-30) if scale > 0 else err


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal shape, dtype and bits (NaN included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    as_int = {torch.float32: torch.int32, torch.float64: torch.int64}.get(a.dtype)
    if as_int is None:
        return torch.equal(a, b)
    return torch.equal(a.contiguous().view(as_int), b.contiguous().view(as_int))


def _detached(outputs: Any) -> tuple[torch.Tensor, ...]:
    return tuple(t.detach() for t in outputs)


def _as_float64(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.double() if v.is_floating_point() else v for k, v in inputs.items()}


@dataclass
class Expected:
    """The float64 reference, eager in the program's dtype, and the float64 reference
    with the edges listed in another order (the program's own rounding noise)."""

    want: tuple[torch.Tensor, ...]
    eager: tuple[torch.Tensor, ...]
    reordered: tuple[torch.Tensor, ...]

    @property
    def finite(self) -> bool:
        return all(torch.isfinite(w).all() for w in self.want)


def expected(make: Callable[..., Any], dtype: torch.dtype, inputs: dict[str, torch.Tensor], seed: int) -> Expected:
    fn, reference = make(dtype), make(torch.float64, rounded_to=dtype)
    want = _detached(reference(**_as_float64(inputs)))
    eager = _detached(fn(**inputs))
    edges = inputs["edge_index"].shape[1]
    order = torch.randperm(edges, generator=torch.Generator().manual_seed(seed))
    moved = torch.empty_like(order)
    moved[order] = torch.arange(edges)  # where each edge went
    other = dict(_as_float64(inputs), edge_index=inputs["edge_index"][:, order], triplets=moved[inputs["triplets"]])
    return Expected(want, eager, _detached(reference(**other)))


def finite_sizes(source: str, dtype: torch.dtype) -> list[int]:
    """The sizes of SIZES at which the program's float64 reference is finite (a few
    milliseconds: the driver rejects a program finite nowhere before compiling it)."""
    make = load(source)
    reference = make(torch.float64, rounded_to=dtype)
    finite = []
    for n in SIZES:
        inputs = dict(zip(ARGS, system(n, dtype, n)))
        if all(torch.isfinite(w).all() for w in _detached(reference(**_as_float64(inputs)))):
            finite.append(n)
    return finite


def mismatch(got: Sequence[torch.Tensor], exp: Expected, dtype: torch.dtype) -> str | None:
    """Why `got` is not the program's result, or None. Where the reference is not
    finite (a mean over nothing), `got` must not be either."""
    if len(got) != len(exp.want):
        return f"{len(got)} outputs; eager has {len(exp.want)}"
    for k, (g, w, e, o) in enumerate(zip(got, exp.want, exp.eager, exp.reordered)):
        if tuple(g.shape) != tuple(w.shape):
            return f"output {k} has shape {tuple(g.shape)}; eager's is {tuple(w.shape)}"
        finite = torch.isfinite(w)
        if torch.isfinite(g[~finite]).any():
            return f"output {k} is finite where the float64 reference is not (inf or nan)"
        ours = relative(g[finite], w[finite])
        theirs, noise = (relative(x[finite], w[finite]) if x.shape == w.shape else 0.0 for x in (e, o))
        theirs, noise = (0.0 if math.isnan(x) else x for x in (theirs, noise))
        if not ours <= max(TOLERANCE[dtype], 10 * theirs, 10 * noise):
            return (f"output {k} relative error {ours:.3g} (eager {theirs:.3g}, float64 with the edges "
                    f"reordered {noise:.3g}, tolerance {TOLERANCE[dtype]:g})")
    return None

