"""How large a repeated or randomized test runs: quick in ``make test``, thorough in ``make test-slow``.

One test instead of a fast twin and a slow twin: it is marked ``scaled`` and takes its size from the run's
hypothesis profile (registered in ``tests/conftest.py``). ``make test`` runs it quick; ``make test-slow``
selects ``slow or scaled`` with ``--hypothesis-profile=thorough`` and runs it again, thorough.

    >>> sized(40, 600) in (40, 600)
    True
"""

from __future__ import annotations

from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings

T = TypeVar("T")

QUICK, THOROUGH = "quick", "thorough"
scaled = pytest.mark.scaled


def thorough() -> bool:
    """Whether this run is the thorough one (``--hypothesis-profile=thorough``)."""
    return settings.get_current_profile_name() == THOROUGH


def sized(quick: T, thorough_size: T) -> T:
    """``quick`` in ``make test``, ``thorough_size`` in ``make test-slow``."""
    return thorough_size if thorough() else quick


def examples(quick: int, thorough_size: int, **more: Any) -> settings:
    """Hypothesis settings for a test of whole games: this many examples, no deadline (a game takes what it
    takes), no complaint that generating one is slow; ``more`` overrides or adds settings."""
    options: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], **more}
    return settings(max_examples=sized(quick, thorough_size), **options)
