"""The decisions one table action of a deal records, as the solver and the fair view see them: a play that
goes on after a card ending a run (a King, a hoc) is a new decision, and the passes the action infers are
decisions of their own seats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..bounds import MAX_DOCUMENT_EVENTS
from ..cards import parse_cards
from ..decide import execute
from ..state import GameState


def decisions_of(state: GameState, action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decisions one table action records: the passes it infers, then its cards, a decision a run."""
    _, events = execute(state, [action], MAX_DOCUMENT_EVENTS)
    out: list[dict[str, Any]] = []
    for event in events:
        if event.type == "pass":
            out.append({"type": "pass", "seat": event.data["seat"]})
        elif event.type == "play":
            called = set(event.data.get("announced", []))
            current: list[str] = []
            for text in event.data["cards"]:
                current.append(text)
                if state.rules.ends_run(parse_cards([text])[0]) or text == event.data["cards"][-1]:
                    out.append({"type": "play", "seat": event.data["seat"], "cards": current,
                                "announced": [c for c in current if c in called]})
                    current = []
    return out


__all__ = ["decisions_of"]
