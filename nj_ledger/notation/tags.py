"""The tags of NJN: their names, and how a list of players is written in one."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..rules import OPTION_NAMES


def option_tag(option: str) -> str:
    """``may_stop`` → ``MayStop``; ``players`` (the allowed counts) → ``PlayerCounts``, beside ``Players``."""
    return "PlayerCounts" if option == "players" else "".join(part.capitalize() for part in option.split("_"))


def tag_key(name: str) -> str:
    """Tag names are matched without case, underscores or dashes: ``max_deals`` is ``MaxDeals``."""
    return re.sub(r"[_\-.]", "", name).casefold()


GAME_TAGS = ("Club", "Title", "Date", "Table", "Players", "StartingChips", "Dealer", "Rules", "Notes")
OPTION_TAGS = {option_tag(option): option for option in OPTION_NAMES}
TAG_NAMES = {tag_key(name): name for name in (*GAME_TAGS, *OPTION_TAGS)}


def split_players(text: str) -> list[str]:
    """``"Ana; Ben"`` → ``["Ana", "Ben"]``; ``;;`` is a ``;`` inside a name.

    >>> split_players("Ana; Ben;;Jr; Chloé")
    ['Ana', 'Ben;Jr', 'Chloé']
    """
    names, current, i = [], [], 0
    while i < len(text):
        if text.startswith(";;", i):
            current.append(";")
            i += 2
        elif text[i] == ";":
            names.append("".join(current).strip())
            current = []
            i += 1
        else:
            current.append(text[i])
            i += 1
    names.append("".join(current).strip())
    return names


def join_players(names: Sequence[str]) -> str:
    """The inverse of :func:`split_players`."""
    return "; ".join(name.replace(";", ";;") for name in names)
