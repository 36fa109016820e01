"""The peer: the same games kept by the ``eventsourcing`` library (``pip install 'nj-ledger[bench]'``).

A game is one aggregate; each of our events becomes one aggregate event with
the same payload (``type``, ``deal``, ``data``, ``v``), saved with
``Application.save`` and read back with ``repository.get``. The aggregate
folds nothing but a count: the peer is the library's own cost of storing and
loading events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from uuid import UUID

MISSING = ("The benchmark compares the ledger with the eventsourcing library, which is not installed: "
           "pip install 'nj-ledger[bench]'")


class PeerMissing(RuntimeError):
    """The ``eventsourcing`` library is not installed."""


def available() -> bool:
    try:
        import eventsourcing  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    if not available():
        raise PeerMissing(MISSING)


def _classes() -> tuple[type, type]:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate

    class Game(Aggregate):
        def __init__(self, players: list[str], rules: Any, starting_chips: int, dealer: int) -> None:
            self.players = players
            self.rules = rules
            self.starting_chips = starting_chips
            self.dealer = dealer
            self.events = 1

        class Recorded(Aggregate.Event):
            type: str
            deal: int
            data: dict[str, Any]
            v: int

            def apply(self, aggregate: Any) -> None:
                aggregate.events += 1

        def record(self, kind: str, deal: int, data: dict[str, Any], v: int) -> None:
            self.trigger_event(self.Recorded, type=kind, deal=deal, data=data, v=v)

    class Ledger(Application):
        pass

    return Game, Ledger


_CACHE: dict[str, tuple[type, type]] = {}


def classes() -> tuple[type, type]:
    if "classes" not in _CACHE:
        _CACHE["classes"] = _classes()
    return _CACHE["classes"]


def sqlite_app(path: str) -> Any:
    """An application keeping its events in the SQLite file ``path``."""
    require()
    _, Ledger = classes()
    return Ledger(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path})


def postgres_app(host: str, port: int, dbname: str, user: str, password: str, schema: str) -> Any:
    """An application keeping its events in ``schema`` of a PostgreSQL database."""
    require()
    _, Ledger = classes()
    return Ledger(env={
        "PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": dbname, "POSTGRES_HOST": host,
        "POSTGRES_PORT": str(port), "POSTGRES_USER": user, "POSTGRES_PASSWORD": password,
        "POSTGRES_SCHEMA": schema,
    })


def save_game(app: Any, started: Mapping[str, Any], events: Iterable[tuple[str, int, dict[str, Any], int]]) -> UUID:
    """One game as an aggregate: created from ``game_started``, one event per later event, saved at once."""
    Game, _ = classes()
    game = Game(players=started["players"], rules=started["rules"], starting_chips=started["starting_chips"],
                dealer=started["dealer"])
    for kind, deal, data, v in events:
        game.record(kind, deal, data, v)
    app.save(game)
    return game.id
