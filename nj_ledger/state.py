"""The state a game's log folds into.

:class:`GameState` and :class:`DealState` are plain containers whose fields hold
immutable values (tuples, frozensets, numbers), so ``copy()`` is a cheap shallow
copy and a copy is never disturbed by later events. Only the reducer mutates a
state, and only one it owns (a fresh state during a replay, or a scratch copy
while deciding).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, get_args

from .cards import Card
from .rules import Rules

if TYPE_CHECKING:
    from .actions import Account

Status = Literal["ready", "playing", "revealing", "ended"]  # between deals, a deal played, awaiting reveals, over
STATUSES: tuple[Status, ...] = get_args(Status)
READY: Final = "ready"
PLAYING: Final = "playing"
REVEALING: Final = "revealing"
ENDED: Final = "ended"


class CountedHand(NamedTuple):
    """A loser's hand told by count (a reveal's count form): its cards stay unseen."""

    seat: int
    left: int  # cards left
    points: int  # what they make
    honours: frozenset[Card]  # the honours among them


class DealState:
    """One deal: hands (when known), the run on the table, whose turn it is."""

    __slots__ = (
        "awaiting",
        "cards_laid",
        "continuing",
        "counted",
        "dealer",
        "ended",
        "expected",
        "expected_suit",
        "first_hand",
        "grand_opera",
        "group_transfers",
        "hand_sizes",
        "hands",
        "in_inferred",
        "last_player",
        "laying_turns",
        "number",
        "opened",
        "passers",
        "passes_needed",
        "revealed",
        "run",
        "seen",
        "shortfalls",
        "talon",
        "turn",
        "undo_action",
        "undo_to",
        "winner",
    )

    number: int
    dealer: int
    first_hand: int
    hands: tuple[frozenset[Card], ...] | None  # full information: what each seat still holds
    talon: frozenset[Card] | None
    hand_sizes: tuple[int, ...]
    seen: frozenset[Card]  # every card played or revealed this deal
    run: tuple[Card, ...]  # the run on the table
    expected: int | None  # rank that continues the run; None: a new run starts
    expected_suit: str | None  # with sequence "suit": the suit that continues it
    turn: int | None
    last_player: int | None  # who laid the last card
    passers: tuple[int, ...]  # who passed since the last stop (or skip)
    passes_needed: int  # passes that block the run
    continuing: bool  # the seat to act is in the middle of its turn (after a King)
    laying_turns: tuple[int, ...]  # turns in which each seat laid cards
    cards_laid: tuple[int, ...]
    winner: int | None
    grand_opera: bool
    revealed: tuple[tuple[int, frozenset[Card]], ...]
    counted: tuple[CountedHand, ...]  # hands told by count, in the order of their reveals
    awaiting: tuple[int, ...]  # losers whose hand must still be revealed
    ended: bool
    undo_to: GameState | None  # the state before the latest play, pass or reveal (kept past the settlement)
    undo_action: tuple[str, Mapping[str, Any]] | None  # that play, pass or reveal: (type, its event's data)
    group_transfers: tuple[tuple[int, Account, Account, int], ...]  # (seq, from, to, amount) since undo_to
    in_inferred: bool  # inside the inferred passes that precede a play
    opened: bool  # a card has been laid this deal
    shortfalls: tuple[dict[str, Any], ...]  # payments during play (hocs) that could not be made in full

    def copy(self) -> DealState:
        """A copy sharing the immutable field values (written out: a copy is made at every play and pass)."""
        other = object.__new__(DealState)
        other.awaiting = self.awaiting
        other.cards_laid = self.cards_laid
        other.continuing = self.continuing
        other.counted = self.counted
        other.dealer = self.dealer
        other.ended = self.ended
        other.expected = self.expected
        other.expected_suit = self.expected_suit
        other.first_hand = self.first_hand
        other.grand_opera = self.grand_opera
        other.group_transfers = self.group_transfers
        other.hand_sizes = self.hand_sizes
        other.hands = self.hands
        other.in_inferred = self.in_inferred
        other.last_player = self.last_player
        other.laying_turns = self.laying_turns
        other.number = self.number
        other.opened = self.opened
        other.passers = self.passers
        other.passes_needed = self.passes_needed
        other.revealed = self.revealed
        other.run = self.run
        other.seen = self.seen
        other.shortfalls = self.shortfalls
        other.talon = self.talon
        other.turn = self.turn
        other.undo_action = self.undo_action
        other.undo_to = self.undo_to
        other.winner = self.winner
        return other

    def revealed_hand(self, seat: int) -> frozenset[Card] | None:
        for s, cards in self.revealed:
            if s == seat:
                return cards
        return None

    def counted_hand(self, seat: int) -> CountedHand | None:
        for told in self.counted:
            if told.seat == seat:
                return told
        return None

    def remaining_hand(self, seat: int) -> frozenset[Card] | None:
        """The cards a seat still holds, when known (dealt hands, or a reveal)."""
        if self.hands is not None:
            return self.hands[seat]
        return self.revealed_hand(seat)


class GameState:
    """Everything derived from a game's log up to some event."""

    __slots__ = (
        "balances",
        "boxes",
        "deal",
        "deal_first_seq",
        "deal_number",
        "deals_played",
        "first_dealer",
        "last_dealer",
        "players",
        "redo",
        "result",
        "rules",
        "starting_chips",
        "status",
        "version",
    )

    players: tuple[str, ...]
    rules: Rules
    starting_chips: int
    first_dealer: int
    balances: tuple[int, ...]
    boxes: tuple[int, ...]  # chips in each box, in board order
    version: int  # number of events folded (the seq of the last one)
    status: Status
    deals_played: int  # deals settled
    deal_number: int  # deals started
    deal: DealState | None  # the open deal, or the last one played
    result: dict[str, Any] | None
    last_dealer: int | None
    # The seq of the current deal's first event (1 before the first deal): the deal's events are those from
    # here to ``version``. An undo returns to an earlier state of the same deal, so this never moves back.
    deal_first_seq: int
    # What undos withdrew, latest last, as (type, data) of the table action: recording the latest again takes it
    # off (a redo); any other table action empties it.
    redo: tuple[tuple[str, Mapping[str, Any]], ...]

    def copy(self) -> GameState:
        """A copy sharing the immutable field values, with a copy of its own of the deal."""
        other = object.__new__(GameState)
        other.balances = self.balances
        other.boxes = self.boxes
        other.deal = None if self.deal is None else self.deal.copy()
        other.deal_first_seq = self.deal_first_seq
        other.deal_number = self.deal_number
        other.deals_played = self.deals_played
        other.first_dealer = self.first_dealer
        other.last_dealer = self.last_dealer
        other.players = self.players
        other.redo = self.redo
        other.result = self.result
        other.rules = self.rules
        other.starting_chips = self.starting_chips
        other.status = self.status
        other.version = self.version
        return other

    # --- convenient reads ----------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def total_chips(self) -> int:
        """What balances and boxes always add up to."""
        return self.n * self.starting_chips

    def box_index(self, card: str) -> int:
        try:
            return self.rules.box_positions[card]
        except KeyError:  # not an honour of this board: what tuple.index says
            raise ValueError(f"{card!r} is not an honour of this board") from None

    def board(self) -> dict[str, int]:
        return {str(card): chips for card, chips in zip(self.rules.honours, self.boxes, strict=True)}

    def account_balance(self, account: Account) -> int:
        if account.seat is not None:
            return self.balances[account.seat]
        return self.boxes[self.box_index(account.box or "")]

    def next_dealer(self) -> int:
        if self.last_dealer is None:
            return self.first_dealer
        step = 1 if self.rules.dealer_rotation == "next" else -1
        return (self.last_dealer + step) % self.n

    def undoable(self) -> dict[str, Any] | None:
        """What an ``undo`` would withdraw now: ``{type, seat, withdraws_settlement}``, or None when it is refused.

        Within a deal, and past its settlement until the next deal starts (SPEC §4); never after an ``end``
        or an adjustment between deals.
        """
        deal = self.deal
        if deal is None or deal.undo_to is None or deal.undo_action is None:
            return None
        kind, data = deal.undo_action
        return {"type": kind, "seat": data["seat"], "withdraws_settlement": deal.ended}

    def redo_action(self) -> dict[str, Any] | None:
        """The table action the latest undo withdrew (sending it again redoes it), or None."""
        if not self.redo:
            return None
        kind, data = self.redo[-1]
        return {"type": kind, **data}

    def standings(self) -> list[dict[str, Any]]:
        """Most chips first; equal chips share a rank (1, 1, 3…)."""
        order = sorted(range(self.n), key=lambda seat: (-self.balances[seat], seat))
        rows: list[dict[str, Any]] = []
        for position, seat in enumerate(order):
            chips = self.balances[seat]
            rank = rows[-1]["rank"] if rows and rows[-1]["chips"] == chips else position + 1
            rows.append({"seat": seat, "name": self.players[seat], "chips": chips, "rank": rank})
        return rows
