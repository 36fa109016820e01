"""A club's archive: one file with everything a club holds, that anyone can check with no server.

The file (JSON, :data:`FORMAT` version :data:`VERSION`) holds the club, its members (but those erased), the
members' erasures (:mod:`nj_ledger.erasures`: what each one redacted, chained and signed), its seasons, every game
(its game document with every stored record and its hash, its NJN record, the signed receipt of its head),
every evening (its summary, its log of decisions with their hashes, the receipt of its head), and the public
keys that signed. Its ``digest`` is the SHA-256 of the canonical JSON of everything else, and its ``receipt``
signs that digest with the server's key (:meth:`~nj_ledger.receipts.Signer.sign_archive`): the server vouches
for the members and the seasons as much as for the logs.

:func:`verify_archive` checks a file offline, in this order, and names the first thing wrong: the file's shape,
the keys (each id is its key's), the archive's signature (by a key trusted: the archive's own, or those the
checker holds), the erasures (their chain and signatures), each game (its chain, through what the erasures
vouch for where they redacted a record, its receipt, its audit: conservation of chips and the re-computation of
every state from the actions), each evening (its chain and its receipt), then the digest, which covers what no
chain does (the members' names, the seasons, the NJN records). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .audit import audit
from .chain import Redactions, canonical_bytes, verify_chain
from .erasures import first_bad_erasure, redactions_by_log
from .evenings.entries import first_bad_entry
from .messages import Message
from .receipts import ALGORITHM, from_b64url, key_id, verify

FORMAT = "nj-ledger/club-archive"
VERSION = 1
UNSIGNED = ("digest", "receipt")  # what the digest does not cover: itself, and its signature
MOST_PROBLEMS = 100  # problems listed at most (the first one is what matters)


def archive_digest(archive: Mapping[str, Any]) -> str:
    """The SHA-256 of the canonical JSON of the archive without its digest and its receipt."""
    return hashlib.sha256(canonical_bytes({k: v for k, v in archive.items() if k not in UNSIGNED})).hexdigest()


def public_keys(keys: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
    """The raw public keys of a key list (as ``GET /api/v1/keys`` writes it), by id."""
    return {key["id"]: from_b64url(key["public_key"]) for key in keys}


@dataclass
class ArchiveReport:
    """What :func:`verify_archive` found: ``ok`` when nothing is wrong; ``problems`` in the order found (the
    first is the first thing wrong); how many games, events and evenings were checked; the keys believed."""

    problems: list[Message] = field(default_factory=list)
    games: int = 0
    events: int = 0
    evenings: int = 0
    keys: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class ArchiveRefused(Exception):
    """An archive brought to a server with something wrong (its ``report`` names it): nothing of it is stored."""

    def __init__(self, report: ArchiveReport) -> None:
        super().__init__(report.problems[0].code if report.problems else "refused")
        self.report = report


def _problem(code: str, template: str, /, **params: Any) -> Message:
    return Message(code, template, params)


def verify_archive(archive: Any, trusted: Mapping[str, bytes] | None = None) -> ArchiveReport:
    """Check a club's archive (JSON already read) with no server; ``trusted``: the public keys the checker holds
    (by id), else the archive's own keys are believed (the report lists them, to be compared with the server's)."""
    report = ArchiveReport()
    try:
        for problem in _problems(archive, trusted, report):
            report.problems.append(problem)
            if len(report.problems) >= MOST_PROBLEMS:
                break
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError):  # a part of a kind no check expects
        report.problems.append(_problem("archive-unreadable", "A part of the archive cannot be read (text that is "
                                        "not Unicode, a value of the wrong kind): it was altered."))
    return report


def _problems(archive: Any, trusted: Mapping[str, bytes] | None, report: ArchiveReport) -> Iterator[Message]:
    if not isinstance(archive, Mapping) or archive.get("format") != FORMAT:
        yield _problem("not-an-archive", "This file is not a club's archive (its format is not {format}).",
                       format=FORMAT)
        return
    if archive.get("version") != VERSION:
        yield _problem("archive-version", "This archive is of version {version}; this ledger reads version "
                       "{known}.", version=str(archive.get("version")), known=VERSION)
        return
    shape = _shape(archive)
    if shape is not None:
        yield shape
        return
    keys = yield from _keys(archive["keys"], trusted)
    report.keys = sorted(keys)
    receipt = archive["receipt"]
    if not verify(receipt, keys) or receipt.get("archive") != archive["club"]["id"]:
        yield _problem("archive-unsigned", "The archive is not signed by a key believed (its receipt names key "
                       "{key}): it was not made by this club's server, or was signed again since.",
                       key=str(receipt.get("key") if isinstance(receipt, Mapping) else None))
    erasures = archive.get("erasures", [])  # an archive made before erasures has none
    bad = first_bad_erasure(erasures, archive["club"]["id"], keys)
    if bad is not None:
        yield _problem("erasure-invalid", "Erasure {number} is not the one its chain and signature hold: the "
                       "erasures were altered.", number=bad)
        return
    redacted = redactions_by_log(erasures)
    for game in archive["games"]:
        report.games += 1
        report.events += len(game["document"]["events"])
        yield from _game(game, keys, redacted.get(("game", game["id"]), {}))
    for evening in archive["evenings"]:
        report.evenings += 1
        yield from _evening(evening, keys, redacted.get(("evening", evening["id"]), {}))
    digest = archive_digest(archive)
    if digest != archive["digest"] or (isinstance(receipt, Mapping) and receipt.get("head") != digest):
        yield _problem("digest-differs", "The archive was changed after it was made: its content no longer has "
                       "the digest it was signed with (the members, the seasons, a record or a summary).")


def _incomplete(part: str) -> Message:
    return _problem("archive-incomplete", "The archive has no {part}: it was cut short or altered.", part=part)


def _shape(archive: Mapping[str, Any]) -> Message | None:
    """The first part of the file missing or of the wrong kind (a file cut short and mended, an old tool)."""
    wanted = {"club": Mapping, "members": list, "seasons": list, "games": list, "evenings": list, "keys": list,
              "digest": str, "receipt": Mapping}
    for name, kind in wanted.items():
        if not isinstance(archive.get(name), kind):
            return _incomplete(name)
    if not isinstance(archive.get("erasures", []), list) or not all(
            isinstance(e, Mapping) and isinstance(e.get("redactions"), list) for e in archive.get("erasures", [])):
        return _incomplete("erasures")
    club = archive["club"]
    if not isinstance(club.get("id"), str) or not isinstance(club.get("name"), str):
        return _incomplete("club")
    for game in archive["games"]:
        document = game.get("document") if isinstance(game, Mapping) else None
        if not isinstance(game, Mapping) or not isinstance(game.get("id"), str) or not isinstance(
                document, Mapping) or not isinstance(document.get("events"), list):
            return _incomplete("game")
    for evening in archive["evenings"]:
        if not isinstance(evening, Mapping) or not isinstance(evening.get("id"), str) or not isinstance(
                evening.get("entries"), list):
            return _incomplete("evening")
    return None


def _keys(listed: list[Any], trusted: Mapping[str, bytes] | None) -> Generator[Message, None, dict[str, bytes]]:
    """The keys to believe: the archive's own (each id its key's), or only those among ``trusted``."""
    keys: dict[str, bytes] = {}
    for key in listed:
        try:
            raw = from_b64url(key["public_key"])
            sound = key["algorithm"] == ALGORITHM and len(raw) == 32 and key_id(raw) == key["id"]
        except (KeyError, TypeError, ValueError):
            sound = False
        if not sound:
            yield _problem("key-altered", "A public key of the archive is not the key its id names: the key list "
                           "was altered.")
            continue
        if trusted is None or trusted.get(key["id"]) == raw:
            keys[key["id"]] = raw
    return keys


def _game(game: Mapping[str, Any], keys: Mapping[str, bytes], redacted: Redactions) -> Iterator[Message]:
    name = game["id"]
    records = game["document"]["events"]
    chain = verify_chain(records, redacted)
    if not chain["ok"]:
        yield _problem("chain-broken", "Game {game}: event {seq} is not the one its chain holds (changed, "
                       "removed or moved).", game=name, seq=chain["first_bad_seq"])
        return
    receipt: Any = game.get("receipt")
    fault = _receipt_fault(receipt, "game", name, records, keys)
    if fault == "receipt-invalid":
        yield _problem(fault, "Game {game}: its receipt is not signed by a key believed.", game=name)
    elif fault == "receipt-differs":
        yield _problem(fault, "Game {game}: its log is not the one its receipt signed (version {version}).",
                       game=name, version=receipt["version"])
    try:
        audited = audit(records, version=len(records), head_hash=records[-1]["hash"] if records else None,
                        redacted=redacted)
    except (KeyError, TypeError, ValueError):
        audited = {"ok": False, "findings": []}
    if not audited["ok"]:
        first = next((f for f in audited["findings"] if f.severity == "error"), None)
        yield _problem("audit-failed", "Game {game} does not audit clean: {code} at event {seq}.", game=name,
                       code=first.code if first else "unreadable", seq=first.seq if first else None)


def _evening(evening: Mapping[str, Any], keys: Mapping[str, bytes], redacted: Redactions) -> Iterator[Message]:
    name = evening["id"]
    entries = evening["entries"]
    try:
        bad = first_bad_entry(entries, redacted)
    except (KeyError, TypeError, ValueError):
        bad = 1
    if bad is not None:
        yield _problem("chain-broken", "Evening {evening}: decision {seq} is not the one its chain holds "
                       "(changed, removed or moved).", evening=name, seq=bad)
        return
    receipt: Any = evening.get("receipt")
    fault = _receipt_fault(receipt, "evening", name, entries, keys)
    if fault == "receipt-invalid":
        yield _problem(fault, "Evening {evening}: its receipt is not signed by a key believed.", evening=name)
    elif fault == "receipt-differs":
        yield _problem(fault, "Evening {evening}: its log is not the one its receipt signed (version {version}).",
                       evening=name, version=receipt["version"])


def _receipt_fault(receipt: Any, kind: str, name: str, log: Sequence[Mapping[str, Any]],
                   keys: Mapping[str, bytes]) -> str | None:
    """What is wrong with the receipt of a log (its ``kind``: ``game`` or ``evening``) whose rows chain soundly:
    not signed by a key believed, or of another log (``receipt-invalid``), or not of its head
    (``receipt-differs``); None when it holds, or there is none (a head older than signing)."""
    if receipt is None:
        return None
    if not verify(receipt, keys) or receipt.get(kind) != name:
        return "receipt-invalid"
    last = log[-1] if log else {}
    if receipt["version"] != last.get("seq") or receipt["head"] != last.get("hash"):
        return "receipt-differs"
    return None


__all__ = ["FORMAT", "VERSION", "ArchiveRefused", "ArchiveReport", "archive_digest", "public_keys", "verify_archive"]
