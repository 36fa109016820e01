"""An evening's log: its entries (the director's decisions), their hash chain, and the state folded from them.

Entries are facts: folding one never checks it again (the checks are the deciders', :mod:`.decisions`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..chain import GENESIS, canonical_bytes

CREATED = "evening_created"
PRESENCE = "presence_changed"
ROUND = "round_started"
CONFIRMED = "result_confirmed"
ADJUSTED = "score_adjusted"
VOIDED = "game_voided"
WITHDRAWN = "player_withdrawn"
AWARDED = "score_awarded"
FROZEN = "leaderboard_frozen"
REVEALED = "leaderboard_revealed"
CLOSED = "evening_closed"
MENDS = (ADJUSTED, VOIDED, WITHDRAWN, AWARDED)
ENTRY_TYPES = (CREATED, PRESENCE, ROUND, CONFIRMED, *MENDS, FROZEN, REVEALED, CLOSED)

Tables = tuple[tuple[str, ...], ...]


def entry(seq: int, type_: str, data: Mapping[str, Any], by: Mapping[str, Any] | None = None,
          recorded_at: str = "") -> dict[str, Any]:
    """An entry of an evening's log, as the store keeps it."""
    return {"seq": seq, "type": type_, "data": dict(data), "by": dict(by or {}), "recorded_at": recorded_at}


HASHED = ("seq", "type", "data", "by", "recorded_at")


def entry_hash(previous: str, item: Mapping[str, Any]) -> str:
    """The hash chaining an entry of an evening's log to the one before it, as a game's events are chained:
    SHA-256 over the previous hash and the entry's canonical JSON."""
    body = canonical_bytes({name: item[name] for name in HASHED})
    return hashlib.sha256(previous.encode() + body).hexdigest()


def first_bad_entry(entries: Sequence[Mapping[str, Any]]) -> int | None:
    """The seq of the first entry whose hash or place in the chain is not right, or None when the log is sound."""
    previous = GENESIS
    for number, item in enumerate(entries, 1):
        if item["seq"] != number or not hmac.compare_digest(item["hash"], entry_hash(previous, item)):
            return int(item["seq"])
        previous = item["hash"]
    return None


def signed_log(entries: Sequence[Mapping[str, Any]], checkpoints: Mapping[int, Any],
               holds: Callable[[Any, Any], bool], signing_began: str | None = None) -> dict[str, Any]:
    """An evening's log held to the checkpoints the ledger signed of its head (``checkpoints``, by seq):
    ``{ok, signed_from, count, first_bad_seq}``.

    Every decision appended signs the evening's head, so from the first entry signed (``signed_from``) on, each
    entry has a checkpoint that holds (``holds(checkpoint, the entry's hash)``: it names that hash, validly
    signed); a checkpoint where the log has no entry does not hold either. An entry rewritten and every hash
    after it recomputed (the chain verifies again) is the first whose checkpoint no longer holds. The entries
    of an evening stored before evenings were signed have none (``signed_from`` None: not signed, older than
    signing), unless recorded after ``signing_began`` (the time of the first evening checkpoint ever signed):
    an entry of that age was signed when it was appended.

    >>> entries = [{"seq": 1, "hash": "a", "recorded_at": "2026-11-01"},
    ...            {"seq": 2, "hash": "b", "recorded_at": "2026-11-02"}]
    >>> same = lambda checkpoint, logged: checkpoint["head_hash"] == logged
    >>> signed_log(entries, {}, same)
    {'ok': True, 'signed_from': None, 'count': 0, 'first_bad_seq': None}
    >>> signed_log(entries, {2: {"head_hash": "b"}}, same)
    {'ok': True, 'signed_from': 2, 'count': 1, 'first_bad_seq': None}
    >>> signed_log(entries, {1: {"head_hash": "x"}, 2: {"head_hash": "b"}}, same)["first_bad_seq"]
    1
    >>> signed_log(entries, {}, same, signing_began="2026-11-02")["first_bad_seq"]  # its checkpoint was deleted
    2
    """
    left = dict(checkpoints)
    signed_from = min(left, default=None)
    if signing_began is not None and (signed_from is None or signed_from > 1):
        begun = next((item["seq"] for item in entries if str(item.get("recorded_at")) >= signing_began), None)
        if begun is not None and (signed_from is None or begun < signed_from):
            signed_from = begun
    count, first_bad = 0, None
    for item in entries:
        seq = item["seq"]
        checkpoint = left.pop(seq, None)
        count += checkpoint is not None
        if first_bad is None and signed_from is not None and seq >= signed_from and (
                checkpoint is None or not holds(checkpoint, item.get("hash"))):
            first_bad = seq
    if left:  # signed where the log has no entry: the log was cut or renumbered
        count += len(left)
        first_bad = min(left) if first_bad is None else min(first_bad, min(left))
    return {"ok": first_bad is None, "signed_from": signed_from, "count": count, "first_bad_seq": first_bad}


@dataclass
class TableGame:
    """A table of a started round: its players in seat order and its game."""

    round: int
    table: int
    players: tuple[str, ...]
    game: str


@dataclass
class EveningState:
    """Everything folded from an evening's log."""

    name: str = ""
    played_on: str = ""
    rules: dict[str, Any] = field(default_factory=dict)
    starting_chips: int = 0
    ranking: str = "match_points"
    confirmation: bool = False
    seed: int = 0
    rounds: int = 0  # planned rounds
    ends_at: str | None = None
    table_rule: dict[str, int] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)  # everyone ever present, in order of arrival
    present: list[str] = field(default_factory=list)
    withdrawn: dict[str, str] = field(default_factory=dict)
    schedule: list[Tables] = field(default_factory=list)  # every round: the started ones as played, then the plan
    worst_pair: int | None = None
    bound: int | None = None
    started: list[list[TableGame]] = field(default_factory=list)
    confirmations: dict[str, dict[str, Any]] = field(default_factory=dict)  # game -> {player, version, seq}
    voided: dict[str, str] = field(default_factory=dict)
    adjustments: list[dict[str, Any]] = field(default_factory=list)
    awards: list[dict[str, Any]] = field(default_factory=list)
    mends: list[dict[str, Any]] = field(default_factory=list)
    frozen_through: int | None = None
    closed: bool = False
    version: int = 0

    @property
    def current_round(self) -> int:
        """The number of rounds started (0 before the first)."""
        return len(self.started)

    def games(self) -> dict[str, TableGame]:
        return {table.game: table for tables in self.started for table in tables}

    def table_count(self) -> int:
        """The most tables any round has, started or planned."""
        return max((len(tables) for tables in self.schedule), default=0)


def fold_evening(entries: Sequence[Mapping[str, Any]]) -> EveningState:
    """The evening as its log tells it. Entries are facts: folding one never checks it again."""
    state = EveningState()
    for item in entries:
        data, kind = item["data"], item["type"]
        state.version = item["seq"]
        if kind == CREATED:
            state.name, state.played_on = data["name"], data["date"]
            state.rules, state.starting_chips = dict(data["rules"]), data["starting_chips"]
            state.ranking, state.confirmation, state.seed = data["ranking"], data["confirmation"], data["seed"]
            state.rounds, state.ends_at, state.table_rule = data["rounds"], data.get("ends_at"), dict(data["tables"])
            state.players, state.present = list(data["players"]), list(data["players"])
            _take_plan(state, data)
        elif kind == PRESENCE:
            for name in data.get("arrived", ()):
                if name not in state.players:
                    state.players.append(name)
                state.present.append(name)
            state.present = [name for name in state.present if name not in set(data.get("left", ()))]
            _take_plan(state, data)
        elif kind == ROUND:
            tables = [TableGame(data["round"], t["table"], tuple(t["players"]), t["game"]) for t in data["tables"]]
            state.started.append(tables)
            played = tuple(table.players for table in tables)
            if len(state.schedule) >= data["round"]:
                state.schedule[data["round"] - 1] = played
            else:
                state.schedule.append(played)
            state.rounds = max(state.rounds, data["round"])
        elif kind == CONFIRMED:
            state.confirmations[data["game"]] = {"player": data["player"], "version": data["version"],
                                                 "seq": item["seq"]}
        elif kind in MENDS:
            state.mends.append(dict(item))
            if kind == ADJUSTED:
                state.adjustments.append({**data, "seq": item["seq"]})
            elif kind == VOIDED:
                state.voided[data["game"]] = data["reason"]
            elif kind == WITHDRAWN:
                state.withdrawn[data["player"]] = data["reason"]
                state.present = [name for name in state.present if name != data["player"]]
                _take_plan(state, data)
            elif kind == AWARDED:
                state.awards.append({**data, "seq": item["seq"]})
        elif kind == FROZEN:
            state.frozen_through = data["through_round"]
        elif kind == REVEALED:
            state.frozen_through = None
        elif kind == CLOSED:
            state.closed = True
    return state


def _take_plan(state: EveningState, data: Mapping[str, Any]) -> None:
    """A decision that re-planned the rounds not yet started: they follow the started ones."""
    if "plan" not in data:
        return
    kept = state.schedule[: state.current_round]
    state.schedule = kept + [tuple(tuple(table) for table in tables) for tables in data["plan"]]
    state.rounds = len(state.schedule)
    state.worst_pair, state.bound = data.get("worst_pair"), data.get("bound")

