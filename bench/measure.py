"""How calls are measured: the timing of one size, and the peak memory of one call.

Timing (`time_size`): each contender's first call (it may recompile) is checked against
eager, then warmed up, then timed in interleaved rounds with the garbage collector off,
each round starting with another contender, so drift (thermal, other load) hits all alike.
Memory (`peak_call`): reset the kernel's high-water mark (`/proc/self/clear_refs`), call,
read `VmHWM`; where that file is not writable, sample `VmRSS` from a thread. The method is
kept apart from the workers that drive it, in one place, to be read beside the description
of it in bench/README.md ("Timing", "Peak memory of one call").
"""

from __future__ import annotations

import gc
import math
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from bench.contenders import Built, Model, dynamo_graphs, error_text
from bench.records import Out
from bench.registry import INDUCTOR
from bench.report import fmt_time, log


def _check(got: Any, want: Any, rtol: float) -> dict[str, Any]:
    """Energy and forces against eager: max|got - want| / max|want| each."""
    import torch

    got, want = list(got), list(want)
    if len(got) < 2:
        return {"ok": False, "reason": f"{len(got)} outputs, expected energy and forces"}
    errs = {}
    for name, g, w in zip(("energy", "forces"), got[:2], want[:2]):
        g = torch.as_tensor(g).detach().to(torch.float64)
        w = w.detach().to(torch.float64)
        if g.shape != w.shape:
            return {"ok": False, "reason": f"{name} has shape {tuple(g.shape)}, expected {tuple(w.shape)}"}
        if w.numel() == 0:
            errs[name] = 0.0
            continue
        scale = w.abs().max().item()
        err = (g - w).abs().max().item()
        rel = err / scale if scale > 0 else err
        errs[name] = rel if math.isfinite(rel) else str(rel)  # "nan" / "inf": JSON has neither
    ok = all(isinstance(v, float) and v <= rtol for v in errs.values())
    return {"ok": ok, "energy_rel_err": errs["energy"], "forces_rel_err": errs["forces"]}


def time_size(model: Model, n: int, t: int, calls: dict[str, Built],
               built: dict[tuple[str, int | None], Built], cfg: dict[str, Any], out: Out) -> None:
    import torch

    torch.set_num_threads(t)
    args = model.inputs(n)
    edges = model.edges(n)
    if n not in model.refs:
        model.refs[n] = tuple(x.detach() for x in model.fn(*args))
    ref = model.refs[n]
    base = {"threads": t, "n_atoms": n, "n_edges": edges}

    # 1. first call of each (it may recompile), checked against eager
    live: dict[str, Callable[..., Any]] = {}
    info: dict[str, dict[str, Any]] = {}
    for c, b in calls.items():
        graphs = dynamo_graphs()
        try:
            t0 = time.perf_counter()
            got = b.call(*args)
            first = time.perf_counter() - t0
        except Exception as e:
            out.emit("run", contender=c, **base, status="error", error=error_text(e))
            log(f"[{model.name}] {c} N={n} threads={t}: call FAILED: {type(e).__name__}: {str(e)[:150]}")
            continue
        check = _check(got, ref, cfg["rtol"])
        del got
        info[c] = {"first_call_s": first, "recompiles": dynamo_graphs() - graphs if c in INDUCTOR else 0,
                   "check": check}
        if not check["ok"]:
            log(f"[{model.name}] {c} N={n} threads={t}: MISMATCH vs eager {check}")
        live[c] = b.call

    # 2. warm up, estimate one call, choose repeats
    # (a first call that took warmup_s and compiled nothing is the warm-up)
    reps: dict[str, int] = {}
    for c, f in live.items():
        first = info[c]["first_call_s"]
        reuse = not info[c]["recompiles"] and first >= cfg["warmup_s"]
        ts = [first] if reuse else []
        spent = time.perf_counter()
        while not ts or time.perf_counter() - spent < cfg["warmup_s"] and len(ts) < cfg["max_repeats"]:
            t0 = time.perf_counter()
            f(*args)
            ts.append(time.perf_counter() - t0)
        est = statistics.median(ts)
        info[c]["warmup_calls"] = len(ts) - reuse
        reps[c] = int(min(cfg["max_repeats"], max(cfg["min_repeats"], math.ceil(cfg["target_s"] / max(est, 1e-7)))))

    # 3. interleaved rounds: every round calls every contender (reps/rounds times each),
    # starting with a different one each round, so drift and cache state hit all alike
    times: dict[str, list[float]] = {c: [] for c in live}
    rounds = min(reps.values()) if reps else 0
    order = list(live)
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            k = r % len(order)
            for c in order[k:] + order[:k]:
                f = live[c]
                todo = math.ceil((reps[c] - len(times[c])) / (rounds - r))
                ts = times[c]
                for _ in range(todo):
                    t0 = time.perf_counter()
                    f(*args)
                    ts.append(time.perf_counter() - t0)
    finally:
        gc.enable()

    for c in live:
        ts = sorted(times[c])
        q1, med, q3 = _quartiles(ts)
        check = info[c]["check"]
        out.emit("run", contender=c, **base, status="ok" if check["ok"] else "mismatch", error=None,
                 check=check, first_call_s=info[c]["first_call_s"], recompiles=info[c]["recompiles"],
                 warmup_calls=info[c]["warmup_calls"], repeats=len(ts), rounds=rounds,
                 median_s=med, q1_s=q1, q3_s=q3, min_s=ts[0], max_s=ts[-1], mean_s=statistics.fmean(ts))
    line = ", ".join(f"{c} {fmt_time(_quartiles(sorted(times[c]))[1])}" for c in live)
    log(f"[{model.name}] threads={t} N={n} E={edges}: {line}")


def _quartiles(ts: list[float]) -> tuple[float, float, float]:
    if len(ts) == 1:
        return ts[0], ts[0], ts[0]
    q = statistics.quantiles(ts, n=4, method="inclusive")
    return q[0], q[1], q[2]


def _status_kb(field_name: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    raise KeyError(field_name)


def _reset_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_call(f: Callable[[], Any]) -> tuple[int, int, str]:
    """(peak RSS during the call - RSS before, RSS before) in bytes, and the method."""
    gc.collect()
    before = _status_kb("VmRSS")
    if _reset_hwm():
        result = f()
        peak = _status_kb("VmHWM")
        del result
        return (peak - before) * 1024, before * 1024, "VmHWM"
    # no clear_refs: sample VmRSS from a thread (may miss peaks shorter than ~1 ms)
    peak_box = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak_box[0] = max(peak_box[0], _status_kb("VmRSS"))
            time.sleep(0.0005)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    result = f()
    peak_box[0] = max(peak_box[0], _status_kb("VmRSS"))
    done.set()
    th.join()
    del result
    return (peak_box[0] - before) * 1024, before * 1024, "VmRSS sampling"
