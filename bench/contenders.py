"""The five contenders of one model and how each is compiled.

    eager     the function itself (forward, then torch.autograd.grad)
    tc_graph  torch.compile(dynamic=True) of the make_fx graph our frontend captures
    tc_fn     torch.compile(dynamic=True) of the function, trace_autograd_ops on
    aoti      AOTInductor of the make_fx graph (torch.export with Dims for N and E)
    ours      pipeline.compiler.compile

`Builder.build(contender, threads)` returns a `Built`: the callable with its compile time
and the parts of it, or the error text. It never raises, so one contender that fails to
compile does not stop the others. tc_graph and aoti share one make_fx capture, taken once
and counted in the compile time of both (each needs it to start from the function).
`warm_compilers` pays the one-time costs of a process before any compile is timed. Torch
and the compiler are imported inside the functions: only the worker processes load them.
"""

from __future__ import annotations

import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.records import Out
from bench.registry import INDUCTOR, spec
from bench.report import first_line


def ours_thread_mode_text() -> str:
    return "compiled once; compiled.num_threads = T before timing at T threads"


def error_text(e: BaseException) -> str:
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


class Model:
    """One model: its function, inputs (made once per size) and eager references."""

    def __init__(self, name: str, compile_atoms: int, dtype: str) -> None:
        import importlib

        import torch

        self.name = name
        self.dtype = getattr(torch, dtype)
        model = spec(name)
        base = model.base or name
        sizes = dict(model.config)
        if model.real:
            from examples import real_models

            config = real_models.register_config(base, name, sizes) if sizes else "bench"
            self.fn = real_models.energy_forces(base, dtype, config)
            inputs, self.shapes = real_models.inputs, real_models.dynamic_shapes
        else:
            mod = importlib.import_module(f"examples.{base}")
            self.fn = mod.energy_forces(self.dtype, **sizes)
            inputs, self.shapes = mod.inputs, mod.dynamic_shapes
        density = {} if model.neighbors is None else {"neighbors": model.neighbors}
        self.make_inputs = lambda n, dtype, seed: inputs(n, dtype, seed, **density)
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


class Builder:
    """Compiles the contenders of one model, caching the make_fx capture they share."""

    def __init__(self, model: Model, out: Out, tune: str = "quick", tune_size: int | None = None) -> None:
        self.m = model
        self.out = out
        self.tune: str | float = float(tune) if tune.replace(".", "", 1).isdigit() else tune
        self.tune_size = tune_size
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
                self._capture_error = error_text(e)
                raise
            self._capture = (cap, time.perf_counter() - t0)
        return self._capture

    def build(self, contender: str, threads: int) -> Built:
        method = getattr(self, f"_build_{contender}")
        try:
            return method(threads)
        except Exception as e:
            return Built(contender, None, error=error_text(e))

    def _build_eager(self, threads: int) -> Built:
        return Built("eager", self.m.fn)

    def _build_ours(self, threads: int) -> Built:
        from pipeline.compiler import compile

        t0 = time.perf_counter()
        tune_inputs = self.m.make_inputs(self.tune_size, self.m.dtype, 1) if self.tune_size else None
        compiled = compile(self.m.fn, self.m.example, self.m.shapes, tune=self.tune, tune_inputs=tune_inputs)
        wall = time.perf_counter() - t0
        parts = {k: v for k, v in getattr(compiled, "timings", {}).items()}
        parts["wall_s"] = wall
        total = parts.get("total_s", wall)
        parts["threads"] = ours_thread_mode_text()
        return Built("ours", compiled, total, parts)

    def _build_tc_graph(self, threads: int) -> Built:
        import torch

        cap, cap_s = self.capture()
        t0 = time.perf_counter()
        compiled = torch.compile(cap.graph, dynamic=True)
        wrap_s = time.perf_counter() - t0
        before = dynamo_graphs()
        with torch.no_grad():
            t0 = time.perf_counter()
            compiled(*self.m.example.values())
            first_s = time.perf_counter() - t0

        def call(*a: Any) -> Any:
            with torch.no_grad():
                return compiled(*a)

        parts = {"capture_s": cap_s, "torch_compile_s": wrap_s, "first_call_s": first_s,
                 "graphs": dynamo_graphs() - before}
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
        before = dynamo_graphs()
        breaks = sum(counters["graph_break"].values())
        t0 = time.perf_counter()
        compiled(*self.m.example.values())
        first_s = time.perf_counter() - t0
        parts = {"torch_compile_s": wrap_s, "first_call_s": first_s, "graphs": dynamo_graphs() - before,
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


def dynamo_graphs() -> int:
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def _toy_energy_forces(pos: Any) -> Any:
    import torch

    pos = pos.detach().requires_grad_(True)
    energy = (pos * pos).sum()
    (grad,) = torch.autograd.grad(energy, pos)
    return energy.detach(), -grad.detach()


def warm_compilers(contenders: list[str]) -> dict[str, Any]:
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
            done["inductor_error"] = first_line(error_text(e))
        torch._dynamo.reset()
    if "ours" in contenders:
        t0 = time.perf_counter()
        try:
            from pipeline.compiler import compile

            compile(_toy_energy_forces, {"pos": pos}, {"pos": {0: Dim("N", min=2)}})
            done["ours_s"] = time.perf_counter() - t0
        except Exception as e:
            done["ours_error"] = first_line(error_text(e))
    return done
