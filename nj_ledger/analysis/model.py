"""The deal as the solver sees it: a compact position, its legal moves, and the settlement at its end.

A position is a plain tuple (hashable, cheap to copy) built from a :class:`~nj_ledger.state.GameState` of a
deal being played and every hand. It follows the core's rules card by card: one *move* is one card laid (with
or without its call), or the empty move — a pass when the seat is asked to continue a run, a stop when it has
laid cards this turn and could lay more. A table action of the core (a ``play`` of several cards) is a series
of such moves by one seat; :func:`~nj_ledger.analysis.convert.actions_of` writes a series of moves back as
table actions, which
``nj_ledger.decide.execute`` accepts and which give the same state (``tests/core/test_analysis.py``
checks the moves against the core's own checks on thousands of positions, and every settlement against
``nj_ledger.settlement.settle``).

**What is kept of a position** (``P_*`` indices): the hands, the run (the rank and, in suit play, the suit it
wants), whose move it is and in which *mode* (starting a new run, going on after a King or a hoc, asked to
continue, in the middle of a play), who laid the last card, the passes since (how many, the first passer),
the passes that block the run, whether the deal has opened, the laying turns (only where a Grand Opéra
``first_turn`` pays), which seats laid a card (only where a ``no_other_plays`` Opéra pays), the boxes taken
this deal, and the balances.

**Equal cards are one card.** With ``sequence: rank`` two cards of the same rank that are neither an honour
of the board, nor a hoc, nor the wild card play, score and pay alike: a hand keeps how many *plain* cards of
each rank it holds (3 bits a rank) and which *special* cards (a bit a card, shifted past the counts). A plain
move names a rank; the table action names a card of that rank the seat holds. With ``sequence: suit`` every
card is special.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..cards import DECK, KING, Card
from ..rules import Rules

# --- a position ------------------------------------------------------------------------------------
P_HANDS, P_EXP, P_SUIT, P_TURN, P_MODE, P_LAST, P_NPASS, P_FIRST, P_NEED, P_OPENED, P_LT, P_LAID, P_TAKEN, \
    P_BAL = range(14)
Position = tuple[Any, ...]

# modes: who acts and how
LEAD = 0  # start a new run: a new laying turn (the deal's first card, or a restart)
LEAD_ON = 1  # start a new run in the same turn (after a King or a hoc)
RESPOND = 2  # asked to continue the run (a new laying turn), or pass
MIDDLE = 3  # has laid cards of this turn: lay the next, or stop
ENDED = 4  # somebody went out: the deal is settled (P_TURN is the winner, P_BAL the final chips)

# moves
NONE = -1  # pass (RESPOND) or stop (MIDDLE)
CALL = 64  # added to a special card's index: laid and announced
PLAIN = 128  # PLAIN + rank: a plain card of that rank

SHIFT = 39  # the special cards' bits start past 13 counts of 3 bits
RANK_MASK = 7


_SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}


def card_index(card: Card) -> int:
    """The card's place in :data:`~nj_ledger.cards.DECK` (suit by suit, Ace to King)."""
    return _SUIT_INDEX[card.suit] * 13 + card.rank - 1


class Table:
    """What the rules and the deal's start fix for the whole search: which cards are special, what each pays."""

    def __init__(self, rules: Rules, n: int, boxes: Sequence[int], first_hand: int) -> None:
        self.rules = rules
        self.n = n
        self.first_hand = first_hand
        self.boxes = tuple(boxes)  # as they stand at the root, in board order
        self.by_suit = rules.sequence == "suit"
        self.may_stop = rules.may_stop
        self.skip = rules.blocked == "skip"
        self.first_passer = rules.restarter == "first_passer"
        self.lowest = rules.opening == "lowest"
        self.opened = 1  # P_OPENED once a card is laid (it stays 1 throughout where the opening is free)
        self.wild = -1 if rules.wild is None else card_index(rules.wild)
        reward = rules.grand_opera.reward
        self.go_reward = reward
        self.track_turns = reward != "none" and rules.grand_opera.condition == "first_turn"
        self.track_laid = reward != "none" and rules.grand_opera.condition == "no_other_plays"
        self.cards_payment = rules.payment == "cards"
        self.point_value = rules.point_value
        self.bete = rules.bete
        self.negative = rules.shortfall == "negative"
        self.wild_double = rules.wild_pays_double and rules.wild is not None
        self.hoc = rules.hoc_reward * rules.stake_unit
        self.face = tuple(rules.board[card] * rules.stake_unit for card in rules.honours)
        self.rank = [card.rank for card in DECK]
        self.suit = [index // 13 for index in range(52)]
        self.points = [card.points for card in DECK]
        self.ends = [rules.ends_run(card) for card in DECK]
        self.box_of = [rules.box_positions.get(card, -1) for card in DECK]
        self.hoc_card = [rules.is_hoc(card) for card in DECK]
        self.announceable = [rules.announceable(card) for card in DECK]
        self.special = [self.by_suit or self.box_of[i] >= 0 or self.announceable[i] or (self.ends[i] and DECK[i].rank
                        != KING) or i == self.wild for i in range(52)]
        # a King is plain unless it is an honour, a hoc that pays, a stop or the wild card: all Kings end a run
        self.special_bit = [1 << (SHIFT + i) for i in range(52)]
        self.rank_unit = [0] + [1 << (3 * (r - 1)) for r in range(1, 14)]  # rank_unit[r]: one plain card of rank r
        self.rank_points = [0] + [min(r, 10) for r in range(1, 14)]
        self.honour_index = [card_index(card) for card in rules.honours]
        # the special cards of each rank (any suit): what may continue a run wanting that rank
        self._sizes: dict[int, int] = {}  # what hands come to, as they are asked (a hand recurs at many ends)
        self._points: dict[int, int] = {}
        self.specials_of_rank = [[i for i in range(52) if self.special[i] and self.rank[i] == r] for r in range(14)]

    # --- hands ---------------------------------------------------------------------------------
    def encode(self, cards: Iterable[Card]) -> int:
        hand = 0
        for card in cards:
            i = card_index(card)
            hand += self.special_bit[i] if self.special[i] else self.rank_unit[card.rank]
        return hand

    def count(self, hand: int, rank: int) -> int:
        return hand >> (3 * (rank - 1)) & RANK_MASK

    def specials(self, hand: int) -> list[int]:
        bits = hand >> SHIFT
        out = []
        while bits:
            low = bits & -bits
            out.append(low.bit_length() - 1)
            bits ^= low
        return out

    def size(self, hand: int) -> int:
        known = self._sizes.get(hand)
        if known is None:
            known = self._sizes[hand] = self._size(hand)
        return known

    def _size(self, hand: int) -> int:
        plain = hand & ((1 << SHIFT) - 1)
        total = 0
        while plain:
            total += plain & RANK_MASK
            plain >>= 3
        return total + (hand >> SHIFT).bit_count()

    def hand_points(self, hand: int) -> int:
        known = self._points.get(hand)
        if known is None:
            known = self._points[hand] = self._hand_points(hand)
        return known

    def _hand_points(self, hand: int) -> int:
        total = sum(self.points[i] for i in self.specials(hand))
        plain = hand & ((1 << SHIFT) - 1)
        rank = 1
        while plain:
            total += (plain & RANK_MASK) * self.rank_points[rank]
            plain >>= 3
            rank += 1
        return total

    def min_rank(self, hand: int) -> int:
        ranks = [self.rank[i] for i in self.specials(hand)]
        plain = hand & ((1 << SHIFT) - 1)
        rank = 1
        while plain:
            if plain & RANK_MASK:
                ranks.append(rank)
                break
            plain >>= 3
            rank += 1
        return min(ranks)

    # --- moves ---------------------------------------------------------------------------------
    def moves(self, p: Position) -> list[int]:
        """The legal moves at ``p`` in the canonical order: cards by rank then suit (a plain rank before the
        special cards of that rank; a card announced before the same card laid silently), the empty move last."""
        mode = p[P_MODE]
        if mode == ENDED:
            return []
        seat = p[P_TURN]
        hand = p[P_HANDS][seat]
        out: list[int] = []
        if mode <= LEAD_ON:
            restrict = 0
            if self.lowest and not p[P_OPENED]:
                restrict = self.min_rank(hand)
            specials = self.specials(hand)
            for rank in range(1, 14):
                if restrict and rank != restrict:
                    continue
                if hand >> (3 * (rank - 1)) & RANK_MASK:
                    out.append(PLAIN + rank)
                for i in specials:
                    if self.rank[i] == rank:
                        self._lay(out, i, p)
            if restrict and self.wild >= 0 and self.rank[self.wild] != restrict and hand & self.special_bit[self.wild]:
                self._lay(out, self.wild, p)  # the wild card opens whatever the lowest rank
                out.sort(key=self._order)
            return out
        wanted = p[P_EXP]
        suit = p[P_SUIT]
        must = False
        if not self.by_suit and hand >> (3 * (wanted - 1)) & RANK_MASK:
            out.append(PLAIN + wanted)
            must = True
        wild_held = self.wild >= 0 and hand & self.special_bit[self.wild]
        for i in self.specials_of_rank[wanted]:
            if hand & self.special_bit[i] and (suit < 0 or self.suit[i] == suit) and i != self.wild:
                self._lay(out, i, p)
                must = True
        if wild_held:
            self._lay(out, self.wild, p)
            out.sort(key=self._order)
        if self.may_stop or not must:
            out.append(NONE)
        return out

    def _order(self, move: int) -> tuple[int, int, int]:
        if move == NONE:
            return (99, 0, 0)
        if move >= PLAIN:
            return (move - PLAIN, -1, 0)
        i = move & 63
        return (self.rank[i], self.suit[i], 0 if move & CALL else 1)

    def _lay(self, out: list[int], i: int, p: Position) -> None:
        """A special card, with its call as a separate move where the call moves chips."""
        if self.announceable[i] and ((self.hoc_card[i] and self.hoc > 0) or (self.box_of[i] >= 0
                                     and self.box(p, self.box_of[i]) > 0)):
            out.append(i | CALL)
        out.append(i)

    def box(self, p: Position, index: int) -> int:
        return 0 if p[P_TAKEN] >> index & 1 else self.boxes[index]

    # --- playing a move ------------------------------------------------------------------------
    def play(self, p: Position, move: int) -> Position:
        """The position after ``move`` (which must be legal at ``p``)."""
        n = self.n
        seat = p[P_TURN]
        mode = p[P_MODE]
        if move == NONE:
            if mode == MIDDLE:  # a stop: the next seat is asked
                return (p[P_HANDS], p[P_EXP], p[P_SUIT], (seat + 1) % n, RESPOND, p[P_LAST], 0, -1, n - 1,
                        p[P_OPENED], p[P_LT], p[P_LAID], p[P_TAKEN], p[P_BAL])
            passes = p[P_NPASS] + 1
            first = seat if p[P_NPASS] == 0 else p[P_FIRST]
            if passes < p[P_NEED]:
                return (p[P_HANDS], p[P_EXP], p[P_SUIT], (seat + 1) % n, RESPOND, p[P_LAST], passes,
                        first if self.first_passer else -1, p[P_NEED], p[P_OPENED], p[P_LT], p[P_LAID],
                        p[P_TAKEN], p[P_BAL])
            # blocked: the missing rank is skipped, or a new run starts
            if self.skip and p[P_EXP] != KING:
                return (p[P_HANDS], p[P_EXP] + 1, p[P_SUIT], p[P_LAST], RESPOND, p[P_LAST], 0, -1, n,
                        p[P_OPENED], p[P_LT], p[P_LAID], p[P_TAKEN], p[P_BAL])
            restarter = first if self.first_passer else p[P_LAST]
            return (p[P_HANDS], 0, -1, restarter, LEAD, -1, 0, -1, n - 1, p[P_OPENED], p[P_LT], p[P_LAID],
                    p[P_TAKEN], p[P_BAL])
        i = move & 63 if move < PLAIN else -1
        rank = move - PLAIN if move >= PLAIN else self.rank[i]
        hands = list(p[P_HANDS])
        hand = hands[seat] - (self.rank_unit[rank] if i < 0 else self.special_bit[i])
        hands[seat] = hand
        lt = p[P_LT]
        if self.track_turns and mode in (LEAD, RESPOND) and lt >> (2 * seat) & 3 < 2:
            lt += 1 << (2 * seat)  # a new laying turn (counted up to 2: a Grand Opéra asks whether it is the first)
        laid = p[P_LAID] | (1 << seat) if self.track_laid else 0
        taken = p[P_TAKEN]
        bal = p[P_BAL]
        if move & CALL and i >= 0:
            balances = list(bal)
            box = self.box_of[i]
            if box >= 0:
                balances[seat] += self.box(p, box)
                taken |= 1 << box
            if self.hoc_card[i] and self.hoc > 0:
                for other in range(1, n):
                    payer = (seat + other) % n
                    paid = self.hoc if self.negative else max(0, min(self.hoc, balances[payer]))
                    balances[payer] -= paid
                    balances[seat] += paid
            bal = tuple(balances)
        if hand == 0:  # "J'arrête !"
            return self.settle(tuple(hands), seat, lt, laid, taken, bal)
        if self.ends[i] if i >= 0 else rank == KING:
            return (tuple(hands), 0, -1, seat, LEAD_ON, -1, 0, -1, n - 1, self.opened, lt, laid, taken, bal)
        suit = self.suit[i] if self.by_suit else -1
        return (tuple(hands), rank + 1, suit, seat, MIDDLE, seat, 0, -1, n - 1, self.opened, lt, laid, taken, bal)

    def settle(self, hands: tuple[int, ...], winner: int, lt: int, laid: int, taken: int,
               bal: tuple[int, ...]) -> Position:
        """SPEC §3.3 in its order: card payments, the Grand Opéra's sweep, the bêtes."""
        n = self.n
        balances = list(bal)
        negative = self.negative
        at_out = [0 if taken >> b & 1 else chips for b, chips in enumerate(self.boxes)]
        if self.track_turns:
            opera = lt >> (2 * winner) & 3 == 1
        elif self.track_laid:
            opera = laid & ~(1 << winner) == 0
        else:
            opera = False
        double = 2 if opera and self.go_reward == "double" else 1
        for k in range(1, n):
            seat = (winner + k) % n
            hand = hands[seat]
            base = self.size(hand) if self.cards_payment else self.hand_points(hand)
            owed = base * self.point_value * double
            if self.wild_double and hand & self.special_bit[self.wild]:
                owed *= 2
            paid = owed if negative else max(0, min(owed, balances[seat]))
            balances[seat] -= paid
            balances[winner] += paid
        boxes = list(at_out)
        if opera and self.go_reward == "sweep":
            balances[winner] += sum(boxes)
            boxes = [0] * len(boxes)
        if self.bete != "none":
            for k in range(1, n):
                seat = (winner + k) % n
                hand = hands[seat]
                for b, i in enumerate(self.honour_index):
                    if hand & self.special_bit[i]:
                        owed = at_out[b] if self.bete == "double" else self.face[b]
                        paid = owed if negative else max(0, min(owed, balances[seat]))
                        balances[seat] -= paid
                        boxes[b] += paid
        return (hands, 0, -1, winner, ENDED, -1, 0, -1, 0, 1, lt, laid, taken, tuple(balances))

    def uncapped(self, p: Position) -> bool:
        """Whether no payment can be held to a balance in the rest of the deal (``shortfall: negative``, or every
        seat holds more than it could ever pay): the chips gained from a position then depend on the position
        without its balances, which the transposition table then leaves out of its key."""
        if self.negative:
            return True
        hands = p[P_HANDS]
        boxes = sum(self.boxes)
        hocs = [sum(1 for i in self.specials(hand) if self.hoc_card[i]) for hand in hands]
        for seat, hand in enumerate(hands):
            worst = self.hand_points(hand) * self.point_value * 4 + boxes + sum(self.face) * 5
            worst += self.hoc * sum(h for other, h in enumerate(hocs) if other != seat)
            if p[P_BAL][seat] < worst:
                return False
        return True

    def key(self, p: Position, capped: bool) -> tuple[Any, ...]:
        """The position's essentials for the transposition table (the balances only when they can matter)."""
        return p if capped else p[:P_BAL]


__all__ = [
    "CALL", "ENDED", "LEAD", "LEAD_ON", "MIDDLE", "NONE", "PLAIN", "RESPOND", "Position", "Table", "card_index",
]
