"""What the property suites check on a simulated game, and the illegal moves they try."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from api.views import state_view
from nj_ledger import DECK, GameState, LedgerError, execute, fold, replay
from nj_ledger.events import TABLE_ACTIONS
from nj_ledger.simulator import SimulatedGame

from .helpers import assert_plain_json, snapshot


def states_before_batches(game: SimulatedGame) -> Iterator[tuple[GameState, list[dict[str, Any]] | None]]:
    """Re-execute the game batch by batch: each state with the batch that follows it (None at the end).

    Checks on the way that the engine is deterministic (the same events again), that
    chips add up after every event, and that folding the log (a replay) gives, at
    every batch boundary, the state ``execute`` built.
    """
    state = replay(game.events[:1])
    folded = replay(game.events[:1])
    position = 1
    for batch in game.batches:
        yield state, batch
        state, events = execute(state, batch)
        assert events == game.events[position : position + len(events)]
        for event in events:
            assert_plain_json(event.data, event.type)
            folded = fold(folded, event)
            assert sum(folded.balances) + sum(folded.boxes) == folded.total_chips, event
        position += len(events)
        assert state_view(folded) == state_view(state)
        assert folded.balances == state.balances and folded.boxes == state.boxes
    assert position == len(game.events)
    assert snapshot(state) == snapshot(replay(game.events))
    yield state, None


def _light(state: GameState) -> tuple[Any, ...]:
    """The fields that change during play, cheap to compare (immutable values)."""
    deal = state.deal
    fields: tuple[Any, ...] = (
        state.version,
        state.status,
        state.balances,
        state.boxes,
        state.deals_played,
        state.deal_number,
        state.last_dealer,
        state.result,
    )
    if deal is None:
        return fields
    return fields + (
        deal.turn,
        deal.expected,
        deal.expected_suit,
        deal.run,
        deal.hand_sizes,
        deal.hands,
        deal.seen,
        deal.passers,
        deal.passes_needed,
        deal.continuing,
        deal.laying_turns,
        deal.cards_laid,
        deal.winner,
        deal.grand_opera,
        deal.revealed,
        deal.counted,
        deal.awaiting,
        deal.ended,
        deal.undo_to is None,
        deal.undo_action,
        deal.group_transfers,
        state.redo,
    )


def check_simulated(game: SimulatedGame) -> int:
    """The checks of :func:`states_before_batches`, lighter, for thousands of games; returns the events."""
    state = replay(game.events[:1])
    folded = replay(game.events[:1])
    total = state.total_chips
    position = 1
    for batch in game.batches:
        state, events = execute(state, batch)
        assert events == game.events[position : position + len(events)]
        for event in events:
            assert_plain_json(event.data, event.type)
            folded = fold(folded, event)
            assert sum(folded.balances) + sum(folded.boxes) == total, (position, event)
        position += len(events)
        assert _light(folded) == _light(state), position
    assert position == len(game.events)
    assert game.state is not None and game.state.status == "ended"
    assert snapshot(folded, depth=40) == snapshot(game.state, depth=40) == snapshot(state, depth=40)
    assert state_view(replay(game.events)) == state_view(game.state)
    return position


def check_game(game: SimulatedGame) -> None:
    """Conservation at every event, replay equals the incremental state, the game ended."""
    for _ in states_before_batches(game):
        pass
    assert game.state is not None and game.state.status == "ended"
    assert state_view(replay(game.events)) == state_view(game.state)


def refused(state: GameState, actions: list[Any]) -> LedgerError:
    """Execute ``actions`` expecting a refusal; the state must not move."""
    before, view = snapshot(state), state_view(state)
    with pytest.raises(LedgerError) as refusal:
        execute(state, actions)
    assert snapshot(state) == before and state_view(state) == view
    assert isinstance(refusal.value.code, str) and refusal.value.code
    return refusal.value


ANY = None  # any code will do: the move is illegal for more than one reason


def illegal_moves(
    state: GameState, legal: Mapping[str, Any] | None
) -> list[tuple[str, Any, set[str] | None]]:
    """Moves that must be refused in ``state``, each with the codes it may be refused with.

    ``legal`` is the table action that was really recorded next (None when the game is over);
    most moves are small mutations of it.
    """
    n = state.n
    moves: list[tuple[str, Any, set[str] | None]] = [
        ("unknown type", {"type": "shuffle"}, {"invalid-action"}),
        ("no type", {"seat": 0}, {"invalid-action"}),
        ("not an object", ["play", 0], {"invalid-action"}),
        ("a text", "pass", {"invalid-action"}),
        ("nothing", None, {"invalid-action"}),
        ("seat too high", {"type": "pass", "seat": n}, {"unknown-seat"}),
        ("seat below zero", {"type": "play", "seat": -1, "cards": ["AS"]}, {"unknown-seat"}),
        ("seat as text", {"type": "play", "seat": "0", "cards": ["AS"]}, {"invalid-action"}),
        ("seat as bool", {"type": "pass", "seat": True}, {"invalid-action"}),
        ("seat as float", {"type": "reveal", "seat": 1.0, "cards": []}, {"invalid-action"}),
        ("bad card", {"type": "play", "seat": 0, "cards": ["11H"]}, {"invalid-card"}),
        ("cards not a list", {"type": "play", "seat": 0, "cards": "AS"}, {"invalid-action"}),
        ("no cards", {"type": "play", "seat": 0, "cards": []}, {"invalid-action"}),
        ("reason not text", {"type": "undo", "reason": 7}, {"invalid-action"}),
        ("deal field", {"type": "deal", "cards": []}, {"invalid-action"}),
    ]
    if state.status == "ended":
        moves += [
            (f"{kind} after the end", action, {"game-ended"})
            for kind, action in (
                ("deal", {"type": "deal"}),
                ("end", {"type": "end"}),
                *((("undo", {"type": "undo"}),) if state.undoable() is None else ()),  # past the settlement
                ("play", {"type": "play", "seat": 0, "cards": ["AS"]}),
                ("pass", {"type": "pass", "seat": 0}),
                ("adjust", {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1}),
            )
        ]
        return moves
    if legal is not None:
        required = {
            "play": ("seat", "cards"),
            "pass": ("seat",),
            "reveal": ("seat", "count", "points") if "count" in legal else ("seat", "cards"),
            "adjust": ("from", "to", "amount"),
        }.get(legal["type"], ())
        moves.append(("extra field", {**legal, "colour": "red"}, {"invalid-action"}))
        for name in required:
            moves.append((f"no {name}", {k: v for k, v in legal.items() if k != name}, {"invalid-action"}))
    if state.status == "ready":
        moves += _between_deals(state)
    else:
        moves += [
            ("deal during a deal", {"type": "deal"}, {"deal-in-progress"}),
            ("end during a deal", {"type": "end"}, {"deal-in-progress"}),
            (
                "adjust during a deal",
                {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1},
                {"deal-in-progress"},
            ),
        ]
        deal = state.deal
        assert deal is not None
        if deal.undo_to is None:
            moves.append(("nothing to undo", {"type": "undo"}, {"nothing-to-undo"}))
        if state.status == "playing":
            moves += _while_playing(state, legal)
        else:
            moves += _while_revealing(state, legal)
    return moves


def _between_deals(state: GameState) -> list[tuple[str, Any, set[str] | None]]:
    moves: list[tuple[str, Any, set[str] | None]] = [
        ("play between deals", {"type": "play", "seat": 0, "cards": ["AS"]}, {"no-deal-in-progress"}),
        ("pass between deals", {"type": "pass", "seat": 0}, {"no-deal-in-progress"}),
        ("reveal between deals", {"type": "reveal", "seat": 0, "cards": ["AS"]}, {"no-deal-in-progress"}),
        *((("undo between deals", {"type": "undo"}, {"no-deal-in-progress"}),)
          if state.undoable() is None else ()),  # an undo reaches past the settlement until the next deal
        (
            "adjust nothing",
            {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 0},
            {"invalid-amount"},
        ),
        (
            "adjust to itself",
            {"type": "adjust", "from": "seat:1", "to": "seat:1", "amount": 1},
            {"invalid-account"},
        ),
        (
            "adjust from nowhere",
            {"type": "adjust", "from": "bank", "to": "seat:1", "amount": 1},
            {"invalid-account"},
        ),
        ("hands of the wrong size", {"type": "deal", "hands": [["AS"]] * state.n}, {"invalid-hands"}),
    ]
    if state.rules.shortfall == "end":
        richest = max(state.balances)
        moves.append(
            (
                "adjust too much",
                {
                    "type": "adjust",
                    "from": f"seat:{state.balances.index(richest)}",
                    "to": "box:7D" if "7D" in state.rules.board else "seat:0",
                    "amount": richest + 1,
                },
                {"insufficient-chips", "invalid-account"},
            )
        )
    if state.deal_number > 0:
        wrong = (state.next_dealer() + 1) % state.n
        moves.append(("wrong dealer", {"type": "deal", "dealer": wrong}, {"wrong-dealer"}))
    return moves


def _unseen(state: GameState) -> list[str]:
    deal = state.deal
    assert deal is not None
    talon = deal.talon or frozenset()
    return [str(c) for c in DECK if c not in deal.seen and c not in talon]


def _while_playing(
    state: GameState, legal: Mapping[str, Any] | None
) -> list[tuple[str, Any, set[str] | None]]:
    deal = state.deal
    assert deal is not None and deal.turn is not None
    turn, n = deal.turn, state.n
    other = (turn + 1) % n
    moves: list[tuple[str, Any, set[str] | None]] = [
        ("reveal while playing", {"type": "reveal", "seat": turn, "cards": []}, {"no-reveal-needed"}),
        ("pass out of turn", {"type": "pass", "seat": other}, {"not-your-turn"}),
    ]
    unseen = _unseen(state)
    if deal.expected is None:
        moves.append(("pass with nothing wanted", {"type": "pass", "seat": turn}, {"cannot-pass"}))
        if n > 1:
            moves.append(
                (
                    "play out of turn on a new run",
                    {"type": "play", "seat": other, "cards": [unseen[0]]},
                    {"not-your-turn"},
                )
            )
    if deal.seen:
        played = str(min(deal.seen))
        cards = list(legal["cards"]) if legal and legal["type"] == "play" else [unseen[0]]
        seat = legal["seat"] if legal and legal["type"] == "play" else turn
        moves.append(
            (
                "card already played",
                {"type": "play", "seat": seat, "cards": [played, *cards[1:]]},
                {"card-already-played", "must-continue", "not-your-turn"},
            )
        )
    too_many = unseen[: deal.hand_sizes[turn] + 1]
    if len(too_many) > deal.hand_sizes[turn]:
        moves.append(
            ("too many cards", {"type": "play", "seat": turn, "cards": too_many}, {"too-many-cards"})
        )
    if legal is None or legal["type"] != "play":
        return moves
    seat, cards = legal["seat"], list(legal["cards"])
    moves.append(
        ("a card twice", {**legal, "cards": [*cards, cards[0]]}, {"card-already-played", "too-many-cards"})
    )
    if seat == turn and deal.expected is not None:
        wrong_rank = [c for c in unseen if _rank(c) != deal.expected]
        if deal.hands is not None:
            wrong_rank = [c for c in wrong_rank if c in deal.hands[seat]] or wrong_rank
        if wrong_rank:
            moves.append(
                (
                    "out of sequence",
                    {**legal, "cards": [wrong_rank[0]], "announced": []},
                    {"out-of-sequence", "card-not-in-hand"},
                )
            )
    if deal.hands is not None:
        elsewhere = [str(c) for s, hand in enumerate(deal.hands) if s != seat for c in hand]
        elsewhere += [str(c) for c in (deal.talon or ())]
        if elsewhere:
            moves.append(
                ("card not in hand", {**legal, "cards": [elsewhere[0], *cards[1:]]}, {"card-not-in-hand"})
            )
        for wrong_seat in range(state.n):
            if wrong_seat != seat:  # the same cards from another seat: they are not in its hand
                moves.append(
                    (
                        f"wrong seat {wrong_seat}",
                        {**legal, "seat": wrong_seat},
                        {"card-not-in-hand", "not-your-turn", "must-continue", "too-many-cards"},
                    )
                )
    honours = [str(c) for c in state.rules.board if str(c) not in cards]
    if honours:
        moves.append(
            ("announced, not played", {**legal, "announced": [honours[0]]}, {"announced-not-played"})
        )
    plain = [c for c in cards if c not in state.rules.board]
    if plain:
        moves.append(("not an honour", {**legal, "announced": [plain[0]]}, {"not-an-honour"}))
    return moves


def _while_revealing(
    state: GameState, legal: Mapping[str, Any] | None
) -> list[tuple[str, Any, set[str] | None]]:
    deal = state.deal
    assert deal is not None and deal.winner is not None
    moves: list[tuple[str, Any, set[str] | None]] = [
        (
            "play while revealing",
            {"type": "play", "seat": deal.awaiting[0], "cards": ["AS"]},
            {"awaiting-reveal"},
        ),
        ("pass while revealing", {"type": "pass", "seat": deal.awaiting[0]}, {"awaiting-reveal"}),
        ("the winner reveals", {"type": "reveal", "seat": deal.winner, "cards": []}, {"no-reveal-needed"}),
    ]
    if legal is not None and legal["type"] == "reveal" and "count" in legal:
        count = legal["count"]
        moves += [
            ("one card short told", {**legal, "count": count - 1}, {"reveal-mismatch", "invalid-action"}),
            ("one card more told", {**legal, "count": count + 1}, {"reveal-mismatch"}),
            ("more than ten points a card", {**legal, "points": 10 * count + 1}, {"reveal-mismatch"}),
            ("both forms", {**legal, "cards": []}, {"invalid-action"}),
            ("a card told as an honour", {**legal, "honours": ["2C"]}, {"not-an-honour"}),
        ]
        if legal["honours"]:
            moves.append(("an honour told twice", {**legal, "honours": [*legal["honours"], legal["honours"][0]]},
                          {"reveal-mismatch"}))
    elif legal is not None and legal["type"] == "reveal":
        cards = list(legal["cards"])
        moves.append(("one card short", {**legal, "cards": cards[1:]}, {"reveal-mismatch"}))
        moves.append(
            (
                "one card more",
                {**legal, "cards": [*cards, *_spare(state, cards)]},
                {"reveal-mismatch", "card-already-played"},
            )
        )
        if len(cards) > 1:
            moves.append(("a card twice", {**legal, "cards": [cards[0], *cards[:-1]]}, {"reveal-mismatch"}))
        if cards:
            played = str(min(deal.seen))
            moves.append(("a played card", {**legal, "cards": [played, *cards[1:]]}, {"card-already-played"}))
    return moves


def _spare(state: GameState, cards: list[str]) -> list[str]:
    return [c for c in _unseen(state) if c not in cards][:1] or [str(DECK[0])]


def _rank(card: str) -> int:
    return next(c.rank for c in DECK if str(c) == card)


__all__ = [
    "ANY",
    "TABLE_ACTIONS",
    "check_game",
    "check_simulated",
    "illegal_moves",
    "refused",
    "states_before_batches",
]
