"""Arguments bind by name wherever a user names them: a dict of example arguments in any
order, keyword calls in any order, through the JIT, the exported library and
`compile_potential`. The function takes two tensors of the same dtype and shape, so an
argument bound to the other's place gives other numbers, not an error."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import torch
from conftest import DTYPES, TOLERANCE, relative_error
from torch.export import Dim

import pipeline
from examples.md_potentials import CUTOFF, SPECIES, build
from pipeline.md.potential import energy_forces_virial

N, E = Dim("N"), Dim("E")
SHAPES = {"pos": {0: N}, "ref": {0: N}, "edge_index": {1: E}}


def pair_and_spring(pos: torch.Tensor, ref: torch.Tensor, edge_index: torch.Tensor):
    """exp(-r) over the edges of `pos`, plus springs from `pos` to `ref`."""
    pos = pos.detach().requires_grad_(True)
    r = (pos[edge_index[1]] - pos[edge_index[0]]).norm(dim=-1)
    energy = torch.exp(-r).sum() + 0.5 * ((pos - ref) ** 2).sum()
    return energy, -torch.autograd.grad(energy, pos)[0]


def system(n: int, e: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    edge_index = torch.randint(0, n, (2, e), generator=g)
    edge_index = edge_index[:, edge_index[0] != edge_index[1]].contiguous()
    return {"pos": 3 * torch.rand(n, 3, generator=g, dtype=dtype), "ref": torch.rand(n, 3, generator=g, dtype=dtype),
            "edge_index": edge_index}


def cluster(n: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, ...]:
    """(species, positions, edge_index, shifts) of an open cluster: every pair within the cutoff."""
    g = torch.Generator().manual_seed(seed)
    positions = 2.5 * n ** (1 / 3) * torch.rand(n, 3, generator=g, dtype=dtype)
    i, j = torch.triu_indices(n, n, 1)
    i, j = torch.cat([i, j]), torch.cat([j, i])
    near = (positions[i] - positions[j]).norm(dim=-1) < CUTOFF
    edge_index = torch.stack([i[near], j[near]]).contiguous()
    species = torch.randint(0, len(SPECIES), (n,), generator=g)
    return species, positions, edge_index, torch.zeros(edge_index.shape[1], 3, dtype=dtype)


def assert_eager(got, args: dict[str, torch.Tensor], dtype: torch.dtype, what: str) -> None:
    want = pair_and_spring(**args)
    for label, g, w in zip(("energy", "forces"), got, want):
        err = relative_error(g, w.detach())
        assert err <= TOLERANCE[dtype], f"{what}: {label} off by {err:.1e}"


def calls(f, args: dict[str, torch.Tensor]):
    """Every way a user passes the arguments: positional, keywords in every order, mixed."""
    yield "positional", f(args["pos"], args["ref"], args["edge_index"])
    for order in itertools.permutations(args):
        yield f"keywords {order}", f(**{k: args[k] for k in order})
    yield "mixed", f(args["pos"], edge_index=args["edge_index"], ref=args["ref"])


@pytest.fixture(scope="module", params=DTYPES, ids=["f32", "f64"])
def compiled_by_name(request):
    """Compiled from a dict in another order than the function's, with the dynamic
    shapes as a list in the dict's order."""
    dtype = request.param
    example = system(12, 40, dtype, 0)
    shuffled = {k: example[k] for k in ("edge_index", "ref", "pos")}
    return dtype, pipeline.compile(pair_and_spring, shuffled, [SHAPES[k] for k in shuffled])


def test_a_dict_binds_by_name_in_the_jit(compiled_by_name) -> None:
    dtype, f = compiled_by_name
    assert f.signature.names == ["pos", "ref", "edge_index"]  # the function's order
    for n, e in [(5, 9), (30, 200)]:
        args = system(n, e, dtype, n)
        for what, got in calls(f, args):
            assert_eager(got, args, dtype, f"JIT {what} N={n}")


@pytest.mark.parametrize("order", [("edge_index", "pos", "ref"), ("ref", "edge_index", "pos")])
def test_every_order_of_example_and_shapes_compiles_the_same_function(order) -> None:
    example = system(12, 40, torch.float64, 1)
    f = pipeline.compile(pair_and_spring, {k: example[k] for k in order}, {k: SHAPES[k] for k in reversed(order)})
    args = system(20, 90, torch.float64, 2)
    assert_eager(f(**args), args, torch.float64, f"compiled from {order}")


def test_the_exported_library_binds_by_name(compiled_by_name, tmp_path: Path) -> None:
    dtype, f = compiled_by_name
    lib = pipeline.load_library(pipeline.export_library(f, tmp_path, name="pair_and_spring"))
    assert [a["name"] for a in lib.manifest["inputs"]] == ["pos", "ref", "edge_index"]
    header = (tmp_path / "pair_and_spring.h").read_text()
    assert header.index("*pos,") < header.index("*ref,") < header.index("*edge_index,")
    args = system(17, 60, dtype, 3)
    for what, got in calls(lib, args):
        assert_eager(got, args, dtype, f"library {what}")


def test_a_dict_naming_no_parameter_is_refused() -> None:
    example = system(12, 40, torch.float64, 0)
    with pytest.raises(pipeline.CaptureError, match=r"names 'positions', which pair_and_spring does not take"):
        pipeline.compile(pair_and_spring, {"positions": example["pos"], "ref": example["ref"],
                                           "edge_index": example["edge_index"]})
    with pytest.raises(pipeline.CaptureError, match=r"lacks 'ref', which pair_and_spring requires"):
        pipeline.compile(pair_and_spring, {"pos": example["pos"], "edge_index": example["edge_index"]})


def test_a_potential_binds_by_name(tmp_path: Path) -> None:
    """compile_potential from a dict in another order, called by keyword in another
    order, in process and through its exported library."""
    dtype = torch.float64
    model = build("pair", dtype)
    species, positions, edge_index, shifts = cluster(10, dtype, 5)
    example = {"shifts": shifts, "edge_index": edge_index, "positions": positions, "species": species}
    potential = pipeline.compile_potential(model, example, cutoff=CUTOFF, species=SPECIES)
    other = dict(zip(("species", "positions", "edge_index", "shifts"), cluster(27, dtype, 6)))
    n = other["positions"].shape[0]
    want = energy_forces_virial(model)(**other, n_local=torch.tensor(n))
    lib = pipeline.load_library(potential.export(tmp_path, name="pair"))
    for what, got in [("in process", potential(shifts=other["shifts"], edge_index=other["edge_index"],
                                              species=other["species"], positions=other["positions"])),
                      ("library", lib(n_local=torch.tensor(n), **{k: other[k] for k in reversed(other)}))]:
        for label, g, w in zip(("energy", "energies", "forces", "virial"), got, want):
            err = relative_error(g, w.detach())
            assert err <= TOLERANCE[dtype], f"{what}: {label} off by {err:.1e}"


def test_a_model_of_its_own_derivatives_is_called_by_position() -> None:
    """differentiate=False: the protocol is positional, whatever the model names its
    parameters (here in another order of names)."""
    dtype = torch.float64
    reference = energy_forces_virial(build("pair", dtype))

    def model(z, r, edges, images, own):  # noqa: ANN001, ANN202 - the protocol's five, named its own way
        return reference(z, r, edges, images, own)

    example = cluster(10, dtype, 5)
    potential = pipeline.compile_potential(model, example, cutoff=CUTOFF, species=SPECIES, differentiate=False)
    other = cluster(27, dtype, 8)
    want = reference(*other, torch.tensor(other[1].shape[0]))
    for label, g, w in zip(("energy", "energies", "forces", "virial"), potential(*other), want):
        assert relative_error(g, w.detach()) <= TOLERANCE[dtype], label
