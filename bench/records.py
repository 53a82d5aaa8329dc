"""The channel from a worker to the parent: JSON lines, one record each.

A worker writes every record (`kind`: compile, run, memory, error, info, progress) as it
happens, flushed and fsynced, to a file the parent names (`--_out`); the parent reads the
file after the worker has exited, whatever way it exited: a line cut short by a crash is
dropped, all before it are kept, and the last `progress` record says what the worker was
doing. Both ends are here, so the format is in one place; no pipe, so a crash or a kill
loses nothing written.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any


class Out:
    """The worker's end of the channel to the parent: one JSON line per record."""

    def __init__(self, path: str) -> None:
        self.f = open(path, "a")

    def emit(self, kind: str, **rec: Any) -> None:
        self.f.write(json.dumps({"kind": kind, **rec}, default=_jsonable) + "\n")
        self.f.flush()
        os.fsync(self.f.fileno())

    def progress(self, what: str) -> None:
        self.emit("progress", what=what)


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return str(x)


def read(path: str) -> list[dict[str, Any]]:
    """Every whole record of the file `path`, progress records included."""
    records = []
    with open(path) as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut short by a crash
    return records


def collect(results: dict[str, Any], model: str, records: list[dict[str, Any]]) -> None:
    """File the records of one model's worker into the sections of `results`."""
    for rec in records:
        kind = rec.pop("kind")
        rec = {"model": model, **rec}
        if kind == "compile":
            results["compile"].append(rec)
        elif kind == "run":
            results["runs"].append(rec)
        elif kind == "memory":
            results["memory"].append(rec)
        elif kind == "error":
            results["errors"].append(rec)
        elif kind == "info":
            results["meta"].setdefault("models", {}).setdefault(model, {}).update(rec.get("info", {}))
