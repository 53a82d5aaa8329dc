"""The house's import rules, read off the source (imports inside functions included):
stages import only from stages above them; above the stages, the rooms import
downwards only: the compiler's API (`pipeline/`), then deployment (`pipeline/deploy/`),
then the MD integrations (`pipeline/md/`), then the tools (`pipeline/tools/`) and the
driver, which nothing in the library imports; nothing in the library imports `bench/`
or `examples/`; and no import cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGES = ["frontend", "dialects", "transforms", "codegen", "pipeline"]
ABOVE = {
    "dialects": set(),
    "frontend": {"dialects"},
    "transforms": {"dialects", "frontend"},
    "codegen": {"dialects", "transforms"},
}
"""What each stage may import of ours (`pipeline/` may import every stage)."""
ROOMS = ["pipeline", "pipeline.deploy", "pipeline.md", "pipeline.tools", "pipeline.__main__"]
"""The rooms above the stages, each importing only from those before it (and itself)."""
LAZY = {("dialects.tensorexpr", "dialects.tensorexpr_canonicalization")}
"""xDSL's idiom: a dialect's ops import their canonicalization patterns when asked for
them (`get_canonicalization_patterns`), and the patterns import the ops."""


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(outside: bool = False) -> dict[str, set[str]]:
    """Each module of ours -> the modules of ours it imports (with `outside`, every
    module it names, ours or not)."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((Path(ROOT) / package).rglob("*.py")):
            name = _module(path)
            found: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    found |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found.add(node.module)
                    found |= {f"{node.module}.{a.name}" for a in node.names}
            graph[name] = found if outside else {m for m in found if m.split(".")[0] in PACKAGES}
    if outside:
        return graph
    modules = set(graph)
    return {k: {m for m in v if m in modules} for k, v in graph.items()}


def test_stages_import_only_from_above() -> None:
    wrong = [f"{k} imports {m}" for k, v in imports().items() for m in v
             if k.split(".")[0] in ABOVE and m.split(".")[0] not in ABOVE[k.split(".")[0]] | {k.split(".")[0]}]
    assert not wrong, wrong


def room(module: str) -> int:
    """The index in ROOMS of the room `module` is in."""
    return max(k for k, r in enumerate(ROOMS) if module == r or module.startswith(r + "."))


def test_rooms_import_downwards() -> None:
    wrong = [f"{k} imports {m}" for k, v in imports().items() if k.startswith("pipeline") for m in v
             if m.startswith("pipeline") and room(m) > room(k)]
    assert not wrong, wrong


def test_the_compiler_imports_neither_export_nor_report() -> None:
    used = imports()["pipeline.compiler"]
    assert not {m for m in used if m.startswith(("pipeline.deploy", "pipeline.tools"))}, used


def test_the_library_imports_neither_bench_nor_examples() -> None:
    wrong = [f"{k} imports {m}" for k, v in imports(outside=True).items() for m in v
             if m.split(".")[0] in ("bench", "examples")]
    assert not wrong, wrong


def test_no_import_cycle() -> None:
    graph = imports()
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt == node or nxt in node.split(".")[:-1] or (node, nxt) in LAZY:
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
