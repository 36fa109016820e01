"""GET /games/{game}/taps: what the scorer may tap, the core's own answer, asked by the scorer page before each tap."""

from __future__ import annotations

from nj_ledger.cards import DECK
from support.http import Calls, Club


def taps(calls: Calls, club: Club, game: str, query: str = "", status: int = 200) -> dict:
    return calls.read("GET", f"/api/v1/games/{game}/taps{query}", club=club, status=status)


def test_what_may_be_tapped_follows_the_run_the_turn_and_the_cards_seen(calls: Calls, club: Club) -> None:
    game = calls.game(club, ["Ana", "Ben", "Chloé"], dealer=0)["id"]
    before = taps(calls, club, game)
    assert before == {"version": 1, "cards": {}, "recordable": [], "starts": [], "seen": [], "next": None,
                      "honours": []}
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    opening = taps(calls, club, game)
    assert set(opening["cards"]) == {str(card) for card in DECK} and opening["starts"] == [0, 1, 2]
    assert opening["cards"]["5H"] == [1]  # a new run: only the seat to act starts it
    assert calls.act(club, game, {"type": "play", "seat": 1, "cards": ["5H", "6H"]}).status_code == 201
    now = taps(calls, club, game)
    assert now["version"] == calls.state(club, game)["version"] and now["next"] == "7"
    assert now["cards"]["7H"] == [0, 1, 2] and now["cards"]["5H"] == [] and now["cards"]["8H"] == [1]
    assert now["seen"] == ["5H", "6H"]
    going_on = taps(calls, club, game, "?cards=7C,8C&seat=2")
    assert going_on["recordable"] == [2] and going_on["starts"] == [2] and going_on["next"] == "9"
    assert going_on["cards"]["9S"] == [2] and going_on["cards"]["7D"] == []
    king = taps(calls, club, game, "?cards=7D,8D,9D,10D,JD,QD,KD")
    assert king["next"] is None and king["honours"] == ["7D", "10D"] and king["recordable"] == [0, 1, 2]


def test_bad_taps_are_refused_in_both_languages_and_change_nothing(calls: Calls, club: Club, problem) -> None:
    game = calls.game(club, ["Ana", "Ben", "Chloé"], dealer=0)["id"]
    calls.act(club, game, {"type": "deal"})
    version = calls.state(club, game)["version"]
    url = f"/api/v1/games/{game}/taps"
    refused = problem(calls.get(f"{url}?cards=5H,ZZ", club=club), 422, "invalid-card")
    assert "ZZ" in refused["detail"]
    french = problem(calls.get(f"{url}?cards=ZZ", club=club, headers={"Accept-Language": "fr"}), 422, "invalid-card")
    assert french["detail"] != refused["detail"] and "carte" in french["detail"]
    problem(calls.get(f"{url}?seat=3", club=club), 422, "unknown-seat")
    not_dealt = calls.game(club, ["Ana", "Ben", "Chloé"])["id"]
    problem(calls.get(f"/api/v1/games/{not_dealt}/taps?seat=3", club=club), 422, "unknown-seat")
    problem(calls.get(f"{url}?seat=two", club=club), 422)
    problem(calls.get(f"{url}?cards={','.join(['5H'] * 53)}", club=club), 422)
    problem(calls.get("/api/v1/games/nope/taps", club=club), 404, "not-found")
    assert calls.state(club, game)["version"] == version


def test_a_viewer_reads_what_may_be_tapped_another_club_does_not(calls: Calls, club: Club, problem) -> None:
    game = calls.game(club, ["Ana", "Ben", "Chloé"], dealer=0)["id"]
    viewer = calls.token(club, "viewer")
    assert taps(calls, viewer, game)["version"] == 1
    other = calls.club("Le Nain du Vendredi")
    problem(calls.get(f"/api/v1/games/{game}/taps", club=other), 404, "not-found")


def test_a_replays_calls_are_the_rules_own(calls: Calls, club: Club) -> None:
    """A play's calls in the replay: an honour announced takes, a card that ends the run restarts (a King; in the
    1760 rules each hoc too), the last card goes out, else the run wants its next card; the NJN says the same."""
    game = calls.game(club, ["Ana", "Ben", "Chloé"], rules="avantcoureur-1760", dealer=0)["id"]
    calls.act(club, game, {"type": "deal"})
    laid = {"type": "play", "seat": 1, "cards": ["9C", "10C", "JC", "2H"], "announced": ["JC"]}
    assert calls.act(club, game, laid).status_code == 201
    replay = calls.read("GET", f"/api/v1/games/{game}/deals/1/replay", club=club)
    said = [step["calls"] for step in replay["steps"] if step["event"] and step["event"]["type"] == "play"]
    assert said == [[{"call": "takes", "card": "JC"}, {"call": "restarts", "card": "JC"},
                     {"call": "wants", "expected": "3H"}]]
    assert all(step["calls"] == [] for step in replay["steps"] if not step["event"] or step["event"]["type"] != "play")
    njn = calls.get(f"/api/v1/games/{game}/export?format=njn", club=club).get_data(as_text=True)
    assert "1: 9C 10C JC! 2H {Valet qui prend, Valet et je recommence, sans 3 de cœur}" in njn
