"""The double-dummy solver (nj_ledger.analysis), proved against the core on small random deals of every profile.

- Its moves are the core's legal table actions: on thousands of positions, every action ``decide.execute``
  accepts is one the solver's model offers, and the reverse, and the state each leads to is the model's.
- Its settlement is the core's: every deal played to its end in the model ends with the chips
  ``decide.execute`` gives.
- The solver (transposition table, forced moves played through) equals the plain exhaustive search of
  ``nj_ledger.analysis.reference``, for best play by all and for what each seat is sure of; on the smallest
  deals, what each seat is sure of equals a minimax over the core's own legal actions.
- Its best line, replayed through the core, ends with exactly the chips it predicted; every option's values
  are those of the position after it.
- A player never does better than the solver's value against others who play as the solver says, and never
  worse than what the solver says is sure when it plays for it.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from nj_ledger import DECK, GameState, LedgerError, execute, new_game, replay
from nj_ledger.analysis import mark, review, searcher, secure, solve
from nj_ledger.analysis.convert import actions_of, position
from nj_ledger.analysis.model import CALL, ENDED, P_BAL, P_MODE, P_TURN, PLAIN, Table, card_index
from nj_ledger.analysis.reference import best_play, guaranteed
from nj_ledger.analysis.solver import Search, _turn_options
from nj_ledger.cards import Card, parse_cards
from support.scale import scaled, sized

PROFILES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("classic", {}),
    ("cards", {}),
    ("skip", {}),
    ("hearts", {}),
    ("avantcoureur-1760", {}),
    # overrides: every option the play and the settlement read
    ("classic", {"sequence": "suit"}),
    ("classic", {"blocked": "skip", "restarter": "first_passer"}),
    ("classic", {"opening": "lowest", "grand_opera": {"condition": "no_other_plays", "reward": "double"}}),
    ("classic", {"bete": "face", "stake_unit": 2, "point_value": 3}),
    ("skip", {"may_stop": True, "wild": "7D", "wild_pays_double": True}),
    ("cards", {"stops": ["10D", "JC"], "hoc_reward": 2, "shortfall": "negative"}),
    ("avantcoureur-1760", {"sequence": "rank", "may_stop": True}),
)


def small_deal(seed: int, sizes: tuple[int, ...] = (2, 3), players: tuple[int, ...] = (2, 3, 4),
               chips: tuple[int, ...] = (4, 16, 60, 400)) -> GameState:
    """A random deal of a random profile with 2–4 players and few cards each, dealt with every hand, after a
    random number of earlier deals' worth of chips in the boxes (some seats short of chips, to reach the
    payments held to a balance)."""
    rng = random.Random(seed)
    profile, overrides = PROFILES[seed % len(PROFILES)]
    n = rng.choice(players)
    size = rng.choice(sizes)
    rules = {"profile": profile, **overrides, "players": [n], "deal_table": {str(n): [size, 52 - n * size]},
             "max_deals": None}
    if profile == "avantcoureur-1760":
        rules["ante"] = "all"  # boxes filled by every player: more to take
    deck = list(DECK)
    rng.shuffle(deck)
    if rng.random() < 0.6:  # make the honours, hocs and Kings common in such small hands
        specials = [c for c in deck if c.rank in (7, 10, 11, 12, 13)]
        rest = [c for c in deck if c not in specials]
        deck = specials[:n * size // 2] + rest
        rng.shuffle(deck)
    hands = [[str(c) for c in deck[i * size:(i + 1) * size]] for i in range(n)]
    started = new_game([f"P{i}" for i in range(n)], rules, 1000)
    state = replay([started])
    budget = rng.choice(chips)
    ante = state.rules.ante_total
    adjust = [{"type": "adjust", "from": f"seat:{seat}", "to": f"seat:{(seat + 1) % n}", "amount": 1000 - budget - ante}
              for seat in range(n) if rng.random() < 0.5 and budget + ante < 1000]
    dealer = rng.randrange(n)
    state, _ = execute(state, [*adjust, {"type": "deal", "dealer": dealer, "hands": hands}])
    # a few random legal table actions first: positions in the middle of a deal
    for _ in range(rng.choice((0, 0, 1, 2, 4))):
        table, p, held = position(state)
        options = _turn_options(table, p)
        moves, after = rng.choice(options)
        if after[P_MODE] == ENDED:
            break
        state, _ = execute(state, actions_of(table, p, held, moves))
    return state


def canonical(table: Table, state: GameState, action: dict[str, Any]) -> tuple[Any, ...]:
    """An action with the cards that are one card to the solver written as their rank, and the calls that move
    no chip left out."""
    if action["type"] == "pass":
        return ("pass",)
    cards = parse_cards(action["cards"])
    called = set(parse_cards(action.get("announced", [])))
    written = []
    for card in cards:
        i = card_index(card)
        if not table.special[i]:
            written.append(("rank", card.rank))
            continue
        box = table.box_of[i]
        moves_chips = (table.hoc_card[i] and table.hoc > 0) or (box >= 0 and state.boxes[box] > 0)
        written.append((str(card), card in called and moves_chips))
    return ("play", tuple(written))


def core_actions(state: GameState) -> list[tuple[dict[str, Any], GameState]]:
    """Every play (any order of any of the seat's cards, any calls) and the pass, by the seat to act, that the
    core accepts, with the state after it. A play goes on past a card that ends the run only as a play of its
    own (the core records both alike: tests/core/test_play.py), which is how the solver writes it."""
    deal = state.deal
    assert deal is not None and deal.hands is not None and deal.turn is not None
    seat = deal.turn
    hand = sorted(deal.hands[seat], key=card_index)
    candidates: list[dict[str, Any]] = [{"type": "pass", "seat": seat}]
    for length in range(1, len(hand) + 1):
        for cards in itertools.permutations(hand, length):
            if any(state.rules.ends_run(card) for card in cards[:-1]):
                continue
            callable_ = [c for c in cards if state.rules.announceable(c)]
            for k in range(len(callable_) + 1):
                for called in itertools.combinations(callable_, k):
                    candidates.append({"type": "play", "seat": seat, "cards": [str(c) for c in cards],
                                       "announced": [str(c) for c in called]})
    accepted = []
    for action in candidates:
        try:
            after, _ = execute(state, [action])
        except LedgerError:
            continue
        accepted.append((action, after))
    return accepted


def model_after(table: Table, state: GameState) -> tuple[Any, ...]:
    """The core's state after an action as the model writes it (the final chips once the deal is settled)."""
    if state.status == "playing":
        _, p, _ = position(state, table=table)
        return ("position", p)
    return ("settled", state.balances)


@scaled
def test_the_models_moves_are_the_cores_legal_actions_and_lead_to_the_same_state() -> None:
    positions = 0
    for seed in range(sized(1500, 6000)):
        state = small_deal(seed, sizes=(2, 3))
        while state.status == "playing":
            table, p, held = position(state)
            model = {}
            for moves, after in _turn_options(table, p):
                actions = actions_of(table, p, held, moves)
                assert len(actions) == 1, (moves, actions)
                core_state, _ = execute(state, actions)  # the core accepts every move the model offers
                key = canonical(table, state, actions[0])
                assert key not in model, key
                expected = ("position", after) if after[P_MODE] != ENDED else ("settled", after[P_BAL])
                assert model_after(table, core_state) == expected, (seed, actions[0])
                model[key] = after
            accepted = core_actions(state)
            assert {canonical(table, state, action) for action, _ in accepted} == set(model), seed
            positions += 1
            state = random.Random(seed).choice(accepted)[1]
    assert positions >= sized(1500, 6000)


@scaled
def test_the_solver_equals_a_plain_exhaustive_search() -> None:
    for seed in range(sized(2000, 12000)):
        sizes, players = ((4,), (2,)) if seed % 4 == 0 else ((2,), (4,)) if seed % 4 == 1 else ((2, 3), (2, 3))
        state = small_deal(10_000 + seed, sizes=sizes, players=players)
        table, p, _ = position(state)
        search = Search(table, p)
        assert search.values(p) == best_play(table, p), seed
        for seat in range(state.n):
            assert search.secure(p, seat) == guaranteed(table, p, seat), (seed, seat)


def core_guaranteed(state: GameState, seat: int) -> int:
    """What ``seat`` is sure of, by minimax over the core's own legal actions and the core's settlement."""
    if state.status != "playing":
        return state.balances[seat]
    assert state.deal is not None
    values = [core_guaranteed(after, seat) for _, after in core_actions(state)]
    return max(values) if state.deal.turn == seat else min(values)


@scaled
def test_what_a_seat_is_sure_of_equals_a_minimax_over_the_cores_own_actions() -> None:
    for seed in range(sized(400, 2000)):
        state = small_deal(20_000 + seed, sizes=(2,), players=(2, 3))
        for seat in range(state.n):
            assert secure(state, seat) == core_guaranteed(state, seat), (seed, seat)


@scaled
def test_the_best_line_replayed_through_the_core_gives_the_chips_predicted() -> None:
    for seed in range(sized(600, 3000)):
        sizes, players = ((4,), (2,)) if seed % 3 == 0 else ((2, 3), (2, 3, 4))
        state = small_deal(30_000 + seed, sizes=sizes, players=players, chips=(4, 60, 400))
        solution = solve(state)
        after, _ = execute(state, solution.line)
        assert after.status != "playing"
        assert after.balances == solution.values, seed
        assert solution.best[0].values == solution.values
        for option in solution.options:  # each option's values are those of the position it leads to
            following, _ = execute(state, [option.action])
            if following.status == "playing":
                assert solve(following).values == option.values, (seed, option.action)
            else:
                assert following.balances == option.values


def play_out(state: GameState, seat: int, rng: random.Random, choose: str) -> int:
    """Play the deal to its end: ``seat`` at random, the others as best play by all says (``choose="maxn"``);
    or ``seat`` for what it is sure of, the others at random (``choose="secure"``). ``seat``'s final chips."""
    search = searcher(state)
    while state.status == "playing":
        table, p, held = position(state, table=search.table)
        options = _turn_options(table, p)
        if (p[P_TURN] == seat) == (choose == "maxn"):
            moves, _ = rng.choice(options)
        elif choose == "maxn":
            moves = list(solve(state, search=search).best[0].moves)
        else:
            moves = max(options, key=lambda option: search.secure(option[1], seat) if option[1][P_MODE] != ENDED
                        else option[1][P_BAL][seat])[0]
        state, _ = execute(state, actions_of(table, p, held, moves))
    return state.balances[seat]


@scaled
def test_a_player_never_beats_the_solvers_value_nor_falls_below_what_it_is_sure_of() -> None:
    rng = random.Random(5)
    for seed in range(sized(500, 3000)):
        state = small_deal(40_000 + seed, sizes=(2, 3) if seed % 3 else (4,), players=(2, 3, 4) if seed % 3 else (2,))
        seat = rng.randrange(state.n)
        value = solve(state).values[seat]
        sure = secure(state, seat)
        assert sure <= value, seed  # best play by all never leaves a player less than it can make sure of
        assert play_out(state, seat, rng, "maxn") <= value, seed
        assert play_out(state, seat, rng, "secure") >= sure, seed


def test_cards_equal_to_the_rules_are_one_move_and_the_table_action_names_a_card_held() -> None:
    started = new_game(["Ana", "Ben"], {"profile": "classic", "players": [2], "deal_table": {"2": [3, 46]}}, 60)
    state, _ = execute(replay([started]), [{"type": "deal", "hands": [["5H", "5S", "QS"], ["6C", "9D", "KC"]]}])
    solution = solve(state)
    plays = [option.action["cards"] for option in solution.options]
    assert ["5H"] in plays and ["5S"] not in plays  # the two 5s are one card to the rules
    assert ["QS"] in plays and {"type": "play", "seat": 0, "cards": ["QS"], "announced": ["QS"]} in [
        option.action for option in solution.options]  # the Queen of spades' box: called, or not
    assert all(option.values[0] <= solution.values[0] for option in solution.options)
    assert solution.best[0] is solution.options[[o.values[0] for o in solution.options].index(solution.values[0])]


def test_the_hands_of_a_deal_not_dealt_with_them_are_given() -> None:
    started = new_game(["Ana", "Ben"], {"profile": "classic", "players": [2], "deal_table": {"2": [2, 48]}}, 60)
    state, _ = execute(replay([started]), [{"type": "deal"}, {"type": "play", "seat": 0, "cards": ["5H"]}])
    with pytest.raises(LedgerError) as refused:
        solve(state)
    assert refused.value.code == "hands-needed"
    with pytest.raises(LedgerError) as refused:
        solve(state, [["6H", "7H"], ["KD", "QD"]])
    assert refused.value.code == "hands-mismatch"
    solution = solve(state, {0: ["6H"], 1: ["KD", "QD"]})
    after, _ = execute(state, solution.line)
    assert after.status == "revealing"  # the core waits for the losers' cards; the solver knew them
    after, _ = execute(after, [{"type": "reveal", "seat": seat, "cards": [str(c) for c in cards]}
                               for seat, cards in ((1, parse_cards(["KD", "QD"])),) if seat in after.deal.awaiting])
    assert after.balances == solution.values


def test_every_decision_of_a_deal_is_a_card_a_stop_a_pass_or_a_call() -> None:
    rules = {"profile": "classic", "players": [3], "deal_table": {"3": [3, 43]}}
    started = new_game(["Ana", "Ben", "Chloé"], rules, 100)
    state, _ = execute(replay([started]), [{"type": "deal", "hands": [["4C", "5C", "10D"], ["5D", "6D", "KH"],
                                                                       ["9S", "JC", "QS"]]}])
    table, p, _ = position(state)
    moves = table.moves(p)
    assert PLAIN + 4 in moves and PLAIN + 5 in moves  # which card opens the run
    ten = card_index(Card(10, "D"))
    assert ten in moves and ten | CALL in moves  # the 10 of diamonds: its box called, or left
    after = table.play(p, PLAIN + 4)
    assert table.moves(after) == [PLAIN + 5, -1]  # go on with the 5, or stop ("sans 5")


@scaled
def test_a_deal_reviewed_decision_by_decision() -> None:
    rng = random.Random(11)
    for seed in range(sized(200, 2000)):
        start = small_deal(50_000 + seed, sizes=(2, 3) if seed % 3 else (4,), players=(2, 3, 4) if seed % 3 else (2,))
        # a deal played to its end, each table action chosen at random among the legal ones
        state, actions, before = start, [], start
        while state.status == "playing":
            table, p, held = position(state)
            moves, _ = rng.choice(_turn_options(table, p))
            action = actions_of(table, p, held, moves)
            if rng.random() < 0.3 and action[0]["type"] == "play" and actions and actions[-1]["type"] == "pass":
                try:  # let the core infer the pass before the play, where that records the same
                    inferred, _ = execute(before, action)
                except LedgerError:
                    inferred = None
                if inferred is not None and inferred.balances == execute(state, action)[0].balances and \
                        model_after(table, inferred) == model_after(table, execute(state, action)[0]):
                    actions.pop()
            actions += action
            before = state
            state, _ = execute(state, action)
        decisions = review(start, actions)
        assert decisions and decisions[0].best_values == solve(start).values
        for decision in decisions:
            assert decision.lost == decision.best_values[decision.seat] - decision.values[decision.seat] >= 0
            assert decision.mark == mark(decision.lost, start.rules.ante_total)
            assert (decision.lost == 0) == (decision.mark == "best")
            assert not decision.forced or decision.lost == 0
        for before, after in itertools.pairwise(decisions):
            assert after.best_values == before.values  # best play from after a decision is what it was worth
        assert decisions[-1].values == state.balances  # the deal's real end
        # the best line itself loses nothing
        best = review(start, solve(start).line)
        assert all(decision.lost == 0 for decision in best)
        assert best[-1].values == solve(start).values


def test_marks_follow_the_boards_stake() -> None:
    assert [mark(lost, 15) for lost in (0, 1, 4, 5, 14, 15, 60)] == [
        "best", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


def test_the_end_of_a_recorded_example_deal_reviewed() -> None:
    """The last decisions of deal 1 of examples/dimanche-chez-jeanne.json (four players, hands dealt)."""
    import json
    import pathlib

    document = json.loads((pathlib.Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json")
                          .read_text(encoding="utf-8"))
    state = replay([new_game(document["players"], document["rules"], document["starting_chips"],
                             dealer=document["dealer"])])
    state, _ = execute(state, document["actions"][:1])
    deal = list(itertools.takewhile(lambda action: action["type"] != "deal", document["actions"][1:]))
    middle, _ = execute(state, deal[:19])
    end, _ = execute(middle, deal[19:])
    decisions = review(middle, deal[19:], limit=300_000)
    assert [decision.seat for decision in decisions] == [3, 0, 1, 2]
    assert decisions[-1].values == end.balances  # the deal as it was settled
    assert all(decision.lost >= 0 for decision in decisions)
    for before, after in itertools.pairwise(decisions):
        assert after.best_values == before.values
