"""Receipts: the signing keys' public halves, Ed25519 checkpoints, tokens that can be revoked, wider chip columns.

- ``signing_keys``: the public keys that sign receipts and checkpoints, append-only, each newer one signing
  its succession.
- ``checkpoints`` gain the key's id and the signed time of an Ed25519 checkpoint (a receipt), and room for its
  signature; the HMAC checkpoints already stored keep verifying with their key.
- ``tokens`` gain when each was last used and when it was revoked.
- The scoreboard's chip columns become BIGINT: a game of a billion starting chips each overflows a 32-bit sum.
- The HMAC checkpoints already stored are checked with their key and signed again with the signing key (one
  that does not check is left as it is, and its audit says so): from here on no HMAC is believed, so a
  checkpoint key file put in the instance folder lends nobody a signature. Every stored game's head without a
  checkpoint is signed too, so that every game's audit finds one at its head.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHECKPOINT_TRIGGERS = {
    "sqlite": (
        ["DROP TRIGGER checkpoints_no_update", "DROP TRIGGER checkpoints_no_delete"],
        ["CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints "
         "BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END",
         "CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints "
         "BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END"],
    ),
}
KEYS_APPEND_ONLY = {
    "sqlite": [
        ("CREATE TRIGGER signing_keys_no_update BEFORE UPDATE ON signing_keys "
         "BEGIN SELECT RAISE(ABORT, 'signing keys are append-only'); END"),
        ("CREATE TRIGGER signing_keys_no_delete BEFORE DELETE ON signing_keys "
         "BEGIN SELECT RAISE(ABORT, 'signing keys are append-only'); END"),
    ],
    "postgresql": [
        ("CREATE FUNCTION signing_keys_append_only() RETURNS trigger LANGUAGE plpgsql AS "
         "$$ BEGIN RAISE EXCEPTION 'signing keys are append-only'; END $$"),
        ("CREATE TRIGGER signing_keys_no_change BEFORE UPDATE OR DELETE ON signing_keys "
         "FOR EACH ROW EXECUTE FUNCTION signing_keys_append_only()"),
        ("CREATE TRIGGER signing_keys_no_truncate BEFORE TRUNCATE ON signing_keys "
         "FOR EACH STATEMENT EXECUTE FUNCTION signing_keys_append_only()"),
    ],
}
DROP_KEYS_APPEND_ONLY = {
    "sqlite": ["DROP TRIGGER signing_keys_no_update", "DROP TRIGGER signing_keys_no_delete"],
    "postgresql": [
        "DROP TRIGGER signing_keys_no_truncate ON signing_keys",
        "DROP TRIGGER signing_keys_no_change ON signing_keys",
        "DROP FUNCTION signing_keys_append_only()",
    ],
}
CHIP_COLUMNS = {"seat_results": ("honour_chips", "chips", "net"), "score_rollups": ("net", "honour_chips")}
BACKFILL_BATCH = 5000


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "signing_keys",
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("algorithm", sa.String(16), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("predecessor", sa.String(32), nullable=True),
        sa.Column("endorsement", sa.String(128), nullable=True),
        sa.Column("handover", sa.String(128), nullable=True),
        sa.PrimaryKeyConstraint("number", name=op.f("pk_signing_keys")),
        sa.UniqueConstraint("id", name=op.f("uq_signing_keys_id")),
    )
    for statement in KEYS_APPEND_ONLY.get(dialect, []):
        op.execute(statement)

    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True))

    # SQLite copies the table to alter a column, and a trigger would not follow it; both sign its rows again
    drop, create = CHECKPOINT_TRIGGERS.get(dialect, (["ALTER TABLE checkpoints DISABLE TRIGGER USER"],
                                                     ["ALTER TABLE checkpoints ENABLE TRIGGER USER"]))
    for statement in drop:
        op.execute(statement)
    with op.batch_alter_table("checkpoints") as batch:
        batch.alter_column("signature", existing_type=sa.String(64), type_=sa.String(128), existing_nullable=False)
        batch.add_column(sa.Column("key_id", sa.String(32), nullable=True))
        batch.add_column(sa.Column("at", sa.String(32), nullable=True))
    _sign_again()
    for statement in create:
        op.execute(statement)

    for table, columns in CHIP_COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(column, existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=False)

    _sign_heads()


CHECKPOINTS = sa.table("checkpoints", sa.column("game_id"), sa.column("seq"), sa.column("head_hash"),
                       sa.column("signature"), sa.column("created_at"), sa.column("key_id"), sa.column("at"))


def _sign_again() -> None:
    """Each HMAC checkpoint that checks with its key, signed again with the signing key (in place: the
    checkpoints' guards are off while the table is altered)."""
    from nj_ledger.chain import checkpoint_valid
    from nj_ledger.store.base import iso, utcnow
    from nj_ledger.store.checkpoints import legacy_key
    from nj_ledger.store.keys import accepted_signer

    bind = op.get_bind()
    rows = bind.execute(sa.select(CHECKPOINTS.c.game_id, CHECKPOINTS.c.seq, CHECKPOINTS.c.head_hash,
                                  CHECKPOINTS.c.signature)).all()
    key = legacy_key() if rows else None
    if key is None:
        return
    signer = accepted_signer(bind)
    at = iso(utcnow())
    for game_id, seq, head, signature in rows:
        if checkpoint_valid(key, game_id, seq, head, signature):
            receipt = signer.sign(game_id, seq, head, at)
            bind.execute(sa.update(CHECKPOINTS).where(CHECKPOINTS.c.game_id == game_id, CHECKPOINTS.c.seq == seq)
                         .values(signature=receipt["signature"], key_id=signer.id, at=at))


def _sign_heads() -> None:
    """A receipt at every stored game's head that has no checkpoint there yet."""
    from nj_ledger.store.base import iso, utcnow
    from nj_ledger.store.keys import accepted_signer

    bind = op.get_bind()
    heads = bind.execute(sa.text(
        "SELECT g.id, g.version, g.head_hash FROM games g WHERE NOT EXISTS "
        "(SELECT 1 FROM checkpoints c WHERE c.game_id = g.id AND c.seq = g.version) ORDER BY g.id"
    )).all()
    if not heads:
        return
    signer = accepted_signer(bind)
    moment = utcnow()
    at = iso(moment)
    rows = []
    for game_id, version, head in heads:
        receipt = signer.sign(game_id, version, head, at)
        rows.append({"game_id": game_id, "seq": version, "head_hash": head, "signature": receipt["signature"],
                     "created_at": moment, "key_id": signer.id, "at": at})
        if len(rows) >= BACKFILL_BATCH:
            op.bulk_insert(CHECKPOINTS, rows)
            rows = []
    if rows:
        op.bulk_insert(CHECKPOINTS, rows)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table, columns in CHIP_COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(column, existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=False)
    # The Ed25519 checkpoints have no place in the older schema: they go (the HMAC ones, if any, stay).
    drop, create = CHECKPOINT_TRIGGERS.get(dialect, (["ALTER TABLE checkpoints DISABLE TRIGGER USER"],
                                                     ["ALTER TABLE checkpoints ENABLE TRIGGER USER"]))
    for statement in drop:
        op.execute(statement)
    op.execute("DELETE FROM checkpoints WHERE key_id IS NOT NULL")
    with op.batch_alter_table("checkpoints") as batch:
        batch.drop_column("at")
        batch.drop_column("key_id")
        batch.alter_column("signature", existing_type=sa.String(128), type_=sa.String(64), existing_nullable=False)
    for statement in create:
        op.execute(statement)
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("revoked_at")
        batch.drop_column("last_used_at")
    for statement in DROP_KEYS_APPEND_ONLY.get(dialect, []):
        op.execute(statement)
    op.drop_table("signing_keys")
