"""Run the loops -> llvm pipeline in process: `lower_to_llvm(module)`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe

from codegen import CODEGEN_PASSES, LOOPS_TO_LLVM


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xDSL's passes and ours (codegen only: this stage does not import pipeline/)."""
    return {**Universe.get_multiverse().all_passes, **CODEGEN_PASSES}


def build_pipeline(passes: Sequence[str] = LOOPS_TO_LLVM, callback=None) -> PassPipeline:
    return PassPipeline.parse_spec(available_passes(), ",".join(passes), callback)


def lower_to_llvm(
    module: builtin.ModuleOp,
    ctx: Context | None = None,
    *,
    passes: Sequence[str] = LOOPS_TO_LLVM,
    verify: bool = True,
    timings: dict[str, float] | None = None,
) -> builtin.ModuleOp:
    """Lower `module` in place through `passes` (default `LOOPS_TO_LLVM`) and return it.

    With `timings`, the seconds spent in each pass are stored there by pass name."""
    pipeline = build_pipeline(passes)
    ctx = ctx or Context()
    for p in pipeline.passes:
        start = time.perf_counter()
        p.apply(ctx, module)
        if timings is not None:
            timings[p.name] = timings.get(p.name, 0.0) + time.perf_counter() - start
    if verify:
        module.verify()
    return module
