"""Reading games: a game as it stands, its log a page at a time, a deal's segment of it and the steps a replay
shows, and a club's games by what they are looked for by."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import reduce
from typing import Any

from ..events import Event
from ..reducer import fold
from ..state import GameState
from ..store import GameInfo, NotFound, Record, Store
from ..store.errors import unreplayable
from .listing import Page


class NoSuchDeal(NotFound):
    """A deal the game has not reached (or a game the caller's club does not hold)."""

    def __init__(self, game: str, number: int) -> None:
        super().__init__("Game {game!r} has no deal {number}.", game=game, number=number)


class NoSuchStep(NotFound):
    """A step asked of a deal's replay that is not one of its events (nor the deal's start)."""

    def __init__(self, number: int, first: int, last: int, at: int) -> None:
        super().__init__("Deal {number} runs from event {first} to {last}, not {at}.", number=number, first=first,
                         last=last, at=at)


@dataclass(frozen=True)
class Current:
    """A game as it stands: its summary (whose version its ``ETag`` says) and its state."""

    game: GameInfo
    state: GameState


@dataclass(frozen=True)
class RecordsPage:
    """A page of a game's log: the records after a seq, the game's version when read, the last seq given and
    whether more follow."""

    version: int
    records: list[Record]
    last: int
    more: bool


@dataclass(frozen=True)
class GameFilter:
    """What a club's games are looked for by: a status, a player who sat in, a part of the title (any case), the
    days played (both ends included); None looks at every game."""

    status: str | None = None
    player: str | None = None
    title: str | None = None
    played_from: date | None = None
    played_to: date | None = None


def game_owner(store: Store, game: str) -> str | None:
    """The club of the game ``game``, or None for no such game: for the server's operator, who reaches every
    club."""
    return store.games.owner(game)


def game_summary(store: Store, club: str, game: str) -> GameInfo:
    """The game ``game`` of ``club`` as listed, without its state (NotFound for another club's)."""
    return store.games.game(club, game)


def current_game(store: Store, club: str, game: str) -> Current:
    """The game ``game`` of ``club`` as it stands (NotFound for another club's)."""
    info, state = store.games.game_state(club, game)
    return Current(info, state)


def receipt_of(store: Store, club: str, current: Current) -> dict[str, Any] | None:
    """The signed receipt of the game's head at the version read (None where it was stored unsigned)."""
    return store.games.receipt(club, current.game.id, current.game.version)


def records_page(store: Store, club: str, game: str, after: int, limit: int) -> RecordsPage:
    """At most ``limit`` records of the log with a seq past ``after``, in seq order, and the game's version,
    read after them so that it is never behind them."""
    records = store.games.records(club, game, after, limit)
    info = store.games.game(club, game)
    last = records[-1]["seq"] if records else after
    return RecordsPage(info.version, records, last, bool(records) and last < info.version)


def list_games(store: Store, club: str | None, filters: GameFilter, limit: int, offset: int) -> Page[GameInfo]:
    """A page of ``club``'s games (every club's for None), newest first: by the day played, then by when each
    was recorded."""
    games = store.games.list_games(club, status=filters.status, player=filters.player, played_from=filters.played_from,
                             played_to=filters.played_to, title=filters.title, limit=limit + 1, offset=offset)
    return Page(games[:limit], len(games) > limit)


def deal_segment(store: Store, club: str, game: str, number: int) -> tuple[GameState, list[Record]]:
    """Deal ``number``'s part of the log and the state at its start (:class:`NoSuchDeal` for a deal not
    reached)."""
    segment = store.games.deal_segment(club, game, number)
    if segment is None:
        raise NoSuchDeal(game, number)
    return segment


def folded(game: str, number: int, start: GameState, events: Sequence[Event]) -> GameState:
    """The state at the end of a deal's events, folded on a copy of ``start``; a stored event that cannot be
    folded (a log changed outside the ledger) is refused as the log's damage."""
    try:
        return reduce(fold, events, start.copy())
    except Exception:  # noqa: BLE001 - the log was changed outside the ledger
        raise unreplayable(game, number) from None


def replay_segment(store: Store, club: str, game: str, number: int,
                   at: int | None = None) -> tuple[GameState, list[Record]]:
    """The deal's segment to replay (:func:`deal_segment`), whose steps include the seq ``at`` when it is asked
    (:class:`NoSuchStep` otherwise): the seq before the deal's first event (its start) to its last event's."""
    state, records = deal_segment(store, club, game, number)
    first = records[0]["seq"] - 1
    if at is not None and not first <= at <= records[-1]["seq"]:
        raise NoSuchStep(number, first, records[-1]["seq"], at)
    return state, records
