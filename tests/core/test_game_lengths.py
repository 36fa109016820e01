"""The default starting chips last an evening: the median simulated game with a profile's defaults (its options,
its starting chips) lasts at least 8 deals with 3, 4 or 5 players (docs/RULES.md gives the figures)."""

from __future__ import annotations

import statistics

import pytest

from nj_ledger.profiles import PROFILES, STARTING_CHIPS, default_starting_chips
from nj_ledger.rules import resolve_rules
from nj_ledger.simulator import LENGTH_CAP, LENGTH_GAMES, game_lengths, median_lengths

# The medians docs/RULES.md states: seeds 0-399, ``python -m nj_ledger.simulator``.
STATED = {
    "classic": {3: 18, 4: 13, 5: 9},
    "cards": {3: 23, 4: 15, 5: 9},
    "skip": {3: 32, 4: 17, 5: 10},
    "hearts": {3: 22, 4: 16, 5: 10},
    "avantcoureur-1760": {3: 12, 5: 10},
}


def test_every_profile_has_a_default_that_a_new_game_accepts() -> None:
    from nj_ledger.decide import new_game

    assert set(STARTING_CHIPS) == set(PROFILES)
    for profile in PROFILES:
        players = ["Ana", "Ben", "Chloé"]
        assert new_game(players, profile, default_starting_chips(profile)).data["starting_chips"] > 0
        # enough for a few deals' stakes at least
        assert default_starting_chips(profile) >= 8 * resolve_rules(profile).ante_total


def test_a_few_games_of_each_profile_are_measured_the_same_way_twice() -> None:
    for profile in PROFILES:
        lengths = game_lengths(profile, 3, games=5, seed=11)
        assert lengths == game_lengths(profile, 3, games=5, seed=11)
        assert all(1 <= length <= LENGTH_CAP for length in lengths)
    # fewer chips, shorter games: the measure sees the chips
    few = statistics.median(game_lengths("classic", 4, 60, games=40))
    assert few < statistics.median(game_lengths("classic", 4, games=40))


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_median_game_with_the_defaults_lasts_at_least_8_deals(profile: str) -> None:
    """A profile at a time (the same games as :func:`median_lengths`), so that the slow suite's workers share them."""
    medians = {n: statistics.median(game_lengths(profile, n, games=LENGTH_GAMES)) for n in STATED[profile]}
    assert medians == STATED[profile]
    assert all(median >= 8 for median in medians.values())


def test_the_stated_medians_name_every_profile_and_the_player_counts_it_allows() -> None:
    assert set(STATED) == set(PROFILES)
    for profile, by_players in STATED.items():
        assert set(by_players) == {n for n in (3, 4, 5) if n in resolve_rules(profile).players}
    assert set(median_lengths(games=1)) == set(PROFILES)
