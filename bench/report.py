"""What a run shows: the table on stdout, the JSON file, progress lines on stderr, and the
numbers derived from the runs (ratios ours/peer per cell, their geometric-mean summary).

Everything here reads only the results dict as it is written to JSON (`schema:
"pipeline-bench/1"`, bench/README.md), never a worker's objects, so an earlier run's file
renders again with `render(json.load(open(path)))`, and the table cannot show anything the
JSON does not hold. No torch: the parent process renders without loading it.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

from bench.registry import MEMORY_CONTENDERS, PEERS


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def write_json(results: dict[str, Any], out: Path) -> None:
    """Write `results` to `out` through a temporary file, so a reader never sees half of it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(results, indent=1) + "\n")
    tmp.replace(out)


def ratios(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ours' median over each peer's, per model, thread count and size where both ran."""
    ours = {(r["model"], r["threads"], r["n_atoms"]): r for r in runs
            if r["contender"] == "ours" and r.get("median_s")}
    out = []
    for r in runs:
        if r["contender"] == "ours" or not r.get("median_s"):
            continue
        o = ours.get((r["model"], r["threads"], r["n_atoms"]))
        if o:
            out.append({"model": r["model"], "threads": r["threads"], "n_atoms": r["n_atoms"],
                        "peer": r["contender"], "ours_over_peer": o["median_s"] / r["median_s"]})
    return out


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} us"


def _fmt_err(e: Any) -> str:
    return f"{e:.2e}" if isinstance(e, float) else str(e)


def fmt_bytes(b: float | None) -> str:
    if b is None:
        return "-"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(b) >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def first_line(text: str | None, width: int = 110) -> str:
    line = (text or "").strip().splitlines()[0] if text else ""
    return line if len(line) <= width else line[: width - 3] + "..."


def _grid(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def _geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else None


def summary(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Geometric mean of ours/peer per peer and thread count, over models and sizes."""
    out = []
    cells = results.get("ratios", [])
    for t in dict.fromkeys(r["threads"] for r in cells):
        for p in PEERS:
            got = [r for r in cells if r["threads"] == t and r["peer"] == p]
            if got:
                xs = [r["ours_over_peer"] for r in got]
                worst = max(got, key=lambda r: r["ours_over_peer"])
                out.append({"threads": t, "peer": p, "cells": len(xs), "geomean_ours_over_peer": _geomean(xs),
                            "min": min(xs), "max": max(xs), "worst": f"{worst['model']} N={worst['n_atoms']}"})
    return out


def memory_summary(results: dict[str, Any]) -> dict[str, Any] | None:
    """ours' peak memory of a call over eager's, over every model and size: the largest."""
    peaks = {(r["model"], r["n_atoms"], r["contender"]): r.get("peak_bytes") for r in results.get("memory", [])
             if r.get("n_atoms") is not None and not r.get("error")}
    cells = [(m, n, peaks[(m, n, "ours")] / e) for (m, n, c), e in peaks.items()
             if c == "eager" and e and e >= 2**20 and peaks.get((m, n, "ours")) is not None]
    if not cells:
        return None
    worst = max(cells, key=lambda x: x[2])
    return {"cells": len(cells), "max_ours_over_eager": worst[2], "worst": f"{worst[0]} N={worst[1]}",
            "over_eager": sum(1 for c in cells if c[2] > 1)}


def render(results: dict[str, Any]) -> str:
    """The human-readable report of a results dict (as written to JSON)."""
    meta = results["meta"]
    cfg = meta["config"]
    contenders = cfg["contenders"]
    peers = [c for c in contenders if c != "ours"]
    short = {"eager": "eager", "tc_graph": "tc-fx", "tc_fn": "tc-fn", "aoti": "aoti", "ours": "ours"}
    out = [
        "",
        "energy + forces, in the dtype of each model's heading.  eager = the function (autograd.grad);",
        "tc-fx = torch.compile of the make_fx graph; tc-fn = torch.compile of the function (trace_autograd_ops);",
        "aoti = AOTInductor of the make_fx graph; ours.",
        "time: median of one call ±half the interquartile range (% of median); ours/X < 1: ours is faster;",
        "calls: timed calls per contender (min-max); compile: seconds from function to callable.",
        f"ours: {meta.get('ours_threads')}.  inductor: {cfg['inductor_threads']}.",
    ]
    notes: list[str] = []

    def note(text: str) -> str:
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    skipped = {r["model"]: r["reason"] for r in results.get("skipped", [])}
    for model, info in meta.get("models", {}).items():
        label = info.get("label", model)
        dtype = {"float32": ", f32", "float64": ", f64"}.get(info.get("dtype"), "")
        out.append("")
        out.append(f"=== {label} ({model}{dtype}) ===")
        if model in skipped:
            out.append(f"skipped: {first_line(skipped[model], 300)}")
            continue
        comp = [r for r in results["compile"] if r["model"] == model and not r.get("fresh_process")]
        parts = []
        for c in contenders:
            if c == "eager":
                continue
            for r in (r for r in comp if r["contender"] == c):
                at = f"@{r['threads']}t" if r.get("threads") is not None and len(cfg["threads"]) > 1 else ""
                if r["ok"]:
                    extra = ""
                    if c == "tc_fn" and r["parts"].get("graphs", 1) != 1:
                        extra = f" ({r['parts']['graphs']} graphs)"
                    parts.append(f"{short[c]}{at} {r['compile_s']:.1f}{extra}")
                else:
                    parts.append(f"{short[c]}{at} FAILED "
                                 + note(f"{label} {short[c]} compile: " + first_line(r["error"])))
        fresh = [r for r in results["compile"] if r["model"] == model and r.get("fresh_process")]
        if fresh:
            parts.append(f"(ours in the memory process: {fresh[0]['compile_s']:.1f})")
        out.append("compile s: " + (", ".join(parts) if parts else "-"))
        for e in results["errors"]:
            if e["model"] == model:
                out.append(f"  error ({e.get('stage')}): {first_line(e.get('error'))}")

        runs = [r for r in results["runs"] if r["model"] == model]
        for t in dict.fromkeys(r["threads"] for r in runs):
            rows = []
            for n in dict.fromkeys(r["n_atoms"] for r in runs if r["threads"] == t):
                cell = {r["contender"]: r for r in runs if r["threads"] == t and r["n_atoms"] == n}
                edges = next((r.get("n_edges") for r in cell.values() if r.get("n_edges")), None)
                row = [str(n), str(edges if edges is not None else "-")]
                for c in contenders:
                    r = cell.get(c)
                    if r is None:
                        row.append("-")
                    elif r["status"] == "error":
                        row.append("FAILED " + note(f"{label} {short[c]} N={n} threads={t}: "
                                                    + first_line(r["error"])))
                    else:
                        spread = (r["q3_s"] - r["q1_s"]) / 2 / r["median_s"] * 100 if r["median_s"] else 0
                        text = f"{fmt_time(r['median_s'])} ±{spread:.0f}%"
                        if r["status"] == "mismatch":
                            ck = r["check"]
                            text += " MISMATCH" + note(
                                f"{label} {short[c]} N={n} threads={t} differs from eager: "
                                + (ck.get("reason") or f"energy rel err {_fmt_err(ck.get('energy_rel_err'))}, "
                                   f"forces rel err {_fmt_err(ck.get('forces_rel_err'))} (rtol {cfg['rtol']:g})"))
                        row.append(text)
                o = cell.get("ours")
                for p in peers:
                    r = cell.get(p)
                    ok = o and r and o.get("median_s") and r.get("median_s")
                    row.append(f"{o['median_s'] / r['median_s']:.2f}" if ok else "-")
                reps = [r["repeats"] for r in cell.values() if r.get("repeats")]
                row.append(f"{min(reps)}-{max(reps)}" if reps else "-")
                rows.append(row)
            headers = (["N", "E"] + [short[c] for c in contenders]
                       + [f"ours/{short[p]}" for p in peers] + ["calls"])
            single = "single" in str(meta.get("ours_threads")) and t > 1
            out.append(f"threads = {t}" + ("  (ours runs single-threaded)" if single else ""))
            out.append(_grid(headers, rows))
            rec = [r for r in runs if r["threads"] == t and r.get("recompiles")]
            if rec:
                out.append("  recompiled on the first call at a size: " + ", ".join(
                    f"{short[r['contender']]} N={r['n_atoms']} (first call {fmt_time(r['first_call_s'])})"
                    for r in rec))

        mem = [r for r in results["memory"] if r["model"] == model]
        for r in mem:
            if r["n_atoms"] is None and r.get("error"):
                out.append(f"  memory {short[r['contender']]}: FAILED "
                           + note(f"{label} memory {short[r['contender']]}: " + first_line(r["error"])))
        rows = []
        for n in dict.fromkeys(r["n_atoms"] for r in mem if r["n_atoms"] is not None):
            cell = {r["contender"]: r for r in mem if r["n_atoms"] == n}
            row = [str(n)]
            for c in MEMORY_CONTENDERS:
                r = cell.get(c)
                if r is None:
                    row.append("-")
                elif r.get("error"):
                    row.append("FAILED " + note(f"{label} memory {short[c]} N={n}: " + first_line(r["error"])))
                else:
                    row.append(fmt_bytes(r["peak_bytes"]) if r["peak_bytes"] > 0 else "~0")
            e, o = cell.get("eager"), cell.get("ours")
            ok = e and o and e.get("peak_bytes") and e["peak_bytes"] >= 2**20 and o.get("peak_bytes") is not None
            row.append(f"{o['peak_bytes'] / e['peak_bytes']:.2f}" if ok else "-")
            rows.append(row)
        if rows:
            out.append(f"peak memory of one call (peak RSS during it - RSS before; threads = {mem[0]['threads']})")
            out.append(_grid(["N", "eager", "ours", "ours/eager"], rows))

    summ = results.get("summary") or summary(results)
    if summ:
        out.append("")
        out.append("summary: ours/X, geometric mean over models and sizes (min-max; the worst cell)")
        for t in dict.fromkeys(r["threads"] for r in summ):
            out.append(f"  threads = {t}: " + ", ".join(
                f"{short[r['peer']]} {r['geomean_ours_over_peer']:.2f} ({r['min']:.2f}-{r['max']:.2f}; "
                f"{r.get('worst', '-')})" for r in summ if r["threads"] == t))
    mem = memory_summary(results)
    if mem:
        out.append(f"  peak memory ours/eager: at most {mem['max_ours_over_eager']:.2f} ({mem['worst']}); "
                   f"above eager's in {mem['over_eager']} of {mem['cells']} cells")
    if notes:
        out.append("")
        out.append("notes:")
        out += [f"  [{i + 1}] {t}" for i, t in enumerate(notes)]
    out.append("")
    dur = meta.get("duration_s")
    out.append(f"load average at start {meta.get('loadavg_start')}, at end {meta.get('loadavg_end')} "
               f"({meta.get('host', {}).get('cpu_count')} CPUs)" + (f"; took {dur:.0f} s" if dur is not None else ""))
    return "\n".join(out)
