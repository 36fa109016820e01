"""Club evenings: the evenings, their append-only log of decisions, their tables' codes and tokens; the
seasons' ladder settings (qualifying evenings, best evenings kept); shares of an evening's results.

Revision ID: 0008_evenings
Revises: 0007_club_feed
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_evenings"
down_revision: str | Sequence[str] | None = "0007_club_feed"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The evening's log is append-only like a game's (the database itself refuses a change).
APPEND_ONLY = {
    "sqlite": [
        ("CREATE TRIGGER evening_log_no_update BEFORE UPDATE ON evening_log "
         "BEGIN SELECT RAISE(ABORT, 'evening_log is append-only'); END"),
        ("CREATE TRIGGER evening_log_no_delete BEFORE DELETE ON evening_log "
         "BEGIN SELECT RAISE(ABORT, 'evening_log is append-only'); END"),
    ],
    "postgresql": [
        ("CREATE FUNCTION evening_log_append_only() RETURNS trigger LANGUAGE plpgsql AS "
         "$$ BEGIN RAISE EXCEPTION 'evening_log is append-only'; END $$"),
        ("CREATE TRIGGER evening_log_no_change BEFORE UPDATE OR DELETE ON evening_log "
         "FOR EACH ROW EXECUTE FUNCTION evening_log_append_only()"),
        ("CREATE TRIGGER evening_log_no_truncate BEFORE TRUNCATE ON evening_log "
         "FOR EACH STATEMENT EXECUTE FUNCTION evening_log_append_only()"),
    ],
}
DROP_APPEND_ONLY = {
    "sqlite": ["DROP TRIGGER evening_log_no_update", "DROP TRIGGER evening_log_no_delete"],
    "postgresql": [
        "DROP TRIGGER evening_log_no_truncate ON evening_log",
        "DROP TRIGGER evening_log_no_change ON evening_log",
        "DROP FUNCTION evening_log_append_only()",
    ],
}


def upgrade() -> None:
    op.create_table(
        "evenings",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("club_id", sa.String(length=24), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_evenings_status")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_evenings_club_id_clubs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_evenings")),
    )
    op.create_index(op.f("ix_evenings_club_id_played_on_created_at"), "evenings",
                    ["club_id", "played_on", "created_at"])
    op.create_table(
        "evening_log",
        sa.Column("evening_id", sa.String(length=24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("by", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.String(length=32), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.CheckConstraint("seq >= 1", name=op.f("ck_evening_log_seq_positive")),
        sa.ForeignKeyConstraint(["evening_id"], ["evenings.id"], name=op.f("fk_evening_log_evening_id_evenings")),
        sa.PrimaryKeyConstraint("evening_id", "seq", name=op.f("pk_evening_log")),
    )
    for statement in APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)
    op.create_table(
        "evening_tables",
        sa.Column("evening_id", sa.String(length=24), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["evening_id"], ["evenings.id"],
                                name=op.f("fk_evening_tables_evening_id_evenings")),
        sa.PrimaryKeyConstraint("evening_id", "number", name=op.f("pk_evening_tables")),
        sa.UniqueConstraint("code", name=op.f("uq_evening_tables_code")),
    )
    op.create_table(
        "table_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=24), nullable=False),
        sa.Column("evening_id", sa.String(length=24), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_table_tokens_club_id_clubs")),
        sa.ForeignKeyConstraint(["evening_id"], ["evenings.id"], name=op.f("fk_table_tokens_evening_id_evenings")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_tokens")),
        sa.UniqueConstraint("digest", name=op.f("uq_table_tokens_digest")),
    )
    op.create_index(op.f("ix_table_tokens_evening_id_number"), "table_tokens", ["evening_id", "number"])
    with op.batch_alter_table("seasons") as batch:
        batch.add_column(sa.Column("qualifying_evenings", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("best_evenings", sa.Integer(), nullable=True))
    # A share may also publish an evening's results.
    with op.batch_alter_table("shares") as batch:
        batch.drop_constraint(op.f("ck_shares_resource"), type_="check")
        batch.add_column(sa.Column("evening_id", sa.String(length=24), nullable=True))
        batch.create_check_constraint(op.f("ck_shares_resource"), "resource IN ('game', 'scoreboard', 'evening')")
        batch.create_check_constraint(op.f("ck_shares_evening"), "(resource = 'evening') = (evening_id IS NOT NULL)")
        batch.create_foreign_key(op.f("fk_shares_evening_id_evenings"), "evenings", ["evening_id"], ["id"])
        batch.create_index(op.f("ix_shares_evening_id"), ["evening_id"])


def downgrade() -> None:
    op.execute("DELETE FROM shares WHERE resource = 'evening'")
    with op.batch_alter_table("shares") as batch:
        batch.drop_index(op.f("ix_shares_evening_id"))
        batch.drop_constraint(op.f("fk_shares_evening_id_evenings"), type_="foreignkey")
        batch.drop_constraint(op.f("ck_shares_evening"), type_="check")
        batch.drop_constraint(op.f("ck_shares_resource"), type_="check")
        batch.drop_column("evening_id")
        batch.create_check_constraint(op.f("ck_shares_resource"), "resource IN ('game', 'scoreboard')")
    with op.batch_alter_table("seasons") as batch:
        batch.drop_column("best_evenings")
        batch.drop_column("qualifying_evenings")
    op.drop_index(op.f("ix_table_tokens_evening_id_number"), table_name="table_tokens")
    op.drop_table("table_tokens")
    op.drop_table("evening_tables")
    for statement in DROP_APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)
    op.drop_table("evening_log")
    op.drop_index(op.f("ix_evenings_club_id_played_on_created_at"), table_name="evenings")
    op.drop_table("evenings")
