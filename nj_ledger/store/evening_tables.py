"""An evening's tables: each table's code, the table tokens that reach one table, and what such a token
reaches.

A table token (role ``table``) is a secret that reaches one table of one
evening: what it may do is the API's to enforce (:mod:`api.auth`), from
:meth:`EveningTablesMixin.table_scope`. Its secret is known once, when it is
made (:class:`NewTableLink`); the store keeps its digest.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Connection, Table, insert, select

from ..evenings import ROUND
from .base import utcnow
from .clubs import token_digest
from .errors import NotFound
from .models import Evening, EveningEntry, EveningTable, TableToken
from .shares import SharesMixin
from .values import TokenInfo

TABLE_ROLE = "table"
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, no 1/I: read aloud and typed on a phone
CODE_LENGTH = 6
_FIND_TABLE_TOKEN = ("SELECT t.id, t.club_id, t.evening_id, t.number, t.digest FROM table_tokens t "
                     "WHERE t.digest = {mark}")

_TABLES = cast(Table, EveningTable.__table__)
_TOKENS = cast(Table, TableToken.__table__)


@dataclass(frozen=True)
class TableInfo(TokenInfo):
    """Who a table token speaks for: one table of one evening (role ``table``), which scores and confirms its own
    games and reaches nothing else."""

    evening_id: str
    table: int

    @property
    def can_write(self) -> bool:
        return True


@dataclass(frozen=True)
class TableScope:
    """What a table token reaches: its table's code, its games, and whether the evening is closed."""

    code: str
    games: frozenset[str]
    closed: bool


@dataclass(frozen=True)
class NewTableLink:
    """A table's token just made: the only moment its secret is known."""

    evening_id: str
    table: int
    code: str
    secret: str
    created_at: datetime


def missing_evening(evening_id: str) -> NotFound:
    """The refusal when a club has no such evening."""
    return NotFound("There is no evening {evening!r} in this club.", evening=evening_id)


class EveningTablesMixin(SharesMixin):
    """The evening's tables: their codes, their tokens, and who a token speaks for."""

    def _add_tables(self, connection: Connection, evening_id: str, count: int) -> None:
        """The evening's tables 1…count, each with a code of its own, those missing added."""
        have = set(connection.execute(select(EveningTable.number).where(EveningTable.evening_id == evening_id))
                   .scalars())
        for number in range(1, count + 1):
            if number in have:
                continue
            while True:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if connection.execute(select(EveningTable.code).where(EveningTable.code == code)).first() is None:
                    break
            connection.execute(insert(_TABLES), [{"evening_id": evening_id, "number": number, "code": code,
                                                       "created_at": utcnow()}])

    def _new_link(self, connection: Connection, club_id: str, evening_id: str, number: int) -> NewTableLink:
        secret = secrets.token_urlsafe(32)
        now = utcnow()
        connection.execute(insert(_TOKENS), [{"club_id": club_id, "evening_id": evening_id, "number": number,
                                              "digest": token_digest(secret), "created_at": now}])
        code = connection.execute(select(EveningTable.code).where(
            EveningTable.evening_id == evening_id, EveningTable.number == number)).scalar_one()
        return NewTableLink(evening_id, number, code, secret, now)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """A club token's, a share's, else a table token's (:class:`TableInfo`), or None."""
        found = super().authenticate(secret)
        if found is not None:
            return found
        digest = token_digest(secret)
        rows = self.recorder.lookup(self.engine, _FIND_TABLE_TOKEN, (digest,))
        if not rows or not hmac.compare_digest(rows[0][4], digest):
            return None
        token_id, club_id, evening_id, number, _ = rows[0]
        return TableInfo(token_id, club_id, TABLE_ROLE, f"table {number}", evening_id, number)

    def table_scope(self, club_id: str, evening_id: str, table: int) -> TableScope:
        """What a table token reaches: its code, the games of its table in every round started, the evening's
        status."""
        with self.reading() as session:
            connection = session.connection()
            status = connection.execute(select(Evening.status).where(
                Evening.id == evening_id, Evening.club_id == club_id)).scalar_one_or_none()
            if status is None:
                raise missing_evening(evening_id)
            code = connection.execute(select(EveningTable.code).where(
                EveningTable.evening_id == evening_id, EveningTable.number == table)).scalar_one()
            rounds = connection.execute(select(EveningEntry.data).where(
                EveningEntry.evening_id == evening_id, EveningEntry.type == ROUND)).scalars()
            games = frozenset(t["game"] for data in rounds for t in data["tables"] if t["table"] == table)
            return TableScope(code, games, status == "closed")

    def table_by_code(self, club_id: str, code: str) -> tuple[str, int]:
        """The evening and the table number a code names, in this club."""
        with self.reading() as session:
            found = session.execute(select(EveningTable.evening_id, EveningTable.number)
                                    .join(Evening, Evening.id == EveningTable.evening_id)
                                    .where(EveningTable.code == code.strip().upper(), Evening.club_id == club_id)
                                    ).first()
            if found is None:
                raise NotFound("There is no table {code!r}.", code=code)
            return str(found[0]), int(found[1])

