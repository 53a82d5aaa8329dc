"""The compile report: one self-contained HTML page of a traced compile.

    compiled = pipeline.compile(fn, args, shapes, trace=True, profile=True)
    compiled(*args)
    pipeline.write_report(compiled, "report.html")

Stages with their compile time and size, the IR of each (highlighted) and each pass as
a diff; the fusion picture (the aten graph, each op colored by the loop nest it ended
in, linked to its source line); each nest's schedule and, with profile=True, its time
per call; the memory plan as lifetimes of arena slots with the planned peak.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.compiler import CompiledFunction


def write_report(compiled: CompiledFunction, path: str | Path, sizes: dict[str, int] | None = None) -> Path:
    """Write the report to `path`; `sizes` (default: the last call's) size the memory plan."""
    from pipeline.tools.report.model import build
    from pipeline.tools.report.page import render

    path = Path(path)
    path.write_text(render(build(compiled, sizes if sizes is not None else compiled.last_sizes())))
    return path


__all__ = ["write_report"]
