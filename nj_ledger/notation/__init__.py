"""NJN, the Nain Jaune Notation: a whole game as plain text (SPEC §8), in the spirit of PGN.

Tag pairs name the game and write every rule option out; then come the deals
and the turns, one statement a line, the calls in ``{comments}``::

    [Players "Ana; Ben; Chloé"]
    [StartingChips "60"]
    [Rules "classic"]

    Deal 1 dealer 2
    0: 5H 6H 7C {sans 8}
    1: pass
    2: 8D 9D 10D! {Dix qui prend, sans Valet}

:func:`parse_njn` reads forgivingly (case, suit symbols, ``T`` for 10, comments
anywhere) and reports every problem with its line and column in one
:class:`NotationError`; :func:`write_njn` writes a game one canonical way.
``docs/NJN.md`` has the grammar. Text in, text out: files are the caller's business.

    >>> from nj_ledger.exchange import load_game
    >>> from nj_ledger.simulator import simulate
    >>> game = simulate(seed=1, profile="classic", players=3, deals=2)
    >>> text = write_njn(game.events, {"date": "2026-11-22"})
    >>> text.splitlines()[:2]
    ['[Date "2026.11.22"]', '[Players "Ana; Ben; Chloé"]']
    >>> load_game(parse_njn(text))[0] == game.events
    True
"""

from .reader import parse_njn
from .syntax import NotationError
from .writer import write_njn

__all__ = ["NotationError", "parse_njn", "write_njn"]
