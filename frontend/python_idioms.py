"""The Python that model code writes around tensors, kept symbolic during capture.

make_fx sees tensor operations only. Some Python idioms turn a traced tensor or size
into a Python number or bool, which pins a dynamic size or guards on data. Capture
treats each as torch.compile's bytecode tracing does, at the level make_fx works at:

- `len(t)` returns `t.shape[0]`, and `int(t)` of an integer tensor `t.item()`: a
  symbolic size, and an unbacked (data-dependent) size. Python's `len()` and `int()`
  must return a Python int, so the names `len` and `int` are bound, for the trace's
  duration, in the modules of the packages the function reaches (torch.fx's
  `wrap` patches a module's globals the same way); everything but a traced tensor
  goes to the builtins unchanged.
- `t.tolist()` of a 1-D integer tensor of static length: one unbacked size per element.
  `torch.tril_indices`/`triu_indices` of such a size (their schema takes ints): the
  nonzeros of the triangle's mask.
- a one-element integer tensor made from a size (SevenNet's `num_atoms`), summed or
  reshaped: `.item()`/`int()` of it is that size, not a data-dependent one
  (frontend.size_values).
- `torch.tensor([a, b])` and `torch.as_tensor` of 0-d tensors and sizes
  (`torch.tensor(len(pos))`): `torch.stack` of the detached elements, in the dtype
  torch.tensor infers.
- `if <tensor>: raise ...` and `assert <tensor>`, and the same on sizes that are not
  known at every size (`if len(a) != 2 * len(b): raise`): a run-time assertion of the graph
  (`_assert_async`, which the compiled code checks), and the trace takes the side that
  does not raise (frontend.raise_guards decides which side raises).
- any other branch on data (`if x.any():`, `if len(idx) > 0:` on a size from data): one
  side, by speculation (frontend.speculation).
- library calls that read sizes or files as Python values: opt_einsum's contraction
  path (torch.einsum of 3+ operands), torch.load (frontend.library_calls).
- `nn.Parameter` subclasses (graph-pes' PerElementParameter) reach torch's ops as plain
  tensors: make_fx's dispatch refuses tensor subclasses it does not know.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch._subclasses.fake_tensor import is_fake
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols, statically_known_true
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_map

from frontend.decompositions import _linalg_matrix_exp
from frontend.guards import is_users, users_frame
from frontend.library_calls import library_calls
from frontend.raise_guards import RaisingBranch, raising_branch
from frontend.size_values import SizeValues
from frontend.speculation import active, size_guess

_OURS = {"torch", "functorch", "torchgen", "frontend", "pipeline", "transforms", "dialects", "codegen",
         "sympy", "numpy", "xdsl", "llvmlite", "builtins", "__future__", "typing_extensions"}
"""Packages never rebound: torch's own and ours run during the trace itself."""


Decompositions = Mapping[Any, Callable[..., Any]]
"""The user's decompositions: an op (an OpOverload, its packet, or a
torch.library.custom_op) and a function of torch ops computing it."""


@contextlib.contextmanager
def symbolic_python(fn: Callable[..., Any], decompositions: Decompositions | None = None,
                    custom_op_calls: dict[str, str] | None = None) -> Iterator[Callable[..., Any]]:
    """For the duration of a trace: `len` and `int` rebound in the modules `fn`
    reaches; yields `fn` wrapped to run under the mode that handles the other idioms
    and calls each op of `decompositions` as its function (above autograd, so a
    custom op with no autograd formula differentiates through its decomposition).
    `custom_op_calls` receives the user's line of each custom op's first call."""
    reached = _reached(fn)
    params = _parameter_subclasses(reached.modules)
    replaced = decomposition_table(decompositions)
    modules = _package_modules(reached.module_names)
    bound: list[tuple[dict[str, Any], str]] = []
    try:
        torch.SymBool.__bool__ = _symbool_bool  # type: ignore[method-assign]
        for module in modules:
            for name, value in (("len", symbolic_len), ("int", symbolic_int)):
                if name not in module.__dict__:
                    module.__dict__[name] = value
                    bound.append((module.__dict__, name))

        calls = {} if custom_op_calls is None else custom_op_calls

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with _IdiomMode(params, replaced, calls), SizeValues():
                return fn(*args, **kwargs)

        with library_calls():
            yield run
    finally:
        torch.SymBool.__bool__ = _SYMBOOL_BOOL  # type: ignore[method-assign]
        for namespace, name in bound:
            namespace.pop(name, None)


def symbolic_len(obj: Any) -> Any:
    """`len()`, with a tensor's length as its (possibly symbolic) dim 0."""
    if isinstance(obj, torch.Tensor) and obj.dim() > 0:
        return obj.shape[0]
    return builtins.len(obj)


class _IntMeta(type):
    """Makes `symbolic_int` behave as `int` everywhere but on a traced tensor."""

    def __call__(cls, x: Any = 0, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            if isinstance(x, torch.SymInt):
                return x
            if isinstance(x, torch.Tensor) and is_fake(x) and _is_integer(x.dtype):
                return x.item()
        return builtins.int(x, *args, **kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, builtins.int)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, builtins.int)

    def __getattr__(cls, name: str) -> Any:
        return getattr(builtins.int, name)


class symbolic_int(metaclass=_IntMeta):  # noqa: N801 - it stands for `int`
    """`int()`, with a traced integer tensor as its (unbacked) value."""


def decomposition_table(decompositions: Decompositions | None) -> dict[Any, Callable[..., Any]]:
    """The user's decompositions keyed as the mode sees ops (an OpOverload or its
    packet; a custom_op by its OpOverload); TypeError for a key that is no op."""
    table = {}
    for op, f in (decompositions or {}).items():
        key = getattr(op, "_opoverload", op)
        if not isinstance(key, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            raise TypeError(f"decompositions: {op!r} is not an op (torch.ops.NS.NAME[.OVERLOAD] or a custom_op)")
        if not callable(f):
            raise TypeError(f"decompositions: the decomposition of {key} is {f!r}, not a function")
        table[key] = f
    return table


def _is_integer(dtype: torch.dtype) -> bool:
    return not dtype.is_floating_point and not dtype.is_complex and dtype != torch.bool


class _IdiomMode(TorchFunctionMode):
    """Handles the idioms that reach torch as a function call (a torch function mode
    sees `Tensor.__bool__`, `tolist` and `torch.tensor` before their Python result)."""

    def __init__(self, params: dict[int, torch.Tensor], decompositions: dict[Any, Callable[..., Any]],
                 calls: dict[str, str]) -> None:
        super().__init__()
        self.params = params
        self.decompositions = decompositions
        self.calls = calls
        """The user's line of the first call of each custom op (its errors name it)."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if self.params:
            args, kwargs = tree_map(self._plain, (args, kwargs))
        if isinstance(func, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            namespace = func.namespace if isinstance(func, torch._ops.OpOverload) else func._qualified_op_name.split("::")[0]
            if namespace not in ("aten", "prims") and str(func) not in self.calls:
                frame = users_frame(None)
                self.calls[str(func)] = f"{frame.filename}:{frame.lineno}" if frame else "?"
            decomposition = self.decompositions.get(func) or self.decompositions.get(getattr(func, "overloadpacket", None))
            if decomposition is not None:
                with self:  # its torch calls see the idioms too
                    return decomposition(*args, **kwargs)
        if func in _DIFFERENTIATED_THROUGH:
            with self:
                return _DIFFERENTIATED_THROUGH[func](*args, **kwargs)
        if func is torch.Tensor.__bool__ and is_fake(args[0]) and statically_known_true(args[0].numel() == 1):
            frame = sys._getframe(1)
            checked = self._check(args[0], frame)
            if checked is not None:
                return checked
            speculations = active()
            if speculations is not None and is_users(frame.f_code.co_filename):
                return speculations.take(args[0].reshape(()).to(torch.bool), frame, True)
        elif func is torch.Tensor.tolist and is_fake(args[0]) and _is_integer(args[0].dtype):
            t = args[0]
            if t.dim() == 0:
                return t.item()
            if t.dim() == 1 and isinstance(t.shape[0], builtins.int):
                return [t[k].item() for k in range(t.shape[0])]
        elif func in (torch.tril_indices, torch.triu_indices) and any(isinstance(a, torch.SymInt) for a in args[:3]):
            return _triangle_indices(func is torch.tril_indices, *args, **kwargs)
        elif func in (torch.tensor, torch.as_tensor) and args and _holds_traced(args[0]):
            return _tensor_of(args[0], kwargs.get("dtype"))
        return func(*args, **kwargs)

    def _plain(self, x: Any) -> Any:
        return self.params.get(id(x), x) if isinstance(x, torch.nn.Parameter) else x

    @staticmethod
    def _check(condition: torch.Tensor, frame: types.FrameType) -> bool | None:
        """A branch on a traced value whose one side raises: assert the other side."""
        branch = raising_branch(frame)
        return None if branch is None else _assert_other_side(condition.reshape(()).to(torch.bool), branch)


def _assert_other_side(condition: torch.Tensor, branch: RaisingBranch) -> bool:
    """Assert at run time that the 0-d bool `condition` takes the side of `branch` that
    does not raise; return that side's truth value, for the trace to go on along it."""
    passes = condition.logical_not() if branch.raises_when else condition
    torch._assert_async(passes, f"{branch.statement} (the check at {branch.where})")
    return not branch.raises_when


_DIFFERENTIATED_THROUGH = {f: _linalg_matrix_exp for f in (torch.matrix_exp, torch.linalg.matrix_exp, torch.Tensor.matrix_exp)}
"""Functions replaced above autograd, so that the gradient is that of their decomposition's
steps: matrix_exp's own backward takes the exp of a block matrix holding the upstream
gradient, whose norm (not the argument's) sets the scaling (4.8e-6 relative error in f64
where the chain rule through the forward's steps is exact)."""

_SYMBOOL_BOOL = torch.SymBool.__bool__


def _symbool_bool(self: torch.SymBool) -> bool:
    """`bool()` of a size condition that guards a raise (`if len(a) != 2 * len(b): raise`):
    unless it holds or fails at every size, a run-time check of the sizes, not a guard
    (a guard would pin the sizes, or fail on sizes that depend on data). A branch of the
    user's on a size from data whose sides both compute: a speculation."""
    if not (statically_known_true(self) or statically_known_true(torch.sym_not(self))):
        frame = sys._getframe(1)
        branch = raising_branch(frame)
        if branch is not None:
            return _assert_other_side(torch.scalar_tensor(self, dtype=torch.bool), branch)
        speculations = active()
        if (speculations is not None and is_users(frame.f_code.co_filename)
                and free_unbacked_symbols(self.node.expr)):
            return speculations.take(torch.scalar_tensor(self, dtype=torch.bool), frame, size_guess(self))
    return _SYMBOOL_BOOL(self)


def _triangle_indices(lower: bool, row: Any, col: Any, offset: Any = 0, **options: Any) -> torch.Tensor:
    """`tril_indices`/`triu_indices` of a symbolic size (their schema takes Python ints):
    the row-major nonzeros of the triangle's mask, which is the order torch returns."""
    i = torch.arange(row, device=options.get("device"))[:, None]
    j = torch.arange(col, device=options.get("device"))[None, :]
    mask = (j - i <= offset) if lower else (j - i >= offset)
    return mask.nonzero().t().to(options.get("dtype") or torch.long)


def _holds_traced(data: Any) -> bool:
    if isinstance(data, (list, tuple)):
        return any(_holds_traced(d) for d in data)
    if isinstance(data, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return True
    return isinstance(data, torch.Tensor) and is_fake(data) and data.dim() == 0


def _tensor_of(data: Any, dtype: torch.dtype | None) -> torch.Tensor:
    """torch.tensor over a nested list of numbers and 0-d tensors: the values read
    (detached), in the dtype torch.tensor infers (tensors keep theirs, Python ints
    are int64, floats the default dtype, promoted together)."""
    leaves: list[Any] = []

    def flat(d: Any) -> None:
        if isinstance(d, (list, tuple)):
            for e in d:
                flat(e)
        else:
            leaves.append(d)

    flat(data)
    if dtype is None:
        dtype = functools.reduce(torch.promote_types, (_scalar_dtype(x) for x in leaves))

    def build(d: Any) -> torch.Tensor:
        if isinstance(d, (list, tuple)):
            return torch.stack([build(e) for e in d])
        if isinstance(d, torch.Tensor):
            return d.detach().to(dtype)
        if isinstance(d, (torch.SymInt, torch.SymFloat, torch.SymBool)):  # a size: torch.tensor would pin it
            return torch.scalar_tensor(d, dtype=dtype)
        return torch.tensor(d, dtype=dtype)

    return build(data)


def _scalar_dtype(x: Any) -> torch.dtype:
    if isinstance(x, torch.Tensor):
        return x.dtype
    if isinstance(x, (bool, torch.SymBool)):
        return torch.bool
    if isinstance(x, (builtins.int, torch.SymInt)):
        return torch.int64
    if isinstance(x, complex):
        return torch.complex64 if torch.get_default_dtype() == torch.float32 else torch.complex128
    return torch.get_default_dtype()


@dataclass
class _Reached:
    """What a function reaches: its nn.Modules, and the names of the Python modules
    that define its code and its objects' classes."""

    modules: list[torch.nn.Module] = field(default_factory=list)
    module_names: set[str] = field(default_factory=set)


def _reached(fn: Callable[..., Any]) -> _Reached:
    """Walk functions' globals and closures, bound methods, partials, containers,
    objects' attributes and nn.Modules from `fn` (bounded: a closure may hold a large
    Python data structure)."""
    seen: set[int] = set()
    found = _Reached()
    stack: list[Any] = [fn]
    while stack and len(seen) < _MAX_OBJECTS:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (str, bytes, builtins.int, float, torch.Tensor)):
            continue
        seen.add(id(obj))
        try:
            stack.extend(_step(obj, found))
        except Exception:  # noqa: BLE001 - an object that refuses inspection holds nothing we need
            continue
    return found


_MAX_OBJECTS = 200_000


def _step(obj: Any, found: _Reached) -> list[Any]:
    """Record what `obj` contributes; return what it holds."""
    names = found.module_names
    if isinstance(obj, types.ModuleType):
        names.add(obj.__name__)
        return []
    if isinstance(obj, torch.nn.Module):
        held = []
        for m in obj.modules():
            found.modules.append(m)
            names.update(c.__module__ for c in type(m).__mro__)
            held.extend(v for v in vars(m).values() if not isinstance(v, (dict, torch.nn.Module)))
        return held
    if isinstance(obj, functools.partial):
        return [obj.func, *obj.args, *obj.keywords.values()]
    if inspect.ismethod(obj):
        return [obj.__func__, obj.__self__]
    if isinstance(obj, types.FunctionType):
        names.add(obj.__module__ or "")
        names.update(n for n in _names(obj.__code__) if n in sys.modules)  # its imports inside
        held = [obj.__globals__[n] for n in _names(obj.__code__) if n in obj.__globals__]
        held.extend(c.cell_contents for c in obj.__closure__ or () if _filled(c))
        return held + list(obj.__defaults__ or ())
    if isinstance(obj, type):
        names.update(c.__module__ for c in obj.__mro__)
        return []
    if type(obj) in (list, tuple, set, frozenset):
        return list(obj)
    if type(obj) is dict:
        return list(obj.values())
    if hasattr(obj, "__dict__") and not isinstance(obj, types.BuiltinFunctionType):
        names.add(type(obj).__module__)
        return list(vars(obj).values())
    return []


def _parameter_subclasses(modules: list[torch.nn.Module]) -> dict[int, torch.Tensor]:
    """Each parameter of a strict `nn.Parameter` subclass among `modules`, by id, as a
    plain tensor over the same storage and autograd history."""
    plain = {}
    for module in modules:
        for p in module.parameters():
            if type(p) is not torch.nn.Parameter and id(p) not in plain:
                with torch._C.DisableTorchFunctionSubclass():
                    plain[id(p)] = p.as_subclass(torch.Tensor)
    return plain


def _package_modules(module_names: set[str]) -> list[types.ModuleType]:
    """The loaded modules of every package among `module_names`, except the standard
    library's, torch's and ours."""
    packages = {_top(name) for name in module_names} - _OURS - set(sys.stdlib_module_names)
    return [m for name, m in list(sys.modules.items())
            if isinstance(m, types.ModuleType) and _top(name) in packages and isinstance(getattr(m, "__dict__", None), dict)]


def _top(name: str) -> str:
    return name.split(".", 1)[0]


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
