"""Fair to what a player could know: the hands a player could not see, sampled, and each decision valued on them.

At a decision the player to act knows its own hand, every card laid so far and by whom, the passes and the
stops, and how many cards each seat (and the talon) still holds. Where the rules say a seat that holds the card
that continues the run must lay it (``may_stop: false``), a pass, or a stop short of the end of a run, tells
that the seat held no such card (the wild card aside: it may always be kept); where the deal opens with the
lowest card of first hand (``opening: lowest``), the opening card tells that first hand held nothing lower.
Those are every constraint the core's checks put on a hand it does not know (``checks.check_cards``,
``checks.check_may_pass``, the stop of ``decide``), so the deals they leave are exactly the deals on which the
core accepts every action recorded up to the decision.

**The sampling is uniform and exact, without rejection.** Every card not seen may go to a set of *holders*
(each other seat, and the talon): the seats a pass or the opening does not rule out. Cards with the same set
(and, for a hand told by count, the same points) are a class; the number of deals that complete a class by
class assignment with the holders' sizes (and the points a counted hand must make) is counted exactly
(a sum of multinomials over the ways to split each class, memoised on what is left to fill), and each class's
split is drawn with probability its count over the total, the class's cards then shuffled into it. Each
consistent deal is so drawn with probability one over their number, which :attr:`Unseen.deals` gives. Where
the constraints are too many to count within :data:`COUNT_BUDGET` splits tried (the count's work: eight seats
after many passes have millions), the deals are drawn by rejection (the pool dealt at random until a deal meets
every constraint): uniform as well, but slower. Given a :class:`~nj_ledger.analysis.budget.Budget`, every split
tried and every deal dealt is a step of it (:meth:`Unseen.drawn`).

:func:`fair_values` solves each sample from the decision and averages each option's chips.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from math import factorial
from typing import Any

from ..bounds import MAX_DOCUMENT_EVENTS
from ..cards import DECK, Card, parse_cards
from ..checks import declarable
from ..decide import execute
from ..state import GameState
from .budget import Budget
from .decisions import decisions_of
from .model import card_index


@dataclass(frozen=True)
class Unseen:
    """What ``seat`` could not see: ``pool`` (the cards not seen, its own excepted) goes to the holders (seat
    ``i`` for ``i < n``, the talon at index ``n``), ``sizes[h]`` cards each, a card only to a holder of
    ``allowed[card]``; ``points[h]``, where given, is what holder ``h``'s cards must make (a hand told by count);
    ``fixed[h]`` are the cards ``h`` is known to hold."""

    seat: int
    n: int
    pool: tuple[Card, ...]
    sizes: tuple[int, ...]
    allowed: Mapping[Card, frozenset[int]]
    fixed: tuple[frozenset[Card], ...]
    points: Mapping[int, int] = field(default_factory=dict)

    @property
    def deals(self) -> int | None:
        """How many deals are consistent with what the seat could see (None: too many constraints to count
        them within :data:`COUNT_BUDGET`; the samples are then drawn by rejection)."""
        try:
            return _Counter(self).total()
        except _OverBudget:
            return None

    def samples(self, count: int, seed: int | str) -> list[tuple[frozenset[Card], ...]]:
        """``count`` deals drawn uniformly and independently, reproducibly from ``seed``."""
        return self.drawn(count, seed)[1]

    def drawn(self, count: int, seed: int | str, budget: Budget | None = None
              ) -> tuple[int | None, list[tuple[frozenset[Card], ...]]]:
        """:attr:`deals` and :meth:`samples` at once, the deals counted once; each split the count tries and each
        deal a rejection deals is a step of ``budget`` (:class:`~nj_ledger.analysis.TooLarge` past it)."""
        counter = _Counter(self, budget)
        rng = random.Random(seed)
        try:
            deals = counter.total()
        except _OverBudget:
            return None, [self._rejected(rng, budget) for _ in range(count)]
        return deals, [counter.draw(rng) for _ in range(count)]

    def _rejected(self, rng: random.Random, budget: Budget | None = None) -> tuple[frozenset[Card], ...]:
        """One deal drawn uniformly by rejection: the pool shuffled and dealt by the sizes until every card is
        with a holder allowed to hold it (and the points told are made)."""
        cards = list(self.pool)
        for _ in range(REJECTION_BUDGET):
            if budget is not None:
                budget.step(2)  # a shuffle and a check: twice a split of the count
            rng.shuffle(cards)
            held: list[set[Card]] = []
            start = 0
            for size in self.sizes:
                held.append(set(cards[start:start + size]))
                start += size
            if all(h in self.allowed[c] for h, part in enumerate(held) for c in part) and all(
                    sum(c.points for c in held[h]) == p for h, p in self.points.items()):
                return tuple(frozenset(part | self.fixed[h]) for h, part in enumerate(held))
        raise NoConsistentDeal


# The most splits the exact count tries (its work, and a bound on the states it keeps: some 0.04 s) before the
# sampling falls back on rejection (eight seats under `skip` need 7,600 for half their decisions, more than
# 40,000 for a tenth; three or four seats, a few hundred at most).
COUNT_BUDGET = 10_000
REJECTION_BUDGET = 200_000  # the most deals a rejection draw tries before it gives up


class _OverBudget(Exception):
    pass


class NoConsistentDeal(Exception):
    """No deal is consistent with what was seen (the record contradicts the rules), or none was met within
    :data:`REJECTION_BUDGET` draws."""


class _Counter:
    def __init__(self, unseen: Unseen, budget: Budget | None = None) -> None:
        self.unseen = unseen
        self.budget = budget
        self.work = 0  # splits tried by the count
        self.counting = True  # past the count, drawing: its splits are steps of the budget only
        self.targets = tuple(sorted(unseen.points))  # holders whose cards must make a sum of points
        classes: dict[tuple[frozenset[int], int], list[Card]] = {}
        for card in unseen.pool:
            holders = unseen.allowed[card]
            value = card.points if any(h in unseen.points for h in holders) else 0
            classes.setdefault((holders, value), []).append(card)
        # the largest class last: it then fills what is left, without a split to enumerate
        self.classes = sorted(classes.items(), key=lambda item: (len(item[1]), sorted(item[0][0]), item[0][1]))
        self.memo: dict[tuple[int, tuple[int, ...], tuple[int, ...]], int] = {}
        self.start = (tuple(unseen.sizes), tuple(unseen.points[h] for h in self.targets))

    def total(self) -> int:
        caps, points = self.start
        if sum(caps) != len(self.unseen.pool):
            return 0
        return self._count(0, caps, points)

    def _splits(self, index: int, caps: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        (holders, _), cards = self.classes[index]
        order = sorted(holders)
        m = len(cards)

        def walk(k: int, left: int, made: list[int]) -> Iterator[tuple[int, ...]]:
            if k == len(order) - 1:
                self._tried()
                if left <= caps[order[k]]:
                    yield (*made, left)
                return
            for take in range(min(left, caps[order[k]]), -1, -1):
                yield from walk(k + 1, left - take, [*made, take])

        if not order:
            return
        if index == len(self.classes) - 1:  # the last class fills exactly what is left
            self._tried()
            if sum(caps) == m and all(caps[h] == 0 or h in holders for h in range(len(caps))):
                yield caps
            return
        for split in walk(0, m, []):
            out = [0] * len(caps)
            for h, take in zip(order, split, strict=True):
                out[h] = take
            yield tuple(out)

    def _tried(self) -> None:
        self.work += self.counting
        if self.work > COUNT_BUDGET:
            raise _OverBudget
        if self.budget is not None:
            self.budget.step()

    def _after(self, index: int, caps: tuple[int, ...], points: tuple[int, ...], split: tuple[int, ...]
               ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        value = self.classes[index][0][1]
        left = tuple(c - t for c, t in zip(caps, split, strict=True))
        sums = tuple(p - split[h] * value for p, h in zip(points, self.targets, strict=True))
        if any(s < 0 for s in sums):
            return None
        return left, sums

    def _ways(self, split: tuple[int, ...]) -> int:
        ways = factorial(sum(split))
        for take in split:
            ways //= factorial(take)
        return ways

    def _count(self, index: int, caps: tuple[int, ...], points: tuple[int, ...]) -> int:
        if index == len(self.classes):
            return 1 if not any(caps) and not any(points) else 0
        key = (index, caps, points)
        known = self.memo.get(key)
        if known is not None:
            return known
        total = 0
        for split in self._splits(index, caps):
            after = self._after(index, caps, points, split)
            if after is not None:
                rest = self._count(index + 1, *after)
                if rest:
                    total += self._ways(split) * rest
        self.memo[key] = total
        return total

    def draw(self, rng: random.Random) -> tuple[frozenset[Card], ...]:
        caps, points = self.start
        total = self.total()
        self.counting = False
        if total == 0:
            raise NoConsistentDeal
        unseen = self.unseen
        held: list[set[Card]] = [set(cards) for cards in unseen.fixed]
        for index in range(len(self.classes)):
            pick = rng.randrange(self._count(index, caps, points))
            for split in self._splits(index, caps):
                after = self._after(index, caps, points, split)
                if after is None:
                    continue
                weight = self._ways(split) * self._count(index + 1, *after)
                if pick < weight:
                    break
                pick -= weight
            else:  # pragma: no cover - the weights sum to the count
                raise AssertionError("no split drawn")
            cards = list(self.classes[index][1])
            rng.shuffle(cards)
            start = 0
            for h, take in enumerate(split):
                held[h].update(cards[start:start + take])
                start += take
            caps, points = after
        return tuple(frozenset(cards) for cards in held)


# --- what a seat could know, along a deal ---------------------------------------------------------------
class Watch:
    """What the table has seen of a deal, kept decision by decision: the cards each seat laid, and the cards a
    pass, a stop or the opening rules out of a seat's hand (they stay out: a hand only loses cards)."""

    def __init__(self, state: GameState) -> None:
        assert state.deal is not None
        self.n = state.n
        self.laid: list[set[Card]] = [set() for _ in range(state.n)]
        self.without: list[set[Card]] = [set() for _ in range(state.n)]

    def copy(self) -> Watch:
        other = Watch.__new__(Watch)
        other.n = self.n
        other.laid = [set(cards) for cards in self.laid]
        other.without = [set(cards) for cards in self.without]
        return other

    def _continuing(self, state: GameState, rank: int | None, suit: str | None) -> set[Card]:
        if rank is None:
            return set()
        return {c for c in DECK if c.rank == rank and (suit is None or c.suit == suit) and c != state.rules.wild}

    def record(self, state: GameState, decision: Mapping[str, Any], after: GameState) -> None:
        """Note ``decision`` (a pass, or a play up to a stop, the end of a run or going out), taken at
        ``state``, which led to ``after``."""
        deal = state.deal
        assert deal is not None
        rules = state.rules
        seat = decision["seat"]
        if decision["type"] == "pass":
            if not rules.may_stop:
                self.without[seat] |= self._continuing(state, deal.expected, deal.expected_suit)
            return
        cards = parse_cards(decision["cards"])
        if (not deal.opened and deal.expected is None and rules.opening == "lowest" and cards[0] != rules.wild):
            self.without[seat] |= {c for c in DECK if c.rank < cards[0].rank}
        self.laid[seat].update(cards)
        after_deal = after.deal
        goes_out = len(cards) == deal.hand_sizes[seat]
        if (not rules.may_stop and not goes_out and not rules.ends_run(cards[-1]) and after_deal is not None
                and after_deal.turn != seat):
            self.without[seat] |= self._continuing(state, after_deal.expected, after_deal.expected_suit)

    def unseen(self, state: GameState, seat: int, own: frozenset[Card]) -> Unseen:
        """What ``seat``, holding ``own``, could not see at ``state``."""
        deal = state.deal
        assert deal is not None
        n = self.n
        sizes = [0 if s == seat else deal.hand_sizes[s] for s in range(n)]
        pool = tuple(c for c in DECK if c not in deal.seen and c not in own)
        sizes.append(len(pool) - sum(sizes))  # the talon
        holders = [s for s in range(n + 1) if sizes[s] > 0]
        allowed = {c: frozenset(h for h in holders if h == n or c not in self.without[h]) for c in pool}
        fixed = tuple(own if s == seat else frozenset() for s in range(n + 1))
        return Unseen(seat, n, pool, tuple(sizes), allowed, fixed)


def with_hands(state: GameState, holders: Sequence[frozenset[Card]]) -> GameState:
    """``state`` with these hands (by seat, the talon last) in place of the ones it holds."""
    other = state.copy()
    deal = other.deal
    assert deal is not None
    deal.hands = tuple(holders[:state.n])
    deal.talon = holders[state.n]
    return other


def start_hands(watch: Watch, holders: Sequence[frozenset[Card]], n: int) -> list[list[str]]:
    """The hands each seat was dealt under a sample taken later: what it holds then and what it laid before."""
    return [sorted((str(c) for c in holders[s] | watch.laid[s]), key=lambda t: card_index(parse_cards([t])[0]))
            for s in range(n)]


# --- a deal settled by count -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Completed:
    """A deal recorded without hands, its hidden cards sampled: ``hands`` (one deal a sample, the cards each seat
    was dealt, by seat) drawn uniformly from the ``deals`` consistent with every card laid, the hands revealed
    and the hands told by count (how many cards, their points, the honours among them)."""

    samples: int
    seed: int
    deals: int | None
    hands: tuple[tuple[tuple[Card, ...], ...], ...]
    hidden: int  # the cards nobody saw in the hands (a counted hand's cards other than its honours)


def completions(state: GameState, actions: Sequence[Mapping[str, Any]], samples: int, seed: int,
                budget: Budget | None = None) -> Completed:
    """Sample the hands of a deal recorded without hands (``state``: its start, dealt; ``actions``: its plays,
    passes and reveals to its settlement), consistent with all the table saw: the cards each seat laid, every
    hand revealed, and every hand told by count (``reveal`` with ``count``, ``points``, ``honours``); the
    sampling's steps are ``budget``'s (:meth:`Unseen.drawn`)."""
    watch = Watch(state)
    n = state.n
    shown: list[frozenset[Card]] = [frozenset() for _ in range(n)]
    counted: dict[int, tuple[int, int, frozenset[Card]]] = {}
    talon: frozenset[Card] | None = None
    start = state.deal
    assert start is not None
    talon = start.talon
    for action in actions:
        if action.get("type") in ("play", "pass"):
            for decision in decisions_of(state, action):
                after, _ = execute(state, [decision], MAX_DOCUMENT_EVENTS)
                watch.record(state, decision, after)
                state = after
            continue
        deal = state.deal
        state, _ = execute(state, [action], MAX_DOCUMENT_EVENTS)
        if action.get("type") == "reveal" and deal is not None:
            after_deal = state.deal
            if after_deal is not None:
                for seat, cards in after_deal.revealed:
                    shown[seat] = cards
                for told in after_deal.counted:
                    counted[told.seat] = (told.left, told.points, told.honours)
            elif "cards" in action:
                shown[action["seat"]] = frozenset(parse_cards(action["cards"]))
            else:
                counted[action["seat"]] = (action["count"], action["points"],
                                           frozenset(parse_cards(action.get("honours", []))))
    seen: set[Card] = set().union(*watch.laid, *shown)
    for _, _, honours in counted.values():
        seen |= honours
    if talon is not None:
        seen |= talon
    pool = tuple(c for c in DECK if c not in seen)
    honour_cards = set(declarable(state))
    sizes = [0] * (n + 1)
    points: dict[int, int] = {}
    for seat, (left, total, honours) in counted.items():
        sizes[seat] = left - len(honours)
        points[seat] = total - sum(c.points for c in honours)
    sizes[n] = len(pool) - sum(sizes)
    allowed = {c: frozenset(h for h in range(n + 1) if sizes[h] > 0 and (
        h == n or (c not in honour_cards and c not in watch.without[h]))) for c in pool}
    fixed = (*(shown[s] | counted.get(s, (0, 0, frozenset()))[2] for s in range(n)), frozenset())
    unseen = Unseen(-1, n, pool, tuple(sizes), allowed, fixed, points)
    deals, drawn = unseen.drawn(samples, seed, budget)
    hands = [tuple(tuple(sorted(held[s] | watch.laid[s], key=card_index)) for s in range(n)) for held in drawn]
    return Completed(samples, seed, deals, tuple(hands), sum(sizes[:n]))


__all__ = ["COUNT_BUDGET", "REJECTION_BUDGET", "Completed", "NoConsistentDeal", "Unseen", "Watch", "completions",
           "start_hands", "with_hands"]
