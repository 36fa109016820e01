"""The restore drill (SPEC §10), on SQLite and on PostgreSQL: writers run, a backup is taken while they write,
the database is destroyed and restored from it. Then every game audits clean; every receipt members received
before the backup verifies; the receipts received after it are reported by the audit with receipts as events
lost, by number (that is what receipts are for); a game created after the backup is not there, and the audit
and ``nj-ledger heads check`` say so.

The drill's figures (games, events, seconds) are printed (``-s``) and recorded as the test's properties.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from api.context import store as app_store
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.backups import verify
from nj_ledger.store.checkpoints import audit_game
from support.apps import new_app

from .helpers import destroy, fill, fingerprint, nj_ledger

WRITERS = 3  # threads appending batches, each with a store of its own (as server workers have)
# games stored before the writers start (200: about 40,000 events), and the seconds the writers run before the
# backup and again after it; the larger drill is make test-slow's
SIZES = [pytest.param(200, 0.5, id="40k-events"), pytest.param(2_000, 2.0, id="400k-events", marks=pytest.mark.slow)]


@dataclass(frozen=True)
class Acknowledged:
    """A receipt a member received: when the write was sent and when its answer came."""

    sent: float
    answered: float
    receipt: dict[str, Any]


class Writer(threading.Thread):
    """Plays simulated games batch by batch, a new game when one ends, keeping every receipt."""

    def __init__(self, url: str, club: str, seed: int, stop: threading.Event, kept: list[Acknowledged]) -> None:
        super().__init__(daemon=True)
        self.url, self.club, self.seed, self.stop, self.kept = url, club, seed, stop, kept
        self.error: BaseException | None = None

    def run(self) -> None:
        store = Store(self.url)
        try:
            while not self.stop.is_set():
                game = simulate(self.seed, "classic", None, info="full", deals=3)
                self.seed += 1
                sent = time.monotonic()
                created = store.games.create_game(self.club, game.events[0])
                self.keep(sent, created.receipt)
                for batch in game.batches:
                    if self.stop.is_set():
                        break
                    sent = time.monotonic()
                    self.keep(sent, store.games.append(self.club, created.game.id, batch).receipt)
        except BaseException as error:  # noqa: BLE001 - said by the test
            self.error = error
        finally:
            store.close()

    def keep(self, sent: float, receipt: dict[str, Any] | None) -> None:
        assert receipt is not None
        self.kept.append(Acknowledged(sent, time.monotonic(), receipt))


def late_game(url: str, club: str, kept: list[Acknowledged]) -> None:
    """A game created, and a deal played in it, after the backup for sure."""
    game = simulate(99_999, "classic", None, info="full", deals=1)
    store = Store(url)
    try:
        sent = time.monotonic()
        created = store.games.create_game(club, game.events[0])
        assert created.receipt is not None
        kept.append(Acknowledged(sent, time.monotonic(), created.receipt))
        sent = time.monotonic()
        receipt = store.games.append(club, created.game.id, game.batches[0]).receipt
        assert receipt is not None
        kept.append(Acknowledged(sent, time.monotonic(), receipt))
    finally:
        store.close()


@pytest.mark.parametrize(("prefill", "writing"), SIZES)
def test_a_backup_taken_while_writers_write_restores_and_the_receipts_name_what_it_lost(
        backend: str, fresh_url: str, tmp_path: Path, record_property: Any, prefill: int, writing: float) -> None:
    url = fresh_url
    started = time.perf_counter()
    club = fill(url, prefill)
    kept = [Acknowledged(0.0, 0.0, receipt) for receipts in club.receipts.values() for receipt in receipts]
    filled_in = time.perf_counter() - started

    stop = threading.Event()
    writers = [Writer(url, club.club, 10_000 * (number + 1), stop, kept) for number in range(WRITERS)]
    for writer in writers:
        writer.start()
    time.sleep(writing)
    backup = tmp_path / "backups" / "drill.tar"
    backup_sent = time.monotonic()
    said = nj_ledger("backup", str(backup)).stdout
    backup_seconds = time.monotonic() - backup_sent
    backup_done = time.monotonic()
    time.sleep(writing)
    late_game(url, club.club, kept)
    stop.set()
    for writer in writers:
        writer.join(timeout=60)
        assert writer.error is None, repr(writer.error)
    assert "written to" in said and "The signing key is not in it" in said
    acknowledged = fingerprint(url)
    assert acknowledged is not None

    destroy(url)
    assert fingerprint(url) is None
    restore_sent = time.monotonic()
    said = nj_ledger("restore", str(backup)).stdout
    restore_seconds = time.monotonic() - restore_sent
    restored = fingerprint(url)
    assert restored is not None
    manifest = verify(backup)
    assert (restored["clubs"], len(restored["games"]), restored["events"]) == (
        manifest.contents.counts["clubs"], manifest.contents.counts["games"], manifest.contents.counts["events"])
    assert restored["keys"] == acknowledged["keys"] and "Receipts are signed with key" in said
    assert restored["revision"] == acknowledged["revision"]

    # every game audits clean, from its records alone
    store = Store(url)
    try:
        for game in restored["games"]:
            report = audit_game(store.keys, club.club, game)
            assert report["ok"], (game, [f.code for f in report["findings"]])
    finally:
        store.close()

    # the receipts members kept, held against the restored log through the API
    by_game: dict[str, list[Acknowledged]] = {}
    for acknowledgement in kept:
        by_game.setdefault(acknowledgement.receipt["game"], []).append(acknowledgement)
    app = new_app(url=url)
    client = app.test_client()
    verified = lost = missing_games = missing_receipts = 0
    try:
        for game, received in by_game.items():
            answer = client.post(f"/api/v1/games/{game}/audit", json={"receipts": [a.receipt for a in received]},
                                 headers=club.auth)
            if game not in restored["games"]:  # created after the backup: the restore has no trace of it
                assert answer.status_code == 404
                assert all(a.sent > backup_sent for a in received)
                missing_games += 1
                missing_receipts += len(received)
                continue
            assert answer.status_code == 200, answer.get_json()
            report = answer.get_json()["receipts"]
            version = restored["games"][game][0]
            past = sorted(a.receipt["version"] for a in received if a.receipt["version"] > version)
            for acknowledgement in received:
                if acknowledgement.answered < backup_sent:  # acknowledged before the backup began: in it
                    assert acknowledgement.receipt["version"] <= version
                if acknowledgement.sent > backup_done:  # sent after the backup ended: not in it
                    assert acknowledgement.receipt["version"] > version
            assert [f["code"] for f in report["findings"]] == ["receipt-past-end"] * len(past)
            assert sorted(f["seq"] for f in report["findings"]) == past
            for finding in report["findings"]:  # each names the events lost, by number
                assert f"events {version + 1} to {finding['seq']} were removed" in finding["message"]
            assert report["first_bad_seq"] == (version + 1 if past else None)
            assert report["checked"] == len(received) and report["ok"] == (not past)
            verified += len(received) - len(past)
            lost += len(past)
        assert client.get("/api/v1/keys").get_json()["keys"][-1]["id"] == manifest.contents.keys[-1]["id"]
    finally:
        with app.app_context():
            app_store().close()
    assert verified >= prefill and lost > 0 and missing_games >= 1

    # the command line says the same of a heads file: a game missing, the events lost by number
    heads = tmp_path / "receipts.json"
    heads.write_text(json.dumps([a.receipt for a in kept]), encoding="utf-8")
    checked = nj_ledger("heads", "check", str(heads), expect=1).stdout
    assert checked.count("MISSING") == missing_games and "receipt-past-end" in checked

    figures = {"backend": backend, "writers": WRITERS, "games_acknowledged": len(acknowledged["games"]),
               "events_acknowledged": acknowledged["events"], "games_in_backup": len(restored["games"]),
               "events_in_backup": restored["events"], "backup_bytes": manifest.size,
               "receipts_verified": verified, "receipts_lost": lost, "games_lost": missing_games,
               "receipts_of_lost_games": missing_receipts, "prefill_seconds": round(filled_in, 2),
               "backup_seconds": round(backup_seconds, 2), "restore_seconds": round(restore_seconds, 2)}
    for name, value in figures.items():
        record_property(name, value)
    print(f"\nrestore drill: {json.dumps(figures)}")
