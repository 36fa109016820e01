"""Shares: read-only links to one game or to a club's scoreboard, kept as the SHA-256 of their secret.

Revision ID: 0005_shares
Revises: 0004
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_shares"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "shares",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("resource", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(24), nullable=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("label", sa.String(120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("resource IN ('game', 'scoreboard')", name=op.f("ck_shares_resource")),
        sa.CheckConstraint("(resource = 'game') = (game_id IS NOT NULL)", name=op.f("ck_shares_game")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_shares_club_id_clubs")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_shares_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shares")),
        sa.UniqueConstraint("digest", name=op.f("uq_shares_digest")),
    )
    op.create_index(op.f("ix_shares_club_id"), "shares", ["club_id"])
    op.create_index(op.f("ix_shares_game_id"), "shares", ["game_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_shares_game_id"), table_name="shares")
    op.drop_index(op.f("ix_shares_club_id"), table_name="shares")
    op.drop_table("shares")
