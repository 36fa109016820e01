"""Deal analyses: a settled deal's review by the solver, kept as a projection of the log.

Revision ID: 0009_deal_analysis
Revises: 0008_evenings
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009_deal_analysis"
down_revision: str | Sequence[str] | None = "0008_evenings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deal_analyses",
        sa.Column("game_id", sa.String(length=24), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("body", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_deal_analyses_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "deal", "head_seq", name=op.f("pk_deal_analyses")),
    )


def downgrade() -> None:
    op.drop_table("deal_analyses")
