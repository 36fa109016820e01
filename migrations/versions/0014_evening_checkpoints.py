"""Signed checkpoints of each evening's log of decisions, append-only like the log: every decision recorded from
here on signs the evening's head (its seq, head hash and time) with the signing key that signs the games, in the
transaction that appends it (``nj_ledger.store.evening_checkpoints``).

Nothing is signed here: an evening stored before this revision keeps no checkpoint for the decisions it holds,
and its audit says it is not signed (older than signing) rather than altered. A decision recorded in it after the
upgrade is signed, and that signature vouches for every decision before it through the hash chain.

Revision ID: 0014_evening_checkpoints
Revises: 0013_screen_shares
Create Date: 2026-11-28

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_evening_checkpoints"
down_revision: str | Sequence[str] | None = "0013_screen_shares"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = {
    "sqlite": [
        ("CREATE TRIGGER evening_checkpoints_no_update BEFORE UPDATE ON evening_checkpoints "
         "BEGIN SELECT RAISE(ABORT, 'evening_checkpoints are append-only'); END"),
        ("CREATE TRIGGER evening_checkpoints_no_delete BEFORE DELETE ON evening_checkpoints "
         "BEGIN SELECT RAISE(ABORT, 'evening_checkpoints are append-only'); END"),
    ],
    "postgresql": [
        ("CREATE FUNCTION evening_checkpoints_append_only() RETURNS trigger LANGUAGE plpgsql AS "
         "$$ BEGIN RAISE EXCEPTION 'evening_checkpoints are append-only'; END $$"),
        ("CREATE TRIGGER evening_checkpoints_no_change BEFORE UPDATE OR DELETE ON evening_checkpoints "
         "FOR EACH ROW EXECUTE FUNCTION evening_checkpoints_append_only()"),
        ("CREATE TRIGGER evening_checkpoints_no_truncate BEFORE TRUNCATE ON evening_checkpoints "
         "FOR EACH STATEMENT EXECUTE FUNCTION evening_checkpoints_append_only()"),
    ],
}
DROP_APPEND_ONLY = {
    "sqlite": ["DROP TRIGGER evening_checkpoints_no_update", "DROP TRIGGER evening_checkpoints_no_delete"],
    "postgresql": [
        "DROP TRIGGER evening_checkpoints_no_truncate ON evening_checkpoints",
        "DROP TRIGGER evening_checkpoints_no_change ON evening_checkpoints",
        "DROP FUNCTION evening_checkpoints_append_only()",
    ],
}


def upgrade() -> None:
    op.create_table(
        "evening_checkpoints",
        sa.Column("evening_id", sa.String(length=24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(length=64), nullable=False),
        sa.Column("signature", sa.String(length=128), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["evening_id"], ["evenings.id"],
                                name=op.f("fk_evening_checkpoints_evening_id_evenings")),
        sa.PrimaryKeyConstraint("evening_id", "seq", name=op.f("pk_evening_checkpoints")),
    )
    for statement in APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP_APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)
    op.drop_table("evening_checkpoints")
