"""Club evenings: several tables, rounds of games, a ranking across tables, a season ladder.

An evening adds no new kind of truth. Its log holds the director's decisions
only — the evening created, players arriving and leaving, a round started (its
games named), a result confirmed, the mends (an adjustment, a game voided, a
player's withdrawal, a score awarded), the leaderboard frozen and revealed, the
evening closed — and every view (the grid, the ranking, the ladder) is folded
from those decisions and from the games' own logs. Nothing here reads a clock
or a database: the store hands in the entries and the games' outcomes.

    >>> created = decide_creation(name="Jeudi", played_on="2026-11-26", players=["Ana", "Ben", "Chloé"],
    ...     rounds=1, rules="classic", starting_chips=60, seating=[[["Ana", "Ben", "Chloé"]]])
    >>> state = fold_evening([entry(1, *created)])
    >>> state.schedule[0][0], state.ranking
    (('Ana', 'Ben', 'Chloé'), 'match_points')

**The ranking** (``ranking`` stored with the evening):

- ``match_points`` (the default): in each counted game a player scores the share of the
  others at the table they finished ahead of, a tie counting half, scaled to 100 —
  ``100 × (beaten + tied / 2) / (players − 1)`` — so the top of a table of 3 and of a table of
  6 both score 100 and the last 0. The evening's score is the sum over the player's games,
  plus the scores awarded and the adjustments.
- ``net_chips``: chips at the end of each counted game minus the starting chips, summed, plus
  awards and adjustments (in chips).

A game counts when it has ended, is not voided, and — when the evening asks for
confirmation — a player of the table confirmed it at the version it stands at
(a game changed after its confirmation, by an undo past its end, waits for a
new one). Equal scores share a rank; a withdrawn player is listed last, unranked.

**The season ladder** (:func:`ladder`): the closed evenings of a season's days;
a player's value for an evening is their evening score; the best ``best`` of
them are summed (all when the season keeps every evening); players with fewer
than ``qualifying`` evenings are listed after the qualified ones, unranked.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from .chain import GENESIS, canonical_bytes
from .errors import InvalidInput, RuleViolation
from .rules import resolve_rules

RANKINGS = ("match_points", "net_chips")
SMALLEST_TABLE, LARGEST_TABLE = 3, 8
MAX_ROUNDS = 30
MAX_PLAYERS = 200
MATCH_SCALE = 100

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

# What a cell of the grid says of a table's game in a round.
PLANNED, MISSING, UNCONFIRMED, COUNTED, VOID = "planned", "missing", "unconfirmed", "counted", "voided"
CELL_MARKS = (PLANNED, MISSING, UNCONFIRMED, COUNTED, VOID)

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


# --- deciding ------------------------------------------------------------------------------------------------
def _names(players: Sequence[Any], field_name: str = "players") -> list[str]:
    names = [str(name).strip() for name in players]
    if any(not name for name in names):
        raise InvalidInput("invalid-evening-players", "A player's name is blank.", field=field_name)
    keys = [name.casefold() for name in names]
    if len(set(keys)) != len(keys):
        twice = next(name for name, key in zip(names, keys, strict=True) if keys.count(key) > 1)
        raise InvalidInput("invalid-evening-players", "{name!r} is named twice.", name=twice, field=field_name)
    return names


def _check_sizes(sizes: Sequence[int], rules: Mapping[str, Any], field_name: str) -> None:
    allowed = set(rules["players"])
    for size in sizes:
        if not SMALLEST_TABLE <= size <= LARGEST_TABLE or size not in allowed:
            raise InvalidInput("invalid-tables", "A table of {size} players is not allowed: tables seat 3 to 8 "
                               "players, as many as the evening's rules allow.", size=size, field=field_name)


def check_tables(tables: Sequence[Sequence[str]], present: Sequence[str], rules: Mapping[str, Any],
                 field_name: str = "tables") -> Tables:
    """Tables set by the director: every present player seated once, each table of an allowed size."""
    seated = [str(name).strip() for table in tables for name in table]
    by_key = {name.casefold(): name for name in present}
    for name in seated:
        if name.casefold() not in by_key:
            raise InvalidInput("unknown-player", "{name!r} is not present at this evening.", name=name,
                               field=field_name)
    keys = [name.casefold() for name in seated]
    if len(set(keys)) != len(keys) or set(keys) != set(by_key):
        missing = [name for key, name in by_key.items() if key not in keys]
        raise InvalidInput("invalid-tables", "The tables must seat every present player exactly once "
                           "(unseated: {missing}; seated twice: {twice}).", missing=", ".join(missing) or "-",
                           twice=", ".join(sorted({n for n in seated if keys.count(n.casefold()) > 1})) or "-",
                           field=field_name)
    _check_sizes([len(table) for table in tables], rules, field_name)
    return tuple(tuple(by_key[str(name).strip().casefold()] for name in table) for table in tables)


@dataclass(frozen=True)
class Planned:
    """A schedule of rounds and its quality."""

    rounds: tuple[Tables, ...]
    worst_pair: int | None
    bound: int | None


def plan_rounds(players: Sequence[str], rounds: int, table_rule: Mapping[str, int], seed: int,
                played: Sequence[Tables] = (), sizes: Sequence[int] | None = None,
                rules: Mapping[str, Any] | None = None) -> Planned:
    """The rounds after those ``played``, drawn by the seating planner (:mod:`nj_ledger.seating`), at tables of
    ``sizes`` (else the split the table rule chooses for the players present) that the rules allow."""
    from . import seating  # the planner: pairs sharing a table as evenly as it can

    if rounds <= len(played):
        return Planned((), None, None)
    if sizes is None or sum(sizes) != len(players):
        try:
            sizes = seating.table_sizes(len(players), smallest=table_rule["smallest"],
                                        largest=table_rule["largest"], preferred=table_rule["preferred"])
        except ValueError:
            raise InvalidInput("invalid-tables", "{count} players cannot be split into tables of {smallest} to "
                               "{largest}.", count=len(players), smallest=table_rule["smallest"],
                               largest=table_rule["largest"], field="tables") from None
    if rules is not None:
        _check_sizes(sizes, rules, "tables")
    made = seating.plan(list(players), rounds, sizes=list(sizes), seed=seed,
                        played=[[list(table) for table in tables] for tables in played])
    return Planned(tuple(tuple(tuple(t) for t in r) for r in made.rounds[len(played):]), made.worst_pair, made.bound)


def _plan_data(planned: Planned) -> dict[str, Any]:
    return {"plan": [[list(table) for table in tables] for tables in planned.rounds],
            "worst_pair": planned.worst_pair, "bound": planned.bound}


def decide_creation(*, name: str, played_on: str, players: Sequence[str], rounds: int,
                    rules: str | Mapping[str, Any], starting_chips: int, ranking: str = "match_points",
                    confirmation: bool = False, seed: int = 0, ends_at: str | None = None,
                    tables: Mapping[str, int] | None = None, sizes: Sequence[int] | None = None,
                    seating: Sequence[Sequence[Sequence[str]]] | None = None) -> tuple[str, dict[str, Any]]:
    """The ``evening_created`` entry: players, rules every table plays, the table rule, the rounds (or an end
    time), the ranking, confirmation, the seed, and the seating of every round (set by the director in
    ``seating``, else drawn by the planner)."""
    names = _names(players)
    if not SMALLEST_TABLE <= len(names) <= MAX_PLAYERS:
        raise InvalidInput("invalid-evening-players", "An evening needs 3 to {most} players, not {count}.",
                           most=MAX_PLAYERS, count=len(names), field="players")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidInput("invalid-rounds", "An evening has 1 to {most} rounds, not {rounds}.", most=MAX_ROUNDS,
                           rounds=rounds, field="rounds")
    if ranking not in RANKINGS:
        raise InvalidInput("invalid-ranking", "The ranking is match_points or net_chips, not {ranking!r}.",
                           ranking=ranking, field="ranking")
    resolved = resolve_rules(rules).to_dict()
    rule = {"smallest": SMALLEST_TABLE, "largest": LARGEST_TABLE, "preferred": 4, **(tables or {})}
    if not SMALLEST_TABLE <= rule["smallest"] <= rule["preferred"] <= rule["largest"] <= LARGEST_TABLE:
        raise InvalidInput("invalid-tables", "Table sizes must satisfy 3 ≤ smallest ≤ preferred ≤ largest ≤ 8.",
                           field="tables")
    if sizes is not None:
        if sum(sizes) != len(names):
            raise InvalidInput("invalid-tables", "The table sizes seat {seats} players, not the {count} present.",
                               seats=sum(sizes), count=len(names), field="sizes")
        _check_sizes(sizes, resolved, "sizes")
    if seating is not None:
        if len(seating) != rounds:
            raise InvalidInput("invalid-tables", "The seating sets {given} rounds, not {rounds}.",
                               given=len(seating), rounds=rounds, field="seating")
        planned = Planned(tuple(check_tables(tables, names, resolved, f"seating.{number}")
                                for number, tables in enumerate(seating)), None, None)
    else:
        planned = plan_rounds(names, rounds, rule, seed, sizes=sizes, rules=resolved)
    data = {"name": name.strip(), "date": played_on, "players": names, "rules": resolved,
            "starting_chips": starting_chips, "ranking": ranking, "confirmation": bool(confirmation), "seed": seed,
            "rounds": rounds, "ends_at": ends_at, "tables": rule, "sizes": list(sizes) if sizes else None,
            **_plan_data(planned)}
    return CREATED, data


def _open(state: EveningState) -> None:
    if state.closed:
        raise RuleViolation("evening-closed", "The evening is closed: nothing more can be recorded in it.")


def _member(state: EveningState, name: str, *, present: bool | None = None) -> str:
    found = next((known for known in state.players if known.casefold() == name.strip().casefold()), None)
    if found is None:
        raise InvalidInput("unknown-player", "{name!r} is not present at this evening.", name=name.strip(),
                           field="player")
    if present is True and found not in state.present:
        raise RuleViolation("player-absent", "{name!r} is not present now.", name=found)
    return found


def _replan(state: EveningState, present: Sequence[str]) -> dict[str, Any]:
    played = state.schedule[: state.current_round]
    if state.rounds <= state.current_round:
        return _plan_data(Planned((), state.worst_pair, state.bound))
    if len(present) < SMALLEST_TABLE:
        raise RuleViolation("too-few-players", "Fewer than 3 players would be left to seat.")
    return _plan_data(plan_rounds(present, state.rounds, state.table_rule, state.seed, played, rules=state.rules))


def decide_presence(state: EveningState, arrived: Sequence[str], left: Sequence[str],
                    reason: str) -> tuple[str, dict[str, Any]]:
    """Players arriving or leaving: the rounds not yet started are planned again; the started ones stay."""
    _open(state)
    arriving = _names(arrived, "arrived")
    for name in arriving:
        known = next((p for p in state.present if p.casefold() == name.casefold()), None)
        if known is not None:
            raise RuleViolation("player-present", "{name!r} is present already.", name=known)
        if any(name.casefold() == gone.casefold() for gone in state.withdrawn):
            raise RuleViolation("player-withdrawn", "{name!r} was withdrawn from the evening.", name=name)
    arriving = [next((p for p in state.players if p.casefold() == n.casefold()), n) for n in arriving]
    leaving = [_member(state, name, present=True) for name in _names(left, "left")]
    if not arriving and not leaving:
        raise InvalidInput("invalid-request", "Name who arrived or who left.", field="arrived")
    present = [name for name in state.present if name not in leaving] + arriving
    return PRESENCE, {"arrived": arriving, "left": leaving, "reason": reason, **_replan(state, present)}


def decide_round(state: EveningState, games: Sequence[str], *, now: datetime | None = None,
                 tables: Sequence[Sequence[str]] | None = None, force: bool = False,
                 results: Mapping[str, GameOutcome] | None = None) -> tuple[str, dict[str, Any]]:
    """The next round started: its tables (the plan's, or the director's), each with the game made for it."""
    seating = round_tables(state, tables, now=now, force=force, results=results)
    if len(games) != len(seating):
        raise ValueError("one game per table")
    number = state.current_round + 1
    return ROUND, {"round": number, "tables": [{"table": index, "players": list(players), "game": game}
                                               for index, (players, game) in enumerate(zip(seating, games,
                                                                                           strict=True), 1)]}


def round_tables(state: EveningState, tables: Sequence[Sequence[str]] | None = None, *,
                 now: datetime | None = None, force: bool = False,
                 results: Mapping[str, GameOutcome] | None = None) -> Tables:
    """The tables of the next round, or the refusal to start it: the evening closed, its end time passed, every
    planned round started (unless the director sets the tables), or a game of the last round not finished
    (unless ``force``)."""
    _open(state)
    if state.ends_at is not None and now is not None and now >= datetime.fromisoformat(state.ends_at):
        raise RuleViolation("evening-time-up", "The evening's end time ({ends_at}) has passed: no round starts "
                            "after it.", ends_at=state.ends_at)
    if state.started and not force and results is not None:
        waiting = [table.table for table in state.started[-1]
                   if table.game not in state.voided and (table.game not in results
                                                          or results[table.game].status != "ended")]
        if waiting:
            raise RuleViolation("round-not-finished", "Round {round} is still being played at table(s) {tables}: "
                                "start the next round when they have finished, or force it.",
                                round=state.current_round, tables=", ".join(map(str, waiting)))
    if tables is not None:
        return check_tables(tables, state.present, state.rules)
    if state.current_round >= len(state.schedule):
        raise RuleViolation("no-round-left", "Every planned round has started: set the tables to play another.")
    planned = state.schedule[state.current_round]
    seated = {name for table in planned for name in table}
    if seated != set(state.present):
        raise RuleViolation("invalid-tables", "The planned tables do not seat the players present: record who "
                            "arrived or left, or set the tables.")
    return planned


def _evening_game(state: EveningState, game: str) -> TableGame:
    found = state.games().get(game)
    if found is None:
        raise InvalidInput("not-evening-game", "Game {game!r} is not one of this evening's games.", game=game,
                           field="game")
    return found


def decide_confirmation(state: EveningState, game: str, player: str, outcome: GameOutcome | None,
                        table: int | None = None) -> tuple[str, dict[str, Any]]:
    """A player of the table confirms the game's result, as it stands (its version)."""
    _open(state)
    if not state.confirmation:
        raise RuleViolation("confirmation-off", "This evening counts results without confirmation.")
    seated = _evening_game(state, game)
    if table is not None and seated.table != table:
        raise InvalidInput("not-evening-game", "Game {game!r} is not one of this evening's games.", game=game,
                           field="game")
    name = next((p for p in seated.players if p.casefold() == player.strip().casefold()), None)
    if name is None:
        raise RuleViolation("not-at-table", "{name!r} did not play at this table: a player of the game confirms "
                            "its result.", name=player.strip())
    if game in state.voided:
        raise RuleViolation("game-voided", "Game {game!r} was voided.", game=game)
    if outcome is None or outcome.status != "ended":
        raise RuleViolation("game-not-ended", "Game {game!r} has not ended: its result is confirmed once it has.",
                            game=game)
    kept = state.confirmations.get(game)
    if kept is not None and kept["version"] == outcome.version:
        raise RuleViolation("already-confirmed", "{name} confirmed this result already.", name=kept["player"])
    return CONFIRMED, {"game": game, "round": seated.round, "table": seated.table, "player": name,
                       "version": outcome.version}


def decide_mend(state: EveningState, kind: str, data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A director's mend, with its reason: an adjustment, a game voided, a withdrawal, a score awarded."""
    _open(state)
    reason = str(data.get("reason", "")).strip()
    if not reason:
        raise InvalidInput("reason-needed", "A mend needs a reason.", field="reason")
    if kind == ADJUSTED:
        player = _member(state, str(data.get("player", "")))
        return ADJUSTED, {"player": player, "amount": data["amount"], "round": state.current_round,
                          "reason": reason}
    if kind == VOIDED:
        seated = _evening_game(state, str(data.get("game", "")))
        if seated.game in state.voided:
            raise RuleViolation("game-voided", "Game {game!r} was voided.", game=seated.game)
        return VOIDED, {"game": seated.game, "round": seated.round, "table": seated.table, "reason": reason}
    if kind == WITHDRAWN:
        player = _member(state, str(data.get("player", "")))
        if player in state.withdrawn:
            raise RuleViolation("player-withdrawn", "{name!r} was withdrawn from the evening.", name=player)
        present = [name for name in state.present if name != player]
        replanned = _replan(state, present) if player in state.present else {}
        return WITHDRAWN, {"player": player, "reason": reason, "round": state.current_round, **replanned}
    if kind == AWARDED:
        player = _member(state, str(data.get("player", "")))
        number = int(data.get("round", 0))
        if not 1 <= number <= state.current_round:
            raise InvalidInput("invalid-round", "Round {round} has not been played: a score is awarded for a "
                               "round played (1 to {last}).", round=number, last=state.current_round, field="round")
        return AWARDED, {"player": player, "round": number, "score": data["score"], "reason": reason}
    raise ValueError(kind)


def decide_freeze(state: EveningState, through_round: int | None) -> tuple[str, dict[str, Any]]:
    """The big screen's leaderboard frozen after a round (kept as it stood), or (None) revealed."""
    _open(state)
    if through_round is None:
        if state.frozen_through is None:
            raise RuleViolation("not-frozen", "The leaderboard is not frozen.")
        return REVEALED, {}
    if not 0 <= through_round <= state.current_round:
        raise InvalidInput("invalid-round", "The leaderboard is frozen after a round played (0 to {last}), not after "
                           "round {round}.", round=through_round, last=state.current_round, field="through_round")
    return FROZEN, {"through_round": through_round}


def decide_close(state: EveningState, reason: str) -> tuple[str, dict[str, Any]]:
    _open(state)
    return CLOSED, {"reason": reason, "rounds_played": state.current_round}


# --- views ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameOutcome:
    """What the evening needs of a game: its version and status, and each seat's chips (in seat order)."""

    version: int
    status: str
    players: tuple[str, ...]
    chips: tuple[int, ...]
    starting_chips: int
    deals_played: int = 0


def game_scores(outcome: GameOutcome, ranking: str) -> dict[str, Fraction]:
    """Each player's score in one game under the evening's ranking rule.

    >>> o = GameOutcome(9, "ended", ("A", "B", "C", "D"), (70, 50, 50, 10), 45)
    >>> {k: float(v) for k, v in game_scores(o, "match_points").items()}
    {'A': 100.0, 'B': 50.0, 'C': 50.0, 'D': 0.0}
    >>> {k: int(v) for k, v in game_scores(o, "net_chips").items()}
    {'A': 25, 'B': 5, 'C': 5, 'D': -35}
    """
    if ranking == "net_chips":
        return {name: Fraction(chips - outcome.starting_chips) for name, chips in zip(outcome.players,
                                                                                     outcome.chips, strict=True)}
    others = len(outcome.players) - 1
    scores: dict[str, Fraction] = {}
    for name, chips in zip(outcome.players, outcome.chips, strict=True):
        beaten = sum(1 for other in outcome.chips if other < chips)
        tied = sum(1 for other in outcome.chips if other == chips) - 1
        scores[name] = Fraction(MATCH_SCALE) * (beaten + Fraction(tied, 2)) / others if others else Fraction(0)
    return scores


def cell_mark(state: EveningState, game: str, outcome: GameOutcome | None) -> str:
    """What the grid says of a started table's game: voided, missing (not ended), unconfirmed, or counted."""
    if game in state.voided:
        return VOID
    if outcome is None or outcome.status != "ended":
        return MISSING
    if state.confirmation:
        kept = state.confirmations.get(game)
        if kept is None or kept["version"] != outcome.version:
            return UNCONFIRMED
    return COUNTED


def grid(state: EveningState, results: Mapping[str, GameOutcome]) -> list[list[dict[str, Any] | None]]:
    """The table × round grid: for each table (1…), each round's cell, or None where the round has no such
    table. A cell: ``{round, table, players, game, mark, status, version, deals_played, chips, confirmed_by}``."""
    rows: list[list[dict[str, Any] | None]] = []
    for table in range(1, state.table_count() + 1):
        cells: list[dict[str, Any] | None] = []
        for number, tables in enumerate(state.schedule, 1):
            if table > len(tables):
                cells.append(None)
                continue
            cell: dict[str, Any] = {"round": number, "table": table, "players": list(tables[table - 1]),
                                    "game": None, "mark": PLANNED, "status": None, "version": None,
                                    "deals_played": None, "chips": None, "confirmed_by": None}
            if number <= state.current_round:
                seated = state.started[number - 1][table - 1]
                outcome = results.get(seated.game)
                kept = state.confirmations.get(seated.game)
                cell.update(game=seated.game, mark=cell_mark(state, seated.game, outcome))
                if outcome is not None:
                    cell.update(status=outcome.status, version=outcome.version, deals_played=outcome.deals_played,
                                chips=list(outcome.chips))
                if kept is not None and outcome is not None and kept["version"] == outcome.version:
                    cell["confirmed_by"] = kept["player"]
            cells.append(cell)
        rows.append(cells)
    return rows


def _plain(value: float) -> float | int:
    """A number as shown: to two decimals, an integer without its ".0"."""
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


def _shown(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else round(float(value), 2)


def ranking(state: EveningState, results: Mapping[str, GameOutcome],
            through_round: int | None = None) -> list[dict[str, Any]]:
    """The evening's ranking under its rule, counting the rounds up to ``through_round`` (all by default).

    A row: ``{rank, name, score, games, average, adjustments, withdrawn, rounds: [{round, table, game, score,
    mark}]}``; equal scores share a rank (1, 1, 3…), listed by name; withdrawn players last, rank null."""
    last = state.current_round if through_round is None else min(through_round, state.current_round)
    scores: dict[str, Fraction] = {name: Fraction(0) for name in state.players}
    games: dict[str, int] = dict.fromkeys(state.players, 0)
    adjusted: dict[str, Fraction] = {name: Fraction(0) for name in state.players}
    by_round: dict[str, list[dict[str, Any]]] = {name: [] for name in state.players}
    for tables in state.started[:last]:
        for seated in tables:
            outcome = results.get(seated.game)
            mark = cell_mark(state, seated.game, outcome)
            counted = game_scores(outcome, state.ranking) if mark == COUNTED and outcome is not None else {}
            for name in seated.players:
                score = counted.get(name)
                by_round[name].append({"round": seated.round, "table": seated.table, "game": seated.game,
                                       "score": None if score is None else _shown(score), "mark": mark})
                if score is not None:
                    scores[name] += score
                    games[name] += 1
    for award in state.awards:
        if award["round"] <= last:
            scores[award["player"]] += Fraction(award["score"])
            games[award["player"]] += 1
            by_round[award["player"]].append({"round": award["round"], "table": None, "game": None,
                                              "score": _shown(Fraction(award["score"])), "mark": "awarded"})
    for adjustment in state.adjustments:
        if adjustment["round"] <= last:
            adjusted[adjustment["player"]] += Fraction(adjustment["amount"])
    total = {name: scores[name] + adjusted[name] for name in state.players}
    ranked = sorted((name for name in state.players if name not in state.withdrawn),
                    key=lambda name: (-total[name], name.casefold(), name))
    rows: list[dict[str, Any]] = []
    for position, name in enumerate(ranked, 1):
        tied = bool(rows) and total[rows[-1]["name"]] == total[name]
        rows.append({"rank": rows[-1]["rank"] if tied else position, "name": name})
    rows += [{"rank": None, "name": name} for name in sorted(state.withdrawn, key=str.casefold)]
    for row in rows:
        name = row["name"]
        row.update(score=_shown(total[name]), games=games[name],
                   average=_shown(scores[name] / games[name]) if games[name] else None,
                   adjustments=_shown(adjusted[name]), withdrawn=name in state.withdrawn,
                   present=name in state.present,
                   rounds=sorted(by_round[name], key=lambda cell: cell["round"]))
    return rows


@dataclass(frozen=True)
class EveningResult:
    """One closed evening as the ladder reads it: its id, day, and each ranked player's score and rank."""

    evening: str
    name: str
    played_on: str
    rows: tuple[tuple[str, float, int | None], ...]  # (player, score, rank)


def ladder(evenings: Sequence[EveningResult], *, qualifying: int = 0,
           best: int | None = None) -> list[dict[str, Any]]:
    """The season ladder: each player's best ``best`` evening scores summed (all when None), qualified players
    (``qualifying`` evenings at least) ranked first by that total, the others after them, unranked.

    >>> nights = [EveningResult("e1", "1", "2026-01-01", (("Ana", 60.0, 1), ("Ben", 40.0, 2))),
    ...           EveningResult("e2", "2", "2026-01-08", (("Ana", 10.0, 2), ("Ben", 90.0, 1))),
    ...           EveningResult("e3", "3", "2026-01-15", (("Ana", 70.0, 1), ("Cléo", 30.0, 2)))]
    >>> [(r["rank"], r["name"], r["total"]) for r in ladder(nights, qualifying=2, best=2)]
    [(1, 'Ana', 130), (1, 'Ben', 130), (None, 'Cléo', 30)]
    """
    played: dict[str, list[dict[str, Any]]] = {}
    for result in sorted(evenings, key=lambda e: (e.played_on, e.evening)):
        for name, score, rank in result.rows:
            played.setdefault(name, []).append({"evening": result.evening, "name": result.name,
                                                "date": result.played_on, "score": score, "rank": rank})
    rows: list[dict[str, Any]] = []
    for name, nights in played.items():
        order = sorted(range(len(nights)), key=lambda i: (-nights[i]["score"], nights[i]["date"]))
        kept = set(order if best is None else order[:best])
        for index, night in enumerate(nights):
            night["kept"] = index in kept
        total = _plain(sum(nights[i]["score"] for i in kept))
        rows.append({"name": name, "evenings": len(nights), "kept": len(kept), "total": total,
                     "qualified": len(nights) >= qualifying, "history": nights})
    rows.sort(key=lambda row: (not row["qualified"], -row["total"], row["name"].casefold(), row["name"]))
    previous: dict[str, Any] | None = None
    for position, row in enumerate(rows, 1):
        if not row["qualified"]:
            row["rank"] = None
        elif previous is not None and previous["total"] == row["total"]:
            row["rank"] = previous["rank"]
        else:
            row["rank"] = position
        previous = row
    return [{"rank": row.pop("rank"), **row} for row in rows]
