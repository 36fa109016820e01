"""The fold: ``apply(state, event) -> state`` and ``replay(events) -> state``.

Events are facts: applying one never re-validates it (that is :mod:`decide`'s
job, before anything is appended). The handlers mutate a state the caller owns;
the public :func:`apply` works on a copy, so it is pure.

    >>> from nj_ledger import new_game, execute, replay
    >>> started = new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)
    >>> state, events = execute(replay([started]), [{"type": "deal"}])
    >>> replay([started, *events]).board()
    {'10D': 3, 'JC': 6, 'QS': 9, 'KH': 12, '7D': 15}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .actions import Account, account
from .cards import DECK, KING, Card, parse_cards
from .events import Event
from .rules import resolve_rules
from .state import ENDED, PLAYING, READY, REVEALING, CountedHand, DealState, GameState

Handler = Callable[[GameState, Mapping[str, Any]], None]

def start_state(data: Mapping[str, Any]) -> GameState:
    """The state right after ``game_started``.

    The rules are resolved as they were stored, never held to today's bounds
    (:func:`nj_ledger.rules.check_bounds` is for new games only): an event is a fact.
    """
    s = GameState.__new__(GameState)
    s.players = tuple(data["players"])
    s.rules = resolve_rules(data["rules"])
    s.starting_chips = int(data["starting_chips"])
    s.first_dealer = int(data.get("dealer", len(s.players) - 1))
    s.balances = (s.starting_chips,) * len(s.players)
    s.boxes = (0,) * len(s.rules.board)
    s.version = 0
    s.status = READY
    s.deals_played = 0
    s.deal_number = 0
    s.deal = None
    s.result = None
    s.last_dealer = None
    s.deal_first_seq = 1  # before the first deal, the stretch of the log is game_started and what follows it
    s.redo = ()
    return s


def _push_undo(s: GameState) -> None:
    """Remember the state before a play, pass or reveal, so ``undo`` can return to it."""
    deal = s.deal
    assert deal is not None
    deal.undo_to = s.copy()
    deal.group_transfers = ()


def _recorded(s: GameState, kind: str, d: Mapping[str, Any]) -> None:
    """A play, an explicit pass or a reveal: what an undo would withdraw now; the redo of what the latest undo
    withdrew when it is that very action again, else the end of the redos."""
    deal = s.deal
    assert deal is not None
    deal.undo_action = (kind, d)  # an event's data is never changed
    if s.redo:
        top_kind, top = s.redo[-1]
        s.redo = s.redo[:-1] if top_kind == kind and dict(top) == dict(d) else ()


def _closes_undo(s: GameState) -> None:
    """An adjustment or the end of the game: the settlement before it stands, and nothing is left to redo."""
    s.redo = ()
    if s.deal is not None:
        s.deal.undo_to = None
        s.deal.undo_action = None
        s.deal.group_transfers = ()


def _on_deal(s: GameState, d: Mapping[str, Any]) -> None:
    n = s.n
    size, _ = s.rules.deal_table[n]
    hands = tuple(frozenset(parse_cards(h)) for h in d["hands"]) if d.get("hands") else None
    talon = d.get("talon")
    if talon is not None:
        talon = frozenset(parse_cards(talon))
    elif hands is not None:
        talon = frozenset(DECK).difference(*hands)
    deal = DealState.__new__(DealState)
    deal.number = s.deal_number + 1
    deal.dealer = int(d["dealer"])
    deal.first_hand = (deal.dealer + 1) % n
    deal.hands = hands
    deal.talon = talon
    deal.hand_sizes = (size,) * n
    deal.seen = frozenset()
    deal.run = ()
    deal.expected = None
    deal.expected_suit = None
    deal.turn = deal.first_hand
    deal.last_player = None
    deal.passers = ()
    deal.passes_needed = n - 1
    deal.continuing = False
    deal.laying_turns = (0,) * n
    deal.cards_laid = (0,) * n
    deal.winner = None
    deal.grand_opera = False
    deal.revealed = ()
    deal.counted = ()
    deal.awaiting = ()
    deal.ended = False
    deal.undo_to = None
    deal.undo_action = None
    deal.group_transfers = ()
    deal.in_inferred = False
    deal.opened = False
    deal.shortfalls = ()
    s.deal = deal
    s.deal_number = deal.number
    s.deal_first_seq = s.version  # this deal event's seq
    s.last_dealer = deal.dealer
    s.status = PLAYING
    s.redo = ()


def _on_transfer(s: GameState, d: Mapping[str, Any]) -> None:
    move_chips(s, d, account(d["from"]), account(d["to"]), d["amount"])


def move_chips(s: GameState, d: Mapping[str, Any], source: Account, target: Account, amount: int) -> None:
    """A ``transfer`` event ``d``, given the accounts and amount it names (the engine has them at hand)."""
    balances, boxes = list(s.balances), list(s.boxes)
    for held, change in ((source, -amount), (target, amount)):
        if held.seat is not None:
            balances[held.seat] += change
        else:
            boxes[s.box_index(held.box or "")] += change
    s.balances, s.boxes = tuple(balances), tuple(boxes)
    deal = s.deal
    # what an undo gives back: the transfers since the latest play, pass or reveal, its settlement's included
    if deal is not None and deal.undo_to is not None and d["reason"] != "undo" and d["reason"] != "adjust":
        deal.group_transfers += ((s.version, source, target, amount),)
    if "owed" in d and deal is not None:  # a payment during the deal that could not be made in full
        deal.shortfalls += ({"seat": source.seat, "reason": d["reason"], "owed": d["owed"], "paid": amount},)


def _block(s: GameState) -> None:
    """Every seat that could continue passed: skip the missing rank, or start a new run."""
    deal = s.deal
    assert deal is not None
    if s.rules.blocked == "skip" and deal.expected != KING:
        deal.expected = (deal.expected or 0) + 1
        deal.turn = deal.last_player
        deal.passers = ()
        deal.passes_needed = s.n  # the last player first, then everybody else
        return
    restarter = deal.last_player if s.rules.restarter == "last_player" else deal.passers[0]
    deal.run = ()
    deal.expected = None
    deal.expected_suit = None
    deal.turn = restarter
    deal.passers = ()
    deal.continuing = False


def _on_pass(s: GameState, d: Mapping[str, Any]) -> None:
    pass_turn(s, d, int(d["seat"]), bool(d.get("inferred")))


def pass_turn(s: GameState, d: Mapping[str, Any], seat: int, inferred: bool) -> None:
    """A ``pass`` event ``d``, given its seat and whether it was inferred."""
    deal = s.deal
    assert deal is not None
    if inferred:
        if not deal.in_inferred:
            _push_undo(s)
            deal.in_inferred = True
    else:
        _push_undo(s)
        _recorded(s, "pass", d)
    deal.passers += (seat,)
    deal.turn = (seat + 1) % s.n
    if len(deal.passers) >= deal.passes_needed:
        _block(s)


def is_grand_opera(s: GameState, winner: int) -> bool:
    deal = s.deal
    assert deal is not None
    if s.rules.grand_opera.condition == "first_turn":
        return deal.laying_turns[winner] == 1
    return all(laid == 0 for seat, laid in enumerate(deal.cards_laid) if seat != winner)


def losers(s: GameState, winner: int) -> list[int]:
    """The other seats, in play order from the winner's left."""
    return [(winner + i) % s.n for i in range(1, s.n)]


def _on_play(s: GameState, d: Mapping[str, Any]) -> None:
    lay_cards(s, d, int(d["seat"]), parse_cards(d["cards"]))


def lay_cards(s: GameState, d: Mapping[str, Any], seat: int, cards: Sequence[Card]) -> None:
    """A ``play`` event ``d``, given its seat and cards."""
    deal = s.deal
    assert deal is not None
    if deal.in_inferred:
        deal.in_inferred = False
    else:
        _push_undo(s)
    _recorded(s, "play", d)
    if not (deal.continuing and deal.turn == seat):
        turns = list(deal.laying_turns)
        turns[seat] += 1
        deal.laying_turns = tuple(turns)
    rules = s.rules
    run = deal.run
    for card in cards:
        run = (card,) if deal.expected is None else run + (card,)
        deal.expected, deal.expected_suit = rules.wanted_after(card)
    deal.run = run
    played = frozenset(cards)
    if deal.hands is not None:
        hands = list(deal.hands)
        hands[seat] = hands[seat] - played
        deal.hands = tuple(hands)
    sizes = list(deal.hand_sizes)
    sizes[seat] -= len(cards)
    deal.hand_sizes = tuple(sizes)
    laid = list(deal.cards_laid)
    laid[seat] += len(cards)
    deal.cards_laid = tuple(laid)
    deal.seen = deal.seen | played
    deal.opened = True
    deal.last_player = seat
    deal.passers = ()
    if sizes[seat] == 0:  # "J'arrête !"
        deal.winner = seat
        deal.turn = None
        deal.continuing = False
        deal.grand_opera = is_grand_opera(s, seat)
        if deal.hands is None and s.rules.needs_losers_hands():
            s.status = REVEALING
            deal.awaiting = tuple(losers(s, seat))
    elif rules.ends_run(cards[-1]):  # "Roi et je recommence": the turn goes on
        deal.continuing = True
        deal.turn = seat
    else:  # "sans …": the next seats may continue
        deal.continuing = False
        deal.turn = (seat + 1) % s.n
        deal.passes_needed = s.n - 1


def _on_reveal(s: GameState, d: Mapping[str, Any]) -> None:
    deal = s.deal
    assert deal is not None
    _push_undo(s)
    _recorded(s, "reveal", d)
    seat = int(d["seat"])
    if "count" in d:  # settling by count: the honours declared are known, the other cards stay unseen
        honours = frozenset(parse_cards(d.get("honours", [])))
        deal.counted += (CountedHand(seat, int(d["count"]), int(d["points"]), honours),)
        deal.seen = deal.seen | honours
    else:
        cards = frozenset(parse_cards(d["cards"]))
        deal.revealed += ((seat, cards),)
        deal.seen = deal.seen | cards
    deal.awaiting = tuple(a for a in deal.awaiting if a != seat)


def _on_undo(s: GameState, d: Mapping[str, Any]) -> None:
    """Back to the state before the latest play, pass or reveal; past its settlement (``deal_ended``, and
    ``game_ended`` when that deal ended the game) until the next deal starts."""
    deal = s.deal
    assert deal is not None and deal.undo_to is not None
    withdrawn = deal.undo_action
    restored = deal.undo_to.copy()
    # The chips come back through the reversing transfers that follow this event.
    restored.balances, restored.boxes, restored.version = s.balances, s.boxes, s.version
    restored.redo = s.redo if withdrawn is None else s.redo + (withdrawn,)
    for name in GameState.__slots__:
        setattr(s, name, getattr(restored, name))


def _on_deal_ended(s: GameState, d: Mapping[str, Any]) -> None:
    deal = s.deal
    assert deal is not None
    deal.ended = True
    deal.turn = None
    deal.awaiting = ()  # the state before the action that settled the deal stays, for an undo
    s.deals_played += 1
    s.status = READY


def _on_game_ended(s: GameState, d: Mapping[str, Any]) -> None:
    s.status = ENDED
    s.result = {"reason": d["reason"], "standings": d["standings"], "board_left": d["board_left"]}


def _on_adjust_or_end(s: GameState, d: Mapping[str, Any]) -> None:
    """``adjust`` and ``end`` move nothing themselves (their transfer or game_ended follows); the settlement
    before them is no longer withdrawn by an undo."""
    _closes_undo(s)


HANDLERS: dict[str, Handler] = {
    "deal": _on_deal,
    "transfer": _on_transfer,
    "pass": _on_pass,
    "play": _on_play,
    "reveal": _on_reveal,
    "undo": _on_undo,
    "deal_ended": _on_deal_ended,
    "game_ended": _on_game_ended,
    "adjust": _on_adjust_or_end,
    "end": _on_adjust_or_end,
}


def fold(s: GameState | None, event: Event) -> GameState:
    """Apply ``event`` to ``s`` in place (a state the caller owns) and return it."""
    if s is None:
        if event.type != "game_started":
            raise ValueError(f"a game's log starts with game_started, not {event.type}")
        s = start_state(event.data)
        s.version = 1
        return s
    s.version += 1
    HANDLERS[event.type](s, event.data)
    return s


def apply(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``; ``state`` itself is left as it was."""
    return fold(None if state is None else state.copy(), event)


def replay(events: Iterable[Event]) -> GameState:
    """Rebuild a game's state from its log."""
    s: GameState | None = None
    for event in events:
        s = fold(s, event)
    if s is None:
        raise ValueError("an empty log has no game")
    return s
