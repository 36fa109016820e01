"""The range of every number a ledger takes in and keeps (docs/RULES.md, "Bounds").

A number a scorer sends -- a rule option, the starting chips, a seat, an
adjustment's amount -- is checked where it enters (a new game, a table action,
a game document, an NJN record) and refused with a stable code that names it.
The numbers the engine makes -- chips moved and held, events in a deal -- are
kept within theirs by refusing the table action that would pass them, so no
stored number ever needs more than 64 bits (JSON readers such as orjson read
larger integers as floats) nor loses a chip in a browser (JavaScript numbers
are exact up to 2**53).

Stored events are facts: a game started under wider bounds than today's is
read back as it was recorded; only new games and new table actions are held to
these ranges.

    >>> MAX_CHIPS, MAX_DEAL_EVENTS, MAX_GAME_EVENTS, RULE_RANGES["stake_unit"]
    (1000000000000, 1000, 50000, (1, 1000))
"""

from __future__ import annotations

# Chips a seat or a box may hold, either way (seats go below zero with ``shortfall: negative``), and chips
# one transfer may move. With bêtes doubling a box every deal, a score-sheet game could otherwise grow its
# numbers without end: 10**12 is far beyond any table (a box of 10**12 chips is 36 doublings of a
# classic board) and leaves room for a club's sums over a million games in a 64-bit column.
MAX_CHIPS = 10**12

# Chips each player starts with, and the largest adjustment agreed at the table.
STARTING_CHIPS = (1, 10**9)
ADJUSTMENT = (1, 10**9)

# A reveal by count (settling by count): the cards a loser says are left in hand, and the points they make.
# No hand holds more than the deck's 52 cards, and 52 cards make at most 52 x 10 points; the engine then holds
# both to the deal (the hand's size, what the cards not yet seen can make).
REVEAL_COUNT = (1, 52)
REVEAL_POINTS = (0, 520)

# Events one deal may hold: the deal, its antes, its plays, passes, undos and reveals, its settlement, and the
# adjustments agreed before the next deal (an undo adds events, it never takes any away). Simulated games of
# every profile, 2 to 8 players, with full and partial information and frequent undos reach 391 at the most
# (7,200 games, bots stopping and passing six times as often as usual); a real deal stays far below.
MAX_DEAL_EVENTS = 1_000

# Events one game may hold: its first event, the adjustments before its first deal, and every deal's stretch.
# Whatever reads a whole log (the audit, an export, a replay of the game) reads at most this many, so no one --
# a viewer, a share link -- can make the server read a log without end. Simulated deals of eight players hold
# about 130 events (three players: 70), so this is some 380 deals of eight: the median game of every profile
# lasts 9 to 32 deals (docs/RULES.md), and an evening's longest game stays far below. A deal starts only while
# the game has room for a whole deal (MAX_GAME_EVENTS - MAX_DEAL_EVENTS events at most), so that every deal
# begun can be played out; ending the game is always possible, its two events past the bound if need be.
MAX_GAME_EVENTS = 50_000

# Events a game brought whole may hold: an imported document (JSON or NJN, streamed or not) and a simulated game.
# An archive of an old scoresheet, or the 1,000,000-event game the benchmarks import, replay and audit (SPEC §9),
# is read within this; what reads a whole log reads it in bounded memory and two at a time (api.audits). Table
# actions never take a game past MAX_GAME_EVENTS, whatever it was brought with.
MAX_DOCUMENT_EVENTS = 1_200_000

# The whole numbers among the rule options, as (least, most): every stake of the board, the multipliers of
# stakes and card payments, the hoc chips of the 1760 rules, and the length of a game in deals (also for each
# player count). A game's chips stay small beside MAX_CHIPS: an ante is at most 5 x 1,000 x 1,000 chips.
RULE_RANGES: dict[str, tuple[int, int]] = {
    "board": (1, 1_000),
    "stake_unit": (1, 1_000),
    "point_value": (1, 1_000),
    "hoc_reward": (0, 1_000),
    "max_deals": (1, 10_000),
}

# Digits of the longest number an NJN record may write: 10**12 has 13. A longer one is refused where it is
# written (Python refuses to read a number of more than 4,300 digits at all).
MAX_DIGITS = 13


def shown(value: object, longest: int = 24) -> str:
    """A number as a refusal quotes it: cut short when it would fill the sentence.

    >>> shown(60), shown(10**30)
    ('60', '1000000000000000000000…')
    """
    text = repr(value)
    return text if len(text) <= longest else text[: longest - 2] + "…"
