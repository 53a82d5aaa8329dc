"""Which side of a data-dependent branch raises: `if (z == 1234).any(): raise ...`
and `assert (r > 0).all()` are checks, not control flow. Capture asks the caller's
bytecode whether one successor of the conditional jump that converts the tensor to
a bool runs straight into a `raise`: no other branch, loop, return or yield on the
way (the message may be computed, and locals stored, first: graph-pes computes the
unknown elements it names). Only then the branch becomes a run-time assertion of the
graph and the trace goes on along the other side, as eager does whenever the check
passes; what the raising side computes never runs in the compiled code, and when the
check fails the compiled code raises too."""

from __future__ import annotations

import dis
import linecache
from dataclasses import dataclass
from functools import cache
from types import CodeType, FrameType

_STRAIGHT = {
    "CACHE", "NOP", "PUSH_NULL", "PRECALL", "CALL", "KW_NAMES", "CALL_FUNCTION_EX",
    "LOAD_CONST", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_GLOBAL", "LOAD_NAME",
    "LOAD_ATTR", "LOAD_METHOD", "LOAD_ASSERTION_ERROR", "BUILD_STRING", "BUILD_TUPLE",
    "BUILD_LIST", "BUILD_MAP", "BUILD_CONST_KEY_MAP", "LIST_EXTEND", "LIST_APPEND",
    "DICT_MERGE", "DICT_UPDATE", "FORMAT_VALUE", "BINARY_OP", "BINARY_SUBSCR",
    "UNARY_NEGATIVE", "UNARY_NOT", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "COPY", "SWAP",
    "EXTENDED_ARG", "JUMP_FORWARD", "POP_TOP", "BUILD_SLICE", "BUILD_SET", "SET_ADD", "SET_UPDATE",
    "MAP_ADD", "MAKE_FUNCTION", "GET_ITER", "UNPACK_SEQUENCE", "UNPACK_EX", "BEFORE_WITH",
    "STORE_FAST", "STORE_DEREF", "STORE_NAME", "STORE_GLOBAL", "STORE_ATTR", "STORE_SUBSCR",
    "DELETE_FAST", "DELETE_DEREF", "DELETE_NAME", "DELETE_ATTR", "DELETE_SUBSCR",
}
"""Instructions that may lie between the jump and the `raise`: they load, compute and
store (the exception, its message), and call (a call that raises still raises); none
of them can leave the path (a comprehension's loop is a code object of its own)."""


@dataclass(frozen=True)
class RaisingBranch:
    """A conditional jump one of whose sides raises."""

    raises_when: bool
    """The truth value of the tested object that leads to the raise."""
    statement: str
    """The raising statement's source line (`raise ValueError(...)`, `assert ...`)."""
    where: str
    """`file:line` of the test."""


def raising_branch(frame: FrameType) -> RaisingBranch | None:
    """The branch the frame is taking at its current instruction, if that is a
    conditional jump with exactly one side that raises."""
    found = _branches(frame.f_code).get(frame.f_lasti)
    if found is None:
        return None
    raises_when, line = found
    text = linecache.getline(frame.f_code.co_filename, line).strip() if line else ""
    return RaisingBranch(raises_when, text or "raise", f"{frame.f_code.co_filename}:{frame.f_lineno}")


@cache
def _branches(code: CodeType) -> dict[int, tuple[bool, int | None]]:
    """For each conditional jump of `code` with exactly one raising side: the truth
    value leading to the raise and the line of the `raise` (cached per code object)."""
    instructions = list(dis.get_instructions(code))
    at = {ins.offset: k for k, ins in enumerate(instructions)}
    found = {}
    for k, ins in enumerate(instructions):
        name = ins.opname
        if "JUMP" not in name or not name.endswith(("IF_TRUE", "IF_FALSE")) or "OR_POP" in name:
            continue
        jumps_when = name.endswith("IF_TRUE")
        taken = _raises(instructions, at.get(ins.argval), at)
        fallthrough = _raises(instructions, k + 1, at)
        if (taken is None) == (fallthrough is None):
            continue
        found[ins.offset] = (jumps_when, taken) if taken is not None else (not jumps_when, fallthrough)
    return found


def _raises(instructions: list[dis.Instruction], k: int | None, at: dict[int, int]) -> int | None:
    """The line of the `raise` that the code from instruction `k` runs straight into,
    following unconditional forward jumps; None if anything else can happen first."""
    seen = set()
    while k is not None and k < len(instructions) and k not in seen:
        seen.add(k)
        ins = instructions[k]
        if ins.opname == "RAISE_VARARGS":
            return ins.positions.lineno if ins.positions else ins.starts_line
        if ins.opname not in _STRAIGHT:
            return None
        k = at.get(ins.argval) if ins.opname == "JUMP_FORWARD" else k + 1
    return None
