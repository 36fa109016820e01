"""The scoreboard worked out again from a club's logs, the slow and obvious way, to check the projections.

Nothing here reads the projection tables or calls the scoring module: balances
and the number of deals come from the reducer's replay, the rest from the
events, ratings from openskill rating objects carried from game to game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import Any

from openskill.models import PlackettLuce

from nj_ledger import event_from_dict, replay
from nj_ledger.store import Store


@dataclass
class Expected:
    games: int = 0
    wins: Fraction = Fraction(0)
    deals_played: int = 0
    deals_won: int = 0
    net: int = 0
    grand_operas: int = 0
    honours_taken: int = 0
    honour_chips: int = 0
    betes_paid: int = 0
    ruins: int = 0
    rating: Any = None  # openskill rating after the last game in the period
    history: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class GameOutcome:
    game_id: str
    played_on: date
    ended_at: str
    names: list[str]
    per_seat: list[dict[str, Any]]


def outcomes(store: Store, club_id: str) -> list[GameOutcome]:
    """Every ended game of the club, in the order their ``game_ended`` was recorded (then by id)."""
    found = []
    for game in store.games.list_games(club_id, limit=500):
        records = store.games.records(club_id, game.id)
        events = [event_from_dict(r) for r in records]
        state = replay(events)
        if state.status != "ended":
            continue
        assert state.result is not None
        n = state.n
        seat: list[dict[str, Any]] = [dict.fromkeys(
            ("deals_won", "grand_operas", "honours_taken", "honour_chips", "betes_paid", "ruins"), 0)
            for _ in range(n)]
        undone = {r["data"].get("reverses") for r in records
                  if r["type"] == "transfer" and r["data"]["reason"] == "undo"}
        for position, r in enumerate(records):
            data = r["data"]
            if r["type"] == "deal_ended" and any(later["type"] == "undo" and later["deal"] == r["deal"]
                                                 for later in records[position:]):
                continue  # an undo in the same deal after it withdrew this settlement
            if r["type"] == "transfer" and data["reason"] == "take" and r["seq"] not in undone:
                taker = int(data["to"].split(":")[1])
                seat[taker]["honours_taken"] += 1
                seat[taker]["honour_chips"] += data["amount"]
            if r["type"] == "deal_ended":
                seat[data["winner"]]["deals_won"] += 1
                seat[data["winner"]]["grand_operas"] += bool(data["grand_opera"])
                for bete in data["betes"]:
                    seat[bete["seat"]]["betes_paid"] += 1
                for ruined in {s["seat"] for s in data["shortfalls"]}:
                    seat[ruined]["ruins"] += 1
        ranks = {row["seat"]: row["rank"] for row in state.result["standings"]}
        first = sorted(ranks.values()).count(1)
        for s in range(n):
            seat[s].update(deals_played=state.deals_played, net=state.balances[s] - state.starting_chips,
                           rank=ranks[s], wins=Fraction(1, first) if ranks[s] == 1 else Fraction(0))
        found.append(GameOutcome(game.id, game.played_on, records[-1]["recorded_at"], list(state.players), seat))
    return sorted(found, key=lambda g: (g.ended_at, g.game_id))


def expected_scoreboard(store: Store, club_id: str, start: date | None = None,
                        end: date | None = None) -> dict[str, Expected]:
    """Each player's figures over the period, by name (in lower case)."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    board: dict[str, Expected] = {}
    for game in outcomes(store, club_id):
        keys = [name.casefold() for name in game.names]
        teams = [[ratings.get(key) or model.rating()] for key in keys]
        rated = model.rate(teams, ranks=[s["rank"] for s in game.per_seat])
        for key, team in zip(keys, rated, strict=True):
            ratings[key] = team[0]
        if (start is not None and game.played_on < start) or (end is not None and game.played_on > end):
            continue
        for key, figures in zip(keys, game.per_seat, strict=True):
            row = board.setdefault(key, Expected())
            row.games += 1
            for name in ("wins", "deals_played", "deals_won", "net", "grand_operas", "honours_taken",
                         "honour_chips", "betes_paid", "ruins"):
                setattr(row, name, getattr(row, name) + figures[name])
            row.rating = ratings[key]
            row.history.append({"game": game.game_id, "net": figures["net"], "rank": figures["rank"]})
    return board
