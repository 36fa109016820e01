"""A club's feed (the club stream's positions): gap-free, one item per told event, even when many writers
in the club end deals and create games at once; an undo that withdraws a deal's settlement, or the game's end,
told as such; and the followers' watcher wakes a follower of the feed."""

from __future__ import annotations

import io
import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor

from nj_ledger import GameState, new_game
from nj_ledger.chain import GENESIS, chain_events
from nj_ledger.profiles import PROFILES
from nj_ledger.reducer import fold, replay
from nj_ledger.simulator import simulate
from nj_ledger.store import ClubInfo, Store
from nj_ledger.store.log import event_of
from nj_ledger.store.streaming import import_file
from nj_ledger.store.values import Record
from nj_ledger.store.writes import DEAL_UNDONE, FEED_TYPES, GAME_REOPENED, club_key, undone_ends
from support.scale import scaled, sized

WRITERS = 6
GAMES_EACH = 3


def test_concurrent_writers_take_gap_free_positions_each_told_event_once(store: Store, club: ClubInfo) -> None:
    def write(_: int) -> list[str]:
        made = []
        for _ in range(GAMES_EACH):
            game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60)).game.id
            store.games.append(club.id, game, [{"type": "end"}])
            made.append(game)
        return made

    with ThreadPoolExecutor(WRITERS) as pool:
        games = [game for made in pool.map(write, range(WRITERS)) for game in made]
    feed = store.games.club_feed(club.id, 0, 10_000)
    assert [item["position"] for item in feed] == list(range(1, len(feed) + 1))
    told = sorted((item["game"], item["seq"], item["type"]) for item in feed)
    expected = sorted((game, record["seq"], record["type"]) for game in games
                      for record in store.games.records(club.id, game) if record["type"] in FEED_TYPES)
    assert told == expected and len(told) == 2 * len(games)
    for game in games:  # within a game, the feed keeps the log's order
        seqs = [item["seq"] for item in feed if item["game"] == game]
        assert seqs == sorted(seqs)
    assert store.games.club_feed(club.id, 3, 2) == feed[3:5]


def test_a_follower_of_the_feed_is_woken_by_a_game_created(store: Store, club: ClubInfo) -> None:
    woken = threading.Event()
    unfollow = store.db.followers.follow(club_key(club.id), woken.set)
    try:
        woken.wait(2)  # a first wake-up when the watcher starts or first sees the feed
        woken.clear()
        other = Store(store.db.url)  # another process's store
        try:
            other.games.create_game(club.id, new_game(["Ana", "Ben"], "classic", 60))
        finally:
            other.close()
        assert woken.wait(10)
    finally:
        unfollow()


SMALL = {"profile": "classic", "players": [3], "deal_table": {"3": [4, 40]}}
HANDS = [["AC", "2C", "5C", "6C"], ["3D", "9H", "QS", "8S"], ["4D", "KH", "7D", "2S"]]
OPENING = [{"type": "deal", "hands": HANDS}, {"type": "play", "seat": 0, "cards": ["AC", "2C"]},
           {"type": "play", "seat": 1, "cards": ["3D"]}, {"type": "play", "seat": 2, "cards": ["4D"]}]
WINNING_PLAY = {"type": "play", "seat": 0, "cards": ["5C", "6C"], "announced": []}


def told(store: Store, club: ClubInfo, game: str, after: int = 0) -> list[tuple[int, int, str]]:
    """What the club's feed tells of ``game`` after position ``after``: (seq, deal, type)."""
    return [(item["seq"], item["deal"], item["type"]) for item in store.games.club_feed(club.id, after)
            if item["game"] == game]


def seq_of_last(store: Store, club: ClubInfo, game: str, kind: str) -> int:
    return max(record["seq"] for record in store.games.records(club.id, game) if record["type"] == kind)


def test_an_undo_past_a_deals_settlement_is_told_as_the_deal_undone(store: Store, club: ClubInfo) -> None:
    game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], SMALL, 100), OPENING).game.id
    store.games.append(club.id, game, [{"type": "undo", "reason": "not past the settlement"}])  # withdraws a play only
    assert told(store, club, game) == [(1, 0, "game_started")]
    store.games.append(club.id, game, [OPENING[-1], WINNING_PLAY])
    ended_at = seq_of_last(store, club, game, "deal_ended")
    assert told(store, club, game)[1:] == [(ended_at, 1, "deal_ended")]  # the game goes on: 100 chips
    position = store.games.club_feed(club.id)[-1]["position"]

    undone = store.games.append(club.id, game, [{"type": "undo", "reason": "seat 1 had not played"}])
    assert undone.state.status == "playing" and undone.state.deals_played == 0
    undo_at = seq_of_last(store, club, game, "undo")
    assert told(store, club, game, position) == [(undo_at, 1, "deal_undone")]
    store.games.append(club.id, game, [undone.state.redo_action()])  # the deal ends again: told again
    assert told(store, club, game, position)[1:] == [(seq_of_last(store, club, game, "deal_ended"), 1, "deal_ended")]
    feed = store.games.club_feed(club.id)
    assert [item["position"] for item in feed] == list(range(1, len(feed) + 1))


def test_an_undo_that_withdraws_the_games_end_is_told_as_the_game_reopened(store: Store, club: ClubInfo) -> None:
    game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], SMALL, 20), OPENING).game.id
    store.games.append(club.id, game, [WINNING_PLAY])  # ends the deal, and the game by shortfall
    assert [kind for _, _, kind in told(store, club, game)] == ["game_started", "deal_ended", "game_ended"]
    position = store.games.club_feed(club.id)[-1]["position"]
    store.games.append(club.id, game, [{"type": "undo"}])
    undo_at = seq_of_last(store, club, game, "undo")
    assert told(store, club, game, position) == [(undo_at, 1, "deal_undone"), (undo_at, 1, "game_reopened")]
    assert store.games.game(club.id, game).status == "playing"


def test_an_undo_and_its_redo_in_one_batch_are_told_in_the_logs_order(store: Store, club: ClubInfo) -> None:
    game = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], SMALL, 20), OPENING).game.id
    store.games.append(club.id, game, [WINNING_PLAY])
    position = store.games.club_feed(club.id)[-1]["position"]
    store.games.append(club.id, game, [{"type": "undo"}, WINNING_PLAY])
    assert [kind for _, _, kind in told(store, club, game, position)] == [
        "deal_undone", "game_reopened", "deal_ended", "game_ended"]


def test_a_created_or_imported_log_with_an_undone_end_tells_it_too(store: Store, club: ClubInfo) -> None:
    actions = [*OPENING, WINNING_PLAY, {"type": "undo"}, WINNING_PLAY]
    expected = ["game_started", "deal_ended", "game_ended", "deal_undone", "game_reopened", "deal_ended",
                "game_ended"]
    created = store.games.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], SMALL, 20), actions).game.id
    assert [kind for _, _, kind in told(store, club, created)] == expected
    document = {"format": "nj-ledger/game", "version": 1, "players": ["Ana", "Ben", "Chloé"], "rules": SMALL,
                "starting_chips": 20, "actions": actions}
    imported = import_file(store.games, club.id, io.BytesIO(json.dumps(document).encode())).game.id
    assert told(store, club, imported) == told(store, club, created)


def folded_undone_ends(before: GameState | None, records: list[Record]) -> list[tuple[int, str]]:
    """What the undos among ``records`` withdrew, by folding them one by one and asking each state."""
    state = before.copy() if before is not None else None
    told: list[tuple[int, str]] = []
    for record in records:
        undoable = state.undoable() if record["type"] == "undo" and state is not None else None
        was_ended = state is not None and state.status == "ended"
        state = fold(state, event_of(record))
        if undoable is not None and undoable["withdraws_settlement"]:
            told.append((record["seq"], DEAL_UNDONE))
            if was_ended and state.status != "ended":
                told.append((record["seq"], GAME_REOPENED))
    return told


@scaled
def test_what_an_undo_withdrew_is_read_from_the_log_as_a_fold_tells_it() -> None:
    """The feed's ``deal_undone`` and ``game_reopened`` are read from the records without folding them: on
    simulated games full of undos (every profile, short of chips so that games end), split at random points (an
    append's records meet the state the earlier ones left), they are exactly what folding the records and asking
    each state says."""
    rng = random.Random(5)
    seen = {DEAL_UNDONE: 0, GAME_REOPENED: 0}
    for seed in range(sized(60, 600)):
        profile = sorted(PROFILES)[seed % len(PROFILES)]
        game = simulate(seed, profile, deals=6, chatter=3.0, starting_chips=rng.choice((None, 20, 30)))
        records = chain_events(GENESIS, 0, game.events, "2026-11-24T10:00:00.000000Z")
        whole = folded_undone_ends(None, records)
        assert [(record["seq"], kind) for record, kind in undone_ends(None, records)] == whole
        for _, kind in whole:
            seen[kind] += 1
        for split in sorted(rng.sample(range(1, len(records)), min(8, len(records) - 1))):
            before = replay([event_of(record) for record in records[:split]])
            later = records[split:]
            assert [(r["seq"], kind) for r, kind in undone_ends(before, later)] == folded_undone_ends(before, later)
    assert seen[DEAL_UNDONE] > 10 and seen[GAME_REOPENED] > 0, seen
