"""An evening's standings: each game's scores under the ranking rule, the table × round grid, the ranking.

**The ranking** (``ranking`` stored with the evening):

- ``match_points`` (the default): in each counted game a player scores the share of the
  others at the table they finished ahead of, a tie counting half, scaled to 100 —
  ``100 × (beaten + tied / 2) / (players − 1)`` — so the top of a table of 3 and of a table of
  6 both score 100 and the last 0. The evening's score is the sum over the player's games,
  plus the scores awarded and the adjustments.
- ``net_chips``: chips at the end of each counted game minus the starting chips, summed, plus
  awards and adjustments (in chips).

A game counts when it has ended, is not voided, and — when the evening asks for
confirmation — a player of the table confirmed it at the version it stands at
(a game changed after its confirmation, by an undo past its end, waits for a
new one). Equal scores share a rank. A player with no result yet (no game counted, no score awarded, no
adjustment) is listed after the ranked players, unranked (rank null) — at the start of an evening nobody is
"first with 0" — and a withdrawn player last, unranked. An adjustment is a result the director gave, whatever
its amount: a player adjusted +5 then −5, with no game counted, is ranked with 0. This ranking is the one
place that says who has a result: the ladder, a player's evenings and the pages read ``rank`` (null or not).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..names import sort_key
from .log import EveningState

RANKINGS = ("match_points", "net_chips")
MATCH_SCALE = 100

# What a cell of the grid says of a table's game in a round.
PLANNED, MISSING, UNCONFIRMED, COUNTED, VOID = "planned", "missing", "unconfirmed", "counted", "voided"
CELL_MARKS = (PLANNED, MISSING, UNCONFIRMED, COUNTED, VOID)


@dataclass(frozen=True)
class GameOutcome:
    """What the evening needs of a game: its version and status, and each seat's chips (in seat order)."""

    version: int
    status: str
    players: tuple[str, ...]
    chips: tuple[int, ...]
    starting_chips: int
    deals_played: int = 0


def game_scores(outcome: GameOutcome, ranking: str) -> dict[str, Fraction]:
    """Each player's score in one game under the evening's ranking rule.

    >>> o = GameOutcome(9, "ended", ("A", "B", "C", "D"), (70, 50, 50, 10), 45)
    >>> {k: float(v) for k, v in game_scores(o, "match_points").items()}
    {'A': 100.0, 'B': 50.0, 'C': 50.0, 'D': 0.0}
    >>> {k: int(v) for k, v in game_scores(o, "net_chips").items()}
    {'A': 25, 'B': 5, 'C': 5, 'D': -35}
    """
    if ranking == "net_chips":
        return {name: Fraction(chips - outcome.starting_chips) for name, chips in zip(outcome.players,
                                                                                     outcome.chips, strict=True)}
    others = len(outcome.players) - 1
    scores: dict[str, Fraction] = {}
    for name, chips in zip(outcome.players, outcome.chips, strict=True):
        beaten = sum(1 for other in outcome.chips if other < chips)
        tied = sum(1 for other in outcome.chips if other == chips) - 1
        scores[name] = Fraction(MATCH_SCALE) * (beaten + Fraction(tied, 2)) / others if others else Fraction(0)
    return scores


def cell_mark(state: EveningState, game: str, outcome: GameOutcome | None) -> str:
    """What the grid says of a started table's game: voided, missing (not ended), unconfirmed, or counted."""
    if game in state.voided:
        return VOID
    if outcome is None or outcome.status != "ended":
        return MISSING
    if state.confirmation:
        kept = state.confirmations.get(game)
        if kept is None or kept["version"] != outcome.version:
            return UNCONFIRMED
    return COUNTED


def grid(state: EveningState, results: Mapping[str, GameOutcome]) -> list[list[dict[str, Any] | None]]:
    """The table × round grid: for each table (1…), each round's cell, or None where the round has no such
    table. A cell: ``{round, table, players, game, mark, status, version, deals_played, chips, confirmed_by}``."""
    rows: list[list[dict[str, Any] | None]] = []
    for table in range(1, state.table_count() + 1):
        cells: list[dict[str, Any] | None] = []
        for number, tables in enumerate(state.schedule, 1):
            if table > len(tables):
                cells.append(None)
                continue
            cell: dict[str, Any] = {"round": number, "table": table, "players": list(tables[table - 1]),
                                    "game": None, "mark": PLANNED, "status": None, "version": None,
                                    "deals_played": None, "chips": None, "confirmed_by": None}
            if number <= state.current_round:
                seated = state.started[number - 1][table - 1]
                outcome = results.get(seated.game)
                kept = state.confirmations.get(seated.game)
                cell.update(game=seated.game, mark=cell_mark(state, seated.game, outcome))
                if outcome is not None:
                    cell.update(status=outcome.status, version=outcome.version, deals_played=outcome.deals_played,
                                chips=list(outcome.chips))
                if kept is not None and outcome is not None and kept["version"] == outcome.version:
                    cell["confirmed_by"] = kept["player"]
            cells.append(cell)
        rows.append(cells)
    return rows


def _shown(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else round(float(value), 2)


def ranking(state: EveningState, results: Mapping[str, GameOutcome],
            through_round: int | None = None) -> list[dict[str, Any]]:
    """The evening's ranking under its rule, counting the rounds up to ``through_round`` (all by default).

    A row: ``{rank, name, score, games, average, adjustments, withdrawn, rounds: [{round, table, game, score,
    mark}]}``; equal scores share a rank (1, 1, 3…), listed by name; then the players with no result yet (rank
    null, by name), then the withdrawn players (rank null)."""
    last = state.current_round if through_round is None else min(through_round, state.current_round)
    scores: dict[str, Fraction] = {name: Fraction(0) for name in state.players}
    games: dict[str, int] = dict.fromkeys(state.players, 0)
    adjusted: dict[str, Fraction] = {name: Fraction(0) for name in state.players}
    by_round: dict[str, list[dict[str, Any]]] = {name: [] for name in state.players}
    for tables in state.started[:last]:
        for seated in tables:
            outcome = results.get(seated.game)
            mark = cell_mark(state, seated.game, outcome)
            counted = game_scores(outcome, state.ranking) if mark == COUNTED and outcome is not None else {}
            for name in seated.players:
                score = counted.get(name)
                by_round[name].append({"round": seated.round, "table": seated.table, "game": seated.game,
                                       "score": None if score is None else _shown(score), "mark": mark})
                if score is not None:
                    scores[name] += score
                    games[name] += 1
    for award in state.awards:
        if award["round"] <= last:
            scores[award["player"]] += Fraction(award["score"])
            games[award["player"]] += 1
            by_round[award["player"]].append({"round": award["round"], "table": None, "game": None,
                                              "score": _shown(Fraction(award["score"])), "mark": "awarded"})
    for adjustment in state.adjustments:
        if adjustment["round"] <= last:
            adjusted[adjustment["player"]] += Fraction(adjustment["amount"])
    total = {name: scores[name] + adjusted[name] for name in state.players}
    # A result: a game counted, a score awarded, or an adjustment of any amount (even adjustments that cancel
    # out); a player without one yet is not ranked, nor is a withdrawn player whatever they played.
    adjusted_players = {adjustment["player"] for adjustment in state.adjustments if adjustment["round"] <= last}
    playing = [name for name in state.players if name not in state.withdrawn]
    ranked = sorted((name for name in playing if games[name] or name in adjusted_players),
                    key=lambda name: (-total[name], sort_key(name)))
    rows: list[dict[str, Any]] = []
    for position, name in enumerate(ranked, 1):
        tied = bool(rows) and total[rows[-1]["name"]] == total[name]
        rows.append({"rank": rows[-1]["rank"] if tied else position, "name": name})
    waiting = set(playing) - set(ranked)
    rows += [{"rank": None, "name": name} for name in sorted(waiting, key=sort_key)]
    rows += [{"rank": None, "name": name} for name in sorted(state.withdrawn, key=sort_key)]
    for row in rows:
        name = row["name"]
        row.update(score=_shown(total[name]), games=games[name],
                   average=_shown(scores[name] / games[name]) if games[name] else None,
                   adjustments=_shown(adjusted[name]), withdrawn=name in state.withdrawn,
                   present=name in state.present,
                   rounds=sorted(by_round[name], key=lambda cell: cell["round"]))
    return rows
