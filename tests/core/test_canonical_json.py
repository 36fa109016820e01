"""The chain's canonical JSON is byte for byte what the json module writes, whichever encoder wrote it."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nj_ledger.cards import parse_card
from nj_ledger.chain import GENESIS, canonical_bytes, canonical_json, event_hash
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
