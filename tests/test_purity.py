"""The core stays pure: nothing in nj_ledger (outside the store) imports a framework or does I/O."""

import ast
import pathlib
import subprocess
import sys

CORE = pathlib.Path(__file__).resolve().parent.parent / "nj_ledger"
FORBIDDEN = {"flask", "sqlalchemy", "alembic", "psycopg", "werkzeug", "requests", "sqlite3"}


def core_modules():
    for path in sorted(CORE.rglob("*.py")):
        relative = path.relative_to(CORE)
        if relative.parts[0] in ("store", "cli.py", "bench"):
            continue
        yield path


def test_core_sources_import_no_framework():
    offenders = []
    for path in core_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {name}" for name in names if name.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_importing_the_core_loads_no_framework():
    code = (
        "import sys, nj_ledger, nj_ledger.simulator, nj_ledger.audit\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
