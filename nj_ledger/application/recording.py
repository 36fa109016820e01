"""Recording: a game started, and table actions recorded on it, all or nothing.

A batch may name the version it was decided on (a stale one is refused) and carry an idempotency key: a retry
of the same batch with the same key gets the first answer again and records nothing, a refusal included. How
an answer is written is the caller's (``respond``, ``refused``): the store keeps it as written."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from ..chain import canonical_json
from ..decide import new_game
from ..errors import LedgerError
from ..scorer import taps
from ..store import Appended, IdempotentRequest, Store, StoredResponse
from ..store.games import Respond
from .games import current_game

Refused = Callable[[LedgerError], tuple[int, dict[str, Any]]]


def start_game(store: Store, club: str, players: Sequence[str], rules: Any, starting_chips: int,
               dealer: int | None = None, *, title: str | None = None, played_on: date | None = None) -> Appended:
    """A new game of ``club``: players in seat order (new names become members), rules, starting chips and the
    first dealer (the last seat when None); a title (blank: none) and the day it is played (today when None).
    The core refuses what is not a game (too few players, chips out of range…)."""
    started = new_game(list(players), rules, starting_chips, dealer)
    meta: dict[str, str] = {}
    if (title or "").strip():
        meta["title"] = (title or "").strip()
    if played_on is not None:
        meta["date"] = played_on.isoformat()
    return store.games.create_game(club, started, meta=meta)


def idempotent_request(key: str | None, game: str, payload: Mapping[str, Any]) -> IdempotentRequest | None:
    """The idempotency of a batch sent with ``key`` (None without one): the key, with the fingerprint of the game
    and the body it was sent with, which a retry must match."""
    if key is None:
        return None
    fingerprint = hashlib.sha256(canonical_json({"game": game, "body": payload}).encode()).hexdigest()
    return IdempotentRequest(key, fingerprint)


def record_actions(store: Store, club: str, game: str, actions: Sequence[Mapping[str, Any]], *,
                   expected_version: int | None = None, idempotency: IdempotentRequest | None = None,
                   respond: Respond | None = None, refused: Refused | None = None) -> Appended | StoredResponse:
    """Record a batch of table actions on ``game``, all or nothing: what was appended, or, for a retry of an
    idempotent batch, the answer kept the first time.

    With an idempotency key, ``respond`` writes the answer the store keeps with the append and ``refused`` the
    answer to a refusal of the core, kept before the refusal is raised again so that a retry gets it too.
    """
    try:
        return store.games.append(club, game, actions, expected_version=expected_version, idempotency=idempotency,
                            respond=respond)
    except LedgerError as refusal:
        if idempotency is not None and refused is not None:
            store.games.remember_response(club, idempotency, *refused(refusal))
        raise


def what_may_be_tapped(store: Store, club: str, game: str, tapped: Sequence[object],
                       seat: int | None) -> dict[str, Any]:
    """What the scorer may tap on ``game`` as it stands, the cards ``tapped`` so far, for ``seat`` (None: any):
    the core's own answer (:func:`nj_ledger.scorer.taps`), the one the scorer page asks before each tap."""
    return taps(current_game(store, club, game).state, tapped, seat)
