"""Names in alphabetical order as a French or English reader expects it: "Élise" before "Marcel", whatever the
accents and the case, on every list the server sorts (the club's members, a scoreboard sorted by name, an
evening's standings)."""

from __future__ import annotations

from api.scoreboards import ranked
from nj_ledger import evenings as ev
from nj_ledger.evenings import entry
from nj_ledger.names import sort_key
from nj_ledger.store import Store

NAMES = ["Marcel", "Zoé", "Élise", "Œdipe", "ana", "Émile", "Emilie", "Table 10", "Table 2"]
ORDER = ["ana", "Élise", "Émile", "Emilie", "Marcel", "Œdipe", "Table 2", "Table 10", "Zoé"]


def test_the_sort_key_puts_accented_names_among_their_letters() -> None:
    assert sorted(NAMES, key=sort_key) == ORDER
    assert sorted(["élise", "Élise", "Elise"], key=sort_key) == ["Elise", "Élise", "élise"]  # a total order


def test_the_clubs_members_are_listed_alphabetically_page_after_page(store: Store, club) -> None:
    for name in NAMES:
        store.clubs.add_player(club.id, name)
    listed = ([p.name for p in store.clubs.players(club.id, limit=4)]
              + [p.name for p in store.clubs.players(club.id, offset=4)])
    assert listed == ORDER


def test_a_scoreboard_sorted_by_name_and_its_ties_follow_the_same_order() -> None:
    rows = [{"name": name, "net": 0} for name in NAMES]
    assert [row["name"] for row in ranked(rows, "name")] == ORDER
    assert [row["name"] for row in ranked(rows, "-net")] == ORDER  # all tied: by name


def test_an_evenings_tied_players_are_listed_alphabetically() -> None:
    kind, data = ev.decide_creation(name="Jeudi", played_on="2026-11-26", players=["Marcel", "Zoé", "Élise"],
                                    rounds=2, rules="classic", starting_chips=60, ranking="match_points",
                                    confirmation=False, seating=None)
    rows = ev.ranking(ev.fold_evening([entry(1, kind, data)]), {})  # nothing played: everyone tied at 0
    assert [row["name"] for row in rows] == ["Élise", "Marcel", "Zoé"]
