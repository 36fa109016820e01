"""An evening share made for the big screen is marked as such (``shares.screen``): only such a share reads the
codes of the evening's tables (and their pages and QR codes), which let anyone who has them join a table by its
code; a share of the published results, made before or after, reads none.

The shares made before this revision are all taken for results links (false): a big screen opened with one shows
its tables without their codes until the director makes its link again.

Revision ID: 0013_screen_shares
Revises: 0012_name_keys
Create Date: 2026-11-28

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_screen_shares"
down_revision: str | Sequence[str] | None = "0012_name_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("shares") as batch:
        batch.add_column(sa.Column("screen", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("shares") as batch:
        batch.drop_column("screen")
