"""A club's games by the day they were played, newest first: the order of the game lists.

Revision ID: 0006_games_by_day
Revises: 0005_shares
Create Date: 2026-11-24

"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006_games_by_day"
down_revision: str | Sequence[str] | None = "0005_shares"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(op.f("ix_games_club_id_played_on_created_at"), "games", ["club_id", "played_on", "created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_games_club_id_played_on_created_at"), table_name="games")
