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
from difflib import get_close_matches
from typing import Any

from ..errors import InvalidInput
from ..exchange import document_meta
from ..rules import PROFILES, resolve_rules
from .syntax import GAME_TAGS, OPTION_TAGS, TAG_NAMES, Place, Scanner, Tag, option_tag, split_players, tag_key

META_TAGS = {"Title": "title", "Date": "date", "Table": "table", "Notes": "notes"}
_DATE = re.compile(r"(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})")
_UNKNOWN_DATE = re.compile(r"\?{4}[.\-/]\?{2}[.\-/]\?{2}")  # PGN's "????.??.??"


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


def whole_number(value: Any) -> int | None:
    """``60`` or ``"60"`` → 60; anything else → None."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_seat(scanner: Scanner, value: Any, place: Place, players: list[str] | None) -> int | None:
    """A seat written as its number or as its player's name (any case)."""
    seat = whole_number(value)
    if seat is None and isinstance(value, str) and players is not None:
        folded = [name.casefold() for name in players]
        if value.strip().casefold() in folded:
            return folded.index(value.strip().casefold())
    if seat is None:
        names = f": {', '.join(f'{n} {name}' for n, name in enumerate(players))}" if players else ""
        scanner.error(place, f"{value!r} is not a seat; the seats are numbered from 0{names}.")
    elif players is not None and seat >= len(players):
        scanner.error(place, f"There is no seat {seat}: this table has seats 0 to {len(players) - 1}.")
        return None
    return seat


def read_header(scanner: Scanner) -> Header:
    header = Header()
    given: dict[str, Tag] = {}
    for tag in scanner.tags:
        name = TAG_NAMES.get(tag_key(tag.name))
        if name is None:
            near = get_close_matches(tag.name, list(TAG_NAMES.values()), n=1)
            hint = f"Did you mean [{near[0]}]?" if near else f"The tags are {', '.join(GAME_TAGS)} and the rule options."
            scanner.error(tag.place, f"Unknown tag [{tag.name}]. {hint}")
        elif name in given:
            scanner.error(tag.place, f"[{name}] is given twice (first on line {given[name].place[0]}).")
        else:
            given[name] = tag
            header.places[name] = tag.value_place
    for name, tag in given.items():
        if name in OPTION_TAGS:
            header.option_places[OPTION_TAGS[name]] = tag.value_place
        elif name in META_TAGS or name == "Club":
            _read_detail(scanner, header, name, tag)
        elif name == "Players":
            names = split_players(tag.value) if isinstance(tag.value, str) else tag.value
            if isinstance(names, list) and names and all(isinstance(n, str) and n for n in names):
                header.players = names
            else:
                scanner.error(tag.value_place, '[Players] names the players in seat order: "Ana; Ben; Chloé".')
        elif name == "StartingChips":
            header.chips = whole_number(tag.value)
            if header.chips is None:
                scanner.error(tag.value_place, f"[StartingChips] is a whole number of chips, not {tag.value!r}.")
        elif name == "Rules":
            header.rules = tag.value
    if "Dealer" in given:
        header.dealer = read_seat(scanner, given["Dealer"].value, given["Dealer"].value_place, header.players)
    for required in ("Players", "StartingChips"):
        if required not in given:
            scanner.error((1, 1), f"The [{required}] tag is missing.")
    header.rules = _rules(scanner, header, given)
    return header


def _read_detail(scanner: Scanner, header: Header, name: str, tag: Tag) -> None:
    value = str(tag.value) if whole_number(tag.value) is not None else tag.value  # [Table 4]
    if not isinstance(value, str):
        scanner.error(tag.value_place, f"[{name}] holds a text in quotes.")
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
            problem = (f'a day written "YYYY.MM.DD", like "2026.11.22", not {tag.value!r}' if name == "Date"
                       else f"too long ({len(value)} characters)")
            scanner.error(tag.value_place, f"[{name}] is {problem}.")


def _rules(scanner: Scanner, header: Header, given: dict[str, Tag]) -> Any:
    """The profile with every option tag laid over it, checked by the engine's own resolver."""
    spec = header.rules
    profile = spec if isinstance(spec, str) else spec.get("profile", "classic") if isinstance(spec, Mapping) else None
    place = header.places.get("Rules", (1, 1))
    if not isinstance(profile, str) or profile not in PROFILES:
        scanner.error(place, f"[Rules] names a profile ({', '.join(PROFILES)}), not {spec!r}.")
        return spec
    if header.option_places:
        base = resolve_rules(profile).to_dict()
        spec = dict(spec) if isinstance(spec, Mapping) else {"profile": profile}
        for option in header.option_places:
            value = given[option_tag(option)].value
            if isinstance(value, str) and not isinstance(base.get(option), str):
                try:  # [MaxDeals "5"], quoted the PGN way
                    value = json.loads(value)
                except ValueError:
                    pass
            spec[option] = value
    try:
        resolve_rules(spec)
    except InvalidInput as refusal:
        option = str(refusal.params.get("option", "")).split(".")[0]
        scanner.error(header.option_places.get(option, place), refusal.message, refusal.code)
    return spec
