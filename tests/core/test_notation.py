"""NJN (SPEC §8): one canonical text per game, a forgiving reader, every problem with its place, the round trip."""

from __future__ import annotations

import json
import pathlib
import string
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nj_ledger import DECK, Event, InvalidInput, LedgerError, execute, new_game, replay
from nj_ledger.exchange import document_meta, load_game, read_game_document
from nj_ledger.messages import Listed, Message
from nj_ledger.notation import NotationError, parse_njn, syntax, write_njn
from nj_ledger.notation.header import read_header
from nj_ledger.notation.movetext import Movetext
from nj_ledger.notation.syntax import MAX_ERRORS, Scanner, TooManyErrors
from nj_ledger.rules import PROFILES, resolve_rules
from nj_ledger.simulator import SimulatedGame, simulate
from support.scale import examples, scaled
from support.sentences import said

from .helpers import NAMES

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# Two players with four cards each: every kind of statement in a few lines.
GAME: dict[str, Any] = {
    "format": "nj-ledger/game", "version": 1, "title": "Un dimanche", "date": "2026-11-22",
    "players": ["Ana", "Ben"], "starting_chips": 100,
    "rules": {"profile": "classic", "players": [2], "deal_table": {"2": [4, 44]}},
    "actions": [
        {"type": "deal", "hands": [["5H", "6H", "7D", "9S"], ["8C", "QS", "KH", "2C"]]},
        {"type": "play", "seat": 0, "cards": ["5H", "6H", "7D"], "announced": ["7D"]},
        {"type": "play", "seat": 1, "cards": ["8C"]},
        {"type": "undo", "reason": "tapped the wrong card"},
        {"type": "pass", "seat": 1},
        {"type": "play", "seat": 0, "cards": ["9S"]},
        {"type": "adjust", "from": "seat:1", "to": "seat:0", "amount": 1, "reason": "a chip dropped under the table"},
        {"type": "deal"},
        {"type": "play", "seat": 1, "cards": ["KC", "AC", "2C", "3C"]},
        {"type": "reveal", "seat": 0, "cards": ["4D", "5D", "6D", "10D"]},
        {"type": "end", "reason": "time to go home"},
    ],
}

GAME_NJN = """\
[Club "Cercle du Nain Jaune"]
[Title "Un dimanche"]
[Date "2026.11.22"]
[Players "Ana; Ben"]
[StartingChips "100"]
[Dealer "1"]
[Rules "classic"]
[Board {"10D": 1, "JC": 2, "QS": 3, "KH": 4, "7D": 5}]
[PlayerCounts [2]]
[DealTable {"2": [4, 44]}]
[Sequence "rank"]
[Opening "any"]
[MayStop true]
[Blocked "restart"]
[Restarter "last_player"]
[Payment "points"]
[Bete "double"]
[GrandOpera {"condition": "first_turn", "reward": "sweep"}]
[Ante "all"]
[StakeUnit 1]
[PointValue 1]
[Shortfall "end"]
[MaxDeals null]
[DealerRotation "next"]
[Stops []]
[Wild null]
[HocReward 0]
[WildPaysDouble false]

Deal 1 dealer 1
Hand 0: 5H 6H 7D 9S
Hand 1: 8C QS KH 2C
0: 5H 6H 7D! {Nain Jaune qui prend, sans 8}
1: 8C {sans 9}
Undo "tapped the wrong card"
1: pass
0: 9S {J'arrête}
{Ana wins deal 1; Ben pays 30; bête: Ben pays 6 into QS; bête: Ben pays 8 into KH}

Adjust 1 from seat:1 to seat:0 "a chip dropped under the table"

Deal 2 dealer 0
1: KC AC 2C 3C {Roi et je recommence, J'arrête, Grand Opéra}
Reveal 0: 4D 5D 6D 10D
{Ben wins deal 2 by Grand Opéra; Ana pays 25; bête: Ana pays 4 into 10D}

End "time to go home"
{Game over, the table agreed to stop: 1. Ben 114, 2. Ana 82; left on the board: 10D 4}
"""

HEADER = '[Players "Ana; Ben; Chloé"]\n[StartingChips "60"]\n'


def log_of(document: dict[str, Any]) -> list[Event]:
    return load_game(document)[0]


def records(events: list[Event]) -> list[dict[str, Any]]:
    """Stored records as the store gives them (seq, recorded_at and hash do not matter here)."""
    return [{"seq": n, "recorded_at": "2026-11-22T15:00:00Z", "hash": "-", **event.to_dict()}
            for n, event in enumerate(events, start=1)]


def fills(said: Message) -> bool:
    """Every placeholder of the template has its parameter, and so has every sentence nested in the parameters:
    the template and its parameters write the sentence out, in any language the template is translated to."""
    if not said.params:
        return True  # written out as it stands
    names = {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(said.template)
             if field is not None}
    nested = [value for value in said.params.values() if isinstance(value, Message)]
    nested += [item for value in said.params.values() if isinstance(value, Listed) for item in value.items
               if isinstance(item, Message)]
    return names <= set(said.params) and all(fills(inner) for inner in nested)


def problems(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(NotationError) as caught:
        parse_njn(text)
    return [(p.line, p.column, p.code) for p in caught.value.problems]


# --- canonical export ---------------------------------------------------------------------------------
def test_a_game_is_written_one_canonical_way() -> None:
    assert write_njn(GAME, {"club": "Cercle du Nain Jaune"}) == GAME_NJN
    meta = {"club": "Cercle du Nain Jaune", **document_meta(GAME)}
    assert write_njn(log_of(GAME), meta) == GAME_NJN  # from the events
    assert write_njn(records(log_of(GAME)), meta) == GAME_NJN  # from stored records


def test_the_text_does_not_depend_on_how_the_stored_rules_were_ordered() -> None:
    stored = records(log_of(GAME))
    rules = stored[0]["data"]["rules"]
    stored[0]["data"] = {**stored[0]["data"], "rules": dict(reversed(list(rules.items())))}
    assert write_njn(stored, {"club": "Cercle du Nain Jaune", **document_meta(GAME)}) == GAME_NJN


def test_the_text_reads_back_to_the_same_game() -> None:
    document = parse_njn(GAME_NJN)
    assert log_of(document) == log_of(GAME)
    assert document_meta(document) == document_meta(GAME)
    assert write_njn(document, {"club": "Cercle du Nain Jaune"}) == GAME_NJN


def test_inferred_passes_are_left_out_and_explicit_passes_written() -> None:
    hands = [["5H", "6H", "KD", "2S"], ["9C", "QS", "KH", "2C"], ["7S", "8S", "AD", "3D"]]
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
    state = replay([started := new_game(["Ana", "Ben", "Chloé"], rules, 60)])
    actions = [{"type": "deal", "hands": hands},
               {"type": "play", "seat": 0, "cards": ["5H", "6H"]},
               {"type": "play", "seat": 2, "cards": ["7S", "8S"]},  # Ben's pass is inferred
               {"type": "pass", "seat": 0}]
    _, events = execute(state, actions)
    assert [e.data.get("inferred", False) for e in events if e.type == "pass"] == [True, False]
    text = write_njn([started, *events])
    assert "1: pass" not in text and "0: pass" in text
    assert log_of(parse_njn(text)) == [started, *events]


def test_a_talon_the_engine_works_out_is_not_written_and_one_given_alone_is() -> None:
    assert "Talon" not in GAME_NJN
    talon = [str(card) for card in DECK[:7]]
    started = new_game(["Ana", "Ben", "Chloé"], "classic", 60)
    _, events = execute(replay([started]), [{"type": "deal", "talon": talon}])
    text = write_njn([started, *events])
    assert f"Deal 1 dealer 2\nTalon: {' '.join(talon)}\n" in text
    assert log_of(parse_njn(text)) == [started, *events]


def test_texts_with_quotes_line_breaks_and_semicolons_survive_the_trip() -> None:
    players = ["Anne; dite Nanou", "Ben \"le Grand\"", ";Chloé;"]
    notes = 'First line\nSecond "line" with a \\ backslash\r\n\tand a tab}{'
    document = {
        "format": "nj-ledger/game", "version": 1, "title": "Le [grand] soir", "table": "7", "notes": notes,
        "players": players, "rules": "cards", "starting_chips": 60,
        "actions": [{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5H"]},
                    {"type": "undo", "reason": 'a "wrong"\ncard\\'}],
    }
    text = write_njn(document)
    assert "[Players \"Anne;; dite Nanou; Ben \\\"le Grand\\\"; ;;Chloé;;\"]" in text
    back = parse_njn(text)
    assert back["players"] == players
    assert document_meta(back) == document_meta(document)
    assert log_of(back) == log_of(document)


def test_details_are_checked_when_writing() -> None:
    log = log_of(GAME)
    with pytest.raises(InvalidInput) as refusal:
        write_njn(log, {"date": "22/11/2026"})
    assert refusal.value.code == "invalid-document"
    with pytest.raises(InvalidInput):
        write_njn(log, {"colour": "green"})
    with pytest.raises(InvalidInput):
        write_njn(log[1:])  # no game_started


# --- the round trip over simulated games -----------------------------------------------------------------
@st.composite
def simulated_games(draw: st.DrawFn) -> SimulatedGame:
    profile = draw(st.sampled_from(sorted(PROFILES)))
    players = draw(st.sampled_from(resolve_rules(profile).players))
    return simulate(
        seed=draw(st.integers(0, 2**32 - 1)), profile=profile, players=players,
        info=draw(st.sampled_from(("full", "partial"))), deals=draw(st.integers(1, 5)),
        by_count=draw(st.sampled_from((0.0, 0.5))),  # with partial information, some hands told by count
    )


def check_round_trip(game: SimulatedGame) -> None:
    text = write_njn(game.events)
    document = parse_njn(text)
    events = log_of(document)
    assert [(e.type, e.data, e.deal) for e in events] == [(e.type, e.data, e.deal) for e in game.events]
    assert write_njn(document) == text  # canonical: written again, byte for byte the same
    explicit = sum(1 for e in game.events if e.type == "pass" and not e.data.get("inferred"))
    assert text.count(": pass\n") == explicit


@scaled
@examples(40, 3000)
@given(simulated_games())
def test_import_of_export_gives_the_same_event_log(game: SimulatedGame) -> None:
    check_round_trip(game)


@st.composite
def rules_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A profile with any mix of overrides of its options."""
    profile = draw(st.sampled_from(sorted(PROFILES)))
    base = resolve_rules(profile)
    cards = st.sampled_from([str(card) for card in DECK])
    choices: dict[str, st.SearchStrategy[Any]] = {
        "board": st.lists(cards, min_size=5, max_size=5, unique=True).flatmap(
            lambda honours: st.fixed_dictionaries({card: st.integers(1, 9) for card in honours})),
        "players": st.sets(st.sampled_from(base.players), min_size=1).map(sorted),
        "sequence": st.sampled_from(["rank", "suit"]),
        "opening": st.sampled_from(["any", "lowest"]),
        "may_stop": st.booleans(),
        "blocked": st.sampled_from(["restart", "skip"]),
        "restarter": st.sampled_from(["last_player", "first_passer"]),
        "payment": st.sampled_from(["points", "cards"]),
        "bete": st.sampled_from(["double", "face", "none"]),
        "grand_opera": st.fixed_dictionaries({"condition": st.sampled_from(["first_turn", "no_other_plays"]),
                                              "reward": st.sampled_from(["sweep", "double", "none"])}),
        "ante": st.sampled_from(["all", "dealer"]),
        "stake_unit": st.integers(1, 5),
        "point_value": st.integers(1, 5),
        "shortfall": st.sampled_from(["end", "negative"]),
        "max_deals": st.none() | st.integers(1, 40) | st.fixed_dictionaries({"3": st.integers(1, 20)}),
        "dealer_rotation": st.sampled_from(["next", "previous"]),
        "stops": st.lists(cards, max_size=3, unique=True),
        "wild": st.none() | cards,
        "hoc_reward": st.integers(0, 3),
        "wild_pays_double": st.booleans(),
    }
    chosen = draw(st.sets(st.sampled_from(sorted(choices))))
    return {"profile": profile, **{option: draw(choices[option]) for option in sorted(chosen)}}


@settings(max_examples=150, deadline=None)
@given(rules_specs())
def test_any_resolved_rules_come_back_exactly(spec: dict[str, Any]) -> None:
    rules = resolve_rules(spec)
    started = new_game(list(NAMES[:rules.players[0]]), spec, 10**6)
    document = parse_njn(write_njn([started]))
    assert read_game_document(document)[0] == started


# --- forgiving import -----------------------------------------------------------------------------------
HANDWRITTEN = """\ufeff; the game of GAME, written by hand at the table
[players "Ana;Ben"]   {tag names in any case, values quoted or not}
[starting_chips 100]
[PLAYERCOUNTS "[2]"]
[deal-table {"2": [4, 44]}]
[Date "2026-11-22"]

deal   dealer Ben
hand 0 : 5♥ 6h 7♦ 9s
HAND 1:\t8c, q♠, ♥K, 2C
ana: 5h 6H 7d! {Nain Jaune qui prend !} 1: 8♣
undo "tapped the wrong card"     1 : PASS
0:9s   { J'arrête
   on two lines }
adjust 1 from 1 to seat:0 "a chip dropped under the table"
DEAL ; Ben deals? no: Ana
Ben: kc ac 2c 3c
reveal 0: 4d 5d 6d td
end "time to go home"
"""


def test_a_text_written_by_hand_reads_like_the_canonical_one() -> None:
    document = parse_njn(HANDWRITTEN)
    assert document["date"] == "2026-11-22" and "dealer" in document
    assert log_of(document) == log_of(GAME)


TAGS, MOVETEXT = GAME_NJN.split("\n\n", 1)


@pytest.mark.parametrize("changed", [
    GAME_NJN.replace("\n", "\r\n"),  # Windows line ends
    GAME_NJN.replace("\n", "\n\n\t  "),  # blank lines and indentation
    TAGS.replace("[Players", "[PLAYERS").replace("[DealTable", "[deal_table") + "\n\n" + MOVETEXT.lower(),  # case
    TAGS + "\n" + " ".join(MOVETEXT.split("\n")),  # the deals all on one line
    TAGS + "\n\n" + MOVETEXT.replace("H ", "♥ ").replace("D ", "♦ ").replace("10", "T"),  # symbols, T for 10
    GAME_NJN.replace("\n0:", "\n{a comment} 0 {here too} : {and here}"),  # comments anywhere
], ids=["crlf", "blank-lines", "case", "one-line", "symbols", "comments"])
def test_case_symbols_comments_and_whitespace_do_not_matter(changed: str) -> None:
    assert changed != GAME_NJN
    assert log_of(parse_njn(changed)) == log_of(GAME)


def test_optional_tags_may_be_left_out() -> None:
    document = parse_njn(HEADER + "Deal\n0: 5H 6H\n")
    assert document["rules"] == "classic" and "dealer" not in document and "title" not in document
    started, actions = read_game_document(document)
    assert started.data["dealer"] == 2 and actions[0] == {"type": "deal"}
    assert parse_njn(HEADER + '[Date "????.??.??"]\n')["actions"] == []


def test_rule_options_may_be_quoted_the_pgn_way() -> None:
    document = parse_njn(HEADER + '[Rules "cards"]\n[MaxDeals "5"]\n[MayStop "false"]\n[Wild "7D"]\n')
    assert document["rules"] == {"profile": "cards", "max_deals": 5, "may_stop": False, "wild": "7D"}
    assert parse_njn(HEADER + '[Rules {"profile": "hearts", "max_deals": 3}]')["rules"]["max_deals"] == 3


def test_a_seat_may_be_named_by_its_player() -> None:
    document = parse_njn(HEADER + '[Dealer "chloé"]\nDeal\nana: 5H\n"Ben": 6H\nCHLOÉ: pass\n')
    assert document["dealer"] == 2
    assert [a.get("seat") for a in document["actions"]] == [None, 0, 1, 2]


# --- every problem, with its place ------------------------------------------------------------------------
def test_every_problem_of_form_is_reported_with_its_line_and_column() -> None:
    text = (
        '[Players "Ana; Ben; Chloé"]\n'  # 1
        '[StartingChips "sixty"]\n'  # 2: not a number
        '[Paymant "cards"]\n'  # 3: unknown tag
        '[Date "2026.13.40"]\n'  # 4: no such day
        "\n"
        "Deal 2 dealer 5\n"  # 6: the first deal, and no seat 5
        "0: 5H 6X 7C\n"  # 7: 6X
        "1: pass 8D\n"  # 8: 8D after a pass
        "Ben: QS! 9Z\n"  # 9: 9Z
        'Undo "oops\n'  # 10: unclosed quotes
        "Fred: 5C\n"  # 11: no such player
        "Hand 0: 5C\n"  # 12: a hand far from its deal
        "[Table 4]\n"  # 13: a tag after the deals
        "{ never closed\n"  # 14
    )
    with pytest.raises(NotationError) as caught:
        parse_njn(text)
    found = [(p.line, p.column) for p in caught.value.problems]
    assert found == [(2, 16), (3, 1), (4, 7), (6, 6), (6, 15), (7, 7), (8, 9), (9, 10), (10, 6), (11, 1), (12, 1),
                     (13, 1), (14, 1)]
    messages = [said(p) for p in caught.value.problems]
    assert "Did you mean [Payment]?" in messages[1]
    assert messages[5].startswith("'6X' is not a card")
    assert all(p.code == "invalid-notation" for p in caught.value.problems)
    error = caught.value
    assert isinstance(error, InvalidInput) and error.code == "invalid-notation"
    assert said(error).startswith("Line 2, column 16: ") and said(error).endswith("(and 12 more)")
    assert said(error) == f"Line 2, column 16: {messages[0]} (and 12 more)"


def test_missing_and_repeated_tags_are_reported() -> None:
    assert problems("Deal\n") == [(1, 1, "invalid-notation"), (1, 1, "invalid-notation")]
    assert problems(HEADER + '[Players "Ana; Ben"]\n') == [(3, 1, "invalid-notation")]
    assert problems(HEADER + "[Title \"x]\n[Rules {\"profile\": }]\n") == [
        (3, 8, "invalid-notation"), (4, 8, "invalid-notation")]


def test_an_illegal_action_is_reported_at_its_line_with_the_engines_sentence_and_code() -> None:
    text = HEADER + "Deal\n0: 5H 6H 7C\n1: 8D\n2: 8S 9S\n"
    with pytest.raises(NotationError) as caught:
        parse_njn(text)
    state = replay(log_of(parse_njn(HEADER + "Deal\n0: 5H 6H 7C\n1: 8D\n")))
    with pytest.raises(LedgerError) as engine:
        execute(state, [{"type": "play", "seat": 2, "cards": ["8S", "9S"]}])
    assert [(p.line, p.column, said(p), p.code) for p in caught.value.problems] == [
        (6, 4, said(engine.value), "out-of-sequence")]
    assert caught.value.code == "out-of-sequence"


def test_a_refused_card_is_pointed_at_and_a_refused_deal_at_its_line() -> None:
    dealt = "Deal\nHand 0: 5H 6H 7D 9S\nHand 1: 8C QS KH 2C\n"
    header = '[Players "Ana; Ben"] [StartingChips "100"] [PlayerCounts [2]] [DealTable {"2": [4, 44]}]\n'
    assert problems(header + dealt + "0: 5H 6H 7D 8D\n") == [(5, 13, "card-not-in-hand")]
    assert problems(header + dealt + "0: 5H 6H 7D KS!\n") == [(5, 13, "card-not-in-hand")]
    assert problems(header + dealt + "0: 5H 6H! 7D\n") == [(5, 7, "not-an-honour")]
    assert problems(header + "Deal\nHand 0: 5H 6H 7D 9S\nHand 1: 8C QS KH 5H\n") == [(4, 18, "invalid-hands")]
    assert problems(header + "Deal\nHand 0: 5H 6H 7D 9S\nHand 1: 8C QS KH\n") == [(2, 1, "invalid-hands")]
    assert problems(header + "Deal\n0: 5H\n1: 6H\n0: 7H\n1: 8H\nDeal dealer 1\n") == [(7, 1, "deal-in-progress")]


def test_a_refused_game_is_reported_at_its_tag() -> None:
    assert problems('[Players "Ana"]\n[StartingChips "60"]\n') == [(1, 10, "invalid-players")]
    assert problems(HEADER + '[Payment "chips"]\n') == [(3, 10, "invalid-rules")]
    assert problems(HEADER + '[Rules "bridge"]\n') == [(3, 8, "invalid-notation")]
    assert problems('[Players "Ana; Ben"]\n[StartingChips "3"]\n') == [(2, 16, "starting-chips-too-low")]


def test_digits_other_than_0_to_9_are_refused_where_a_number_is_written() -> None:
    for written in ("¹", "²", "٣"):
        for text in (GAME_NJN.replace("Deal 1 dealer 1", f"Deal {written} dealer 1"),
                     GAME_NJN.replace("Adjust 1 from", f"Adjust {written} from"),
                     GAME_NJN.replace('[StartingChips "', f'[StartingChips "{written}')):
            assert problems(text), (written, text)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_text_is_read_or_refused_with_its_problems_never_crashes(data: st.DataObject) -> None:
    pieces = ["[", "]", "{", "}", '"', ":", ";", "!", ",", "\n", " ", "Deal", "dealer", "Hand", "Talon", "pass",
              "Reveal", "Undo", "Adjust", "from", "to", "seat:", "box:", "End", "0", "1", "2", "9", "QS", "7D!", "T♦",
              "[Rules ", "[Players ", "[Board ", "[MaxDeals ", "[Dealer ", "null", "[]", "{}", '{"profile": []}',
              "¹", "²", "٣"]  # digits to str.isdigit that int() refuses, or reads
    text = data.draw(st.sampled_from([GAME_NJN, HANDWRITTEN, HEADER]))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 12))
        text = text[:at] + data.draw(st.sampled_from(pieces) | st.text(max_size=4)) + text[at + cut:]
    try:
        document = parse_njn(text)
    except NotationError as problem:
        assert problem.problems
        assert all(p.line >= 1 and p.column >= 1 and said(p) and p.code for p in problem.problems)
        for found in problem.problems:  # every sentence can be translated: its template and parameters make it
            assert fills(found.said), found.said
    else:
        log_of(document)


def outcome(text: str) -> tuple[str, Any]:
    try:
        return "read", parse_njn(text)
    except NotationError as refused:
        return "refused", refused.problems


WORDS = ["xx", "6X", "5H", "QS!", "0", "1", "2", ":", "Deal", "DEAL", "dEaL", "deals", "dealer", "Hand", "talon",
         "reveal", "UNDO", "Adjust", "from", "to", "seat:1", "box:QS", "end", "ende", "pass", "passe", "Ana", "ben",
         "Chloé", "é", "adjuſt", "ﬆ", "\ufffd", "{c}", "{", "}", "]", "; c\n", "\n", ",", '"s"', '"Ben":', '"a',
         "[Title 1]", "[Foo]", "\t", "9Z!"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=80), st.lists(st.sampled_from(["", " ", "  ", "\n"]), max_size=80))
@example(["xx", "xx", "xx", "}", ":"], [])  # a colon behind a stray } still makes "xx" a turn
@example(["xx", "[Foo]", ":"], [])  # …behind a misplaced tag
@example(["xx", '"a', ":"], ["", "\n"])  # …behind a string never closed on its line
def test_passing_over_words_that_start_no_statement_reads_as_reading_them(words: list[str], gaps: list[str]) -> None:
    """When a statement is skipped, the words that start none are passed over unscanned: the outcome is the same
    as scanning them one by one. (Scanned a token at a time, so that the skip reaches words not yet scanned.)"""
    text = HEADER + "Deal\n" + "".join(word + (gaps[n] if n < len(gaps) else " ") for n, word in enumerate(words))
    with patch.object(syntax, "_PLAIN_RUN", 1):
        with patch.object(Scanner, "pass_over", lambda self, pattern: False):
            one_by_one = outcome(text)
        assert outcome(text) == one_by_one


# --- the examples -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda path: path.stem)
def test_each_example_has_its_canonical_njn_twin(path: pathlib.Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    text = path.with_suffix(".njn").read_text(encoding="utf-8")
    twin = parse_njn(text)
    assert log_of(twin) == log_of(document)
    assert document_meta(twin) == document_meta(document)
    assert write_njn(twin) == text == write_njn(document)


# --- hostile texts: deep values, unstorable text, thousands of errors ----------------------------------------
def problem_list(text: str) -> list[tuple[int, int, str, str]]:
    with pytest.raises(NotationError) as caught:
        parse_njn(text)
    return [(p.line, p.column, p.code, said(p)) for p in caught.value.problems]


TOO_DEEP = "This tag's value nests more than 32 levels deep."
NOT_A_CARD = "'6X' is not a card: write rank and suit, like 10D, JC, QS, KH or 7D."


@pytest.mark.parametrize("depth", [33, 40, 900, 5_000, 100_000])
def test_a_tag_value_nested_too_deep_is_a_problem_at_its_tag(depth: int) -> None:
    text = HEADER + "[Rules " + "[" * depth + "]" * depth + "]\nDeal\n0: 6X\n"
    assert problem_list(text) == [(3, 8, "invalid-notation", TOO_DEEP), (5, 4, "invalid-notation", NOT_A_CARD)]
    assert problem_list(HEADER + '[Board {"x": ' + "[" * depth + "]" * depth + "}]\n") == [
        (3, 8, "invalid-notation", TOO_DEEP)]
    assert problem_list(HEADER + '[MaxDeals "' + "[" * depth + "]" * depth + '"]\n') == [  # quoted the PGN way
        (3, 11, "invalid-notation", TOO_DEEP)]


def test_a_value_nested_to_the_limit_is_read_and_judged_by_the_engine() -> None:
    at_limit = HEADER + "[Stops " + "[" * 32 + "]" * 32 + "]\n"
    assert [(line, column, code) for line, column, code, _ in problem_list(at_limit)] == [(3, 8, "invalid-rules")]
    assert parse_njn(HEADER + '[Rules {"profile": "cards", "max_deals": {"3": 5}}]\n')["rules"]["max_deals"] == {"3": 5}


def test_a_value_nested_deep_and_never_closed_is_one_problem() -> None:
    assert problem_list(HEADER + "[Rules " + "[" * 50_000) == [(3, 8, "invalid-notation", TOO_DEEP)]
    assert problem_list(HEADER + '[MaxDeals "' + "[" * 50_000 + '"]') == [(3, 11, "invalid-notation", TOO_DEEP)]


def test_nul_and_halves_of_surrogate_pairs_written_as_escapes_are_refused_where_they_are() -> None:
    nul = "\\u0000 writes a NUL character, which a record may not hold."
    assert problem_list('[Players "Ana; B\\u0000en"]\n[StartingChips "60"]\n') == [(1, 17, "invalid-notation", nul)]
    assert problem_list('[Players ["Ana", "Ben \\uD800"]]\n[StartingChips "60"]\n') == [
        (1, 23, "invalid-notation", "\\uD800 is only half of a surrogate pair: write the character itself.")]
    assert problem_list(HEADER + 'Deal\n0: 5H\nUndo "oops\\udc00 \\u0000"\n') == [
        (5, 11, "invalid-notation", "\\udc00 is only half of a surrogate pair: write the character itself."),
        (5, 18, "invalid-notation", nul)]
    assert problem_list(HEADER + '[Board {"\\u0000QS": 1}]\n') == [(3, 10, "invalid-notation", nul)]  # a key too
    assert problem_list(HEADER + '"B\\u0000en": 5H\n') == [  # a seat in quotes
        (3, 1, "invalid-notation", "'B\\x00en' is not a seat; the seats are numbered from 0: 0 Ana, 1 Ben, 2 Chloé."),
        (3, 3, "invalid-notation", nul)]
    assert problem_list(HEADER + '[Wild "\\"\\\\u0000\\""]\n') == [  # in quotes the PGN way: a NUL once read
        (3, 7, "invalid-notation", ("This tag's value holds a NUL character or half of a surrogate pair, which a "
                                    "record may not hold."))]


def test_a_surrogate_pair_and_an_escaped_backslash_are_fine() -> None:
    document = parse_njn('[Players "Ana; Ben \\ud83c\\udccf"] [StartingChips "60"]\n[Notes "C:\\\\u0000"]\n'
                         'Deal\n0: 5H\nUndo "\\\\ud800"\n')
    assert document["players"] == ["Ana", "Ben 🃏"] and document["notes"] == "C:\\u0000"
    assert document["actions"][-1] == {"type": "undo", "reason": "\\ud800"}


def test_nul_and_halves_of_surrogate_pairs_in_the_text_itself_are_refused() -> None:
    assert problem_list('[Players "Ana; B\x00en"]\n[StartingChips "60"]\nDeal\n0: 5H \udc80\udc81 6X\n') == [
        (1, 17, "invalid-notation", "A record may not hold NUL characters."),
        (4, 7, "invalid-notation", "A record may not hold halves of surrogate pairs: it is text that is not UTF-8."),
        (4, 7, "invalid-notation", "'\ufffd\ufffd' is not a card: write rank and suit, like 10D, JC, QS, KH or 7D."),
        (4, 10, "invalid-notation", "'6X' is not a card: write rank and suit, like 10D, JC, QS, KH or 7D.")]


def test_past_a_thousand_problems_reading_stops_with_a_note() -> None:
    with pytest.raises(NotationError) as caught:
        parse_njn(HEADER + "Deal\n" + "0: 6X 7Z\n" * 3000)
    error = caught.value
    assert len(error.problems) == MAX_ERRORS + 1 == 1001
    assert [(p.line, p.column) for p in error.problems[:3]] == [(4, 4), (4, 7), (5, 4)]
    assert all(said(p).endswith("is not a card: write rank and suit, like 10D, JC, QS, KH or 7D.")
               for p in error.problems[:-1])
    last = error.problems[-1]
    assert (last.line, last.column, last.code, said(last)) == (
        503, 7, "invalid-notation", "… and more errors: reading stopped after the first 1000.")
    assert said(error) == ("Line 4, column 4: '6X' is not a card: write rank and suit, like 10D, JC, QS, KH or 7D. "
                             "(and over 999 more)")
    # The text is read no further than the problem past the thousandth.
    scanner = Scanner(HEADER + "Deal\n" + "0: 6X 7Z\n" * 3000)
    with pytest.raises(TooManyErrors):
        Movetext(scanner, read_header(scanner).players).read()
    assert len(scanner.errors) == MAX_ERRORS and len(scanner.tokens) < 3_000 < 1 + 4 * 3000


def test_a_thousand_problems_exactly_are_listed_without_a_note() -> None:
    assert len(problem_list(HEADER + "} " * 1000)) == 1000
    listed = problem_list(HEADER + "} " * 1001)
    assert len(listed) == 1001 and listed[-1][3].startswith("… and more errors")
    assert listed[-1][:2] == listed[-2][:2] == (3, 1999)


def test_a_problem_carries_its_sentence_as_a_template_and_its_parameters() -> None:
    with pytest.raises(NotationError) as caught:
        parse_njn(HEADER + "[Dealer 7]\n[Titel \"x\"]\nDeal 2\nHand 0: 5H\n")
    error = caught.value
    assert [p.said.template for p in error.problems] == [
        "There is no seat {seat}: this table has seats 0 to {last}.",
        "Unknown tag [{tag}]. Did you mean [{near}]?",
        "This deal gives no hand for seat {seats}: give every hand, or none.",
        "This is deal {deal} of the game, not deal {written}."]
    assert error.problems[1].said.params == {"tag": "Titel", "near": "Title"}
    assert [said(p) for p in error.problems] == [
        "There is no seat 7: this table has seats 0 to 2.",
        "Unknown tag [Titel]. Did you mean [Title]?",
        "This deal gives no hand for seat 1, 2: give every hand, or none.",
        "This is deal 1 of the game, not deal 2."]
    assert error.template == "Line {line}, column {column}: {error} (and {more} more)"
    assert error.params["more"] == 3 and error.params["error"].template == error.problems[0].said.template
    assert error.params["error"].params == error.problems[0].said.params
    assert said(error) == "Line 3, column 9: There is no seat 7: this table has seats 0 to 2. (and 3 more)"


def test_a_long_word_is_quoted_short() -> None:
    (problem_found,) = problem_list(HEADER + "Deal\n0: " + "6X" * 100_000 + "\n")
    assert problem_found[3] == "'6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X6X…' is not a card: write rank and suit, " \
                               "like 10D, JC, QS, KH or 7D."
