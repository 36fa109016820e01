"""A page of a list, as every use case that lists gives it: its items and whether more follow."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class Page(Generic[Item]):
    """A page of a list, and whether more follow it.

    >>> Page([1, 2], more=True).items
    [1, 2]
    """

    items: list[Item]
    more: bool
