"""Split a module, after the outlining passes and merge-identical-functions, into
parts lowered and compiled apart.

The llvm stage's conversions and LLVM's optimization and code generation cost time in
proportion to the code, function by function, so parts of a module can go through
them at the same time (in forked processes: xDSL holds the GIL, and llvmlite
serializes its calls). After `outline-parallel-loops` each parallel loop is a
function of its own, `@f_parK`, reached only through the `codegen.launch` attribute
of its launcher's declaration; after `outline-serial-nests` each larger serial nest
is one too, `@f_serK` (marked `codegen.serial`), called from the entry point. The
rest (the entry points and their small serial loops) stays together.

    parts = plan(module, 2)          # [{entry points, f_par0, f_par0_launch, ...}, {f_par1, f_ser0, ...}]
    restrict(module, parts[k])       # in part k's process

`restrict` erases what another part defines, leaves a launcher whose loop is elsewhere
and a serial nest defined elsewhere a plain declaration (the linker finds them in the
other part's object), and marks a launcher whose callers are elsewhere
`codegen.exported`, so `define-parallel-launchers` gives it external linkage instead
of internal (a serial nest called from elsewhere becomes public). Each part gets its
own copies of the helpers the later passes define (libgomp glue, integer powers):
internal, so they never clash.
"""

from __future__ import annotations

from xdsl.dialects import builtin, func

from codegen.outline_serial_nests import SERIAL

EXPORTED = "codegen.exported"
"""Set on a launcher defined in one part and called from another."""


def _launched(module: builtin.ModuleOp) -> dict[str, list[str]]:
    """{outlined loop: its launchers} of the module's launcher declarations (several when
    merge-identical-functions merged loops launched with different chunk sizes)."""
    launched: dict[str, list[str]] = {}
    for op in module.ops:
        if isinstance(op, func.FuncOp) and "codegen.launch" in op.attributes:
            loop = op.attributes["codegen.launch"].root_reference.data  # type: ignore[union-attr]
            launched.setdefault(loop, []).append(op.sym_name.data)
    return launched


def plan(module: builtin.ModuleOp, parts: int, min_ops: int = 1, extra: float = 0.0) -> list[set[str]]:
    """The functions each of at most `parts` parts defines: part 0 the entry points
    and everything that is not an outlined loop; the loops dealt out largest first to
    the smallest part (by op count), each with its launchers, so that every part gets
    at least `min_ops` ops of loops. Part 0 counts `extra` times the module's ops more
    (the work its process has besides: it joins the others). One part when the module
    is not split: fewer than two loops, anything but functions at the top, or a loop
    that calls a function."""
    launched = _launched(module)
    size: dict[str, int] = {}
    for op in module.ops:
        if not isinstance(op, func.FuncOp):
            return [{o.sym_name.data for o in module.ops if isinstance(o, func.FuncOp)}]  # type: ignore[union-attr]
        name = op.sym_name.data
        if SERIAL in op.attributes and not op.is_declaration:
            launched.setdefault(name, [])  # dealt like a loop, with no launcher
        if name in launched and any(isinstance(o, func.CallOp) for o in op.walk()):
            parts = 1
        size[name] = sum(1 for _ in op.walk())
    loops = sorted(launched, key=lambda name: -size[name])
    parts = max(1, min(parts, len(loops), sum(size[n] for n in loops) // max(min_ops, 1)))
    groups = [set(size) - set(loops) - {n for names in launched.values() for n in names}]
    groups += [set() for _ in range(parts - 1)]
    load = [sum(size[n] for n in groups[0]) + extra * sum(size.values())] + [0.0] * (parts - 1)
    for name in loops:
        k = min(range(parts), key=load.__getitem__)
        groups[k] |= {name, *launched[name]}
        load[k] += size[name]
    return groups


def restrict(module: builtin.ModuleOp, keep: set[str]) -> set[str]:
    """Keep the definitions of the functions named in `keep` (one part of `plan`);
    returns those other parts call (launchers marked `codegen.exported`, serial nests
    made public)."""
    launched = _launched(module)
    callers: dict[str, set[str]] = {}
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data not in launched:
            for call in op.walk():
                if isinstance(call, func.CallOp):
                    callers.setdefault(call.callee.root_reference.data, set()).add(op.sym_name.data)
    exported: set[str] = set()
    for op in list(module.ops):
        assert isinstance(op, func.FuncOp)
        name = op.sym_name.data
        if "codegen.launch" in op.attributes:
            if name not in keep:
                del op.attributes["codegen.launch"], op.attributes["codegen.min_chunk"]
            elif not callers.get(name, set()) <= keep:
                op.attributes[EXPORTED] = builtin.UnitAttr()
                exported.add(name)
        elif SERIAL in op.attributes and not op.is_declaration:
            if name not in keep:  # called from this part's entry: declared
                inputs, outputs = op.function_type.inputs.data, op.function_type.outputs.data
                module.body.block.insert_op_before(func.FuncOp.external(name, inputs, outputs), op)
                module.body.block.erase_op(op)
            elif not callers.get(name, set()) <= keep:
                op.sym_visibility = builtin.StringAttr("public")
                exported.add(name)
        elif name not in keep and not op.is_declaration:
            module.body.block.erase_op(op)
    return exported


__all__ = ["EXPORTED", "plan", "restrict"]
