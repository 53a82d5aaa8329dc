"""A one-line progress display for long compiles: the stage and the elapsed time.

    with stage_progress("schnet", enabled=True) as progress:
        progress("capture"); ...; progress("fused"); ...

Drawn by rich on stderr, and only when stderr is a terminal and the compile has run for
`delay` seconds (short compiles and piped output stay silent); transient, so nothing is
left behind when the compile ends.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any


class _Line:
    """What the live display draws: nothing until `delay` seconds have passed."""

    def __init__(self, name: str, delay: float) -> None:
        self.name, self.delay = name, delay
        self.start = self.stage_start = time.perf_counter()
        self.stage = "start"

    def __rich__(self) -> Any:
        from rich.text import Text

        now = time.perf_counter()
        if now - self.start < self.delay:
            return Text("")
        return Text.assemble(("compiling ", "dim"), (self.name, "bold"), ": ", (self.stage, "cyan"),
                             f" {now - self.stage_start:5.1f} s", ("  (total ", "dim"),
                             (f"{now - self.start:.1f} s)", "dim"))


@contextlib.contextmanager
def stage_progress(name: str, *, enabled: bool, delay: float = 2.0) -> Iterator[Callable[[str], None]]:
    """Yield `progress(stage)`, which names the stage now running."""
    if not enabled:
        yield lambda stage: None
        return
    from rich.console import Console
    from rich.live import Live

    console = Console(stderr=True)
    line = _Line(name, delay)

    def progress(stage: str) -> None:
        line.stage, line.stage_start = stage, time.perf_counter()

    if not console.is_terminal:
        yield progress
        return
    with Live(line, console=console, refresh_per_second=4, transient=True):
        yield progress
