"""A club's feed (the club stream's positions): gap-free, one item per told event, even when many writers
in the club end deals and create games at once; and the followers' watcher wakes a follower of the feed."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from nj_ledger import new_game
from nj_ledger.store import ClubInfo, Store
from nj_ledger.store.writes import FEED_TYPES, club_key

WRITERS = 6
GAMES_EACH = 3


def test_concurrent_writers_take_gap_free_positions_each_told_event_once(store: Store, club: ClubInfo) -> None:
    def write(_: int) -> list[str]:
        made = []
        for _ in range(GAMES_EACH):
            game = store.create_game(club.id, new_game(["Ana", "Ben", "Chloé"], "classic", 60)).game.id
            store.append(club.id, game, [{"type": "end"}])
            made.append(game)
        return made

    with ThreadPoolExecutor(WRITERS) as pool:
        games = [game for made in pool.map(write, range(WRITERS)) for game in made]
    feed = store.club_feed(club.id, 0, 10_000)
    assert [item["position"] for item in feed] == list(range(1, len(feed) + 1))
    told = sorted((item["game"], item["seq"], item["type"]) for item in feed)
    expected = sorted((game, record["seq"], record["type"]) for game in games
                      for record in store.records(club.id, game) if record["type"] in FEED_TYPES)
    assert told == expected and len(told) == 2 * len(games)
    for game in games:  # within a game, the feed keeps the log's order
        seqs = [item["seq"] for item in feed if item["game"] == game]
        assert seqs == sorted(seqs)
    assert store.club_feed(club.id, 3, 2) == feed[3:5]


def test_a_follower_of_the_feed_is_woken_by_a_game_created(store: Store, club: ClubInfo) -> None:
    woken = threading.Event()
    unfollow = store.followers.follow(club_key(club.id), woken.set)
    try:
        woken.wait(2)  # a first wake-up when the watcher starts or first sees the feed
        woken.clear()
        other = Store(store.url)  # another process's store
        try:
            other.create_game(club.id, new_game(["Ana", "Ben"], "classic", 60))
        finally:
            other.close()
        assert woken.wait(10)
    finally:
        unfollow()
