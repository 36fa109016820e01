"""The layers stay apart, as docs/ARCHITECTURE.md's table says ("Who may import whom"), read from the sources (the
AST: an import at module level or inside a function alike):

- the core (nj_ledger outside the store) imports the standard library and its three libraries only: no framework,
  no database, no outer layer, not the store;
- the store (nj_ledger.store) imports neither a framework of the web app or the command line nor an outer layer;
- the application (nj_ledger.application) imports the standard library, the core and the store only;
- ``api`` imports neither ``cli`` nor ``benchmarks``;
- ``cli`` imports no module of ``api`` that defines routes (one that creates a Blueprint, flask-smorest's or
  Flask's, or adds a route to one);
- ``benchmarks`` does not import ``cli``;
- nothing imports the tests' modules.

And no module of any layer (nj_ledger, api, cli, benchmarks, the pages' JavaScript) reaches 400 lines."""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORE = ROOT / "nj_ledger"
OUTER = {"api", "cli", "benchmarks", "tests"}  # the layers above the store, and what only measures or tests them
# The tests' own packages, importable by their names (pyproject's pythonpath puts tests/ on the path).
TESTS = {"tests"} | {path.parent.name for path in (ROOT / "tests").glob("*/__init__.py")}
FRAMEWORKS = {"flask", "flask_smorest", "flask_babel", "werkzeug", "marshmallow", "click", "waitress", "granian"}
STORAGE = {"sqlalchemy", "alembic", "psycopg", "sqlite3", "requests"}
CORE_LIBRARIES = {"cryptography", "orjson", "openskill"}  # receipts' signatures, canonical bytes, ratings
STORE_LIBRARIES = CORE_LIBRARIES | {"sqlalchemy", "alembic", "psycopg", "ijson"}
APPLICATION = "application"  # nj_ledger's package of use cases, between the store and the interfaces
SHIPPED = ("migrations", "examples")  # links to the top-level folders (the store's Alembic scripts, game files)
LIMIT = 400  # lines: every module of every layer stays under it
VENDORED = ROOT / "api" / "static" / "vendor"  # the Pyodide runtime, fetched, not ours


def modules(store: bool):
    """The core's modules (``store`` False) or the store's."""
    for path in sorted(CORE.rglob("*.py")):
        top = path.relative_to(CORE).parts[0]
        if top not in SHIPPED and top != APPLICATION and (top == "store") == store:
            yield path


def layer(name: str) -> list[pathlib.Path]:
    """The Python modules of a layer: ``core``, ``store``, ``application``, ``api``, ``cli`` or ``benchmarks``."""
    if name in ("core", "store"):
        return list(modules(store=name == "store"))
    if name == APPLICATION:
        return sorted((CORE / APPLICATION).rglob("*.py"))
    return sorted((ROOT / name).rglob("*.py"))


def imports(path: pathlib.Path):
    """Every module an import of ``path`` names, dotted and absolute; ``from a import b`` names ``a`` and ``a.b``
    (``b`` may be a submodule). A relative import is made absolute from the module's own package."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            if module:
                yield module
            yield from (f"{module}.{alias.name}" if module else alias.name for alias in node.names)


def imported(path: pathlib.Path):
    """The top-level names ``path`` imports absolutely (a relative import stays in its own layer)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]


def offenders(paths, forbidden):
    return [f"{path.relative_to(ROOT)}: {name}" for path in paths for name in imported(path) if name in forbidden]


def test_core_sources_import_no_framework_no_database_and_no_outer_layer():
    assert list(modules(store=False)), "no core module found"
    assert offenders(modules(store=False), FRAMEWORKS | STORAGE | OUTER | TESTS) == []


def test_the_core_imports_the_standard_library_and_its_three_libraries_only():
    allowed = set(sys.stdlib_module_names) | CORE_LIBRARIES | {"nj_ledger"}
    strangers = [f"{path.relative_to(ROOT)}: {name}" for path in layer("core") for name in imported(path)
                 if name not in allowed]
    assert strangers == [], "name a library the core needs in docs/ARCHITECTURE.md's table and here"


def test_the_core_does_not_import_the_store():
    found = [f"{path.relative_to(ROOT)}: {name}" for path in layer("core") for name in imports(path)
             if name == "nj_ledger.store" or name.startswith("nj_ledger.store.")]
    assert found == []


def test_neither_the_core_nor_the_store_imports_the_application():
    found = [f"{path.relative_to(ROOT)}: {name}" for path in [*layer("core"), *layer("store")]
             for name in imports(path) if name == "nj_ledger.application" or name.startswith("nj_ledger.application.")]
    assert found == []


def test_store_sources_import_neither_the_web_app_nor_the_command_line():
    assert list(modules(store=True)), "no store module found"
    assert offenders(modules(store=True), FRAMEWORKS | OUTER | TESTS) == []


def test_the_store_imports_the_standard_library_the_core_and_its_libraries_only():
    allowed = set(sys.stdlib_module_names) | STORE_LIBRARIES | {"nj_ledger"}
    strangers = [f"{path.relative_to(ROOT)}: {name}" for path in layer("store") for name in imported(path)
                 if name not in allowed]
    assert strangers == [], "name a library the store needs in docs/ARCHITECTURE.md's table and here"


def test_the_application_imports_the_standard_library_the_core_and_the_store_only():
    assert layer(APPLICATION), "no module of the application found"
    allowed = set(sys.stdlib_module_names) | {"nj_ledger"}
    strangers = [f"{path.relative_to(ROOT)}: {name}" for path in layer(APPLICATION) for name in imported(path)
                 if name not in allowed]
    assert strangers == [], "a use case reaches the database through the store, and knows no framework"


def test_the_api_imports_neither_the_command_line_nor_the_benchmarks():
    assert len(layer("api")) > 20, "the api's modules were not found"
    assert offenders(layer("api"), {"cli", "benchmarks"} | TESTS) == []


ROUTE_DECORATORS = {"route", "get", "post", "put", "patch", "delete"}


def defines_routes(path: pathlib.Path) -> bool:
    """Whether a module creates a Blueprint (flask-smorest's or Flask's, by any name it imports it as) or adds a
    route to one (``@blp.route(…)``, ``@blp.get(…)``…)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    makers = {alias.asname or alias.name for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module in ("flask", "flask_smorest")
              for alias in node.names if alias.name == "Blueprint"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            if (isinstance(function, ast.Name) and function.id in makers) or (
                    isinstance(function, ast.Attribute) and function.attr == "Blueprint"):
                return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                        and decorator.func.attr in ROUTE_DECORATORS):
                    return True
    return False


def route_modules() -> set[str]:
    """The dotted names of the api's modules that define routes."""
    names = set()
    for path in layer("api"):
        if defines_routes(path):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_the_api_modules_that_define_routes_are_found():
    found = route_modules()
    assert {"api.games", "api.clubs", "api.pages", "api.docs"} <= found
    assert not {"api", "api.config", "api.sentences", "api.serving"} & found


def test_every_api_blueprint_reads_its_arguments_from_the_body_decoded_once():
    """A blueprint of the API is ``api.inputs.Blueprint`` (its arguments read from the body decoded before the
    view), never flask-smorest's own, which would decode the body a second time (metrics has no body: its own
    Api)."""
    takers = [path.relative_to(ROOT).as_posix() for path in layer("api") if path.name not in ("inputs.py", "metrics.py")
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.ImportFrom) and node.module == "flask_smorest"
              and any(alias.name == "Blueprint" for alias in node.names)]
    assert takers == []


def test_the_command_line_imports_no_module_of_the_api_that_defines_routes():
    routes = route_modules()
    assert layer("cli"), "no module of the command line found"
    found = sorted({f"{path.relative_to(ROOT)}: {name}" for path in layer("cli") for name in imports(path)
                    if name in routes})
    assert found == [], f"the command line reaches only the api's modules without routes: {found}"
    assert offenders(layer("cli"), TESTS) == []


def test_the_benchmarks_import_neither_the_command_line_nor_the_tests():
    assert layer("benchmarks"), "no benchmark found"
    assert offenders(layer("benchmarks"), {"cli"} | TESTS) == []


def sources() -> dict[str, int]:
    """Every module of every layer, with its number of lines: the Python of nj_ledger (the store included, not its
    links to migrations/ and examples/), api, cli and benchmarks, and the pages' JavaScript (api/static, not the
    vendored runtime)."""
    paths = [*layer("core"), *layer("store"), *layer(APPLICATION), *layer("api"), *layer("cli"), *layer("benchmarks")]
    paths += [path for path in sorted((ROOT / "api" / "static").rglob("*.js")) if VENDORED not in path.parents]
    return {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in paths}


def test_no_module_reaches_the_line_limit():
    lines = sources()
    assert len(lines) > 150, "the modules were not found"
    assert {"api/static/pages/record.js", "cli/__init__.py", "benchmarks/runner.py"} <= set(lines)
    too_long = {name: count for name, count in sorted(lines.items()) if count >= LIMIT}
    assert too_long == {}, f"modules of {LIMIT} lines or more, to split by responsibility: {too_long}"


def test_the_pages_ask_the_rules_and_decide_none():
    """One source of the rules: what the scorer may tap and a play's calls are the core's answers
    (``nj_ledger.scorer.taps``, ``nj_ledger.calls``), so the pages read no option of a game's rules but the boxes
    of its board (drawn), its profile's name and, on the result sheet, the options it prints by name (shown)."""
    pages = [path for path in sorted((ROOT / "api" / "static").rglob("*.js")) if VENDORED not in path.parents]
    read = {(str(path.relative_to(ROOT)), option) for path in pages
            for option in re.findall(r"\brules(?:\(\))?\s*(?:\.\s*(\w+)|\[)", path.read_text(encoding="utf-8"))}
    assert len(pages) > 50 and ("api/static/pages/table.js", "board") in read
    shown = {("api/static/pages/sheet.js", "")}  # rulesText: payment, bete and shortfall printed by name
    assert {(name, option) for name, option in read if option not in {"board", "profile"}} == shown


def test_the_core_silences_no_type_check():
    # mypy --strict runs on nj_ledger in make test: what it would say is mended, not silenced
    silenced = [f"{path.relative_to(CORE.parent)}:{number}" for path in [*layer("core"), *layer("store"),
                                                                          *layer(APPLICATION)]
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                if "type: ignore" in line]
    assert silenced == []


def test_importing_the_core_loads_no_framework():
    forbidden = sorted(FRAMEWORKS | STORAGE | OUTER)
    code = (
        "import sys, nj_ledger, nj_ledger.simulator, nj_ledger.audit, nj_ledger.notation, nj_ledger.receipts\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {forbidden!r})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
