"""Signed checkpoints of each game's head hash, append-only like the events.

Games already stored are signed as they stand when this migration runs (with
``NJ_LEDGER_CHECKPOINT_KEY`` or the instance folder's key file), so their audits
find every checkpoint they expect.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = {
    "sqlite": [
        ("CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints "
         "BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END"),
        ("CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints "
         "BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END"),
    ],
    "postgresql": [
        ("CREATE FUNCTION checkpoints_append_only() RETURNS trigger LANGUAGE plpgsql AS "
         "$$ BEGIN RAISE EXCEPTION 'checkpoints are append-only'; END $$"),
        ("CREATE TRIGGER checkpoints_no_change BEFORE UPDATE OR DELETE ON checkpoints "
         "FOR EACH ROW EXECUTE FUNCTION checkpoints_append_only()"),
        ("CREATE TRIGGER checkpoints_no_truncate BEFORE TRUNCATE ON checkpoints "
         "FOR EACH STATEMENT EXECUTE FUNCTION checkpoints_append_only()"),
    ],
}
DROP_APPEND_ONLY = {
    "sqlite": ["DROP TRIGGER checkpoints_no_update", "DROP TRIGGER checkpoints_no_delete"],
    "postgresql": [
        "DROP TRIGGER checkpoints_no_truncate ON checkpoints",
        "DROP TRIGGER checkpoints_no_change ON checkpoints",
        "DROP FUNCTION checkpoints_append_only()",
    ],
}
BACKFILL_BATCH = 5000


def upgrade() -> None:
    checkpoints = op.create_table(
        "checkpoints",
        sa.Column("game_id", sa.String(24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_checkpoints_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_checkpoints")),
    )
    _sign_stored_games(checkpoints)
    for statement in APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)


def _sign_stored_games(checkpoints: sa.Table) -> None:
    from nj_ledger.store.base import utcnow
    from nj_ledger.store.checkpoints import checkpoint_key, checkpoint_rows, signed_seqs

    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT game_id, seq, type, hash FROM events WHERE seq = 1 OR type IN ('deal_ended', 'game_ended') "
        "ORDER BY game_id, seq"
    )).all()
    key: bytes | None = None
    moment = utcnow()
    batch: list[dict[str, object]] = []
    for game_id, seq, kind, digest in rows:
        key = key or checkpoint_key()
        record = {"seq": seq, "type": kind, "hash": digest}
        if signed_seqs([record]):
            batch.extend(checkpoint_rows(key, game_id, [record], moment))
        if len(batch) >= BACKFILL_BATCH:
            op.bulk_insert(checkpoints, batch)
            batch = []
    if batch:
        op.bulk_insert(checkpoints, batch)


def downgrade() -> None:
    for statement in DROP_APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)
    op.drop_table("checkpoints")
