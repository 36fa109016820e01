"""Club evenings as the API and the command line both run them, on both databases."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from nj_ledger.application import evenings
from nj_ledger.errors import LedgerError
from nj_ledger.evenings import parse_decision
from nj_ledger.store import ClubInfo, EveningRead, NotFound, Store
from nj_ledger.store.errors import EveningMoved
from nj_ledger.store.projections.seasons import create_season

PLAYERS = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]
OPERATOR = {"role": "operator", "label": "tests"}
SEATING = [[PLAYERS[:3], PLAYERS[3:]], [PLAYERS[::2], PLAYERS[1::2]]]


def opened(store: Store, club: ClubInfo, **settings: object) -> EveningRead:
    read, links = evenings.create_evening(store, club.id, OPERATOR, name="Jeudi", played_on=date(2026, 11, 26),
                                          players=PLAYERS, rounds=2, rules="classic", starting_chips=60,
                                          seating=SEATING, **settings)  # type: ignore[arg-type]
    assert [link.table for link in links] == [1, 2] and all(link.secret for link in links)
    return read


def test_an_evening_is_opened_read_and_listed(store: Store, club: ClubInfo) -> None:
    read = opened(store, club, ends_at=datetime(2026, 11, 26, 23, 30, tzinfo=UTC))
    assert read.info.name == "Jeudi" and read.state.current_round == 0 and sorted(read.codes) == [1, 2]
    assert evenings.evening(store, club.id, read.info.id).info.version == read.info.version
    second = opened(store, club)
    first = evenings.evenings_page(store, club.id, limit=1)
    assert len(first.items) == 1 and first.more
    rest = evenings.evenings_page(store, club.id, limit=5, offset=1)
    assert {e.id for e in [*first.items, *rest.items]} == {read.info.id, second.info.id} and not rest.more
    assert evenings.evenings_page(store, club.id, status="closed").items == []
    with pytest.raises(NotFound):
        evenings.evening(store, club.id, "nothere")


def test_rules_that_make_no_game_at_a_table_are_refused_before_anything_is_stored(store: Store,
                                                                                   club: ClubInfo) -> None:
    with pytest.raises(LedgerError):
        evenings.create_evening(store, club.id, OPERATOR, name="Jeudi", played_on=date(2026, 11, 26),
                                players=PLAYERS, rounds=1, rules="classic", starting_chips=0)
    assert evenings.evenings_page(store, club.id).items == []


def test_rounds_decisions_and_the_close(store: Store, club: ClubInfo) -> None:
    read = opened(store, club)
    evening = read.info.id
    started = evenings.start_round(store, club.id, evening, OPERATOR, now=datetime(2026, 11, 26, 20, tzinfo=UTC))
    assert started.state.current_round == 1 and len(started.state.started[-1]) == 2
    with pytest.raises(LedgerError) as refused:
        evenings.start_round(store, club.id, evening, OPERATOR)
    assert refused.value.code == "round-not-finished"
    adjusted = evenings.decide(store, club.id, evening, parse_decision(
        {"type": "adjustment", "player": "Ana", "amount": -5, "reason": "late"}), OPERATOR,
        expected_version=started.info.version)
    assert adjusted.entries[-1]["type"] == "score_adjusted" and adjusted.info.version == started.info.version + 1
    with pytest.raises(EveningMoved):
        evenings.decide(store, club.id, evening, parse_decision({"type": "reveal"}), OPERATOR,
                        expected_version=started.info.version)
    closed = evenings.close(store, club.id, evening, "fin", OPERATOR, expected_version=adjusted.info.version)
    assert closed.info.status == "closed" and closed.entries[-1]["data"]["reason"] == "fin"
    with pytest.raises(LedgerError) as refused:
        evenings.close(store, club.id, evening, "again", OPERATOR)
    assert refused.value.code == "evening-closed"
    assert [e.id for e in evenings.evenings_page(store, club.id, status="closed").items] == [evening]


def test_confirmations_the_tables_and_their_links(store: Store, club: ClubInfo) -> None:
    read = opened(store, club, confirmation=True)
    evening = read.info.id
    started = evenings.start_round(store, club.id, evening, OPERATOR, now=datetime(2026, 11, 26, 20, tzinfo=UTC))
    game = started.state.started[-1][0].game
    with pytest.raises(LedgerError) as refused:
        evenings.confirm(store, club.id, evening, game, "Ana", OPERATOR)
    assert refused.value.code == "game-not-ended"
    with pytest.raises(LedgerError):
        evenings.confirm_at_table(store, club.id, read.codes[2], game, "Ana", OPERATOR)
    found, table = evenings.table_by_code(store, club.id, read.codes[2].lower())
    assert (found.info.id, table) == (evening, 2)
    with pytest.raises(NotFound):
        evenings.table_by_code(store, club.id, "ZZZZZZZZ")
    link = evenings.table_link(store, club.id, evening, 1)
    assert (link.table, link.code) == (1, read.codes[1])
    joined = evenings.join_table(store, read.codes[1], most=10)
    assert joined is not None and joined.club_id == club.id and joined.link.table == 1
    assert evenings.join_table(store, "ZZZZZZZZ") is None
    evenings.close(store, club.id, evening, "", OPERATOR)
    assert evenings.join_table(store, read.codes[1]) is None


def test_the_audit_and_the_receipt_of_an_evening(store: Store, club: ClubInfo) -> None:
    read = opened(store, club)
    info, receipt = evenings.evening_receipt(store, club.id, read.info.id)
    assert receipt is not None and info.version == receipt["version"] == read.info.version
    audited, signed, held = evenings.evening_audit(store, club.id, read.info.id)
    assert audited.info.id == read.info.id and signed["ok"] and held is None
    other = {**receipt, "evening": "another"}
    _, _, held = evenings.evening_audit(store, club.id, read.info.id, [other, receipt, receipt])
    assert held is not None and held["ok"] and (held["checked"], held["skipped"]) == (1, 1)


def test_the_season_ladder_and_a_players_evenings(store: Store, club: ClubInfo) -> None:
    assert evenings.season_ladder(store, club.id, "Hiver") is None
    create_season(store.db, club.id, "Hiver", date(2026, 11, 1), date(2026, 12, 31))
    read = opened(store, club)
    assert evenings.season_ladder(store, club.id, "hiver").evenings == []  # type: ignore[union-attr]
    evenings.close(store, club.id, read.info.id, "", OPERATOR)
    ladder = evenings.season_ladder(store, club.id, "Hiver")
    assert ladder is not None and ladder.season.name == "Hiver"
    assert [r.info.id for r in ladder.evenings] == [read.info.id]
    shown, nights = evenings.player_evenings(store, club.id, " chloé ", None, None)
    assert shown == "Chloé" and [night["evening"] for night in nights] == [read.info.id]
    assert evenings.player_evenings(store, club.id, "Nobody", None, None) == ("Nobody", [])
