"""compile_potential: energy, per-atom energies, forces and virial against eager torch, and
the exported library's `pipeline_potential()` entry point (pipeline_potential.h)."""

from __future__ import annotations

import ctypes

import pytest
import torch
from conftest import DTYPES, TOLERANCE, needs_tools, relative_error
from md_systems import NAMES, crystal, model, potential

from pipeline.md.ase import inputs
from pipeline.compiler import CallError
from pipeline.deploy.export import ExportError
from pipeline.md.potential import energy_forces_virial
from examples.md_potentials import CUTOFF, SPECIES

FIELDS = ("energy", "energies", "forces", "virial")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("repeat", [1, (2, 3, 2), 3])  # 4, 48 and 108 atoms; traced at 32
def test_matches_eager(name: str, dtype: torch.dtype, repeat) -> None:
    args = inputs(crystal(repeat, seed=7), CUTOFF, SPECIES, dtype)
    n = args[1].shape[0]
    reference = energy_forces_virial(model(name, dtype))
    for n_local in (n, n // 2, 0):
        got = potential(name, dtype)(*args, n_local=n_local)
        want = reference(*args, torch.tensor(n_local))
        for field, g, w in zip(FIELDS, got, want):
            err = relative_error(g, w.detach())
            assert err <= TOLERANCE[dtype], f"{name} {field} (n={n}, n_local={n_local}): {err:.1e}"


def test_virial_is_strain_derivative() -> None:
    """virial = -dE/d(strain) by central differences of a strained cell (positions and shifts)."""
    atoms = crystal(2, seed=3)
    pot = potential("message_passing", torch.float64)
    virial = pot(*inputs(atoms, CUTOFF, SPECIES)).virial
    h = 1e-6
    for a, b in [(0, 0), (1, 2), (0, 1)]:
        energy = []
        for sign in (1, -1):
            strain = torch.eye(3, dtype=torch.float64)
            strain[a, b] += sign * h / 2
            strain[b, a] += sign * h / 2
            strained = atoms.copy()
            strained.set_cell(atoms.cell.array @ strain.numpy(), scale_atoms=True)
            energy.append(float(pot(*inputs(strained, CUTOFF, SPECIES)).energy))
        numeric = -(energy[0] - energy[1]) / (2 * h)
        assert abs(float(virial[a, b]) - numeric) <= 1e-6 * float(virial.abs().max()), (a, b)


def test_n_local_out_of_range_names_it() -> None:
    args = inputs(crystal(1, seed=1), CUTOFF, SPECIES)
    with pytest.raises(CallError, match="n_local = 5 is outside"):
        potential("pair", torch.float64)(*args, n_local=5)


class _Potential(ctypes.Structure):
    """struct pipeline_potential of pipeline_potential.h."""

    _fields_ = [("abi_version", ctypes.c_int), ("name", ctypes.c_char_p), ("real_size", ctypes.c_int),
                ("cutoff", ctypes.c_double), ("layers", ctypes.c_int), ("num_species", ctypes.c_int),
                ("species", ctypes.POINTER(ctypes.c_char_p)), ("compute", ctypes.c_void_p),
                ("workspace_bytes", ctypes.c_void_p)]


_COMPUTE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, *[ctypes.c_void_p] * 9,
                            ctypes.c_int64, ctypes.c_char_p, ctypes.c_size_t)
_WORKSPACE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64),
                              ctypes.c_char_p, ctypes.c_size_t)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@needs_tools("cc")
def test_exported_entry_point(tmp_path, dtype: torch.dtype) -> None:
    pot = potential("message_passing", dtype)
    library = ctypes.CDLL(str(pot.export(tmp_path, name="mp")))
    library.pipeline_potential.restype = ctypes.POINTER(_Potential)
    info = library.pipeline_potential().contents
    assert (info.abi_version, info.name, info.real_size, info.cutoff, info.layers) == (
        1, b"mp", dtype.itemsize, CUTOFF, 2)
    assert [info.species[k].decode() for k in range(info.num_species)] == list(SPECIES)
    compute, workspace_bytes = _COMPUTE(info.compute), _WORKSPACE(info.workspace_bytes)

    args = inputs(crystal(3, seed=11), CUTOFF, SPECIES, dtype)
    n, e = args[1].shape[0], args[2].shape[1]
    outs = [torch.empty(s, dtype=dtype) for s in [(), (n,), (n, 3), (3, 3)]]
    pointers = [t.data_ptr() for t in [*args, *outs]]
    message = ctypes.create_string_buffer(256)
    need = ctypes.c_int64()
    assert workspace_bytes(n, e, ctypes.byref(need), message, 256) == 0 and need.value > 0
    block = torch.empty(need.value + 64, dtype=torch.uint8)
    aligned = block.data_ptr() + (-block.data_ptr()) % 64
    for n_local, workspace, size in [(n, None, 0), (40, None, 0), (n, aligned, need.value), (30, aligned, need.value)]:
        outs[0].fill_(float("nan"))
        status = compute(n, e, n_local, *pointers, workspace, size, message, 256)
        assert status == 0 and message.value == b""
        for field, got, want in zip(FIELDS, outs, pot(*args, n_local=n_local)):
            assert relative_error(got, want) <= TOLERANCE[dtype], field
    # A smaller system in the same workspace; a workspace too small or misaligned is refused.
    small = inputs(crystal(2, seed=1), CUTOFF, SPECIES, dtype)
    small_outs = [torch.empty(s, dtype=dtype) for s in [(), (32,), (32, 3), (3, 3)]]
    assert compute(32, small[2].shape[1], 32, *[t.data_ptr() for t in [*small, *small_outs]], aligned, need.value,
                   message, 256) == 0
    assert relative_error(small_outs[2], pot(*small).forces) <= TOLERANCE[dtype]
    assert compute(n, e, n, *pointers, aligned, need.value - 1, message, 256) == 2
    assert b"the workspace holds" in message.value
    assert compute(n, e, n, *pointers, aligned + 8, need.value, message, 256) == 2
    assert b"not 64-byte aligned" in message.value
    assert compute(n, e, n + 1, *pointers, None, 0, message, 256) == 2
    assert b"n_local = " in message.value and b"outside" in message.value
    bad = args[0].clone()
    bad[3] = len(SPECIES)  # a species index the embedding does not have
    assert compute(n, e, n, bad.data_ptr(), *pointers[1:], None, 0, message, 256) == 3
    assert b"out of range" in message.value


def test_plain_function_is_not_a_potential(tmp_path) -> None:
    from pipeline import compile
    from pipeline.md.potential import PotentialInfo
    from pipeline.deploy.export import export_library

    fn = compile(lambda x: (x * 2.0).sum(), [torch.ones(4, dtype=torch.float64)])
    with pytest.raises(ExportError, match="is not a potential"):
        export_library(fn, tmp_path, name="twice", potential=PotentialInfo(5.0, 1, ("Ar",)))


def through_edges(model: torch.nn.Module):
    """A user's own energy+forces+virial function, the way Allegro and MACE differentiate:
    by the edge vectors, forces scattered onto both ends, virial = -sum_edges r (x) dE/dr."""

    def energy_forces_virial(species, positions, edge_index, shifts, n_local):
        vectors = (positions.index_select(0, edge_index[1]) - positions.index_select(0, edge_index[0])
                   + shifts).detach().requires_grad_(True)
        zero = torch.zeros_like(positions)
        energies = model(species, zero, edge_index, vectors)  # positions enter only through the edges
        energy = torch.where(torch.arange(positions.shape[0]) < n_local, energies, torch.zeros_like(energies)).sum()
        (d_vectors,) = torch.autograd.grad(energy, vectors)
        forces = zero.index_add(0, edge_index[0], d_vectors).index_add(0, edge_index[1], -d_vectors)
        virial = -(vectors.detach()[:, :, None] * d_vectors[:, None, :]).sum(dim=0)
        return energy, energies.detach(), forces, virial

    return energy_forces_virial


def test_own_derivatives() -> None:
    """compile_potential(..., differentiate=False) compiles the user's own function as it is."""
    from pipeline.md.potential import compile_potential

    dtype = torch.float64
    own = through_edges(model("message_passing", dtype))
    example = (*inputs(crystal(2, seed=0), CUTOFF, SPECIES, dtype), torch.tensor(32))
    pot = compile_potential(own, example, cutoff=CUTOFF, species=SPECIES, layers=2, differentiate=False)
    args = inputs(crystal(3, seed=12), CUTOFF, SPECIES, dtype)
    for n_local in (108, 50):
        got = pot(*args, n_local=n_local)
        for field, g, w in zip(FIELDS, got, potential("message_passing", dtype)(*args, n_local=n_local)):
            assert relative_error(g, w) <= 1e-10, field


def test_workspace_is_kept_for_smaller_sizes() -> None:
    """An MD step's edge count changes often: a call that fits the last arenas reuses them
    (fresh pages cost more than the call), and its numbers are still right."""
    pot = potential("message_passing", torch.float64)
    reference = energy_forces_virial(model("message_passing", torch.float64))
    big, small = (inputs(crystal(r, seed=9), CUTOFF, SPECIES) for r in (3, 2))
    pot(*big)
    arenas = pot.compiled._local.arenas[1]
    for args in (small, big):
        got = pot(*args)
        assert pot.compiled._local.arenas[1] is arenas
        want = reference(*args, torch.tensor(args[1].shape[0]))
        for field, g, w in zip(FIELDS, got, want):
            assert relative_error(g, w.detach()) <= 1e-10, field
