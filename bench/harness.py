"""Benchmark: ours against eager PyTorch, torch.compile and AOTInductor.

    python -m pipeline bench [--quick] [--models mlp,schnet] [--sizes 32,1024] [--threads 1,2]
                             [--json PATH] [--contenders eager,ours] [--no-memory] ...

For each model, thread count and size (atoms N; edges E ~ 30 N come from the examples'
neighbor lists) it times one energy+forces call of every contender. The models: the four
examples (examples/<name>.py, f32), then the real potentials NequIP, Allegro and MACE
(examples/real_models.py, f64), each skipped where its package does not import.

    eager     the function itself (forward, then torch.autograd.grad)
    tc_graph  torch.compile(dynamic=True) of the make_fx graph our frontend captures
    tc_fn     torch.compile(dynamic=True) of the function, with
              torch._dynamo.config.trace_autograd_ops = True
    aoti      AOTInductor of the make_fx graph (torch.export with Dims for N and E)
    ours      pipeline.compiler.compile

Every contender is compiled once per model (all are dynamic in N and E), in a fresh
process per model, and checked against eager at every size before it is timed. The
measurements of one size are interleaved round robin. See bench/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "pipeline-bench/1"

FULL_SIZES = [32, 1024, 16384]
QUICK_SIZES = [32, 1024]
REAL_SIZES = [64, 512, 2048]
REAL_QUICK_SIZES = [64, 512]
FULL_THREADS = [1, 2]
QUICK_THREADS = [1]


@dataclass(frozen=True)
class Spec:
    """A model of the registry: an example (examples/<name>.py), or, with `real`, a real
    potential built by examples/real_models.py in its "bench" configuration (skipped where
    its package does not import)."""

    label: str
    dtype: str
    real: bool = False

    def sizes(self, quick: bool) -> list[int]:
        if self.real:
            return REAL_QUICK_SIZES if quick else REAL_SIZES
        return QUICK_SIZES if quick else FULL_SIZES


MODELS = {
    "mlp": Spec("MLP", "float32"),
    "lennard_jones": Spec("Lennard-Jones", "float32"),
    "schnet": Spec("SchNet-like", "float32"),
    "e3nn_like": Spec("e3nn", "float32"),
    "nequip": Spec("NequIP (l<=2, 32 features, 2 layers)", "float64", real=True),
    "allegro": Spec("Allegro (l<=2, 64 scalar + 16 tensor features, 2 layers)", "float64", real=True),
    "mace": Spec("MACE (8x0e+8x1o, l<=2, correlation 3, 2 interactions)", "float64", real=True),
}
ALIASES = {"lj": "lennard_jones", "e3nn": "e3nn_like", "bp": "mlp"}
CONTENDERS = ["eager", "tc_graph", "tc_fn", "aoti", "ours"]
PEERS = [c for c in CONTENDERS if c != "ours"]
LABELS = {
    "eager": "eager",
    "tc_graph": "compile(fx)",
    "tc_fn": "compile(fn)",
    "aoti": "AOTInductor",
    "ours": "ours",
}
INDUCTOR = ("tc_graph", "tc_fn", "aoti")
MEMORY_CONTENDERS = ("eager", "ours")


# --------------------------------------------------------------------------- options


def _list(kind: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    def parse(text: str) -> list[Any]:
        return [kind(t) for t in text.replace(" ", ",").split(",") if t]

    return parse


def _model_name(text: str) -> str:
    name = ALIASES.get(text.lower(), text.lower())
    if name not in MODELS:
        raise argparse.ArgumentTypeError(
            f"unknown model '{text}' (models: {', '.join(MODELS)}; aliases: {', '.join(ALIASES)})")
    return name


def _contender(text: str) -> str:
    if text not in CONTENDERS:
        raise argparse.ArgumentTypeError(f"unknown contender '{text}' (contenders: {', '.join(CONTENDERS)})")
    return text


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m pipeline bench",
        description="Time energy+forces of the example and real models: ours vs eager, torch.compile, AOTInductor.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"contenders: {', '.join(f'{k} ({v})' for k, v in LABELS.items())}\n"
               "full run: N = 32, 1024, 16384 (real models 64, 512, 2048); threads 1, 2. See bench/README.md.",
    )
    p.add_argument("--quick", action="store_true",
                   help="the first two sizes of each model, 1 thread, fewer repeats (a few minutes for the examples)")
    p.add_argument("--models", type=_list(_model_name), default=None,
                   help=f"comma-separated, default all: {','.join(MODELS)}")
    p.add_argument("--sizes", type=_list(int), default=None,
                   help="atom counts for every model, e.g. 32,1024,16384 (default per model: "
                        f"examples {','.join(map(str, FULL_SIZES))}, real models {','.join(map(str, REAL_SIZES))})")
    p.add_argument("--threads", type=_list(int), default=None, help="thread counts, e.g. 1,2")
    p.add_argument("--contenders", type=_list(_contender), default=None,
                   help=f"comma-separated subset of {','.join(CONTENDERS)} (eager is always run: it is the reference)")
    p.add_argument("--json", default=str(ROOT / "bench" / "results" / "latest.json"),
                   help="where to write the results (default bench/results/latest.json)")
    p.add_argument("--target-s", type=float, default=None,
                   help="timed seconds per contender and size (default 0.75; --quick 0.25)")
    p.add_argument("--min-repeats", type=int, default=5, help="timed calls at least (default 5)")
    p.add_argument("--max-repeats", type=int, default=5000, help="timed calls at most (default 5000)")
    p.add_argument("--warmup-s", type=float, default=None,
                   help="untimed warm-up seconds per contender and size, after the checked first call "
                        "(at least one call; default 0.1; --quick 0.05)")
    p.add_argument("--compile-atoms", type=int, default=23,
                   help="atoms of the example every contender is compiled with (default 23)")
    p.add_argument("--rtol", type=float, default=1e-4,
                   help="correctness guard: max|got - eager| / max|eager| per output (default 1e-4)")
    p.add_argument("--dynamic-threads", action="store_true",
                   help="compile the inductor contenders once per model (under the largest thread count) with "
                        "torch._inductor.config.cpp.dynamic_threads = True, instead of once per thread count; "
                        "faster, but see bench/README.md: a recompile under another thread count can be wrong")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    p.add_argument("--worker-timeout", type=float, default=3600.0,
                   help="seconds one model's subprocess may take (default 3600)")
    p.add_argument("--_worker", choices=["timing", "memory"], help=argparse.SUPPRESS)
    p.add_argument("--_config", help=argparse.SUPPRESS)
    p.add_argument("--_out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.models is None:
        args.models = list(MODELS)
    if args.threads is None:
        args.threads = QUICK_THREADS if args.quick else FULL_THREADS
    if args.contenders is None:
        args.contenders = list(CONTENDERS)
    args.contenders = [c for c in CONTENDERS if c in args.contenders or c == "eager"]
    if args.target_s is None:
        args.target_s = 0.25 if args.quick else 0.75
    if args.warmup_s is None:
        args.warmup_s = 0.05 if args.quick else 0.1
    if args.sizes is not None and any(n < 2 for n in args.sizes):
        p.error("--sizes: every size must be at least 2 atoms")
    if any(t < 1 for t in args.threads):
        p.error("--threads: every thread count must be at least 1")
    if args.min_repeats < 1 or args.max_repeats < args.min_repeats:
        p.error("need 1 <= --min-repeats <= --max-repeats")
    return args


# --------------------------------------------------------------------------- entry point


def main(argv: list[str]) -> int:
    args = parse_args(list(argv))
    if args._worker:
        return _worker_main(args)
    args.argv = ["bench", *argv]
    return _driver(args)


def _driver(args: argparse.Namespace) -> int:
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
    _log(f"bench: models {', '.join(args.models)}; N = {sizes_text}; "
         f"threads {', '.join(map(str, args.threads))}; contenders {', '.join(args.contenders)}")
    try:
        for model in args.models:
            spec = MODELS[model]
            cfg = {**config, "model": model, "sizes": args.sizes or spec.sizes(args.quick), "dtype": spec.dtype}
            results["meta"].setdefault("models", {})[model] = {
                "label": spec.label, "dtype": spec.dtype, "sizes": cfg["sizes"]}
            reason = unavailable(model) if spec.real else None
            if reason:
                results["skipped"].append({"model": model, "reason": reason})
                _log(f"[{model}] skipped: {reason}")
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
    records, err = _run_worker("timing", cfg, env, args.worker_timeout)
    _collect(results, model, records)
    if err:
        _log(f"[{model}] timing worker failed: {err.splitlines()[0] if err else ''}")
        results["errors"].append({"model": model, "stage": "timing", "error": err})
    if not args.no_memory:
        mcfg = {**cfg, "threads": args.threads[:1]}
        env = {
            # big blocks straight from (and back to) the OS: RSS follows live memory
            "MALLOC_MMAP_THRESHOLD_": "4096",
            "MALLOC_TRIM_THRESHOLD_": "131072",
            "TORCHINDUCTOR_CACHE_DIR": str(cache_root / f"{model}-memory"),
        }
        records, err = _run_worker("memory", mcfg, env, args.worker_timeout)
        _collect(results, model, records)
        if err:
            _log(f"[{model}] memory worker failed: {err.splitlines()[0] if err else ''}")
            results["errors"].append({"model": model, "stage": "memory", "error": err})
    elapsed = time.perf_counter() - t0
    results["meta"]["models"][model]["elapsed_s"] = round(elapsed, 1)
    _log(f"[{model}] done in {elapsed:.0f} s")


def _finish(results: dict[str, Any], started: float, t_start: float, out: Path, *, partial: bool) -> None:
    """Derive ratios and summary and write the JSON (after every model: an interrupted
    run keeps what it measured, marked partial)."""
    results["ratios"] = _ratios(results["runs"])
    results["summary"] = summary(results)
    meta = results["meta"]
    meta["partial"] = partial
    meta["started"] = _iso(started)
    meta["finished"] = _iso(time.time())
    meta["duration_s"] = round(time.perf_counter() - t_start, 1)
    meta["loadavg_end"] = _loadavg()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(results, indent=1) + "\n")
    tmp.replace(out)


def _inductor_thread_policy(args: argparse.Namespace) -> str:
    if args.dynamic_threads and len(args.threads) > 1:
        return (f"dynamic: compiled once per model under {max(args.threads)} threads with "
                "torch._inductor.config.cpp.dynamic_threads = True")
    return "specialized: compiled once per model and thread count, under that thread count"


def _collect(results: dict[str, Any], model: str, records: list[dict[str, Any]]) -> None:
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


def _run_worker(kind: str, cfg: dict[str, Any], env_extra: dict[str, str],
                timeout: float) -> tuple[list[dict[str, Any]], str | None]:
    """Run one model in a fresh process; read its JSON-lines records even if it dies."""
    fd, out_path = tempfile.mkstemp(prefix=f"bench-{kind}-", suffix=".jsonl")
    os.close(fd)
    env = {**os.environ, **env_extra}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "bench.harness", "--_worker", kind,
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
    records = []
    with open(out_path) as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut short by a crash
    os.unlink(out_path)
    if err:
        last = next((r for r in reversed(records) if r.get("kind") == "progress"), None)
        if last:
            err += f" during {last['what']}"
    return [r for r in records if r.get("kind") != "progress"], err


def _ratios(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
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
        "ours_threads": _ours_thread_mode_text(),
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


def _ours_thread_mode_text() -> str:
    return "compiled once; compiled.num_threads = T before timing at T threads"


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- workers


class _Out:
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


def _worker_main(args: argparse.Namespace) -> int:
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    sys.path.insert(0, str(ROOT))
    cfg = json.loads(args._config)
    out = _Out(args._out)
    if args._worker == "timing":
        _timing_worker(cfg, out)
    else:
        _memory_worker(cfg, out)
    return 0


def _error_text(e: BaseException) -> str:
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    head = f"{type(e).__name__}: {e}"
    if len(text) > 6000:
        text = text[:1500] + "\n...\n" + text[-4000:]
    return head[:2000] + "\n\n" + text


@dataclass
class Built:
    contender: str
    call: Callable[..., Any] | None
    compile_s: float | None = None
    parts: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class _Model:
    """One model: its function, inputs (made once per size) and eager references."""

    def __init__(self, name: str, compile_atoms: int, dtype: str) -> None:
        import importlib

        import torch

        self.name = name
        self.dtype = getattr(torch, dtype)
        if MODELS[name].real:
            from examples import real_models

            self.fn = real_models.energy_forces(name, dtype, "bench")
            self.make_inputs = real_models.inputs
            self.shapes = real_models.dynamic_shapes
        else:
            mod = importlib.import_module(f"examples.{name}")
            self.fn = mod.energy_forces(self.dtype)
            self.make_inputs = mod.inputs
            self.shapes = mod.dynamic_shapes
        self.example = self.make_inputs(compile_atoms, self.dtype, 0)
        self._inputs: dict[int, list[Any]] = {}
        self.refs: dict[int, Any] = {}

    def inputs(self, n: int) -> list[Any]:
        if n not in self._inputs:
            self._inputs[n] = list(self.make_inputs(n, self.dtype, 1).values())
        return self._inputs[n]

    def edges(self, n: int) -> int | None:
        args = self.inputs(n)
        return int(args[1].shape[1]) if len(args) > 1 and args[1].dim() == 2 else None


class _Builder:
    """Compiles the contenders of one model, caching the make_fx capture they share."""

    def __init__(self, model: _Model, out: _Out) -> None:
        self.m = model
        self.out = out
        self._capture: tuple[Any, float] | None = None
        self._capture_error: str | None = None
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-aoti-"))

    def capture(self) -> tuple[Any, float]:
        if self._capture_error:
            raise RuntimeError(f"capture failed: {self._capture_error.splitlines()[0]}")
        if self._capture is None:
            from frontend.capture import capture

            t0 = time.perf_counter()
            try:
                cap = capture(self.m.fn, self.m.example, self.m.shapes)
            except Exception as e:
                self._capture_error = _error_text(e)
                raise
            self._capture = (cap, time.perf_counter() - t0)
        return self._capture

    def build(self, contender: str, threads: int) -> Built:
        method = getattr(self, f"_build_{contender}")
        try:
            return method(threads)
        except Exception as e:
            return Built(contender, None, error=_error_text(e))

    def _build_eager(self, threads: int) -> Built:
        return Built("eager", self.m.fn)

    def _build_ours(self, threads: int) -> Built:
        from pipeline.compiler import compile

        t0 = time.perf_counter()
        compiled = compile(self.m.fn, self.m.example, self.m.shapes)
        wall = time.perf_counter() - t0
        parts = {k: v for k, v in getattr(compiled, "timings", {}).items()}
        parts["wall_s"] = wall
        total = parts.get("total_s", wall)
        parts["threads"] = _ours_thread_mode_text()
        return Built("ours", compiled, total, parts)

    def _build_tc_graph(self, threads: int) -> Built:
        import torch

        cap, cap_s = self.capture()
        t0 = time.perf_counter()
        compiled = torch.compile(cap.graph, dynamic=True)
        wrap_s = time.perf_counter() - t0
        before = _dynamo_graphs()
        with torch.no_grad():
            t0 = time.perf_counter()
            compiled(*self.m.example.values())
            first_s = time.perf_counter() - t0

        def call(*a: Any) -> Any:
            with torch.no_grad():
                return compiled(*a)

        parts = {"capture_s": cap_s, "torch_compile_s": wrap_s, "first_call_s": first_s,
                 "graphs": _dynamo_graphs() - before}
        return Built("tc_graph", call, cap_s + wrap_s + first_s, parts)

    def _build_tc_fn(self, threads: int) -> Built:
        import torch
        from torch._dynamo.utils import counters

        fn = self.m.fn

        def detached(*a: Any) -> Any:
            # returning energy with its (consumed) grad_fn, and a requires_grad_ leaf's
            # descendant, would each make dynamo break the graph
            energy, forces = fn(*a)
            return energy.detach(), forces.detach()

        torch._dynamo.config.trace_autograd_ops = True
        t0 = time.perf_counter()
        compiled = torch.compile(detached, dynamic=True)
        wrap_s = time.perf_counter() - t0
        before = _dynamo_graphs()
        breaks = sum(counters["graph_break"].values())
        t0 = time.perf_counter()
        compiled(*self.m.example.values())
        first_s = time.perf_counter() - t0
        parts = {"torch_compile_s": wrap_s, "first_call_s": first_s, "graphs": _dynamo_graphs() - before,
                 "graph_breaks": sum(counters["graph_break"].values()) - breaks,
                 "graph_break_reasons": [k.splitlines()[0] for k in counters["graph_break"]][:5]}
        return Built("tc_fn", compiled, wrap_s + first_s, parts)

    def _build_aoti(self, threads: int) -> Built:
        import torch
        from torch.export import Dim

        cap, cap_s = self.capture()
        dims = {s.name: Dim(s.name, min=max(2, s.min), max=s.max) if s.max is not None
                else Dim(s.name, min=max(2, s.min)) for s in cap.symbols}
        shapes = tuple({d: dims[n] for d, n in enumerate(a.dims) if isinstance(n, str)} or None
                       for a in cap.args)
        t0 = time.perf_counter()
        ep = torch.export.export(cap.graph, tuple(self.m.example.values()), dynamic_shapes=shapes)
        export_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        package = torch._inductor.aoti_compile_and_package(
            ep, package_path=str(self.tmp / f"{self.m.name}-{threads}.pt2"))
        aoti_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        runner = torch._inductor.aoti_load_package(package)
        load_s = time.perf_counter() - t0

        def call(*a: Any) -> Any:
            with torch.no_grad():
                return runner(*a)

        parts = {"capture_s": cap_s, "export_s": export_s, "aoti_compile_and_package_s": aoti_s,
                 "load_s": load_s}
        return Built("aoti", call, cap_s + export_s + aoti_s + load_s, parts)


def _dynamo_graphs() -> int:
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


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


def _timing_worker(cfg: dict[str, Any], out: _Out) -> None:
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
        model = _Model(name, cfg["compile_atoms"], cfg["dtype"])
    except Exception as e:
        out.emit("error", stage="load", error=_error_text(e))
        return
    builder = _Builder(model, out)
    torch.set_num_threads(threads_list[0] if specialize else max(threads_list))
    out.progress(f"{name}: compiler warm-up")
    warm = _warm_compilers(contenders)
    out.emit("info", info={"ours_threads": _ours_thread_mode_text(),
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
                _log(f"[{name}] {c}: compile FAILED: {b.error.splitlines()[0][:200]}")
            elif b.compile_s is not None:
                _log(f"[{name}] {c}: compiled in {b.compile_s:.1f} s")
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
            _time_size(model, n, t, calls, built, cfg, out)
    shutil.rmtree(builder.tmp, ignore_errors=True)


def _toy_energy_forces(pos: Any) -> Any:
    import torch

    pos = pos.detach().requires_grad_(True)
    energy = (pos * pos).sum()
    (grad,) = torch.autograd.grad(energy, pos)
    return energy.detach(), -grad.detach()


def _warm_compilers(contenders: list[str]) -> dict[str, Any]:
    """Compile a toy energy+forces with inductor and with ours, untimed, so that one-time
    costs of a process (compile worker pool, first C++ build in the cache, LLVM set-up)
    do not land on whichever contender happens to compile first."""
    import torch
    from torch.export import Dim

    done: dict[str, Any] = {}
    pos = torch.randn(8, 3)
    if any(c in INDUCTOR for c in contenders):
        t0 = time.perf_counter()
        try:
            torch.compile(_toy_energy_forces, dynamic=True)(pos)
            done["inductor_s"] = time.perf_counter() - t0
        except Exception as e:
            done["inductor_error"] = _first_line(_error_text(e))
        torch._dynamo.reset()
    if "ours" in contenders:
        t0 = time.perf_counter()
        try:
            from pipeline.compiler import compile

            compile(_toy_energy_forces, {"pos": pos}, {"pos": {0: Dim("N", min=2)}})
            done["ours_s"] = time.perf_counter() - t0
        except Exception as e:
            done["ours_error"] = _first_line(_error_text(e))
    return done


def _reset_inductor_contenders(built: dict[tuple[str, int | None], Built]) -> None:
    """Before recompiling for another thread count: forget dynamo's caches (which do not
    key on the thread count), so the new wrappers really compile."""
    import torch

    torch._dynamo.reset()
    for key in [k for k in built if k[0] in INDUCTOR]:
        del built[key]


def _time_size(model: _Model, n: int, t: int, calls: dict[str, Built],
               built: dict[tuple[str, int | None], Built], cfg: dict[str, Any], out: _Out) -> None:
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
        graphs = _dynamo_graphs()
        try:
            t0 = time.perf_counter()
            got = b.call(*args)
            first = time.perf_counter() - t0
        except Exception as e:
            out.emit("run", contender=c, **base, status="error", error=_error_text(e))
            _log(f"[{model.name}] {c} N={n} threads={t}: call FAILED: {type(e).__name__}: {str(e)[:150]}")
            continue
        check = _check(got, ref, cfg["rtol"])
        del got
        info[c] = {"first_call_s": first, "recompiles": _dynamo_graphs() - graphs if c in INDUCTOR else 0,
                   "check": check}
        if not check["ok"]:
            _log(f"[{model.name}] {c} N={n} threads={t}: MISMATCH vs eager {check}")
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
    line = ", ".join(f"{c} {_fmt_time(_quartiles(sorted(times[c]))[1])}" for c in live)
    _log(f"[{model.name}] threads={t} N={n} E={edges}: {line}")


def _quartiles(ts: list[float]) -> tuple[float, float, float]:
    if len(ts) == 1:
        return ts[0], ts[0], ts[0]
    q = statistics.quantiles(ts, n=4, method="inclusive")
    return q[0], q[1], q[2]


# --------------------------------------------------------------------------- memory


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


def _peak_call(f: Callable[[], Any]) -> tuple[int, int, str]:
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


def _memory_worker(cfg: dict[str, Any], out: _Out) -> None:
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
        model = _Model(name, cfg["compile_atoms"], cfg["dtype"])
    except Exception as e:
        out.emit("error", stage="memory load", error=_error_text(e))
        return
    builder = _Builder(model, out)
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
                delta, before, method = _peak_call(lambda: f(*args))
            except Exception as e:
                out.emit("memory", contender=c, threads=t, n_atoms=n, error=_error_text(e))
                continue
            out.emit("memory", contender=c, threads=t, n_atoms=n, n_edges=model.edges(n),
                     peak_bytes=delta, rss_before_bytes=before, method=method, error=None)
            _log(f"[{name}] memory {c} N={n}: {_fmt_bytes(delta)} (RSS before {_fmt_bytes(before)})")
    shutil.rmtree(builder.tmp, ignore_errors=True)


# --------------------------------------------------------------------------- table


def _fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} us"


def _fmt_err(e: Any) -> str:
    return f"{e:.2e}" if isinstance(e, float) else str(e)


def _fmt_bytes(b: float | None) -> str:
    if b is None:
        return "-"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(b) >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def _first_line(text: str | None, width: int = 110) -> str:
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
    ratios = results.get("ratios", [])
    for t in dict.fromkeys(r["threads"] for r in ratios):
        for p in PEERS:
            xs = [r["ours_over_peer"] for r in ratios if r["threads"] == t and r["peer"] == p]
            if xs:
                out.append({"threads": t, "peer": p, "cells": len(xs), "geomean_ours_over_peer": _geomean(xs),
                            "min": min(xs), "max": max(xs)})
    return out


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
            out.append(f"skipped: {_first_line(skipped[model], 300)}")
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
                                 + note(f"{label} {short[c]} compile: " + _first_line(r["error"])))
        fresh = [r for r in results["compile"] if r["model"] == model and r.get("fresh_process")]
        if fresh:
            parts.append(f"(ours in the memory process: {fresh[0]['compile_s']:.1f})")
        out.append("compile s: " + (", ".join(parts) if parts else "-"))
        for e in results["errors"]:
            if e["model"] == model:
                out.append(f"  error ({e.get('stage')}): {_first_line(e.get('error'))}")

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
                                                    + _first_line(r["error"])))
                    else:
                        spread = (r["q3_s"] - r["q1_s"]) / 2 / r["median_s"] * 100 if r["median_s"] else 0
                        text = f"{_fmt_time(r['median_s'])} ±{spread:.0f}%"
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
                    f"{short[r['contender']]} N={r['n_atoms']} (first call {_fmt_time(r['first_call_s'])})"
                    for r in rec))

        mem = [r for r in results["memory"] if r["model"] == model]
        for r in mem:
            if r["n_atoms"] is None and r.get("error"):
                out.append(f"  memory {short[r['contender']]}: FAILED "
                           + note(f"{label} memory {short[r['contender']]}: " + _first_line(r["error"])))
        rows = []
        for n in dict.fromkeys(r["n_atoms"] for r in mem if r["n_atoms"] is not None):
            cell = {r["contender"]: r for r in mem if r["n_atoms"] == n}
            row = [str(n)]
            for c in MEMORY_CONTENDERS:
                r = cell.get(c)
                if r is None:
                    row.append("-")
                elif r.get("error"):
                    row.append("FAILED " + note(f"{label} memory {short[c]} N={n}: " + _first_line(r["error"])))
                else:
                    row.append(_fmt_bytes(r["peak_bytes"]) if r["peak_bytes"] > 0 else "~0")
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
        out.append("summary: ours/X, geometric mean over models and sizes (min-max)")
        for t in dict.fromkeys(r["threads"] for r in summ):
            out.append(f"  threads = {t}: " + ", ".join(
                f"{short[r['peer']]} {r['geomean_ours_over_peer']:.2f} ({r['min']:.2f}-{r['max']:.2f})"
                for r in summ if r["threads"] == t))
    if notes:
        out.append("")
        out.append("notes:")
        out += [f"  [{i + 1}] {t}" for i, t in enumerate(notes)]
    out.append("")
    dur = meta.get("duration_s")
    out.append(f"load average at start {meta.get('loadavg_start')}, at end {meta.get('loadavg_end')} "
               f"({meta.get('host', {}).get('cpu_count')} CPUs)" + (f"; took {dur:.0f} s" if dur is not None else ""))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
