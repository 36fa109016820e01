"""Exchange: a game out, as a game document or its NJN record, and in, from a document, a JSON file read as it
is imported, or an NJN record; an imported game's actions are executed anew, all or nothing (SPEC §8)."""

from __future__ import annotations

from typing import IO, Any

from ..notation import parse_njn, write_njn
from ..store import Appended, Store
from ..store.documents import export_document, import_document
from ..store.streaming import Imported, import_file


def exported(store: Store, club: str, game: str) -> dict[str, Any]:
    """The game ``game`` of ``club`` as a game document: its table actions in order and its stored records."""
    return export_document(store.games, club, game)


def njn_record(store: Store, club: str, document: dict[str, Any]) -> str:
    """The canonical NJN record of an exported game, naming its club."""
    return write_njn(document, {"club": store.clubs.club(club).name})


def imported(store: Store, club: str, document: dict[str, Any]) -> Appended:
    """A new game of ``club`` from a game document."""
    return import_document(store.games, club, document)


def imported_njn(store: Store, club: str, text: str) -> Appended:
    """A new game of ``club`` from an NJN record (its errors refused with their places)."""
    return import_document(store.games, club, parse_njn(text))


def imported_file(store: Store, club: str, file: IO[bytes]) -> Imported:
    """A new game of ``club`` from a JSON game document read from ``file`` as it is imported, so that a game of
    any length fits in memory."""
    return import_file(store.games, club, file)
