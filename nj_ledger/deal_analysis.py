"""The analysis of a settled deal, as the API and the command line show it (docs/ANALYSIS.md).

Pure, like the rest of the core: the state at the deal's start and the deal's events in, a plain mapping
out. Each table action the deal kept (a play or a pass: what an undo withdrew is left out) is reviewed with
:func:`nj_ledger.analysis.review`, from the deal's end backwards so that one search's tables serve every
decision where they can (a position they cannot serve gets a search of its own); each table action's review
searches at most what is left of ``limit`` positions. Past it, the decisions already reviewed
(the deal's end) are kept and the earlier ones are not: ``status`` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .analysis import TooLarge, review, searcher
from .events import Event
from .reducer import fold
from .state import PLAYING, GameState

DONE, PARTIAL, TOO_LARGE, HANDS_UNKNOWN = "done", "partial", "too-large", "hands-unknown"
# Positions a decision point's search may take (about 5-15 s of the pure-Python solver); reviewed from the end
# backwards, the analysis stops at the first point past it.
DEFAULT_LIMIT = 300_000


def thresholds(stake: int) -> dict[str, int]:
    """The fewest chips lost that earn each mark (docs/ANALYSIS.md, "Marks")."""
    return {"inaccuracy": 1, "mistake": -(-stake // 3), "blunder": stake}


Kept = tuple[int, GameState, dict[str, Any]]  # (seq, the state before, the table action)


def kept_actions(start: GameState, events: Iterable[tuple[int, Event]]) -> tuple[GameState | None, list[Kept]]:
    """The state once the deal is dealt, and each play or pass the deal kept: ``(seq, state before, action)``."""
    state = start.copy()
    dealt: GameState | None = None
    kept: list[tuple[int, GameState, dict[str, Any], bool]] = []
    for seq, event in events:
        before = state.copy() if event.type in ("play", "pass") else None
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
            else:
                action = {"type": "pass", "seat": data["seat"]}
            kept.append((seq, before, action, bool(data.get("inferred"))))
        elif event.type == "reveal":
            kept.append((seq, state.copy(), {"type": "reveal"}, False))
    return dealt, [(seq, before, action) for seq, before, action, _ in kept if action["type"] != "reveal"]


def analyse_deal(start: GameState, events: Iterable[tuple[int, Event]], limit: int = DEFAULT_LIMIT,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The analysis of a deal: ``start`` the state before its first event, ``events`` the deal's events in
    order, each with its seq. ``progress(done, total)`` is called after each table action reviewed."""
    events = list(events)
    dealt, kept = kept_actions(start, events)
    stake = start.rules.ante_total
    out: dict[str, Any] = {"status": DONE, "stake": stake, "thresholds": thresholds(stake), "players": list(
        start.players), "decision_points": len(kept), "from_seq": None, "nodes": 0, "decisions": [],
        "expected": []}
    if dealt is None or dealt.deal is None or dealt.deal.hands is None or dealt.status != PLAYING:
        out["status"] = HANDS_UNKNOWN
        return out
    search = searcher(dealt, limit=limit)
    reviewed: list[tuple[int, list[Any]]] = []
    for done, (seq, before, action) in enumerate(reversed(kept), start=1):
        try:
            # A position the shared tables cannot serve gets a search of its own, within what is left.
            reviewed.append((seq, review(before, [action], search=search, limit=max(1, limit - search.nodes))))
        except TooLarge:
            break
        finally:
            if progress is not None:
                progress(done, len(kept))
    reviewed.reverse()
    out["nodes"] = search.nodes  # the shared search's positions only
    if len(reviewed) < len(kept):
        out["status"] = PARTIAL if reviewed else TOO_LARGE
    if not reviewed:
        return out
    out["from_seq"] = reviewed[0][0]
    first = next((decisions[0] for _, decisions in reviewed if decisions), None)
    if first is not None:
        out["expected"].append({"seq": reviewed[0][0] - 1, "values": list(first.best_values)})
    for seq, decisions in reviewed:
        for d in decisions:
            out["decisions"].append({
                "seq": seq, "seat": d.seat, "action": d.action, "best": [o.action for o in d.best],
                "values": list(d.values), "best_values": list(d.best_values), "lost": d.lost, "mark": d.mark,
                "forced": d.forced, "line": list(d.line)})
        if decisions:
            out["expected"].append({"seq": seq, "values": list(decisions[-1].values)})
    return out


def settled(state: GameState) -> bool:
    """Whether the deal folded into ``state`` (a state after the deal's events) was settled."""
    return state.deal is not None and state.deal.ended


__all__ = ["DEFAULT_LIMIT", "DONE", "HANDS_UNKNOWN", "PARTIAL", "TOO_LARGE", "analyse_deal", "kept_actions",
           "settled", "thresholds"]
