"""A member's erasure: the club's erasures (a chained, signed log of decisions holding no personal data) and the
records each one redacted. The logs' append-only triggers now let one change through: a redaction of a record's
content that keeps its every other field, its hash included, once an erasure has recorded it (``redactions``).

Revision ID: 0017_erasures
Revises: 0016_director_tokens
Create Date: 2026-11-28

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_erasures"
down_revision: str | Sequence[str] | None = "0016_director_tokens"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NEW_TABLES = ("erasures", "redactions")
# (table, the log's name in redactions, the column naming the log, the columns a redaction never changes)
LOGS = (("events", "game", "game_id", ("game_id", "seq", "deal", "type", "v", "recorded_at", "hash")),
        ("evening_log", "evening", "evening_id", ("evening_id", "seq", "type", "by", "recorded_at", "hash", "v")))


def _kept(columns: Sequence[str], postgresql: bool) -> str:
    """Every column of ``columns`` unchanged (a JSON column compared by its text on PostgreSQL)."""
    if not postgresql:
        return " AND ".join(f"NEW.{column} = OLD.{column}" for column in columns)
    return " AND ".join(f'NEW."{column}"{"::text" if column == "by" else ""} = OLD."{column}"'
                        f'{"::text" if column == "by" else ""}' for column in columns)


def _redacted(log: str, column: str) -> str:
    return f"EXISTS (SELECT 1 FROM redactions WHERE log = '{log}' AND log_id = OLD.{column} AND seq = OLD.seq)"


def _append_only(dialect: str, redactable: bool) -> list[str]:
    """The statements that make each log append-only: with ``redactable``, but for a recorded redaction."""
    statements = []
    for table, log, column, kept in LOGS:
        message = "events are append-only" if table == "events" else f"{table} is append-only"
        if dialect == "sqlite":
            unless = f"WHEN NOT ({_kept(kept, False)} AND {_redacted(log, column)}) " if redactable else ""
            statements += [f"DROP TRIGGER {table}_no_update",
                           f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} {unless}"
                           f"BEGIN SELECT RAISE(ABORT, '{message}'); END"]
        elif dialect == "postgresql":
            unless = (f"IF TG_OP = 'UPDATE' THEN IF {_kept(kept, True)} AND {_redacted(log, column)} "
                      "THEN RETURN NEW; END IF; END IF; " if redactable else "")
            statements.append(f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql "
                              f"AS $$ BEGIN {unless}RAISE EXCEPTION '{message}'; END $$")
    for table in NEW_TABLES:
        if dialect == "sqlite":
            statements += [f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
                           f"BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END",
                           f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                           f"BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END"] if redactable else []
        elif dialect == "postgresql" and redactable:
            statements += [f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS "
                           f"$$ BEGIN RAISE EXCEPTION '{table} are append-only'; END $$",
                           f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
                           f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()",
                           f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                           f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_append_only()"]
    return statements


def upgrade() -> None:
    op.create_table(
        "erasures",
        sa.Column("club_id", sa.String(length=24), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("pseudonym", sa.String(length=80), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("by", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.String(length=32), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("receipt", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_erasures_club_id_clubs")),
        sa.ForeignKeyConstraint(["member_id"], ["players.id"], name=op.f("fk_erasures_member_id_players")),
        sa.PrimaryKeyConstraint("club_id", "number", name=op.f("pk_erasures")),
        sa.UniqueConstraint("member_id", name=op.f("uq_erasures_member_id")),
        sa.CheckConstraint("number >= 1", name=op.f("ck_erasures_number_positive")),
    )
    op.create_table(
        "redactions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=24), nullable=False),
        sa.Column("erasure", sa.Integer(), nullable=False),
        sa.Column("log", sa.String(length=8), nullable=False),
        sa.Column("log_id", sa.String(length=24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("previous", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("redacted", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["club_id", "erasure"], ["erasures.club_id", "erasures.number"],
                                name=op.f("fk_redactions_club_id_erasures")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_redactions")),
        sa.CheckConstraint("log IN ('game', 'evening')", name=op.f("ck_redactions_log")),
    )
    op.create_index(op.f("ix_redactions_log_log_id_seq"), "redactions", ["log", "log_id", "seq"])
    for statement in _append_only(op.get_bind().dialect.name, redactable=True):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().execute(sa.text("SELECT COUNT(*) FROM erasures")).scalar():
        # the redacted records verify only through their erasures: without them their logs would read as altered
        raise RuntimeError("members were erased: their erasures are what the redacted logs verify through, so "
                           "this database cannot go back before 0017_erasures")
    dialect = op.get_bind().dialect.name
    for statement in _append_only(dialect, redactable=False):
        op.execute(statement)
    for table in NEW_TABLES:
        if dialect == "sqlite":
            op.execute(f"DROP TRIGGER {table}_no_update")
            op.execute(f"DROP TRIGGER {table}_no_delete")
        elif dialect == "postgresql":
            op.execute(f"DROP TRIGGER {table}_no_truncate ON {table}")
            op.execute(f"DROP TRIGGER {table}_no_change ON {table}")
            op.execute(f"DROP FUNCTION {table}_append_only()")
    op.drop_index(op.f("ix_redactions_log_log_id_seq"), table_name="redactions")
    op.drop_table("redactions")
    op.drop_table("erasures")
