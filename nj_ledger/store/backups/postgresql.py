"""PostgreSQL's backups: ``pg_dump`` of the ledger's schema in one snapshot, restored in one transaction.

The backup opens a REPEATABLE READ transaction, exports its snapshot (``pg_export_snapshot``), reads the
counts and keys in it, and has ``pg_dump --snapshot`` dump the very same moment, while writers go on. Only the
URL's schema is dumped (the first of its search path: ``public`` by default, a schema of its own when the URL
sets ``options=-csearch_path=…``), without owners or grants, so that it restores under any role.

The restore first backs up the schema it replaces (the caller's ``first``: the command line writes
``…-before-restore.tar``), then replays the dump (``pg_restore`` writes it as SQL) through ``psql`` inside one
transaction that first drops that schema, and last checks the counts against the manifest: a failure anywhere,
or a dump cut short, rolls everything back. It may restore a schema under another name (the URL's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from sqlalchemy import Connection, text
from sqlalchemy.engine import make_url

from ..base import iso, utcnow
from ..database import make_engine
from .archive import COUNTED, BackupError, Contents, Manifest
from .contents import read_contents

CLIENT_PACKAGE = "postgresql-client"
LOCK_TIMEOUT = "10s"  # a restore waits no longer than this for a session that holds the schema's tables
SAID_LINES = 6  # lines of a tool's errors repeated in the refusal


def where(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError("tool-missing", f"{name} is not installed here: PostgreSQL is backed up and restored "
                                          f"with its own tools (Debian: apt-get install {CLIENT_PACKAGE}, of the "
                                          "server's version or later).")
    return found


def _connection(url: str) -> tuple[str, dict[str, str]]:
    """libpq's connection string for ``url`` (its query, such as ``options``, passed on), and the tools'
    environment (the password there, never on a command line)."""
    parsed = make_url(url)
    parts: dict[str, object] = {"host": parsed.host, "port": parsed.port, "user": parsed.username,
                                "dbname": parsed.database}
    for key, value in parsed.query.items():
        parts[key] = value if isinstance(value, str) else value[-1]
    conninfo = " ".join(f"{key}={_libpq_quoted(str(value))}" for key, value in parts.items()
                        if value not in (None, ""))
    environment = dict(os.environ)
    if parsed.password:
        environment["PGPASSWORD"] = parsed.password
    return conninfo, environment


def _libpq_quoted(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def quoted(name: str) -> str:
    """An SQL identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def _failed(tool: str, errors: str) -> str:
    """What a tool said went wrong: its errors (its last lines, when none is marked as one)."""
    lines = [line.strip() for line in errors.strip().splitlines() if line.strip()]
    said = [line for line in lines if "ERROR" in line or "FATAL" in line or "error:" in line] or lines
    return f"{tool} failed: " + (" / ".join(said[-SAID_LINES:]) or "no reason given")


def dump(url: str, into: Path) -> tuple[Contents, str, str]:
    """Dump the ledger's schema of ``url`` to the new file ``into``: what it holds, when, and the schema's name."""
    pg_dump = _program("pg_dump")
    conninfo, environment = _connection(url)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            connection = connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                snapshot = connection.execute(text("SELECT pg_export_snapshot()")).scalar_one()
                taken = iso(utcnow())
                schema = connection.execute(text("SELECT current_schema()")).scalar()
                if schema is None:
                    raise BackupError("nothing-to-back-up", f"{where(url)} has no schema on its search path: "
                                                            "there is nothing to back up.")
                found = read_contents(connection, where(url))
                done = subprocess.run(
                    [pg_dump, "--format=custom", f"--schema={quoted(schema)}", "--no-owner", "--no-privileges",
                     f"--snapshot={snapshot}", f"--file={into}", f"--dbname={conninfo}"],
                    env=environment, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise BackupError("backup-failed", _failed("pg_dump", done.stderr) + ".")
    finally:
        engine.dispose()
    return found, taken, str(schema)


def target_schema(connection: Connection) -> str:
    """The schema a restore fills: the first of the URL's search path that exists, else the first it names
    (a schema dropped since: the restore makes it again)."""
    path = str(connection.execute(text("SHOW search_path")).scalar_one())
    user = str(connection.execute(text("SELECT current_user")).scalar_one())
    names = [_unquoted(part.strip()) for part in path.split(",") if part.strip()]
    existing = set(connection.execute(text("SELECT nspname FROM pg_namespace")).scalars())
    for name in names:
        schema = user if name == "$user" else name
        if schema in existing:
            return schema
    named = [name for name in names if name != "$user"]
    if not named:
        raise BackupError("no-schema", "The database's search path names no schema to restore into.")
    return named[0]


def _unquoted(name: str) -> str:
    return name[1:-1].replace('""', '"') if len(name) >= 2 and name[0] == name[-1] == '"' else name


def check(url: str, payload: Path, manifest: Manifest, shown: str) -> tuple[str, list[str]]:
    """Before anything is changed: the dump reads (its table of contents is returned), and the schema it will
    fill (returned) may be filled."""
    listing = _listing(payload, shown)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            target = target_schema(connection)
            other = connection.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :name"),
                                       {"name": manifest.schema}).first()
    finally:
        engine.dispose()
    if manifest.schema != target and other is not None:
        raise BackupError("schema-taken", f"The backup holds the schema {manifest.schema!r}, which this database "
                                          f"already has beside {target!r}, the URL's: restore into a database "
                                          "without it. Nothing was changed.")
    return target, listing


def _listing(payload: Path, shown: str) -> list[str]:
    done = subprocess.run([_program("pg_restore"), "--list", str(payload)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise BackupError("not-a-backup", f"The PostgreSQL dump in {shown} cannot be read ("
                                          f"{_failed('pg_restore', done.stderr)}): nothing was changed.")
    return done.stdout.splitlines()


def load(url: str, payload: Path, manifest: Manifest, shown: str, first: Callable[[], object] | None) -> None:
    """Replace the URL's schema by the dump's, in one transaction (:mod:`.postgresql`), once ``first`` (the
    backup of the schema it replaces) is done."""
    target, listing = check(url, payload, manifest, shown)
    if first is not None:
        first()
    dumped = manifest.schema or target
    # the schema itself is made by the transaction's first statements (under the name it is dumped with)
    kept = [line for line in listing
            if not (f" SCHEMA - {dumped} " in f"{line} " or f" COMMENT - SCHEMA {dumped} " in f"{line} ")]
    conninfo, environment = _connection(url)
    checks = " OR ".join(f"(SELECT count(*) FROM {quoted(dumped)}.{name}) <> {manifest.contents.counts[name]}"
                         for name in COUNTED)
    opening = (f"SET client_min_messages = warning;\nBEGIN;\nSET LOCAL lock_timeout = '{LOCK_TIMEOUT}';\n"
               f"DROP SCHEMA IF EXISTS {quoted(target)} CASCADE;\nCREATE SCHEMA {quoted(dumped)};\n")
    last = (f"DO $nj_ledger$ BEGIN IF {checks} THEN RAISE EXCEPTION 'the restored database does not hold what the "
            f"backup''s manifest says (its counts of clubs, games or events differ)'; END IF; END $nj_ledger$;\n"
            + (f"ALTER SCHEMA {quoted(dumped)} RENAME TO {quoted(target)};\n" if dumped != target else "")
            + "COMMIT;\n")
    with tempfile.TemporaryDirectory(prefix="nj-ledger-restore-") as folder:
        listed = Path(folder) / "list"
        listed.write_text("\n".join(kept) + "\n", encoding="utf-8")
        restore_errors, psql_errors = Path(folder) / "pg_restore.err", Path(folder) / "psql.err"
        with restore_errors.open("w+") as restore_log, psql_errors.open("w+") as psql_log:
            script = subprocess.Popen([_program("pg_restore"), "--no-owner", "--no-privileges",
                                       f"--use-list={listed}", "--file=-", str(payload)],
                                      stdout=subprocess.PIPE, stderr=restore_log)
            psql = subprocess.Popen([_program("psql"), "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1",
                                     f"--dbname={conninfo}", "--file=-"], env=environment, stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=psql_log)
            assert script.stdout is not None and psql.stdin is not None
            whole = _pump(opening, script.stdout, psql.stdin)
            restored = script.wait() == 0
            if whole and restored:
                whole = _send(psql.stdin, last.encode())
            _close(psql.stdin)
            psql.wait()
            restore_log.seek(0)
            psql_log.seek(0)
            if not restored:
                raise BackupError("restore-failed", f"The restore into {where(url)} was rolled back, nothing was "
                                                    f"changed: {_failed('pg_restore', restore_log.read())}.")
            if psql.returncode != 0 or not whole:
                raise BackupError("restore-failed", f"The restore into {where(url)} was rolled back, nothing was "
                                                    f"changed: {_failed('psql', psql_log.read())}.")


def _pump(first: str, source: IO[bytes], sink: IO[bytes]) -> bool:
    """Send ``first``, then all of ``source``, to ``sink``; False if the reader stopped reading (an error)."""
    if not _send(sink, first.encode()):
        source.read()
        return False
    while chunk := source.read(1 << 16):
        if not _send(sink, chunk):
            while source.read(1 << 16):  # let the writer finish
                pass
            return False
    return True


def _send(sink: IO[bytes], data: bytes) -> bool:
    try:
        sink.write(data)
        return True
    except BrokenPipeError:
        return False


def _close(sink: IO[bytes]) -> None:
    try:
        sink.close()
    except BrokenPipeError:
        pass
