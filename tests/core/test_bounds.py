"""Bounded numbers and deals: every number a game is made of stays within a documented range.

Numbers sent in (rule options, starting chips, seats, amounts) are refused outside their range, naming the
field; the numbers the engine makes (chips held and moved, events in a deal) are held within theirs by
refusing the table action that would pass them. Stored events are facts: old rules resolve as recorded.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from nj_ledger import DECK, Event, InvalidInput, LedgerError, RuleViolation, execute, new_game, replay
from nj_ledger.bounds import (
    ADJUSTMENT,
    MAX_CHIPS,
    MAX_DEAL_EVENTS,
    MAX_DOCUMENT_EVENTS,
    MAX_GAME_EVENTS,
    RULE_RANGES,
    STARTING_CHIPS,
)
from nj_ledger.exchange import load_game, read_game_document
from nj_ledger.notation import NotationError, parse_njn
from nj_ledger.rules import PROFILES, resolve_rules
from nj_ledger.simulator import simulate
from nj_ledger.state import GameState
from support.sentences import said

PLAYERS = ["Ana", "Ben", "Chloé"]
HONOURS = ("10D", "JC", "QS", "KH", "7D")
# Every whole-number rule option at the top of its range.
LARGEST_RULES = {
    "profile": "classic",
    "board": dict.fromkeys(HONOURS, RULE_RANGES["board"][1]),
    "stake_unit": RULE_RANGES["stake_unit"][1],
    "point_value": RULE_RANGES["point_value"][1],
    "hoc_reward": RULE_RANGES["hoc_reward"][1],
    "max_deals": RULE_RANGES["max_deals"][1],
}


def numbers(value: Any) -> Iterator[Any]:
    """Every number inside a JSON value (bools are not numbers here)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from numbers(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from numbers(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def deal_events(log: list[Event]) -> collections.Counter[int]:
    """Events in each deal's stretch of the log."""
    return collections.Counter(event.deal for event in log)


# --- rule options --------------------------------------------------------------------------------
@pytest.mark.parametrize("override, field", [
    ({"stake_unit": 1_001}, "rules.stake_unit"),
    ({"stake_unit": 10**18}, "rules.stake_unit"),
    ({"point_value": 1_001}, "rules.point_value"),
    ({"hoc_reward": 1_001}, "rules.hoc_reward"),
    ({"max_deals": 10_001}, "rules.max_deals"),
    ({"max_deals": 10**30}, "rules.max_deals"),
    ({"players": [3, 5], "max_deals": {"3": 12, "5": 10_001}}, "rules.max_deals.5"),
    ({"board": {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 1_001}}, "rules.board.7D"),
    ({"board": {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 2**64}}, "rules.board.7D"),
])
def test_a_new_game_refuses_a_rule_number_past_its_range_naming_it(override: dict[str, Any],
                                                                    field: str) -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(PLAYERS, {"profile": "classic", **override}, 10**9)
    assert refusal.value.code == "invalid-rules"
    assert refusal.value.params["field"] == field
    option = field.split(".")[1]
    least, most = RULE_RANGES[option]
    assert said(refusal.value).startswith(
        f"Rule option {option!r} must be a whole number from {least} to {most}, not ")


@pytest.mark.parametrize("override, field", [
    ({"stake_unit": 0}, "rules.stake_unit"),
    ({"hoc_reward": -1}, "rules.hoc_reward"),
    ({"max_deals": 0}, "rules.max_deals"),
    ({"max_deals": {"3": 0}}, "rules.max_deals.3"),
    ({"board": {"10D": 0, "JC": 2, "QS": 3, "KH": 4, "7D": 5}}, "rules.board.10D"),
    ({"players": [3, 9]}, "rules.players"),
    ({"players": {"min": 2, "max": 10**12}}, "rules.players.max"),  # refused before 10**12 counts are listed
])
def test_a_rule_number_below_its_range_or_past_the_player_counts_is_named_too(
        override: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(PLAYERS, {"profile": "classic", **override}, 60)
    assert (refusal.value.code, refusal.value.params["field"]) == ("invalid-rules", field)
    assert said(refusal.value).startswith(f"Rule option {field.split('.')[1]!r} cannot be ")


def test_every_rule_number_at_the_top_of_its_range_is_accepted() -> None:
    started = new_game(PLAYERS, LARGEST_RULES, STARTING_CHIPS[1])
    rules = started.data["rules"]
    assert (rules["stake_unit"], rules["point_value"], rules["hoc_reward"], rules["max_deals"]) == (
        1_000, 1_000, 1_000, 10_000)
    assert set(rules["board"].values()) == {1_000} and started.data["starting_chips"] == 10**9
    by_count = new_game(PLAYERS, {"profile": "classic", "max_deals": {"3": 10_000}}, 60)
    assert by_count.data["rules"]["max_deals"] == {"3": 10_000}
    assert new_game(PLAYERS, {"profile": "classic", "hoc_reward": 0}, 60).data["rules"]["hoc_reward"] == 0


def test_rules_stored_past_todays_bounds_still_resolve_as_recorded() -> None:
    """A stored game_started is a fact: its rules are folded whatever they hold, never re-validated."""
    recorded = resolve_rules({"profile": "classic", "stake_unit": 10**18, "max_deals": 10**30,
                              "shortfall": "negative"}).to_dict()
    started = Event("game_started",
                    {"players": PLAYERS, "rules": recorded, "starting_chips": 60, "dealer": 2}, 0)
    state = replay([started])
    assert (state.rules.stake_unit, state.rules.max_deals) == (10**18, 10**30)
    # ... but no new table action may make a number past the bounds of chips: the ante is 10**18 chips.
    with pytest.raises(RuleViolation) as refusal:
        execute(state, [{"type": "deal"}])
    assert refusal.value.code == "chips-out-of-range"
    assert said(refusal.value) == (
        "This would move 1000000000000000000 chips at once: a transfer moves at most 1000000000000 chips.")


def test_starting_chips_and_the_first_dealer_are_named_when_refused() -> None:
    with pytest.raises(InvalidInput) as refusal:
        new_game(PLAYERS, "classic", STARTING_CHIPS[1] + 1)
    assert (refusal.value.code, refusal.value.params["field"]) == ("invalid-chips", "starting_chips")
    with pytest.raises(InvalidInput) as refusal:
        new_game(PLAYERS, "classic", 60, dealer=10**20)
    assert (refusal.value.code, refusal.value.params["field"]) == ("invalid-players", "dealer")


def test_an_adjustment_is_one_to_a_billion_chips() -> None:
    state = replay([new_game(PLAYERS, {"profile": "classic", "shortfall": "negative"}, 60)])
    for amount in (0, ADJUSTMENT[1] + 1, 10**30):
        with pytest.raises(InvalidInput) as refusal:
            execute(state, [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": amount}])
        assert (refusal.value.code, refusal.value.params["field"]) == ("invalid-amount", "amount")
        assert said(refusal.value).startswith(
            "amount must be a whole number of chips from 1 to 1,000,000,000, not ")
    after, _ = execute(state, [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": ADJUSTMENT[1]}])
    assert after.balances == (60 - 10**9, 60 + 10**9, 60)


def test_a_document_names_the_rule_option_out_of_range() -> None:
    document = {"format": "nj-ledger/game", "version": 1, "players": PLAYERS, "starting_chips": 60,
                "rules": {"profile": "classic", "stake_unit": 10**18}, "actions": []}
    with pytest.raises(InvalidInput) as refusal:
        read_game_document(document)
    error = refusal.value
    assert (error.code, error.params["field"], error.params["cause"]) == (
        "invalid-document", "rules.stake_unit", "invalid-rules")
    assert said(error).startswith("rules.stake_unit: Rule option 'stake_unit' must be a whole number")


# --- chips: no account past ±MAX_CHIPS -------------------------------------------------------------
# Two players on a score sheet (shortfall: negative), every stake at its top, bêtes doubling the boxes:
# first hand lays out 22 cards in one turn and the other seat, holding the five honours, pays each box its
# amount again at every deal. The boxes double deal after deal, and so do the debts.
DOUBLING_RULES = {**LARGEST_RULES, "shortfall": "negative", "bete": "double",
                  "grand_opera": {"condition": "first_turn", "reward": "none"}}
WINNING_HAND = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JH", "QH", "KC",
                "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]


def doubling_deal(dealer: int) -> list[dict[str, Any]]:
    """The deal and the play of one deal of the doubling game dealt by ``dealer``: first hand goes out at
    once, the other seat is left holding every honour."""
    first_hand = (dealer + 1) % 2
    rest = [str(card) for card in DECK if str(card) not in WINNING_HAND and str(card) not in HONOURS]
    hands = [[], []]
    hands[first_hand] = WINNING_HAND
    hands[1 - first_hand] = [*HONOURS, *rest[:17]]
    return [{"type": "deal", "hands": hands, "talon": rest[17:]},
            {"type": "play", "seat": first_hand, "cards": WINNING_HAND}]


def doubling_game() -> tuple[list[Event], RuleViolation]:
    """The doubling game played until the engine refuses a deal: its log, and the refusal."""
    log = [new_game(["Ana", "Ben"], DOUBLING_RULES, STARTING_CHIPS[1])]
    state = replay(log)
    for _ in range(100):
        try:
            state, events = execute(state, doubling_deal(state.next_dealer()))
        except RuleViolation as refusal:
            return log, refusal
        log.extend(events)
    raise AssertionError("a hundred doubling deals and no refusal")


def test_a_doubling_game_is_refused_before_any_number_passes_the_bound() -> None:
    log, refusal = doubling_game()
    assert refusal.code == "chips-out-of-range"
    assert refusal.params["limit"] == MAX_CHIPS and abs(refusal.params["chips"]) > MAX_CHIPS
    assert "holds at most 1000000000000" in said(refusal)
    found = [number for event in log for number in numbers(event.data)]
    assert all(isinstance(number, int) for number in found)
    assert max(abs(number) for number in found) <= MAX_CHIPS
    state = replay(log)
    # the game came close (a seat owes more than half the bound) and the bound stopped it
    assert MAX_CHIPS // 2 < max(map(abs, (*state.balances, *state.boxes))) <= MAX_CHIPS
    assert sum(state.balances) + sum(state.boxes) == state.total_chips
    assert state.deals_played >= 15  # a long game: every deal doubled the boxes


def recorded_with(source: str, target: str, amount: int) -> GameState:
    """A score-sheet game whose log (facts, never re-validated) already moved ``amount`` chips."""
    started = new_game(PLAYERS, {"profile": "classic", "shortfall": "negative"}, 60)
    moved = {"from": source, "to": target, "amount": amount}
    return replay([started, Event("adjust", {**moved, "reason": ""}, 0),
                   Event("transfer", {**moved, "reason": "adjust"}, 0)])


DEAL = {"type": "deal"}  # each seat antes 1, 2, 3, 4 and 5 chips


@pytest.mark.parametrize("source, target, amount, action, sentence", [
    ("seat:0", "box:7D", MAX_CHIPS - 10, DEAL,
     "This would leave 1000000000005 chips in the 7D box: a box holds at most 1000000000000."),
    ("seat:0", "seat:1", MAX_CHIPS + 50, DEAL,
     "This would leave Ana (seat 0) with -1000000000005 chips: a player holds at most 1000000000000 chips "
     "either way."),
    ("seat:1", "seat:0", MAX_CHIPS - 90, {"type": "adjust", "from": "seat:2", "to": "seat:0", "amount": 31},
     "This would leave Ana (seat 0) with 1000000000001 chips: a player holds at most 1000000000000 chips "
     "either way."),
])
def test_a_seat_or_a_box_past_the_bound_is_refused_naming_it(source: str, target: str, amount: int,
                                                             action: dict[str, Any], sentence: str) -> None:
    state = recorded_with(source, target, amount)
    with pytest.raises(RuleViolation) as refusal:
        execute(state, [action])
    assert (refusal.value.code, said(refusal.value)) == ("chips-out-of-range", sentence)


def test_a_seat_at_exactly_the_bound_is_kept() -> None:
    state = recorded_with("seat:1", "seat:0", MAX_CHIPS - 90)
    after, _ = execute(state, [{"type": "adjust", "from": "seat:2", "to": "seat:0", "amount": 30}])
    assert after.balances[0] == MAX_CHIPS


def test_the_numbers_of_a_game_at_its_bounds_read_back_as_integers() -> None:
    """orjson reads integers past 64 bits as floats: no stored number comes near them."""
    log, _ = doubling_game()
    for event in log:
        written = orjson.dumps(event.to_dict())
        assert orjson.loads(written) == event.to_dict()
        assert all(isinstance(number, int) for number in numbers(orjson.loads(written)))


# --- events in a deal ---------------------------------------------------------------------------------
def replay_bomb(pairs: int) -> list[dict[str, Any]]:
    """A deal, then one play withdrawn and recorded again ``pairs`` times."""
    return [{"type": "deal"}, *[action for _ in range(pairs) for action in (
        {"type": "play", "seat": 0, "cards": ["5H"]}, {"type": "undo", "reason": "again"})]]


def test_a_deal_past_its_events_is_refused_and_undo_does_not_reset_the_count() -> None:
    state = replay([new_game(PLAYERS, "classic", 60)])
    actions = replay_bomb(26_500)
    with pytest.raises(RuleViolation) as refusal:
        execute(state, actions)
    error = refusal.value
    assert error.code == "deal-too-long"
    assert error.params["limit"] == MAX_DEAL_EVENTS and error.params["count"] == MAX_DEAL_EVENTS + 1
    assert said(error).startswith(f"Deal 1 would hold {MAX_DEAL_EVENTS + 1} events, more than the 1000 ")
    index = error.params["index"]
    assert actions[index]["type"] in ("play", "undo") and index < MAX_DEAL_EVENTS
    before, events = execute(state, actions[:index])
    assert deal_events(events) == {1: MAX_DEAL_EVENTS}  # the deal holds all it may: one event more is refused
    # the state after many undos is the state after the antes, but the deal's count went on growing
    dealt, _ = execute(state, actions[:1])
    assert before.deal.hand_sizes == dealt.deal.hand_sizes and before.boxes == dealt.boxes
    assert before.version - before.deal_first_seq > dealt.version - dealt.deal_first_seq


def test_the_replay_bomb_document_is_refused_on_import() -> None:
    document = {"format": "nj-ledger/game", "version": 1, "players": PLAYERS, "rules": "classic",
                "starting_chips": 60, "actions": replay_bomb(26_500)}
    with pytest.raises(LedgerError) as refusal:
        load_game(document)
    assert refusal.value.code == "deal-too-long" and refusal.value.params["index"] < MAX_DEAL_EVENTS


def test_adjustments_after_a_deal_count_towards_it_and_before_the_first_deal_towards_nothing() -> None:
    """Adjustments agreed after a deal belong to its stretch of the log (its replay shows them): they cannot grow
    it without end. Before the first deal no replay shows them, and only the game bounds them."""
    adjustment = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1}
    state = replay([new_game(PLAYERS, {"profile": "classic", "shortfall": "negative"}, 60)])
    state, _ = execute(state, [adjustment] * MAX_DEAL_EVENTS)
    assert state.version == 2 * MAX_DEAL_EVENTS + 1 and state.deal_number == 0

    game = simulate(seed=4, players=3, deals=2, starting_chips=200)
    first_end = next(seq for seq, event in enumerate(game.events, start=1) if event.type == "deal_ended")
    state = replay(game.events[:first_end])
    room = (MAX_DEAL_EVENTS - (state.version - state.deal_first_seq + 1)) // 2  # two events an adjustment
    back = {**adjustment, "from": "seat:1", "to": "seat:0"}
    there_and_back = [adjustment, back] * (room // 2) + [adjustment] * (room % 2)
    state, _ = execute(state, there_and_back)
    with pytest.raises(RuleViolation) as refusal:
        execute(state, [back])
    assert refusal.value.code == "deal-too-long" and refusal.value.params["deal"] == 1
    state, events = execute(state, [{"type": "deal"}])  # a deal starts a new count
    assert state.version - state.deal_first_seq + 1 == len(events) == 16


def test_the_bound_is_a_few_times_what_simulated_deals_reach() -> None:
    """Bots of every profile, 2 to 8 players, full and partial information, undoing and stopping often."""
    most = 0
    for profile in PROFILES:
        for players in resolve_rules(profile).players:
            for info in ("full", "partial"):
                for seed in range(2):
                    game = simulate(seed=seed, profile=profile, players=players, info=info, deals=4,
                                    chatter=3.0)
                    most = max(most, *deal_events(game.events).values())
    assert 100 < most <= MAX_DEAL_EVENTS // 2


# --- events in a game --------------------------------------------------------------------------------
def adjustments(count: int) -> list[dict[str, Any]]:
    """``count`` adjustments of a chip there and back: what a table may agree before any deal."""
    there = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 1}
    back = {**there, "from": "seat:1", "to": "seat:0"}
    return [there if index % 2 == 0 else back for index in range(count)]


def test_adjustments_before_the_first_deal_cannot_take_a_game_past_its_events() -> None:
    """Before the first deal no deal bounds the log: 60,008 adjustments made a game of 120,017 events, which every
    audit, export and replay of the game then read whole."""
    state = replay([new_game(PLAYERS, "classic", 60)])
    actions = adjustments(60_008)
    with pytest.raises(RuleViolation) as refusal:
        execute(state, actions)
    error = refusal.value
    assert (error.code, error.params["count"], error.params["limit"]) == (
        "game-too-long", MAX_GAME_EVENTS + 1, MAX_GAME_EVENTS)
    assert said(error) == (f"The game would hold {MAX_GAME_EVENTS + 1} events, more than the {MAX_GAME_EVENTS} a "
                           "game may hold: end it and start a new one.")
    index = error.params["index"]  # two events an adjustment, after the game's first
    assert index == (MAX_GAME_EVENTS - 1) // 2
    full, _ = execute(state, actions[:index])
    assert full.version == MAX_GAME_EVENTS - 1 and full.deal_number == 0
    ended, events = execute(full, [{"type": "end", "reason": "time to go home"}])  # a game can always end
    assert ended.status == "ended" and ended.version == MAX_GAME_EVENTS + 1 and len(events) == 2


def test_a_deal_starts_only_while_the_game_has_room_for_a_whole_deal() -> None:
    """A deal begun can always be played out: it may hold MAX_DEAL_EVENTS events, and the game must have room."""
    state = replay([new_game(PLAYERS, "classic", 60)])
    room = MAX_GAME_EVENTS - MAX_DEAL_EVENTS
    at_room, _ = execute(state, adjustments((room - 1) // 2))
    assert at_room.version == room - 1
    dealt, _ = execute(at_room, [{"type": "deal"}])
    assert dealt.deal_number == 1
    past_room, _ = execute(at_room, adjustments(1))
    with pytest.raises(RuleViolation) as refusal:
        execute(past_room, [{"type": "deal"}])
    assert refusal.value.code == "game-too-long"
    assert said(refusal.value) == (
        f"The game holds {room + 1} events and a deal may add {MAX_DEAL_EVENTS}: a game holds at most "
        f"{MAX_GAME_EVENTS}. End this game and start a new one.")


def test_a_document_past_the_events_of_a_game_is_refused_on_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game brought whole may be longer than a table makes one (MAX_DOCUMENT_EVENTS: the benchmarks' game of a
    million events), never longer; the table then adds nothing to it but its end."""
    document = {"format": "nj-ledger/game", "version": 1, "players": PLAYERS, "rules": "classic",
                "starting_chips": 60, "actions": adjustments(25_000)}
    events, state = load_game(document)
    assert len(events) == MAX_GAME_EVENTS + 1 <= MAX_DOCUMENT_EVENTS
    with pytest.raises(LedgerError) as refusal:
        execute(state, adjustments(1))
    assert refusal.value.code == "game-too-long"
    assert execute(state, [{"type": "end"}])[0].status == "ended"
    monkeypatch.setattr("nj_ledger.exchange.MAX_DOCUMENT_EVENTS", MAX_GAME_EVENTS)  # its own bound, made small
    with pytest.raises(LedgerError) as refusal:
        load_game(document)
    assert refusal.value.code == "game-too-long" and refusal.value.params["index"] == 24_999


def test_the_bound_of_a_game_is_several_times_a_long_evening_of_eight_players() -> None:
    """Eight players make the longest deals; forty deals are longer than the median game of every profile (9 to
    32 deals, docs/RULES.md)."""
    longest = max(len(simulate(seed=seed, profile="classic", players=8, deals=40, starting_chips=10**6,
                               info="partial").events) for seed in range(2))
    assert longest > 4_000 and 5 * longest <= MAX_GAME_EVENTS


def test_a_game_stored_past_todays_bound_of_events_replays_and_audits_as_recorded() -> None:
    """Stored events are facts: the audit decides each recorded action again whatever today's bounds."""
    from nj_ledger.audit import audit
    from nj_ledger.chain import GENESIS, chain_events
    from nj_ledger.decide import decide
    from nj_ledger.reducer import fold

    started = new_game(PLAYERS, "classic", 60)
    state, log = replay([started]), [started]
    for action in adjustments(25_500):
        for event in decide(state, action, bounded=False):
            state = fold(state, event)
            log.append(event)
    records = chain_events(GENESIS, 0, log, "2026-01-01T00:00:00.000000Z")
    assert replay(log).version == len(records) == 51_001 > MAX_GAME_EVENTS
    report = audit(records, version=len(records), head_hash=records[-1]["hash"])
    assert report["ok"] and report["recomputation"]["checked"] == len(records), report["findings"][:3]


# --- NJN numbers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, line", [
    ('[Players "Ana; Ben"]\n[StartingChips "' + "9" * 5000 + '"]\n', 2),
    ('[Players "Ana; Ben"]\n[StartingChips ' + "9" * 4000 + "]\n", 2),
    ('[Players "Ana; Ben"]\n[StartingChips "60"]\n[Dealer "' + "9" * 5000 + '"]\n', 3),
    ('[Players "Ana; Ben"]\n[StartingChips "60"]\nDeal\n' + "9" * 5000 + ": 5H\n", 4),
    ('[Players "Ana; Ben"]\n[StartingChips "60"]\nDeal\nAdjust ' + "9" * 5000 + " from 0 to 1\n", 4),
])
def test_an_njn_number_too_long_to_read_is_refused_where_it_is_written(text: str, line: int) -> None:
    with pytest.raises(NotationError) as refusal:
        parse_njn(text)
    found = refusal.value.problems[0]
    assert found.line == line
    assert said(found).endswith("is too large a number for a record: it has at most 13 digits.")


def test_an_njn_deal_number_too_long_to_read_is_not_this_deal() -> None:
    with pytest.raises(NotationError) as refusal:
        parse_njn('[Players "Ana; Ben"]\n[StartingChips "60"]\nDeal ' + "9" * 5000 + "\n")
    assert said(refusal.value.problems[0]).startswith("This is deal 1 of the game, not deal 999")


def test_an_njn_rule_option_out_of_range_is_refused_at_its_tag() -> None:
    with pytest.raises(NotationError) as refusal:
        parse_njn('[Players "Ana; Ben"]\n[StartingChips "60"]\n[StakeUnit 1001]\n')
    found = refusal.value.problems[0]
    assert (found.line, found.column, found.code) == (3, 12, "invalid-rules")
    assert said(found) == "Rule option 'stake_unit' must be a whole number from 1 to 1000, not 1001."
