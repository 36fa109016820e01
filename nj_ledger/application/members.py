"""What a club holds about one member, given to them when they ask for it: who they are to the club, every game
they sat in (with its result, once ended), their figures, their evenings and every decision of an evening that
names them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..store import ErasureInfo, EveningRead, PlayerInfo, Store
from ..store.projections import ScoreLine, player_stats
from .evenings import nights_of

EVERY_GAME = 10**9  # a member's games listed at once: the answer is the whole record


@dataclass(frozen=True)
class MemberData:
    """What the club holds about a member: the member, their figures over every ended game (None before one), each
    game they sat in, each evening they played and each evening decision that names them."""

    member: PlayerInfo
    figures: ScoreLine | None
    games: list[dict[str, Any]]
    evenings: list[dict[str, Any]]
    named_in: list[dict[str, Any]]


def member_data(store: Store, club: str, member: str) -> MemberData:
    """Everything the club holds about ``member`` (a name, any case, or an id; NotFound for none)."""
    found = store.clubs.member(club, member)
    stats = player_stats(store.db, club, found.name, limit=EVERY_GAME)  # by name: an id may be another's name
    results = {line.game_id: line for line in stats.history}
    games = []
    for game in store.clubs.member_games(club, found.id):
        line = results.get(game.game)
        games.append({"game": game.game, "date": game.played_on.isoformat(), "title": game.title,
                      "status": game.status, "seat": game.seat, "players": game.players,
                      "rank": None if line is None else line.rank, "chips": None if line is None else line.chips,
                      "net": None if line is None else line.net})
    reads = store.evenings.evenings_between(club, None, None)  # read once, for the evenings and the decisions
    _, nights = nights_of(reads, found.name)
    return MemberData(found, stats.line, games, nights, named_in(reads, found.name))


def named_in(reads: Sequence[EveningRead], name: str) -> list[dict[str, Any]]:
    """Every decision of the evenings ``reads`` whose data names ``name`` (any case), oldest evening first."""
    key = name.casefold()
    found = []
    for read in reads:
        for entry in read.entries:
            if _names(entry.data, key):
                found.append({"evening": read.info.id, "seq": entry.seq, "type": entry.type,
                              "recorded_at": entry.recorded_at, "data": dict(entry.data)})
    return found


def _names(value: Any, key: str) -> bool:
    if isinstance(value, str):
        return value.casefold() == key
    if isinstance(value, Mapping):
        return any(_names(item, key) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(_names(item, key) for item in value)
    return False


def erase_member(store: Store, club: str, member: str, reason: str, by: Mapping[str, Any]) -> ErasureInfo:
    """Erase ``member`` (a name, any case, or an id) for ``reason``, decided by ``by``
    (:mod:`nj_ledger.store.erasures`)."""
    return store.erasures.erase(club, member, reason, by)


def erasures(store: Store, club: str) -> tuple[list[ErasureInfo], dict[str, Any]]:
    """The club's erasures, oldest first, and their chain's check."""
    store.clubs.club(club)  # 404 for a club that is not there
    return store.erasures.erasures(club), store.erasures.chain(club)
