"""The layers stay apart: the core (nj_ledger outside the store) imports no framework and no outer layer, and the
store (nj_ledger.store) imports neither the web app nor the command line. The faces, ``api`` and ``cli``, sit on
top of both (docs/ARCHITECTURE.md)."""

import ast
import pathlib
import subprocess
import sys

CORE = pathlib.Path(__file__).resolve().parent.parent / "nj_ledger"
OUTER = {"api", "cli", "benchmarks", "tests"}  # the layers above the store, and what only measures or tests them
FRAMEWORKS = {"flask", "flask_smorest", "flask_babel", "werkzeug", "marshmallow", "click", "waitress", "granian"}
STORAGE = {"sqlalchemy", "alembic", "psycopg", "sqlite3", "requests"}
SHIPPED = ("migrations", "examples")  # links to the top-level folders (the store's Alembic scripts, game files)


def modules(store: bool):
    for path in sorted(CORE.rglob("*.py")):
        top = path.relative_to(CORE).parts[0]
        if top not in SHIPPED and (top == "store") == store:
            yield path


def imported(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]


def offenders(paths, forbidden):
    return [f"{path.relative_to(CORE)}: {name}" for path in paths for name in imported(path) if name in forbidden]


def test_core_sources_import_no_framework_no_database_and_no_outer_layer():
    assert list(modules(store=False)), "no core module found"
    assert offenders(modules(store=False), FRAMEWORKS | STORAGE | OUTER) == []


def test_store_sources_import_neither_the_web_app_nor_the_command_line():
    assert list(modules(store=True)), "no store module found"
    assert offenders(modules(store=True), FRAMEWORKS | OUTER) == []


def test_importing_the_core_loads_no_framework():
    forbidden = sorted(FRAMEWORKS | STORAGE | OUTER)
    code = (
        "import sys, nj_ledger, nj_ledger.simulator, nj_ledger.audit, nj_ledger.notation, nj_ledger.receipts\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {forbidden!r})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
