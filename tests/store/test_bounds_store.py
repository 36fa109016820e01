"""Every number of a game at the top of its range goes into the store and comes back an integer, on SQLite and
PostgreSQL: JSON readers such as orjson read integers past 64 bits as floats, and the bounds keep every stored
number far below that."""

from __future__ import annotations

from core.test_bounds import DOUBLING_RULES, LARGEST_RULES, doubling_deal, numbers

from nj_ledger import RuleViolation, execute, new_game, replay
from nj_ledger.bounds import ADJUSTMENT, MAX_CHIPS, STARTING_CHIPS
from nj_ledger.events import event_from_dict
from nj_ledger.store import ClubInfo, Store
from nj_ledger.store.documents import export_document


def test_a_game_at_its_bounds_reads_back_as_the_integers_stored(store: Store, club: ClubInfo) -> None:
    started = new_game(["Ana", "Ben"], DOUBLING_RULES, STARTING_CHIPS[1])
    game = store.games.create_game(club.id, started).game
    state = replay([started])
    for _ in range(100):  # the boxes double every deal, until the bound refuses a deal
        try:
            execute(state, doubling_deal(state.next_dealer()))
        except RuleViolation as refusal:
            assert refusal.code == "chips-out-of-range"
            break
        state = store.games.append(club.id, game.id, doubling_deal(state.next_dealer())).state
    richer = max(range(2), key=lambda seat: state.balances[seat])
    store.games.append(club.id, game.id, [
        {"type": "adjust", "from": f"seat:{richer}", "to": f"seat:{1 - richer}", "amount": ADJUSTMENT[1]},
        {"type": "end", "reason": "the bound"}])

    fresh = Store(store.db.url)  # read from the database, not from a cache of states
    try:
        records = fresh.games.records(club.id, game.id)
        document = export_document(fresh.games, club.id, game.id)
        stored = fresh.games.game(club.id, game.id)
    finally:
        fresh.close()
    found = [number for record in records for number in numbers(record["data"])]
    assert found and all(type(number) is int for number in found)
    assert max(abs(number) for number in found) <= MAX_CHIPS
    assert all(type(record[name]) is int for record in records for name in ("seq", "deal", "v"))
    first = records[0]["data"]
    rules = first["rules"]
    assert first["starting_chips"] == stored.starting_chips == STARTING_CHIPS[1]
    assert {name: rules[name] for name in ("stake_unit", "point_value", "hoc_reward", "max_deals")} == {
        name: LARGEST_RULES[name] for name in ("stake_unit", "point_value", "hoc_reward", "max_deals")}
    assert rules["board"] == LARGEST_RULES["board"]
    adjustments = [record["data"]["amount"] for record in records if record["type"] == "adjust"]
    assert adjustments == [ADJUSTMENT[1]]
    final = replay([event_from_dict(record) for record in records])
    assert final.status == "ended" and final.result is not None
    assert MAX_CHIPS // 2 < max(abs(row["chips"]) for row in final.result["standings"]) <= MAX_CHIPS
    assert all(type(number) is int for number in numbers(document))
