"""The schema version of each entry of an evening's log (``evening_log.v``), as a game's events keep theirs: an
entry written at an older version is upcast as it is read, its row never rewritten.

Every entry stored so far is of version 1: the column comes with the default 1, which the database gives the rows
already there without writing them (SQLite reads it from the table's definition, PostgreSQL from its catalog),
so the log's append-only triggers never fire. The version is not hashed: no stored hash changes.

Revision ID: 0015_evening_log_version
Revises: 0014_evening_checkpoints
Create Date: 2026-11-28

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_evening_log_version"
down_revision: str | Sequence[str] | None = "0014_evening_checkpoints"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # op.add_column, not a batch: SQLite's batch copies the table into a new one, which drops its triggers
    op.add_column("evening_log", sa.Column("v", sa.Integer(), nullable=False, server_default=sa.text("1")))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN on both (SQLite 3.35 on): the triggers stay, no row is updated
    op.drop_column("evening_log", "v")
