"""The events' index of deals keeps the first event of each deal only.

A deal's records are read as the stretch of the log from its ``deal`` event to
the next deal's, along the (game_id, seq) key; the index of every event's deal
cost each insert of the log a second index entry for that one read.

Revision ID: 0010_deal_starts
Revises: 0009_deal_analysis
Create Date: 2026-11-25

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_deal_starts"
down_revision: str | Sequence[str] | None = "0009_deal_analysis"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEAL_STARTS = sa.text("type = 'deal'")


def upgrade() -> None:
    op.create_index(op.f("ix_events_deal_starts"), "events", ["game_id", "deal", "seq"], unique=False,
                    sqlite_where=DEAL_STARTS, postgresql_where=DEAL_STARTS)
    op.drop_index(op.f("ix_events_game_id_deal"), table_name="events")


def downgrade() -> None:
    op.create_index(op.f("ix_events_game_id_deal"), "events", ["game_id", "deal"], unique=False)
    op.drop_index(op.f("ix_events_deal_starts"), table_name="events")
