"""Bad functions and bad dims get a clear error at capture, never a wrong graph."""

from __future__ import annotations

import builtins
import operator

import pytest
import torch
from torch.export import Dim

from pipeline import CaptureError, UnsupportedOpError, capture, compile, to_aten

N = Dim("N")


def energy_forces(energy_of):
    def fn(pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        energy = energy_of(pos)
        (g,) = torch.autograd.grad(energy, pos)
        return energy, -g

    return fn


def test_unsupported_op_is_named() -> None:
    fn = energy_forces(lambda pos: torch.special.erfinv(torch.tanh(pos)).square().sum())
    cap = capture(fn, (torch.randn(8, 3),), {"pos": {0: N}})
    with pytest.raises(UnsupportedOpError, match=r"aten\.erfinv") as err:
        to_aten(cap)
    assert "test_capture_errors.py" in str(err.value), "the user's source line is named"


def test_compile_names_the_unsupported_ops_line() -> None:
    """compile traces without source lines (they cost a stack per node), and again
    with them to name an unsupported op's line."""
    fn = energy_forces(lambda pos: torch.special.erfinv(torch.tanh(pos)).square().sum())
    with pytest.raises(UnsupportedOpError, match=r"aten\.erfinv.*test_capture_errors\.py:\d+: ") as err:
        compile(fn, (torch.randn(8, 3),), {"pos": {0: N}})
    assert err.value.__suppress_context__, "one error shown, not the unnamed one before it"
    plain = compile(energy_forces(lambda pos: pos.square().sum()), (torch.randn(8, 3),), {"pos": {0: N}})
    assert "# File:" not in plain.ir("fx")


def test_dynamic_dim_traced_at_one() -> None:
    fn = energy_forces(lambda pos: pos.square().sum())
    with pytest.raises(CaptureError, match=r"'pos' dim 0 .*size 1"):
        capture(fn, (torch.randn(1, 3),), {"pos": {0: N}})


@pytest.mark.parametrize("traced_atoms", [20, 12])
def test_branch_on_atom_count(traced_atoms: int) -> None:
    def energy(pos: torch.Tensor) -> torch.Tensor:
        if pos.shape[0] == 20:
            return (2 * pos).square().sum()
        return pos.square().sum()

    with pytest.raises(CaptureError, match=r"argument 'pos' dim 0 \(N\)") as err:
        capture(energy_forces(energy), (torch.randn(traced_atoms, 3),), {"pos": {0: N}})
    assert "test_capture_errors.py" in str(err.value)


def test_bound_on_atom_count() -> None:
    def energy(pos: torch.Tensor) -> torch.Tensor:
        torch._check(pos.shape[0] <= 64)
        return pos.square().sum()

    with pytest.raises(CaptureError, match=r"'pos' dim 0 \(N\).*N <= 64"):
        capture(energy_forces(energy), (torch.randn(10, 3),), {"pos": {0: N}})


def test_two_dims_of_one_dim_must_agree() -> None:
    fn = lambda a, b: (a.sum() + b.sum(),)  # noqa: E731
    with pytest.raises(CaptureError, match=r"'b' dim 0 is N = 4"):
        capture(fn, (torch.randn(3), torch.randn(4)), {"a": {0: N}, "b": {0: N}})


def test_bad_dynamic_shapes() -> None:
    fn = energy_forces(lambda pos: pos.square().sum())
    with pytest.raises(CaptureError, match=r"'x', which is not an argument"):
        capture(fn, (torch.randn(5, 3),), {"x": {0: N}})
    with pytest.raises(CaptureError, match=r"'pos' has no dim 2"):
        capture(fn, (torch.randn(5, 3),), {"pos": {2: N}})
    with pytest.raises(CaptureError, match=r"must be a torch.export.Dim"):
        capture(fn, (torch.randn(5, 3),), {"pos": {0: 5}})


def test_static_dims_stay_static() -> None:
    fn = energy_forces(lambda pos: pos.square().sum())
    cap = capture(fn, (torch.randn(5, 3),), {"pos": {0: N}})
    assert cap.args[0].dims == ("N", 3)
    text = str(to_aten(cap).module)
    assert "tensor<?x3xf32>" in text


def test_non_tensor_argument() -> None:
    with pytest.raises(CaptureError, match=r"argument 'pos' must be a torch.Tensor"):
        capture(lambda pos: pos, ([1.0, 2.0],), None)


@pytest.mark.parametrize("value", [None, 3.0, "energy"])
def test_non_tensor_output_is_refused_at_capture(value) -> None:
    def fn(pos: torch.Tensor):
        return pos.sum(), value

    with pytest.raises(CaptureError, match=r"output 1 of fn is \w+ .*every output must be a tensor"):
        capture(fn, (torch.randn(8, 3),), {"pos": {0: N}})


def test_single_tensor_output() -> None:
    from pipeline import compile

    def forces(pos: torch.Tensor) -> torch.Tensor:
        pos = pos.detach().requires_grad_(True)
        (g,) = torch.autograd.grad((pos**3).sum(), pos)
        return -g

    native = compile(forces, (torch.randn(8, 3),), {"pos": {0: N}})
    pos = torch.randn(5, 3)
    got = native(pos)
    assert isinstance(got, torch.Tensor) and not got.requires_grad
    torch.testing.assert_close(got, forces(pos))


def test_floor_division_guard_is_proved_from_the_range() -> None:
    """`p[:N // 2]` needs N // 2 <= N, which holds for every N: proved, not refused.
    Its other guard, N // 2 != 1, holds from N >= 4 on: declared so, it compiles."""
    from pipeline import compile

    fn = energy_forces(lambda pos: pos[: pos.shape[0] // 2].square().sum())
    with pytest.raises(CaptureError, match=r"requires Ne\(\(N//2\), 1\) \(true for N >= 4: declare Dim\(\"N\", min=4\)\)"):
        capture(fn, (torch.randn(10, 3),), {"pos": {0: N}})
    native = compile(fn, (torch.randn(10, 3),), {"pos": {0: Dim("N", min=4)}})
    for n in (4, 5, 17):
        pos = torch.randn(n, 3)
        for got, want in zip(native(pos), fn(pos)):
            torch.testing.assert_close(got, want)


def _rows_by_int(x: torch.Tensor) -> torch.Tensor:
    return torch.zeros(operator.index(x.shape[0]), dtype=x.dtype)  # pins N (int() would not: python_idioms)


def _rows_by_branch(x: torch.Tensor) -> torch.Tensor:
    if x.shape[0] == 9:  # pins N (traced at 9)
        return torch.zeros(9, dtype=x.dtype)
    return torch.ones(x.shape[0], dtype=x.dtype)


@pytest.mark.parametrize("pin", [_rows_by_int, _rows_by_branch])
def test_pin_of_a_dim_shared_by_two_arguments_names_its_line(pin) -> None:
    """`pos` and `batch` share N: capture ties them with its own torch._check, and the
    error still names the line that pinned N, not that check."""

    def fn(pos: torch.Tensor, batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pos = pos.detach().requires_grad_(True)
        energy = (pos.square().sum(1) * batch).sum() + pin(pos).sum()
        (g,) = torch.autograd.grad(energy, pos)
        return energy, -g

    line = pin.__code__.co_firstlineno + 1
    with pytest.raises(CaptureError, match=r"'pos' dim 0 \(N\) is dynamic, but the function fixes it to 9") as err:
        capture(fn, (torch.randn(9, 3), torch.randn(9)), {"pos": {0: N}, "batch": {0: N}})
    assert f"test_capture_errors.py:{line};" in str(err.value)
    assert "capture.py" not in str(err.value)


def test_len_of_a_dynamic_dim_names_its_line() -> None:
    """`len(t)` stays symbolic in the code capture reaches (frontend.python_idioms);
    the builtin called by another name still returns an int, and is refused."""

    def energy(pos: torch.Tensor) -> torch.Tensor:
        return pos.square().sum() / builtins.len(pos)

    line = energy.__code__.co_firstlineno + 1
    with pytest.raises(CaptureError, match=r"len\(tensor\) on a dynamic dim \(N\) pins it.*tensor\.shape\[0\]") as err:
        capture(energy_forces(energy), (torch.randn(8, 3),), {"pos": {0: N}})
    assert f"test_capture_errors.py:{line}:" in str(err.value)
    assert len(torch.ones(3, 2)) == 3, "len() works again after capture"
    fn = energy_forces(lambda pos: pos.square().sum() / len(pos))
    compiled = compile(fn, (torch.randn(8, 3, dtype=torch.float64),), {"pos": {0: N}})
    for n in (5, 17):
        x = torch.randn(n, 3, dtype=torch.float64)
        torch.testing.assert_close(compiled(x), fn(x.clone()), rtol=1e-12, atol=0)
    capture(fn, (torch.randn(8, 3),), {"pos": {1: N}})  # len() of a static dim is fine
