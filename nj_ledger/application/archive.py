"""A club's archive: everything the club holds, in one file signed by the server, that anyone checks offline
(:mod:`nj_ledger.archive`).

The club's parts are read one after another, not in one snapshot: each log goes in whole with the receipt of
the head it was read at (a game's records and the receipt at its last one, an evening's decisions up to its
receipt's), so a log and its receipt never part; a game or a round begun while the archive is made may be in it
or in the next one."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ..archive import FORMAT, VERSION, ArchiveRefused, ArchiveReport, archive_digest, verify_archive
from ..notation import write_njn
from ..store import ImportedClub, Store, iso, utcnow
from ..store.documents import export_document
from ..store.projections.seasons import seasons
from .clubs import MEMBERS_PAGE

GAMES_PAGE = 200  # games listed at once
ENTRIES_PAGE = 500  # an evening's decisions read at once


def club_archive(store: Store, club: str) -> dict[str, Any]:
    """The archive of ``club`` (NotFound for none): the club, its members (but those erased), its erasures,
    seasons, games, evenings and the public keys, its digest and the server's signature of it."""
    info = store.clubs.club(club)
    erasures = store.erasures.records(club)
    erased = {erasure["member"] for erasure in erasures}
    archive: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "club": {"id": info.id, "name": info.name, "created_at": iso(info.created_at)},
        "made_at": iso(utcnow()),
        "members": [member for member in _members(store, club) if member["id"] not in erased],
        "erasures": erasures,
        "seasons": [{"name": s.name, "starts_on": s.starts_on.isoformat(), "ends_on": s.ends_on.isoformat(),
                     "qualifying_evenings": s.qualifying_evenings, "best_evenings": s.best_evenings}
                    for s in seasons(store.db, club)],
        "games": [_game(store, club, info.name, game) for game in _each_once(
            lambda offset: store.games.list_games(club, limit=GAMES_PAGE, offset=offset))],
        "evenings": [_evening(store, club, evening) for evening in _each_once(
            lambda offset: store.evenings.list_evenings(club, limit=GAMES_PAGE, offset=offset))],
        "keys": [key.view() for key in store.keys.signing_keys()],
    }
    archive["digest"] = digest = archive_digest(archive)
    archive["receipt"] = store.keys.signer().sign_archive(club, VERSION, digest, iso(utcnow()))
    return archive


def _members(store: Store, club: str) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        found = store.clubs.players(club, MEMBERS_PAGE, offset)
        yield from ({"id": p.id, "name": p.name, "created_at": iso(p.created_at)} for p in found)
        if len(found) < MEMBERS_PAGE:
            return
        offset += MEMBERS_PAGE


class _Listed(Protocol):
    @property
    def id(self) -> str: ...


def _each_once(page: Callable[[int], Sequence[_Listed]]) -> Iterator[str]:
    """The ids of a list read a page at a time (``page(offset)``), newest first as the club lists them, each once
    (a game or an evening made meanwhile shifts the pages)."""
    offset = 0
    seen: set[str] = set()
    while True:
        found = page(offset)
        yield from (item.id for item in found if item.id not in seen)
        seen.update(item.id for item in found)
        if len(found) < GAMES_PAGE:
            return
        offset += GAMES_PAGE


def _game(store: Store, club: str, club_name: str, game: str) -> dict[str, Any]:
    document = export_document(store.games, club, game)
    records = document["events"]
    receipt = store.games.receipt(club, game, records[-1]["seq"]) if records else None
    return {"id": game, "document": document, "njn": write_njn(document, {"club": club_name}), "receipt": receipt}


def _evening(store: Store, club: str, evening: str) -> dict[str, Any]:
    info, receipt = store.evenings.evening_receipt(club, evening)
    upto = receipt["version"] if receipt is not None else None
    entries: list[dict[str, Any]] = []
    while True:
        found = store.evenings.evening_entries(club, evening, entries[-1]["seq"] if entries else 0, ENTRIES_PAGE)
        entries += [entry for entry in found if upto is None or entry["seq"] <= upto]
        if len(found) < ENTRIES_PAGE or (upto is not None and entries and entries[-1]["seq"] >= upto):
            break
    summary = {"name": info.name, "played_on": info.played_on.isoformat(), "status": info.status,
               "created_at": iso(info.created_at)}
    return {"id": evening, "evening": summary, "entries": entries, "receipt": receipt}


def import_club(store: Store, archive: Any, trusted: Mapping[str, bytes] | None = None,
                ) -> tuple[ImportedClub, ArchiveReport]:
    """The club of ``archive`` brought into this server, all or nothing (:mod:`nj_ledger.store.imports`), once
    :func:`nj_ledger.archive.verify_archive` finds nothing wrong with it (believing the keys ``trusted``, else its
    own): :class:`~nj_ledger.archive.ArchiveRefused` otherwise, and nothing is stored."""
    report = verify_archive(archive, trusted)
    if not report.ok:
        raise ArchiveRefused(report)
    return store.imports.import_club(archive), report
