"""An evening's tables: each table's code, the table tokens that reach one table, and what such a token
reaches.

A table token (role ``table``) is a secret that reaches one table of one
evening: what it may do is the API's to enforce (:mod:`api.auth`), from
:meth:`TableTokens.table_scope`. Its secret is known once, when it is
made (:class:`NewTableLink`); the store keeps its digest.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Connection, Table, func, insert, select

from ..evenings import ROUND
from .base import Database, utcnow
from .errors import NotFound
from .models import Evening, EveningTable, TableToken
from .tokens import token_digest
from .values import TokenInfo

TABLE_ROLE = "table"
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, no 1/I: read aloud and typed on a phone
CODE_LENGTH = 8  # 40 bits: a code opens its table to anyone who types it (POST /tables/{code}/join); the 6-character
# codes of evenings opened before keep working
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
class JoinedTable:
    """A table joined by its code: its club, and the new token made for it."""

    club_id: str
    link: NewTableLink


@dataclass(frozen=True)
class NewTableLink:
    """A table's token just made: the only moment its secret is known."""

    evening_id: str
    table: int
    code: str
    secret: str
    created_at: datetime


class TableFull(Exception):
    """A table has as many tokens as a join by its code may make (``most``): a code joins it no more; the
    director's scorer links (:meth:`nj_ledger.store.evenings.Evenings.table_link`) still make tokens for it."""

    def __init__(self, table: int, most: int) -> None:
        super().__init__(table, most)
        self.table = table
        self.most = most


def missing_evening(evening_id: str) -> NotFound:
    """The refusal when a club has no such evening."""
    return NotFound("There is no evening {evening!r} in this club.", evening=evening_id)


class TableTokens:
    """The evening's tables: their codes, their tokens (one of the credentials a request may carry), and what a
    table token reaches."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add_tables(self, connection: Connection, evening_id: str, count: int) -> None:
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

    def new_link(self, connection: Connection, club_id: str, evening_id: str, number: int) -> NewTableLink:
        secret = secrets.token_urlsafe(32)
        now = utcnow()
        connection.execute(insert(_TOKENS), [{"club_id": club_id, "evening_id": evening_id, "number": number,
                                              "digest": token_digest(secret), "created_at": now}])
        code = connection.execute(select(EveningTable.code).where(
            EveningTable.evening_id == evening_id, EveningTable.number == number)).scalar_one()
        return NewTableLink(evening_id, number, code, secret, now)

    def authenticate(self, secret: str) -> TokenInfo | None:
        """What a table token's secret reaches (:class:`TableInfo`), or None."""
        digest = token_digest(secret)
        rows = self.db.recorder.lookup(self.db.engine, _FIND_TABLE_TOKEN, (digest,))
        if not rows or not hmac.compare_digest(rows[0][4], digest):
            return None
        token_id, club_id, evening_id, number, _ = rows[0]
        return TableInfo(token_id, club_id, TABLE_ROLE, f"table {number}", evening_id, number)

    def table_scope(self, club_id: str, evening_id: str, table: int) -> TableScope:
        """What a table token reaches: its code, the games of its table in every round started, the evening's
        status."""
        with self.db.reading() as session:
            connection = session.connection()
            status = connection.execute(select(Evening.status).where(
                Evening.id == evening_id, Evening.club_id == club_id)).scalar_one_or_none()
            if status is None:
                raise missing_evening(evening_id)
            code = connection.execute(select(EveningTable.code).where(
                EveningTable.evening_id == evening_id, EveningTable.number == table)).scalar_one()
            rounds = [item.data for item in self.db.recorder.select_entries(connection, evening_id, kind=ROUND)]
            games = frozenset(t["game"] for data in rounds for t in data["tables"] if t["table"] == table)
            return TableScope(code, games, status == "closed")

    def table_by_code(self, club_id: str, code: str) -> tuple[str, int]:
        """The evening and the table number a code names, in this club."""
        with self.db.reading() as session:
            found = session.execute(select(EveningTable.evening_id, EveningTable.number)
                                    .join(Evening, Evening.id == EveningTable.evening_id)
                                    .where(EveningTable.code == code.strip().upper(), Evening.club_id == club_id)
                                    ).first()
            if found is None:
                raise NotFound("There is no table {code!r}.", code=code)
            return str(found[0]), int(found[1])

    def join_table(self, code: str, most: int | None = None) -> JoinedTable | None:
        """A new token for the table ``code`` names, whatever its club, if its evening is open; None for a code no
        table has and for a table of a closed evening alike (the caller tells the two apart to no one).

        With ``most``, :class:`TableFull` when the table has that many tokens already (its scorer links and joins
        alike): a code known to anyone does not grow the table of tokens without bound. The table's row is locked
        while its tokens are counted, so two joins at once never pass the bound together."""
        wanted = "".join(code.split()).replace("-", "").upper()
        if not 4 <= len(wanted) <= 16 or any(letter not in CODE_ALPHABET for letter in wanted):
            return None

        with self.db.reading() as session:  # a code that names nothing takes no writer's turn
            found = session.execute(
                select(Evening.club_id, EveningTable.evening_id, EveningTable.number, Evening.status)
                .join(Evening, Evening.id == EveningTable.evening_id).where(EveningTable.code == wanted)).first()
        if found is None or found[3] == "closed":
            return None
        club_id, evening_id, number = str(found[0]), str(found[1]), int(found[2])

        def attempt() -> JoinedTable:
            with self.db.writing_connection() as connection:
                if most is not None:
                    connection.execute(select(EveningTable.code).where(
                        EveningTable.evening_id == evening_id, EveningTable.number == number).with_for_update())
                    held = connection.execute(select(func.count()).select_from(_TOKENS).where(
                        _TOKENS.c.evening_id == evening_id, _TOKENS.c.number == number)).scalar_one()
                    if held >= most:
                        raise TableFull(number, most)
                return JoinedTable(club_id, self.new_link(connection, club_id, evening_id, number))

        return self.db.retrying(attempt)
