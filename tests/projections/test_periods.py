"""A period's day and month rows cover each of its days exactly once, and no other day."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from nj_ledger.store.projections.periods import grain_starts, month_end, next_month, spans

days = st.one_of(st.none(), st.dates(min_value=date(2020, 1, 1), max_value=date(2031, 12, 31)),
                 st.sampled_from([date.min, date(1, 1, 5), date(9999, 12, 5), date.max]))


def covering(day: date, start: date | None, end: date | None) -> int:
    """How many of the period's spans hold the rows ``day`` is added to."""
    count = 0
    starts = dict(grain_starts(day))
    for grain, first, last in spans(start, end):
        row = starts[grain]
        if (first is None or first <= row) and (last is None or row <= last):
            count += 1
    return count


def probes(start: date | None, end: date | None, extra: list[date]) -> set[date]:
    found = set(extra)
    for bound in (start, end):
        if bound is not None:
            for offset in range(-40, 41):
                try:
                    found.add(bound + timedelta(days=offset))
                except OverflowError:
                    pass
    return found


@settings(max_examples=300)
@given(start=days, end=days, extra=st.lists(st.dates(), max_size=20))
def test_every_day_of_the_period_is_counted_once(start: date | None, end: date | None, extra: list[date]) -> None:
    for day in probes(start, end, extra):
        inside = (start is None or start <= day) and (end is None or day <= end)
        assert covering(day, start, end) == (1 if inside else 0), (day, start, end, spans(start, end))


def test_whole_months_are_read_as_months() -> None:
    assert spans(date(2026, 1, 1), date(2026, 12, 31)) == [("month", date(2026, 1, 1), date(2026, 12, 1))]
    assert spans(None, None) == [("month", None, None)]
    assert spans(date(2026, 2, 3), date(2026, 2, 20)) == [("day", date(2026, 2, 3), date(2026, 2, 20))]


def test_months() -> None:
    assert next_month(date(2026, 12, 31)) == date(2027, 1, 1)
    assert month_end(date(2024, 2, 1)) == date(2024, 2, 29)
