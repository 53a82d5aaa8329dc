"""Branches on data whose sides both compute (frontend/speculation.py): compiled for the
side the example takes, checked at run time, and compiled again for the other side when a
call's data take it; the exported library refuses such a call by name. Against eager at
sizes not traced, f32 and f64, values and gradients."""

from __future__ import annotations

import warnings

import pytest
import torch
from conftest import DTYPES, TOLERANCE, relative_error
from torch.export import Dim

import pipeline
from frontend.speculation import SpeculationFailed

N = Dim("N", min=1)


def selected_energy(x: torch.Tensor, z: torch.Tensor):
    """TorchANI's form: a branch on how many atoms a mask selects."""
    x = x.detach().requires_grad_(True)
    idx = (z == 1).nonzero().flatten()
    if idx.shape[0] > 0:
        e = (x[idx] ** 2).sum() + x.sum()
    else:
        e = torch.sin(x).sum()
    return e, torch.autograd.grad(e, x)[0]


def padded_counts(x: torch.Tensor, z: torch.Tensor):
    """CHGNet's form: bincount's length from data, padded when it differs from N."""
    x = x.detach().requires_grad_(True)
    counts = torch.bincount(z)
    if counts.shape[0] != x.shape[0]:
        counts = torch.nn.functional.pad(counts, (0, x.shape[0] - counts.shape[0])) if counts.shape[0] < x.shape[0] \
            else counts[: x.shape[0]]
    e = (x * x * counts.to(x.dtype)).sum()
    return e, torch.autograd.grad(e, x)[0]


def on_values(x: torch.Tensor, z: torch.Tensor):
    """SevenNet's form: a branch on a value (`elif volume < vlim:`)."""
    x = x.detach().requires_grad_(True)
    if x.sum() < 0.0:
        e = (x ** 3).sum()
    else:
        e = (x * z.to(x.dtype)).sum() + x.exp().sum()
    return e, torch.autograd.grad(e, x)[0]


def inputs(n: int, seed: int, dtype: torch.dtype, ones: bool = True, sign: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    x = sign * (torch.rand(n, dtype=dtype, generator=g) + 0.1)
    z = torch.randint(0, 3, (n,), generator=g)
    z[0] = 2  # bincount's length is 3 for any N
    if not ones:
        z[z == 1] = 0
    return x, z


def check(compiled, fn, args, dtype) -> None:
    for got, want in zip(compiled(*args), fn(*args)):
        assert relative_error(got, want.detach()) <= TOLERANCE[dtype]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("example_has_ones", [True, False])
def test_a_size_from_data(dtype, example_has_ones) -> None:
    compiled = pipeline.compile(selected_energy, inputs(9, 0, dtype, example_has_ones), [{0: N}, {0: N}])
    assert [s.side for s in compiled.speculations] == [example_has_ones]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n, seed in [(5, 1), (17, 2), (40, 3)]:
            for ones in (example_has_ones, not example_has_ones):
                x, z = inputs(n, seed, dtype, ones)
                got = compiled(z=z, x=x)  # by name: the call that compiles again binds the same
                for g, w in zip(got, selected_energy(x, z)):
                    assert relative_error(g, w.detach()) <= TOLERANCE[dtype]
    # the guess (True) compiled first; when the example takes False, the compile itself
    # compiled that side, and no call warns; otherwise the first call without ones does, once
    again = [w for w in caught if "compiling again" in str(w.message)]
    assert len(again) == example_has_ones and len(compiled.versions.compiled) == 2


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_sizes_from_data_compared_with_n(dtype) -> None:
    compiled = pipeline.compile(padded_counts, inputs(9, 0, dtype), [{0: N}, {0: N}])
    for n, seed in [(2, 1), (3, 5), (4, 2), (30, 3)]:  # bincount has 3 bins: shorter, equal, longer than N
        check(compiled, padded_counts, inputs(n, seed, dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_a_branch_on_values(dtype) -> None:
    compiled = pipeline.compile(on_values, inputs(9, 0, dtype, sign=-1.0), [{0: N}, {0: N}])
    for n, seed in [(4, 1), (33, 2)]:
        for sign in (1.0, -1.0):
            check(compiled, on_values, inputs(n, seed, dtype, sign=sign), dtype)


def test_the_library_names_the_branch(tmp_path) -> None:
    compiled = pipeline.compile(selected_energy, inputs(9, 0, torch.float64), [{0: N}, {0: N}])
    lib = pipeline.load_library(pipeline.export_library(compiled, tmp_path, name="selected"))
    check(lib, selected_energy, inputs(12, 1, torch.float64), torch.float64)
    with pytest.raises(RuntimeError, match=r"speculated \[.*test_speculation.py:\d+#0\]: `if idx.shape\[0\] > 0:` "
                                           r"was compiled for its True side; this input takes the other"):
        lib(*inputs(12, 1, torch.float64, ones=False))


def test_without_versions_the_call_names_the_branch() -> None:
    compiled = pipeline.compile(selected_energy, inputs(9, 0, torch.float64), [{0: N}, {0: N}])
    compiled.versions = None
    with pytest.raises(SpeculationFailed, match=r"`if idx.shape\[0\] > 0:` was compiled for its True side") as e:
        compiled(*inputs(12, 1, torch.float64, ones=False))
    assert e.value.key.endswith("#0")


def aggregate(x: torch.Tensor, owners: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """CHGNet's `aggregate`: bincount padded to N, then indexed. On the wrong side the
    indexing is out of range too; the speculation's check, earlier, is the failure reported
    (the first failure wins), so the call compiles the other side instead of raising."""
    count = torch.bincount(owners)
    if count.shape[0] != x.shape[0]:
        count = torch.cat([count, count.new_ones(x.shape[0] - count.shape[0])])
    return (x.new_zeros([count.shape[0]]) + x * count)[idx]


def aggregate_inputs(n: int, seed: int, pad: bool) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    owners = torch.randint(0, n // 2 if pad else n, (n,), generator=g)
    if not pad:
        owners[0] = n - 1
    return {"x": torch.randn(n, generator=g, dtype=torch.float64), "owners": owners, "idx": torch.arange(n)}


@pytest.mark.parametrize("example_pads", [False, True])
def test_the_speculation_fails_before_the_code_that_assumes_it(example_pads) -> None:
    dims = {"x": {0: Dim("N", min=2)}, "owners": {0: Dim("B", min=2)}, "idx": {0: Dim("E", min=2)}}
    compiled = pipeline.compile(aggregate, aggregate_inputs(20, 0, example_pads), dims)
    for n, pad in ((20, False), (11, False), (33, True), (7, True)):
        args = aggregate_inputs(n, n, pad)
        assert torch.equal(compiled(**args), aggregate(**args))
