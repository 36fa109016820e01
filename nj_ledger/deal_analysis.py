"""The analysis of a settled deal, as the API and the command line show it (docs/ANALYSIS.md).

Pure, like the rest of the core: the state at the deal's start and the deal's events in, a plain mapping
out. Each table action the deal kept (a play or a pass: what an undo withdrew is left out) is reviewed with
:func:`nj_ledger.analysis.review`, from the deal's end backwards so that one search's tables serve every
decision where they can (a position they cannot serve gets a search of its own); each table action's review
searches at most what is left of ``limit`` positions. Past it, the decisions already reviewed
(the deal's end) are kept and the earlier ones are not: ``status`` says so.

A deal recorded without hands is analysed on the hands the table saw: the cards each seat laid and the hands
revealed at its end. Where a hand was told by count, the cards nobody saw are drawn (``completions``: uniformly
among the deals consistent with the record, from a fixed seed) and the deal is analysed on each of
``samples`` such deals, the budget shared between them; the figures are then the means over the samples
(``sampled`` says how many, out of how many consistent deals).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .analysis import NoConsistentDeal, TooLarge, completions, mark, review, searcher
from .analysis.budget import Budget
from .analysis.convert import position
from .analysis.fair import Watch, with_hands
from .analysis.review import Decision, decisions_of, fair_value, moves_of
from .bounds import MAX_DOCUMENT_EVENTS
from .cards import DECK, Card
from .decide import execute
from .events import Event
from .reducer import fold
from .state import PLAYING, GameState

DONE, PARTIAL, TOO_LARGE, HANDS_UNKNOWN = "done", "partial", "too-large", "hands-unknown"
# Positions a deal's search may take (a few seconds of the compiled search, as long again for the fair values;
# about a minute in Python); reviewed from the end backwards, the analysis stops at the first point past it.
DEFAULT_LIMIT = 2_000_000
# A deal settled by count: how many completions of its unseen cards are analysed, drawn from which seed.
SAMPLES, SEED = 8, 0
# Each decision valued on what its seat could see: how many deals are sampled (from SEED) and solved.
FAIR_SAMPLES = 8


def thresholds(stake: int) -> dict[str, int]:
    """The fewest chips lost that earn each mark (docs/ANALYSIS.md, "Marks")."""
    return {"inaccuracy": 1, "mistake": -(-stake // 3), "blunder": stake}


Kept = tuple[int, GameState, dict[str, Any]]  # (seq, the state before, the table action)


def _fold_deal(start: GameState, events: Iterable[tuple[int, Event]]) -> tuple[GameState | None, list[Kept]]:
    """The state once the deal is dealt, and each play, pass and reveal the deal kept."""
    state = start.copy()
    dealt: GameState | None = None
    kept: list[tuple[int, GameState, dict[str, Any], bool]] = []
    for seq, event in events:
        before = state.copy() if event.type in ("play", "pass", "reveal") else None
        if event.type == "undo":
            while kept and kept[-1][3]:  # passes the withdrawn action inferred before its own event
                kept.pop()
            if kept:
                kept.pop()
            while kept and kept[-1][3]:
                kept.pop()
        fold(state, event)
        if event.type == "deal":
            dealt = state.copy()
        elif before is not None:
            data = event.data
            if event.type == "play":
                action = {"type": "play", "seat": data["seat"], "cards": list(data["cards"]),
                          "announced": list(data.get("announced", []))}
            elif event.type == "pass":
                action = {"type": "pass", "seat": data["seat"]}
            else:
                action = {"type": "reveal", **data}
            kept.append((seq, before, action, bool(data.get("inferred"))))
    return dealt, [(seq, before, action) for seq, before, action, _ in kept]


def kept_actions(start: GameState, events: Iterable[tuple[int, Event]]) -> tuple[GameState | None, list[Kept]]:
    """The state once the deal is dealt, and each play or pass the deal kept: ``(seq, state before, action)``."""
    dealt, kept = _fold_deal(start, events)
    return dealt, [item for item in kept if item[2]["type"] != "reveal"]


Reviewed = list[tuple[int, list[Decision]]]


def _review(kept: Sequence[Kept], limit: int, step: Callable[[], None]) -> tuple[Reviewed, int]:
    """Each kept action reviewed from the deal's end backwards within ``limit`` positions, and the positions
    the shared search took (its root: the first action's position, the stakes on the board)."""
    search = searcher(kept[0][1], limit=limit)
    reviewed: Reviewed = []
    for seq, before, action in reversed(kept):
        try:
            # A position the shared tables cannot serve gets a search of its own, within what is left.
            reviewed.append((seq, review(before, [action], search=search, limit=max(1, limit - search.nodes))))
        except TooLarge:
            break
        finally:
            step()
    reviewed.reverse()
    return reviewed, search.nodes


def _dealt_with(hands: Sequence[Sequence[Card]], kept: Sequence[Kept]) -> list[Kept]:
    """The deal's kept actions replayed as if it had been dealt with ``hands`` (by seat, what each was dealt),
    each with the state before it."""
    held = [frozenset(hand) for hand in hands]
    state = with_hands(kept[0][1], (*held, frozenset(DECK).difference(*held)))
    replayed: list[Kept] = []
    for seq, _, action in kept:
        replayed.append((seq, state, action))
        # a deal of an imported game may lie past the events a table game holds (nj_ledger.bounds)
        state, _ = execute(state, [action], MAX_DOCUMENT_EVENTS)
    return replayed


Moment = tuple[GameState, dict[str, Any], Watch]  # a decision: the state before it, itself, what had been seen


def _moments(kept: Sequence[Kept]) -> list[list[Moment]]:
    """Each kept action's decisions, each with the state before it and what the table had seen then."""
    watch = Watch(kept[0][1])
    out: list[list[Moment]] = []
    for _, before, action in kept:
        state, moments = before, []
        for decision in decisions_of(before, action):
            moments.append((state, decision, watch.copy()))
            after, _ = execute(state, [decision], MAX_DOCUMENT_EVENTS)
            watch.record(state, decision, after)
            state = after
        out.append(moments)
    return out


def _fair(kept: Sequence[Kept], reviewed: Reviewed, limit: int, samples: int, seed: int
          ) -> list[list[dict[str, Any] | None]]:
    """Each reviewed decision valued on what its seat could see (docs/ANALYSIS.md, "Fair to what a player could
    know"), from the deal's end backwards within ``limit`` positions of work (the sampling's steps counted in
    them: :mod:`nj_ledger.analysis.budget`): ``None`` for the decisions past it."""
    moments = _moments(kept)
    number = sum(len(m) for m in moments[:len(kept) - len(reviewed)])  # the decisions before the first reviewed
    flat = [(i, j, moment) for i, action in enumerate(moments[len(kept) - len(reviewed):])
            for j, moment in enumerate(action)]
    fairs: list[list[dict[str, Any] | None]] = [[None] * len(decisions) for _, decisions in reviewed]
    budget = Budget(limit)
    search = searcher(kept[0][1])  # rooted at the deal's start: most later positions fit it
    for k in reversed(range(len(flat))):
        i, j, (state, decision, watch) = flat[k]
        exact = reviewed[i][1][j]
        deal = state.deal
        assert deal is not None and deal.hands is not None
        table, p, _ = position(state, None, search.table)
        try:
            f = fair_value(state, exact.seat, deal.hands[exact.seat], watch, tuple(moves_of(table, p, decision)),
                           samples, f"{seed}/{number + k}", seed, search, exact.mark, budget)
        except (TooLarge, NoConsistentDeal):  # past the budget (a rejection that met no deal within its own)
            break
        fairs[i][j] = {"samples": f.samples, "seed": f.seed, "deals": f.deals, "best": [o.action for o in f.best],
                       "values": [_number(v) for v in f.values], "best_values": [_number(v) for v in f.best_values],
                       "lost": _number(f.lost), "mark": f.mark, "disagrees": f.disagrees}
    return fairs


def _number(value: float) -> int | float:
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


def _mean(rows: Sequence[Sequence[int]]) -> list[int | float]:
    return [_number(sum(column) / len(rows)) for column in zip(*rows, strict=True)]


def _combined(decisions: Sequence[Decision], stake: int) -> dict[str, Any]:
    """One decision as the answer gives it: itself, or its means over the samples it was reviewed on."""
    first = decisions[0]
    if len(decisions) == 1:
        return {"seat": first.seat, "action": first.action, "best": [o.action for o in first.best],
                "values": list(first.values), "best_values": list(first.best_values), "lost": first.lost,
                "mark": first.mark, "forced": first.forced, "line": list(first.line)}
    votes: dict[str, tuple[int, dict[str, Any]]] = {}
    for d in decisions:
        for option in d.best:
            key = repr(sorted(option.action.items()))
            count, action = votes.get(key, (0, option.action))
            votes[key] = (count + 1, action)
    most = max(count for count, _ in votes.values())
    lost = _number(sum(d.lost for d in decisions) / len(decisions))
    return {"seat": first.seat, "action": first.action, "best": [a for count, a in votes.values() if count == most],
            "values": _mean([d.values for d in decisions]), "best_values": _mean([d.best_values for d in decisions]),
            "lost": lost, "mark": mark(lost, stake), "forced": all(d.forced for d in decisions),
            "line": list(first.line)}


def analyse_deal(start: GameState, events: Iterable[tuple[int, Event]], limit: int = DEFAULT_LIMIT,
                 progress: Callable[[int, int], None] | None = None, samples: int = SAMPLES, seed: int = SEED,
                 fair_samples: int = FAIR_SAMPLES) -> dict[str, Any]:
    """The analysis of a deal: ``start`` the state before its first event, ``events`` the deal's events in
    order, each with its seq. ``progress(done, total)`` is called after each table action reviewed. A deal
    settled by count is analysed on ``samples`` completions of its unseen cards drawn from ``seed``; a deal whose
    hands are known has each decision reviewed also valued on ``fair_samples`` deals its seat could not tell
    from the real one (``fair``; None past ``limit`` positions, or for a deal settled by count)."""
    dealt, every = _fold_deal(start, list(events))
    kept = [item for item in every if item[2]["type"] != "reveal"]
    stake = start.rules.ante_total
    out: dict[str, Any] = {"status": DONE, "stake": stake, "thresholds": thresholds(stake), "players": list(
        start.players), "decision_points": len(kept), "from_seq": None, "nodes": 0, "decisions": [],
        "expected": [], "sampled": None}
    if dealt is None or dealt.deal is None or dealt.status != PLAYING or not kept:
        out["status"] = HANDS_UNKNOWN
        return out
    runs = [kept]
    if dealt.deal.hands is None:
        try:
            done = completions(dealt, [action for _, _, action in every], samples, seed, Budget(limit))
        except NoConsistentDeal:
            out["status"] = HANDS_UNKNOWN
            return out
        except TooLarge:
            out["status"] = TOO_LARGE
            return out
        drawn = done.hands[:1] if done.hidden == 0 else done.hands  # every hand seen: one deal, exactly
        runs = [_dealt_with(hands, kept) for hands in drawn]
        if done.hidden:
            out["sampled"] = {"samples": done.samples, "seed": done.seed, "deals": done.deals, "hidden": done.hidden}
    total, steps = len(kept) * len(runs), iter(range(1, len(kept) * len(runs) + 1))

    def step() -> None:
        if progress is not None:
            progress(next(steps), total)

    reviews: list[Reviewed] = []
    for replayed in runs:
        reviewed, nodes = _review(replayed, max(1, limit // len(runs)), step)
        reviews.append(reviewed)
        out["nodes"] += nodes  # the shared searches' positions only
    reach = min(len(reviewed) for reviewed in reviews)  # the decisions reviewed on every sample
    if reach < len(kept):
        out["status"] = PARTIAL if reach else TOO_LARGE
    if not reach:
        return out
    tails = [reviewed[len(reviewed) - reach:] for reviewed in reviews]
    fairs = _fair(runs[0], tails[0], limit, fair_samples, seed) if len(runs) == 1 and fair_samples > 0 else None
    out["from_seq"] = tails[0][0][0]
    firsts = [next((decisions[0] for _, decisions in tail if decisions), None) for tail in tails]
    if firsts[0] is not None:
        out["expected"].append({"seq": out["from_seq"] - 1, "values": _mean([d.best_values for d in firsts if d])})
    for index, (seq, decisions) in enumerate(tails[0]):
        for j in range(len(decisions)):
            out["decisions"].append({"seq": seq, **_combined([tail[index][1][j] for tail in tails], stake),
                                     "fair": None if fairs is None else fairs[index][j]})
        if decisions:
            out["expected"].append({"seq": seq, "values": _mean([tail[index][1][-1].values for tail in tails])})
    return out


def settled(state: GameState) -> bool:
    """Whether the deal folded into ``state`` (a state after the deal's events) was settled."""
    return state.deal is not None and state.deal.ended


__all__ = ["DEFAULT_LIMIT", "DONE", "FAIR_SAMPLES", "HANDS_UNKNOWN", "PARTIAL", "SAMPLES", "SEED", "TOO_LARGE",
           "analyse_deal", "kept_actions", "settled", "thresholds"]
