"""A member's erasure: their name written out of everything the club holds, every log still verifiable.

The director decides it, with a reason; in one transaction (a process killed half way leaves the member fully
erased or not at all):

- every log that names the member (the events of each game they sat in that name them — its start, its end's
  standings, a reason — and each evening decision whose data or deciding token's label names them) is checked,
  then redacted: the name becomes the member's pseudonym ("Joueur 3"), every other field of the record is kept,
  its stored hash included. A :class:`~.models.RedactionRecord` says, for each record, the hash before it, its own
  hash, the link of its content as redacted and that content's digest (the only update the logs' triggers let
  through), so the audit verifies the chain through it (:func:`nj_ledger.chain.redaction_holds`) and
  every receipt and checkpoint, which sign hashes, still holds;
- the copies that are not logs (the games' and evenings' summaries, stored answers, analyses, labels) are written
  again with the pseudonym, and so is the member's row: their id, games, chips and ratings stay, so every figure
  and standing is what it was;
- the erasure itself is recorded (:class:`~.models.ErasureRecord`): the member's id and pseudonym, the reason, the
  deciding token, the time and the redactions, chained after the club's erasures before it and signed, holding no
  name.

How a name is found: :class:`nj_ledger.names.Forgetting`. A game or an evening whose redaction would change more
than the member's name is refused (:class:`ErasureRefused`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ..chain import GENESIS, event_hash, first_unlinked, verify_chain
from ..erasures import erasure_hash, first_bad_erasure, pseudonym
from ..evenings import entry_hash, fold_evening
from ..names import Forgetting
from ..receipts import Signer
from ..reducer import replay
from .base import Database, iso, utcnow
from .clubs import find_member, name_key
from .errors import AlreadyErased, AmbiguousMember, DirectorsDecide, ErasureRefused, LogDamaged, NotFound
from .evening_redactions import EveningLog, redact_evenings
from .games import Games
from .keys import Keys
from .log import event_of
from .models import (
    DealAnalysis,
    ErasureRecord,
    Evening,
    EveningEntry,
    EventRecord,
    Game,
    GamePlayer,
    IdempotencyRecord,
    PhoneCode,
    Player,
    RedactionRecord,
    Share,
    Token,
)
from .redactions import content_digest, erasure_record, erasure_records, redactions_of
from .rows import JSONText, json_text
from .writes import register_players

DECIDERS = ("director", "operator")  # the club's director's token, or the server's operator (the CLI)


@dataclass(frozen=True)
class ErasureInfo:
    """A recorded erasure, and how many records of each kind it redacted (``redacted``: games, events, evenings,
    entries)."""

    club: str
    number: int
    member: int
    pseudonym: str
    reason: str
    by: dict[str, Any]
    recorded_at: str
    hash: str
    receipt: dict[str, Any] | None
    redacted: dict[str, int]

    @classmethod
    def of(cls, row: ErasureRecord, redactions: Sequence[RedactionRecord]) -> ErasureInfo:
        counts = {"games": len({r.log_id for r in redactions if r.log == "game"}),
                  "events": sum(r.log == "game" for r in redactions),
                  "evenings": len({r.log_id for r in redactions if r.log == "evening"}),
                  "entries": sum(r.log == "evening" for r in redactions)}
        return cls(row.club_id, row.number, row.member_id, row.pseudonym, row.reason, dict(row.by), row.recorded_at,
                   row.hash, None if row.receipt is None else dict(row.receipt), counts)


class Erasures:
    """The club's erasures of members (:mod:`this module <nj_ledger.store.erasures>`)."""

    def __init__(self, db: Database, keys: Keys, games: Games) -> None:
        self.db, self.keys, self.games = db, keys, games

    def erase(self, club_id: str, who: str, reason: str, by: Mapping[str, Any]) -> ErasureInfo:
        """Erase the member ``who`` (a name, any case, or an id) for ``reason``, decided by ``by`` (the deciding
        token's ``role`` and ``token`` id; the operator's ``{"role": "operator"}``): :class:`DirectorsDecide` for
        any other role, :class:`NotFound`, :class:`AlreadyErased`, :class:`LogDamaged` when a log to redact does
        not verify (the erasure does not vouch for a damaged record)."""
        if by.get("role") not in DECIDERS:
            raise DirectorsDecide()
        reason = reason.strip()
        if not reason:
            raise ValueError("an erasure needs a reason")
        signer = self.keys.signer()  # checked before the transaction: it may need one of its own

        def attempt() -> ErasureInfo:  # again when it lost a race (a deadlock with an append, on PostgreSQL)
            with self.db.writing() as session:
                info, redacted = self._erase(session, club_id, who, reason, by, signer)
            for game_id in redacted:
                self.games.cache.forget(game_id)
            return info

        return self.db.retrying(attempt)

    def _erase(self, session: Session, club_id: str, who: str, reason: str, by: Mapping[str, Any],
               signer: Signer) -> tuple[ErasureInfo, set[str]]:
        """The erasure, in the transaction of ``session``; and the games whose log it redacted."""
        connection = session.connection()
        self.db.recorder.lock_clubs(connection, [club_id])  # one erasure of a club at a time: gap-free numbers
        evenings = self._evenings(session, club_id)
        member = self._member(session, club_id, who, evenings)
        text = who.strip()
        if text.isascii() and text.isdigit() and len(text) <= 18 and member.id != int(text) and session.scalars(
                select(Player.id).where(Player.club_id == club_id, Player.id == int(text))).first() is not None:
            raise AmbiguousMember(who)  # one member's name, another's id: not decided on a guess
        done = session.scalars(select(ErasureRecord).where(ErasureRecord.member_id == member.id)).first()
        if done is not None:
            raise AlreadyErased(done.pseudonym, done.number)
        last = session.scalars(select(ErasureRecord).where(ErasureRecord.club_id == club_id)
                               .order_by(ErasureRecord.number.desc()).limit(1)).first()
        number = 1 if last is None else last.number + 1
        row = ErasureRecord(club_id=club_id, number=number, member_id=member.id,
                            pseudonym=_pseudonym(session, club_id, number), reason=reason,
                            by={key: by[key] for key in ("role", "token") if key in by},
                            recorded_at=iso(utcnow()), hash="", receipt=None)
        name, alias = member.name, row.pseudonym
        seated = _seated(session, member.id)
        forget = _forgetting(session, club_id, member, alias, seated, evenings)
        games = self._redact_games(session, club_id, member.id, name, forget, seated)
        entries = redact_evenings(name, forget, evenings)
        redactions = [RedactionRecord(club_id=club_id, erasure=number, **fields)
                      for fields, _ in [*games, *entries]]
        row.hash = erasure_hash(GENESIS if last is None else last.hash, erasure_record(row, redactions))
        row.receipt = signer.sign_erasure(club_id, number, row.hash, row.recorded_at)
        session.add(row)
        session.flush()
        session.add_all(redactions)
        session.flush()  # the records are redacted once their redactions are recorded (the logs' triggers)
        for fields, columns in games:
            connection.execute(update(EventRecord).where(EventRecord.game_id == fields["log_id"],
                                                         EventRecord.seq == fields["seq"]).values(**columns))
        for fields, columns in entries:
            connection.execute(update(EveningEntry).where(EveningEntry.evening_id == fields["log_id"],
                                                          EveningEntry.seq == fields["seq"]).values(**columns))
        self._rewrite_copies(session, club_id, member.id, forget)
        member.name, member.name_key = alias, name_key(alias)
        return ErasureInfo.of(row, redactions), {fields["log_id"] for fields, _ in games}

    @staticmethod
    def _member(session: Session, club_id: str, who: str, evenings: Sequence[EveningLog]) -> Player:
        """The member ``who`` (a name, any case, or an id); a person on an evening's list of players who never sat
        at one of its tables is registered now, under the name the evening wrote, to be erased (NotFound for a
        name the club holds nowhere). Only the evenings' lists of players are read: never their other texts."""
        try:
            member = find_member(session, club_id, who)
            # held until the erasure commits: a game registering them (Recorder.share_rows) waits, then finds the
            # name gone; one that registered them first is seen by the erasure
            session.execute(select(Player.id).where(Player.id == member.id).with_for_update())
            return member
        except NotFound:
            key = name_key(who)
            written = next((name for evening in evenings for name in evening.state.players if name_key(name) == key),
                           None)
            if written is None:
                raise
            [registered] = register_players(session.connection(), club_id, [written], utcnow())
            return session.get_one(Player, registered)

    def _read(self, session: Session, club_id: str) -> list[tuple[ErasureRecord, list[RedactionRecord]]]:
        rows = session.scalars(select(ErasureRecord).where(ErasureRecord.club_id == club_id)
                               .order_by(ErasureRecord.number)).all()
        redactions = session.scalars(select(RedactionRecord).where(RedactionRecord.club_id == club_id)
                                     .order_by(RedactionRecord.id)).all()
        return [(row, [r for r in redactions if r.erasure == row.number]) for row in rows]

    def erasures(self, club_id: str) -> list[ErasureInfo]:
        """The club's erasures, oldest first."""
        with self.db.reading() as session:
            return [ErasureInfo.of(row, redactions) for row, redactions in self._read(session, club_id)]

    def records(self, club_id: str) -> list[dict[str, Any]]:
        """The club's erasures as records (:func:`.redactions.erasure_record`), oldest first: what an archive
        carries."""
        with self.db.reading() as session:
            return erasure_records(session.connection(), club_id)

    def chain(self, club_id: str) -> dict[str, Any]:
        """The club's erasures held to their chain and their signatures: ``{ok, count, first_bad}`` (the number of
        the first erasure whose place, hash, link or receipt fails: :func:`nj_ledger.erasures.first_bad_erasure`)."""
        with self.db.snapshot() as session:
            connection = session.connection()
            records = erasure_records(connection, club_id)
            keys = self.keys.verifying_keys(None, connection)
        bad = first_bad_erasure(records, club_id, keys)
        return {"ok": bad is None, "count": len(records), "first_bad": bad}

    # --- the logs ----------------------------------------------------------------------------------
    def _redact_games(self, session: Session, club_id: str, member_id: int, name: str, forget: Forgetting,
                      seated: Sequence[Any]) -> list[tuple[dict[str, Any], dict[str, JSONText]]]:
        """The redactions of the events of every game the member sat in that name them (their summaries written
        again on the way), each with the record's new data; refused (:class:`ErasureRefused`) where it would change
        anything but the member's own seats' names."""
        connection = session.connection()
        keys = self.keys.verifying_keys(None, connection)
        seats: dict[str, set[int]] = {}
        for game_id, seat, who, _ in seated:
            seats.setdefault(game_id, set()).update([seat] if who == member_id else [])
        found = []
        for game in session.scalars(select(Game).where(Game.club_id == club_id, Game.id.in_(list(seats)))
                                    .order_by(Game.id).with_for_update()):
            records = list(self.db.recorder.select_records(connection, game.id, 0, game.version))
            known = redactions_of(connection, club_id, keys, "game", game.id)
            if not verify_chain(records, known)["ok"]:
                raise _damaged("game", game.id)
            previous = GENESIS
            after = []
            for record in records:
                data = record["data"]
                new = forget(data)  # the players of game_started, the standings, any reason
                if new != data:
                    text = JSONText(json_text(new, sort_keys=True))
                    fields = {"log": "game", "log_id": game.id, "seq": record["seq"], "previous": previous,
                              "hash": record["hash"], "redacted": event_hash(previous, {**record, "data": new}),
                              "content": content_digest(text)}
                    found.append((fields, {"data": text}))
                after.append({**record, "data": new})
                previous = record["hash"]
            _same_game(game.id, records, after, name)
            names = forget(list(game.player_names))
            if {seat for seat, (old, new) in enumerate(zip(game.player_names, names, strict=True))
                if old != new} != seats[game.id]:
                raise ErasureRefused(game.id, name, seats=True)  # another seat's name would change, or theirs not
            game.player_names = names
            game.meta = forget(dict(game.meta or {}))
        return found

    def _evenings(self, session: Session, club_id: str) -> list[EveningLog]:
        """Every evening of the club, held until the erasure commits, its decisions checked (:class:`LogDamaged`
        for a chain that does not verify: the erasure does not vouch for a damaged record) and folded, once."""
        connection = session.connection()
        keys = self.keys.verifying_keys(None, connection)
        read = []
        for evening in session.scalars(select(Evening).where(Evening.club_id == club_id).order_by(Evening.id)
                                       .with_for_update()):
            entries = self.db.recorder.select_entries(connection, evening.id)
            if first_unlinked(entries, entry_hash, redactions_of(connection, club_id, keys, "evening",
                                                                 evening.id)) is not None:
                raise _damaged("evening", evening.id)
            read.append(EveningLog(evening, entries, fold_evening(entries)))
        return read

    @staticmethod
    def _rewrite_copies(session: Session, club_id: str, member_id: int, forget: Forgetting) -> None:
        """The copies of the member's name that are not logs: stored answers, analyses, labels."""
        seated = select(GamePlayer.game_id).where(GamePlayer.player_id == member_id)
        rows: list[Any] = [*session.scalars(select(IdempotencyRecord).where(IdempotencyRecord.club_id == club_id)),
                           *session.scalars(select(DealAnalysis).where(DealAnalysis.game_id.in_(seated)))]
        for row in rows:
            body = forget(row.body)
            if body != row.body:
                row.body = body
        for labelled in [*session.scalars(select(Token).where(Token.club_id == club_id)),
                         *session.scalars(select(Share).where(Share.club_id == club_id)),
                         *session.scalars(select(PhoneCode).where(PhoneCode.club_id == club_id))]:
            label = forget(labelled.label)
            if label != labelled.label:
                labelled.label = label


def _same_game(game_id: str, records: list[Any], after: list[Any], name: str) -> None:
    """Refuse a redaction that would change a game's facts: a name that is also a word of the log (a member called
    "classic", the rules' profile) would be written out of more than the names."""
    def outcome(log: list[Any]) -> Any:
        state = replay(event_of(record) for record in log)
        return state.version, state.status, state.balances, state.board(), state.deals_played

    try:
        same = outcome(records) == outcome(after)
    except Exception:  # noqa: BLE001 - a redacted log the engine cannot fold: refused as one that would change
        same = False
    if not same:
        raise ErasureRefused(game_id, name)


def _seated(session: Session, member_id: int) -> list[Any]:
    """Every seat of every game the member sat in: (game, seat, member there, the game's names as typed)."""
    return list(session.execute(select(GamePlayer.game_id, GamePlayer.seat, GamePlayer.player_id, Game.player_names)
                                .join(Game, Game.id == GamePlayer.game_id)
                                .where(GamePlayer.game_id.in_(select(GamePlayer.game_id)
                                                              .where(GamePlayer.player_id == member_id)))).all())


def _forgetting(session: Session, club_id: str, member: Player, alias: str, seated: Sequence[Any],
                evenings: Sequence[EveningLog]) -> Forgetting:
    """How the member's name is written out: every spelling of it typed at a table they sat at (whatever its case:
    "STRASSE" for "Straße"), every other member's, co-player's and name on an evening's list kept whole."""
    typed = [(who, names[seat]) for _, seat, who, names in seated if seat < len(names)]
    spellings = {member.name, *(written for who, written in typed if who == member.id)}
    others = {*session.scalars(select(Player.name).where(Player.club_id == club_id, Player.id != member.id)),
              *(written for who, written in typed if who != member.id),
              *(listed for evening in evenings for listed in evening.state.players)}
    return Forgetting(spellings, alias, others)


def _pseudonym(session: Session, club_id: str, number: int) -> str:
    """The erased member's pseudonym: "Joueur N", N the erasure's number, or the next free one if a member is
    called so."""
    while True:
        candidate = pseudonym(number)
        taken = session.scalars(select(Player.id).where(Player.club_id == club_id,
                                                        Player.name_key == name_key(candidate))).first()
        if taken is None:
            return candidate
        number += 1


def _damaged(log: str, log_id: str) -> LogDamaged:
    if log == "game":
        return LogDamaged("The log of game {game!r} does not verify: it was changed outside the ledger. An erasure "
                          "vouches for the records it redacts, so it waits until the game's audit is understood.",
                          game=log_id)
    return LogDamaged("The log of evening {evening!r} does not verify: it was changed outside the ledger. An erasure "
                      "vouches for the records it redacts, so it waits until the evening's audit is understood.",
                      evening=log_id)


__all__ = ["DECIDERS", "ErasureInfo", "Erasures"]
