"""How a case is compiled and called: the binding forms a user may choose.

`pipeline.compile` takes its example arguments as a list or as a dict (in any key
order), `dynamic_shapes` as a list or as a dict keyed by name, and the compiled
function is called by position, by keyword (in any order) or mixed. Every form must
bind the same tensors to the same parameters, so each case draws a `Plan` of forms
(it shrinks toward the plain ones) and runs every call form: a binding defect shows
as one form disagreeing with the others, or with the plain forms' compile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.tools.fuzz.programs import ARGS

SYMBOLS = {"pos": (0, "N"), "edge_index": (1, "E"), "triplets": (1, "T")}
"""Each argument's dynamic dim and its size symbol."""


@dataclass(frozen=True)
class Plan:
    """How a case is compiled and called. The defaults are the plain forms: the
    example arguments as a list in the signature's order, `dynamic_shapes` as a dict
    keyed by name; every case also calls by position, by keyword and mixed."""

    example: tuple[str, ...] | None = None
    """None: the example arguments as a list (in the signature's order); else a dict
    in this key order."""
    shapes: tuple[str, ...] | None = ARGS
    """`dynamic_shapes` as a dict keyed by name, in this key order; None: as a list
    (in the order of the example arguments: the dict's, when they are a dict)."""
    keywords: tuple[str, ...] = ARGS
    """The order of the keyword arguments of the call by keyword (and of the mixed
    call's keywords)."""
    mixed: int = 1
    """The mixed call passes this many arguments by position, the rest by keyword."""
    export: bool = False
    """Export the library too, and call it (`pipeline.load_library`) next to the JIT."""

    @property
    def plain(self) -> bool:
        """Compiled from the plain forms (a list, a dict of dynamic shapes by name)."""
        return self.example is None and self.shapes is not None

    def compile_text(self, signature: Sequence[str]) -> str:
        order = self.example or tuple(signature)
        example = ("a dict {" + ", ".join(f"'{n}': ..." for n in order) + "}" if self.example
                   else "a list [" + ", ".join(order) + "]")
        shapes = ("a dict {" + ", ".join(f"'{n}': {{{SYMBOLS[n][0]}: {SYMBOLS[n][1]}}}" for n in self.shapes) + "}"
                  if self.shapes else "a list [" + ", ".join(f"{{{SYMBOLS[n][0]}: {SYMBOLS[n][1]}}}" for n in order)
                  + "]")
        return f"example args {example}, dynamic_shapes {shapes}"


def draw_plan(draw: Callable[[Any], Any]) -> Plan:
    """A random plan; each field shrinks toward the plain form."""
    from hypothesis import strategies as st

    order = st.permutations(ARGS).map(tuple)
    example = draw(order) if draw(st.booleans()) else None  # (hypothesis shrinks st.none() | ... to None)
    shapes = None if draw(st.booleans()) else draw(order)
    return Plan(example=example, shapes=shapes, keywords=draw(order),
                mixed=draw(st.integers(1, len(ARGS) - 1)),
                export=draw(st.sampled_from([False, False, False, True])))


def call_forms(signature: Sequence[str], plan: Plan) -> dict[str, Callable[[Any, dict[str, Any]], Any]]:
    """Ways to call a compiled function `f` on named inputs: positional first."""
    head = list(signature[:plan.mixed])
    rest = [n for n in plan.keywords if n not in head]
    return {
        f"f({', '.join(signature)})": lambda f, a: f(*(a[n] for n in signature)),
        f"f({', '.join(f'{n}=' for n in plan.keywords)})": lambda f, a: f(**{n: a[n] for n in plan.keywords}),
        f"f({', '.join(head + [f'{n}=' for n in rest])})":
            lambda f, a: f(*(a[n] for n in head), **{n: a[n] for n in rest}),
    }

