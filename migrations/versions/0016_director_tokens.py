"""A club's director: a token role above the scorer's (what a scorer may do, and the decisions only the club's
director takes, such as a member's erasure). Only the tokens' check of their role changes; no row is rewritten.

SQLite cannot alter a check constraint in place: its batch copies the ``tokens`` table (no trigger is on it), every
row with its id. The copy drops the old table, which the phone codes' foreign key (``phone_codes.token_id``, the
token a code signed a phone in with) forbids while it names a row: those links are kept aside, cleared, and put
back once the new table holds the same ids. PostgreSQL drops the check and adds the new one.

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
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:  # the links of the phone codes to their tokens, kept aside while the table is copied
        op.execute("CREATE TEMPORARY TABLE phone_code_tokens AS SELECT id, token_id FROM phone_codes "
                   "WHERE token_id IS NOT NULL")
        op.execute("UPDATE phone_codes SET token_id = NULL WHERE token_id IS NOT NULL")
    with op.batch_alter_table("tokens") as batch:
        batch.drop_constraint(op.f("ck_tokens_role"), type_="check")
        batch.create_check_constraint("role", condition)
    if sqlite:
        op.execute("UPDATE phone_codes SET token_id = (SELECT token_id FROM phone_code_tokens "
                   "WHERE phone_code_tokens.id = phone_codes.id) WHERE id IN (SELECT id FROM phone_code_tokens)")
        op.execute("DROP TABLE phone_code_tokens")


def upgrade() -> None:
    _check(WITH_DIRECTOR)


def downgrade() -> None:
    # a director's token becomes a scorer's: what it could do, but the director's own decisions
    op.execute("UPDATE tokens SET role = 'scorer' WHERE role = 'director'")
    _check(WITHOUT)
