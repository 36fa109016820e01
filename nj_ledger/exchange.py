"""The JSON game document: how a whole game travels between the CLI, the API and ``examples/``.

A document names the players, the rules and the starting chips, and lists the
table actions a scorer recorded, in order. Importing one re-executes those
actions through the engine, so an imported game is validated anew; an export
also carries the stored records (``events``), which an import ignores::

    >>> doc = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"],
    ...        "rules": "classic", "starting_chips": 60, "actions": [{"type": "deal"}]}
    >>> events, state = load_game(doc)
    >>> [event.type for event in events[:3]], state.status
    (['game_started', 'deal', 'transfer'], 'playing')

Everything here takes and returns plain Python values: reading and writing
files is the caller's business.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from .bounds import MAX_DOCUMENT_EVENTS
from .decide import execute, new_game
from .errors import InvalidInput, LedgerError
from .events import Event, event_from_dict
from .reducer import replay
from .state import GameState

FORMAT = "nj-ledger/game"
VERSION = 1
META_FIELDS: dict[str, int] = {"title": 200, "date": 10, "table": 200, "notes": 20_000}  # longest allowed
GAME_FIELDS = ("players", "rules", "starting_chips", "dealer", "actions", "events")
DOCUMENT_FIELDS = ("format", "version", *META_FIELDS, *GAME_FIELDS)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

# Which document field a refusal of ``new_game`` is about.
_FIELD_OF_CODE = {
    "invalid-players": "players",
    "invalid-rules": "rules",
    "invalid-chips": "starting_chips",
    "starting-chips-too-low": "starting_chips",
}


def _invalid(field: str, sentence: str, **params: Any) -> InvalidInput:
    """``sentence`` is a template like every refusal's; the field's name is put before it."""
    return InvalidInput("invalid-document", "{field}: " + sentence, field=field, **params)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def document_meta(doc: Mapping[str, Any]) -> dict[str, str]:
    """The optional ``title``, ``date``, ``table`` and ``notes`` of a document, checked.

    >>> document_meta({"title": "Dimanche", "date": "2026-03-01"})
    {'title': 'Dimanche', 'date': '2026-03-01'}
    """
    meta: dict[str, str] = {}
    for name, longest in META_FIELDS.items():
        value = doc.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise _invalid(name, "must be a text, not {value!r}.", value=value)
        if len(value) > longest:
            raise _invalid(name, "is {length} characters long; at most {longest} are kept.",
                           length=len(value), longest=longest)
        if name == "date":
            try:
                if not _DATE.fullmatch(value):
                    raise ValueError(value)
                date.fromisoformat(value)
            except ValueError:
                raise _invalid(
                    name, "must be a day written YYYY-MM-DD, like 2026-03-01, not {value!r}.", value=value
                ) from None
        meta[name] = value
    return meta


def read_game_document(doc: Any) -> tuple[Event, list[dict[str, Any]]]:
    """Check a game document; return its ``game_started`` event and its table actions.

    Only the document's shape is checked here (each action is an object with a
    ``type``); the actions themselves are judged when they are executed. Every
    problem raises :class:`InvalidInput` with code ``invalid-document`` and the
    offending field in ``params["field"]``.

    >>> started, actions = read_game_document({
    ...     "format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"],
    ...     "rules": "cards", "starting_chips": 60, "dealer": 0, "actions": []})
    >>> started.data["rules"]["payment"], started.data["dealer"], actions
    ('cards', 0, [])
    """
    if not isinstance(doc, Mapping):
        raise InvalidInput("invalid-document", "A game document is a JSON object.", field=None)
    unknown = sorted(str(name) for name in doc if name not in DOCUMENT_FIELDS)
    if unknown:
        raise _invalid(
            unknown[0], "is not a field of a game document; the fields are: {fields}.",
            fields=", ".join(DOCUMENT_FIELDS),
        )
    if doc.get("format") != FORMAT:
        raise _invalid("format", "must be {expected!r}, not {value!r}.", expected=FORMAT, value=doc.get("format"))
    version = doc.get("version")
    if not _is_int(version) or version != VERSION:
        raise _invalid("version", "this ledger reads version {expected} of the format, not {value!r}.",
                       expected=VERSION, value=version)
    document_meta(doc)
    for name in ("players", "rules", "starting_chips", "actions"):
        if name not in doc:
            raise _invalid(name, "is missing.")
    players = doc["players"]
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise _invalid("players", "must be a list of names in seat order, like [\"Ana\", \"Ben\"].")
    rules = doc["rules"]
    if not isinstance(rules, (str, Mapping)):
        raise _invalid("rules", "must be a profile name or an object {{\"profile\": …, overrides…}}.")
    chips = doc["starting_chips"]
    if not _is_int(chips):
        raise _invalid("starting_chips", "must be a whole number of chips, not {value!r}.", value=chips)
    dealer = doc.get("dealer")
    if dealer is not None and (not _is_int(dealer) or not 0 <= dealer < len(players)):
        raise _invalid("dealer", "must be a seat between 0 and {last}, not {value!r}.",
                       last=len(players) - 1, value=dealer)
    actions = doc["actions"]
    if not isinstance(actions, list):
        raise _invalid("actions", "must be a list of table actions.")
    for index, action in enumerate(actions):  # dict first: the Mapping ABC's check costs twenty times as much
        if not isinstance(action, (dict, Mapping)) or not isinstance(action.get("type"), str):
            raise _invalid(
                f"actions[{index}]", "must be an object with a \"type\", like {{\"type\": \"deal\"}}.",
                index=index,
            )
    if "events" in doc and not isinstance(doc["events"], list):
        raise _invalid("events", "must be a list of stored events (it is ignored on import).")
    try:
        started = new_game(players, rules, chips, dealer)
    except LedgerError as refusal:
        # the refusal's own field when it names one inside the document ("rules.stake_unit"), else its code's
        field = refusal.params.get("field") or _FIELD_OF_CODE.get(refusal.code, "players")
        params = {name: value for name, value in refusal.params.items() if name != "field"}
        raise _invalid(field, refusal.template, cause=refusal.code, **params) from None
    return started, [dict(action) for action in actions]


def load_game(doc: Any) -> tuple[list[Event], GameState]:
    """Execute a document's actions, all or nothing: every event of the game and its final state.

    A malformed document raises ``invalid-document``; an action the engine
    refuses raises that refusal (a :class:`LedgerError`) with the action's
    position in ``params["index"]``.
    """
    started, actions = read_game_document(doc)
    state, events = execute(replay([started]), actions, MAX_DOCUMENT_EVENTS)  # a game brought whole
    return [started, *events], state


def write_game_document(
    records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The document of a stored game, from its records (``{seq, deal, type, data, v, recorded_at, hash}``).

    ``actions`` are the table actions of the log in order (inferred passes are
    derived, so they are not actions); ``events`` are the records as given.
    ``meta`` may hold ``title``, ``date``, ``table`` and ``notes``.

    >>> started = new_game(["Ana", "Ben", "Chloé"], "classic", starting_chips=60)
    >>> record = {"seq": 1, "recorded_at": "2026-03-01T15:00:00Z", "hash": "…", **started.to_dict()}
    >>> doc = write_game_document([record], {"title": "Dimanche"})
    >>> doc["title"], doc["players"], doc["actions"]
    ('Dimanche', ['Ana', 'Ben', 'Chloé'], [])
    """
    meta = dict(meta or {})
    unknown = sorted(str(name) for name in meta if name not in META_FIELDS)
    if unknown:
        raise _invalid(unknown[0], "is not a document detail; they are: {fields}.", fields=", ".join(META_FIELDS))
    if not records:
        raise _invalid("events", "a game's log has at least its game_started event.")
    events = [event_from_dict(record) for record in records]
    if events[0].type != "game_started" or any(event.type == "game_started" for event in events[1:]):
        raise _invalid("events", "a game's log starts with its only game_started event.")
    started = events[0].data
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    doc.update(document_meta(meta))
    doc.update({
        "players": list(started["players"]),
        "rules": started["rules"],
        "starting_chips": started["starting_chips"],
        "dealer": started.get("dealer", len(started["players"]) - 1),
        "actions": [{"type": event.type, **event.data} for event in events if event.is_table_action],
        "events": [dict(record) for record in records],
    })
    return doc
