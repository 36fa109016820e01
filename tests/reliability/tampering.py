"""Tampering with stored games straight in SQL, as an intruder with the database's password would, and auditing
what is left (the tampering suites share it: tests/reliability/test_tamper.py and test_receipts.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete, insert, text, update

from nj_ledger.audit import action_of
from nj_ledger.chain import GENESIS, event_hash
from nj_ledger.decide import execute
from nj_ledger.receipts import Signer
from nj_ledger.reducer import replay
from nj_ledger.simulator import simulate
from nj_ledger.store import Store
from nj_ledger.store.checkpoints import Checkpoint, checkpoints
from nj_ledger.store.log import chain_records, event_of
from nj_ledger.store.models import EventRecord, Game
from nj_ledger.store.recorder import LAST_SEQ
from support.http import Calls, Club

TRIGGERS = {
    "sqlite": {"events": ["events_no_update", "events_no_delete"],
               "checkpoints": ["checkpoints_no_update", "checkpoints_no_delete"]},
    "postgresql": {"events": ["events_no_change", "events_no_truncate"],
                   "checkpoints": ["checkpoints_no_change", "checkpoints_no_truncate"]},
}


@dataclass
class Table:
    """A stored game and the means to tamper with it and to audit it."""

    store: Store
    club: Club
    game: str
    calls: Calls

    @property
    def engine(self) -> Engine:
        return self.store.db.engine

    def records(self) -> list[dict]:
        with self.store.db.reading() as session:  # every row there is, past the game's version too
            return list(self.store.db.recorder.select_records(session.connection(), self.game, 0, LAST_SEQ))

    def audit(self) -> dict:
        self.store.games.cache.clear()
        return self.calls.audit(self.club, self.game)

    def drop_guards(self, *tables: str) -> None:
        """What an intruder with the database's password does first (the tests share a database: once)."""
        with self.engine.begin() as connection:
            for table in tables:
                for trigger in TRIGGERS[self.store.db.dialect][table]:
                    on = f" ON {table}" if self.store.db.dialect == "postgresql" else ""
                    connection.execute(text(f"DROP TRIGGER IF EXISTS {trigger}{on}"))

    def rechain(self, start: int) -> None:
        """Recompute every hash from ``start`` on, and the game's head: the chain verifies again."""
        records = self.records()
        previous = GENESIS if start == 1 else records[start - 2]["hash"]
        with self.engine.begin() as connection:
            for record in records[start - 1:]:
                record["hash"] = previous = event_hash(previous, record)
                connection.execute(update(EventRecord).where(
                    EventRecord.game_id == self.game, EventRecord.seq == record["seq"]).values(hash=record["hash"]))
            connection.execute(update(Game).where(Game.id == self.game).values(
                head_hash=previous, version=len(records)))

    def signed(self) -> list[int]:
        return [checkpoint["seq"] for checkpoint in checkpoints(self.store.db, self.club.id, self.game)]

    def cut(self, version: int) -> None:
        """Cut the log back to ``version``: the later events and checkpoints deleted, the game's summary lowered
        to match (what the database alone cannot show when ``version`` ends a batch)."""
        records = self.records()
        state = replay(event_of(record) for record in records[:version])
        self.drop_guards("events", "checkpoints")
        with self.engine.begin() as connection:
            connection.execute(delete(EventRecord).where(EventRecord.game_id == self.game, EventRecord.seq > version))
            connection.execute(delete(Checkpoint).where(Checkpoint.game_id == self.game, Checkpoint.seq > version))
            connection.execute(update(Game).where(Game.id == self.game).values(
                version=version, head_hash=records[version - 1]["hash"], status=state.status,
                deals_played=state.deals_played))
        self.store.games.cache.clear()

    def rewrite_tail(self, after: int, change: Any) -> int:
        """Rewrite the events after ``after`` with the engine: their table actions, each passed through
        ``change`` (returning the action to record instead, or None to drop it), executed again and chained;
        the checkpoints past ``after`` deleted. Returns the new version."""
        records = self.records()
        state = replay(event_of(record) for record in records[:after])
        actions = [action_of(event) for event in map(event_of, records[after:]) if event.is_table_action]
        changed = [action for action in map(change, actions) if action is not None]
        _, events = execute(state, changed)
        moment = datetime.fromisoformat(records[after]["recorded_at"].replace("Z", "+00:00")).astimezone(UTC)
        new = chain_records(records[after - 1]["hash"], after, events, moment)
        self.drop_guards("events", "checkpoints")
        with self.engine.begin() as connection:
            connection.execute(delete(EventRecord).where(EventRecord.game_id == self.game, EventRecord.seq > after))
            connection.execute(delete(Checkpoint).where(Checkpoint.game_id == self.game, Checkpoint.seq > after))
            self.store.db.recorder.insert_events(connection, self.game, new)
            last = replay(event_of(record) for record in [*records[:after], *new])
            connection.execute(update(Game).where(Game.id == self.game).values(
                version=last.version, head_hash=new[-1]["hash"], status=last.status, deals_played=last.deals_played))
        self.store.games.cache.clear()
        return last.version

    def sign_head(self, signer: Signer) -> None:
        """Sign the log's head as the ledger would (what an intruder who also holds the private key can do)."""
        head = self.records()[-1]
        receipt = signer.sign(self.game, head["seq"], head["hash"], head["recorded_at"])
        with self.engine.begin() as connection:
            connection.execute(insert(Checkpoint), {
                "game_id": self.game, "seq": head["seq"], "head_hash": head["hash"], "signature": receipt["signature"],
                "key_id": receipt["key"], "at": receipt["at"], "created_at": datetime.now(UTC)})


def first_seq(records: list[dict], kind: str, after: int = 1) -> int:
    return next(r["seq"] for r in records if r["type"] == kind and r["seq"] > after)


def assert_caught(report: dict, part: str, seq: int) -> None:
    assert report["ok"] is False
    assert report[part]["ok"] is False and report[part]["first_bad_seq"] == seq, report[part]
    assert any(f["severity"] == "error" and f["seq"] == seq for f in report["findings"]), report["findings"]


def stored_game(store: Store, calls: Calls) -> Table:
    """A three-deal game stored in one transaction, as an import, in a club of its own."""
    info, token = store.clubs.create_club("Le Nain du Jeudi")
    game = simulate(seed=21, players=3, deals=3, starting_chips=200)
    created = store.games.create_game(info.id, game.events[0], game.actions)
    return Table(store, Club(info.id, token.secret), created.game.id, calls)
