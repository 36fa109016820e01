"""The named rule profiles: each a set of overrides of ``classic`` (see :mod:`nj_ledger.rules`).

The ``avantcoureur-1760`` profile
---------------------------------

A reconstruction of the original rules published in *L'Avantcoureur* in 1760
(seed 002, SPEC §3.4). The source is short and leaves several points open;
the profile reads it this way (docs/RULES.md gives the reasons):

* 3 or 5 players, 15 or 9 cards, a talon of 7. Play is anticlockwise at the
  table, but seats are numbered in play order, so this is only a label; the
  deal passes to the next seat in play order (``dealer_rotation: next``).
* Runs follow suit (``sequence: suit``). A player may not stop, nor pass,
  while holding the card that continues the run (``may_stop: false``): the
  source lets a player pass only "if unable". The chief hoc 7D is the one
  exception.
* Hocs end the run and their player starts a new one in the same turn: the
  four Kings, the permanent hocs 10D, JC, QS (``stops``) and the chief hoc 7D
  (``wild``). A hoc ends the run wherever it is laid, even as the first card
  of a run (7D after 6D ends the run too: 8D cannot follow it).
* The chief hoc 7D may be laid at any point of its holder's turn, whatever the
  run wants -- also instead of a card the holder would otherwise have to play
  -- and never has to be played. It does not stand for the missing card.
* A run nobody can continue (the card is in the talon, was played, or is the
  7D its holder keeps) is restarted by the player of its last card
  (``blocked: restart``, ``restarter: last_player``). This "incidental hoc"
  earns no chip: only Kings and honours do.
* A hoc played *and announced* earns ``hoc_reward`` (1) x ``stake_unit`` chips
  from each other player (transfer reason ``hoc``). The five honours are all
  hocs, so one announcement of 10D, JC, QS, KH or 7D both takes its box and
  earns the hoc chips; a forgotten one earns neither. A player who cannot pay
  a hoc chip in full pays what he has; the transfer records ``owed`` and the
  shortfall ends the game after the deal (``shortfall: end``).
* The dealer alone antes 1, 2, 3, 4, 5 (x ``stake_unit``); boxes carry over.
* Settlement: card points as classic; a loser still holding 7D pays his card
  payment double (``wild_pays_double``) *and* is bête on the 7D box; an honour
  held is bête (``bete: double``, the box as it stood when the winner went
  out). Opera (``grand_opera: no_other_plays``, nobody else laid a card)
  doubles the card payments only (not hoc chips, not bêtes); with 7D held
  both doublings apply (x4).
* A game is 12 deals for 3 players, 10 for 5 (``max_deals``), so everyone
  deals -- and antes -- equally often; it ends sooner on a shortfall, when the
  next dealer cannot ante, or by agreement.
"""

from __future__ import annotations

from typing import Any

PROFILES: dict[str, dict[str, Any]] = {
    # Modern rules of 1789 (seeds 002, 003, 001).
    "classic": {},
    # Seed 000's main text: one chip per card left.
    "cards": {"payment": "cards"},
    # Seed 001's "moves on to the next card".
    "skip": {"blocked": "skip", "may_stop": False},
    # Seed 004.
    "hearts": {
        "board": {"10D": 1, "JC": 2, "QH": 3, "KS": 4, "7D": 5},
        "opening": "lowest",
        "may_stop": False,
        "restarter": "first_passer",
        "payment": "cards",
        "bete": "none",
        "grand_opera": {"condition": "first_turn", "reward": "none"},
    },
    # Seed 002's original rules, first published in L'Avantcoureur (1760): a reconstruction whose
    # choices are listed in this module's docstring and argued in docs/RULES.md.
    "avantcoureur-1760": {
        "players": [3, 5],
        "deal_table": {"3": [15, 7], "5": [9, 7]},
        "sequence": "suit",
        "may_stop": False,
        "ante": "dealer",
        "stops": ["10D", "JC", "QS"],
        "wild": "7D",
        "hoc_reward": 1,
        "wild_pays_double": True,
        "bete": "double",
        "grand_opera": {"condition": "no_other_plays", "reward": "double"},
        "max_deals": {"3": 12, "5": 10},
    },
}

# The chips each player starts with unless the table says otherwise (the new-game page's default): enough that
# the median simulated game with the profile's options lasts at least 8 deals with 3, 4 or 5 players (3 or 5
# for the 1760 rules). ``python -m nj_ledger.simulator`` measures it (400 seeded games per player count); the
# figures are in docs/RULES.md and tests/core/test_game_lengths.py holds them.
STARTING_CHIPS: dict[str, int] = {
    "classic": 270,
    "cards": 180,
    "skip": 180,
    "hearts": 120,
    "avantcoureur-1760": 240,
}


def default_starting_chips(profile: str) -> int:
    """The starting chips a profile suggests (the classic's for a profile this ledger does not name).

    >>> default_starting_chips("hearts"), default_starting_chips("whist")
    (120, 270)
    """
    return STARTING_CHIPS.get(profile, STARTING_CHIPS["classic"])


__all__ = ["PROFILES", "STARTING_CHIPS", "default_starting_chips"]
