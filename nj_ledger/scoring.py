"""What one ended game adds to a club's scoreboard, and the players' ratings.

Pure: :func:`game_figures` reads a game's stored records and returns each
seat's figures; :func:`rate_game` moves the players' ratings with the openskill
library's Plackett-Luce model. The store's projections keep these per game and
add them up per player and period.

The choices a scoreboard has to make, in one place:

- Only **ended** games count, for every figure: deals of a game still in play
  (or abandoned without an ``end``) do not count until the game ends. A row is
  made of finished results, and its figures never move backwards when a deal is
  undone or a game is corrected before it ends; a game whose end an undo
  withdraws leaves the scoreboard until it ends again.
- **Wins**: the seats ranked first share one win. A share is kept as a whole
  number of :data:`WIN_UNITS` (840, divisible by every table size 1–8), so
  sums stay exact: two players tied first get 420 units, half a win each.
- **Honours taken**: ``take`` transfers (an announced honour taking its box),
  less those withdrawn by an ``undo`` (an ``undo`` transfer names the seq it
  ``reverses``). Honour chips are the chips those takes moved.
- **Bêtes paid**: one per honour a loser still held at settlement (the
  ``betes`` of ``deal_ended``). **Ruins**: deals in which the seat could not pay
  in full (it appears in the deal's ``shortfalls``).
- **Net**: chips at the end (the standings) minus the starting chips.
- A settlement withdrawn by an ``undo`` (one recorded in the same deal after its
  ``deal_ended``, SPEC §4) counts for nothing, and neither does the game's end
  withdrawn with it: a game whose end was withdrawn is not ended.
- **Rating**: openskill's Plackett-Luce model, one team of one per seat, the
  game's standings as ranks (equal chips share a rank). Shown as the
  conservative ordinal ``mu - 3 * sigma``, 0 before the first game.

    >>> from nj_ledger.simulator import simulate
    >>> game = simulate(seed=3, profile="classic", players=3, deals=2)
    >>> figures = game_figures({"seq": seq, **event.to_dict()} for seq, event in enumerate(game.events, 1))
    >>> sum(seat.win_units for seat in figures.seats) == WIN_UNITS
    True
    >>> [seat.deals_played for seat in figures.seats] == [figures.deals] * 3
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from .events import SCHEMA_VERSION, event_from_dict

WIN_UNITS = 840  # lcm(1, …, 8): a win shared by any number of tied seats is a whole number of units
RATING_MODEL = PlackettLuce()
START_RATING: tuple[float, float] = (RATING_MODEL.mu, RATING_MODEL.sigma)

Rating = tuple[float, float]  # (mu, sigma)
COUNTED_TYPES = ("game_started", "transfer", "deal_ended", "game_ended", "undo")


@dataclass(frozen=True, slots=True)
class SeatFigures:
    """One seat's part in an ended game."""

    seat: int
    name: str
    deals_played: int
    deals_won: int
    grand_operas: int
    honours_taken: int
    honour_chips: int
    betes_paid: int
    ruins: int
    chips: int  # at the end of the game
    net: int  # chips - starting chips
    rank: int  # in the final standings; equal chips share a rank
    win_units: int  # share of the game's win, in WIN_UNITS
    chips_by_deal: tuple[int, ...]  # the starting chips, then the chips after each deal


@dataclass(frozen=True, slots=True)
class GameFigures:
    """An ended game's figures, seat by seat."""

    starting_chips: int
    reason: str
    deals: int
    seats: tuple[SeatFigures, ...]


_SEATS: dict[str, int | None] = {}


def _seat_of(account: str) -> int | None:
    """The seat of a ``seat:N`` account (None for a box), remembered: a log names the same few accounts."""
    seat = _SEATS.get(account, -1)
    if seat == -1:
        kind, _, key = account.partition(":")
        seat = _SEATS[account] = int(key) if kind == "seat" else None
    return seat


def game_figures(records: Iterable[Mapping[str, Any]]) -> GameFigures | None:
    """Each seat's figures of a game, from its log; None when the game has not ended.

    ``records`` are the game's stored records (``{seq, deal, type, data, v, …}``) in
    seq order. Only ``game_started``, ``transfer``, ``deal_ended``, ``game_ended``
    and ``undo`` matter (:data:`COUNTED_TYPES`): the others may be left out.
    """
    players: Sequence[str] = ()
    starting = 0
    balances: list[int] = []
    counts: dict[str, list[int]] = {}
    takes: dict[int, tuple[int, int]] = {}  # seq of a take -> (seat, chips)
    chips_by_deal: list[list[int]] = []
    deals = 0
    ended: dict[str, Any] | None = None
    standing: tuple[Any, Mapping[str, Any]] | None = None  # the latest settlement, while an undo may withdraw it
    for record in records:
        seq, kind, data = record["seq"], record["type"], record["data"]
        if record.get("v", SCHEMA_VERSION) != SCHEMA_VERSION:  # an old record: read it as today's
            data = event_from_dict(record).data
        if kind == "transfer":
            amount = data["amount"]
            source, target = _seat_of(data["from"]), _seat_of(data["to"])
            if source is not None:
                balances[source] -= amount
            if target is not None:
                balances[target] += amount
            if data["reason"] == "take" and target is not None:
                takes[seq] = (target, amount)
            elif data["reason"] == "undo":
                takes.pop(data.get("reverses", -1), None)
        elif kind == "deal_ended":
            deals += 1
            _count_settlement(counts, data, 1)
            for seat, chips in enumerate(balances):
                chips_by_deal[seat].append(chips)
            standing = (record.get("deal"), data)
        elif kind == "game_ended":
            ended = dict(data)
        elif kind == "undo" and standing is not None and record.get("deal") == standing[0]:
            # an undo before the next deal withdraws the settlement, and the game's end with it
            deals -= 1
            _count_settlement(counts, standing[1], -1)
            for seat_chips in chips_by_deal:
                seat_chips.pop()
            standing = ended = None
        elif kind == "game_started":
            players = list(data["players"])
            starting = int(data["starting_chips"])
            balances = [starting] * len(players)
            counts = {name: [0] * len(players) for name in ("deals_won", "grand_operas", "betes_paid", "ruins")}
            chips_by_deal = [[starting] for _ in players]
    if ended is None:
        return None
    standings = {row["seat"]: row for row in ended["standings"]}
    first = sum(1 for row in ended["standings"] if row["rank"] == 1)
    honours = [0] * len(players)
    honour_chips = [0] * len(players)
    for seat, amount in takes.values():
        honours[seat] += 1
        honour_chips[seat] += amount
    seats = tuple(
        SeatFigures(
            seat=seat, name=name, deals_played=deals, deals_won=counts["deals_won"][seat],
            grand_operas=counts["grand_operas"][seat], honours_taken=honours[seat], honour_chips=honour_chips[seat],
            betes_paid=counts["betes_paid"][seat], ruins=counts["ruins"][seat], chips=standings[seat]["chips"],
            net=standings[seat]["chips"] - starting, rank=standings[seat]["rank"],
            win_units=WIN_UNITS // first if standings[seat]["rank"] == 1 else 0,
            chips_by_deal=tuple(chips_by_deal[seat]),
        )
        for seat, name in enumerate(players)
    )
    return GameFigures(starting_chips=starting, reason=str(ended["reason"]), deals=deals, seats=seats)


def _count_settlement(counts: dict[str, list[int]], data: Mapping[str, Any], sign: int) -> None:
    """Add (``sign`` 1) or take back (-1) what one ``deal_ended`` counts for its seats."""
    winner = data["winner"]
    counts["deals_won"][winner] += sign
    if data.get("grand_opera"):
        counts["grand_operas"][winner] += sign
    for bete in data.get("betes", ()):
        counts["betes_paid"][bete["seat"]] += sign
    for seat in {shortfall["seat"] for shortfall in data.get("shortfalls", ())}:
        counts["ruins"][seat] += sign


def rate_game(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The players' ratings after a game, given their ratings before it and their ranks (1 = best).

    >>> after = rate_game([START_RATING, START_RATING], [1, 2])
    >>> after[0][0] > START_RATING[0] > after[1][0]
    True
    """
    teams = [[RATING_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    rated = RATING_MODEL.rate(teams, ranks=list(ranks))
    return [(team[0].mu, team[0].sigma) for team in rated]


def rating_value(mu: float, sigma: float) -> float:
    """The rating a scoreboard shows: the conservative estimate ``mu - 3 * sigma``.

    >>> rating_value(*START_RATING)
    0.0
    """
    return mu - 3 * sigma
