"""The tags of an NJN text, read into the game a document describes: players, chips, dealer, rules, details.

Rule options are tags of their own (``[Payment "cards"]``, ``[Board {...}]``)
laid over the ``[Rules]`` profile, so every resolved rules dict can be written
out and read back exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..bounds import MAX_DIGITS
from ..errors import InvalidInput
from ..exchange import document_meta
from ..rules import PROFILES, check_bounds, resolve_rules
from .problems import MAX_DEPTH, N_, Place
from .syntax import (
    Scanner,
    Tag,
    clip,
    nesting,
    shown,
    unstorable,
)
from .tags import OPTION_TAGS, option_tag, split_players

META_TAGS = {"Title": "title", "Date": "date", "Table": "table", "Notes": "notes"}
_DATE = re.compile(r"(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})")
_UNKNOWN_DATE = re.compile(r"\?{4}[.\-/]\?{2}[.\-/]\?{2}")  # PGN's "????.??.??"
_REFUSED = object()  # a rule option's value with a problem of its own (reported)


@dataclass
class Header:
    """What the tags say, and where each was written (for the engine's refusals)."""

    places: dict[str, Place] = field(default_factory=dict)  # tag name → where its value is
    option_places: dict[str, Place] = field(default_factory=dict)  # rule option → where its tag's value is
    players: list[str] | None = None
    chips: int | None = None
    dealer: int | None = None
    rules: Any = "classic"  # a profile name, or {"profile": …, overrides…}
    meta: dict[str, str] = field(default_factory=dict)  # title, date, table, notes
    club: str | None = None


def is_number(text: str) -> bool:
    """Whether ``text`` is written in the digits 0-9 (``"²"`` is a digit to ``str.isdigit``, not to ``int``)."""
    return text.isascii() and text.isdigit()


TOO_LARGE = N_("{value} is too large a number for a record: it has at most {digits} digits.")


def too_large(value: Any) -> bool:
    """Whether ``value`` is a whole number (or its digits) longer than any a record holds
    (:data:`~nj_ledger.bounds.MAX_DIGITS`). Such a number is refused where it is written, before it is
    read: Python reads no more than 4,300 digits.

    >>> too_large("60"), too_large("9" * 14), too_large(10**13), too_large("Ana")
    (False, True, True, False)
    """
    if isinstance(value, str):
        text = value.strip()
        return len(text) > MAX_DIGITS and is_number(text)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**MAX_DIGITS


def whole_number(value: Any) -> int | None:
    """``60`` or ``"60"`` → 60; anything else (and a number :func:`too_large`) → None."""
    if too_large(value):
        return None
    if isinstance(value, str) and is_number(value.strip()):
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_seat(scanner: Scanner, value: Any, place: Place, players: list[str] | None) -> int | None:
    """A seat written as its number or as its player's name (any case)."""
    if too_large(value):
        scanner.error(place, TOO_LARGE, value=clip(str(value).strip()), digits=MAX_DIGITS)
        return None
    seat = whole_number(value)
    if seat is None and isinstance(value, str) and players is not None:
        folded = [name.casefold() for name in players]
        if value.strip().casefold() in folded:
            return folded.index(value.strip().casefold())
    written = clip(value) if isinstance(value, str) else shown(value)
    if seat is None and players:
        scanner.error(place, "{value!r} is not a seat; the seats are numbered from 0: {seats}.", value=written,
                      seats=", ".join(f"{n} {name}" for n, name in enumerate(players)))
    elif seat is None:
        scanner.error(place, "{value!r} is not a seat; the seats are numbered from 0.", value=written)
    elif players is not None and seat >= len(players):
        scanner.error(place, "There is no seat {seat}: this table has seats 0 to {last}.", seat=seat,
                      last=len(players) - 1)
        return None
    return seat


def read_header(scanner: Scanner) -> Header:
    """The tags of a text (scanned up to its first statement), read into the game they describe."""
    scanner.read_tags()
    header = Header()
    given = dict(scanner.given)  # the tags of the header: one given after the deals comes too late to count
    for name, tag in given.items():
        header.places[name] = tag.value_place
        if name in OPTION_TAGS:
            header.option_places[OPTION_TAGS[name]] = tag.value_place
        elif name in META_TAGS or name == "Club":
            if tag.sound:
                _read_detail(scanner, header, name, tag)
        elif name == "Players":
            names = split_players(tag.value) if isinstance(tag.value, str) else tag.value
            if isinstance(names, list) and names and all(isinstance(n, str) and n for n in names):
                header.players = names
            elif tag.sound:
                scanner.error(tag.value_place, '[Players] names the players in seat order: "Ana; Ben; Chloé".')
        elif name == "StartingChips":
            header.chips = whole_number(tag.value)
            if too_large(tag.value):
                scanner.error(tag.value_place, TOO_LARGE, value=clip(str(tag.value).strip()),
                              digits=MAX_DIGITS)
            elif header.chips is None and tag.sound:
                scanner.error(tag.value_place, "[StartingChips] is a whole number of chips, not {value}.",
                              value=shown(tag.value))
        elif name == "Rules":
            header.rules = tag.value
    if "Dealer" in given and given["Dealer"].sound:
        header.dealer = read_seat(scanner, given["Dealer"].value, given["Dealer"].value_place, header.players)
    for required in ("Players", "StartingChips"):
        if required not in given:
            scanner.error((1, 1), "The [{tag}] tag is missing.", tag=required)
    header.rules = _rules(scanner, header, given)
    return header


def _read_detail(scanner: Scanner, header: Header, name: str, tag: Tag) -> None:
    value = str(tag.value) if whole_number(tag.value) is not None else tag.value  # [Table 4]
    if not isinstance(value, str):
        scanner.error(tag.value_place, "[{tag}] holds a text in quotes.", tag=name)
    elif name == "Club":
        header.club = value
    elif name == "Date" and _UNKNOWN_DATE.fullmatch(value):
        return
    else:
        day = _DATE.fullmatch(value) if name == "Date" else None
        if day:
            value = f"{day[1]}-{int(day[2]):02}-{int(day[3]):02}"
        try:
            header.meta.update(document_meta({META_TAGS[name]: value}))
        except InvalidInput:
            if name == "Date":
                scanner.error(tag.value_place, '[Date] is a day written "YYYY.MM.DD", like "2026.11.22", not {value}.',
                              value=shown(tag.value))
            else:
                scanner.error(tag.value_place, "[{tag}] is too long ({length} characters).", tag=name,
                              length=len(value))


def _rules(scanner: Scanner, header: Header, given: dict[str, Tag]) -> Any:
    """The profile with every option tag laid over it, checked by the engine's own resolver."""
    spec = header.rules
    if not all(tag.sound for name, tag in given.items() if name == "Rules" or name in OPTION_TAGS):
        return spec  # a value with a problem of its own (reported) is not judged
    profile = spec if isinstance(spec, str) else spec.get("profile", "classic") if isinstance(spec, Mapping) else None
    place = header.places.get("Rules", (1, 1))
    if not isinstance(profile, str) or profile not in PROFILES:
        scanner.error(place, "[Rules] names a profile ({profiles}), not {value}.", profiles=", ".join(PROFILES),
                      value=shown(spec))
        return spec
    if header.option_places:
        base = resolve_rules(profile).to_dict()
        spec = dict(spec) if isinstance(spec, Mapping) else {"profile": profile}
        for option, option_place in header.option_places.items():
            value = given[option_tag(option)].value
            if isinstance(value, str) and not isinstance(base.get(option), str):
                value = _unquoted(scanner, option_place, value)
                if value is _REFUSED:
                    return spec
            spec[option] = value
    try:
        check_bounds(resolve_rules(spec))  # a new game's rules: held to today's bounds
    except InvalidInput as refusal:
        option = str(refusal.params.get("option", "")).split(".")[0]
        scanner.error(header.option_places.get(option, place), refusal.template, refusal.code, **refusal.params)
    return spec


def _unquoted(scanner: Scanner, place: Place, text: str) -> Any:
    """An option quoted the PGN way (``[MaxDeals "5"]``): its JSON value, else the text itself.

    :data:`_REFUSED` (the problem reported) when that value nests too deep, or
    holds a NUL or half of a surrogate pair (written ``"\\\\u0000"`` in quotes).
    """
    try:
        value = json.loads(text)
    except ValueError:
        return text
    except RecursionError:  # nested thousands deep
        value, depth = None, MAX_DEPTH + 1
    else:
        depth = nesting(value)
    if depth > MAX_DEPTH:
        scanner.error(place, "This tag's value nests more than {depth} levels deep.", depth=MAX_DEPTH)
        return _REFUSED
    if unstorable(value):
        scanner.error(place, "This tag's value holds a NUL character or half of a surrogate pair, "
                             "which a record may not hold.")
        return _REFUSED
    return value
