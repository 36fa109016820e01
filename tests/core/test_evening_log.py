"""An evening's log built as a game's is: entries as values, read through the shared upcasters, folded by a table of
handlers, chained by the shared link, and the director's decisions parsed as values of their kind."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from nj_ledger import evenings as ev
from nj_ledger import events as events_module
from nj_ledger.chain import GENESIS, canonical_bytes, event_hash, first_unlinked, link, record_bytes
from nj_ledger.errors import InvalidInput, RuleViolation
from nj_ledger.evenings import entries as entries_module
from nj_ledger.evenings.log import HANDLERS

PLAYERS = list("ABCDEFG")
SEATING = [[["A", "B", "C", "D"], ["E", "F", "G"]], [["A", "E", "F", "G"], ["B", "C", "D"]]]


def _log() -> list[dict]:
    """An evening with every type of entry: created, presence, two rounds, a confirmation, the four mends, the
    leaderboard frozen and revealed, the evening closed."""
    created = ev.decide_creation(name="Jeudi", played_on="2026-11-26", players=PLAYERS, rounds=3, rules="classic",
                                 starting_chips=60, confirmation=True, seating=[*SEATING, SEATING[0]])
    log = [ev.entry(1, *created, {"role": "operator"}, "2026-11-26T20:00:00.000000Z")]

    def add(made: tuple[str, dict]) -> None:
        log.append(ev.entry(len(log) + 1, *made, {"role": "scorer"}, f"2026-11-26T20:{len(log):02d}:00.000000Z"))

    add(ev.decide_round(ev.fold_evening(log), ["g11", "g12"]))
    add(ev.decide_confirmation(ev.fold_evening(log), "g11", "b", ev.GameOutcome(9, "ended", ("A", "B", "C", "D"),
                                                                               (60, 60, 60, 60), 60)))
    add(ev.decide_round(ev.fold_evening(log), ["g21", "g22"]))
    add(ev.decide(ev.fold_evening(log), ev.parse_decision({"type": "arrival", "players": ["H"], "reason": "late"})))
    for payload in ({"type": "adjustment", "player": "D", "amount": -10, "reason": "slow play"},
                    {"type": "void", "game": "g22", "reason": "cards missing"},
                    {"type": "award", "player": "B", "round": 2, "score": 60, "reason": "played on"},
                    {"type": "withdrawal", "player": "C", "reason": "ill"},
                    {"type": "freeze", "through_round": 1}, {"type": "reveal"}):
        add(ev.decide(ev.fold_evening(log), ev.parse_decision(payload)))
    add(ev.decide_close(ev.fold_evening(log), "done"))
    return log


def test_every_type_of_entry_has_its_handler_and_the_log_holds_each() -> None:
    assert set(HANDLERS) == set(ev.ENTRY_TYPES)
    assert {item["type"] for item in _log()} == set(ev.ENTRY_TYPES)


def test_values_and_rows_fold_to_the_same_evening() -> None:
    rows = [{**row, "hash": f"h{row['seq']}"} for row in _log()]
    values = [ev.read_entry(r["seq"], r["type"], r["data"], r["by"], r["recorded_at"], r["hash"]) for r in rows]
    assert dataclasses.asdict(ev.fold_evening(rows)) == dataclasses.asdict(ev.fold_evening(values))
    state = ev.fold_evening(values)
    assert state.version == len(rows) and state.closed and state.frozen_through is None
    assert state.voided == {"g22": "cards missing"} and state.withdrawn == {"C": "ill"}
    assert [mend["type"] for mend in state.mends] == [ev.ADJUSTED, ev.VOIDED, ev.AWARDED, ev.WITHDRAWN]
    assert state.mends[0] == dict(values[5])  # a mend kept as the log shows it


def test_an_entry_of_a_type_not_known_changes_only_the_version() -> None:
    log = _log()[:1]
    log.append(ev.entry(2, "some_later_type", {"x": 1}))
    before, after = ev.fold_evening(log[:1]), ev.fold_evening(log)
    assert after.version == 2 and dataclasses.replace(after, version=1) == before


def test_a_value_reads_as_the_row_it_was_read_from() -> None:
    row = {**_log()[5], "hash": "0" * 64}
    value = ev.as_entry(row)
    assert dict(value) == row and list(value) == list(row) and value["by"] == row["by"] and len(value) == 6
    assert {**value, "mend": True} == {**row, "mend": True}
    unchained = ev.as_entry(_log()[0])
    assert "hash" not in unchained and dict(unchained) == _log()[0]
    with pytest.raises(KeyError):
        value["v"]  # the schema version is the value's, not a field of the log's JSON
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.seq = 9  # type: ignore[misc]


def test_the_chain_of_an_evening_is_the_same_link_as_a_games() -> None:
    chained, previous = [], GENESIS
    for row in _log():
        body = canonical_bytes({name: row[name] for name in ev.HASHED})
        assert ev.entry_hash(previous, row) == hashlib.sha256(previous.encode() + body).hexdigest()
        assert ev.entry_hash(previous, ev.as_entry(row)) == link(previous, body)
        row["hash"] = previous = link(previous, body)
        chained.append(row)
    values = [ev.as_entry(row) for row in chained]
    assert ev.first_bad_entry(chained) is None and ev.first_bad_entry(values) is None
    assert first_unlinked(values, ev.entry_hash) is None
    values[3] = dataclasses.replace(values[3], by={"role": "operator"})
    assert ev.first_bad_entry(values) == 4
    record = {"seq": 1, "deal": 0, "type": "game_started", "data": {"a": 1}, "v": 1,
              "recorded_at": "2026-01-01T00:00:00.000000Z"}
    assert event_hash(GENESIS, record) == hashlib.sha256(GENESIS.encode() + record_bytes(record)).hexdigest()


def test_an_older_entry_is_upcast_on_read_through_the_games_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events_module, "UPCASTERS", {})
    monkeypatch.setattr(entries_module, "ENTRY_VERSION", 2)

    @events_module.register_upcaster(ev.ADJUSTED, 1)
    def points(data: dict) -> dict:
        return {**data, "unit": "points"}

    row = {"seq": 2, "type": ev.ADJUSTED, "data": {"player": "D", "amount": -10, "round": 1, "reason": "slow"},
           "by": {}, "recorded_at": "2026-11-26T20:01:00.000000Z"}
    stored = ev.entry_hash(GENESIS, row)
    value = ev.read_entry(row["seq"], row["type"], row["data"], row["by"], row["recorded_at"], stored, v=1)
    assert value.v == 2 and value.data["unit"] == "points" and "unit" not in row["data"]  # the row is not rewritten
    assert ev.entry_hash(GENESIS, value) == stored  # the hash is over what was written
    with pytest.raises(ValueError):
        ev.read_entry(3, ev.VOIDED, {}, {}, "", None, v=1)  # no upcaster for it


def test_each_kind_of_decision_is_parsed_as_its_value() -> None:
    assert ev.DECISION_KINDS == ("arrival", "departure", "adjustment", "void", "withdrawal", "award", "freeze",
                                 "reveal")
    assert ev.parse_decision({"type": "departure", "players": ["A"], "signed_by": "Zoé"}) == ev.Departure(("A",))
    assert ev.parse_decision({"type": "adjustment", "player": "D", "amount": -10, "reason": "r"}) == \
        ev.Adjustment("D", -10, "r")
    assert ev.parse_decision({"type": "withdrawal", "player": "C", "reason": "ill"}) == ev.Withdrawal("C", "ill")
    assert ev.parse_decision({"type": "freeze", "through_round": 0}) == ev.Freeze(0)
    assert ev.parse_decision({"type": "reveal"}) == ev.Reveal()


@pytest.mark.parametrize(("payload", "field"), [
    ({"type": "promotion"}, "type"), ([], "type"), ({"type": "award", "player": "B", "round": 2}, "score"),
    ({"type": "adjustment", "player": "D", "amount": True}, "amount"),
    ({"type": "arrival", "players": "A"}, "players"), ({"type": "arrival", "players": [1]}, "players"),
    ({"type": "void", "game": 3}, "game"), ({"type": "withdrawal", "player": "C"}, "reason"),
])
def test_a_decision_not_well_formed_is_refused(payload: object, field: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        ev.parse_decision(payload)
    assert refused.value.code == "invalid-request" and refused.value.params["field"] == field


def test_a_decision_is_decided_by_the_decider_of_its_kind_with_the_same_refusals() -> None:
    state = ev.fold_evening(_log()[:4])
    assert ev.decide(state, ev.Adjustment("d", 5, "late")) == ev.decide_mend(
        state, ev.ADJUSTED, {"player": "d", "amount": 5, "reason": "late"})
    for decision, code in ((ev.Adjustment("D", 5, " "), "reason-needed"), (ev.Void("g99", "r"), "not-evening-game"),
                           (ev.Award("B", 3, 10, "r"), "invalid-round"), (ev.Reveal(), "not-frozen"),
                           (ev.Arrival(("A",)), "player-present"), (ev.Departure(("Z",)), "unknown-player")):
        with pytest.raises((InvalidInput, RuleViolation)) as refused:
            ev.decide(state, decision)
        assert refused.value.code == code
