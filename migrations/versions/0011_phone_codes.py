"""Phones' one-time sign-in codes: the QR code on the organiser's screen signs one phone in, within minutes, and
that phone gets a token of its own. Kept as the SHA-256 of the code, with the token it made.

Revision ID: 0011_phone_codes
Revises: 0010_deal_starts
Create Date: 2026-11-27

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_phone_codes"
down_revision: str | Sequence[str] | None = "0010_deal_starts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "phone_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(24), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("label", sa.String(120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("token_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("role IN ('scorer', 'viewer')", name=op.f("ck_phone_codes_role")),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"], name=op.f("fk_phone_codes_club_id_clubs")),
        sa.ForeignKeyConstraint(["token_id"], ["tokens.id"], name=op.f("fk_phone_codes_token_id_tokens")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_phone_codes")),
        sa.UniqueConstraint("digest", name=op.f("uq_phone_codes_digest")),
    )
    op.create_index(op.f("ix_phone_codes_club_id"), "phone_codes", ["club_id"])
    op.create_index(op.f("ix_phone_codes_expires_at"), "phone_codes", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_phone_codes_expires_at"), table_name="phone_codes")
    op.drop_index(op.f("ix_phone_codes_club_id"), table_name="phone_codes")
    op.drop_table("phone_codes")
