"""Member and season keys made again, composed (NFC): "Chloé" typed with its é as one character or as an e and an
accent is one member. A key stored before was the name without case only; a name stored decomposed would no
longer be found by the key of the same name typed now. No event is touched (the log is never rewritten), nor any
name: only the players' and the seasons' ``name_key``.

Two rows of one club whose new keys are the same (one name stored in both forms) are not merged: the key goes to
the row that holds it already, else to the older, and the other keeps its old key, which no name typed now makes
(an old key that a name typed now makes is already the new key, and was left as it was).

Revision ID: 0012_name_keys
Revises: 0011_phone_codes
Create Date: 2026-11-28

"""

import unicodedata
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_name_keys"
down_revision: str | Sequence[str] | None = "0011_phone_codes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("players", "seasons")


def composed_key(name: str) -> str:
    """The key as this revision makes it (nj_ledger.names.name_key when it was written)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name.strip()).casefold())


def cased_key(name: str) -> str:
    """The key as the revisions before this one made it."""
    return name.strip().casefold()


def _rekey(key: Callable[[str], str]) -> None:
    connection = op.get_bind()
    for name in TABLES:
        table = sa.table(name, sa.column("id", sa.Integer()), sa.column("club_id", sa.String()),
                         sa.column("name", sa.String()), sa.column("name_key", sa.String()))
        rows = connection.execute(sa.select(table.c.id, table.c.club_id, table.c.name, table.c.name_key)
                                  .order_by(table.c.id)).all()
        taken = {(row.club_id, row.name_key) for row in rows}
        for row in rows:
            wanted = key(row.name)
            if wanted == row.name_key or (row.club_id, wanted) in taken:
                continue
            connection.execute(sa.update(table).where(table.c.id == row.id).values(name_key=wanted))
            taken.discard((row.club_id, row.name_key))
            taken.add((row.club_id, wanted))


def upgrade() -> None:
    _rekey(composed_key)


def downgrade() -> None:
    _rekey(cased_key)
