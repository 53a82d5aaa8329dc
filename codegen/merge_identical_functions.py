"""Keep one of each set of identical outlined functions: `@f_par5` -> `@f_par3`.

A model repeats itself: Allegro's and NequIP's layers, or a forward nest and its
mirror in the gradient, run the same loops over other buffers. outline-parallel-loops
gives each loop its own function and launcher, and since buffers and sizes are
arguments, many of them are identical: a quarter to a third of the llvm stage's code
for NequIP, Allegro and MACE (34, 43 and 70 functions). Each copy would go through
every later pass, LLVM's O3 and instruction selection.

A private function is a copy of an earlier one when their types, attributes (but the
name) and bodies (up to SSA names; xDSL's `is_structurally_equivalent`) are the same.
A copy is erased and every reference to it (calls, a launcher's `codegen.launch`)
names the first. Launcher declarations whose bodies merged become identical in turn
(same type, `codegen.launch` and `codegen.min_chunk`) and merge the same way; other
declarations never do (two private `(f64) -> f64` declarations may be `@sin` and
`@cos`). Public functions keep their names: callers outside the module use them.

Runs right after outline-parallel-loops.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass


def _mergeable(f: func.FuncOp) -> bool:
    return f.sym_visibility is not None and f.sym_visibility.data == "private" and (
        not f.is_declaration or "codegen.launch" in f.attributes)


def _shape(f: func.FuncOp) -> Hashable:
    """A cheap key that identical functions share: type, attributes, op names."""
    props = tuple(sorted((k, v) for k, v in f.properties.items() if k != "sym_name"))
    attrs = tuple(sorted(f.attributes.items()))
    return props, attrs, tuple(o.name for o in f.body.walk())


def _identical(a: func.FuncOp, b: func.FuncOp) -> bool:
    return a.body.is_structurally_equivalent(b.body)


def _rename_uses(module: builtin.ModuleOp, renames: dict[str, str]) -> None:
    """Every top-level symbol reference to a key of `renames` names its value."""

    def renamed(value: Attribute) -> Attribute | None:
        if isinstance(value, builtin.SymbolRefAttr) and not value.nested_references.data:
            new = renames.get(value.root_reference.data)
            return builtin.SymbolRefAttr(new) if new else None
        return None

    for op in module.walk():
        for table in (op.properties, op.attributes):
            for key, value in table.items():
                if (new := renamed(value)) is not None:
                    table[key] = new


class MergeIdenticalFunctionsPass(ModulePass):
    name = "merge-identical-functions"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        while self._merge_once(op):  # merged bodies make their launchers identical
            pass

    @staticmethod
    def _merge_once(module: builtin.ModuleOp) -> bool:
        groups: dict[Hashable, list[func.FuncOp]] = defaultdict(list)
        renames: dict[str, str] = {}
        copies: list[Operation] = []
        for f in module.ops:
            if not isinstance(f, func.FuncOp) or not _mergeable(f):
                continue
            kept = groups[_shape(f)]
            first = next((k for k in kept if _identical(k, f)), None)
            if first is None:
                kept.append(f)
            else:
                renames[f.sym_name.data] = first.sym_name.data
                copies.append(f)
        if not renames:
            return False
        for f in copies:
            module.body.block.erase_op(f)
        _rename_uses(module, renames)
        return True
