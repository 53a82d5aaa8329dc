"""Branches on data, taken by speculation: the trace follows one side, the compiled code
checks at run time that the input takes it, and a call that does not recompiles along
the other side (as torch.compile recompiles when a guard fails).

A Python `if` on a value the trace cannot know (a size from `nonzero`, `if x.any():`)
has two sides that both compute, so neither can become a check (frontend.raise_guards
handles the sides that raise). Torch stops there (a data-dependent guard); Dynamo
breaks the graph. Capture instead picks a side, records it as a `Speculation`, and puts
a run-time assertion of it in the graph (`_assert_async`, whose message names the
speculation). `pipeline.compile` calls the result on the example first (so the example
decides every side it reaches), and a later call whose data take another side raises
`SpeculationFailed` inside the compiled function, which compiles that side and runs
again. Never silently wrong: the other side's code never runs on this input.

The first guess, before the example decides: torch's size-oblivious reading where it
decides (`if len(idx) > 0` is taken, sizes from data are assumed >= 2), sizes equal where
a size from data is compared with another, and `True` otherwise.
"""

from __future__ import annotations

import contextlib
import linecache
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FrameType

import torch

PREFIX = "speculated ["
"""How a speculation's assertion message starts: `speculated [file:line#k]: ...`."""


class SpeculationFailed(RuntimeError):
    """A call's data took the side of a branch the compiled code did not speculate on."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class Speculation:
    key: str  # file:line#k, the k-th branch at that line in one trace
    statement: str  # the source line
    side: bool  # the truth value the trace took


class Speculations:
    """The sides one trace takes: `decided` by earlier calls, the rest guessed."""

    def __init__(self, decided: Mapping[str, bool] | None = None) -> None:
        self.decided = dict(decided or {})
        self.made: list[Speculation] = []
        self._count: Counter[str] = Counter()

    def take(self, condition: torch.Tensor, frame: FrameType, guess: bool) -> bool:
        """The side of the branch at `frame` on the 0-d bool `condition`; asserted at run time."""
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        key = f"{where}#{self._count[where]}"
        self._count[where] += 1
        side = self.decided.get(key, guess)
        statement = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip() or "a branch"
        holds = condition if side else condition.logical_not()
        torch._assert_async(holds, f"{PREFIX}{key}]: `{statement}` was compiled for its {side} side; this input "
                                   "takes the other")
        self.made.append(Speculation(key, statement, side))
        return side


_active: Speculations | None = None


@contextlib.contextmanager
def speculating(speculations: Speculations) -> Iterator[None]:
    """Branches on data inside the block go to `speculations`."""
    global _active
    outer, _active = _active, speculations
    try:
        yield
    finally:
        _active = outer


def active() -> Speculations | None:
    return _active


def failed_key(site: str) -> str | None:
    """The speculation a failed check's message names, if it is one."""
    found = re.search(re.escape(PREFIX) + r"([^\]]+)\]", site)
    return found.group(1) if found else None


def size_guess(condition: torch.SymBool) -> bool:
    """The first guess for a size condition no size decides: torch's size-oblivious
    reading (sizes from data >= 2) if it decides, else sizes equal, else True."""
    node = condition.node
    decided = node.shape_env._maybe_evaluate_static(node.expr, size_oblivious=True)
    if decided is not None:
        return bool(decided)
    import sympy

    return not isinstance(node.expr, sympy.Ne)


__all__ = ["PREFIX", "Speculation", "SpeculationFailed", "Speculations", "active", "failed_key", "size_guess",
           "speculating"]
