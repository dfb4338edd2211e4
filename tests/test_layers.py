"""The package's layers: every import, lazy ones too, runs down or across a layer, never up, and no
two packages import each other however indirectly.  docs/DEVELOPING.md draws the same layers."""

from __future__ import annotations

from test_structure import cycles, import_graph

# Bottom to top.  A unit is a package (`jtau.swap`) or a top-level module (`jtau.pipeline`).
LAYERS = [
    ["jtau", "jtau.errors", "jtau.util", "jtau.project"],                        # plumbing
    ["jtau.arms", "jtau.glossary", "jtau.dataset_files", "jtau.patches", "jtau.domains", "jtau.rules",
     "jtau.domains.*.identities"],                                               # vocabulary, specs, rules
    ["jtau.source", "jtau.maps"],                                                # what is read
    ["jtau.swap", "jtau.text", "jtau.translate", "jtau.domain"],                 # the stages
    ["jtau.validate", "jtau.retrieval", "jtau.write"],
    ["jtau.pipeline", "jtau.review", "jtau.changes", "jtau.arm_cache", "jtau.map_proposals"],
    ["jtau.runtime"],                                                            # tau2
    ["jtau.domains.*.environment", "jtau.domains.*.boundary"],                   # each domain's in tau2
    ["jtau.experiment", "jtau.retention", "jtau.release"],
    ["jtau.cli", "jtau.__main__"],
]
LAYER = {unit: level for level, units in enumerate(LAYERS) for unit in units}


def unit(module: str) -> str:
    """The package or top-level module a module belongs to; a domain folder's module by its role
    (`jtau.domains.airline.environment` -> `jtau.domains.*.environment`: every domain's sits at one layer)."""
    parts = module.split(".")
    if parts[:2] == ["jtau", "domains"] and len(parts) > 3:
        return f"jtau.domains.*.{parts[3]}"
    return ".".join(parts[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    units: dict[str, set[str]] = {}
    for module, imported in graph.items():
        units.setdefault(unit(module), set()).update(unit(other) for other in imported if unit(other) != unit(module))
    return units


def upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{module} -> {other}" for module, imported in graph.items() for other in imported
                  if LAYER[unit(other)] > LAYER[unit(module)])


def test_every_unit_has_a_layer():
    assert sorted(set(map(unit, import_graph())) - set(LAYER)) == []
    assert sorted(set(LAYER) - set(map(unit, import_graph()))) == []  # no layer names a unit that is gone


def test_no_import_runs_up_a_layer():
    assert upward(import_graph()) == []


def test_no_two_packages_import_each_other():
    assert cycles(package_graph(import_graph())) == []


def test_the_checks_see_a_planted_upward_import_and_circle():
    graph = {"jtau.rules": {"jtau.swap.money"}, "jtau.swap.money": {"jtau.rules"}}
    assert upward(graph) == ["jtau.rules -> jtau.swap.money"]
    assert cycles(package_graph(graph)) == [["jtau.rules", "jtau.swap"]]


def test_the_developers_map_matches_the_tree():
    """docs/DEVELOPING.md's layout names every package and top-level module of src/jtau, and
    nothing that is not there."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    block = text.split("```\nsrc/jtau/\n", 1)[1].split("```", 1)[0]
    named = {m[1] for m in re.finditer(r"^  (\S+?)/?\s", block, flags=re.M)}
    here = {p.name for p in (root / "src" / "jtau").iterdir()
            if (p.is_dir() and not p.name.startswith("__")) or (p.suffix == ".py" and p.name != "__init__.py")}
    assert sorted(here - named) == [] and sorted(named - here) == []


def statements(tree) -> tuple[list, list]:
    """(the module's top-level import statements, those inside functions and classes) of a parsed
    module; `if TYPE_CHECKING:` blocks count as neither."""
    import ast

    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    inner = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
             and node not in top and not any(node in ast.walk(block) for block in tree.body
                                             if isinstance(block, ast.If))]
    return top, inner


def needless_lazy_imports() -> list[str]:
    """Imports of jtau modules inside functions, outside cli/, that load no third-party package the
    importing module has not loaded already at its top (however indirectly): such an import saves
    nothing, and hides what a module needs.  A lazy import stays where it keeps `jtau --help` fast
    (cli/) or tau2, numpy and the other third-party packages unloaded until used."""
    import ast
    import sys

    from test_structure import imported, modules

    paths = modules()
    parsed = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in paths.items()}
    loads: dict[str, frozenset[str]] = {}

    def third_party(module: str) -> frozenset[str]:
        """The third-party packages importing `module` loads."""
        if module not in loads:
            found, todo, seen = set(), [module], {module}
            while todo:
                current = todo.pop()
                for node in statements(parsed[current])[0]:
                    for name in imported(node, current, paths):
                        if name in paths and name not in seen:
                            seen.add(name)
                            todo.append(name)
                        elif name not in paths and name.split(".")[0] not in ("jtau", *sys.stdlib_module_names):
                            found.add(name.split(".")[0])
            loads[module] = frozenset(found)
        return loads[module]

    return sorted(f"{module}:{node.lineno} imports {name}" for module, tree in parsed.items()
                  if not module.startswith("jtau.cli") for node in statements(tree)[1]
                  for name in imported(node, module, paths)
                  if name in paths and third_party(name) <= third_party(module))


def test_lazy_imports_only_where_they_keep_a_package_optional():
    assert needless_lazy_imports() == []
