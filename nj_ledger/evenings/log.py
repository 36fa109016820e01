"""An evening's log: the state folded from its entries (the director's decisions), and the log held to the
checkpoints signed of its head.

The fold is a table of handlers, one per entry type, as a game's is (:mod:`nj_ledger.reducer`). Entries are
facts: folding one never checks it again (the checks are the deciders', :mod:`.decisions`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .entries import (
    ADJUSTED,
    AWARDED,
    CLOSED,
    CONFIRMED,
    CREATED,
    FROZEN,
    PRESENCE,
    REVEALED,
    ROUND,
    VOIDED,
    WITHDRAWN,
    LogEntry,
    as_entry,
)

Tables = tuple[tuple[str, ...], ...]


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


# --- the fold: one handler per entry type --------------------------------------------------------------------
def _created(state: EveningState, item: LogEntry) -> None:
    data = item.data
    state.name, state.played_on = data["name"], data["date"]
    state.rules, state.starting_chips = dict(data["rules"]), data["starting_chips"]
    state.ranking, state.confirmation, state.seed = data["ranking"], data["confirmation"], data["seed"]
    state.rounds, state.ends_at, state.table_rule = data["rounds"], data.get("ends_at"), dict(data["tables"])
    state.players, state.present = list(data["players"]), list(data["players"])
    _take_plan(state, data)


def _presence(state: EveningState, item: LogEntry) -> None:
    data = item.data
    for name in data.get("arrived", ()):
        if name not in state.players:
            state.players.append(name)
        state.present.append(name)
    state.present = [name for name in state.present if name not in set(data.get("left", ()))]
    _take_plan(state, data)


def _round(state: EveningState, item: LogEntry) -> None:
    data = item.data
    tables = [TableGame(data["round"], t["table"], tuple(t["players"]), t["game"]) for t in data["tables"]]
    state.started.append(tables)
    played = tuple(table.players for table in tables)
    if len(state.schedule) >= data["round"]:
        state.schedule[data["round"] - 1] = played
    else:
        state.schedule.append(played)
    state.rounds = max(state.rounds, data["round"])


def _confirmed(state: EveningState, item: LogEntry) -> None:
    data = item.data
    state.confirmations[data["game"]] = {"player": data["player"], "version": data["version"], "seq": item.seq}


def _adjusted(state: EveningState, item: LogEntry) -> None:
    state.mends.append(item.shown())
    state.adjustments.append({**item.data, "seq": item.seq})


def _voided(state: EveningState, item: LogEntry) -> None:
    state.mends.append(item.shown())
    state.voided[item.data["game"]] = item.data["reason"]


def _withdrawn(state: EveningState, item: LogEntry) -> None:
    data = item.data
    state.mends.append(item.shown())
    state.withdrawn[data["player"]] = data["reason"]
    state.present = [name for name in state.present if name != data["player"]]
    _take_plan(state, data)


def _awarded(state: EveningState, item: LogEntry) -> None:
    state.mends.append(item.shown())
    state.awards.append({**item.data, "seq": item.seq})


def _frozen(state: EveningState, item: LogEntry) -> None:
    state.frozen_through = item.data["through_round"]


def _revealed(state: EveningState, _item: LogEntry) -> None:
    state.frozen_through = None


def _closed(state: EveningState, _item: LogEntry) -> None:
    state.closed = True


Handler = Callable[[EveningState, LogEntry], None]
HANDLERS: dict[str, Handler] = {
    CREATED: _created, PRESENCE: _presence, ROUND: _round, CONFIRMED: _confirmed, ADJUSTED: _adjusted,
    VOIDED: _voided, WITHDRAWN: _withdrawn, AWARDED: _awarded, FROZEN: _frozen, REVEALED: _revealed,
    CLOSED: _closed,
}


def _ignored(_state: EveningState, _item: LogEntry) -> None:
    """An entry of a type this ledger does not know changes nothing but the version."""


def fold_evening(entries: Iterable[Mapping[str, Any]]) -> EveningState:
    """The evening as its log tells it, each entry (a :class:`~.entries.LogEntry`, or the mapping the store writes)
    handed to the handler of its type. Entries are facts: folding one never checks it again."""
    state = EveningState()
    handlers, ignored = HANDLERS, _ignored
    for item in entries:
        value = item if type(item) is LogEntry else as_entry(item)
        state.version = value.seq
        handlers.get(value.type, ignored)(state, value)
    return state


def _take_plan(state: EveningState, data: Mapping[str, Any]) -> None:
    """A decision that re-planned the rounds not yet started: they follow the started ones."""
    if "plan" not in data:
        return
    kept = state.schedule[: state.current_round]
    state.schedule = kept + [tuple(tuple(table) for table in tables) for tables in data["plan"]]
    state.rounds = len(state.schedule)
    state.worst_pair, state.bound = data.get("worst_pair"), data.get("bound")

