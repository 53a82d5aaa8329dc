"""C text for the exported library: the templates of `templates/` filled with
string.Template (`fill`), and Python values spelled in C: string and number literals,
sizes as integer expressions, comments, wrapped lists."""

from __future__ import annotations

import functools
import re
import string
import textwrap
from pathlib import Path

import sympy
import torch

TEMPLATES = Path(__file__).with_name("templates")
"""The C templates: the library's header and ABI layer, the potential's entry point."""

_BLOCK = re.compile(r"^([^\n$]*)\$\{(\w+)\}\n", re.MULTILINE)


@functools.cache
def template(name: str) -> str:
    return (TEMPLATES / name).read_text()


def fill(name: str, **values: str | int | list[str]) -> str:
    """`templates/<name>` with its `${placeholders}` filled by string.Template.

    A value is text (or a number), or a list of items for a block: a placeholder that ends
    its line repeats the line's lead (its indentation, or ` *   ` in a comment) before each
    line of each item, and an empty list drops the line. Every placeholder needs a value and
    every value a placeholder, so a template and its caller cannot drift apart silently.
    """
    mapping = {k: str(v) for k, v in values.items() if not isinstance(v, list)}
    blocks: set[str] = set()

    def block(m: re.Match[str]) -> str:
        lead, key = m[1], m[2]
        if not isinstance(values.get(key), list):
            return m[0]
        blocks.add(key)
        slot = f"_block{len(mapping)}"  # a value of its own: the lead differs between uses
        mapping[slot] = "".join(f"{lead}{line}".rstrip() + "\n" for item in values[key]
                                for line in item.removesuffix("\n").split("\n"))
        return f"${{{slot}}}"

    filled = string.Template(_BLOCK.sub(block, template(name)))
    unused = values.keys() - blocks - set(filled.get_identifiers())
    if unused:
        raise ValueError(f"templates/{name} has no placeholder for {', '.join(sorted(unused))}")
    return filled.substitute(mapping)


def comment(text: str) -> str:
    """Text that cannot end the C comment it is written in."""
    return text.replace("*/", "* /")


def c_string(text: str) -> str:
    """A C string literal of `text`'s UTF-8 bytes: printable ASCII as is, the rest octal."""
    return '"' + "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else f"\\{b:03o}" for b in text.encode()) + '"'


def c_literal(value: float | int | bool, dtype: torch.dtype) -> str:
    """An exact C literal of an element of `dtype`."""
    if dtype in (torch.float32, torch.float64):
        suffix = "f" if dtype == torch.float32 else ""
        v = float(value)
        if v != v:
            return "NAN"
        if v in (float("inf"), float("-inf")):
            return ("-" if v < 0 else "") + "INFINITY"
        return v.hex() + suffix  # exact: every float32 is a double
    v = int(value)
    if dtype == torch.int64 and v == -(2**63):
        return "INT64_MIN"
    return f"INT64_C({v})" if dtype == torch.int64 else str(v)


def c_dim(d: int | sympy.Expr, index: dict[str, int]) -> str:
    """A dim as C integer arithmetic over `sizes[k]` (`index`: size symbol -> k): a
    constant, or the symbolic expression of the signature record (sizes are >= 0, so C's
    `/` and `%` are floor division and modulo)."""
    if isinstance(d, int):
        return f"INT64_C({d})"
    return f"(int64_t)({_c_expr(d, index)})"


_FUNCTIONS = {"FloorDiv": "({0} / {1})", "CeilDiv": "(({0} + {1} - 1) / {1})", "Mod": "({0} % {1})",
              "PythonMod": "({0} % {1})"}
"""torch's integer functions in sizes, in C (over sizes >= 0)."""


def _c_expr(e: sympy.Basic, index: dict[str, int]) -> str:
    name = type(e).__name__
    args = [_c_expr(a, index) for a in e.args]
    if isinstance(e, sympy.Symbol):
        return f"sizes[{index[e.name]}]"
    if isinstance(e, sympy.Integer):
        return f"INT64_C({int(e)})"
    if isinstance(e, sympy.Add):
        return "(" + " + ".join(args) + ")"
    if isinstance(e, sympy.Mul):
        return "(" + " * ".join(args) + ")"
    if isinstance(e, sympy.Pow) and isinstance(e.exp, sympy.Integer) and int(e.exp) > 0:
        return "(" + " * ".join([args[0]] * int(e.exp)) + ")"
    if name in _FUNCTIONS:
        return _FUNCTIONS[name].format(*args)
    if name in ("Max", "Min"):
        op = ">" if name == "Max" else "<"
        out = args[0]
        for a in args[1:]:
            out = f"({out} {op} {a} ? {out} : {a})"
        return out
    raise ValueError(f"the size expression {e} has no C form here ({name})")


def wrap(items: list[str], indent: str) -> str:
    """`items` joined by commas, in lines of at most 100 characters after the first."""
    return textwrap.fill(", ".join(items), width=100, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


__all__ = ["TEMPLATES", "c_dim", "c_literal", "c_string", "comment", "fill", "template", "wrap"]
