"""One case: compile a program as its plan says, run it at every size in every call
form (and through its exported library), compare, and report every failure by kind.

This is the fuzzer's judgement, kept apart from how programs are drawn and from the
driver's loop so that a reproducer (and the tests) can check one case alone:
`check(source, dtype, plan)` returns what it compared or raises `CaseFailed` with
every failure it found, each of one of `KINDS`. All compiled calls of a case run in
forked children in one batch (`run_isolated`); only the call on two threads runs in
this process, and only where the call on one thread survived. The exported library
is the one users load: `pipeline.load_library`, which binds by its manifest and maps
its status codes to the JIT's exceptions (PIPELINE_ERROR_INDEX to IndexError).
"""

from __future__ import annotations

import inspect
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from pipeline.deploy.library import Library, load_library
from pipeline.tools.fuzz.isolation import Ran, run_isolated
from pipeline.tools.fuzz.plans import SYMBOLS, Plan, call_forms
from pipeline.tools.fuzz.programs import ARGS
from pipeline.tools.fuzz.reference import expected, load, mismatch, relative, same_bits
from pipeline.tools.fuzz.systems import SIZES, TRACE_ATOMS, bad_index_systems, degenerate_systems, system

KINDS = {
    "compile": "the compiler raised",
    "raised": "a call at a valid size raised",
    "numbers": "wrong numbers against the float64 reference",
    "threads": "1 and 2 threads disagree",
    "binding": "a form of example arguments, dynamic_shapes or call gives other results",
    "degenerate": "a wrong result at an empty or degenerate size",
    "bad-index": "an out-of-range index that does not raise IndexError naming its argument",
    "crash": "a call killed its process or hung",
    "library": "the exported library differs from the JIT",
    "nothing-compared": "the reference is not finite at any size: nothing was compared",
    "internal": "the fuzzer itself raised",
}
"""The kinds of failure, in the order a case reports them."""



@dataclass
class Checked:
    """What a case did: sizes compared with the reference (of SIZES), exported or not."""

    compared: int = 0
    exported: bool = False


class CaseFailed(AssertionError):
    """Every failure of one case, as (kind, message); kinds are keys of KINDS."""

    def __init__(self, failures: list[tuple[str, str]], checked: Checked | None = None):
        order = list(KINDS)
        self.failures = sorted(failures, key=lambda f: order.index(f[0]))
        self.checked = checked or Checked()
        super().__init__("\n".join(f"[{kind}] {message}" for kind, message in self.failures))

    @property
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(kind for kind, _ in self.failures))



def can_export() -> bool:
    """Whether there is a C compiler to link an exported library with."""
    from codegen.object_file import LinkError, c_compiler

    try:
        c_compiler()
    except LinkError:
        return False
    return True



_ids = itertools.count()


def export(compiled: Any) -> Library:
    """`export_library` into a new temporary directory, under a name of its own, loaded
    by `pipeline.load_library`; `close` removes it."""
    import pipeline.deploy.export

    directory = Path(tempfile.mkdtemp(prefix="fuzz-library-"))
    try:
        path = pipeline.deploy.export.export_library(compiled, directory, name=f"fuzz{os.getpid()}_{next(_ids)}")
        return load_library(path)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise


def close(library: Library) -> None:
    """Remove its files (the library stays mapped: it is linked -z nodelete)."""
    shutil.rmtree(library.path.parent, ignore_errors=True)


def compile_case(fn: Callable[..., Any], signature: Sequence[str], dtype: torch.dtype, plan: Plan) -> Any:
    """`pipeline.compile` with the example arguments and dynamic shapes as the plan says."""
    from torch.export import Dim

    import pipeline

    traced = dict(zip(ARGS, system(TRACE_ATOMS, dtype, 0)))
    spec = {n: {d: Dim(symbol)} for n, (d, symbol) in SYMBOLS.items()}
    order = plan.example or tuple(signature)
    example: Any = {n: traced[n] for n in plan.example} if plan.example else [traced[n] for n in signature]
    shapes: Any = {n: spec[n] for n in plan.shapes} if plan.shapes else [spec[n] for n in order]
    return pipeline.compile(fn, example, shapes, verify=True)


def check(source: str, dtype: torch.dtype, plan: Plan = Plan()) -> Checked:
    """Compile the program in `dtype` as `plan` says, run it (in forked children) at
    SIZES in every call form, at the degenerate sizes and with bad indices, through
    the exported library too if the plan says so; raise CaseFailed with every failure."""
    make = load(source)
    fn = make(dtype)
    signature = tuple(inspect.signature(fn).parameters)
    checked = Checked()
    try:
        native = compile_case(fn, signature, dtype, plan)
    except Exception as err:
        if not plan.plain:
            try:
                compile_case(fn, signature, dtype, Plan())
            except Exception:  # noqa: BLE001 - it fails either way: a compile failure
                pass
            else:
                raise CaseFailed([("binding", f"compiling with {plan.compile_text(signature)} raised "
                                              f"{type(err).__name__}: {_first_line(err)}; with the plain forms it "
                                              "compiles")], checked) from err
        raise CaseFailed([("compile", f"{type(err).__name__}: {err}")], checked) from err

    failures: list[tuple[str, str]] = []
    library = None
    if plan.export:
        try:
            library = export(native)
            checked.exported = True
        except Exception as err:  # noqa: BLE001
            failures.append(("library", f"export_library or load_library raised {type(err).__name__}: {err}"))
    try:
        _run_and_compare(make, native, signature, dtype, plan, library, failures, checked)
    finally:
        if library is not None:
            close(library)
    if failures:
        raise CaseFailed(failures, checked)
    return checked


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0]


def _run_and_compare(make: Callable[..., Any], native: Any, signature: tuple[str, ...], dtype: torch.dtype,
                     plan: Plan, library: Library | None, failures: list[tuple[str, str]], checked: Checked) -> None:
    forms = call_forms(signature, plan)
    positional = next(iter(forms))
    regular = {f"N={n}": dict(zip(ARGS, system(n, dtype, n))) for n in SIZES}
    degenerate, bad = degenerate_systems(dtype), bad_index_systems(dtype)
    everything = {**regular, **degenerate, **bad}

    keys: list[tuple[str, str]] = []
    calls: list[Callable[[], Any]] = []
    for label, inputs in everything.items():
        for name, form in forms.items() if label in regular else [(positional, forms[positional])]:
            keys.append((name, label))
            calls.append(jit_call(native, form, inputs))
        if library is not None:
            keys.append(("library", label))
            calls.append(lambda lib=library, inputs=inputs: lib(**inputs))
    ran = dict(zip(keys, run_isolated(calls)))

    # the positional call against the float64 reference (failures that a binding defect could explain)
    own, checked.compared = judge(make, dtype, positional, {label: ran[(positional, label)] for label in everything},
                                  regular, degenerate, bad)

    # every other call form: the same bits as the positional call
    for label in regular:
        result = ran[(positional, label)]
        for name in list(forms)[1:]:
            other = ran[(name, label)]
            if result.outputs is not None and other.outputs is not None:
                differs = [k for k, (a, b) in enumerate(zip(result.outputs, other.outputs)) if not same_bits(a, b)]
                if differs:
                    failures.append(("binding", f"{label}: {name} differs from {positional} in output "
                                                f"{differs[0]}"))
            elif (result.outputs is None) != (other.outputs is None) or result.died != other.died:
                failures.append(("binding", f"{label}: {name} {other.text()}; {positional} {result.text()}"))

    # two threads: the same bits (in this process, so only where one thread survived in a child)
    for label, inputs in regular.items():
        one = ran[(positional, label)].outputs
        if one is None:
            continue
        try:
            native.num_threads = 2
            two = forms[positional](native, inputs)
        except Exception as err:  # noqa: BLE001
            failures.append(("threads", f"{label}: on 2 threads {positional} raised {type(err).__name__}: {err}"))
            continue
        finally:
            native.num_threads = 1
        for k, (a, b) in enumerate(zip(one, two)):
            if not same_bits(a, b):
                failures.append(("threads", f"{label}: output {k} differs between 1 and 2 threads"))
                break

    if library is not None:
        _compare_library(make, dtype, ran, positional, regular, degenerate, bad, failures)

    if own and not plan.plain and _plain_forms_are_right(make, signature, dtype, forms[positional], regular,
                                                         degenerate, bad):
        own = [("binding", f"compiled from {plan.compile_text(signature)}: {message} (compiled from the plain "
                           "forms it is right)") for _, message in own]
    failures += own
    if checked.compared == 0:
        failures.append(("nothing-compared", f"the float64 reference is not finite at any of N = "
                                             f"{', '.join(map(str, SIZES))}: nothing was compared"))


def judge(make: Callable[..., Any], dtype: torch.dtype, call: str, ran: dict[str, Ran],
          regular: dict[str, dict[str, torch.Tensor]], degenerate: dict[str, dict[str, torch.Tensor]],
          bad: dict[str, dict[str, torch.Tensor]]) -> tuple[list[tuple[str, str]], int]:
    """The failures of one call form (`call`, its text) run on every input (`ran`, by
    label), and how many of SIZES were compared with the reference."""
    failures: list[tuple[str, str]] = []
    compared = 0
    for n, (label, inputs) in zip(SIZES, regular.items()):  # the usual sizes
        result, exp = ran[label], expected(make, dtype, inputs, n)
        if result.died or result.error:
            failures.append(("crash" if result.died else "raised", f"{label}: {call} {result.text()}"))
        elif exp.finite:
            compared += 1
            assert result.outputs is not None
            why = mismatch(result.outputs, exp, dtype)
            if why:
                failures.append(("numbers", f"{label} {dtype}: {why}"))
    for label, inputs in degenerate.items():  # empty and degenerate sizes
        result = ran[label]
        if result.died:
            failures.append(("crash", f"{label}: {call} {result.text()}"))
            continue
        try:
            exp = expected(make, dtype, inputs, 0)
        except Exception:  # noqa: BLE001 - eager itself refuses this size: nothing to compare with
            continue
        why = f"{call} {result.text()}" if result.outputs is None else mismatch(result.outputs, exp, dtype)
        if why:
            failures.append(("degenerate", f"{label} {dtype}: {why}"))
    for label in bad:  # IndexError naming the argument, never numbers, never a crash
        result = ran[label]
        if result.died:
            failures.append(("crash", f"{label}: {call} {result.text()}"))
        elif not (result.error and result.error.startswith("IndexError") and "'edge_index'" in result.error):
            failures.append(("bad-index", f"{label}: {call} {result.text()}; expected IndexError naming "
                                          "'edge_index'"))
    return failures, compared


def jit_call(native: Any, form: Callable[[Any, dict[str, Any]], Any], inputs: dict[str, Any]) -> Callable[[], Any]:
    """A call of the JIT on one thread, for `run_isolated`."""
    def call() -> Any:
        native.num_threads = 1
        return form(native, inputs)
    return call


def _plain_forms_are_right(make: Callable[..., Any], signature: tuple[str, ...], dtype: torch.dtype,
                           positional: Callable[[Any, dict[str, Any]], Any],
                           regular: dict[str, dict[str, torch.Tensor]], degenerate: dict[str, dict[str, torch.Tensor]],
                           bad: dict[str, dict[str, torch.Tensor]]) -> bool:
    """Whether the program compiled from the plain forms passes where the plan's forms
    failed (then the failure is one of binding): one more compile, for a failing case."""
    try:
        plain = compile_case(make(dtype), signature, dtype, Plan())
        everything = {**regular, **degenerate, **bad}
        ran = dict(zip(everything, run_isolated([jit_call(plain, positional, i) for i in everything.values()])))
        return not judge(make, dtype, "", ran, regular, degenerate, bad)[0]
    except Exception:  # noqa: BLE001 - it fails with the plain forms too
        return False


RAISED_ALIKE = ("IndexError", "CallError", "RuntimeError")
"""What the JIT raises and the library must raise alike: `load_library` raises
IndexError for PIPELINE_ERROR_INDEX, RuntimeError for PIPELINE_ERROR_ASSERT and
CallError for its other codes (a bad size: PIPELINE_ERROR_SIZE)."""


def _compare_library(make: Callable[..., Any], dtype: torch.dtype, ran: dict[tuple[str, str], Ran], positional: str,
                     regular: dict[str, dict[str, torch.Tensor]], degenerate: dict[str, dict[str, torch.Tensor]],
                     bad: dict[str, dict[str, torch.Tensor]], failures: list[tuple[str, str]]) -> None:
    """The library against the JIT on one thread: the same bits, the same errors; where
    the JIT itself failed, against the reference."""
    for label, inputs in {**regular, **degenerate}.items():
        lib, jit = ran[("library", label)], ran[(positional, label)]
        if lib.died or lib.error:
            if not (jit.error and lib.error and jit.error.split(":")[0] in RAISED_ALIKE
                    and lib.error.split(":")[0] == jit.error.split(":")[0]):
                failures.append(("library", f"{label}: the library {lib.text()}; the JIT {jit.text()}"))
            continue
        assert lib.outputs is not None
        if jit.outputs is not None:
            differs = [k for k, (a, b) in enumerate(zip(lib.outputs, jit.outputs)) if not same_bits(a, b)]
            if differs or len(lib.outputs) != len(jit.outputs):
                k = differs[0] if differs else 0
                failures.append(("library", f"{label}: output {k} of the library differs from the JIT's (1 thread): "
                                            f"relative {relative(lib.outputs[k], jit.outputs[k].double()):.3g}"))
            continue
        try:
            exp = expected(make, dtype, inputs, 0)
        except Exception:  # noqa: BLE001
            continue
        why = mismatch(lib.outputs, exp, dtype) if exp.finite or label not in regular else None
        if why:
            failures.append(("library", f"{label}: the library's {why} (the JIT {jit.text()})"))
    for label in bad:
        lib = ran[("library", label)]
        if not (lib.error and lib.error.startswith("IndexError") and "'edge_index'" in lib.error):
            failures.append(("library", f"{label}: the library {lib.text()}; expected IndexError (status "
                                        "PIPELINE_ERROR_INDEX) naming 'edge_index'"))
