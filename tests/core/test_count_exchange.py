"""Settling by count in the exchange formats: NJN (``Reveal 1: 3 cards 27 points honours QS``) and the JSON game
document, both ways, and the problems of a count written wrong, each at its line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_ledger.exchange import load_game, write_game_document
from nj_ledger.notation import NotationError, parse_njn, write_njn
from nj_ledger.simulator import simulate
from support.scale import examples, scaled
from support.sentences import said

from .chained import chained_records

HEADER = ('[Players "Ana; Ben; Chloé"] [StartingChips "100"] [PlayerCounts [3]] [DealTable {"3": [4, 40]}]\n'
          "Deal 1 dealer 2\n0: AC 2C\n1: 3D\n2: 4D\n0: 5C 6C\n")
COUNT_FORM = "A reveal by count is written: Reveal 1: 10 cards 62 points honours KH (honours only if held)."


def reveals(text: str) -> list[dict[str, Any]]:
    return [action for action in parse_njn(text)["actions"] if action["type"] == "reveal"]


def problems(text: str) -> list[tuple[int, int, str, str]]:
    with pytest.raises(NotationError) as caught:
        parse_njn(text)
    return [(p.line, p.column, p.code, said(p)) for p in caught.value.problems]


def test_a_count_is_written_and_read_one_canonical_way() -> None:
    text = HEADER + "Reveal 1: 3 cards 27 points honours QS\nReveal 2: 3 cards 19 points honours KH 7D\n"
    assert reveals(text) == [
        {"type": "reveal", "seat": 1, "count": 3, "points": 27, "honours": ["QS"]},
        {"type": "reveal", "seat": 2, "count": 3, "points": 19, "honours": ["KH", "7D"]},
    ]
    events, _ = load_game(parse_njn(text))
    written = write_njn(events)
    assert "Reveal 1: 3 cards 27 points honours QS\nReveal 2: 3 cards 19 points honours KH 7D\n" in written
    assert load_game(parse_njn(written))[0] == events


def test_the_count_is_read_forgivingly() -> None:
    canonical = reveals(HEADER + "Reveal 1: 3 cards 27 points honours QS\nReveal 2: 3 cards 19 points\n")
    for written in (
        "reveal ben 3 CARDS 27 Points honors q♠ {Ben counts aloud}\nREVEAL 2: 3 cartes, 19 points\n",
        "Reveal 1: 3 cards 27 points QS\nReveal Chloé: 3 card 19 point\n",
        'Reveal "Ben" 3 cartes 27 points honneurs qs\nReveal 2 3 cards 19 points honours\n',
    ):
        assert reveals(HEADER + written) == canonical, written


def test_one_card_one_point_and_no_honour_are_written_in_the_singular() -> None:
    text = HEADER.replace("0: AC 2C\n1: 3D\n2: 4D\n0: 5C 6C\n", "0: 2C 3C 4C\n1: 5D\n2: 6D 7S 8S\n0: 9C\n")
    text += "Reveal 1: 3 cards 3 points\nReveal 2: 1 card 1 point\n"
    events, _ = load_game(parse_njn(text))
    written = write_njn(events)
    assert "Reveal 1: 3 cards 3 points\nReveal 2: 1 card 1 point\n" in written
    assert [event.data for event in events if event.type == "reveal"][1] == {
        "seat": 2, "count": 1, "points": 1, "honours": []}


def test_a_count_written_wrong_is_reported_at_its_line() -> None:
    assert problems(HEADER + "Reveal 1: 3 cards\nReveal 2: 3 cards 19 points\n") == [
        (7, 1, "invalid-notation", COUNT_FORM)]
    assert problems(HEADER + "Reveal 1: 3 cards 27\n2: pass\n") == [(7, 1, "invalid-notation", COUNT_FORM)]
    assert problems(HEADER + "Reveal 1: 3 pieces 27 points\n") == [(7, 13, "invalid-notation", COUNT_FORM)]
    assert problems(HEADER + "Reveal 1: 3 cards 27 points honours QZ\n") == [
        (7, 37, "invalid-notation", "'QZ' is not a card: write rank and suit, like 10D, JC, QS, KH or 7D.")]
    assert problems(HEADER + "Reveal 1: 99999999999999 cards 27 points\n") == [
        (7, 11, "invalid-notation", "99999999999999 is too large a number for a record: it has at most 13 digits.")]


def test_a_count_the_engine_refuses_is_reported_at_its_line_or_its_honour() -> None:
    found = problems(HEADER + "Reveal 1: 4 cards 27 points honours QS\n")
    assert found == [(7, 1, "reveal-mismatch", "Ben (seat 1) has 3 cards left, not 4.")]
    found = problems(HEADER + "Reveal 1: 3 cards 40 points honours QS\n")
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 1, "reveal-mismatch")]
    found = problems(HEADER + "Reveal 1: 3 cards 27 points honours QS 9H\n")
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 40, "not-an-honour")]
    found = problems(HEADER + "Reveal 1: 3 cards 1000 points\n")
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 1, "invalid-action")]


def test_the_json_document_carries_a_count_both_ways() -> None:
    game = simulate(seed=11, profile="classic", players=3, info="partial", deals=3, by_count=1.0)
    doc = write_game_document(chained_records(game.events))
    told = [action for action in doc["actions"] if action["type"] == "reveal"]
    assert told and all(set(action) == {"type", "seat", "count", "points", "honours"} for action in told)
    events, state = load_game(json.loads(json.dumps(doc)))
    assert events == game.events
    assert state.balances == game.state.balances  # type: ignore[union-attr]


@scaled
@examples(20, 400)
@given(st.integers(0, 2**32 - 1), st.sampled_from(("classic", "cards", "skip", "avantcoureur-1760")),
       st.sampled_from((0.5, 1.0)))
def test_import_of_export_with_counts_gives_the_same_log(seed: int, profile: str, by_count: float) -> None:
    game = simulate(seed=seed, profile=profile, info="partial", deals=3, by_count=by_count)
    text = write_njn(game.events)
    document = parse_njn(text)
    assert load_game(document)[0] == game.events
    assert write_njn(document) == text
    assert load_game(write_game_document(chained_records(game.events)))[0] == game.events
