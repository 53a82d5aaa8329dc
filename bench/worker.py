"""The child process of a run: one model, `python -m bench --_worker timing|memory
--_config JSON --_out FILE` (started by bench/driver.py, never by hand).

The timing worker compiles every contender once per model (inductor's once per thread
count, as its C++ is specialized to it, unless --dynamic-threads) and times every size at
every thread count. The memory worker compiles ours again in a process of its own (started
with MALLOC_MMAP_THRESHOLD_ so that RSS follows live memory) and measures one call's peak.
Each record goes out as one JSON line, flushed and fsynced on its own, so the parent keeps
everything measured before a crash, and the last `progress` line says where it happened.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any

from bench.contenders import Built, Builder, Model, error_text, ours_thread_mode_text, warm_compilers
from bench.measure import peak_call, time_size
from bench.records import Out
from bench.registry import INDUCTOR, MEMORY_CONTENDERS, ROOT
from bench.report import fmt_bytes, log


def main(args: argparse.Namespace) -> int:
    """The worker of `--_worker`: one model's timing or memory, as records in `--_out`."""
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    sys.path.insert(0, str(ROOT))
    cfg = json.loads(args._config)
    out = Out(args._out)
    if args._worker == "timing":
        _timing_worker(cfg, out)
    else:
        _memory_worker(cfg, out)
    return 0


def _timing_worker(cfg: dict[str, Any], out: Out) -> None:
    import torch

    # imported before any compile time is measured, so no contender pays for them
    import torch._dynamo  # noqa: F401
    import torch._inductor  # noqa: F401
    import torch._inductor.config as inductor_config
    import torch.export  # noqa: F401

    try:
        import pipeline.compiler  # noqa: F401
    except Exception:
        pass

    name = cfg["model"]
    threads_list: list[int] = cfg["threads"]
    contenders: list[str] = cfg["contenders"]
    specialize = cfg["inductor_threads"].startswith("specialized")
    if not specialize:
        inductor_config.cpp.dynamic_threads = True
    torch._dynamo.config.trace_autograd_ops = True

    out.progress(f"{name}: load")
    try:
        model = Model(name, cfg["compile_atoms"], cfg["dtype"])
    except Exception as e:
        out.emit("error", stage="load", error=error_text(e))
        return
    builder = Builder(model, out, tune=cfg.get("tune", "quick"), tune_size=max(cfg["sizes"]))
    torch.set_num_threads(threads_list[0] if specialize else max(threads_list))
    out.progress(f"{name}: compiler warm-up")
    warm = warm_compilers(contenders)
    out.emit("info", info={"ours_threads": ours_thread_mode_text(),
                           "edges": {str(n): model.edges(n) for n in cfg["sizes"]},
                           "compiler_warmup_s": warm})

    def per_thread(c: str) -> bool:
        return c in INDUCTOR and specialize

    built: dict[tuple[str, int | None], Built] = {}

    def get(c: str, t: int) -> Built:
        key = (c, t if per_thread(c) else None)
        if key not in built:
            build_threads = max(threads_list) if c in INDUCTOR and not specialize else t
            torch.set_num_threads(build_threads)
            out.progress(f"{name}: compile {c} (threads {build_threads})")
            b = builder.build(c, build_threads)
            built[key] = b
            torch.set_num_threads(t)
            out.emit("compile", contender=c, threads=key[1], built_at_threads=build_threads,
                     ok=b.error is None, compile_s=b.compile_s, parts=b.parts, error=b.error)
            if b.error:
                log(f"[{name}] {c}: compile FAILED: {b.error.splitlines()[0][:200]}")
            elif b.compile_s is not None:
                log(f"[{name}] {c}: compiled in {b.compile_s:.1f} s")
        return built[key]

    for i, t in enumerate(threads_list):
        torch.set_num_threads(t)
        if i > 0 and any(per_thread(c) for c in INDUCTOR):
            _reset_inductor_contenders(built)
        calls: dict[str, Built] = {}
        for c in contenders:
            b = get(c, t)
            torch.set_num_threads(t)
            if b.call is not None:
                if c == "ours":
                    b.call.num_threads = t
                calls[c] = b
        for n in cfg["sizes"]:
            out.progress(f"{name}: threads {t}, N={n}")
            time_size(model, n, t, calls, built, cfg, out)
    shutil.rmtree(builder.tmp, ignore_errors=True)


def _reset_inductor_contenders(built: dict[tuple[str, int | None], Built]) -> None:
    """Before recompiling for another thread count: forget dynamo's caches (which do not
    key on the thread count), so the new wrappers really compile."""
    import torch

    torch._dynamo.reset()
    for key in [k for k in built if k[0] in INDUCTOR]:
        del built[key]


def _memory_worker(cfg: dict[str, Any], out: Out) -> None:
    import torch

    name = cfg["model"]
    t = cfg["threads"][0]
    torch.set_num_threads(t)
    try:
        import pipeline.compiler  # noqa: F401
    except Exception:
        pass
    out.progress(f"{name}: memory: load")
    try:
        model = Model(name, cfg["compile_atoms"], cfg["dtype"])
    except Exception as e:
        out.emit("error", stage="memory load", error=error_text(e))
        return
    builder = Builder(model, out)  # tune "quick": the timing run's choices, from the cache, no measurement here
    calls = {}
    for c in MEMORY_CONTENDERS:
        if c not in cfg["contenders"]:
            continue
        out.progress(f"{name}: memory: compile {c}")
        b = builder.build(c, t)
        if b.error:
            out.emit("memory", contender=c, threads=t, n_atoms=None, error=b.error)
            continue
        if c == "ours":
            b.call.num_threads = t
            out.emit("compile", contender="ours", threads=None, built_at_threads=t, fresh_process=True,
                     ok=True, compile_s=b.compile_s, parts=b.parts, error=None)
        calls[c] = b.call
    warm: set[str] = set()
    for n in cfg["sizes"]:
        args = model.inputs(n)
        for c, f in calls.items():
            out.progress(f"{name}: memory: {c} N={n}")
            try:
                if c not in warm:  # lazy initialization (thread pools...) is not a call's memory
                    f(*model.inputs(min(cfg["sizes"])))
                    warm.add(c)
                if c == "ours":  # its temporaries are a call's memory, as eager's are
                    f.release_workspace()
                delta, before, method = peak_call(lambda: f(*args))
            except Exception as e:
                out.emit("memory", contender=c, threads=t, n_atoms=n, error=error_text(e))
                continue
            out.emit("memory", contender=c, threads=t, n_atoms=n, n_edges=model.edges(n),
                     peak_bytes=delta, rss_before_bytes=before, method=method, error=None)
            log(f"[{name}] memory {c} N={n}: {fmt_bytes(delta)} (RSS before {fmt_bytes(before)})")
    shutil.rmtree(builder.tmp, ignore_errors=True)
