"""In-place ops removed by rewriting the captured graph (frontend.functionalize), not
by a second trace: the graph has no mutating op left, the rewrite (not the retrace) did
it where it can follow the aliasing, and the captured graph and the compiled code equal
eager PyTorch, value and gradient, at sizes never traced, f32 and f64."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from conftest import DTYPES, assert_close
from torch.export import Dim

import frontend.capture
import frontend.functionalize
from frontend.capture import capture
from pipeline.compiler import compile


def _with_grad(body: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], tuple[torch.Tensor, ...]]:
    def fn(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x = x.detach().requires_grad_(True)
        y = body(x)
        loss = (y * y).sum()
        return y, loss, *torch.autograd.grad(loss, [x])

    fn.__name__ = body.__name__
    return fn


def slices_of_zeros(x: torch.Tensor) -> torch.Tensor:
    out = x.new_zeros(x.shape[0], 7)
    out[:, 1:4] = x
    out[:, 4:] = torch.sin(x[:, :3])
    return out


def view_read_after_write(x: torch.Tensor) -> torch.Tensor:
    buf = torch.ones_like(x)
    column = buf[:, 1]  # taken before the writes, read after them
    buf.mul_(x)
    buf.add_(2.0)
    return column * 3 + buf[:, 0]


def write_through_chain(x: torch.Tensor) -> torch.Tensor:
    buf = x.new_zeros(x.shape[0], 4, 3)
    buf.permute(0, 2, 1)[:, 1].copy_((x[:, :1].exp() * x[:, 1:2]).expand(-1, 4))
    buf.unsqueeze(0)[0, :, 2].copy_(x)
    buf[:, 1:].diagonal(0, 1, 2).mul_(x)
    return buf.reshape(x.shape[0], 12)


def chained_in_place(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    y.mul_(x).add_(1.5)
    y.add_(x.double())  # stays in x's dtype
    y.pow_(2).tanh_()
    return y


def scatter_into_zeros(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    index = (torch.arange(n) % 3).unsqueeze(1).expand(n, 3)
    return torch.zeros(3, 3, dtype=x.dtype).scatter_add_(0, index, x * x) + torch.zeros_like(x).scatter_add_(0, index, x)[:3]


def write_through_reshape(x: torch.Tensor) -> torch.Tensor:
    buf = x.new_zeros(x.shape[0] * 3)
    buf.view(x.shape[0], 3)[:, 1] = x[:, 0] * x[:, 2]  # `view` has no inverse in the rewrite
    return buf


REWRITTEN = [slices_of_zeros, view_read_after_write, write_through_chain, chained_in_place, scatter_into_zeros]
RETRACED = [write_through_reshape]
SIZES = [3, 6, 29]  # traced at 11


def _capture(body: Callable[[torch.Tensor], torch.Tensor], dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch):
    outcomes: list[str] = []

    def spy(graph: torch.fx.GraphModule, mode: object) -> torch.fx.GraphModule:
        try:
            result = frontend.functionalize.functionalize(graph, mode)
        except frontend.functionalize.Unsupported:
            outcomes.append("retraced")
            raise
        outcomes.append("rewritten")
        return result

    monkeypatch.setattr(frontend.capture, "functionalize", spy)
    fn = _with_grad(body)
    x = torch.randn(11, 3, generator=torch.Generator().manual_seed(0), dtype=dtype)
    captured = capture(fn, [x], [{0: Dim("N", min=3)}])
    return fn, captured, outcomes


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("body", REWRITTEN + RETRACED, ids=lambda b: b.__name__)
def test_graph_is_functional_and_equals_eager(body: Callable, dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch) -> None:
    fn, captured, outcomes = _capture(body, dtype, monkeypatch)
    assert outcomes == ["rewritten" if body in REWRITTEN else "retraced"]
    mutating = [n.target for n in captured.graph.graph.nodes if frontend.functionalize.mutates(n)]
    assert not mutating
    for i, n in enumerate(SIZES):
        x = torch.randn(n, 3, generator=torch.Generator().manual_seed(100 + i), dtype=dtype)
        assert_close(captured.graph(x), fn(x), dtype, f"{body.__name__} N={n}")


@pytest.mark.parametrize("body", REWRITTEN, ids=lambda b: b.__name__)
def test_compiled_equals_eager(body: Callable) -> None:
    fn = _with_grad(body)
    x = torch.randn(11, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    compiled = compile(fn, [x], [{0: Dim("N", min=3)}])
    for i, n in enumerate(SIZES):
        x = torch.randn(n, 3, generator=torch.Generator().manual_seed(200 + i), dtype=torch.float64)
        assert_close(compiled(x), fn(x), torch.float64, f"{body.__name__} N={n}")
