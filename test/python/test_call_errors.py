"""A bad call raises a clear error naming the argument, and the process goes on."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
from conftest import model

from pipeline.compiler import CallError, compile


@functools.cache
def lennard_jones():
    mod = model("lennard_jones")
    fn = mod.energy_forces(torch.float32)
    return mod, compile(fn, mod.inputs(12, torch.float32, 0), mod.dynamic_shapes)


def good(n: int = 9):
    mod, _ = lennard_jones()
    return list(mod.inputs(n, torch.float32, 3).values())


def call(*args):
    return lennard_jones()[1](*args)


def test_wrong_dtype() -> None:
    pos, edges = good()
    with pytest.raises(CallError, match=r"argument 'pos' has dtype torch.float64; expected torch.float32"):
        call(pos.double(), edges)
    with pytest.raises(CallError, match=r"argument 'edge_index' has dtype torch.int32"):
        call(pos, edges.int())


def test_wrong_rank_and_static_dim() -> None:
    pos, edges = good()
    with pytest.raises(CallError, match=r"argument 'pos' has rank 1; expected 2"):
        call(pos.flatten(), edges)
    with pytest.raises(CallError, match=r"argument 'pos' dim 1 is 4; expected 3"):
        call(torch.zeros(9, 4), edges)
    with pytest.raises(CallError, match=r"argument 'edge_index' dim 0 is 3; expected 2"):
        call(pos, torch.zeros(3, edges.shape[1], dtype=torch.int64))


def test_non_contiguous() -> None:
    pos, edges = good()
    strided = torch.zeros(3, 9).t()
    with pytest.raises(CallError, match=r"argument 'pos' is not contiguous"):
        call(strided, edges)
    with pytest.raises(CallError, match=r"argument 'pos' is not C-contiguous"):
        call(np.zeros((3, 9), np.float32).T, edges.numpy())


def test_wrong_count_type_device() -> None:
    pos, edges = good()
    with pytest.raises(CallError, match=r"takes 2 arguments \(pos, edge_index\), got 1"):
        call(pos)
    with pytest.raises(CallError, match=r"argument 'pos' must be a torch.Tensor or numpy array, got list"):
        call(pos.tolist(), edges)
    with pytest.raises(CallError, match=r"argument 'pos' is on meta"):
        call(torch.zeros(9, 3, device="meta"), edges)


def test_out_of_range_index_raises() -> None:
    pos, edges = good()
    for bad in (9, 1000, -1):
        broken = edges.clone()
        broken[1, 3] = bad
        with pytest.raises(IndexError, match=r"argument 'edge_index'.*out of range"):
            call(pos, broken)
    # the process is still usable, and a good call still gives the right answer
    mod, native = lennard_jones()
    fn = mod.energy_forces(torch.float32)
    got, want = native(pos, edges), fn(pos, edges)
    torch.testing.assert_close(got[1], want[1])


def test_symbol_relation_between_arguments() -> None:
    mod = model("schnet")
    fn = mod.energy_forces(torch.float32)
    native = compile(fn, mod.inputs(12, torch.float32, 0), mod.dynamic_shapes)
    pos, edges, species = mod.inputs(9, torch.float32, 1).values()
    with pytest.raises(CallError, match=r"argument 'species' dim 0 is N = 8, but argument 'pos' dim 0 gave N = 9"):
        native(pos, edges, species[:8].contiguous())
    with pytest.raises(IndexError, match=r"embedding.*argument 'species'"):
        native(pos, edges, torch.full_like(species, 7))


def test_every_input_property_the_fast_path_trusts() -> None:
    """Each property of an argument that the native code relies on is either honoured
    (the answer equals that of a plain copy) or refused with a CallError naming the
    argument: never silently wrong numbers."""
    mod, native = lennard_jones()
    pos, edges = good()
    want = native(pos, edges)

    def same(*args) -> None:
        got = native(*args)
        assert all(torch.equal(g, w) for g, w in zip(got, want))

    # a view at a storage offset, a clone, a tensor needing grad, a Parameter: honoured
    padded = torch.cat([torch.zeros(1, 3), pos])
    same(padded[1:], edges)
    same(pos.clone().requires_grad_(True), edges)
    same(torch.nn.Parameter(pos.clone()), edges)
    # negated view (the neg bit): refused, and right once resolved
    with pytest.raises(CallError, match=r"argument 'pos' is a lazily negated view"):
        native((-pos)._neg_view(), edges)
    same((-pos)._neg_view().resolve_neg(), edges)
    # zero and overlapping strides
    with pytest.raises(CallError, match=r"argument 'pos' is not contiguous \(strides \(0, 1\)\)"):
        native(pos[:1].expand(9, 3), edges)
    with pytest.raises(CallError, match=r"argument 'pos' is not contiguous"):
        native(torch.as_strided(pos.flatten(), (9, 3), (1, 1)), edges)
    # a ZeroTensor has no storage (its data pointer is null)
    with pytest.raises(CallError, match=r"argument 'pos' is a ZeroTensor"):
        native(torch._efficientzerotensor(9, 3), edges)
    # sparse and mkldnn layouts
    with pytest.raises(CallError, match=r"argument 'pos' has layout torch.sparse_coo"):
        native(pos.to_sparse(), edges)
    # index dtypes
    with pytest.raises(CallError, match=r"argument 'edge_index' has dtype torch.int32; expected torch.int64"):
        native(pos, edges.int())
    # numpy: byte order, alignment, read-only arrays, dtypes torch lacks
    pos_np, edges_np = pos.numpy(), edges.numpy()
    with pytest.raises(CallError, match=r"argument 'pos' has byte order '>'"):
        native(pos_np.astype(">f4"), edges_np)
    raw = np.zeros(9 * 3 * 4 + 1, np.uint8)
    misaligned = raw[1:].view(np.float32).reshape(9, 3)
    misaligned[:] = pos_np
    with pytest.raises(CallError, match=r"argument 'pos' is not aligned to its 4-byte elements"):
        native(misaligned, edges_np)
    frozen = pos_np.copy()
    frozen.flags.writeable = False
    got = native(frozen, edges_np)
    assert all(np.array_equal(g, w.numpy()) for g, w in zip(got, want))
    with pytest.raises(CallError, match=r"argument 'pos' has numpy dtype"):
        native(pos_np.astype(np.dtype([("x", np.float32)])).reshape(9, 3), edges_np)


def test_keyword_arguments() -> None:
    mod, native = lennard_jones()
    pos, edges = good()
    want = native(pos, edges)
    for got in (native(pos=pos, edge_index=edges), native(pos, edge_index=edges),
                native(edge_index=edges, pos=pos)):
        assert all(torch.equal(g, w) for g, w in zip(got, want))
    with pytest.raises(CallError, match=r"unexpected keyword argument 'positions'; its arguments are pos, edge_index"):
        native(positions=pos, edge_index=edges)
    with pytest.raises(CallError, match=r"got argument 'pos' twice"):
        native(pos, pos=pos, edge_index=edges)
    with pytest.raises(CallError, match=r"missing argument\(s\) 'edge_index'"):
        native(pos=pos)
