"""The audit (SPEC §5, §7): every chip that moved, and every sign that the record was tampered with."""

from __future__ import annotations

import copy
from typing import Any

from nj_ledger.audit import audit, recompute
from nj_ledger.chain import (
    GENESIS,
    canonical_json,
    checkpoint_valid,
    event_hash,
    sign_checkpoint,
    verify_chain,
)
from nj_ledger.events import event_from_dict
from support.sentences import said

from .chained import chained_records
from .helpers import Table

SMALL = {"players": [3], "deal_table": {"3": [4, 40]}}


def recorded_game() -> list[dict[str, Any]]:
    """One deal with a withdrawn play, a forgotten honour and a bête, an adjustment, then the end."""
    table = Table(3, {"profile": "classic", **SMALL}, 100)
    table.deal(["AC 2C 5C 6C", "3D 9H QS 8S", "4D KH 7D 2S"])
    table.play(0, "AC 2C")
    table.pass_(1)  # a mis-tap, withdrawn
    table.do({"type": "undo", "reason": "wrong card tapped"})
    table.play(1, "3D")
    table.play(2, "4D")
    table.play(0, "5C 6C")
    table.do({"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "side bet"})
    table.do({"type": "end", "reason": "dinner"})
    return chained_records(table.log)


def rechain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Renumber and re-hash records, as someone rewriting the whole log would."""
    previous = GENESIS
    out = []
    for seq, record in enumerate(records, start=1):
        record = {**record, "seq": seq}
        record["hash"] = previous = event_hash(previous, record)
        out.append(record)
    return out


def codes(report: dict[str, Any]) -> list[str]:
    return [finding.code for finding in report["findings"]]


def test_a_clean_log_audits_ok() -> None:
    records = recorded_game()
    report = audit(records)
    assert report["ok"] is True
    assert report["events"] == len(records)
    assert report["chain"] == {"ok": True, "first_bad_seq": None, "checked": len(records)}
    assert report["conservation"] == {
        "ok": True,
        "checked": len(records),
        "total": 300,
        "first_bad_seq": None,
    }
    assert report["recomputation"]["ok"] is True and report["recomputation"]["differences"] == []
    assert report["checkpoints"]["ok"] is True
    by_reason: dict[str, int] = {}
    for transfer in report["transfers"]:
        assert records[transfer["seq"] - 1]["type"] == "transfer"
        by_reason[transfer["reason"]] = by_reason.get(transfer["reason"], 0) + 1
    assert by_reason == {"ante": 15, "payment": 2, "bete": 3, "adjust": 1}
    assert report["totals"]["seat:0"]["balance"] == 85 + 46 - 2
    assert report["totals"]["seat:1"] == {"in": 2, "out": 15 + 27 + 9, "net": 2 - 51, "balance": 100 + 2 - 51}
    assert report["totals"]["box:QS"]["balance"] == 18
    assert [c["type"] for c in report["corrections"]] == ["undo", "adjust"]
    assert report["corrections"][0]["reason"] == "wrong card tapped"
    assert report["corrections"][1] == {
        "seq": report["corrections"][1]["seq"],
        "deal": 1,
        "type": "adjust",
        "from": "seat:0",
        "to": "seat:1",
        "amount": 2,
        "reason": "side bet",
    }
    severities = {f.code: f.severity for f in report["findings"]}
    assert severities == {"undo": "info", "adjustment": "warning"}


def test_a_forgotten_honour_and_a_shortfall_are_reported() -> None:
    table = Table(3, {"profile": "classic", **SMALL}, 20)
    table.deal(["AC 2C 5C 6C", "3D 9H QS 8S", "4D KH 7D 2S"])
    table.play(0, "AC 2C")
    table.play(1, "3D")
    table.play(2, "4D")
    table.play(0, "5C 6C")
    table2 = Table(3, "classic", 100)
    table2.deal()
    table2.play(0, "6C 7D")
    report = audit(chained_records(table.log))
    assert report["ok"] is True
    assert codes(report).count("shortfall") == 5
    assert all(f.severity == "warning" for f in report["findings"] if f.code == "shortfall")
    report = audit(chained_records(table2.log))
    forgotten = [f for f in report["findings"] if f.code == "not-announced"]
    assert len(forgotten) == 1 and forgotten[0].seq == len(table2.log) and "7D" in said(forgotten[0])


def test_an_edited_record_breaks_the_chain_at_its_seq() -> None:
    records = recorded_game()
    edited = copy.deepcopy(records)
    edited[29]["data"]["amount"] = 1
    report = audit(edited)
    assert report["ok"] is False
    assert report["chain"]["ok"] is False and report["chain"]["first_bad_seq"] == 30
    assert "chain-broken" in codes(report)
    assert report["findings"][0].seq == 30 and report["findings"][0].severity == "error"


def test_an_edited_timestamp_breaks_the_chain() -> None:
    records = recorded_game()
    records[6] = {**records[6], "recorded_at": "2020-01-01T00:00:00.000000Z"}
    assert verify_chain(records) == {"ok": False, "first_bad_seq": 7, "checked": 6}


def test_a_deleted_record_is_found() -> None:
    records = recorded_game()
    del records[20]
    report = audit(records)
    assert report["chain"]["first_bad_seq"] == 21 and report["ok"] is False


def test_reordered_records_are_found() -> None:
    records = recorded_game()
    records[17], records[18] = records[18], records[17]
    report = audit(records)
    assert report["chain"]["first_bad_seq"] == 18 and report["ok"] is False


def test_a_record_missing_a_field_is_reported_not_a_crash() -> None:
    records = recorded_game()
    del records[9]["data"]
    report = audit(records)
    assert report["ok"] is False and report["chain"]["first_bad_seq"] == 10
    assert "unreadable" in codes(report)


def test_a_rewritten_and_rechained_log_is_caught_by_recomputation() -> None:
    records = recorded_game()
    payment = next(
        i for i, r in enumerate(records) if r["type"] == "transfer" and r["data"]["reason"] == "payment"
    )
    forged = copy.deepcopy(records)
    forged[payment]["data"]["amount"] -= 20
    forged = rechain(forged)
    report = audit(forged)
    assert report["chain"]["ok"] is True and report["conservation"]["ok"] is True
    assert report["ok"] is False
    differences = report["recomputation"]["differences"]
    assert differences[0].seq == payment + 1 and "payment" in said(differences[0])
    assert differences[0].severity == "error" and differences[0].code == "recomputation-differs"
    assert "recomputation-differs" in codes(report)


def test_a_forged_extra_transfer_is_caught_by_recomputation() -> None:
    records = recorded_game()
    gift = {
        "seq": 0,
        "deal": 1,
        "type": "transfer",
        "v": 1,
        "recorded_at": records[-1]["recorded_at"],
        "data": {"from": "box:7D", "to": "seat:2", "amount": 5, "reason": "take"},
    }
    forged = rechain(records[:25] + [gift] + records[25:])
    report = audit(forged)
    assert report["chain"]["ok"] is True and report["ok"] is False
    assert report["recomputation"]["differences"][0].seq == 26


def test_a_withdrawn_table_action_is_caught_by_recomputation() -> None:
    records = recorded_game()
    last_transfer = max(i for i, r in enumerate(records) if r["data"].get("reason") == "bete")
    report = audit(rechain(records[:last_transfer] + records[last_transfer + 1 :]))
    assert report["ok"] is False
    assert report["recomputation"]["differences"][0].seq == last_transfer + 1


def test_an_action_todays_engine_refuses_is_listed() -> None:
    records = recorded_game()
    play = next(i for i, r in enumerate(records) if r["type"] == "play")
    forged = copy.deepcopy(records)
    forged[play]["data"]["cards"] = ["AC", "3C"]  # out of sequence, but folds
    report = audit(rechain(forged))
    assert report["ok"] is False
    difference = report["recomputation"]["differences"][0]
    assert difference.seq == play + 1 and "refuses" in said(difference)


def test_an_event_that_cannot_be_replayed_is_reported() -> None:
    records = recorded_game()
    forged = copy.deepcopy(records)
    forged[3]["data"] = {"from": "box:XX", "to": "seat:0", "amount": 1, "reason": "take"}
    report = audit(rechain(forged))
    assert report["ok"] is False and "unreplayable" in codes(report)
    assert next(f for f in report["findings"] if f.code == "unreplayable").seq == 4


def test_a_truncated_log_needs_a_checkpoint() -> None:
    """A log cut after a whole table action still chains: the signed checkpoint tells."""
    records = recorded_game()
    key = b"club secret"
    head = records[-1]
    checkpoint = {
        "seq": head["seq"],
        "hash": head["hash"],
        "signature": sign_checkpoint(key, "game-1", head["seq"], head["hash"]),
    }

    def valid(against: list[dict[str, Any]]) -> Any:
        def check(point: dict[str, Any]) -> bool:
            stored = against[point["seq"] - 1]["hash"] if point["seq"] <= len(against) else ""
            return checkpoint_valid(key, "game-1", point["seq"], stored, point["signature"])

        return check

    assert audit(records, [checkpoint], valid(records))["ok"] is True
    cut = records[:-2]  # the end action and its game_ended
    report = audit(cut, [checkpoint], valid(cut))
    assert report["chain"]["ok"] is True and report["recomputation"]["ok"] is True
    assert report["ok"] is False
    assert report["checkpoints"] == {"ok": False, "count": 1, "first_bad_seq": head["seq"]}
    assert "checkpoint-mismatch" in codes(report)


def test_recompute_needs_a_game_started_first() -> None:
    events = [event_from_dict(r) for r in recorded_game()]
    assert recompute(events[1:])["ok"] is False
    assert recompute(events)["ok"] is True


def test_canonical_json_is_one_way_to_write_a_value() -> None:
    assert canonical_json({"b": [1, "é"], "a": None}) == '{"a":null,"b":[1,"é"]}'
    record = {
        "seq": 1,
        "deal": 0,
        "type": "game_started",
        "data": {"x": 1},
        "v": 1,
        "recorded_at": "2026-01-01T00:00:00Z",
        "hash": "ignored",
        "extra": "ignored",
    }
    assert event_hash(GENESIS, record) == event_hash(
        GENESIS, {k: v for k, v in record.items() if k != "extra"}
    )
