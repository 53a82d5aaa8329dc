"""What real MLIP libraries need from capture: TorchScript helpers run as their Python
source (schnetpack's `_scatter_add(x, idx, dim_size: int)`, e3nn 0.4's spherical
harmonics), and `torch.compiler.is_compiling()` is True (TorchANI skips a
data-dependent check only then). Compiled, then checked against eager at sizes never
traced."""

from __future__ import annotations

import warnings

import pytest
import torch
from conftest import DTYPES, TRACE_ATOMS, assert_close
from torch.export import Dim

from pipeline import CaptureError, capture, compile

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
SIZES = [5, 41, 100]  # none is TRACE_ATOMS
SHAPES = {"pos": {0: Dim("N")}, "edge_index": {1: Dim("E")}}


with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit.script is, libraries still use it

    @torch.jit.script
    def _cutoff(r2: torch.Tensor) -> torch.Tensor:
        return torch.exp(-r2) * (1.0 + r2)

    @torch.jit.script
    def _scatter_add(x: torch.Tensor, idx: torch.Tensor, dim_size: int) -> torch.Tensor:
        """schnetpack's: the output size is an int argument, which TorchScript pins."""
        shape = [dim_size] + list(x.shape[1:])
        out = torch.zeros(shape, dtype=x.dtype, device=x.device)
        return out.index_add(0, idx, _cutoff(x))


def scripted_energy_forces(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    pos = pos.detach().requires_grad_(True)
    i, j = edge_index[0], edge_index[1]
    r2 = (pos[j] - pos[i]).square().sum(-1, keepdim=True)
    per_atom = _scatter_add(r2, i, pos.shape[0])
    energy = (per_atom * torch.tanh(per_atom)).sum()
    (g,) = torch.autograd.grad(energy, pos)
    return energy, -g


def inputs(n: int, dtype: torch.dtype, seed: int) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return {
        "pos": torch.randn(n, 3, generator=gen, dtype=dtype),
        "edge_index": torch.randint(0, n, (2, 3 * n + 1), generator=gen),
    }


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_scripted_helper_runs_as_python(dtype: torch.dtype) -> None:
    native = compile(scripted_energy_forces, inputs(TRACE_ATOMS, dtype, 0), SHAPES)
    for n in SIZES:
        args = inputs(n, dtype, n).values()
        assert_close(native(*args), scripted_energy_forces(*args), dtype, f"N={n}")
    assert torch.jit.ScriptFunction.__call__ is torch._C.ScriptFunction.__dict__["__call__"]


class PairEnergy(torch.nn.Module):
    """A module meant for torch.jit.script: per-atom sums sized by `pos.shape[0]`."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Linear(1, 4)
        self.register_buffer("scale", torch.tensor([0.5, 1.0, 1.5, 2.0]))

    def forward(self, pos: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        r2 = (pos[edge_index[1]] - pos[edge_index[0]]).square().sum(-1, keepdim=True)
        per_atom = torch.zeros(pos.shape[0], 4, dtype=pos.dtype).index_add(0, edge_index[0], torch.tanh(self.embed(r2)))
        return (per_atom * self.scale).square().sum()


def module_energy_forces(model: torch.nn.Module):
    def fn(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        energy = model(pos, edge_index)
        (g,) = torch.autograd.grad(energy, pos)
        return energy, -g

    return fn


def test_scripted_module_runs_as_python() -> None:
    dtype = torch.float64
    scripted = torch.jit.script(PairEnergy().to(dtype))
    fn = module_energy_forces(scripted)
    native = compile(fn, inputs(TRACE_ATOMS, dtype, 0), SHAPES)
    for n in SIZES:
        args = inputs(n, dtype, n).values()
        assert_close(native(*args), fn(*args), dtype, f"N={n}")


def test_scripted_module_with_replaced_weights_is_refused() -> None:
    scripted = torch.jit.script(PairEnergy())
    scripted.embed.weight = torch.nn.Parameter(torch.ones(4, 1))
    with pytest.raises(CaptureError, match=r"'forward' of .*PairEnergy: 'embed.weight' was replaced"):
        capture(module_energy_forces(scripted), inputs(TRACE_ATOMS, torch.float32, 0), SHAPES)


def test_torchscript_without_python_source_is_refused() -> None:
    unit = torch.jit.CompilationUnit("def double_it(x: Tensor) -> Tensor:\n    return 2 * x\n")

    def fn(pos: torch.Tensor) -> tuple[torch.Tensor]:
        return (unit.double_it(pos).sum(),)

    with pytest.raises(CaptureError, match=r"TorchScript function '.*double_it' has no Python source"):
        capture(fn, (torch.randn(8, 3),), {"pos": {0: Dim("N")}})
    assert unit.double_it(torch.ones(2)).tolist() == [2.0, 2.0], "TorchScript runs as before after capture"
    assert not torch.compiler.is_compiling()


def species_energy_forces(pos: torch.Tensor, species: torch.Tensor, edge_index: torch.Tensor):
    """TorchANI's way: a data-dependent species check that only eager mode runs."""
    if not torch.compiler.is_compiling() and (species < 0).any():
        raise ValueError("unknown species")
    pos = pos.detach().requires_grad_(True)
    weight = torch.tensor([0.5, 1.0, 2.0], dtype=pos.dtype)[species]
    r2 = (pos[edge_index[1]] - pos[edge_index[0]]).square().sum(-1)
    energy = (weight[edge_index[0]] * weight[edge_index[1]] * torch.exp(-r2)).sum()
    (g,) = torch.autograd.grad(energy, pos)
    return energy, -g


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_is_compiling_during_capture(dtype: torch.dtype) -> None:
    def make(n: int, seed: int) -> dict[str, torch.Tensor]:
        args = inputs(n, dtype, seed)
        return {"pos": args["pos"], "species": torch.arange(n) % 3, "edge_index": args["edge_index"]}

    shapes = {**SHAPES, "species": {0: Dim("N")}}
    native = compile(species_energy_forces, make(TRACE_ATOMS, 0), shapes)
    assert not torch.compiler.is_compiling()
    for n in SIZES:
        args = make(n, n).values()
        assert_close(native(*args), species_energy_forces(*args), dtype, f"N={n}")


def test_e3nn_scripted_spherical_harmonics() -> None:
    """e3nn's own TorchScript compile of a module (its code-generated forward) pinned E."""
    o3 = pytest.importorskip("e3nn.o3", reason="`e3nn` does not import: the `models` extra (pip install -e '.[models]')")
    from e3nn.util.jit import script

    from pipeline import run_reference, to_aten

    sh = script(o3.SphericalHarmonics([0, 1, 2], normalize=True, normalization="component"))
    assert isinstance(sh, torch.jit.RecursiveScriptModule)

    def fn(pos: torch.Tensor, edge_index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        vec = pos[edge_index[1]] - pos[edge_index[0]]
        y = sh(vec)
        energy = y.square().sum() + (y[:, 1:4] * vec).sum()
        (g,) = torch.autograd.grad(energy, pos)
        return energy, -g

    dtype = torch.float64
    imported = to_aten(capture(fn, inputs(TRACE_ATOMS, dtype, 0), SHAPES))
    for n in SIZES[:2]:
        args = list(inputs(n, dtype, n).values())
        assert_close(run_reference(imported.module, args, imported.weights), fn(*args), dtype, f"N={n}")
