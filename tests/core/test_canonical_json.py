"""The chain's canonical JSON is byte for byte what the json module writes, whichever encoder wrote it."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nj_ledger.cards import parse_card
from nj_ledger.chain import (
    GENESIS,
    HASHED_FIELDS,
    canonical_bytes,
    canonical_json,
    chain_events,
    event_hash,
    plain_data,
    record_bytes,
    verify_chain,
)
from nj_ledger.events import EVENT_TYPES
from nj_ledger.simulator import simulate


def reference(value: Any) -> str:
    """The definition: sorted keys, compact separators, UTF-8 (not ASCII-escaped)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["", "null", "1.5", "1e5", "\x00\x1f\x7f\"\\/\b\f\n\r\t", "Chloé", "\u2028\u2029", "🂡", "sans Valet"]
)
cards = st.sampled_from(["10D", "JC", "QS", "KH", "7D", "AH"]).map(parse_card)  # a str subclass
scalars = (
    st.none() | st.booleans() | st.integers() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | texts | cards
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(texts | cards, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=600)
@given(values)
def test_canonical_json_is_the_json_modules_text(value: Any) -> None:
    assert canonical_json(value) == reference(value)


@settings(max_examples=300)
@given(st.dictionaries(texts, values, max_size=5))
def test_canonical_bytes_are_its_utf8(value: dict[str, Any]) -> None:
    expected = reference(value)
    try:
        encoded = expected.encode()
    except UnicodeEncodeError:  # lone surrogates are not UTF-8: both ways refuse them
        return
    assert canonical_bytes(value) == encoded


def test_keys_that_are_not_text_and_special_floats_are_written_the_json_way() -> None:
    for value in ({1: "a", 2: "b"}, {"x": math.nan}, {"x": 1e16}, {"x": -0.0}, {"big": 2**64 + 1}, [math.inf]):
        assert canonical_json(value) == reference(value)


def test_hashes_of_simulated_logs_match_the_reference_encoding() -> None:
    game = simulate(seed=3, profile="avantcoureur-1760", info="partial", deals=3)
    previous = GENESIS
    for seq, event in enumerate(game.events, start=1):
        record = {"seq": seq, "recorded_at": "2026-11-22T07:00:35.123456Z", **event.to_dict()}
        record["data"] = json.loads(json.dumps(record["data"]))
        expected = hashlib.sha256((previous + reference(record)).encode()).hexdigest()
        assert event_hash(previous, record) == expected
        previous = expected


@settings(max_examples=400)
@given(st.dictionaries(texts, values, max_size=4), st.integers(1, 2**70), st.integers(0, 2**70), texts, texts,
       st.integers(1, 3) | st.floats())
def test_event_hashes_are_taken_over_the_reference_text(data: dict[str, Any], seq: int, deal: int, kind: str,
                                                        recorded_at: str, v: Any) -> None:
    record = {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v, "recorded_at": recorded_at}
    try:
        expected = hashlib.sha256((GENESIS + reference(record)).encode()).hexdigest()
    except UnicodeEncodeError:
        return
    assert event_hash(GENESIS, record) == expected


kinds = st.sampled_from(EVENT_TYPES) | texts
stamps = st.sampled_from(["2026-11-22T07:00:35.123456Z", "2026-01-01T00:00:00+01:00"]) | texts
numbers = st.integers(0, 3) | st.integers(-(2**70), 2**70) | st.booleans() | st.floats(allow_nan=False)
records = st.lists(st.tuples(st.dictionaries(texts, values, max_size=3), numbers, kinds, stamps, numbers),
                   min_size=1, max_size=6)


def reference_chain(fields: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    chain, previous = [], GENESIS
    for seq, (data, deal, kind, recorded_at, v) in enumerate(fields, start=1):
        record = {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v, "recorded_at": recorded_at}
        try:
            record["hash"] = previous = hashlib.sha256((previous + reference(record)).encode()).hexdigest()
        except UnicodeEncodeError:  # a lone surrogate: no UTF-8 text to hash
            return chain
        chain.append(record)
    return chain


@settings(max_examples=400)
@given(records, st.data())
def test_verification_agrees_with_the_reference_hash_whatever_the_fields(fields: list[tuple[Any, ...]],
                                                                         data: st.DataObject) -> None:
    """The quick path of verify_chain never decides alone: floats, bools, odd types and stamps verify
    exactly as the reference text says, and any change of one field is caught at its seq."""
    chain = reference_chain(fields)
    assert verify_chain(chain) == {"ok": True, "first_bad_seq": None, "checked": len(chain)}
    if not chain:
        return
    position = data.draw(st.integers(0, len(chain) - 1))
    name = data.draw(st.sampled_from(["data", "deal", "type", "recorded_at", "v"]))
    replacement = data.draw({"data": st.dictionaries(texts, values, max_size=3), "deal": numbers, "type": kinds,
                             "recorded_at": stamps, "v": numbers}[name])
    changed = [dict(record) for record in chain]
    changed[position][name] = replacement
    if reference(changed[position]) == reference(chain[position]):
        return  # the same text (1 and 1.0 are not, True and 1 are not): nothing was changed
    verdict = verify_chain(changed)
    assert verdict == {"ok": False, "first_bad_seq": position + 1, "checked": position}


@settings(max_examples=300)
@given(st.dictionaries(texts | cards, values, max_size=4), st.integers(0, 40), st.sampled_from(EVENT_TYPES),
       stamps, st.integers(1, 3))
def test_hashing_around_written_data_gives_the_reference_hash(data: dict[str, Any], deal: int, kind: str,
                                                              recorded_at: str, v: int) -> None:
    """What the append path does: data made plain and written once, the record's hash written around it."""
    plain, written = plain_data(data)
    assert written == canonical_bytes(plain)
    record = {"seq": 7, "deal": deal, "type": kind, "data": plain, "v": v, "recorded_at": recorded_at}
    try:
        expected = hashlib.sha256((GENESIS + reference(record)).encode()).hexdigest()
    except UnicodeEncodeError:
        return
    assert event_hash(GENESIS, record, written) == expected


ints = st.integers(0, 40) | st.integers(-(2**70), 2**70) | st.booleans() | st.floats() | texts | st.none()
escaped_stamps = stamps | st.sampled_from(["2026-11-22T07:00:35\n", '2026"11', "2026\\11", "2026\u00e9", "\x00"])


@settings(max_examples=600)
@given(st.dictionaries(texts | cards, values, max_size=4) | values, ints, kinds, escaped_stamps, ints, ints)
def test_the_fast_path_writes_the_definitions_bytes(data: Any, deal: Any, kind: Any, recorded_at: str, seq: Any,
                                                     v: Any) -> None:
    """record_bytes, the chain's one fast path, is canonical_bytes of the hashed fields, whatever they hold:
    floats, integers past 64 bits, bools where ints go, unicode, timestamps JSON escapes; with the data's
    bytes written beforehand (by plain_data, as chain_events does) or not."""
    record = {"seq": seq, "deal": deal, "type": kind, "data": data, "v": v, "recorded_at": recorded_at}
    try:
        expected = reference({name: record[name] for name in HASHED_FIELDS}).encode()
    except UnicodeEncodeError:
        return
    assert record_bytes(record) == expected
    assert canonical_bytes({name: record[name] for name in HASHED_FIELDS}) == expected
    plain, written = plain_data(data)
    assert record_bytes({**record, "data": plain}, written) == expected


def test_the_fast_path_is_taken_for_the_common_record_and_agrees_with_the_definition() -> None:
    game = simulate(seed=4, profile="classic", deals=2)
    previous = GENESIS
    for record in chain_events(GENESIS, 0, game.events, "2026-11-22T07:00:35.123456Z"):
        fields = {name: record[name] for name in HASHED_FIELDS}
        assert record_bytes(record) == reference(fields).encode() == canonical_bytes(fields)
        assert record["hash"] == hashlib.sha256((previous + reference(fields)).encode()).hexdigest()
        previous = record["hash"]
