"""No import circle among the project's modules (nj_ledger, api, cli, benchmarks).

The graph is read from the source alone (the AST, nothing is imported): an edge a → b for every import in a of a
module b of the project, at module level or inside a function alike (a lazy import that only hides a circle is
still one), and under ``if TYPE_CHECKING:`` too (a circle of types is one module knowing another's insides).
``from package import name`` leads to the submodule when ``name``
is one and to the package's ``__init__`` otherwise, so a package re-exporting a name that one of its submodules
imports back from the package is a circle too. A circle is named as a path ``a → b → a``."""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("nj_ledger", "api", "cli", "benchmarks")
SHIPPED = {("nj_ledger", "migrations"), ("nj_ledger", "examples")}  # links to data folders, not modules


def module_files() -> dict[str, pathlib.Path]:
    files = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if tuple(parts[:2]) in SHIPPED:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(parts)] = path
    return files


def compiled_modules() -> set[str]:
    """The modules built from C (a ``.so`` or its ``.pyi`` stub beside it): leaves of the graph."""
    return {".".join((*path.relative_to(ROOT).parent.parts, path.name.split(".")[0]))
            for package in PACKAGES for pattern in ("*.so", "*.pyd", "*.pyi")
            for path in (ROOT / package).rglob(pattern)}


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under node, wherever it sits."""
    for child in ast.walk(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child


def imported_modules(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a name, not a module: its module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    compiled = compiled_modules() - set(files)
    known = set(files) | compiled
    graph = {name: imported_modules(name, path, known) for name, path in files.items()}
    return graph | {name: set() for name in compiled}


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
    return components


def _shortest_circle_through(graph: dict[str, set[str]], start: str, within: set[str]) -> list[str]:
    came_from = {start: start}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & within):
                if successor == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if successor not in came_from:
                    came_from[successor] = node
                    following.append(successor)
        frontier = following
    return []


def circles(graph: dict[str, set[str]]) -> list[str]:
    """One shortest circle through each module that lies on one, each circle named once."""
    named = {}
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        for start in sorted(component):
            path = _shortest_circle_through(graph, start, component)
            turn = path.index(min(path[:-1]))
            canonical = path[turn:-1] + path[:turn]
            named[tuple(canonical)] = " → ".join([*canonical, canonical[0]])
    return sorted(named.values())


def test_the_graph_is_read():
    graph = import_graph()
    assert len(graph) > 100, "the modules were not found"
    assert "nj_ledger.store.recorder" in graph["nj_ledger.store.sqlite"]
    assert "nj_ledger.state" in graph["nj_ledger.reducer"]
    assert "nj_ledger.analysis._maxn" in graph["nj_ledger.analysis.solver"]  # `from . import _maxn`, a lazy one


def test_the_finder_names_a_circle_as_a_path():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "d"}}
    assert circles(graph) == ["a → b → c → a"]


def test_no_import_circle():
    found = circles(import_graph())
    assert found == [], "import circles:\n" + "\n".join(found)
