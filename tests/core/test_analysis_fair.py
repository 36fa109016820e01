"""Fair to what a player could know (nj_ledger.analysis.fair): the hands a seat could not see, sampled.

- Every sample is consistent: the deal's recorded actions replayed through ``decide.execute`` on the sampled
  hands are all accepted up to the decision (the passes and stops of ``may_stop: false``, the opening of
  ``opening: lowest`` included).
- The samples are reproducible from their seed, and uniform: on a small case each consistent deal is drawn
  as often as the others (a chi-square test over every deal, counted by enumeration).
- Where a seat could see everything (one consistent deal), its fair values are its exact ones.
- A deal settled by count: its hidden cards sampled consistent with the counts, points and honours told.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest

from nj_ledger import DECK, GameState, execute, new_game, replay
from nj_ledger.analysis import completions, fair, mark, review, searcher, solve
from nj_ledger.analysis.convert import position
from nj_ledger.analysis.fair import Unseen, Watch, start_hands
from nj_ledger.analysis.review import decisions_of, fair_value, moves_of
from nj_ledger.cards import Card, parse_cards
from support.scale import scaled, sized

PROFILES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("skip", {}),  # may_stop: false: passes and stops tell
    ("hearts", {}),
    ("classic", {"may_stop": False, "opening": "lowest"}),
    ("classic", {"sequence": "suit", "may_stop": False}),
    ("classic", {}),
    ("avantcoureur-1760", {}),
)


def fresh(profile: str, overrides: dict[str, Any], n: int, size: int) -> GameState:
    rules = {"profile": profile, **overrides, "players": [n], "deal_table": {str(n): [size, 52 - n * size]},
             "max_deals": None}
    return replay([new_game([f"P{i}" for i in range(n)], rules, 1000)])


def dealt(before: GameState, hands: list[list[str]], talon: list[str]) -> GameState:
    state, _ = execute(before, [{"type": "deal", "dealer": 0, "hands": hands, "talon": talon}])
    return state


def random_deal(seed: int, size: int = 3) -> tuple[GameState, GameState, list[dict[str, Any]]]:
    """A deal dealt with its hands and played to its end at random among the legal options (the state before
    the deal, the dealt state, and the decisions as table actions)."""
    rng = random.Random(seed)
    profile, overrides = PROFILES[seed % len(PROFILES)]
    n = rng.choice((2, 3))
    before = fresh(profile, overrides, n, size)
    deck = list(DECK)
    rng.shuffle(deck)
    # low ranks, so that runs meet and passes tell something
    deck.sort(key=lambda c: (c.rank > 6, rng.random()))
    hands = [[str(c) for c in deck[i * size:(i + 1) * size]] for i in range(n)]
    talon = [str(c) for c in deck[n * size:]]
    start = dealt(before, hands, talon)
    state = start
    actions: list[dict[str, Any]] = []
    while state.deal is not None and state.status == "playing" and state.deal.winner is None:
        option = rng.choice(solve(state).options)
        for decision in decisions_of(state, option.action):
            actions.append(decision)
        state, _ = execute(state, [option.action])
    return before, start, actions


def replays(before: GameState, hands: list[list[str]], talon: list[str], actions: list[dict[str, Any]]) -> None:
    state = dealt(before, hands, talon)
    for action in actions:
        state, _ = execute(state, [action])  # raises if the sampled hands contradict it


@scaled
def test_every_sample_is_consistent_with_what_the_seat_saw() -> None:
    told = 0
    for seed in range(sized(30, 300)):
        before, start, actions = random_deal(seed)
        watch = Watch(start)
        state = start
        for k, decision in enumerate(actions):
            deal = state.deal
            assert deal is not None and deal.hands is not None
            seat = decision["seat"]
            unseen = watch.unseen(state, seat, deal.hands[seat])
            told += sum(len(w) for w in watch.without)
            for holders in unseen.samples(4, seed * 100 + k):
                assert holders[seat] == deal.hands[seat]
                assert sum(len(h) for h in holders) + len(deal.seen) == 52
                hands = start_hands(watch, holders, state.n)
                talon = sorted(str(c) for c in holders[state.n])
                replays(before, hands, talon, actions[:k + 1])
            after, _ = execute(state, [decision])
            watch.record(state, decision, after)
            state = after
    assert told > 0  # passes and stops did rule cards out


def test_the_samples_are_reproducible_from_their_seed() -> None:
    _, start, actions = random_deal(0)
    watch = Watch(start)
    deal = start.deal
    assert deal is not None and deal.hands is not None
    unseen = watch.unseen(start, 0, deal.hands[0])
    assert unseen.samples(20, 7) == unseen.samples(20, 7)
    assert unseen.samples(20, 7) != unseen.samples(20, 8)
    first = review(start, actions, samples=3, seed=5)
    again = review(start, actions, samples=3, seed=5)
    assert [d.fair for d in first] == [d.fair for d in again]
    assert all(d.fair is not None and d.fair.samples == 3 and d.fair.seed == 5 for d in first)


def brute(unseen: Unseen) -> list[tuple[frozenset[Card], ...]]:
    """Every consistent deal, by enumerating every way to give the pool to the holders."""
    out = []
    holders = len(unseen.sizes)
    for owners in itertools.product(range(holders), repeat=len(unseen.pool)):
        if any(owners.count(h) != unseen.sizes[h] for h in range(holders)):
            continue
        if any(h not in unseen.allowed[c] for c, h in zip(unseen.pool, owners, strict=True)):
            continue
        held = [set(unseen.fixed[h]) for h in range(holders)]
        for c, h in zip(unseen.pool, owners, strict=True):
            held[h].add(c)
        if any(sum(c.points for c in held[h] - unseen.fixed[h]) != p for h, p in unseen.points.items()):
            continue
        out.append(tuple(frozenset(h) for h in held))
    return out


@pytest.mark.parametrize(("points", "rejection"), [(False, False), (True, False), (False, True), (True, True)])
def test_the_samples_are_uniform_over_the_consistent_deals(points: bool, rejection: bool,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pool = tuple(parse_cards(["AC", "2C", "3C", "4C", "5D", "6D", "7D", "2H"]))
    allowed = {c: frozenset({0, 1, 2}) for c in pool}
    allowed[pool[0]] = frozenset({1, 2})  # a pass ruled AC out of seat 0
    allowed[pool[1]] = frozenset({2})
    allowed[pool[4]] = frozenset({0, 2})
    told = {1: 8} if points else {}
    unseen = Unseen(3, 3, pool, (3, 2, 3), allowed, (frozenset(),) * 3, told)
    every = brute(unseen)
    assert unseen.deals == len(every) > 5
    if rejection:  # past the counting budget the deals are drawn by rejection: uniform as well
        monkeypatch.setattr(fair, "COUNT_BUDGET", 0)
        assert unseen.deals is None
    draws = 400 * len(every)
    seen = Counter(unseen.samples(draws, 1))
    assert set(seen) <= set(every)
    chi2 = sum((seen[d] - 400) ** 2 / 400 for d in every)
    # chi-square, len(every) - 1 degrees of freedom: far under the 0.1 % critical value
    dof = len(every) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)


class Sighted(Watch):
    """A seat that saw every hand: each card not seen by the table may go only to the holder that has it."""

    def unseen(self, state: GameState, seat: int, own: frozenset[Card]) -> Unseen:
        told = super().unseen(state, seat, own)
        deal = state.deal
        assert deal is not None and deal.hands is not None and deal.talon is not None
        holders = (*deal.hands, deal.talon)
        allowed = {c: frozenset(h for h in range(len(holders)) if c in holders[h]) for c in told.pool}
        return Unseen(seat, told.n, told.pool, told.sizes, allowed, told.fixed)


def test_a_seat_that_could_see_everything_is_valued_as_under_full_knowledge() -> None:
    met = 0
    for seed in range(sized(12, 60)):
        _, start, actions = random_deal(seed)
        stake = start.rules.ante_total
        watch = Sighted(start)
        state = start
        search = searcher(start)
        for d in review(start, actions):
            deal = state.deal
            assert deal is not None and deal.hands is not None
            table, p, _ = position(state)
            moves = tuple(moves_of(table, p, d.action))
            fair = fair_value(state, d.seat, deal.hands[d.seat], watch, moves, 3, "s", 0, search, d.mark)
            assert fair.deals == 1
            assert fair.values == tuple(float(v) for v in d.values)
            assert fair.best_values == tuple(float(v) for v in d.best_values)
            assert fair.lost == d.lost and fair.mark == mark(d.lost, stake) and not fair.disagrees
            after, _ = execute(state, [d.action])
            watch.record(state, d.action, after)
            state = after
            met += 1
    assert met > 0


def test_a_fair_review_tells_apart_what_only_full_knowledge_reveals() -> None:
    flagged = 0
    for seed in range(12):
        _, start, actions = random_deal(seed)
        for d in review(start, actions, samples=6, seed=1):
            fair = d.fair
            assert fair is not None
            assert fair.deals >= 1 and fair.lost >= 0
            assert any(o.moves == b.moves for o in fair.options for b in fair.best)
            assert fair.disagrees == (fair.mark != d.mark)
            flagged += fair.disagrees
    assert flagged > 0


def test_a_deal_settled_by_count_has_its_hidden_cards_sampled_consistent_with_the_count() -> None:
    # tests/core/test_settle_by_count.py's deal: hands not given; seat 1 keeps 9H QS 8S (27, QS), seat 2 keeps
    # KH 7D 2S (19, KH and 7D)
    state = replay([new_game(["A", "B", "C"], {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}},
                             100)])
    start, _ = execute(state, [{"type": "deal"}])
    actions: list[dict[str, Any]] = [
        {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
        {"type": "play", "seat": 1, "cards": ["3D"]},
        {"type": "play", "seat": 2, "cards": ["4D"]},
        {"type": "play", "seat": 0, "cards": ["5C", "6C"]},
        {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]},
        {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]},
    ]
    done = completions(start, actions, 30, 3)
    assert done.samples == 30 and done.seed == 3 and done.hidden == 3 and done.deals > 30
    assert done == completions(start, actions, 30, 3)
    honours = {"10D", "JC", "QS", "KH", "7D"}
    for hands in done.hands:
        text = [[str(c) for c in hand] for hand in hands]
        assert sorted(text[0]) == sorted(["AC", "2C", "5C", "6C"])
        kept1 = [c for c in hands[1] if str(c) != "3D"]
        kept2 = [c for c in hands[2] if str(c) != "4D"]
        assert "QS" in text[1] and sum(c.points for c in kept1) == 27
        assert {"KH", "7D"} <= set(text[2]) and sum(c.points for c in kept2) == 19
        assert not (set(text[1]) - {"QS"}) & honours and not (set(text[2]) - {"KH", "7D"}) & honours
        # the deal recorded without hands is reviewed on each sample: its plays are accepted, and the last
        # decision ends the deal with the chips the sampled hands pay
        decisions = review(start, actions[:4], hands=text)
        assert len(decisions) == 4
        replayed, _ = execute(state, [{"type": "deal", "hands": text}, *actions[:4]])
        assert decisions[-1].values == tuple(replayed.balances)
