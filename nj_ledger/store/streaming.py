"""Importing a game document of any length in bounded memory.

A document's ``actions`` are read one at a time (``ijson``), executed a deal at
a time with the state carried from deal to deal, and written in chunks of a few
thousand records: neither the document nor the log is ever held whole. The
import is still one transaction, so a refusal, a broken file or a process killed
half-way stores nothing. The game gets the same log, game row and source digest
as :func:`~nj_ledger.store.documents.import_document` gives the parsed document.

    >>> import io, json
    >>> from nj_ledger.store import Store
    >>> store = Store("sqlite://"); store.create_schema()
    >>> club, _ = store.clubs.create_club("Club")
    >>> doc = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"],
    ...        "rules": "classic", "starting_chips": 60, "actions": [{"type": "deal"}]}
    >>> imported = import_file(store.games, club.id, io.BytesIO(json.dumps(doc).encode()))
    >>> imported.game.version, imported.game.status
    (17, 'playing')
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import IO, Any

import ijson
from sqlalchemy import Connection, update

from ..bounds import MAX_DOCUMENT_EVENTS
from ..chain import canonical_bytes
from ..decide import execute
from ..errors import LedgerError
from ..exchange import document_meta, read_game_document
from ..receipts import Signer
from ..reducer import replay
from ..state import GameState
from .base import new_id, utcnow
from .games import Games
from .log import GENESIS, chain_records
from .models import Game
from .projections.projector import Place
from .values import GameInfo, Record
from .writes import NewGame, insert_games, insert_records

CHUNK_EVENTS = 4096  # records written per INSERT (or COPY)
SEGMENT_ACTIONS = 512  # a deal's actions are executed together, up to this many
STREAMED = ("actions", "events")  # the document's long lists, never built in memory

JSONError = ijson.JSONError


@dataclass(frozen=True)
class Imported:
    """The game an import stored, its final state (its records stay in the database) and its receipt."""

    game: GameInfo
    state: GameState
    receipt: dict[str, Any] | None = None


def read_header(file: IO[bytes]) -> dict[str, Any]:
    """Every field of a document but its ``actions`` and ``events`` lists (which stand as ``[]``).

    >>> import io
    >>> read_header(io.BytesIO(b'{"actions": [{"type": "deal"}], "players": ["Ana"], "version": 1}'))
    {'actions': [], 'players': ['Ana'], 'version': 1}
    """
    header: dict[str, Any] = {}
    events = ijson.parse(file, use_float=True)
    for prefix, event, value in events:
        if prefix != "" or event != "map_key":
            continue
        first = next(events)
        if value in STREAMED and first[1] == "start_array":
            _skip(events)
            header[value] = []
        else:
            header[value] = _build(first, events)
    return header


def _skip(events: Iterator[tuple[str, str, Any]]) -> None:
    depth = 1
    for _, event, _ in events:
        if event in ("start_array", "start_map"):
            depth += 1
        elif event in ("end_array", "end_map"):
            depth -= 1
            if depth == 0:
                return


def _build(first: tuple[str, str, Any], events: Iterator[tuple[str, str, Any]]) -> Any:
    builder = ijson.ObjectBuilder()
    builder.event(first[1], first[2])
    depth = 1 if first[1] in ("start_array", "start_map") else 0
    while depth:
        _, event, value = next(events)
        builder.event(event, value)
        if event in ("start_array", "start_map"):
            depth += 1
        elif event in ("end_array", "end_map"):
            depth -= 1
    return builder.value


def iter_actions(file: IO[bytes]) -> Iterator[Any]:
    """The document's actions, one at a time."""
    actions: Iterator[Any] = ijson.items(file, "actions.item", use_float=True)
    return actions


class _Digest:
    """:func:`~nj_ledger.store.documents.document_digest`, computed as the actions stream by.

    The digest hashes the canonical JSON of the document without ``events``;
    ``actions`` is its first key in sorted order, so its items can be hashed as
    they come and the other fields after them.
    """

    def __init__(self, header: Mapping[str, Any]) -> None:
        self.rest = {key: value for key, value in header.items() if key not in STREAMED}
        self.has_actions = "actions" in header
        self.sha = hashlib.sha256(b'{"actions":[' if self.has_actions else b"{")
        self.count = 0

    def add(self, action: Any) -> None:
        self.sha.update(b"," + canonical_bytes(action) if self.count else canonical_bytes(action))
        self.count += 1

    def hexdigest(self) -> str:
        rest = canonical_bytes(self.rest)[1:-1]
        if self.has_actions:
            self.sha.update(b"]" + (b"," + rest if rest else b"") + b"}")
        else:
            self.sha.update(rest + b"}")
        return self.sha.hexdigest()


def import_file(games: Games, club_id: str, file: IO[bytes]) -> Imported:
    """Import the game document in a seekable binary ``file`` into a new game of ``club_id``.

    Raises :class:`~nj_ledger.errors.InvalidInput` (``invalid-document``) for a
    document of the wrong shape, the core's refusal of an action (its
    ``params["index"]`` counts from the document's first action), or
    :data:`JSONError` for a file that is not JSON; nothing is stored then.
    """
    start = file.tell()
    header = read_header(file)
    file.seek(start)
    return import_stream(games, club_id, header, iter_actions(file))


def import_stream(
    games: Games, club_id: str, header: Mapping[str, Any], actions: Iterable[Any],
) -> Imported:
    """Import a document given as its ``header`` (see :func:`read_header`) and its ``actions``, in one transaction."""
    started, _ = read_game_document(header)
    meta = document_meta(header)
    digest = _Digest(header)
    state = replay([started])
    signer = games.keys.signer()
    with games.db.writing_connection() as connection:
        now = utcnow()
        first = chain_records(GENESIS, 0, [started], now)
        info = GameInfo(
            id=new_id(), club_id=club_id, created_at=now, updated_at=now,
            played_on=date.fromisoformat(meta["date"]) if meta.get("date") else now.date(),
            version=state.version, status=state.status, profile=state.rules.profile, players=list(state.players),
            starting_chips=state.starting_chips, deals_played=0, meta=meta,
        )
        [seats] = insert_games(connection, [NewGame(info, first[-1]["hash"])], now)
        writer = _Writer(signer, connection, info.id, first, now, (club_id, info.played_on, seats))
        segment: list[Any] = []
        done = 0  # actions executed before the segment
        for index, action in enumerate(actions):
            if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
                read_game_document({**header, "actions": [{"type": "deal"}] * index + [action]})  # raises, naming it
            digest.add(action)
            if segment and (action["type"] == "deal" or len(segment) >= SEGMENT_ACTIONS):
                state = writer.execute(state, segment, done)
                done += len(segment)
                segment = []
            segment.append(action)
        if segment:
            state = writer.execute(state, segment, done)
        writer.flush()
        info = replace(info, version=state.version, status=state.status, deals_played=state.deals_played)
        connection.execute(update(Game).where(Game.id == info.id).values(
            version=info.version, head_hash=writer.head, status=info.status, deals_played=info.deals_played,
            source_digest=digest.hexdigest()))
    games.cache.put(info.id, state)
    return Imported(info, state, writer.receipt)


class _Writer:
    """Chains the records of each executed segment and inserts them a chunk at a time."""

    def __init__(self, signer: Signer, connection: Connection, game_id: str, first: list[Record],
                 now: datetime, place: Place) -> None:
        self.signer, self.connection, self.game_id, self.now, self.place = signer, connection, game_id, now, place
        self.pending: list[Record] = list(first)
        self.head = first[-1]["hash"]
        self.receipt: dict[str, Any] | None = None  # the last chunk's: in the end, the game's head
        self.before: GameState | None = None  # the state before the pending records (None: they start the log)

    def execute(self, state: GameState, actions: list[Any], done: int) -> GameState:
        try:
            state_after, events = execute(state, actions, MAX_DOCUMENT_EVENTS)  # a game brought whole
        except LedgerError as refusal:
            refusal.params["index"] = done + refusal.params.get("index", 0)
            raise
        records = chain_records(self.head, state.version, events, self.now)
        if records:
            if not self.pending:
                self.before = state  # execute left it as it was: the state before these records
            self.head = records[-1]["hash"]
            self.pending.extend(records)
            if len(self.pending) >= CHUNK_EVENTS:
                self.flush()
        return state_after

    def flush(self) -> None:
        if self.pending:
            self.receipt = insert_records(self.connection, self.game_id, self.pending, self.signer, self.now,
                                          self.place, self.before)
            self.pending = []
