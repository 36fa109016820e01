"""Games: creating one, appending table actions to its log, and reading it back.

The append path is the application layer of the event store: load the state,
let the core decide, append the new events. All of a batch's events, the
game's version bump and (for an idempotent request) the response are written
in one transaction. Two writers on one game are kept apart three ways: the
game row is locked (``SELECT … FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE``
on SQLite), the version bump is conditional (``UPDATE … WHERE version =
:read``), and ``(game_id, seq)`` is the events' primary key. A writer that
still loses a race starts again from the fresh log.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..decide import execute
from ..events import Event
from ..receipts import Signer
from ..reducer import fold, replay
from ..state import GameState
from .base import Database, LostRace, new_id, utcnow
from .cache import Remembered, StateCache
from .checkpoints import head_receipt, head_signed
from .clubs import name_key
from .dealstarts import DealStarts
from .errors import IdempotencyMismatch, LogDamaged, NotFound, VersionConflict, unreplayable
from .keys import Keys
from .log import GENESIS, chain_records, event_of
from .models import ClubFeedRecord, Game, GamePlayer, IdempotencyRecord, Player
from .recorder import paced
from .values import Appended, GameInfo, IdempotentRequest, Record, StoredResponse
from .writes import NewGame, insert_games, insert_records, refuse_pseudonyms

Respond = Callable[[GameInfo, GameState, list[Record], dict[str, Any] | None], tuple[int, dict[str, Any]]]


# The append path's statements, built once: building a statement per request costs more than running it.
_GAME_TABLE = cast(Table, Game.__table__)
_GAMES = _GAME_TABLE.c
_LOCK_GAME = (
    select(*_GAMES).where(_GAMES.id == bindparam("game_id"), _GAMES.club_id == bindparam("club_id")).with_for_update()
)
_BUMP_GAME = (
    update(_GAME_TABLE).where(_GAMES.id == bindparam("game_id"), _GAMES.version == bindparam("read"))
    .values({name: bindparam(name) for name in ("version", "head_hash", "status", "deals_played", "updated_at")})
)


_KEYS = cast(Table, IdempotencyRecord.__table__)
_KEPT_RESPONSE = select(_KEYS.c.fingerprint, _KEYS.c.status, _KEYS.c.body).where(
    _KEYS.c.club_id == bindparam("club_id"), _KEYS.c.key == bindparam("key"))
_KEEP_RESPONSE = insert(_KEYS)


def _missing_game(game_id: str) -> NotFound:
    return NotFound("There is no game {game!r} in this club.", game=game_id)


def _foreign_rows(game_id: str, version: int) -> LogDamaged:
    return LogDamaged("The log of game {game!r} holds events past its version {version} that the ledger did not "
                      "write: nothing more can be recorded in it. Its audit shows what changed.",
                      game=game_id, version=version)


class Games:
    """Games' logs: a game created, table actions appended, and read back; with the states this process keeps."""

    def __init__(self, db: Database, keys: Keys, cache_size: int = 512) -> None:
        self.db = db
        self.keys = keys
        self.cache = StateCache(cache_size)
        self.deal_starts = DealStarts()
        self.signed_heads: Remembered[str] = Remembered(cache_size)  # game -> a head hash known to be signed

    # --- writing ---------------------------------------------------------------------------------
    def create_game(
        self,
        club_id: str,
        started: Event,
        actions: Sequence[Mapping[str, Any]] = (),
        *,
        meta: Mapping[str, Any] | None = None,
        source_digest: str | None = None,
    ) -> Appended:
        """Store a new game from its ``game_started`` event, with any table actions already played.

        The actions are executed first (a refusal stores nothing); the players are
        registered as club members (:class:`ErasedName` for a name that is an erased member's pseudonym).

        >>> from nj_ledger import new_game
        >>> from nj_ledger.store import Store
        >>> store = Store("sqlite://"); store.create_schema()
        >>> club, _ = store.clubs.create_club("Club")
        >>> started = new_game(["Ana", "Ben", "Chloé"], "classic", 60)
        >>> game = store.games.create_game(club.id, started, [{"type": "deal"}])
        >>> game.game.version, game.state.status
        (17, 'playing')
        """
        state, events = execute(replay([started]), actions)
        meta = dict(meta or {})
        signer = self.keys.signer()

        def attempt() -> Appended:
            with self.db.writing_connection() as connection:  # plain statements: the ORM's unit of work costs more
                refuse_pseudonyms(connection, club_id, state.players)  # a table's typed names, not a plan's
                created = self.write_game(connection, club_id, started, events, state, meta, signer, source_digest)
            self.cache.put(created.game.id, state)
            return created

        return self.db.retrying(attempt)

    def write_game(self, connection: Connection, club_id: str, started: Event, events: Sequence[Event],
                    state: GameState, meta: Mapping[str, Any], signer: Signer,
                    source_digest: str | None = None) -> Appended:
        """Write a new game (its row, seats, members, records and first receipt) in the caller's transaction: the
        one way a game is created, alone or with an evening's round."""
        now = utcnow()
        records = chain_records(GENESIS, 0, [started, *events], now)
        played_on = date.fromisoformat(meta["date"]) if meta.get("date") else now.date()
        game = GameInfo(
            id=new_id(), club_id=club_id, created_at=now, updated_at=now, played_on=played_on,
            version=state.version, status=state.status, profile=state.rules.profile,
            players=list(state.players), starting_chips=state.starting_chips,
            deals_played=state.deals_played, meta=dict(meta),
        )
        [seats] = insert_games(connection, [NewGame(game, records[-1]["hash"], source_digest)], now)
        receipt = insert_records(connection, game.id, records, signer, now, (club_id, played_on, seats))
        return Appended(game, state, records, receipt)

    def append(
        self,
        club_id: str,
        game_id: str,
        actions: Sequence[Mapping[str, Any]],
        *,
        expected_version: int | None = None,
        idempotency: IdempotentRequest | None = None,
        respond: Respond | None = None,
    ) -> Appended | StoredResponse:
        """Execute a batch of table actions on a game and append the events, all or nothing.

        ``expected_version`` (from ``If-Match``) refuses the batch with
        :class:`VersionConflict` when the game has moved on; without it a lost
        race is retried on the fresh log. With ``idempotency`` a repeated key
        returns the :class:`StoredResponse` of its first request (``respond``
        builds that response inside the append's transaction).
        A refusal of the core (:class:`~nj_ledger.errors.LedgerError`) stores nothing. The batch's last event
        is signed: :attr:`Appended.receipt`.
        """
        signer = self.keys.signer()  # checked before the transaction: it may need a transaction of its own

        def attempt() -> Appended | StoredResponse:
            with self.db.writing_connection() as connection:
                game = connection.execute(_LOCK_GAME, {"game_id": game_id, "club_id": club_id}).first()
                if game is None:
                    raise _missing_game(game_id)
                if idempotency is not None:
                    stored = connection.execute(_KEPT_RESPONSE, {"club_id": club_id, "key": idempotency.key}).first()
                    if stored is not None:
                        if not hmac.compare_digest(stored.fingerprint, idempotency.fingerprint):
                            raise IdempotencyMismatch(idempotency.key)
                        return StoredResponse(stored.status, dict(stored.body))
                if expected_version is not None and game.version != expected_version:
                    raise VersionConflict(expected_version, game.version)
                self._check_head(connection, game)
                info = GameInfo.of(cast(Game, game))  # the row has the model's columns
                before = self.state_on(connection, info)
                state, events = execute(before, actions)
                now = utcnow()
                records = chain_records(game.head_hash, game.version, events, now)
                receipt = None
                if records:
                    info, receipt = self._advance(connection, game, before, state, records, signer, now)
                if idempotency is not None and respond is not None:
                    status, body = respond(info, state, records, receipt)
                    connection.execute(_KEEP_RESPONSE, {
                        "club_id": club_id, "key": idempotency.key, "fingerprint": idempotency.fingerprint,
                        "status": status, "body": body, "created_at": utcnow(),
                    })
            self.cache.put(game_id, state)
            if receipt is not None:
                self.signed_heads.put(game_id, receipt["head"])
            return Appended(info, state, records, receipt)

        return self.db.retrying(attempt)

    def _check_head(self, connection: Connection, game: Any) -> None:
        """Refuse to sign on top of a head the ledger did not sign (a log rewritten and re-chained outside it):
        the receipt would vouch for the rewrite. A head this process signed, or checked, is not checked again."""
        if self.signed_heads.get(game.id) == game.head_hash:
            return

        def keys(wanted: str | None) -> Mapping[str, bytes]:
            return self.keys.verifying_keys(wanted, connection)  # in the append's transaction

        if not head_signed(connection, game.id, game.version, game.head_hash, keys):
            raise LogDamaged("The head of game {game!r} at version {version} is not the one the ledger signed: its "
                             "log was changed outside the ledger, and nothing more can be recorded in it. Its "
                             "audit shows what changed.", game=game.id, version=game.version)
        self.signed_heads.put(game.id, game.head_hash)

    def remember_response(self, club_id: str, request: IdempotentRequest, status: int, body: dict[str, Any]) -> None:
        """Keep the response to an idempotent request that appended nothing (a refusal), unless one is kept."""

        def attempt() -> None:
            with self.db.writing() as session:
                if session.get(IdempotencyRecord, (club_id, request.key)) is None:
                    session.add(IdempotencyRecord(
                        club_id=club_id, key=request.key, fingerprint=request.fingerprint,
                        status=status, body=body, created_at=utcnow(),
                    ))

        self.db.retrying(attempt)

    def _advance(self, connection: Connection, game: Any, before: GameState, state: GameState,
                 records: list[Record], signer: Signer, now: datetime) -> tuple[GameInfo, dict[str, Any] | None]:
        values = {"version": state.version, "head_hash": records[-1]["hash"], "status": state.status,
                  "deals_played": state.deals_played, "updated_at": now}
        bumped = connection.execute(_BUMP_GAME, {"game_id": game.id, "read": game.version, **values})
        if bumped.rowcount != 1:
            raise LostRace
        try:
            receipt = insert_records(connection, game.id, records, signer, now, before=before)
        except IntegrityError:
            # The game's row is locked (and SQLite has one writer): no other append can have written these
            # seqs. A row already there was put past the version outside the ledger; retrying cannot help.
            raise _foreign_rows(game.id, game.version) from None
        return replace(GameInfo.of(game), **{k: v for k, v in values.items() if k != "head_hash"}), receipt

    # --- reading ---------------------------------------------------------------------------------
    def _state_of(self, session: Session, game: GameInfo) -> GameState:
        return self.state_on(session.connection(), game)

    def state_on(self, connection: Connection, game: GameInfo) -> GameState:
        """The state at the game's version: the cached one, brought up to date from the log if need be."""
        cached = self.cache.get(game.id)
        if cached is not None and list(cached.players) != game.players:  # a member's erasure redacted the log
            cached = None
        if cached is not None and cached.version == game.version:
            return cached
        state: GameState | None = None
        after = 0
        if cached is not None and cached.version < game.version:
            state, after = cached.copy(), cached.version
        for record in self.db.recorder.select_records(connection, game.id, after, game.version):
            if record["seq"] != after + 1:  # a hole: the state would be another game's
                break
            try:
                state = fold(state, event_of(record))
            except Exception:  # noqa: BLE001 - a stored event that cannot be folded: the log was changed
                break
            after += 1
        if state is None or state.version != game.version:
            raise LogDamaged("The log of game {game!r} stops before its version {version}: events were removed "
                             "or changed outside the ledger. Its audit shows what changed.", game=game.id,
                             version=game.version)
        self.cache.put(game.id, state)
        return state

    def _game(self, session: Session, club_id: str, game_id: str) -> GameInfo:
        row = session.get(Game, game_id)
        if row is None or row.club_id != club_id:
            raise _missing_game(game_id)
        return GameInfo.of(row)

    def game(self, club_id: str, game_id: str) -> GameInfo:
        with self.db.reading() as session:
            return self._game(session, club_id, game_id)

    def game_state(self, club_id: str, game_id: str) -> tuple[GameInfo, GameState]:
        """A game's summary and its current state."""
        with self.db.reading() as session:
            game = self._game(session, club_id, game_id)
            return game, self._state_of(session, game)

    def receipt(self, club_id: str, game_id: str, version: int) -> dict[str, Any] | None:
        """The receipt signed when the game reached ``version``, as it is kept; None for a head stored before
        receipts existed. Nothing is ever signed on a read: a head would be vouched for unchecked."""
        with self.db.reading() as session:
            self._game(session, club_id, game_id)
            return head_receipt(session, game_id, version)

    def records(self, club_id: str, game_id: str, after: int = 0, limit: int | None = None) -> list[Record]:
        """The stored records of a game with seq > ``after``, at most ``limit`` of them (all of them read
        :func:`~.recorder.paced`)."""
        with self.db.reading() as session:
            game = self._game(session, club_id, game_id)
            upto = game.version if limit is None else min(game.version, after + limit)  # seqs have no gaps
            rows = self.db.recorder.select_records(session.connection(), game_id, after, upto)
            return list(rows if limit is not None else paced(rows))

    def club_feed(self, club_id: str, after: int = 0, limit: int = 500) -> list[dict[str, Any]]:
        """The club's feed after ``position`` (games created, deals ended, games ended), in order, at most
        ``limit`` items: ``{position, game, seq, deal, type, recorded_at}``."""
        with self.db.reading() as session:
            rows = session.execute(
                select(ClubFeedRecord).where(ClubFeedRecord.club_id == club_id, ClubFeedRecord.position > after)
                .order_by(ClubFeedRecord.position).limit(limit)).scalars()
            return [{"position": row.position, "game": row.game_id, "seq": row.seq, "deal": row.deal,
                     "type": row.type, "recorded_at": row.recorded_at} for row in rows]

    def deal_segment(self, club_id: str, game_id: str, deal: int) -> tuple[GameState, list[Record]] | None:
        """The state at the start of ``deal`` and the deal's records, or None if it was never dealt."""
        with self.db.reading() as session:
            connection = session.connection()
            owner = self.db.recorder.owner_and_version(connection, game_id)
            if owner is None or owner[0] != club_id:
                raise _missing_game(game_id)
            version = owner[1]
            if deal < 1:
                return None
            segment = self.db.recorder.select_deal(connection, game_id, deal, version)
            if not segment:
                return None

            def read(after: int, upto: int) -> Iterator[Record]:
                return self.db.recorder.select_records(connection, game_id, after, upto)

            first, last = segment[0]["seq"], segment[-1]["seq"]
            if last - first + 1 != len(segment):  # a deal is one stretch of the log; read it as one if not
                segment = list(read(first - 1, last))
            try:
                state = self.deal_starts.before(game_id, deal, version, read, owner[2])
            except (KeyError, TypeError, ValueError, AttributeError, AssertionError):
                raise unreplayable(game_id, deal) from None
            return state, segment

    def list_games(
        self,
        club_id: str | None,
        *,
        status: str | None = None,
        player: str | None = None,
        played_from: date | None = None,
        played_to: date | None = None,
        title: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[GameInfo]:
        """A club's games, newest first (by the day played, then by when each was made), filtered by status, a
        player's name, the day played and a part of the title (whatever its case). ``club_id`` None: every
        club's (for the operator's command line)."""
        query = select(Game)
        if club_id is not None:
            query = query.where(Game.club_id == club_id)
        if status:
            query = query.where(Game.status == status)
        if player:
            members = select(GamePlayer.game_id).join(Player, Player.id == GamePlayer.player_id).where(
                Player.name_key == name_key(player))
            if club_id is not None:
                members = members.where(Player.club_id == club_id)
            query = query.where(Game.id.in_(members))
        if played_from:
            query = query.where(Game.played_on >= played_from)
        if played_to:
            query = query.where(Game.played_on <= played_to)
        if title:
            query = query.where(self.db.recorder.contains_folded(Game.meta["title"].as_string(), title))
        query = query.order_by(Game.played_on.desc(), Game.created_at.desc(), Game.id).limit(limit).offset(offset)
        with self.db.reading() as session:
            return [GameInfo.of(row) for row in session.scalars(query)]

    def owner(self, game_id: str) -> str | None:
        """The club a game belongs to (for the operator's command line, which has no token)."""
        with self.db.reading() as session:
            row = session.get(Game, game_id)
            return None if row is None else row.club_id

    def find_game(self, club_id: str, source_digest: str) -> str | None:
        """The id of a club's game imported from the document with this digest, if any."""
        with self.db.reading() as session:
            return session.scalars(
                select(Game.id).where(Game.club_id == club_id, Game.source_digest == source_digest).limit(1)
            ).first()
