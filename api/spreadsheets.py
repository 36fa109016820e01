"""CSV downloads a spreadsheet opens as written (the scoreboard, an evening's ranking, the ladder, a player's
evenings: ``format=csv``).

Every text cell is quoted and numbers are not (OWASP's rule, and a reader can
tell them apart); a text cell that a spreadsheet would read as a formula gets a
leading quote (OWASP, "CSV Injection").
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from flask import Response

# A text cell starting with one of these is read by spreadsheets as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as written: text that would start a formula gets a leading quote.

    Only text changes: numbers stay numbers, so a negative net is still a number.

    >>> [spreadsheet_cell(value) for value in ("=1+1", "@SUM(A1)", "-Ana", "Ana", -12, 2.5)]
    ["'=1+1", "'@SUM(A1)", "'-Ana", 'Ana', -12, 2.5]
    """
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def csv_answer(header: Sequence[str], rows: Iterable[Sequence[Any]], filename: str) -> Response:
    """A CSV download, ``filename``.csv: the header row, then the rows, each cell safe to open in a spreadsheet."""
    text = io.StringIO()
    out = csv.writer(text, quoting=csv.QUOTE_NONNUMERIC)
    out.writerow(header)
    out.writerows([spreadsheet_cell(value) for value in row] for row in rows)
    return Response(text.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}.csv"'})
