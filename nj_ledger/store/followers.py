"""Waking the followers of a game when its log grows, whichever process or host appended.

The log is the truth: a wake-up says only "read the log again". What is
followed is a game (its key is its id), a club's feed (``club:<id>``) or an
evening's log (``evening:<id>``). A stream also follows the credential it was
opened with (``credential:token:<id>``, ``credential:share:<id>``,
``credential:table:<id>``: :func:`credential_key`), so that its revocation ends
the stream at once, on every process: there the wake-up says "ask again whether
it is in use" (:meth:`Followers.revoked`). One thread per store (so one per server
process) watches the database for every follower of the process:

- on PostgreSQL it ``LISTEN``s on one connection of its own: every append
  notifies in its own transaction (:meth:`Recorder.announce`), and so does
  every revocation (:func:`announce_revoked`), and PostgreSQL delivers the
  notification to every listening process, of this host or another, once the
  rows are visible;
- on SQLite (one host: the database is a file) it reads the versions of the
  games followed in this process every :data:`POLL_INTERVAL` seconds, one
  indexed query however many follow them, and whether the credentials followed
  are still in use, one more.

A notification lost (the listening connection broken and made again) loses no
event: the listener wakes every follower when it connects again, each reads
the log after the last position it sent, and followers also read the log at
each heartbeat.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.orm import Session

from .models import ClubFeedRecord, Evening, Game, Share, TableToken, Token
from .recorder import Recorder, recorder_for

CLUB_PREFIX = "club:"  # the key of a club's feed among the followed (a game's key is its id)
EVENING_PREFIX = "evening:"  # the key of an evening's log of decisions
CREDENTIAL_PREFIX = "credential:"  # the key of a credential a stream was opened with (credential_key)
# What a credential's key names, and the table it is kept in: a token and a share are in use until revoked; a table's
# token has no revocation of its own, and is in use while its row is there.
CREDENTIALS: dict[str, Any] = {"token": Token, "share": Share, "table": TableToken}
IN_USE, REVOKED = 0, 1  # a credential's "version" among the followed: it moves once, when it is revoked
POLL_INTERVAL = 0.05  # seconds between two reads of the followed games' versions (SQLite)
RECONNECT_DELAY = 1.0  # seconds before listening again after the connection was lost (PostgreSQL)
LISTEN_TIMEOUT = 1.0  # seconds the listener waits for a notification before looking whether to stop
Wake = Callable[[], None]
_log = logging.getLogger(__name__)


def credential_key(kind: str, ident: int) -> str:
    """The followers' key of a credential: ``kind`` one of :data:`CREDENTIALS`, ``ident`` its row's id.

    >>> credential_key("share", 7)
    'credential:share:7'
    """
    if kind not in CREDENTIALS:
        raise ValueError(f"a credential is one of {sorted(CREDENTIALS)}, not {kind!r}")
    return f"{CREDENTIAL_PREFIX}{kind}:{ident}"


def announce_revoked(connection: Connection | Session, kind: str, ident: int) -> None:
    """Tell the streams of every process opened with this credential that it was revoked, when the revoking
    transaction commits (PostgreSQL; SQLite's poll sees the row change by itself)."""
    if isinstance(connection, Session):
        connection = connection.connection()
    recorder_for(connection).announce(connection, credential_key(kind, ident), REVOKED)


class Watched(Protocol):
    """What the followers need of their store (:class:`~.base.Database`): its database's recorder and engine,
    and a read transaction."""

    @property
    def recorder(self) -> Recorder: ...

    @property
    def engine(self) -> Engine: ...

    def reading(self) -> AbstractContextManager[Session]: ...


class Followers:
    """The followers of games in this process, each a callable the watching thread calls when its game's log
    may have grown (from that thread: a follower hands the news to its own thread or event loop)."""

    def __init__(self, store: Watched, poll_interval: float = POLL_INTERVAL) -> None:
        self.store = store
        self.poll_interval = poll_interval
        self._lock = threading.Lock()
        self._wakes: dict[str, set[Wake]] = {}
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def follow(self, game_id: str, wake: Wake) -> Callable[[], None]:
        """Call ``wake`` whenever ``game_id``'s log may have grown; the function returned stops it."""
        with self._lock:
            self._wakes.setdefault(game_id, set()).add(wake)
            if self._thread is None or not self._thread.is_alive():
                self._stopping.clear()
                self._thread = threading.Thread(target=self._watch, name="nj-ledger-followers", daemon=True)
                self._thread.start()

        def unfollow() -> None:
            with self._lock:
                wakes = self._wakes.get(game_id)
                if wakes is not None:
                    wakes.discard(wake)
                    if not wakes:
                        del self._wakes[game_id]

        return unfollow

    def count(self) -> int:
        """How many followers of logs this process has (the watches of credentials left out)."""
        with self._lock:
            return sum(len(wakes) for key, wakes in self._wakes.items() if not key.startswith(CREDENTIAL_PREFIX))

    def stop(self) -> None:
        """Stop watching (the thread ends within a second)."""
        self._stopping.set()

    def wake(self, game_ids: Iterable[str] | None = None) -> None:
        """Wake the followers of ``game_ids`` (None: of every game)."""
        with self._lock:
            chosen = self._wakes if game_ids is None else {g: self._wakes[g] for g in game_ids if g in self._wakes}
            wakes = [wake for group in chosen.values() for wake in group]
        for wake in wakes:
            try:
                wake()
            except Exception:  # noqa: BLE001 - one follower's failure must not keep the others asleep
                _log.exception("a follower could not be woken")

    def _followed(self) -> list[str]:
        with self._lock:
            return list(self._wakes)

    def _watch(self) -> None:
        while not self._stopping.is_set():
            try:
                listener = self.store.recorder.listener(self.store.engine)
            except Exception:  # noqa: BLE001 - the watcher outlives any failure of the database: it tries again
                _log.warning("cannot listen for appends; trying again", exc_info=True)
                self._stopping.wait(RECONNECT_DELAY)
                continue
            try:
                if listener is None:
                    self._poll()
                    return
                self.wake()  # anything appended while nobody listened is read now
                while not self._stopping.is_set():
                    games = listener.wait(LISTEN_TIMEOUT)
                    if games:
                        self.wake(games)
            except Exception:  # noqa: BLE001 - the connection was lost: listen again, and the followers read the log again
                _log.warning("the connection listening for appends was lost; listening again", exc_info=True)
                self._stopping.wait(RECONNECT_DELAY)
            finally:
                if listener is not None:
                    try:
                        listener.close()
                    except Exception:  # noqa: BLE001 - a broken connection may fail to close: it is dropped
                        pass

    def _poll(self) -> None:
        """SQLite: read the followed games' versions, wake the followers of those that moved."""
        seen: dict[str, int] = {}
        while not self._stopping.wait(self.poll_interval):
            games = self._followed()
            if not games:
                seen.clear()
                continue
            try:
                versions = self.store_versions(games)
            except Exception:  # noqa: BLE001 - read again at the next round
                _log.warning("cannot read the followed games' versions", exc_info=True)
                continue
            moved = [game for game, version in versions.items() if seen.get(game) != version]  # a new one too
            seen = versions
            if moved:
                self.wake(moved)

    def revoked(self, keys: Iterable[str]) -> set[str]:
        """Those of these credentials' keys (:func:`credential_key`) that are no longer in use, as the database
        holds them now: revoked, or never known."""
        credentials = [key for key in keys if key.startswith(CREDENTIAL_PREFIX)]
        if not credentials:
            return set()
        versions = self.store_versions(credentials)
        return {key for key in credentials if versions.get(key) != IN_USE}

    def store_versions(self, keys: list[str]) -> dict[str, int]:
        """The versions of these games, the last positions of these clubs' feeds (keys ``club:<id>``), the
        versions of these evenings' logs (keys ``evening:<id>``) and whether these credentials are in use
        (:data:`IN_USE` or :data:`REVOKED`), as the database holds them now."""
        named = (CLUB_PREFIX, EVENING_PREFIX, CREDENTIAL_PREFIX)
        games = [key for key in keys if not key.startswith(named)]
        clubs = [key[len(CLUB_PREFIX):] for key in keys if key.startswith(CLUB_PREFIX)]
        evenings = [key[len(EVENING_PREFIX):] for key in keys if key.startswith(EVENING_PREFIX)]
        credentials = [key for key in keys if key.startswith(CREDENTIAL_PREFIX)]
        versions: dict[str, int] = {}
        with self.store.reading() as session:
            if credentials:
                versions.update(_credentials_in_use(session, credentials))
            if games:
                rows = session.execute(select(Game.id, Game.version).where(Game.id.in_(games)))
                versions.update({row.id: row.version for row in rows})
            if clubs:
                feeds = session.execute(
                    select(ClubFeedRecord.club_id, func.max(ClubFeedRecord.position))
                    .where(ClubFeedRecord.club_id.in_(clubs)).group_by(ClubFeedRecord.club_id))
                versions.update({CLUB_PREFIX + row[0]: int(row[1]) for row in feeds})
            if evenings:
                rows = session.execute(select(Evening.id, Evening.version).where(Evening.id.in_(evenings)))
                versions.update({EVENING_PREFIX + row.id: row.version for row in rows})
        return versions


def _credentials_in_use(session: Session, keys: list[str]) -> dict[str, int]:
    """:data:`IN_USE` or :data:`REVOKED` for each credential's key: one indexed query per kind named."""
    wanted: dict[str, dict[int, str]] = {}
    for key in keys:
        kind, _, ident = key[len(CREDENTIAL_PREFIX):].partition(":")
        if kind in CREDENTIALS and ident.isdigit() and len(ident) <= 18:
            wanted.setdefault(kind, {})[int(ident)] = key
    in_use: set[str] = set()
    for kind, by_id in wanted.items():
        table = CREDENTIALS[kind]
        query = select(table.id).where(table.id.in_(list(by_id)))
        if hasattr(table, "revoked_at"):
            query = query.where(table.revoked_at.is_(None))
        in_use.update(by_id[ident] for ident in session.scalars(query))
    return {key: IN_USE if key in in_use else REVOKED for key in keys}
