"""A club's director: a token role above the scorer's (what a scorer may do, and the decisions only the club's
director takes, such as a member's erasure). Only the tokens' check of their role changes; no row is rewritten.

SQLite cannot alter a check constraint in place: its batch copies the ``tokens`` table (no trigger is on it; the
phone codes' foreign key names it by name and follows). PostgreSQL drops the check and adds the new one.

Revision ID: 0016_director_tokens
Revises: 0015_evening_log_version
Create Date: 2026-11-28

"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016_director_tokens"
down_revision: str | Sequence[str] | None = "0015_evening_log_version"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WITH_DIRECTOR = "role IN ('director', 'scorer', 'viewer')"
WITHOUT = "role IN ('scorer', 'viewer')"


def _check(condition: str) -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_constraint(op.f("ck_tokens_role"), type_="check")
        batch.create_check_constraint("role", condition)


def upgrade() -> None:
    _check(WITH_DIRECTOR)


def downgrade() -> None:
    # a director's token becomes a scorer's: what it could do, but the director's own decisions
    op.execute("UPDATE tokens SET role = 'scorer' WHERE role = 'director'")
    _check(WITHOUT)
