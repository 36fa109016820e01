"""The deal to analyse (docs/ANALYSIS.md): found in the game's log, folded, refused unless settled; with the
analysis kept of it as it stands, if any, or what its computation takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..events import Event
from ..state import GameState
from ..store import Record, Store, StoreError
from ..store.log import event_of
from .games import deal_segment, folded


class DealNotSettled(StoreError):
    """A deal still being played: it can be analysed once it is settled."""

    code = "deal-not-settled"

    def __init__(self, number: int) -> None:
        super().__init__("Deal {number} is not settled yet: it can be analysed once it is.", number=number)


@dataclass(frozen=True)
class SettledDeal:
    """A settled deal as it stood: the state at its start, its records and their events (by seq)."""

    game: str
    number: int
    start: GameState
    records: list[Record]
    events: list[tuple[int, Event]]

    @property
    def head(self) -> dict[str, Any]:
        """The deal's last event, ``{seq, hash}``: an analysis is of the deal as it stood then."""
        return {"seq": self.records[-1]["seq"], "hash": self.records[-1]["hash"]}

    @property
    def key(self) -> tuple[str, int, int, str]:
        """What its analysis is kept by: the game, the deal, its last event's seq and hash."""
        return self.game, self.number, self.records[-1]["seq"], self.records[-1]["hash"]


@dataclass(frozen=True)
class DealAnalysis:
    """A settled deal and its analysis as kept (None: not computed yet, or not kept)."""

    deal: SettledDeal
    kept: dict[str, Any] | None


def settled_deal(store: Store, club: str, game: str, number: int) -> SettledDeal:
    """Deal ``number`` of ``game``, folded from its start: :class:`~.games.NoSuchDeal` for a deal not reached,
    the log's damage for events that cannot be folded, :class:`DealNotSettled` for a deal not over."""
    start, records = deal_segment(store, club, game, number)
    events = [event_of(record) for record in records]
    end = folded(game, number, start, events)
    if end.deal is None or not end.deal.ended:
        raise DealNotSettled(number)
    return SettledDeal(game, number, start, records,
                       [(record["seq"], event) for record, event in zip(records, events, strict=True)])


def deal_analysis(store: Store, club: str, game: str, number: int) -> DealAnalysis:
    """The settled deal (:func:`settled_deal`) and the analysis kept of it as it stands now."""
    deal = settled_deal(store, club, game, number)
    return DealAnalysis(deal, store.analyses.deal_analysis(*deal.key))
