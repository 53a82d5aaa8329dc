"""Remove in-place ops from a captured FX graph by rewriting it, without a retrace.

An in-place op becomes its functional twin (`copy_` -> `copy`, `scatter_add_` ->
`scatter_add`), a write through a view becomes a scatter of the new view into its
base (`slice` -> `slice_scatter`, `select` -> `select_scatter`, ...), and every later
read of the base, or of a view of it taken before the write, reads the new value (the
view is taken again from the new base). This is what `torch.func.functionalize`
computes, but it gets there by tracing the whole graph again under fake tensors,
which costs as much as the first trace (NequIP: 2.3 of the 7 s of its capture).

Only aliasing the rewrite can follow is accepted: bases made inside the graph (not an
input or a weight: those would need their writes copied back), views from `_VIEWS`,
ops whose one mutated argument is the first. Anything else raises `Unsupported`, and
the caller traces again with torch's functionalization.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any

import torch
import torch.fx
from torch._ops import OpOverload
from torch._subclasses.fake_tensor import FakeTensorMode

aten = torch.ops.aten


class Unsupported(Exception):
    """Aliasing the rewrite cannot follow (the caller retraces instead)."""


def _inverse_permutation(dims: list[int]) -> list[int]:
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return inverse


_VIEWS: dict[OpOverload, Callable[[tuple[Any, ...]], tuple[OpOverload, Callable[[Any, Any], tuple[Any, ...]]]]] = {
    aten.slice.Tensor: lambda a: (aten.slice_scatter.default, lambda base, src: (base, src, *a)),
    aten.select.int: lambda a: (aten.select_scatter.default, lambda base, src: (base, src, *a)),
    aten.alias.default: lambda a: (aten.alias.default, lambda base, src: (src,)),
    aten.permute.default: lambda a: (aten.permute.default, lambda base, src: (src, _inverse_permutation(list(a[0])))),
    aten.diagonal.default: lambda a: (aten.diagonal_scatter.default, lambda base, src: (base, src, *a)),
    aten.unsqueeze.default: lambda a: (aten.squeeze.dims, lambda base, src: (src, [a[0]])),
}
"""View op -> (given its arguments after `self`) the op and arguments that put a new
value of the view back into the tensor it was taken from."""


def _functional_twin(op: OpOverload) -> OpOverload:
    """`name_.overload` -> the overload of `name` that takes the same arguments (names
    and types: `pow_.Scalar` is `pow.Tensor_Scalar`) and mutates nothing, when `op`
    mutates exactly its first argument and returns it."""
    schema = op._schema
    written = [i for i, a in enumerate(schema.arguments) if a.alias_info is not None and a.alias_info.is_write]
    name = schema.name.split("::")[-1]
    if written != [0] or not name.endswith("_") or len(schema.returns) != 1:
        raise Unsupported(f"{op}: not an in-place op on its first argument")
    signature = [(a.name, str(a.type)) for a in schema.arguments]
    packet = getattr(aten, name[:-1], None)
    for overload in packet.overloads() if packet is not None else []:
        twin = getattr(packet, overload)
        if not twin._schema.is_mutable and [(a.name, str(a.type)) for a in twin._schema.arguments] == signature:
            return twin
    raise Unsupported(f"{op}: no functional twin with the same arguments")


def mutates(node: torch.fx.Node) -> bool:
    """An op that writes into one of its arguments (in-place, out=)."""
    return isinstance(node.target, OpOverload) and node.target._schema.is_mutable


def _is_alias(node: torch.fx.Node) -> bool:
    """A non-mutating op whose result shares memory with an argument (a view; in aten
    always its first: `self`, or the list of a split's pieces)."""
    if node.target is operator.getitem:
        return True
    if not isinstance(node.target, OpOverload):
        return False
    returns = node.target._schema.returns
    return any(r.alias_info is not None for r in returns)


class _Rewrite:
    def __init__(self, graph: torch.fx.Graph, mode: FakeTensorMode):
        self.graph = graph
        self.mode = mode
        self.base_of: dict[torch.fx.Node, torch.fx.Node] = {}
        """A tensor made in the graph, or a value written into it, -> that tensor."""
        self.current: dict[torch.fx.Node, torch.fx.Node] = {}
        """A base -> the node holding its value now."""
        self.views: dict[torch.fx.Node, tuple[torch.fx.Node, list[torch.fx.Node] | None, torch.fx.Node]] = {}
        """A view -> (its base, the view ops from the base to it (None: one is not
        in _VIEWS), the base's value it was taken from)."""
        self.written: dict[torch.fx.Node, torch.fx.Node] = {}
        """An in-place op -> the argument it wrote (its result aliases it)."""
        self.retaken: dict[torch.fx.Node, tuple[torch.fx.Node, torch.fx.Node]] = {}
        """A view read after a write to its base -> (that base value, the view taken again)."""
        self.inputs: set[torch.fx.Node] = set()

    def run(self) -> None:
        for node in list(self.graph.nodes):
            if node.op in ("placeholder", "get_attr"):
                self.inputs.add(node)
                self.base_of[node] = self.current[node] = node
                continue
            for a in node.all_input_nodes:
                now = self.value(a, before=node)
                if now is not a:
                    node.replace_input_with(a, now)
            if node.op != "call_function":
                continue
            if mutates(node):
                self.write(node)
            elif _is_alias(node):
                base, chain, version = self.alias_of(node.args[0])
                known = chain is not None and node.target in _VIEWS and not node.kwargs  # inverses take args
                self.views[node] = (base, [*chain, node] if known else None, version)  # type: ignore[misc]
            else:
                self.base_of[node] = self.current[node] = node
        for node in self.written:
            self.graph.erase_node(node)

    def alias_of(self, value: Any) -> tuple[torch.fx.Node, list[torch.fx.Node] | None, torch.fx.Node]:
        """(base, view chain, base version) of a value already read through `value()`."""
        if value in self.views:
            return self.views[value]
        if value in self.base_of:
            base = self.base_of[value]
            return base, [], self.current[base]
        raise Unsupported(f"{value}: a view of something that is not a tensor of the graph")

    def value(self, node: torch.fx.Node, before: torch.fx.Node) -> torch.fx.Node:
        """The node holding `node`'s value at `before` (after the writes so far)."""
        while node in self.written:
            node = self.written[node]
        if node in self.views:
            base, chain, version = self.views[node]
            now = self.current[base]
            if now is version:
                return node
            if node in self.retaken and self.retaken[node][0] is now:
                return self.retaken[node][1]
            if chain is None:
                raise Unsupported(f"{node.target}: a view, read after a write to its base, that cannot be taken again")
            taken: list[torch.fx.Node] = []
            for view in chain:  # the view again, from the base's new value
                taken.append(self.emit(view.target, (taken[-1] if taken else now, *view.args[1:]), view.kwargs, before, view))
                self.views[taken[-1]] = (base, list(taken), now)
            self.retaken[node] = (now, taken[-1])
            return taken[-1]
        if node in self.base_of:
            return self.current[self.base_of[node]]
        return node

    def write(self, node: torch.fx.Node) -> None:
        twin = _functional_twin(node.target)  # type: ignore[arg-type]
        if node.kwargs.get("out") is not None:
            raise Unsupported(f"{node.target}: an out= argument")
        target = node.args[0]
        base, chain, _ = self.alias_of(target)
        if base in self.inputs:
            raise Unsupported(f"{node.target} writes into the input or weight {base.name}")
        if chain is None:
            raise Unsupported(f"{node.target} writes through a view that cannot be inverted")
        new = self.emit(twin, node.args, node.kwargs, node, node)
        was, now = target.meta["val"], new.meta["val"]
        if str(now.shape) != str(was.shape):  # as expressions: comparing SymInts would add guards
            raise Unsupported(f"{node.target}: its functional twin changes the shape")
        if now.dtype != was.dtype:  # an in-place op keeps its tensor's dtype
            new = self.emit(aten._to_copy.default, (new,), {"dtype": was.dtype}, node, node)
        for view in reversed(chain):  # scatter the new view into what it was taken from
            scatter, args = _VIEWS[view.target](view.args[1:])  # type: ignore[index]
            new = self.emit(scatter, args(view.args[0], new), {}, node, node)
        self.base_of[new] = base
        self.current[base] = new
        self.written[node] = target

    def emit(self, target: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any],
             before: torch.fx.Node, source: torch.fx.Node) -> torch.fx.Node:
        """A new node before `before`, with its fake value and `source`'s stack trace."""
        with self.graph.inserting_before(before):
            new = self.graph.create_node("call_function", target, tuple(args), dict(kwargs),
                                         name=target.overloadpacket.__name__)  # `copy`, as make_fx names it
        new.meta = {k: v for k, v in source.meta.items() if k != "val"}
        fake_args, fake_kwargs = torch.fx.node.map_arg((new.args, new.kwargs), lambda n: n.meta["val"])
        with self.mode:
            new.meta["val"] = target(*fake_args, **fake_kwargs)
        return new


def functionalize(graph: torch.fx.GraphModule, mode: FakeTensorMode) -> torch.fx.GraphModule:
    """A copy of `graph` without in-place ops (the nodes keep their fake values and
    stack traces); raises `Unsupported` for aliasing it cannot follow."""
    rewritten = copy.deepcopy(graph.graph)  # node by node, metadata shared
    _Rewrite(rewritten, mode).run()
    rewritten.eliminate_dead_code()
    rewritten.lint()
    return torch.fx.GraphModule(graph, rewritten)
