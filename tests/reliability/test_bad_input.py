"""Bad input through the HTTP API: every refusal is a clean 4xx problem with a code, and the log stays as it was.

Random batches of actions (hypothesis) mix plausible plays with illegal ones and
plain garbage; then a table of malformed requests: JSON that is not JSON, wrong
types, unknown fields, the wrong content type, odd text, numbers out of any
range and bodies over the size limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from nj_ledger.cards import DECK, SUITS
from support.http import PLAYERS, Calls, Club, assert_problem
from support.scale import scaled, sized

from .helpers import replayed_view

HUGE = [10**30, -(10**30), 2**63, 2**31, -1, 0]
ODD_TEXT = ["\ud800", "a\udfffb", "\x00", "x\x00y", "\u202eevil", "\u200f", "🃏", "Chloé", "", " ", "\ufeff", "\n"]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6) | st.sampled_from(ODD_TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
SEATS = st.integers(-2, 4) | st.sampled_from(HUGE) | st.sampled_from(["0", "seat:1", 1.0, None, [0]])
CARDS = (st.sampled_from([str(card) for card in DECK])
         | st.sampled_from(["ZZ", "1H", "11C", "7♦", "10d", "t♠", "\u200f7D", "7D\x00"]) | st.text(max_size=4))
CARD_LISTS = st.lists(CARDS, max_size=4) | CARDS | st.none()
ACCOUNTS = st.sampled_from(["seat:0", "seat:1", "seat:2", "seat:9", "box:7D", "box:5H", "bank", 0, None])
ACTIONS = st.one_of(
    st.just({"type": "deal"}),
    st.fixed_dictionaries({"type": st.just("deal")}, optional={"dealer": SEATS, "hands": JSON_VALUES,
                                                                "talon": CARD_LISTS}),
    st.fixed_dictionaries({"type": st.just("play"), "seat": SEATS, "cards": CARD_LISTS},
                          optional={"announced": CARD_LISTS}),
    st.fixed_dictionaries({"type": st.just("pass"), "seat": SEATS}),
    st.fixed_dictionaries({"type": st.just("reveal"), "seat": SEATS, "cards": CARD_LISTS}),
    st.fixed_dictionaries({"type": st.just("undo")}, optional={"reason": JSON_VALUES}),
    st.fixed_dictionaries({"type": st.just("adjust"), "from": ACCOUNTS, "to": ACCOUNTS,
                           "amount": st.integers(-3, 80) | st.sampled_from(HUGE) | JSON_VALUES},
                          optional={"reason": JSON_VALUES}),
    st.fixed_dictionaries({"type": st.just("end")}, optional={"reason": JSON_VALUES}),
    st.dictionaries(st.sampled_from(["type", "seat", "cards", "colour", "\x00"]), JSON_VALUES, max_size=3),
    JSON_VALUES,
)


def plausible_play(state: dict[str, Any], suit: str) -> dict[str, Any] | None:
    """A play by the seat to act that continues the run (legal unless the card is gone), if a deal is on."""
    deal = state.get("deal")
    if state["status"] != "playing" or not deal:
        return None
    rank = deal["expected"] or "7"
    return {"type": "play", "seat": deal["turn"], "cards": [f"{rank}{suit}"]}


def check_answer(calls: Calls, club: Club, game: str, batch: Any) -> bool:
    """Send a batch; a 201 appends exactly what it says, anything else is a 4xx problem that stored nothing."""
    before = calls.events(club, game)
    answer = calls.client.post(f"/api/v1/games/{game}/actions", json={"actions": batch}, headers=club.auth)
    after = calls.events(club, game)
    if answer.status_code == 201:
        assert after == before + answer.json["events"]
        assert [e["seq"] for e in after] == list(range(1, len(after) + 1))
        state = {k: v for k, v in answer.json["state"].items() if k not in ("id", "club", "title", "date")}
        assert state == replayed_view(after)
        return True
    body = assert_problem(answer)
    assert 400 <= answer.status_code < 500 and body["code"]
    assert after == before, "a refused batch changed the log"
    return False


def random_batches(calls: Calls, club: Club, data: st.DataObject) -> None:
    game = calls.game(club)["id"]
    for _ in range(data.draw(st.integers(1, 8), label="batches")):
        batch: list[Any] = data.draw(st.lists(ACTIONS, min_size=1, max_size=3), label="batch")
        if data.draw(st.booleans(), label="plausible"):
            play = plausible_play(calls.state(club, game), data.draw(st.sampled_from(SUITS), label="suit"))
            batch = [play or {"type": "deal"}, *batch[:1]] if data.draw(st.booleans()) else [play or {"type": "deal"}]
        check_answer(calls, club, game, batch)
    audit = calls.audit(club, game)
    assert audit["ok"], audit["findings"]


# No shrinking: an example is a whole game of HTTP calls, and the failing one is shown as it was found.
SETTINGS = {"deadline": None, "database": None, "phases": [Phase.explicit, Phase.generate],
            "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]}


@scaled
@settings(max_examples=sized(15, 100), **SETTINGS)
@given(data=st.data())
def test_random_batches_are_stored_whole_or_refused_with_a_code(calls, club, data) -> None:
    random_batches(calls, club, data)


@dataclass
class Shared:
    """A club and a game with a deal in progress that the refusal tests share: a refusal changes nothing."""

    calls: Calls
    club: Club
    game: str


@pytest.fixture(scope="module")
def shared(app: Flask) -> Shared:
    calls = Calls(app.test_client())
    club = calls.club("Les Maladroits")
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    return Shared(calls, club, game)


JSON = "application/json"
NOT_JSON = [
    ('{"actions": [', "truncated"),
    ('{"actions": []} trailing', "trailing garbage"),
    ('{"actions": [{"type": "deal"},]}', "trailing comma"),
    ("{'actions': []}", "single quotes"),
    ('{"actions": [{"type": "adjust", "amount": NaN}]}', "NaN"),
    ('{"actions": [{"type": "adjust", "amount": Infinity}]}', "Infinity"),
    ('{"actions": [{"type": "adjust", "amount": ' + "9" * 5000 + "}]}", "a number of 5,000 digits"),
    (b'{"actions": [{"type": "end", "reason": "\xff\xfe"}]}', "bytes that are not UTF-8"),
    ('{"actions": ' + "[" * 5000 + "]" * 5000 + "}", "nested 5,000 deep"),
]


@pytest.mark.parametrize(("body", "what"), NOT_JSON, ids=[what for _, what in NOT_JSON])
def test_a_body_that_is_not_json_is_400_invalid_json(shared, body, what) -> None:
    calls, club, game = shared.calls, shared.club, shared.game
    before = calls.events(club, game)
    answer = calls.post(f"/api/v1/games/{game}/actions", data=body, content_type=JSON, club=club)
    assert_problem(answer, 400, "invalid-json")
    assert calls.events(club, game) == before


def nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


WRONG_SHAPES = [
    ({"actions": {"type": "deal"}}, "invalid-request"),
    ({"actions": [[{"type": "deal"}]]}, "invalid-request"),
    ({"actions": [{"type": "end"}], "colour": "red"}, "invalid-request"),
    ({"actions": [{"type": "end"}] * 1001}, "invalid-request"),
    ({"actions": [{"type": "end", "colour": "red"}]}, None),
    ({"actions": [{"type": 7}]}, None),
    ({"actions": [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": "5"}]}, None),
    ({"actions": [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2.5}]}, None),
    ({"actions": [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": True}]}, None),
    ({"actions": [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 10**30}]}, None),
    ({"actions": [{"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": -5}]}, None),
    ({"actions": [{"type": "play", "seat": 10**30, "cards": ["7D"]}]}, None),
    ({"actions": [{"type": "play", "seat": -1, "cards": ["7D"]}]}, None),
    ({"actions": [{"type": "play", "seat": 2**63, "cards": ["7D"] * 10**4}]}, None),
    ({"actions": [{"type": "play", "seat": 0, "cards": "7D"}]}, None),
    ({"actions": [{"type": "end", "reason": "a\ud800b"}]}, "invalid-request"),
    ({"actions": [{"type": "end", "reason": "a\x00b"}]}, "invalid-request"),
    ({"actions": [{"type": "end", "a\x00": 1}]}, "invalid-request"),
    ({"actions": [{"type": "end", "reason": "x" * 10**5}]}, None),
    ({"actions": [{"type": "end", "reason": nested(40)}]}, "invalid-request"),
]


@pytest.mark.parametrize(("body", "code"), WRONG_SHAPES)
def test_wrong_types_unknown_fields_odd_text_and_wild_numbers_are_refused(shared, body, code) -> None:
    calls, club, game = shared.calls, shared.club, shared.game
    before = calls.events(club, game)
    answer = calls.client.post(f"/api/v1/games/{game}/actions", json=body, headers=club.auth)
    problem = assert_problem(answer, 422, code)
    if code is None:  # refused by the rules engine: it names the action
        assert problem["index"] == 0
    assert calls.events(club, game) == before


NEW_GAMES = [
    {"players": "Ana, Ben", "starting_chips": 60},
    {"players": ["Ana", 7], "starting_chips": 60},
    {"players": ["Ana", "Ben"], "starting_chips": "60"},
    {"players": ["Ana", "Ben"], "starting_chips": 60.0},
    {"players": ["Ana", "Ben"], "starting_chips": None},
    {"players": ["Ana", "Ben"], "starting_chips": 60, "colour": "red"},
    {"players": ["Ana", "Ben"], "starting_chips": 10**30},
    {"players": ["Ana", "Ben"], "starting_chips": -60},
    {"players": ["Ana", "Ben"], "starting_chips": 2**63},
    {"players": ["Ana", "Ben"], "starting_chips": 60, "dealer": 10**30},
    {"players": ["Ana", "Ben"], "starting_chips": 60, "dealer": -1},
    {"players": ["Ana", "Ben"], "starting_chips": 60, "rules": {"profile": "classic", "stake_unit": 10**30}},
    {"players": ["Ana", "Ben"], "starting_chips": 60, "rules": {"profile": "classic", "colour": "red"}},
    {"players": ["Ana", "Ben"], "starting_chips": 60, "rules": 7},
    {"players": ["A\ud800", "Ben"], "starting_chips": 60},
    {"players": ["A\x00", "Ben"], "starting_chips": 60},
    {"players": ["Ana", "x" * 81], "starting_chips": 60},
    {"players": ["Ana"] * 17, "starting_chips": 60},
    {"players": [], "starting_chips": 60},
]


@pytest.mark.parametrize("body", NEW_GAMES)
def test_a_bad_new_game_is_a_4xx_problem_and_stores_nothing(shared, body) -> None:
    calls, club = shared.calls, shared.club
    before = calls.client.get(f"/api/v1/clubs/{club.id}", headers=club.auth).json["games"]
    answer = calls.client.post(f"/api/v1/clubs/{club.id}/games", json=body, headers=club.auth)
    assert_problem(answer, 422)
    assert calls.client.get(f"/api/v1/clubs/{club.id}", headers=club.auth).json["games"] == before


def test_emoji_right_to_left_and_accented_names_are_kept_composed(calls, club) -> None:
    """Kept as typed, in Unicode's composed form (NFC): "Chloé" typed with an e and an accent is kept with its é;
    a mark that shows nothing (U+200F) is refused (tests/api/test_names.py)."""
    names = ["Ana 🃏", "בן", "Zoë\u0301", "Chloe\u0301"]
    kept = ["Ana 🃏", "בן", "Zoë\u0301", "Chloé"]  # ë with an acute has no composed form: kept as it is
    game = calls.game(club, names)
    assert [seat["name"] for seat in game["players"]] == kept
    assert [seat["name"] for seat in calls.state(club, game["id"])["players"]] == kept
    assert calls.events(club, game["id"])[0]["data"]["players"] == kept
    assert calls.audit(club, game["id"])["ok"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml",
                                          "multipart/form-data; boundary=x", ""])
def test_a_body_that_is_not_sent_as_json_is_415(shared, content_type) -> None:
    calls, club, game = shared.calls, shared.club, shared.game
    before = calls.events(club, game)
    answer = calls.post(f"/api/v1/games/{game}/actions", data=json.dumps({"actions": [{"type": "end"}]}),
                        content_type=content_type, club=club)
    assert_problem(answer, 415, "unsupported-media-type")
    assert calls.events(club, game) == before


@pytest.mark.parametrize(("path", "status"), [
    ("/api/v1/games/{game}/events?after=99999999999999999999", 422),
    ("/api/v1/games/{game}/events?after=-1", 422),
    ("/api/v1/games/{game}/events?limit=100000", 422),
    ("/api/v1/games/{game}/taps?seat=99999999999999999999", 422),
    ("/api/v1/games/{game}/taps?cards=5H,%00", 422),
    ("/api/v1/games/{game}/taps?cards=" + "5H," * 60, 422),
    ("/api/v1/games/{game}/deals/99999999999999999999/replay", 404),
    ("/api/v1/games/{game}/deals/2147483647/replay", 404),  # the largest number a column holds: the next is not
    ("/api/v1/games/{game}/deals/2147483647/analysis", 404),
    ("/api/v1/games/{game}/deals/1/replay?at=99999999999999", 422),
    ("/api/v1/clubs/{club}/games?offset=18446744073709551615", 422),
    ("/api/v1/clubs/{club}/players?offset=99999999999999999999", 422),
    ("/api/v1/clubs/{club}/games?player=%00", 422),
    ("/api/v1/clubs/{club}/games?date=0000-00-00", 422),
    ("/api/v1/games/%00/events", 404),
    ("/api/v1/games/{game}%ED%A0%80", 404),
    ("/api/v1/games/" + "x" * 5000, 404),
])
def test_wild_paths_and_query_strings_are_4xx_problems(shared, path, status) -> None:
    calls, club, game = shared.calls, shared.club, shared.game
    answer = calls.client.get(path.format(game=game, club=club.id), headers=club.auth)
    assert_problem(answer, status)


def test_a_body_over_the_size_limit_is_413_and_stores_nothing(shared) -> None:
    calls, club, game = shared.calls, shared.club, shared.game
    limit = calls.client.application.config["MAX_CONTENT_LENGTH"]
    before = calls.events(club, game)
    body = json.dumps({"actions": [{"type": "end", "reason": "x" * limit}]})
    answer = calls.post(f"/api/v1/games/{game}/actions", data=body, content_type=JSON, club=club)
    assert_problem(answer, 413, "request-too-large")
    document = {"format": "nj-ledger/game", "version": 1, "players": PLAYERS, "rules": "classic",
                "starting_chips": 60, "actions": [{"type": "end", "reason": "x" * limit}]}
    assert_problem(calls.post(f"/api/v1/clubs/{club.id}/imports", data=json.dumps(document), content_type=JSON,
                              club=club), 413)
    assert calls.events(club, game) == before
