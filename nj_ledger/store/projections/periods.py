"""Periods of the scoreboard: which day and month rows make up a date range.

A range is covered by the month rows of its whole months and the day rows of
the days left at either end, so a year's scoreboard reads about 12 + 60 rows
per player, and an all-time one a row per player and month.

    >>> from datetime import date
    >>> for kind, first, last in spans(date(2026, 1, 20), date(2026, 4, 10)):
    ...     print(kind, first, last)
    month 2026-02-01 2026-03-01
    day 2026-01-20 2026-01-31
    day 2026-04-01 2026-04-10
    >>> spans(None, None)
    [('month', None, None)]
"""

from __future__ import annotations

from datetime import date, timedelta

Span = tuple[str, date | None, date | None]  # (grain, first period start, last period start), None: open

ONE_DAY = timedelta(days=1)


def next_month(start: date) -> date:
    """The first day of the month after ``start``'s."""
    return (start.replace(day=28) + timedelta(days=4)).replace(day=1)


def month_end(start: date) -> date:
    """The last day of ``start``'s month.

    >>> month_end(date(2028, 2, 1)), month_end(date(9999, 12, 5))
    (datetime.date(2028, 2, 29), datetime.date(9999, 12, 31))
    """
    if (start.year, start.month) == (date.max.year, 12):
        return date.max  # the calendar's last month has no next one
    return next_month(start) - ONE_DAY


def grain_starts(day: date) -> tuple[tuple[str, date], tuple[str, date]]:
    """The rollup rows a game played on ``day`` adds to: its day's and its month's."""
    return ("day", day), ("month", day.replace(day=1))


def spans(start: date | None, end: date | None) -> list[Span]:
    """The rollup rows whose sums make up the days from ``start`` to ``end`` (both included; None: open).

    A range inside the calendar's first or last month has no whole month on that side: it is read by days.

    >>> spans(date(1, 1, 1), date(1, 1, 5)), spans(date(9999, 12, 5), None)
    ([('day', datetime.date(1, 1, 1), datetime.date(1, 1, 5))], [('day', datetime.date(9999, 12, 5), None)])
    """
    if (start is not None and start.day != 1 and (start.year, start.month) == (date.max.year, 12)) or (
            end is not None and end != month_end(end) and (end.year, end.month) == (date.min.year, 1)):
        return [("day", start, end)]
    first_month = None if start is None else (start if start.day == 1 else next_month(start))
    last_month = None
    if end is not None:
        last_month = end.replace(day=1) if end == month_end(end) else (end.replace(day=1) - ONE_DAY).replace(day=1)
    if first_month is not None and last_month is not None and first_month > last_month:
        return [("day", start, end)]
    found: list[Span] = [("month", first_month, last_month)]
    if start is not None and first_month is not None and start < first_month:
        found.append(("day", start, first_month - ONE_DAY))
    if end is not None and last_month is not None and end > month_end(last_month):
        found.append(("day", month_end(last_month) + ONE_DAY, end))
    return found
