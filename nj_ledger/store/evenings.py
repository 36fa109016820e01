"""Club evenings: the director's decisions in an append-only, hash-chained log, the tables' codes and tokens,
and the outcomes of the evening's games that its views fold (:mod:`nj_ledger.evenings`).

A decision is made like a table action: the evening's row is locked, the log
folded, the core decides (a refusal stores nothing), the entry chained and
appended, the row's version bumped on condition. Starting a round creates its
games in the same transaction, through the one way a game is created
(:meth:`.games.Games.write_game`).

The log is written and read through the store's recorder, as a game's is
(:meth:`.recorder.Recorder.insert_entry`, :meth:`~.recorder.Recorder.select_entries`:
one function from a row to the core's value, :func:`.rows.entry_of`, which
upcasts an entry written at an older version); the state folded from it is
kept for the next read of the evening of the very same entries
(:class:`.cache.EveningStates`).

Each table's code and the table tokens are kept by :mod:`.evening_tables`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, insert, select, update

from ..chain import GENESIS
from ..decide import new_game
from ..evenings import (
    CLOSED,
    ROUND,
    EveningState,
    GameOutcome,
    LogEntry,
    decide_round,
    entry_hash,
    fold_evening,
    round_tables,
)
from ..receipts import Signer
from ..state import GameState
from .base import Database, LostRace, new_id, utcnow
from .cache import EveningStates
from .errors import EveningMoved, NotFound
from .evening_checkpoints import audit_entries, head_receipt, sign_entry
from .evening_tables import NewTableLink, TableTokens, missing_evening
from .followers import EVENING_PREFIX
from .games import Games
from .keys import Keys
from .models import Club, Evening, EveningTable, Game
from .redactions import redactions_of
from .values import GameInfo

_EVENINGS = cast(Table, Evening.__table__)
_TABLES = cast(Table, EveningTable.__table__)
_GAMES = cast(Table, Game.__table__)

Decision = Callable[[EveningState, Mapping[str, GameOutcome]], tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class EveningInfo:
    id: str
    club_id: str
    name: str
    played_on: date
    created_at: datetime
    updated_at: datetime
    version: int
    status: str

    @classmethod
    def of(cls, row: Evening) -> EveningInfo:
        return cls(row.id, row.club_id, row.name, row.played_on, row.created_at, row.updated_at, row.version,
                   row.status)


@dataclass(frozen=True)
class EveningRead:
    """An evening as its log and its games tell it."""

    info: EveningInfo
    entries: list[LogEntry]
    state: EveningState
    outcomes: dict[str, GameOutcome]
    codes: dict[int, str]  # table number -> code
    receipt: dict[str, Any] | None = None  # the receipt of the head, when a decision was just recorded
    redacted: dict[int, dict[str, Any]] = field(default_factory=dict)  # the decisions an erasure redacted, by seq


def outcome_of(state: GameState) -> GameOutcome:
    return GameOutcome(state.version, state.status, tuple(state.players), tuple(state.balances),
                       state.starting_chips, state.deals_played)


class Evenings:
    """Club evenings: each one's log of decisions, its rounds' games (made by :class:`.games.Games`), its tables
    (:class:`.evening_tables.TableTokens`), all signed with the store's key (:class:`.keys.Keys`); with the
    states of the evenings this process read lately."""

    def __init__(self, db: Database, games: Games, keys: Keys, tables: TableTokens, cache_size: int = 512) -> None:
        self.db = db
        self.games = games
        self.keys = keys
        self.tables = tables
        self.states = EveningStates(cache_size)

    # --- reading ---------------------------------------------------------------------------------------------

    def _entries(self, connection: Connection, evening_id: str, after: int = 0,
                 limit: int | None = None) -> list[LogEntry]:
        """The evening's entries with seq > ``after`` (at most ``limit``), in order: every read of its log."""
        return self.db.recorder.select_entries(connection, evening_id, after, limit)

    def _fold(self, evening_id: str, entries: list[LogEntry]) -> EveningState:
        """The evening folded from its whole log, or as it was folded before from the same entries (the state is
        never changed once folded)."""
        if not entries:
            return fold_evening(entries)
        known = self.states.state_of(evening_id, entries)
        if known is not None:
            return known
        state = fold_evening(entries)
        self.states.put(evening_id, (tuple(entries), state))
        return state

    def _read_evening(self, connection: Connection, club_id: str, evening_id: str, lock: bool = False) -> EveningRead:
        query = select(*_EVENINGS.c).where(_EVENINGS.c.id == evening_id, _EVENINGS.c.club_id == club_id)
        if lock:
            query = query.with_for_update()
        row = connection.execute(query).first()
        if row is None:
            raise missing_evening(evening_id)
        info = EveningInfo.of(cast(Evening, row))  # the row has the model's columns
        entries = self._entries(connection, evening_id)
        state = self._fold(evening_id, entries)
        codes = {int(number): str(code) for number, code in connection.execute(
            select(_TABLES.c.number, _TABLES.c.code).where(_TABLES.c.evening_id == evening_id))}
        return EveningRead(info, entries, state, self._game_outcomes(connection, state), codes)

    def _game_outcomes(self, connection: Connection, state: EveningState) -> dict[str, GameOutcome]:
        ids = list(state.games())
        if not ids:
            return {}
        rows = connection.execute(select(*_GAMES.c).where(_GAMES.c.id.in_(ids))).all()
        infos = [GameInfo.of(cast(Game, row)) for row in rows]
        return {info.id: outcome_of(self.games.state_on(connection, info)) for info in infos}

    def evening(self, club_id: str, evening_id: str) -> EveningRead:
        """An evening: its summary, its log, the state folded from it and its games' outcomes."""
        with self.db.reading() as session:
            return self._read_evening(session.connection(), club_id, evening_id)

    def evening_entries(self, club_id: str, evening_id: str, after: int = 0, limit: int = 500) -> list[dict[str, Any]]:
        """An evening's decisions with seq > ``after``, at most ``limit`` of them (its stream reads these)."""
        with self.db.reading() as session:
            connection = session.connection()
            found = connection.execute(select(_EVENINGS.c.id).where(
                _EVENINGS.c.id == evening_id, _EVENINGS.c.club_id == club_id)).first()
            if found is None:
                raise missing_evening(evening_id)
            return [dict(item) for item in self._entries(connection, evening_id, after, limit)]

    def evening_receipt(self, club_id: str, evening_id: str) -> tuple[EveningInfo, dict[str, Any] | None]:
        """The evening and the receipt signed when it reached its version, as it is kept (None: its head is older
        than signing). Nothing is ever signed on a read: a head would be vouched for unchecked."""
        with self.db.reading() as session:
            connection = session.connection()
            row = connection.execute(select(*_EVENINGS.c).where(
                _EVENINGS.c.id == evening_id, _EVENINGS.c.club_id == club_id)).first()
            if row is None:
                raise missing_evening(evening_id)
            info = EveningInfo.of(cast(Evening, row))
            return info, head_receipt(connection, evening_id, info.version)

    def evening_audit(self, club_id: str, evening_id: str, receipts: Sequence[Mapping[str, Any]] | None = None,
                      ) -> tuple[EveningRead, dict[str, Any], dict[str, Any] | None]:
        """The evening, its log held to its signed checkpoints, and to the ``receipts`` members hold when given
        (:func:`.evening_checkpoints.audit_entries`), read in one snapshot of the database."""
        with self.db.snapshot() as session:
            connection = session.connection()

            def keys(wanted: str | None) -> Mapping[str, bytes]:
                return self.keys.verifying_keys(wanted, connection)

            read = replace(self._read_evening(connection, club_id, evening_id),
                           redacted=redactions_of(connection, club_id, keys(None), "evening", evening_id))

            signed, held = audit_entries(connection, keys, evening_id, read.info.version, read.entries, receipts)
            return read, signed, held

    def list_evenings(self, club_id: str, *, status: str | None = None, played_from: date | None = None,
                      played_to: date | None = None, limit: int = 50, offset: int = 0) -> list[EveningInfo]:
        """A club's evenings, newest first (by the day played, then by when each was made)."""
        query = select(Evening).where(Evening.club_id == club_id)
        if status:
            query = query.where(Evening.status == status)
        if played_from:
            query = query.where(Evening.played_on >= played_from)
        if played_to:
            query = query.where(Evening.played_on <= played_to)
        query = query.order_by(Evening.played_on.desc(), Evening.created_at.desc(), Evening.id)
        with self.db.reading() as session:
            return [EveningInfo.of(row) for row in session.scalars(query.limit(limit).offset(offset))]

    def evenings_between(self, club_id: str, played_from: date | None, played_to: date | None, *,
                         closed_only: bool = False) -> list[EveningRead]:
        """The club's evenings played in a period (the closed ones only: what a season's ladder counts), oldest
        first, each as :meth:`evening` reads it."""
        query = select(Evening.id).where(Evening.club_id == club_id)
        if closed_only:
            query = query.where(Evening.status == "closed")
        if played_from:
            query = query.where(Evening.played_on >= played_from)
        if played_to:
            query = query.where(Evening.played_on <= played_to)
        with self.db.reading() as session:
            connection = session.connection()
            ids = list(connection.execute(query.order_by(Evening.played_on, Evening.created_at)).scalars())
            return [self._read_evening(connection, club_id, evening_id) for evening_id in ids]

    # --- writing ---------------------------------------------------------------------------------------------
    def _append(self, connection: Connection, info: EveningInfo, previous: str, kind: str, data: dict[str, Any],
                by: Mapping[str, Any], signer: Signer, status: str | None = None) -> dict[str, Any]:
        """Append a decision, chained to ``previous``, and sign the evening's new head: its receipt."""
        now = utcnow()
        item = {"seq": info.version + 1, "type": kind, "data": data, "by": dict(by), "recorded_at": _stamp(now)}
        item["hash"] = entry_hash(previous, item)
        bumped = connection.execute(
            update(_EVENINGS).where(_EVENINGS.c.id == info.id, _EVENINGS.c.version == info.version)
            .values(version=item["seq"], head_hash=item["hash"], updated_at=now, status=status or info.status))
        if bumped.rowcount != 1:
            raise LostRace
        self.db.recorder.insert_entry(connection, info.id, item)
        receipt = sign_entry(connection, signer, info.id, item, now)
        self.db.recorder.announce(connection, EVENING_PREFIX + info.id, info.version + 1)  # heard at the commit
        return receipt

    def create_evening(self, club_id: str, created: tuple[str, dict[str, Any]],
                       by: Mapping[str, Any]) -> tuple[EveningRead, list[NewTableLink]]:
        """A new evening from its ``evening_created`` decision, its tables' codes, and a token for each table
        (their secrets in the answer only)."""
        kind, data = created
        signer = self.keys.signer()

        def attempt() -> tuple[EveningRead, list[NewTableLink]]:
            with self.db.writing_connection() as connection:
                if connection.execute(select(Club.id).where(Club.id == club_id)).first() is None:
                    raise NotFound("There is no club {club!r}.", club=club_id)
                now = utcnow()
                info = EveningInfo(new_id(), club_id, data["name"], date.fromisoformat(data["date"]), now, now, 0,
                                   "open")
                connection.execute(insert(_EVENINGS), [{
                    "id": info.id, "club_id": club_id, "name": info.name, "played_on": info.played_on,
                    "created_at": now, "updated_at": now, "version": 0, "head_hash": GENESIS, "status": "open"}])
                receipt = self._append(connection, info, GENESIS, kind, data, by, signer)
                state = self._fold(info.id, self._entries(connection, info.id))
                self.tables.add_tables(connection, info.id, state.table_count())
                links = [self.tables.new_link(connection, club_id, info.id, number)
                         for number in range(1, state.table_count() + 1)]
                return replace(self._read_evening(connection, club_id, info.id), receipt=receipt), links

        return self.db.retrying(attempt)

    def decide(self, club_id: str, evening_id: str, decision: Decision, by: Mapping[str, Any], *,
               expected_version: int | None = None) -> EveningRead:
        """Record one decision: ``decision`` is the core's, given the evening as it stands and its games'
        outcomes; a refusal stores nothing. ``expected_version`` (from ``If-Match``) refuses it with
        :class:`EveningMoved` when another decision was recorded meanwhile. The read carries the receipt of the
        new head."""
        signer = self.keys.signer()

        def attempt() -> EveningRead:
            with self.db.writing_connection() as connection:
                read = self._read_evening(connection, club_id, evening_id, lock=True)
                _expect(read, expected_version)
                kind, data = decision(read.state, read.outcomes)
                receipt = self._append(connection, read.info, read.entries[-1]["hash"], kind, data, by, signer,
                                       status="closed" if kind == CLOSED else None)
                after = self._read_evening(connection, club_id, evening_id)
                self.tables.add_tables(connection, evening_id, after.state.table_count())
                return replace(self._read_evening(connection, club_id, evening_id), receipt=receipt)

        return self.db.retrying(attempt)

    def start_round(self, club_id: str, evening_id: str, by: Mapping[str, Any], *,
                    tables: Sequence[Sequence[str]] | None = None, force: bool = False,
                    now: datetime | None = None, expected_version: int | None = None) -> EveningRead:
        """Start the evening's next round: a game for each table (the plan's tables, or the director's), made the
        one way games are made, and the ``round_started`` decision naming them, in one transaction."""
        signer = self.keys.signer()

        def attempt() -> EveningRead:
            with self.db.writing_connection() as connection:
                read = self._read_evening(connection, club_id, evening_id, lock=True)
                _expect(read, expected_version)
                state = read.state
                seating = round_tables(state, tables, now=now, force=force, results=read.outcomes)
                number = state.current_round + 1
                games: list[str] = []
                for index, players in enumerate(seating, 1):
                    started = new_game(list(players), state.rules, state.starting_chips)
                    game_state = self._fold_started(started)
                    meta = {"title": f"{state.name} · round {number}, table {index}", "date": state.played_on,
                            "table": f"{index}"}
                    written = self.games.write_game(connection, club_id, started, [], game_state, meta, signer)
                    games.append(written.game.id)
                kind, data = decide_round(state, games, now=now, tables=[list(t) for t in seating], force=True)
                if kind != ROUND:
                    raise ValueError(kind)
                receipt = self._append(connection, read.info, read.entries[-1]["hash"], kind, data, by, signer)
                self.tables.add_tables(connection, evening_id, len(seating))
                return replace(self._read_evening(connection, club_id, evening_id), receipt=receipt)

        return self.db.retrying(attempt)

    def record_again(self, connection: Connection, club_id: str, summary: Mapping[str, Any],
                     entries: Sequence[Mapping[str, Any]], signer: Signer) -> str:
        """An evening of another server recorded here, in the caller's transaction (a club's import): its row, each
        of its decisions appended again as it was taken (the games it names already given their ids here), each
        chained and signed anew; a log that does not fold is refused (ValueError). Its id here."""
        now = utcnow()
        info = EveningInfo(new_id(), club_id, summary["name"], date.fromisoformat(summary["played_on"]), now, now,
                           0, "open")
        connection.execute(insert(_EVENINGS), [{
            "id": info.id, "club_id": club_id, "name": info.name, "played_on": info.played_on, "created_at": now,
            "updated_at": now, "version": 0, "head_hash": GENESIS, "status": "open"}])
        previous = GENESIS
        for item in entries:
            status = "closed" if item["type"] == CLOSED else None
            previous = self._append(connection, info, previous, item["type"], dict(item["data"]), item["by"],
                                    signer, status=status)["head"]
            info = replace(info, version=info.version + 1, status=status or info.status)
        try:
            state = fold_evening(self._entries(connection, info.id))
        except Exception as failure:  # noqa: BLE001 - a log this ledger cannot fold is not imported
            raise ValueError(f"evening {summary['name']!r} cannot be folded: {failure}") from None
        self.tables.add_tables(connection, info.id, state.table_count())
        return info.id

    @staticmethod
    def _fold_started(started: Any) -> GameState:
        from ..reducer import replay

        return replay([started])

    def table_link(self, club_id: str, evening_id: str, table: int) -> NewTableLink:
        """Another token for a table of an open evening (a link printed again); the earlier ones keep working."""

        def attempt() -> NewTableLink:
            with self.db.writing_connection() as connection:
                read = self._read_evening(connection, club_id, evening_id, lock=True)
                if table not in read.codes:
                    raise NotFound("The evening has no table {table}.", table=table)
                if read.state.closed:
                    from ..errors import RuleViolation

                    raise RuleViolation("evening-closed", "The evening is closed: nothing more can be recorded "
                                        "in it.")
                return self.tables.new_link(connection, club_id, evening_id, table)

        return self.db.retrying(attempt)


def _expect(read: EveningRead, expected_version: int | None) -> None:
    if expected_version is not None and read.info.version != expected_version:
        raise EveningMoved(expected_version, read.info.version)


def _stamp(moment: datetime) -> str:
    from .base import iso

    return iso(moment)
