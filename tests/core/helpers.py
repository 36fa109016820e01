"""Helpers for the core's tests: a scorer's table that checks the log after every batch."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from api.views import state_view
from nj_ledger import (
    DECK,
    Event,
    GameState,
    LedgerError,
    execute,
    fold,
    new_game,
    parse_cards,
    replay,
)
from nj_ledger.cards import Card
from nj_ledger.state import DealState
from support.sentences import said

NAMES = ("Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny", "Gaston", "Hugo")
# The four profiles of SPEC §3.1 that the mission's feature table names.
PROFILE_NAMES = ("classic", "cards", "skip", "hearts")


def snapshot(value: Any, depth: int = 0) -> Any:
    """Every field of a state (and of its deal, and of the states kept for undo), as plain values.

    Two states with equal snapshots are the same state, field by field. The chain of
    undo points is followed 40 deep from ``depth``: ``snapshot(state, depth=40)`` leaves
    it out (only whether there is one), which is much cheaper.
    """
    if isinstance(value, GameState):
        return ("game", tuple((name, snapshot(getattr(value, name), depth)) for name in GameState.__slots__))
    if isinstance(value, DealState):
        fields = []
        for name in DealState.__slots__:
            item = getattr(value, name)
            if name == "undo_to":
                item = snapshot(item, depth + 1) if item is not None and depth < 40 else item is None
            else:
                item = snapshot(item, depth)
            fields.append((name, item))
        return ("deal", tuple(fields))
    if isinstance(value, dict):
        return {key: snapshot(item, depth) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(snapshot(item, depth) for item in value)
    return value


def assert_plain_json(value: Any, where: str = "data") -> None:
    """``value`` is made of plain JSON values only: objects with text keys, lists, texts, whole numbers,
    booleans and nulls, each of exactly its type (no tuple, no text or number subclass). An event's data is
    kept as it is in the record the store hands back, which must be what a replay reads from the table."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            assert type(key) is str, f"{where}: key {key!r} is a {type(key).__name__}, not a text"
            assert_plain_json(item, f"{where}.{key}")
    elif kind is list:
        for index, item in enumerate(value):
            assert_plain_json(item, f"{where}[{index}]")
    else:
        assert kind in (str, int, bool, type(None)), f"{where}: {value!r} is a {kind.__name__}, not plain JSON"


def chips_total(state: GameState) -> int:
    return sum(state.balances) + sum(state.boxes)


def check_log(log: Sequence[Event], state: GameState) -> None:
    """The invariants every log keeps: chips conserved at each event, replay equals ``state``."""
    s: GameState | None = None
    for event in log:
        assert_plain_json(event.data, event.type)
        s = fold(s, event)
        assert chips_total(s) == s.total_chips, f"chips not conserved after {event}"
    assert s is not None
    assert snapshot(s) == snapshot(state)
    assert state_view(s) == state_view(state)


def transfers(events: Iterable[Event]) -> list[tuple[str, str, int, str]]:
    """The transfers among ``events`` as (from, to, amount, reason)."""
    return [
        (e.data["from"], e.data["to"], e.data["amount"], e.data["reason"])
        for e in events
        if e.type == "transfer"
    ]


def of_type(events: Iterable[Event], kind: str) -> list[Event]:
    return [e for e in events if e.type == kind]


def cards(text: str) -> list[str]:
    """``"AC 2D 10H"`` → ``["AC", "2D", "10H"]`` (canonical)."""
    return [str(c) for c in parse_cards(text)]


def fill_hands(n: int, size: int, given: Mapping[int, str], talon: str = "") -> list[list[str]]:
    """Hands of ``size`` cards: the cards ``given`` per seat, topped up from the rest of the deck.

    The top-up cards are taken in deck order after ``talon``'s cards are set aside,
    so a test names every card that matters and lets the rest fall where they may.
    """
    hands = {seat: cards(text) for seat, text in given.items()}
    used = {card for hand in hands.values() for card in hand} | set(cards(talon))
    rest = [str(c) for c in DECK if str(c) not in used]
    result = []
    for seat in range(n):
        hand = hands.get(seat, [])
        while len(hand) < size:
            hand.append(rest.pop(0))
        result.append(hand)
    return result


class Table:
    """A game being recorded: ``do`` executes a batch and checks the log; ``refuse`` expects a refusal."""

    def __init__(
        self,
        players: int | Sequence[str] = 3,
        rules: Any = "classic",
        chips: int = 100,
        dealer: int | None = None,
    ) -> None:
        names = list(NAMES[:players]) if isinstance(players, int) else list(players)
        self.log: list[Event] = [new_game(names, rules, chips, dealer)]
        self.state = replay(self.log)
        self.last: list[Event] = []

    def do(self, *actions: Mapping[str, Any]) -> list[Event]:
        before = snapshot(self.state)
        state, events = execute(self.state, list(actions))
        assert snapshot(self.state) == before, "execute changed the state it was given"
        self.log.extend(events)
        self.state = state
        self.last = events
        check_log(self.log, self.state)
        return events

    def refuse(self, *actions: Mapping[str, Any]) -> LedgerError:
        before = snapshot(self.state)
        view = state_view(self.state)
        with pytest.raises(LedgerError) as refusal:
            execute(self.state, list(actions))
        assert snapshot(self.state) == before
        assert state_view(self.state) == view
        assert isinstance(refusal.value.code, str) and refusal.value.code
        assert said(refusal.value)
        return refusal.value

    # --- shorthands for the table actions -----------------------------------------------------
    def deal(self, hands: Sequence[Sequence[str] | str] | None = None, **extra: Any) -> list[Event]:
        action: dict[str, Any] = {"type": "deal", **extra}
        if hands is not None:
            action["hands"] = [cards(h) if isinstance(h, str) else list(h) for h in hands]
        return self.do(action)

    def play(self, seat: int, text: str, announced: str = "") -> list[Event]:
        action: dict[str, Any] = {"type": "play", "seat": seat, "cards": cards(text)}
        if announced:
            action["announced"] = cards(announced)
        return self.do(action)

    def pass_(self, seat: int) -> list[Event]:
        return self.do({"type": "pass", "seat": seat})

    def reveal(self, seat: int, text: str) -> list[Event]:
        return self.do({"type": "reveal", "seat": seat, "cards": cards(text)})

    # --- reads ----------------------------------------------------------------------------------
    @property
    def balances(self) -> list[int]:
        return list(self.state.balances)

    @property
    def board(self) -> dict[str, int]:
        return self.state.board()

    @property
    def deal_state(self) -> DealState:
        assert self.state.deal is not None
        return self.state.deal

    @property
    def view(self) -> dict[str, Any]:
        return state_view(self.state)


def hand_of(state: GameState, seat: int) -> set[Card]:
    assert state.deal is not None and state.deal.hands is not None
    return set(state.deal.hands[seat])
