"""A club's feed: the games created, deals ended and games ended in its games, in the order they were
recorded, each at a position of its own (the club stream's ``id``).

Revision ID: 0007_club_feed
Revises: 0006_games_by_day
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_club_feed"
down_revision: str | Sequence[str] | None = "0006_games_by_day"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "club_feed",
        sa.Column("club_id", sa.String(length=24), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=24), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=24), nullable=False),
        sa.Column("recorded_at", sa.String(length=32), nullable=False),
        sa.CheckConstraint("position >= 1", name=op.f("ck_club_feed_position_positive")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_club_feed_club_id_clubs")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_club_feed_game_id_games")),
        sa.PrimaryKeyConstraint("club_id", "position", name=op.f("pk_club_feed")),
    )


def downgrade() -> None:
    op.drop_table("club_feed")
