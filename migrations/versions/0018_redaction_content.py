"""A redaction names the content it leaves: the SHA-256 of a record's data as redacted (and, for an evening's
decision, of who made it: a token's label may hold the member's name). The logs' append-only triggers let an update
through only when it writes exactly that content, as the record's latest redaction recorded it: once redacted, a
record cannot be changed to anything else. (Whoever can also add rows to ``redactions`` can pass a change through
the trigger: the audit, which believes only the redactions of signed erasures, is what catches that.)

On SQLite the digest is the function ``nj_sha256`` each of the ledger's connections is given
(:mod:`nj_ledger.store.sqlite`): a connection without it cannot update a log at all. Redactions recorded before this
revision name no content: their records were redacted already.

Revision ID: 0018_redaction_content
Revises: 0017_erasures
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_redaction_content"
down_revision: str | Sequence[str] | None = "0017_erasures"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, the log's name in redactions, the column naming the log, the columns a redaction never changes, what
# its content is made of)
LOGS = (("events", "game", "game_id", ("game_id", "seq", "deal", "type", "v", "recorded_at", "hash"), ("data",)),
        ("evening_log", "evening", "evening_id", ("evening_id", "seq", "type", "recorded_at", "hash", "v"),
         ("data", "by")))
BEFORE = {"evening_log": ("evening_id", "seq", "type", "by", "recorded_at", "hash", "v")}  # 0017: `by` kept


def _column(name: str, postgresql: bool) -> str:
    return f'"{name}"' if postgresql and name == "by" else name


def _kept(columns: Sequence[str], postgresql: bool) -> str:
    """Every column of ``columns`` unchanged, NULL included (a JSON column compared by its text on PostgreSQL)."""
    def side(row: str, column: str) -> str:
        return f"{row}.{_column(column, postgresql)}{'::text' if postgresql and column == 'by' else ''}"

    same = "IS NOT DISTINCT FROM" if postgresql else "IS"
    return " AND ".join(f"{side('NEW', column)} {same} {side('OLD', column)}" for column in columns)


def _content(parts: Sequence[str], postgresql: bool) -> str:
    """The SHA-256, in hex, of the record's new content: its parts' JSON texts joined by a newline (on SQLite, a
    part that is not a text has no digest: '!' matches none)."""
    if postgresql:
        joined = " || E'\\n' || ".join(f"NEW.{_column(part, True)}::text" for part in parts)
        return f"encode(sha256(convert_to({joined}, 'UTF8')), 'hex')"
    texts = " AND ".join(f"typeof(NEW.{part}) = 'text'" for part in parts)
    joined = " || char(10) || ".join(f"NEW.{part}" for part in parts)
    return f"CASE WHEN {texts} THEN COALESCE(nj_sha256({joined}), '!') ELSE '!' END"


def _latest(log: str, column: str) -> str:
    return (f"COALESCE((SELECT content FROM redactions WHERE log = '{log}' AND log_id = OLD.{column} "
            f"AND seq = OLD.seq ORDER BY id DESC LIMIT 1), '')")


def _statements(dialect: str, strict: bool) -> list[str]:
    """The statements that make each log append-only but for a redaction: ``strict``, one writing the content its
    latest redaction recorded; else (0017) any change of its data once a redaction is recorded."""
    statements = []
    for table, log, column, kept, parts in LOGS:
        message = "events are append-only" if table == "events" else f"{table} is append-only"
        postgresql = dialect == "postgresql"
        if strict:
            allowed = f"{_kept(kept, postgresql)} AND {_latest(log, column)} = {_content(parts, postgresql)}"
        else:
            allowed = (f"{_kept(BEFORE.get(table, kept), postgresql)} AND EXISTS (SELECT 1 FROM redactions WHERE "
                       f"log = '{log}' AND log_id = OLD.{column} AND seq = OLD.seq)")
        if dialect == "sqlite":  # NOT of NULL is NULL, which a WHEN takes for false: NULL is not allowed
            statements += [f"DROP TRIGGER {table}_no_update",
                           f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
                           f"WHEN NOT COALESCE(({allowed}), 0) "
                           f"BEGIN SELECT RAISE(ABORT, '{message}'); END"]
        elif postgresql:
            statements.append(f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql "
                              f"AS $$ BEGIN IF TG_OP = 'UPDATE' THEN IF {allowed} THEN RETURN NEW; END IF; END IF; "
                              f"RAISE EXCEPTION '{message}'; END $$")
    return statements


def upgrade() -> None:
    # redactions are append-only: a column added keeps every row as it is (NULL: content not named)
    op.add_column("redactions", sa.Column("content", sa.String(length=64), nullable=True))
    for statement in _statements(op.get_bind().dialect.name, strict=True):
        op.execute(statement)


def downgrade() -> None:
    for statement in _statements(op.get_bind().dialect.name, strict=False):
        op.execute(statement)
    # not through a copy of the table (SQLite's usual way): the logs' triggers name it, and it would lose its own
    op.execute("ALTER TABLE redactions DROP COLUMN content")
