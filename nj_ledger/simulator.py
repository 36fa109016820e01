"""A seeded simulator of legal games, for tests, benchmarks and the demo.

Bots see their own hand and pick among legal moves: they start runs, continue
them when they can (and must, when the rules say so), sometimes stop early when
the profile allows it, sometimes forget to announce an honour, sometimes let a
pass be inferred, sometimes undo a play (the winning one too, with the settlement
it caused) and record it again, and sometimes agree an adjustment between deals.
With ``info="partial"`` the hands are not given at the deal (what a scorer sees
at a real table) and the losers' hands are revealed when settlement needs them:
card by card, or (``by_count``, how often) settled by count, the table telling
how many cards are left, their points and the honours still held.

    >>> game = simulate(seed=7, profile="hearts", players=4, deals=3)
    >>> game.state.status
    'ended'
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bounds import MAX_DOCUMENT_EVENTS
from .cards import DECK, Card
from .checks import declarable
from .decide import execute, new_game
from .events import Event
from .profiles import PROFILES, default_starting_chips
from .reducer import replay
from .rules import Rules, resolve_rules
from .state import ENDED, PLAYING, READY, REVEALING, GameState

NAMES = ("Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo")


@dataclass
class SimulatedGame:
    """A simulated game: the players and rules it was created with, every batch and every event."""

    players: list[str]
    rules: Rules
    starting_chips: int
    batches: list[list[dict[str, Any]]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    state: GameState | None = None

    @property
    def actions(self) -> list[dict[str, Any]]:
        return [action for batch in self.batches for action in batch]


class _Table:
    """The simulator's view of the table: the true hands, whatever the scorer records."""

    def __init__(self, rng: random.Random, game: SimulatedGame, info: str, chatter: float,
                 by_count: float = 0.0) -> None:
        self.rng = rng
        self.game = game
        self.info = info
        self.chatter = chatter  # how often bots do the unusual: forget, stop early, undo
        self.by_count = by_count  # how often a loser's hand is told by count rather than shown
        self.state = replay(game.events)
        self.hands: list[set[Card]] = []
        self.pending: list[tuple[dict[str, Any], bool]] = []  # passes not sent yet, and whether each blocked
        self.before_pending = self.state

    def submit(self, batch: list[dict[str, Any]]) -> None:
        self.state, events = execute(self.state, batch, MAX_DOCUMENT_EVENTS)  # a game made whole
        self.game.batches.append(batch)
        self.game.events.extend(events)

    # --- a deal -------------------------------------------------------------------------------
    def deal(self) -> None:
        s, rng = self.state, self.rng
        n = s.n
        size, _ = s.rules.deal_table[n]
        deck = list(DECK)
        rng.shuffle(deck)
        self.hands = [set(deck[i * size:(i + 1) * size]) for i in range(n)]
        action: dict[str, Any] = {"type": "deal"}
        if self.info == "full":
            action["hands"] = [sorted(h, key=lambda c: (c.rank, c.suit)) for h in self.hands]
        self.submit([action])
        while self.state.status == PLAYING:
            self.turn()
        if self.state.status == REVEALING:
            deal = self.state.deal
            assert deal is not None
            for seat in list(deal.awaiting):
                if self.by_count and self.rng.random() < self.by_count:  # no draw without it: same games as before
                    self.submit([told_by_count(self.state, seat, self.hands[seat])])
                else:
                    self.submit([{"type": "reveal", "seat": seat, "cards": sorted(self.hands[seat])}])

    def turn(self) -> None:
        s, rng = self.state, self.rng
        deal = s.deal
        assert deal is not None and deal.turn is not None
        seat = deal.turn
        hand = self.hands[seat]
        rules = s.rules
        if deal.expected is None:
            first = self._opening(hand)
        else:
            wanted = [c for c in hand if c.rank == deal.expected and c != rules.wild
                      and (deal.expected_suit is None or c.suit == deal.expected_suit)]
            stop = rules.may_stop and rng.random() < self.chatter * 0.3
            if rules.wild in hand and (not wanted or rng.random() < 0.3):
                wanted = [rules.wild]  # the chief hoc, laid out of sequence
            elif not wanted or stop:
                self._pass(seat)
                return
            first = rng.choice(sorted(wanted))
        cards = self._extend(hand, first)
        honours = [c for c in cards if rules.announceable(c)]
        announced = [c for c in honours if rng.random() >= self.chatter * 0.2]
        play = {"type": "play", "seat": seat, "cards": [str(c) for c in cards], "announced": announced}
        self._send_play(play)
        for card in cards:
            hand.discard(card)
        if rng.random() < self.chatter * 0.05 and self.state.undoable() is not None:
            # a mis-recorded play, withdrawn and recorded again (past the settlement it caused, if it did)
            self.submit([{"type": "undo", "reason": "wrong cards tapped"}])
            self.submit([play])

    def _opening(self, hand: set[Card]) -> Card:
        deal = self.state.deal
        assert deal is not None
        if not deal.opened and self.state.rules.opening == "lowest":
            lowest = min(c.rank for c in hand)
            return sorted(c for c in hand if c.rank == lowest)[0]
        return self.rng.choice(sorted(hand))

    def _extend(self, hand: set[Card], first: Card) -> list[Card]:
        """Lay ``first`` and keep going: after a King the turn goes on with any card."""
        rules, rng = self.state.rules, self.rng
        cards = [first]
        left = set(hand) - {first}
        while left:
            last = cards[-1]
            if rules.ends_run(last):
                if rng.random() < 0.5:  # sometimes recorded as two plays of the same turn
                    break
                cards.append(rng.choice(sorted(left)))
            else:
                nxt = sorted(c for c in left if c.rank == last.rank + 1 and c != rules.wild
                             and (rules.sequence == "rank" or c.suit == last.suit))
                if rules.wild in left and rng.random() < 0.1:
                    nxt = [rules.wild]
                if not nxt:
                    break
                if rules.may_stop and rng.random() < self.chatter * 0.15:
                    break
                cards.append(rng.choice(nxt))
            left.discard(cards[-1])
        return cards

    def _pass(self, seat: int) -> None:
        if not self.pending:
            self.before_pending = self.state
        self.state, _ = execute(self.state, [{"type": "pass", "seat": seat}], MAX_DOCUMENT_EVENTS)  # provisional
        after = self.state.deal
        assert after is not None
        self.pending.append(({"type": "pass", "seat": seat}, not after.passers))

    def _send_play(self, play: dict[str, Any]) -> None:
        """Send the pending passes explicitly, or let the play infer them when that is the same."""
        if self.pending:
            # roll back the provisional passes, then decide how to record them
            self.state = self.before_pending
            passes = [p for p, _ in self.pending]
            blocks = [b for _, b in self.pending]
            first_seat = passes[0]["seat"]
            inferable = play["seat"] != first_seat and not any(blocks[:-1])
            self.pending = []
            if inferable and self.rng.random() < 0.6:
                self.submit([play])
                return
            if self.rng.random() < 0.5:
                self.submit([*passes, play])
                return
            for p in passes:
                self.submit([p])
        self.submit([play])


def simulate(
    seed: int = 0,
    profile: str | Mapping[str, Any] = "classic",
    players: int | None = None,
    *,
    info: str = "full",
    deals: int | None = 8,
    starting_chips: int | None = None,
    chatter: float = 1.0,
    by_count: float = 0.0,
) -> SimulatedGame:
    """Play one random legal game; the same arguments always give the same game.

    ``deals`` caps the game (the table agrees to end after that many deals)
    when the rules have not ended it first. With ``info="partial"``, ``by_count``
    is the chance that a loser's hand is told by count instead of shown card by
    card (the game is then the same as without it up to its first reveal).
    """
    rng = random.Random(seed)
    rules = resolve_rules(profile)
    n = players if players is not None else rng.choice(rules.players)
    if starting_chips is None:
        starting_chips = rules.ante_total * rng.choice((2, 3, 5, 8))
    names = list(NAMES[:n])
    started = new_game(names, rules, starting_chips)
    game = SimulatedGame(names, rules, starting_chips, events=[started])
    table = _Table(rng, game, info, chatter, by_count)
    played = 0
    while table.state.status != ENDED:
        if deals is not None and played >= deals:
            table.submit([{"type": "end", "reason": "time to go home"}])
            break
        if played and rng.random() < chatter * 0.05:
            _adjust(table)
            if table.state.status == READY and not _can_deal(table.state):
                table.submit([{"type": "end", "reason": "a player is out of chips"}])
                break
        table.deal()
        played += 1
    game.state = table.state
    return game


# How deal counts are measured (docs/RULES.md): seeds 0-399, the deals capped at 50 (a game that long counts 50).
LENGTH_GAMES = 400
LENGTH_CAP = 50


def game_lengths(profile: str, players: int, starting_chips: int | None = None, *, games: int = LENGTH_GAMES,
                 seed: int = 0, cap: int = LENGTH_CAP) -> list[int]:
    """How many deals each of ``games`` simulated games lasted (seeds ``seed``, ``seed + 1``…), with the
    profile's options and its default starting chips (:func:`~nj_ledger.profiles.default_starting_chips`)
    unless others are given: the new-game page's defaults.

    >>> game_lengths("hearts", 3, games=3)
    [23, 18, 18]
    """
    chips = default_starting_chips(profile) if starting_chips is None else starting_chips
    lengths = []
    for k in range(games):
        state = simulate(seed + k, profile, players, info="partial", deals=cap, starting_chips=chips).state
        assert state is not None
        lengths.append(state.deals_played)
    return lengths


def median_lengths(games: int = LENGTH_GAMES, seed: int = 0) -> dict[str, dict[int, float]]:
    """The median game length, in deals, of each profile with its defaults, by number of players (3 to 5)."""
    out: dict[str, dict[int, float]] = {}
    for profile in PROFILES:
        counts = [n for n in (3, 4, 5) if n in resolve_rules(profile).players]
        out[profile] = {n: statistics.median(game_lengths(profile, n, games=games, seed=seed)) for n in counts}
    return out


def told_by_count(s: GameState, seat: int, hand: Iterable[Card]) -> dict[str, Any]:
    """The count form of the reveal of ``hand``, as the table tells it: the cards left, their points, the
    honours among them (in board order).

    >>> from nj_ledger import new_game, replay
    >>> from nj_ledger.cards import parse_card
    >>> s = replay([new_game(["Ana", "Ben"], "classic")])
    >>> told_by_count(s, 1, [parse_card(c) for c in ("QS", "9H", "AC")])
    {'type': 'reveal', 'seat': 1, 'count': 3, 'points': 20, 'honours': ['QS']}
    """
    cards = set(hand)
    return {"type": "reveal", "seat": seat, "count": len(cards), "points": sum(card.points for card in cards),
            "honours": [str(card) for card in declarable(s) if card in cards]}


def _adjust(table: _Table) -> None:
    s = table.state
    source = max(range(s.n), key=lambda seat: s.balances[seat])
    target = table.rng.randrange(s.n)
    if target != source and s.balances[source] > 1:
        table.submit([{"type": "adjust", "from": f"seat:{source}", "to": f"seat:{target}",
                       "amount": 1, "reason": "a chip dropped under the table"}])


def _can_deal(s: GameState) -> bool:
    from .decide import can_ante

    return can_ante(s, s.next_dealer())


if __name__ == "__main__":  # python -m nj_ledger.simulator: the median game lengths of docs/RULES.md
    for name, medians in median_lengths().items():
        figures = ", ".join(f"{n} players {median:g}" for n, median in medians.items())
        print(f"{name:<18} {default_starting_chips(name):>4} chips: {figures}")
