"""Scoreboards: ended games' results per game and seat, day and month rollups per player, seasons.

The results are derived from the log: games that ended before this revision are
counted as it runs, from their logs, by the rebuild (``nj-ledger projections
rebuild`` does the same at any time). That uses today's models of these tables:
a later revision that changes them takes this filling over.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

END_KEY = sa.String(64)


def upgrade() -> None:
    op.create_table(
        "game_results",
        sa.Column("game_id", sa.String(24), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("end_key", END_KEY, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("deals", sa.Integer(), nullable=False),
        sa.Column("starting_chips", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_game_results_club_id_clubs")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_results_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_results")),
    )
    with op.batch_alter_table("game_results") as batch:
        batch.create_index(op.f("ix_game_results_club_id_end_key"), ["club_id", "end_key"])
        batch.create_index(op.f("ix_game_results_club_id_played_on"), ["club_id", "played_on"])
    op.create_table(
        "seat_results",
        sa.Column("game_id", sa.String(24), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("end_key", END_KEY, nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in (
            "deals_played", "deals_won", "grand_operas", "honours_taken", "honour_chips", "betes_paid", "ruins",
            "chips", "net", "rank", "win_units")),
        sa.Column("rating_mu", sa.Float(), nullable=False),
        sa.Column("rating_sigma", sa.Float(), nullable=False),
        sa.Column("chips_by_deal", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_seat_results_club_id_clubs")),
        sa.ForeignKeyConstraint(["game_id"], ["game_results.game_id"],
                                name=op.f("fk_seat_results_game_id_game_results")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_seat_results_player_id_players")),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seat_results")),
    )
    with op.batch_alter_table("seat_results") as batch:
        batch.create_index(op.f("ix_seat_results_player_id_end_key"), ["player_id", "end_key"])
        batch.create_index(op.f("ix_seat_results_player_id_played_on_end_key"), ["player_id", "played_on", "end_key"])
    op.create_table(
        "score_rollups",
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("grain", sa.String(8), nullable=False),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in (
            "games", "win_units", "deals_played", "deals_won", "net", "grand_operas", "honours_taken",
            "honour_chips", "betes_paid", "ruins")),
        sa.Column("last_end_key", END_KEY, nullable=False),
        sa.Column("rating_mu", sa.Float(), nullable=False),
        sa.Column("rating_sigma", sa.Float(), nullable=False),
        sa.CheckConstraint("grain IN ('day', 'month')", name=op.f("ck_score_rollups_grain")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_score_rollups_club_id_clubs")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_score_rollups_player_id_players")),
        sa.PrimaryKeyConstraint("club_id", "grain", "period_start", "player_id", name=op.f("pk_score_rollups")),
    )
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False),
        sa.Column("starts_on", sa.Date(), nullable=False),
        sa.Column("ends_on", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("starts_on <= ends_on", name=op.f("ck_seasons_period")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_seasons_club_id_clubs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seasons")),
        sa.UniqueConstraint("club_id", "name_key", name=op.f("uq_seasons_club_id_name_key")),
    )
    _count_games_already_ended()


def _count_games_already_ended() -> None:
    bind = op.get_bind()
    if bind.execute(sa.text("SELECT 1 FROM games WHERE status = 'ended' LIMIT 1")).first() is None:
        return
    from sqlalchemy.orm import Session

    from nj_ledger.store.projections.rebuild import rebuild_in

    with Session(bind=bind) as session:  # joins the migration's transaction
        for _ in rebuild_in(session):
            pass
        session.flush()


def downgrade() -> None:
    op.drop_table("seasons")
    op.drop_table("score_rollups")
    with op.batch_alter_table("seat_results") as batch:
        batch.drop_index(op.f("ix_seat_results_player_id_played_on_end_key"))
        batch.drop_index(op.f("ix_seat_results_player_id_end_key"))
    op.drop_table("seat_results")
    with op.batch_alter_table("game_results") as batch:
        batch.drop_index(op.f("ix_game_results_club_id_played_on"))
        batch.drop_index(op.f("ix_game_results_club_id_end_key"))
    op.drop_table("game_results")
