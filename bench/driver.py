"""The parent process of a run: one fresh worker subprocess per model (bench/worker.py),
one more for its memory, their records gathered into one results dict, the JSON rewritten
after every model, the table printed at the end.

Why a process per model: a crash in native code (ours, inductor's C++) loses only the rest
of that model, and a hung one is killed at --worker-timeout; every model's inductor
compiles start from a cache directory of their own, so their compile times are cold-cache
times; the memory process runs with its own malloc settings. The records come back as JSON
lines in a file that is read even when the worker died. Torch is imported only for the
host record (`torch.__version__`); the workers do the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import records
from bench.contenders import ours_thread_mode_text
from bench.registry import ROOT, SCHEMA, spec
from bench.report import log, ratios, render, summary, write_json


def main(args: argparse.Namespace) -> int:
    """Bench every model of `args` (as bench.cli parsed them), each in its own workers;
    write the JSON after each model, print the table at the end."""
    started = time.time()
    t_start = time.perf_counter()
    policy = _inductor_thread_policy(args)
    config = {
        "sizes": args.sizes,
        "threads": args.threads,
        "contenders": args.contenders,
        "target_s": args.target_s,
        "min_repeats": args.min_repeats,
        "max_repeats": args.max_repeats,
        "warmup_s": args.warmup_s,
        "compile_atoms": args.compile_atoms,
        "rtol": args.rtol,
        "inductor_threads": policy,
        "tune": args.tune,
    }
    results: dict[str, Any] = {
        "schema": SCHEMA,
        "meta": _meta(args, config),
        "compile": [],
        "runs": [],
        "ratios": [],
        "summary": [],
        "memory": [],
        "errors": [],
        "skipped": [],
    }
    from examples.real_models import unavailable

    cache_root = Path(tempfile.mkdtemp(prefix="bench-inductor-"))
    sizes_text = ", ".join(map(str, args.sizes)) if args.sizes else "per model"
    log(f"bench: models {', '.join(args.models)}; N = {sizes_text}; "
         f"threads {', '.join(map(str, args.threads))}; contenders {', '.join(args.contenders)}")
    try:
        for model in args.models:
            cell = spec(model)
            cfg = {**config, "model": model, "sizes": args.sizes or cell.sizes(args.quick), "dtype": cell.dtype}
            results["meta"].setdefault("models", {})[model] = {
                "label": cell.label, "dtype": cell.dtype, "sizes": cfg["sizes"]}
            reason = unavailable(cell.base or model) if cell.real else None
            if reason:
                results["skipped"].append({"model": model, "reason": reason})
                log(f"[{model}] skipped: {reason}")
            else:
                _bench_model(results, cfg, cache_root, args)
            _finish(results, started, t_start, Path(args.json), partial=model != args.models[-1])
    finally:
        shutil.rmtree(cache_root, ignore_errors=True)
    print(render(results))
    print(f"\nwrote {args.json} ({results['meta']['duration_s']:.0f} s)")
    return 0


def _bench_model(results: dict[str, Any], cfg: dict[str, Any], cache_root: Path, args: argparse.Namespace) -> None:
    """Time one model in a fresh process, then (unless --no-memory) measure its memory in another."""
    model = cfg["model"]
    t0 = time.perf_counter()
    env = {"TORCHINDUCTOR_CACHE_DIR": str(cache_root / model)}  # cold caches: honest compile times
    got, err = _run_worker("timing", cfg, env, args.worker_timeout)
    records.collect(results, model, got)
    if err:
        log(f"[{model}] timing worker failed: {err.splitlines()[0] if err else ''}")
        results["errors"].append({"model": model, "stage": "timing", "error": err})
    if not args.no_memory:
        mcfg = {**cfg, "threads": args.threads[:1]}
        env = {
            # big blocks straight from (and back to) the OS: RSS follows live memory
            "MALLOC_MMAP_THRESHOLD_": "4096",
            "MALLOC_TRIM_THRESHOLD_": "131072",
            "TORCHINDUCTOR_CACHE_DIR": str(cache_root / f"{model}-memory"),
        }
        got, err = _run_worker("memory", mcfg, env, args.worker_timeout)
        records.collect(results, model, got)
        if err:
            log(f"[{model}] memory worker failed: {err.splitlines()[0] if err else ''}")
            results["errors"].append({"model": model, "stage": "memory", "error": err})
    elapsed = time.perf_counter() - t0
    results["meta"]["models"][model]["elapsed_s"] = round(elapsed, 1)
    log(f"[{model}] done in {elapsed:.0f} s")


def _finish(results: dict[str, Any], started: float, t_start: float, out: Path, *, partial: bool) -> None:
    """Derive ratios and summary and write the JSON (after every model: an interrupted
    run keeps what it measured, marked partial)."""
    results["ratios"] = ratios(results["runs"])
    results["summary"] = summary(results)
    meta = results["meta"]
    meta["partial"] = partial
    meta["started"] = _iso(started)
    meta["finished"] = _iso(time.time())
    meta["duration_s"] = round(time.perf_counter() - t_start, 1)
    meta["loadavg_end"] = _loadavg()
    write_json(results, out)


def _inductor_thread_policy(args: argparse.Namespace) -> str:
    if args.dynamic_threads and len(args.threads) > 1:
        return (f"dynamic: compiled once per model under {max(args.threads)} threads with "
                "torch._inductor.config.cpp.dynamic_threads = True")
    return "specialized: compiled once per model and thread count, under that thread count"


def _run_worker(kind: str, cfg: dict[str, Any], env_extra: dict[str, str],
                timeout: float) -> tuple[list[dict[str, Any]], str | None]:
    """Run one model in a fresh process; read its JSON-lines records even if it dies."""
    fd, out_path = tempfile.mkstemp(prefix=f"bench-{kind}-", suffix=".jsonl")
    os.close(fd)
    env = {**os.environ, **env_extra}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "bench", "--_worker", kind,
           "--_config", json.dumps(cfg), "--_out", out_path]
    err: str | None = None
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    try:
        rc = proc.wait(timeout=timeout)
        if rc != 0:
            err = (f"{kind} worker exited with status {rc}" if rc > 0 else
                   f"{kind} worker killed by signal {signal.Signals(-rc).name}")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        err = f"{kind} worker timed out after {timeout:.0f} s"
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    got = records.read(out_path)
    os.unlink(out_path)
    if err:
        last = next((r for r in reversed(got) if r.get("kind") == "progress"), None)
        if last:
            err += f" during {last['what']}"
    return [r for r in got if r.get("kind") != "progress"], err


def _meta(args: argparse.Namespace, config: dict[str, Any]) -> dict[str, Any]:
    import torch

    meta: dict[str, Any] = {
        "argv": getattr(args, "argv", None),
        "quick": args.quick,
        "config": config,
        "host": {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "torch": torch.__version__,
        },
        "loadavg_start": _loadavg(),
        "ours_threads": ours_thread_mode_text(),
        "memory_method": ("fresh subprocess per model (MALLOC_MMAP_THRESHOLD_=4096, so freed tensors "
                          "leave RSS); per call: VmRSS before, reset VmHWM (/proc/self/clear_refs 5), "
                          "call, VmHWM after; memory = VmHWM - VmRSS(before); one warm-up call (smallest size) first; "
                          f"at {args.threads[0]} thread(s)"),
    }
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True)
        meta["git"] = {"commit": head.stdout.strip() or None, "dirty": bool(dirty.stdout.strip())}
    except OSError:
        pass
    return meta


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))
