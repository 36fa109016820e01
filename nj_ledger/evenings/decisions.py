"""The director's decisions on an evening: each one made into the entry its log keeps, or refused.

A decider is given the evening as folded from its log (:mod:`.log`) and, where it needs them, the outcomes
of its games; it returns ``(type, data)``, the entry to append, or raises a refusal (``InvalidInput``,
``RuleViolation``): nothing is recorded then.

A decision the director sends (``{"type": "arrival", "players": [...]}``) is parsed once, at the boundary, as a
table action is (:func:`nj_ledger.actions.parse_action`): :func:`parse_decision` gives a frozen value of its kind
(:mod:`.kinds`), and :func:`decide` hands it to the decider of its kind::

    >>> parse_decision({"type": "void", "game": "g1", "reason": "cards missing"})
    Void(game='g1', reason='cards missing')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..errors import InvalidInput, RuleViolation
from ..messages import Listed
from ..rules import resolve_rules
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
)
from .kinds import (
    DECISION_KINDS,
    KIND_OF,
    NEEDED,
    Adjustment,
    Arrival,
    Award,
    Departure,
    DirectorDecision,
    Freeze,
    Reveal,
    Void,
    Withdrawal,
)
from .log import EveningState, TableGame, Tables
from .standings import RANKINGS, GameOutcome
from .tables import (
    LARGEST_TABLE,
    SMALLEST_TABLE,
    Planned,
    check_sizes,
    check_tables,
    plan_data,
    plan_rounds,
    player_names,
)

MAX_ROUNDS = 30
MAX_PLAYERS = 200


def decide_creation(*, name: str, played_on: str, players: Sequence[str], rounds: int,
                    rules: str | Mapping[str, Any], starting_chips: int, ranking: str = "match_points",
                    confirmation: bool = False, seed: int = 0, ends_at: str | None = None,
                    tables: Mapping[str, int] | None = None, sizes: Sequence[int] | None = None,
                    seating: Sequence[Sequence[Sequence[str]]] | None = None) -> tuple[str, dict[str, Any]]:
    """The ``evening_created`` entry: players, rules every table plays, the table rule, the rounds (or an end
    time), the ranking, confirmation, the seed, and the seating of every round (set by the director in
    ``seating``, else drawn by the planner)."""
    names = player_names(players)
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
        check_sizes(sizes, resolved, "sizes")
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
            **plan_data(planned)}
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
        return plan_data(Planned((), state.worst_pair, state.bound))
    if len(present) < SMALLEST_TABLE:
        raise RuleViolation("too-few-players", "Fewer than 3 players would be left to seat.")
    return plan_data(plan_rounds(present, state.rounds, state.table_rule, state.seed, played, rules=state.rules))


def decide_presence(state: EveningState, arrived: Sequence[str], left: Sequence[str],
                    reason: str) -> tuple[str, dict[str, Any]]:
    """Players arriving or leaving: the rounds not yet started are planned again; the started ones stay."""
    _open(state)
    arriving = player_names(arrived, "arrived")
    for name in arriving:
        known = next((p for p in state.present if p.casefold() == name.casefold()), None)
        if known is not None:
            raise RuleViolation("player-present", "{name!r} is present already.", name=known)
        if any(name.casefold() == gone.casefold() for gone in state.withdrawn):
            raise RuleViolation("player-withdrawn", "{name!r} was withdrawn from the evening.", name=name)
    arriving = [next((p for p in state.players if p.casefold() == n.casefold()), n) for n in arriving]
    leaving = [_member(state, name, present=True) for name in player_names(left, "left")]
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


# --- a director's decision parsed as a value of its kind (:mod:`.kinds`), and the decider of each kind ----------
_TEXTS = ("player", "game", "reason")
_NUMBERS = ("amount", "round", "score", "through_round")


def parse_decision(payload: Any) -> DirectorDecision:
    """The director's decision ``payload`` (JSON) as the value of its kind, its fields read by their form: a
    field its kind needs and ``payload`` lacks is refused, as is a field of the wrong form (``invalid-request``);
    what the values mean is the deciders' to check (:func:`decide`).

    >>> parse_decision({"type": "arrival", "players": ["Ana"]})
    Arrival(players=('Ana',), reason='')
    >>> parse_decision({"type": "award", "player": "Ana", "round": 1, "score": 60, "reason": "played on"}).score
    60
    """
    kind = payload.get("type") if isinstance(payload, Mapping) else None
    if not isinstance(kind, str) or kind not in KIND_OF:
        raise InvalidInput("invalid-request", "Unknown decision {kind!r}; the decisions are: {kinds}.", kind=kind,
                           kinds=Listed(DECISION_KINDS), field="type")
    made = KIND_OF[kind]
    fields: dict[str, Any] = {}
    for name in made.__dataclass_fields__:
        if name not in payload:
            if name not in NEEDED[kind]:
                continue
            raise InvalidInput("invalid-request", "Missing data for required field.", field=name)
        fields[name] = _read_field(name, payload[name])
    return made(**fields)


def _read_field(name: str, value: Any) -> Any:
    if name == "players":
        if not isinstance(value, (list, tuple)):
            raise InvalidInput("invalid-request", "Not a valid list.", field=name)
        if not all(isinstance(player, str) for player in value):
            raise InvalidInput("invalid-request", "Not a valid string.", field=name)
        return tuple(value)
    if name in _NUMBERS and (not isinstance(value, int) or isinstance(value, bool)):
        raise InvalidInput("invalid-request", "Not a valid integer.", field=name)
    if name in _TEXTS and not isinstance(value, str):
        raise InvalidInput("invalid-request", "Not a valid string.", field=name)
    return value


def _mend(kind: str, fields: Callable[[Any], dict[str, Any]]) -> Callable[[EveningState, Any],
                                                                           tuple[str, dict[str, Any]]]:
    return lambda state, decision: decide_mend(state, kind, fields(decision))


_DECIDERS: dict[type[DirectorDecision], Callable[[EveningState, Any], tuple[str, dict[str, Any]]]] = {
    Arrival: lambda state, decision: decide_presence(state, decision.players, [], decision.reason),
    Departure: lambda state, decision: decide_presence(state, [], decision.players, decision.reason),
    Adjustment: _mend(ADJUSTED, lambda d: {"player": d.player, "amount": d.amount, "reason": d.reason}),
    Void: _mend(VOIDED, lambda d: {"game": d.game, "reason": d.reason}),
    Withdrawal: _mend(WITHDRAWN, lambda d: {"player": d.player, "reason": d.reason}),
    Award: _mend(AWARDED, lambda d: {"player": d.player, "round": d.round, "score": d.score, "reason": d.reason}),
    Freeze: lambda state, decision: decide_freeze(state, decision.through_round),
    Reveal: lambda state, _decision: decide_freeze(state, None),
}


def decide(state: EveningState, decision: DirectorDecision) -> tuple[str, dict[str, Any]]:
    """The entry a director's decision appends to the evening's log, by the decider of its kind, or its refusal.

    >>> decide(EveningState(closed=True), Reveal())
    Traceback (most recent call last):
    ...
    nj_ledger.errors.RuleViolation: evening-closed: The evening is closed: nothing more can be recorded in it.
    """
    return _DECIDERS[type(decision)](state, decision)
