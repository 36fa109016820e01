"""Members' erasures as records: what an erasure's hash is taken over, the chain of a club's erasures and their
signatures, and the redactions they vouch for, by log (:mod:`nj_ledger.store.erasures` records them; an archive
carries them, :mod:`nj_ledger.archive`). Pure: no I/O.

An erasure is ``{club, number, member, pseudonym, reason, by, recorded_at, redactions, hash, receipt}``: its
``redactions`` list each record it redacted as ``[log, log_id, seq, previous, hash, redacted]``; its ``hash``
chains it after the club's erasure before it (the link every log shares, over the canonical JSON of every field
but ``hash`` and ``receipt``); its ``receipt`` is the server's signature of that hash.

    >>> first = {"club": "c1", "number": 1, "member": 7, "pseudonym": "Joueur 1", "reason": "asked", "by": {},
    ...          "recorded_at": "2026-11-28T20:00:00.000000Z", "redactions": [["game", "g1", 1, "a", "b", "c"]]}
    >>> first["hash"] = erasure_hash(GENESIS, first)
    >>> redactions_by_log([first])[("game", "g1")][1]
    {'previous': 'a', 'hash': 'b', 'redacted': 'c', 'erasure': 1}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .chain import GENESIS, canonical_bytes, link
from .receipts import verify

UNHASHED = ("hash", "receipt")  # what an erasure's hash does not cover: itself, and its signature
PSEUDONYM = "Joueur {number}"  # the club's language: a French club's members read it on every page
_PSEUDONYM_KEY = re.compile(r"joueur \d+")


def pseudonym(number: int) -> str:
    """The pseudonym of a club's erasure ``number`` (or the next free number, where a member is called so).

    >>> pseudonym(3), could_be_pseudonym("joueur 3"), could_be_pseudonym("joueuse 3")
    ('Joueur 3', True, False)
    """
    return PSEUDONYM.format(number=number)


def could_be_pseudonym(key: str) -> bool:
    """Whether a member's name key (:func:`nj_ledger.names.name_key`) has the form of a pseudonym."""
    return _PSEUDONYM_KEY.fullmatch(key) is not None


def erasure_hash(previous: str, erasure: Mapping[str, Any]) -> str:
    """The hash of ``erasure`` chained after ``previous`` (the club's erasure before it, or GENESIS)."""
    return link(previous, canonical_bytes({name: value for name, value in erasure.items() if name not in UNHASHED}))


def first_bad_erasure(erasures: Sequence[Mapping[str, Any]], club: str,
                      keys: Mapping[str, bytes]) -> int | None:
    """The number (its place, from 1) of the first of a club's erasures whose place, hash, link or signature (by
    one of ``keys``) fails; None when they all hold."""
    previous = GENESIS
    for position, erasure in enumerate(erasures, 1):
        receipt = erasure.get("receipt")
        if (erasure.get("number") != position or erasure.get("club") != club
                or erasure_hash(previous, erasure) != erasure.get("hash") or not isinstance(receipt, Mapping)
                or receipt.get("erasure") != club or receipt.get("version") != position
                or receipt.get("head") != erasure.get("hash") or not verify(receipt, keys)):
            return position
        previous = str(erasure["hash"])
    return None


def redactions_by_log(erasures: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], dict[int, dict[str, Any]]]:
    """The records the erasures redacted, by log (``(kind, id)``) then seq, as the chain's checks take them; a
    record redacted twice (it named two erased members) by the later erasure."""
    found: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    for erasure in erasures:
        for log, log_id, seq, previous, hash_, redacted in erasure["redactions"]:
            found.setdefault((log, log_id), {})[seq] = {"previous": previous, "hash": hash_, "redacted": redacted,
                                                        "erasure": erasure["number"]}
    return found


__all__ = ["UNHASHED", "erasure_hash", "first_bad_erasure", "redactions_by_log"]
