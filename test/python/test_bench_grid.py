"""The benchmark's grid (`python -m pipeline bench --grid`): its cells build the
configuration they name, and the summary names the worst cell. No timing here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.cli import parse_args  # noqa: E402
from bench.contenders import Model  # noqa: E402
from bench.registry import GRID, QUICK_GRID, spec  # noqa: E402
from bench.report import memory_summary, ratios, summary  # noqa: E402


def test_grid_flags() -> None:
    quick = parse_args(["--grid", "--quick"])
    assert quick.models == QUICK_GRID and quick.contenders == ["eager", "aoti", "ours"]
    full = parse_args(["--grid", "--contenders", "tc_fn,ours"])
    assert full.models == list(GRID) and full.contenders == ["eager", "tc_fn", "ours"]
    assert parse_args(["--models", "nequip-f64-l1-L4-n15"]).models == ["nequip-f64-l1-L4-n15"]
    with pytest.raises(SystemExit):
        parse_args(["--grid", "--models", "mlp"])


def test_every_cell_is_a_configuration_at_two_densities() -> None:
    assert all(q in GRID for q in QUICK_GRID)
    for name, cell in GRID.items():
        assert cell.base and cell.config and cell.neighbors in (15.0, 50.0) and cell.sizes(False) == [512, 2048]
        assert name.endswith(f"-n{int(cell.neighbors)}")
    assert spec("nequip").base is None and spec("nequip-f64-l2-L2-n50").config == (
        ("num_features", 64), ("l_max", 2), ("num_layers", 2))


def test_a_cell_builds_its_width_and_density() -> None:
    wide, narrow = Model("mlp-h256-n50", 23, "float32"), Model("mlp-h64-n15", 23, "float32")
    for model, hidden in ((wide, 256), (narrow, 64)):
        fn = model.fn
        pos, edge_index = model.inputs(40)
        energy, forces = fn(pos, edge_index)
        assert forces.shape == (40, 3) and energy.dtype == torch.float32
        module = next(c.cell_contents for c in fn.__closure__ or ()  # type: ignore[union-attr]
                      if isinstance(c.cell_contents, torch.nn.Module))
        assert module.mlp[0].out_features == hidden
    # neighbours per atom: 50 and 15 per cutoff sphere (fewer at the surface of the cluster)
    assert wide.edges(512) / 512 > 2.5 * narrow.edges(512) / 512


def test_the_summary_names_the_worst_cell() -> None:
    runs = [{"model": m, "threads": 1, "n_atoms": 512, "contender": c, "median_s": s, "status": "ok"}
            for m, times in {"a": {"eager": 4.0, "aoti": 2.0, "ours": 1.0},
                             "b": {"eager": 3.0, "aoti": 1.0, "ours": 1.5}}.items() for c, s in times.items()]
    results = {"ratios": ratios(runs), "memory": [
        {"model": "a", "n_atoms": 512, "contender": "eager", "peak_bytes": 2**30},
        {"model": "a", "n_atoms": 512, "contender": "ours", "peak_bytes": 2**29},
        {"model": "b", "n_atoms": 512, "contender": "eager", "peak_bytes": 2**30},
        {"model": "b", "n_atoms": 512, "contender": "ours", "peak_bytes": 3 * 2**29}]}
    aoti = next(r for r in summary(results) if r["peer"] == "aoti")
    assert aoti["worst"] == "b N=512" and aoti["max"] == pytest.approx(1.5)
    assert aoti["geomean_ours_over_peer"] == pytest.approx((0.5 * 1.5) ** 0.5)
    mem = memory_summary(results)
    assert mem == {"cells": 2, "max_ours_over_eager": 1.5, "worst": "b N=512", "over_eager": 1}
