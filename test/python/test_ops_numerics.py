"""Every op of the aten inventory, compiled to native code, against eager torch.

One tiny function per case (variants of one op share a function, as several outputs),
captured with symbolic sizes, compiled once per dtype and called at sizes it was never
traced at (size 1 included): its forward values, and, for the differentiable ops,
`loss = sum(y * y)` with its `torch.autograd.grad` (so the op's backward, which make_fx
traces into other aten ops, is compiled too). f32 and f64, fresh seeded draws per call,
integer index tensors in range (negative where torch allows them).

`test_inventory_is_covered` checks that the cases name every op of `ATEN_OPS`, and each
case checks that the ops it names really are in its captured graph. Also: ops no captured
graph holds (from IR text), no torch op at call time, out-of-range indices.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from conftest import DTYPES, assert_close
from op_cases import CASES, DECOMPOSED_NAMES, DIMS, I, NX, SIZES, TEXT_ONLY, TRACE, X, Case, Tensor, _IE, _IE0, _sizes, aten
from torch.utils._python_dispatch import TorchDispatchMode

import frontend.capture
from dialects.aten import ATEN_OPS
from frontend.import_fx import import_graph
from frontend.reference import run_reference
from pipeline.compiler import CompiledFunction, compile


# --------------------------------------------------------------------------- harness


def _traced(case: Case) -> Callable[..., tuple[Tensor, ...]]:
    """(*ys,) or (*ys, loss, *d loss / d args[case.grad]), loss = the sum of sum(y * y).

    The upstream gradient 2 y differs from element to element (a wrong index in a backward
    shows), and the terms of the loss do not cancel (its relative error stays meaningful)."""

    def fn(*args: Tensor) -> tuple[Tensor, ...]:
        args_ = list(args)
        wrt = []
        for k in case.grad:
            args_[k] = args_[k].detach().requires_grad_(True)
            wrt.append(args_[k])
        ys = case.fn(*args_)
        ys = (ys,) if isinstance(ys, Tensor) else tuple(ys)
        if not wrt:
            return ys
        loss = sum((y * y).sum() for y in ys)
        return (*ys, loss, *torch.autograd.grad(loss, wrt))

    fn.__name__ = "case_" + re.sub(r"\W", "_", case.id)
    return fn


class _Decompositions:
    """Capture with some core decompositions disabled (to reach the op they replace)."""

    def __init__(self, keep: Sequence[Any]):
        self.keep = tuple(keep)

    def __enter__(self) -> None:
        self.saved = frontend.capture.decompositions
        table = {
            k: v for k, v in self.saved().items()
            if getattr(k, "overloadpacket", None) not in self.keep
        }
        frontend.capture.decompositions = lambda: table

    def __exit__(self, *exc: Any) -> None:
        frontend.capture.decompositions = self.saved


def _seed(*parts: Any) -> torch.Generator:
    return torch.Generator().manual_seed(zlib.crc32("/".join(map(str, parts)).encode()))


def _compile(case: Case, dtype: torch.dtype, g: torch.Generator) -> CompiledFunction:
    fn = _traced(case)
    example = [a.draw(g, _sizes(TRACE), dtype) for a in case.args]
    with _Decompositions(case.keep):
        return compile(fn, example, [a.dims() for a in case.args])


def _ops_of(compiled: CompiledFunction) -> set[str]:
    """The overloads in the FX graph (`neg`, `add.Tensor`), and in the aten module (weights)."""
    fx = {
        name if overload == "default" else f"{name}.{overload}"
        for name, overload in re.findall(r"torch\.ops\.aten\.(\w+)\.(\w+)\(", compiled.ir("fx"))
    }
    return fx | set(re.findall(r"\baten\.([\w.]+) ", compiled.ir("aten")))


def _compare(got: Sequence[Tensor], want: Sequence[Tensor], what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        w = w.detach()
        assert g.shape == w.shape, f"{what} output {k}: shape {tuple(g.shape)}, expected {tuple(w.shape)}"
        assert g.dtype == w.dtype, f"{what} output {k}: dtype {g.dtype}, expected {w.dtype}"
        if w.is_floating_point():
            assert_close([g], [w], w.dtype, f"{what} output {k}")
        else:
            assert torch.equal(g, w), f"{what} output {k}: {g} != {w}"


def _check(case: Case, dtype: torch.dtype) -> None:
    g = _seed(case.id, dtype)
    compiled = _compile(case, dtype, g)
    ops = _ops_of(compiled)
    for op in case.ops:
        assert op in ops, f"{case.id}: the captured graph has no aten.{op}:\n{compiled.ir('fx')}"
    fn = _traced(case)
    for n in (TRACE, *case.sizes):
        args = [a.draw(g, _sizes(n), dtype) for a in case.args]
        with _RecordOps() as eager:
            want = fn(*[a.clone() for a in args])
        if case.f32_from_f64 and dtype == torch.float32:
            exact = fn(*[a.double() if a.is_floating_point() else a.clone() for a in args])
            want = [w.to(dtype) if w.is_floating_point() else w for w in exact]
        got = compiled(*args)
        _compare(got, want, f"{case.id} at N={n}")
    for op in case.decomposed:
        assert op in DECOMPOSED_NAMES, f"{case.id}: capture does not decompose {op}"
        packet = op.split(".")[0]  # eager may reach another overload (upsample .vec -> .default)
        assert any(o.startswith(f"aten.{packet}.") for o in eager.ops), f"{case.id}: eager never called aten.{op}"


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_op(case: Case, dtype: torch.dtype) -> None:
    _check(case, dtype)


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_reference(case: Case) -> None:
    """The import's own oracle (frontend.reference runs each aten op of the module as its
    torch overload) equals eager: the imported module means what the graph meant (a
    Python number's dtype, an absent optional, an assertion)."""
    g = _seed(case.id, "reference")
    fn = _traced(case)
    example = [a.draw(g, _sizes(TRACE), torch.float64) for a in case.args]
    with _Decompositions(case.keep):
        imported = import_graph(frontend.capture.capture(fn, example, [a.dims() for a in case.args]))
    args = [a.draw(g, _sizes(7), torch.float64) for a in case.args]
    _compare(run_reference(imported.module, args, imported.weights), fn(*[a.clone() for a in args]), f"{case.id} at N=7")


def test_inventory_is_covered() -> None:
    named = {op for c in CASES for op in c.ops} | set(TEXT_ONLY)
    inventory = {op.overload() for op in ATEN_OPS}
    assert inventory - named == set(), "ops without a numerics case"
    assert named - inventory == set(), "cases name ops that are not in ATEN_OPS"


# --------------------------------------------------------------------------- ops no graph holds

_TEXT_ONLY_MODULE = """
builtin.module {
  func.func @text_only(%N: index, %x: tensor<?x3xf64> {aten.dims = ["N", 3 : i64]},
                       %y: tensor<3xf64> {aten.dims = [3 : i64]})
      -> (tensor<?x3xf64> {aten.dims = ["N", 3 : i64]}, tensor<?x2xf64> {aten.dims = ["N", 2 : i64]},
          tensor<?x3xf64> {aten.dims = ["N", 3 : i64]}) {
    %numel = aten.sym_numel %x : tensor<?x3xf64>
    %scaled = aten.mul.Scalar %x, %numel : tensor<?x3xf64>, index -> tensor<?x3xf64>
    %two = arith.constant 2.000000e+00 : f64
    %sub = aten.sub_.Tensor %scaled, %y alpha %two : f64 : tensor<?x3xf64>, tensor<3xf64> -> tensor<?x3xf64>
    %n = aten.sym_size.int %x {dim = -2 : i64} : tensor<?x3xf64>
    %c2 = arith.constant 2 : index
    %half = arith.constant 5.000000e-01 : f64
    %full = aten.full [%n, %c2], %half : f64 -> tensor<?x2xf64>
    %copy = aten.copy_ %x, %y : tensor<?x3xf64>, tensor<3xf64> -> tensor<?x3xf64>
    func.return %sub, %full, %copy : tensor<?x3xf64>, tensor<?x2xf64>, tensor<?x3xf64>
  }
}
"""


def text_only(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return x * x.numel() - 2 * y, torch.full((x.shape[0], 2), 0.5, dtype=x.dtype), torch.zeros_like(x).copy_(y)


def test_text_only_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    """sym_size.int, sym_numel, sub_.Tensor and a live copy_, from aten IR text: the
    signature comes from capturing the reference, the module is ours."""
    import pipeline.compiler
    from frontend.import_fx import Imported
    from xdsl.parser import Parser

    from pipeline.registry import context

    monkeypatch.setattr(pipeline.compiler, "import_graph",  # a fresh module per import, as import_graph's
                        lambda captured: Imported(Parser(context(), _TEXT_ONLY_MODULE).parse_module(), {}))
    g = _seed("text_only")
    example = [torch.randn(TRACE, 3, generator=g, dtype=torch.float64), torch.randn(3, generator=g, dtype=torch.float64)]
    compiled = compile(text_only, example, [{0: DIMS["N"]}, None])
    text = compiled.ir("aten")
    for op in TEXT_ONLY:
        assert f"aten.{op} " in text
    for n in (TRACE, *SIZES):
        args = [torch.randn(n, 3, generator=g, dtype=torch.float64), torch.randn(3, generator=g, dtype=torch.float64)]
        _compare(compiled(*args), text_only(*args), f"text_only at N={n}")


# --------------------------------------------------------------------------- no torch at call time


class _RecordOps(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


CALL_OPS = {"aten.empty.memory_format", "aten.zeros.default", "aten.zero_.default", "aten.fill_.Scalar",
            "aten._local_scalar_dense.default"}
"""What a compiled call may run through torch: allocations (its outputs, a status word or
workspace) and reads of a scalar; every computation is native code."""


@pytest.mark.parametrize("case", [c for c in CASES if c.id in ("scatter_add", "mm", "index_put-accumulate")], ids=lambda c: c.id)
def test_call_runs_no_torch_op(case: Case) -> None:
    dtype = torch.float64
    g = _seed("no-torch", case.id)
    compiled = _compile(case, dtype, g)
    args = [a.draw(g, _sizes(7), dtype) for a in case.args]
    want = _traced(case)(*args)
    with _RecordOps() as record:
        got = compiled(*args)
    _compare(got, want, case.id)
    assert set(record.ops) <= CALL_OPS, f"a compiled call ran {sorted(set(record.ops) - CALL_OPS)}"
    assert record.ops.count("aten.empty.memory_format") >= len(want)  # the outputs, at least


# --------------------------------------------------------------------------- indices out of range


def _index_ops(x: Tensor, i: Tensor, j: Tensor, k: Tensor, m: Tensor, e: Tensor, s: Tensor) -> tuple[Tensor, ...]:
    return (
        x[i],                                        # index.Tensor: i in [-N, N)
        x.index_put((j,), s, accumulate=True),       # index_put: j in [-N, N)
        torch.index_select(x, 0, k),                 # index_select: k in [0, N)
        torch.gather(x, 0, m),                       # gather: m in [0, N)
        torch.scatter_add(x, 0, m, s),               # scatter_add: m in [0, N)
        torch.index_add(x, 0, k, s),                 # index_add: k in [0, N)
        F.embedding(e, x),                           # embedding: e in [0, N)
    )


_INDEX_ARGS = [NX, _IE, _IE, _IE0, I("E", 3, lo=0, hi="N"), _IE0, X("E", 3)]
_BAD = [  # (argument, bad value, the sites the error may name); torch raises for each too
    (1, "N", "index.Tensor"), (1, "-N-1", "index.Tensor"), (2, "N", "index_put"), (3, "N", "index_select|index_add"),
    (3, "-1", "index_select|index_add"), (4, "N", "gather|scatter_add"), (4, "-1", "gather|scatter_add"),
    (5, "-1", "embedding"), (5, "N", "embedding"),
]


@pytest.fixture(scope="module")
def index_ops() -> CompiledFunction:
    case = Case("index_ops", _index_ops, tuple(_INDEX_ARGS), (), grad=(), keep=(aten.index_add,))
    return _compile(case, torch.float64, _seed("index_ops"))


@pytest.mark.parametrize("arg, bad, site", _BAD, ids=[f"{s.split('|')[0]}-{b}" for _, b, s in _BAD])
def test_index_out_of_range_raises(index_ops: CompiledFunction, arg: int, bad: str, site: str) -> None:
    g = _seed("index_ops", arg, bad)
    n = 7
    args = [a.draw(g, _sizes(n), torch.float64) for a in _INDEX_ARGS]
    _compare(index_ops(*args), _index_ops(*args), "in range")
    value = {"N": n, "-N-1": -n - 1, "-1": -1}[bad]
    args[arg] = args[arg].clone()
    args[arg].view(-1)[2] = value
    with pytest.raises((IndexError, RuntimeError)):
        _index_ops(*args)
    with pytest.raises(IndexError, match=site):
        index_ops(*args)


@pytest.mark.parametrize("op", ["gather", "scatter_add", "index_add"])
def test_negative_index_raises_where_torch_does(op: str) -> None:
    """gather, scatter_add and index_add reject negative indices (index.Tensor wraps them)."""
    fns = {
        "gather": lambda x, i, s: torch.gather(x, 0, i),
        "scatter_add": lambda x, i, s: torch.scatter_add(x, 0, i, s),
        "index_add": lambda x, i, s: torch.index_add(x, 0, i[:, 0], s),
    }
    case = Case(f"negative_{op}", fns[op], (NX, I("E", 3, lo=0, hi="N"), X("E", 3)), (op,), grad=(), keep=(aten.index_add,))
    g = _seed("negative", op)
    compiled = _compile(case, torch.float64, g)
    args = [a.draw(g, _sizes(4), torch.float64) for a in case.args]
    args[1][1, 0] = -1
    with pytest.raises((IndexError, RuntimeError)):
        case.fn(*args)
    with pytest.raises(IndexError, match=op):
        compiled(*args)


# --------------------------------------------------------------------------- function names


@pytest.mark.parametrize("name", ["sin", "atan"])
def test_function_named_like_libm(name: str) -> None:
    """A function named like the libm routine its math calls (f32 first, then f64 in the
    same process: the f64 call must reach libm, not the earlier kernel). (exp, log,
    tanh and their kin no longer call libm: approximate-math inlines them.)"""
    op = getattr(torch, name)

    def fn(x: Tensor) -> tuple[Tensor]:
        return (op(x),)

    fn.__name__ = name
    for dtype in DTYPES:
        x = torch.randn(TRACE, 3, dtype=dtype, generator=_seed(name, dtype))
        compiled = compile(fn, [x], [{0: DIMS["N"]}])
        _compare(compiled(x), fn(x), name)
