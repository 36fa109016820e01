"""Receipts in the core: signing, checking a signature, holding a log to the receipts members kept; and which keys
to believe (nj_ledger.store.keys.trusted_keys, pure over its rows)."""

from __future__ import annotations

from datetime import UTC, datetime

from nj_ledger.audit import check_receipts
from nj_ledger.receipts import ALGORITHM, Signer, b64url, key_id, signed_bytes, verify, well_formed
from nj_ledger.store.keys import KeyInfo, succession, trusted_keys
from support.sentences import said

SIGNER = Signer.from_seed(bytes(range(32)))
KEYS = {SIGNER.id: SIGNER.public_key}
LOG = {seq: f"{seq:064x}" for seq in range(1, 41)}  # the hash of each event of a 40-event log
AT = "2026-11-23T10:00:00.000000Z"


def receipt(version: int, head: str | None = None, game: str = "g1") -> dict:
    return SIGNER.sign(game, version, head or LOG[version], AT)


def test_a_receipt_is_signed_over_its_canonical_json_and_checks_with_the_public_key_alone() -> None:
    signed = receipt(12)
    assert signed_bytes(signed) == (b'{"at":"2026-11-23T10:00:00.000000Z","game":"g1","head":"' + LOG[12].encode()
                                    + b'","key":"' + SIGNER.id.encode() + b'","version":12}')
    assert well_formed(signed) and verify(signed, KEYS) and SIGNER.id == key_id(SIGNER.public_key)
    for changed in ({"version": 13}, {"head": LOG[13]}, {"game": "g2"}, {"at": "2026-11-24T10:00:00.000000Z"},
                    {"signature": receipt(13)["signature"]}):
        assert not verify({**signed, **changed}, KEYS), changed
    other = Signer.generate()
    assert not verify(signed, {SIGNER.id: other.public_key})  # a key list that lends the id another key
    assert not verify({**signed, "version": True}, KEYS) and not verify({**signed, "extra": 1}, KEYS)
    assert not verify(signed, {})


def test_receipts_that_match_the_log_pass_and_others_name_what_happened() -> None:
    held = [receipt(10), receipt(25)]
    assert check_receipts("g1", 40, LOG.get, held, KEYS) == {
        "ok": True, "checked": 2, "skipped": 0, "first_bad_seq": None, "findings": []}

    cut = check_receipts("g1", 20, LOG.get, held, KEYS)  # the log now ends at 20
    assert not cut["ok"] and cut["first_bad_seq"] == 21
    assert [(f.code, f.seq) for f in cut["findings"]] == [("receipt-past-end", 25)]
    assert "events 21 to 25 were removed" in said(cut["findings"][0])

    rewritten = {**LOG, **{seq: f"{seq + 1000:064x}" for seq in range(18, 41)}}  # events from 18 on
    report = check_receipts("g1", 40, rewritten.get, [receipt(10), receipt(25), receipt(30)], KEYS)
    assert [(f.code, f.seq) for f in report["findings"]] == [("receipt-head-differs", 25),
                                                                  ("receipt-head-differs", 30)]
    assert report["first_bad_seq"] == 25
    assert "events 11 to 25 were rewritten (another receipt vouches for the events before)" in (
        said(report["findings"][0]))
    alone = check_receipts("g1", 40, rewritten.get, [receipt(30)], KEYS)
    assert "events up to 30 were rewritten" in said(alone["findings"][0])


def test_a_receipt_not_validly_signed_proves_nothing_and_other_games_are_skipped() -> None:
    forged = {**receipt(30), "head": "f" * 64}
    report = check_receipts("g1", 40, LOG.get, [forged, {"version": "x"}, receipt(5, game="g2")], KEYS)
    assert not report["ok"] and (report["checked"], report["skipped"]) == (1, 2)
    assert [(f.code, f.seq) for f in report["findings"]] == [("receipt-bad-signature", 30)]
    nameless = check_receipts("g1", 40, LOG.get, [{**receipt(5), "version": "5"}], KEYS)
    assert nameless["findings"][0].seq is None and "A receipt is not validly signed" in (
        said(nameless["findings"][0]))


def key_row(number: int, signer: Signer, before: KeyInfo | None = None, handing_over: Signer | None = None,
            endorsed_by: Signer | None = None) -> KeyInfo:
    """A row as register_key writes it (``endorsed_by``: someone else signs the succession, as a forger would)."""
    public = b64url(signer.public_key)
    if before is None:
        return KeyInfo(number, signer.id, ALGORITHM, public, datetime.now(UTC))
    statement = succession(signer.id, public, before)
    return KeyInfo(number, signer.id, ALGORITHM, public, datetime.now(UTC), before.id,
                   b64url((endorsed_by or signer).private.sign(statement)),
                   None if handing_over is None else b64url(handing_over.private.sign(statement)))


def test_keys_are_believed_along_signed_successions_from_the_key_a_process_holds() -> None:
    first, second, third, intruder = (Signer.generate() for _ in range(4))
    one = key_row(1, first)
    two = key_row(2, second, one)  # adopted: the old key did not hand over
    three = key_row(3, third, two, handing_over=second)  # rotated: the old key handed over
    rows = [one, two, three]
    ids = lambda keys: [key.id for key in keys]  # noqa: E731
    assert ids(trusted_keys(rows, third.id)) == [first.id, second.id, third.id]
    assert ids(trusted_keys(rows, second.id)) == [first.id, second.id, third.id]  # handed over to the third
    assert ids(trusted_keys(rows, first.id)) == [first.id]  # never handed over to the second

    added = key_row(0, intruder)  # a row put in the database, listed first
    claims = key_row(4, intruder, three)  # claiming to follow the third, signed by itself
    hands = key_row(5, intruder, three, handing_over=intruder)  # a handover it signed itself
    forged_endorsement = key_row(6, intruder, one, endorsed_by=first)  # the first key cannot be made to sign...
    assert ids(trusted_keys([added, *rows, claims, hands], third.id)) == [first.id, second.id, third.id]
    assert intruder.id not in ids(trusted_keys([*rows, forged_endorsement], third.id))
    changed = KeyInfo(7, second.id, ALGORITHM, b64url(intruder.public_key), datetime.now(UTC), one.id)
    assert ids(trusted_keys([one, changed, three], third.id)) == [third.id]  # a row changed: its id is not its key
    assert trusted_keys(rows, intruder.id) == []
