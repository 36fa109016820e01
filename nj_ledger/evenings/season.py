"""The season ladder (:func:`ladder`), from the closed evenings of a season's days.

An evening counts for the players its ranking ranks (``rank`` not null: a result,
and not withdrawn). A player's value for an evening is their evening score; the
best ``best`` of them are summed (all when the season keeps every evening);
players with fewer than ``qualifying`` evenings are listed after the qualified
ones, unranked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..names import sort_key


def _plain(value: float) -> float | int:
    """A number as shown: to two decimals, an integer without its ".0"."""
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


@dataclass(frozen=True)
class EveningResult:
    """One closed evening as the ladder reads it: its id, day, and each ranked player's score and rank."""

    evening: str
    name: str
    played_on: str
    rows: tuple[tuple[str, float, int | None], ...]  # (player, score, rank)

    @classmethod
    def of_ranking(cls, evening: str, name: str, played_on: str,
                   ranking: Sequence[Mapping[str, Any]]) -> EveningResult:
        """The evening's result from its ranking (:func:`~nj_ledger.evenings.standings.ranking`): the players it
        ranks; those it leaves unranked (no result, or withdrawn) have no evening in the ladder.

        >>> rows = [{"name": "Ana", "score": 0, "rank": 1}, {"name": "Ben", "score": 0, "rank": None}]
        >>> EveningResult.of_ranking("e1", "1", "2026-01-01", rows).rows
        (('Ana', 0.0, 1),)
        """
        return cls(evening, name, played_on, tuple((row["name"], float(row["score"]), row["rank"])
                                                   for row in ranking if row["rank"] is not None))


def ladder(evenings: Sequence[EveningResult], *, qualifying: int = 0,
           best: int | None = None) -> list[dict[str, Any]]:
    """The season ladder: each player's best ``best`` evening scores summed (all when None), qualified players
    (``qualifying`` evenings at least) ranked first by that total, the others after them, unranked.

    >>> nights = [EveningResult("e1", "1", "2026-01-01", (("Ana", 60.0, 1), ("Ben", 40.0, 2))),
    ...           EveningResult("e2", "2", "2026-01-08", (("Ana", 10.0, 2), ("Ben", 90.0, 1))),
    ...           EveningResult("e3", "3", "2026-01-15", (("Ana", 70.0, 1), ("Cléo", 30.0, 2)))]
    >>> [(r["rank"], r["name"], r["total"]) for r in ladder(nights, qualifying=2, best=2)]
    [(1, 'Ana', 130), (1, 'Ben', 130), (None, 'Cléo', 30)]
    """
    played: dict[str, list[dict[str, Any]]] = {}
    for result in sorted(evenings, key=lambda e: (e.played_on, e.evening)):
        for name, score, rank in result.rows:
            played.setdefault(name, []).append({"evening": result.evening, "name": result.name,
                                                "date": result.played_on, "score": score, "rank": rank})
    rows: list[dict[str, Any]] = []
    for name, nights in played.items():
        order = sorted(range(len(nights)), key=lambda i: (-nights[i]["score"], nights[i]["date"]))
        kept = set(order if best is None else order[:best])
        for index, night in enumerate(nights):
            night["kept"] = index in kept
        total = _plain(sum(nights[i]["score"] for i in kept))
        rows.append({"name": name, "evenings": len(nights), "kept": len(kept), "total": total,
                     "qualified": len(nights) >= qualifying, "history": nights})
    rows.sort(key=lambda row: (not row["qualified"], -row["total"], sort_key(row["name"])))
    previous: dict[str, Any] | None = None
    for position, row in enumerate(rows, 1):
        if not row["qualified"]:
            row["rank"] = None
        elif previous is not None and previous["total"] == row["total"]:
            row["rank"] = previous["rank"]
        else:
            row["rank"] = position
        previous = row
    return [{"rank": row.pop("rank"), **row} for row in rows]
