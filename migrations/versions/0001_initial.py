"""Clubs, tokens, players, games, the append-only events log and idempotency keys.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def json_type() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def timestamp() -> sa.DateTime:
    return sa.DateTime(timezone=True)


# The database itself refuses to change or remove an event: the log is append-only.
APPEND_ONLY = {
    "sqlite": [
        ("CREATE TRIGGER events_no_update BEFORE UPDATE ON events "
         "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END"),
        ("CREATE TRIGGER events_no_delete BEFORE DELETE ON events "
         "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END"),
    ],
    "postgresql": [
        ("CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS "
         "$$ BEGIN RAISE EXCEPTION 'events are append-only'; END $$"),
        ("CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events "
         "FOR EACH ROW EXECUTE FUNCTION events_append_only()"),
        ("CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
         "FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()"),
    ],
}
DROP_APPEND_ONLY = {
    "sqlite": ["DROP TRIGGER events_no_update", "DROP TRIGGER events_no_delete"],
    "postgresql": [
        "DROP TRIGGER events_no_truncate ON events",
        "DROP TRIGGER events_no_change ON events",
        "DROP FUNCTION events_append_only()",
    ],
}


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.String(24), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("created_at", timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("label", sa.String(120), nullable=False),
        sa.Column("created_at", timestamp(), nullable=False),
        sa.CheckConstraint("role IN ('scorer', 'viewer')", name=op.f("ck_tokens_role")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_tokens_club_id_clubs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("digest", name=op.f("uq_tokens_digest")),
    )
    op.create_index(op.f("ix_tokens_club_id"), "tokens", ["club_id"])
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("name_key", sa.String(80), nullable=False),
        sa.Column("created_at", timestamp(), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_players_club_id_clubs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("club_id", "name_key", name=op.f("uq_players_club_id_name_key")),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(24), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("created_at", timestamp(), nullable=False),
        sa.Column("updated_at", timestamp(), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("profile", sa.String(40), nullable=False),
        sa.Column("player_names", json_type(), nullable=False),
        sa.Column("starting_chips", sa.Integer(), nullable=False),
        sa.Column("deals_played", sa.Integer(), nullable=False),
        sa.Column("meta", json_type(), nullable=False),
        sa.Column("source_digest", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_games_club_id_clubs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_club_id_created_at"), "games", ["club_id", "created_at"])
    op.create_index(op.f("ix_games_club_id_source_digest"), "games", ["club_id", "source_digest"])
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(24), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_players_game_id_games")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_game_players_player_id_players")),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_players")),
    )
    op.create_index(op.f("ix_game_players_player_id"), "game_players", ["player_id"])
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(24), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),  # json, not jsonb: key order is kept
        sa.Column("v", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sa.String(32), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.CheckConstraint("seq >= 1", name=op.f("ck_events_seq_positive")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_events_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_events")),
    )
    op.create_index(op.f("ix_events_game_id_deal"), "events", ["game_id", "deal"])
    op.create_table(
        "idempotency_keys",
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("body", json_type(), nullable=False),
        sa.Column("created_at", timestamp(), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_idempotency_keys_club_id_clubs")),
        sa.PrimaryKeyConstraint("club_id", "key", name=op.f("pk_idempotency_keys")),
    )
    for statement in APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP_APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)
    op.drop_table("idempotency_keys")
    op.drop_index(op.f("ix_events_game_id_deal"), table_name="events")
    op.drop_table("events")
    op.drop_index(op.f("ix_game_players_player_id"), table_name="game_players")
    op.drop_table("game_players")
    op.drop_index(op.f("ix_games_club_id_source_digest"), table_name="games")
    op.drop_index(op.f("ix_games_club_id_created_at"), table_name="games")
    op.drop_table("games")
    op.drop_table("players")
    op.drop_index(op.f("ix_tokens_club_id"), table_name="tokens")
    op.drop_table("tokens")
    op.drop_table("clubs")
