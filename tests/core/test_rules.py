"""Rule profiles and overrides (SPEC §3.1)."""

from __future__ import annotations

from typing import Any

import pytest

from nj_ledger import PROFILES, InvalidInput, Rules, resolve_rules
from support.sentences import said

from .helpers import PROFILE_NAMES

# The classic column of SPEC §3.1, written as the stored JSON form.
CLASSIC = {
    "profile": "classic",
    "board": {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 5},
    "players": [2, 3, 4, 5, 6, 7, 8],
    "deal_table": {
        "2": [22, 8],
        "3": [15, 7],
        "4": [12, 4],
        "5": [9, 7],
        "6": [8, 4],
        "7": [7, 3],
        "8": [6, 4],
    },
    "sequence": "rank",
    "opening": "any",
    "may_stop": True,
    "blocked": "restart",
    "restarter": "last_player",
    "payment": "points",
    "bete": "double",
    "grand_opera": {"condition": "first_turn", "reward": "sweep"},
    "ante": "all",
    "stake_unit": 1,
    "point_value": 1,
    "shortfall": "end",
    "max_deals": None,
    "dealer_rotation": "next",
}

# "differs from classic" in the named profiles' table.
DIFFERENCES: dict[str, dict[str, Any]] = {
    "classic": {},
    "cards": {"payment": "cards"},
    "skip": {"blocked": "skip", "may_stop": False},
    "hearts": {
        "board": {"10D": 1, "JC": 2, "QH": 3, "KS": 4, "7D": 5},
        "opening": "lowest",
        "may_stop": False,
        "restarter": "first_passer",
        "payment": "cards",
        "bete": "none",
        "grand_opera": {"condition": "first_turn", "reward": "none"},
    },
}


@pytest.mark.parametrize("name", PROFILE_NAMES)
def test_each_profile_resolves_to_the_spec(name: str) -> None:
    stored = resolve_rules(name).to_dict()
    expected = {**CLASSIC, **DIFFERENCES[name], "profile": name}
    assert {option: stored[option] for option in expected} == expected


def test_the_hearts_board_is_in_board_order() -> None:
    assert resolve_rules("hearts").honours == ("10D", "JC", "QH", "KS", "7D")
    assert resolve_rules("classic").honours == ("10D", "JC", "QS", "KH", "7D")


def test_derived_facts() -> None:
    classic = resolve_rules("classic")
    assert classic.ante_total == 15
    assert resolve_rules({"profile": "classic", "stake_unit": 3}).ante_total == 45
    assert classic.needs_losers_hands()
    assert resolve_rules("cards").needs_losers_hands()  # bête double needs the honours held
    assert not resolve_rules("hearts").needs_losers_hands()  # one chip a card, no bête
    assert not resolve_rules({"profile": "cards", "bete": "none"}).needs_losers_hands()


def test_no_rules_means_classic_and_rules_pass_through() -> None:
    assert resolve_rules(None) == resolve_rules("classic")
    rules = resolve_rules("skip")
    assert resolve_rules(rules) is rules


def test_overrides_change_only_what_they_name() -> None:
    rules = resolve_rules(
        {
            "profile": "hearts",
            "payment": "points",
            "may_stop": True,
            "board": {"10d": 2, "j♣": 2, "QS": 2, "KH": 2, "♦7": 2},
            "deal_table": {"3": [15, 7], "4": [12, 4]},
            "players": [3, 4],
            "grand_opera": {"reward": "double"},
            "max_deals": 5,
            "stake_unit": 2,
            "point_value": 3,
            "ante": "dealer",
            "shortfall": "negative",
            "dealer_rotation": "previous",
            "sequence": "suit",
        }
    )
    stored = rules.to_dict()
    assert stored["profile"] == "hearts"
    assert stored["payment"] == "points" and stored["may_stop"] is True
    assert stored["board"] == {"10D": 2, "JC": 2, "QS": 2, "KH": 2, "7D": 2}
    assert stored["deal_table"] == {"3": [15, 7], "4": [12, 4]}
    assert stored["players"] == [3, 4]
    # a partial grand_opera override keeps the profile's other half
    assert stored["grand_opera"] == {"condition": "first_turn", "reward": "double"}
    assert (stored["max_deals"], stored["stake_unit"], stored["point_value"]) == (5, 2, 3)
    assert (stored["ante"], stored["shortfall"], stored["dealer_rotation"], stored["sequence"]) == (
        "dealer",
        "negative",
        "previous",
        "suit",
    )
    # untouched hearts options stay
    assert (stored["opening"], stored["restarter"], stored["bete"]) == ("lowest", "first_passer", "none")


def test_players_as_a_range() -> None:
    assert resolve_rules({"profile": "classic", "players": {"min": 3, "max": 5}}).players == (3, 4, 5)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_stored_form_resolves_to_the_same_rules(name: str) -> None:
    rules = resolve_rules(name)
    again = resolve_rules(rules.to_dict())
    assert again == rules
    assert again.to_dict() == rules.to_dict()


def test_the_stored_form_round_trips_with_overrides() -> None:
    rules = resolve_rules(
        {
            "profile": "skip",
            "max_deals": 3,
            "grand_opera": {"condition": "no_other_plays"},
            "board": {"AS": 1, "2S": 1, "3S": 1, "4S": 1, "5S": 9},
        }
    )
    assert resolve_rules(rules.to_dict()) == rules


def test_a_stored_game_keeps_its_rules_when_a_profile_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = resolve_rules("cards").to_dict()
    monkeypatch.setitem(PROFILES, "cards", {"payment": "points", "bete": "none"})
    assert resolve_rules(stored).payment == "cards"
    assert resolve_rules(stored).bete == "double"
    assert resolve_rules("cards").payment == "points"


@pytest.mark.parametrize(
    ("overrides", "option"),
    [
        ({"colour": "red"}, "colour"),
        ({"payment": "coins"}, "payment"),
        ({"bete": "triple"}, "bete"),
        ({"sequence": "colour"}, "sequence"),
        ({"opening": "highest"}, "opening"),
        ({"blocked": "stop"}, "blocked"),
        ({"restarter": "dealer"}, "restarter"),
        ({"ante": "none"}, "ante"),
        ({"shortfall": "forgive"}, "shortfall"),
        ({"dealer_rotation": "random"}, "dealer_rotation"),
        ({"may_stop": "yes"}, "may_stop"),
        ({"may_stop": 1}, "may_stop"),
        ({"stake_unit": 0}, "stake_unit"),
        ({"stake_unit": True}, "stake_unit"),
        ({"point_value": 1.5}, "point_value"),
        ({"max_deals": 0}, "max_deals"),
        ({"max_deals": "5"}, "max_deals"),
        ({"max_deals": {"²": 3}}, "max_deals"),
        ({"board": {"10D": 1, "JC": 2}}, "board"),
        ({"board": {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "XX": 5}}, "board"),
        ({"board": {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 0}}, "board"),
        ({"board": {"10D": 1, "td": 2, "QS": 3, "KH": 4, "7D": 5}}, "board"),
        ({"board": ["10D", "JC", "QS", "KH", "7D"]}, "board"),
        ({"players": []}, "players"),
        ({"players": [1, 3]}, "players"),
        ({"players": [3, 9]}, "players"),
        ({"deal_table": {"3": [15, 6]}, "players": [3]}, "deal_table"),
        ({"deal_table": {"9": [5, 7]}}, "deal_table"),
        ({"deal_table": {"x": [15, 7]}}, "deal_table"),
        ({"deal_table": {"3": [15]}}, "deal_table"),
        ({"deal_table": {"3": [15, 7]}}, "deal_table"),  # no line for the other allowed counts
        ({"grand_opera": {"condition": "always"}}, "grand_opera.condition"),
        ({"grand_opera": {"reward": "triple"}}, "grand_opera.reward"),
        ({"grand_opera": {"when": "first_turn"}}, "grand_opera"),
        ({"grand_opera": "sweep"}, "grand_opera"),
    ],
)
def test_a_bad_override_is_refused_naming_the_option(overrides: dict[str, Any], option: str) -> None:
    with pytest.raises(InvalidInput) as refusal:
        resolve_rules({"profile": "classic", **overrides})
    assert refusal.value.code == "invalid-rules"
    assert refusal.value.params["option"] == option
    named = option.split(".")[0]
    assert named in said(refusal.value) or named.replace("_", " ") in said(refusal.value)


def test_an_unknown_profile_is_refused() -> None:
    with pytest.raises(InvalidInput) as refusal:
        resolve_rules("poker")
    assert refusal.value.code == "invalid-rules"
    assert refusal.value.params["option"] == "profile"
    assert "'poker'" in said(refusal.value) and "classic" in said(refusal.value)
    with pytest.raises(InvalidInput) as refusal:
        resolve_rules({"profile": "poker"})
    assert refusal.value.code == "invalid-rules"


@pytest.mark.parametrize("spec", [42, ["classic"], 3.5])
def test_rules_must_be_a_name_or_an_object(spec: Any) -> None:
    with pytest.raises(InvalidInput) as refusal:
        resolve_rules(spec)
    assert refusal.value.code == "invalid-rules"


def test_rules_are_immutable() -> None:
    rules = resolve_rules("classic")
    with pytest.raises(AttributeError):
        rules.payment = "cards"  # type: ignore[misc]
    assert isinstance(rules, Rules)


@pytest.mark.parametrize("profile", [[], {}, ["classic"], {"name": "classic"}, 3, None])
def test_a_profile_that_is_not_a_name_is_refused_not_a_crash(profile: object) -> None:
    with pytest.raises(InvalidInput) as refused:
        resolve_rules({"profile": profile})
    assert refused.value.code == "invalid-rules" and refused.value.params["option"] == "profile"
