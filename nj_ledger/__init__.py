"""Nain Jaune Ledger: the pure game core.

Cards, rule profiles, events and the reducer that rebuilds any state from a
game's log. Nothing in this package (outside ``nj_ledger.store``) imports Flask
or SQLAlchemy or does any I/O.

    >>> from nj_ledger import new_game, execute, replay
    >>> log = [new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)]
    >>> state, events = execute(replay(log), [{"type": "deal"}])
    >>> log += events
    >>> replay(log).status
    'playing'
"""

from .cards import DECK, Card, parse_card, parse_cards
from .decide import decide, execute, new_game
from .errors import InvalidInput, LedgerError, RuleViolation
from .events import Event, event_from_dict
from .reducer import apply, fold, replay
from .rules import PROFILES, Rules, resolve_rules
from .state import DealState, GameState

__all__ = [
    "DECK",
    "PROFILES",
    "Card",
    "DealState",
    "Event",
    "GameState",
    "InvalidInput",
    "LedgerError",
    "RuleViolation",
    "Rules",
    "apply",
    "decide",
    "event_from_dict",
    "execute",
    "fold",
    "new_game",
    "parse_card",
    "parse_cards",
    "replay",
    "resolve_rules",
]
