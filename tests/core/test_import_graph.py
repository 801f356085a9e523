"""anonstudio's import graph has no cycle and no module imports another module's private name.

The graph is grimp's (the one import-linter checks), which records every import
statement: module level, inside functions (an import deferred into a function
still makes its module depend on the other), under ``if TYPE_CHECKING`` and
package re-exports in ``__init__.py``. An import of a package (``from .. import
kernels``) is an edge to its ``__init__``, so a cycle that runs through a
package's re-exports (``pkg/__init__`` imports ``pkg.a``, which imports ``pkg``)
is a cycle here too. Imports made by name at run time (``importlib`` discovery of
method specs, workbenches, commands and kernel warm-ups) are not edges: they
name no module in the source.
"""
from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

import anonstudio

PACKAGE = Path(anonstudio.__file__).parent


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("anonstudio", cache_dir=None)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> list[tuple[str, Path, ast.Module]]:
    return [(_module_name(p), p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))]


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module an ``from X import ...`` statement names, made absolute."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base[:len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan, iterative)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def a_cycle(graph: grimp.ImportGraph, group: list[str]) -> list[str]:
    """One cycle inside a strongly connected group, as module names from the first back to itself."""
    start = group[0]
    for neighbour in sorted(graph.find_modules_directly_imported_by(start) & set(group)):
        chain = graph.find_shortest_chain(importer=neighbour, imported=start)
        if chain:
            return [start, *chain]
    return group


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    steps = []
    for importer, imported in zip(cycle, cycle[1:]):
        lines = sorted({d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)})
        steps.append(f"  {importer} (line {', '.join(map(str, lines))}) imports {imported}")
    return "\n".join(steps)


def test_the_graph_includes_imports_made_inside_functions(graph):
    """Without them a cycle could hide behind a deferred import, as two did: check that grimp records them."""
    local = []
    for module, path, tree in _sources():
        for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom):
                    source = _absolute(module, path.name == "__init__.py", node)
                    for alias in node.names:
                        # ``from pkg import sub`` imports the module pkg.sub; ``from mod import name``, mod.
                        target = f"{source}.{alias.name}" if f"{source}.{alias.name}" in graph.modules else source
                        if target.startswith("anonstudio") and target in graph.modules and target != module:
                            local.append((module, target))
    assert local, "no function-local import of an anonstudio module left to check"
    missing = [(a, b) for a, b in local if not graph.direct_import_exists(importer=a, imported=b)]
    assert missing == []


def test_the_import_graph_has_no_cycle(graph):
    cycles = [a_cycle(graph, group) for group in strongly_connected(graph)]
    report = "\n\n".join(describe(graph, cycle) for cycle in cycles)
    assert cycles == [], f"import cycles (move the shared piece below both modules):\n{report}"


def test_the_cycle_finder_finds_a_cycle():
    """A graph with a cycle through a package's re-export is reported, with the cycle spelled out."""
    toy = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        toy.add_module(name)
    toy.add_import(importer="pkg", imported="pkg.a", line_number=1, line_contents="from .a import A")
    toy.add_import(importer="pkg.a", imported="pkg.b", line_number=3, line_contents="from .b import B")
    toy.add_import(importer="pkg.b", imported="pkg", line_number=9, line_contents="from . import A")
    toy.add_import(importer="pkg.c", imported="pkg.a", line_number=2, line_contents="from .a import A")
    assert strongly_connected(toy) == [["pkg", "pkg.a", "pkg.b"]]
    cycle = a_cycle(toy, ["pkg", "pkg.a", "pkg.b"])
    assert cycle == ["pkg", "pkg.a", "pkg.b", "pkg"]
    assert "pkg.b (line 9) imports pkg" in describe(toy, cycle)


def test_no_module_imports_another_modules_private_name():
    """A name another module needs is public (or moves to where both can import it)."""
    offenders = []
    for module, path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, path.name == "__init__.py", node)
                if not source.startswith("anonstudio"):
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        offenders.append(f"{module} (line {node.lineno}) imports {alias.name} from {source}")
            elif isinstance(node, ast.Import):
                offenders += [f"{module} (line {node.lineno}) imports {alias.name}" for alias in node.names
                              if alias.name.startswith("anonstudio")
                              and any(p.startswith("_") and not p.startswith("__") for p in alias.name.split("."))]
    assert offenders == []
