"""The fuzzer's run: the timed loop of hypothesis rounds, shrinking, reproducers, the
summary and the command line.

Hypothesis draws each case (a program, its plan, its dtype) and `check` judges it.
The run is split into rounds of ROUND examples with seeds seed, seed + 1, ... so that
the time budget is checked between rounds and a run is repeatable. The first case of
a new kind of failure is shrunk by hypothesis (within SHRINK_SECONDS) and written out
as a standalone reproducer that imports `check` and `Plan` from `pipeline.tools.fuzz`;
later cases of known kinds are only counted, and the run goes on to its end.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from pipeline.tools.fuzz.case import CaseFailed, Checked, can_export, check
from pipeline.tools.fuzz.plans import Plan, draw_plan
from pipeline.tools.fuzz.programs import draw_program
from pipeline.tools.fuzz.reference import finite_sizes

ROUND = 5  # hypothesis examples per round: the time budget is checked between rounds
SHRINK_SECONDS = 180.0  # shrinking one failure stops after this long (its best case so far is kept)


def reproducer(source: str, dtype: torch.dtype, error: str, plan: Plan = Plan()) -> str:
    """A standalone file that rebuilds the failing program and checks it as `plan` says."""
    note = "\n".join(f"# {line}" for line in error.strip().splitlines()[-24:])
    return (f'"""A case found by `python -m pipeline fuzz`: run it from the repository root.\n\n'
            f'    python {{this file}}\n"""\n# The failure:\n{note}\n\n{source}\n\n'
            f'if __name__ == "__main__":\n    import sys\n    sys.path.insert(0, ".")\n'
            f'    from pipeline.tools.fuzz import Plan, check\n'
            f'    check(open(__file__).read(), torch.{str(dtype).split(".")[1]},\n          {plan!r})\n'
            f'    print("no longer fails")\n')


@dataclass
class Found:
    """A kind of failure: the cases it was seen in, the first one's time, its shrunk
    reproducer."""

    kind: str
    cases: list[int] = field(default_factory=list)
    seconds: float = 0.0
    """When it was first seen, from the start of the run."""
    message: str = ""
    """The first line of the shrunk case's failure of this kind."""
    reproducer: Path | None = None
    shrink_steps: int = 0


@dataclass
class Outcome:
    cases: int = 0
    """Programs run (not counting shrinking)."""
    exported: int = 0
    """Cases whose exported library was called next to the JIT."""
    rejected: int = 0
    """Programs rejected before compiling: their reference is not finite at any size."""
    seconds: float = 0.0
    shrink_steps: int = 0
    found: dict[str, Found] = field(default_factory=dict)
    """Failures by kind, in the order they were first seen."""

    @property
    def failure(self) -> str | None:
        """The first failure found (its shrunk message), or None."""
        first = next(iter(self.found.values()), None)
        return f"[{first.kind}] {first.message}" if first else None

    @property
    def reproducer(self) -> Path | None:
        return next((f.reproducer for f in self.found.values() if f.reproducer), None)

    def summary(self) -> str:
        lines = [f"{self.cases} cases in {self.seconds:.0f} s ({self.exported} exported and called through ctypes, "
                 f"{self.rejected} programs rejected: their reference overflows at every size)"]
        if not self.found:
            return lines[0] + "; no failure"
        lines.append("failures by kind:")
        for f in self.found.values():
            lines.append(f"  {f.kind:<16} {len(f.cases):>4} case(s), first case {f.cases[0] if f.cases else '-'} "
                         f"at {f.seconds:.0f} s: {f.message}")
            if f.reproducer:
                lines.append(f"  {'':<16} reproducer {f.reproducer} (shrunk in {f.shrink_steps} steps)")
        return "\n".join(lines)


def fuzz(seconds: float, seed: int, out: Path, log: Callable[[str], None] = print,
         shrink_seconds: float = SHRINK_SECONDS, check_case: Callable[..., Checked] = check,
         max_cases: int | None = None) -> Outcome:
    """Run random programs for about `seconds` (or until `max_cases` have run), in
    rounds of a few hypothesis examples (seeds seed, seed + 1, ...). The first case of a new kind of failure is shrunk
    (for at most `shrink_seconds`) and its reproducer goes into `out`; later cases of
    known kinds are counted. `check_case(source, dtype, plan)` checks one case."""
    from hypothesis import HealthCheck, Phase, given, reject, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
    from hypothesis.errors import Unsatisfiable

    outcome = Outcome()
    start = time.monotonic()
    export = can_export()
    if not export:
        log("no C compiler ($CC, cc or gcc): no case is exported (the library is not checked)")
    memo: dict[tuple[str, torch.dtype, Plan], CaseFailed | Checked] = {}
    state: dict[str, Any] = {"target": None}

    def run(source: str, dtype: torch.dtype, plan: Plan) -> CaseFailed | Checked:
        key = (source, dtype, plan)
        if key not in memo:
            try:
                memo[key] = check_case(source, dtype, plan)
            except CaseFailed as err:
                err.trace = traceback.format_exc()  # type: ignore[attr-defined]
                memo[key] = err
            except Exception as err:  # noqa: BLE001 - a defect of the fuzzer: reported, not fatal
                failed = CaseFailed([("internal", f"{type(err).__name__}: {err}")])
                failed.trace = traceback.format_exc()  # type: ignore[attr-defined]
                memo[key] = failed
        return memo[key]

    def case(data: Any, dtype: torch.dtype) -> None:
        program, energy = draw_program(data.draw)
        plan = draw_plan(data.draw)
        plan = plan if export else dataclasses.replace(plan, export=False)
        source = program.source(energy)
        target = state["target"]
        if not finite_sizes(source, dtype):
            if target is None:
                outcome.rejected += 1
            reject()
        if target is None:
            outcome.cases += 1
        else:
            outcome.shrink_steps += 1
            outcome.found[target].shrink_steps += 1
        if target is not None and (source, dtype, plan) not in memo \
                and time.monotonic() - state["shrink_start"] > shrink_seconds:
            return  # out of time to shrink: keep the best case so far
        result = run(source, dtype, plan)
        if target is None and plan.export and (isinstance(result, Checked) and result.exported
                                               or isinstance(result, CaseFailed) and result.checked.exported):
            outcome.exported += 1
        if not isinstance(result, CaseFailed):
            return
        if target is None:
            now = time.monotonic() - start
            for kind in result.kinds:
                found = outcome.found.setdefault(kind, Found(kind, seconds=now))
                found.cases.append(outcome.cases)
            log(f"case {outcome.cases} ({now:.0f} s): " + "; ".join(
                f"[{k}] {m}" for k, m in result.failures[:3]) + (" ..." if len(result.failures) > 3 else ""))
            new = [k for k in result.kinds if outcome.found[k].reproducer is None]
            if not new:
                return
            state.update(target=new[0], shrink_start=time.monotonic())
            log(f"new kind of failure [{new[0]}]: shrinking")
        elif target not in result.kinds:
            return
        state["last"] = (source, dtype, plan, result)
        raise result

    strategies = (st.data(), st.sampled_from([torch.float32, torch.float64]))
    round_ = 0
    while time.monotonic() - start < seconds and (max_cases is None or outcome.cases < max_cases):
        run_round = settings(max_examples=ROUND, deadline=None, database=None,
                             suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                             report_multiple_bugs=False)(given(*strategies)(case))
        memo.clear()
        try:
            hypothesis_seed(seed + round_)(run_round)()
        except Unsatisfiable:
            pass
        except Exception:
            if state["target"] is None:
                raise
            kind = state["target"]
            source, dtype, plan, failed = state["last"]
            found = outcome.found[kind]
            found.message = next(m for k, m in failed.failures if k == kind).splitlines()[0]
            out.mkdir(parents=True, exist_ok=True)
            found.reproducer = out / f"fuzz_seed{seed + round_}_{kind}.py"
            trace = getattr(failed, "trace", "") if kind in ("compile", "internal") else ""
            found.reproducer.write_text(reproducer(source, dtype, trace + str(failed), plan))
            log(f"[{kind}] shrunk in {found.shrink_steps} steps: {found.message}\n  reproducer: {found.reproducer}")
        finally:
            state["target"] = None
        round_ += 1
        outcome.seconds = time.monotonic() - start
        log(f"{outcome.cases} cases, {outcome.seconds:.0f} s, "
            + (", ".join(f"[{k}] {len(f.cases)}" for k, f in outcome.found.items()) or "no failure"))
    for found in outcome.found.values():  # seen, but only with other new kinds: unshrunk
        if not found.message:
            found.message = "(seen with another kind; not shrunk: see the log)"
    outcome.seconds = time.monotonic() - start
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline fuzz", description=sys.modules[__package__].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="time to spend on new cases")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis' seed (a run is repeatable)")
    parser.add_argument("--out", default="fuzz-failures", help="where the reproducers of failing cases go")
    parser.add_argument("--shrink-minutes", type=float, default=SHRINK_SECONDS / 60,
                        help="time to spend shrinking each new kind of failure")
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases (and rounds of %d)"
                        % ROUND)
    args = parser.parse_args(argv)
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("error: the fuzzer needs hypothesis: pip install -e '.[test]'", file=sys.stderr)
        return 2
    outcome = fuzz(args.minutes * 60, args.seed, Path(args.out), shrink_seconds=args.shrink_minutes * 60,
                   max_cases=args.cases)
    print(outcome.summary())
    return 1 if outcome.found else 0
