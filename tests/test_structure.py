"""The package's shape: no module imports, however indirectly or lazily, one that imports it."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def modules() -> dict[str, Path]:
    """jtau module name -> its file."""
    return {".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__"): path
            for path in (SRC / "jtau").rglob("*.py")}


def imported(node: ast.Import | ast.ImportFrom, module: str, paths: dict[str, Path]) -> list[str]:
    """What an import statement of `module` imports: module names, relative ones resolved (`from a
    import b` is module a.b where there is one, else a)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module if paths[module].name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    """jtau module -> the jtau modules it imports anywhere in its body (lazy imports too)."""
    paths = modules()
    graph = {}
    for name, path in paths.items():
        edges = {target for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, (ast.Import, ast.ImportFrom)) for target in imported(node, name, paths)}
        graph[name] = {edge for edge in edges if edge in paths and edge != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_through_others():
    graph = import_graph()
    assert "jtau.retention.canonical" in graph["jtau.retention.analysis"]  # the graph sees real imports
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
