"""The boxes keep one order whatever order a stored rules object's keys come back in."""

from nj_ledger import execute, new_game, replay
from nj_ledger.rules import resolve_rules


def test_board_order_does_not_depend_on_key_order():
    shuffled = {"profile": "classic", "board": {"7D": 5, "KH": 4, "QS": 3, "JC": 2, "10D": 1}}
    assert resolve_rules(shuffled).honours == resolve_rules("classic").honours
    assert list(resolve_rules(shuffled).to_dict()["board"]) == ["10D", "JC", "QS", "KH", "7D"]


def test_a_log_whose_rules_keys_were_reordered_replays_the_same():
    started = new_game(["Ana", "Ben", "Chloé"], "classic", 60)
    _, events = execute(replay([started]), [{"type": "deal"}])
    reordered = dict(started.data)
    board = started.data["rules"]["board"]
    reordered["rules"] = {**started.data["rules"], "board": dict(reversed(list(board.items())))}
    original = replay([started, *events])
    again = replay([type(started)("game_started", reordered, 0), *events])
    assert again.board() == original.board() == {"10D": 3, "JC": 6, "QS": 9, "KH": 12, "7D": 15}
