"""Shared by the tests of third-party MLIP packages (test/packages/test_*.py), each run by
`test/packages/run PKG` in a venv of its own: structures, the compile-vs-eager check, and
the survey of the aten ops a package's captured graph uses.

Every test builds the package's model with the package's own constructors (or its shipped
pretrained weights) and runs it as shipped: no package code is patched here.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
import torch
from torch import Tensor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for path in (ROOT, os.path.join(ROOT, "test", "python")):
    if path not in sys.path:
        sys.path.insert(0, path)

from conftest import TOLERANCE, relative_error  # noqa: E402  (the house tolerances and error)

TRACE_ATOMS = 13
"""Traced at this size; compared with eager at CHECK_ATOMS (never traced)."""
CHECK_ATOMS = (8, 22, 40)


def cluster(n: int, seed: int, *, spacing: float = 2.2, jitter: float = 0.25, dtype=torch.float64) -> Tensor:
    """n atoms on a random subset of a simple-cubic lattice of `spacing` (in A), each moved by
    less than `jitter` per axis: no pair closer than spacing - 2 * sqrt(3) * jitter."""
    gen = torch.Generator().manual_seed(seed)
    side = max(2, math.ceil(n ** (1 / 3) + 1e-9))
    grid = torch.arange(side, dtype=torch.float64)
    sites = torch.cartesian_prod(grid, grid, grid).reshape(-1, 3)
    chosen = torch.randperm(sites.shape[0], generator=gen)[:n]
    noise = (torch.rand(n, 3, generator=gen, dtype=torch.float64) * 2 - 1) * jitter
    return (sites[chosen] * spacing + noise).to(dtype)


def silicon(repeat: tuple[int, int, int], seed: int):
    """Diamond Si of `repeat` cubic cells (8 atoms each, a = 5.43 A), rattled by 0.05 A: the
    periodic cell the adapters are checked on against each package's ASE calculator."""
    import ase.build

    atoms = ase.build.bulk("Si", "diamond", a=5.43, cubic=True).repeat(repeat)
    atoms.rattle(stdev=0.05, seed=seed)
    return atoms


def results(atoms, calc) -> dict:
    """Energy, forces and stress of `calc` on a copy of `atoms`."""
    import numpy as np

    atoms = atoms.copy()
    atoms.calc = calc
    return {"energy": np.array(atoms.get_potential_energy()), "forces": atoms.get_forces(),
            "stress": atoms.get_stress()}


def error(got, want) -> float:
    """max |got - want| relative to max |want|, in float64."""
    import numpy as np

    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.abs(got - want).max() / np.abs(want).max())


def species(n: int, seed: int, choices: Sequence[int]) -> Tensor:
    """n values drawn from `choices` (atomic numbers or type indices), int64; every choice
    appears once the cluster has as many atoms."""
    gen = torch.Generator().manual_seed(seed + 1000)
    c = torch.tensor(list(choices), dtype=torch.int64)
    idx = torch.randint(0, len(c), (n,), generator=gen)
    idx[: min(n, len(c))] = torch.arange(min(n, len(c)))
    return c[idx]


def radius_graph(pos: Tensor, cutoff: float) -> Tensor:
    """Directed pairs (i, j), i != j, |pos_j - pos_i| < cutoff, sorted by (i, j): [2, E] int64."""
    d = torch.cdist(pos.double(), pos.double())
    mask = (d < cutoff) & ~torch.eye(pos.shape[0], dtype=torch.bool)
    return mask.nonzero().t().contiguous()


def package_frames(exc: BaseException) -> list[str]:
    """The frames of `exc` and of its causes in third-party code (site-packages, not torch,
    not this repository), innermost last, as `path:line: code`."""
    frames, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        for f in traceback.extract_tb(exc.__traceback__):
            if "site-packages" in f.filename and "/torch/" not in f.filename and not f.filename.startswith(ROOT):
                frames.append(f"{f.filename.split('site-packages/')[-1]}:{f.lineno}: {(f.line or '').strip()}")
        exc = exc.__cause__ or exc.__context__
    return frames


@contextlib.contextmanager
def naming_the_package_line():
    """An error raised inside adds a note: the package line it came from."""
    try:
        yield
    except Exception as e:
        if frames := package_frames(e):
            e.add_note(f"package line: {frames[-1]}")
        raise


def compile_and_compare(fn: Callable[..., tuple[Tensor, Tensor]], make_inputs: Callable[[int, int], Mapping[str, Tensor]],
                        dynamic_shapes: Mapping, dtype: torch.dtype, *, trace_atoms: int = TRACE_ATOMS,
                        check_atoms: Sequence[int] = CHECK_ATOMS, **options: Any) -> None:
    """Compile energy + forces of `fn` once (traced at `trace_atoms`, symbolic in the dims of
    `dynamic_shapes`; `options` go to pipeline.compile: `decompositions`, the torch-op
    computation of each of the package's custom ops, or `specialize`), then compare energy
    and forces with eager at each of `check_atoms`."""
    import pipeline

    with naming_the_package_line():
        compiled = pipeline.compile(fn, dict(make_inputs(trace_atoms, 0)), dynamic_shapes, **options)
    for k, n in enumerate(check_atoms):
        args = dict(make_inputs(n, k + 1))
        want = fn(**args)
        got = compiled(**args)
        assert len(got) == len(want) == 2
        for what, g, w in zip(("energy", "forces"), got, want):
            err = relative_error(g, w)
            assert err <= TOLERANCE[dtype], f"N={n}: {what} relative error {err:.2e} > {TOLERANCE[dtype]:.0e}"


def compile_f32_as_exact_as_eager(fn: Callable[..., tuple[Tensor, Tensor]], exact: Callable[..., tuple[Tensor, Tensor]],
                                  make_inputs: Callable[[int, int], Mapping[str, Tensor]], dynamic_shapes: Mapping, *,
                                  trace_atoms: int = TRACE_ATOMS, check_atoms: Sequence[int] = CHECK_ATOMS) -> None:
    """For a model whose own float32 is further than 1e-5 from its float64 (eager float32
    is then no reference at the house tolerance): compile `fn` (float32) once, and require
    ours to be as close to `exact` (the same model in float64, on the same inputs) as eager
    float32 is: within twice eager's largest error over the sizes, or 1e-5."""
    import pipeline

    with naming_the_package_line():
        compiled = pipeline.compile(fn, dict(make_inputs(trace_atoms, 0)), dynamic_shapes)
    errors = []
    for k, n in enumerate(check_atoms):
        args = dict(make_inputs(n, k + 1))
        got, want, best = compiled(**args), fn(**args), exact(**args)
        errors.append([(error(g.detach(), x.detach()), error(w.detach(), x.detach())) for g, w, x in zip(got, want, best)])
        print(f"N={n}: ours / eager f32 vs f64: energy {errors[-1][0][0]:.1e} / {errors[-1][0][1]:.1e}, "
              f"forces {errors[-1][1][0]:.1e} / {errors[-1][1][1]:.1e}")
    for what, k in (("energy", 0), ("forces", 1)):
        bound = max(TOLERANCE[torch.float32], 2 * max(e[k][1] for e in errors))
        assert all(e[k][0] <= bound for e in errors), (what, errors, bound)


def check_eager(fn: Callable[..., tuple[Tensor, Tensor]], make_inputs: Callable[[int, int], Mapping[str, Tensor]],
                check_atoms: Sequence[int] = (TRACE_ATOMS, *CHECK_ATOMS)) -> None:
    """The harness itself: eager energy is a finite scalar, forces [N, 3] finite."""
    for k, n in enumerate(check_atoms):
        args = dict(make_inputs(n, k))
        energy, forces = fn(**args)
        assert energy.numel() == 1 and torch.isfinite(energy).all(), energy
        assert forces.shape[-2:] == (n, 3) and torch.isfinite(forces).all()


def aten_ops(fn: Callable[..., tuple[Tensor, Tensor]], example: Mapping[str, Tensor],
             dynamic_shapes: Mapping, *, decompositions: Mapping | None = None) -> tuple[list[str], list[str]]:
    """(every aten overload of the captured graph, those the aten dialect lacks), sorted;
    captured with `decompositions` (pipeline.capture's) where given."""
    import pipeline
    from dialects.aten import OPS_BY_OVERLOAD

    with naming_the_package_line():
        captured = pipeline.capture(fn, dict(example), dynamic_shapes, decompositions=decompositions)
    names = set()
    for node in captured.graph.graph.nodes:
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            t = node.target
            name = t._overloadpacket.__name__ + ("" if t._overloadname == "default" else "." + t._overloadname)
            names.add(name if t.namespace == "aten" else f"{t.namespace}.{name}")
    ops = sorted(names)
    return ops, [o for o in ops if o not in OPS_BY_OVERLOAD]


def check_aten_ops(fn, example, dynamic_shapes, *, decompositions: Mapping | None = None) -> None:
    """Capture succeeds and every op of the graph has a counterpart in the aten dialect;
    the list goes to stdout (`-s`) for test/packages/README.md."""
    ops, missing = aten_ops(fn, example, dynamic_shapes, decompositions=decompositions)
    print(f"\n{len(ops)} aten ops: {' '.join(ops)}\nmissing from the dialect: {' '.join(missing) or '-'}")
    assert not missing, f"not in the aten dialect: {missing}"


def variants(shipped: Mapping[str, str | None]) -> list:
    """Each variant name, marked `xfail` with its first error as shipped where it has one."""
    return [pytest.param(v, marks=xfail(why)) if why else v for v, why in shipped.items()]


def xfail(reason: str) -> pytest.MarkDecorator:
    """A test that fails as the package ships today, for `reason` (the first error): strict,
    so that it turns into a failure (XPASS) the day the compiler handles it."""
    return pytest.mark.xfail(strict=True, reason=reason)
