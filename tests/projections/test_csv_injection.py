"""The scoreboard's CSV opens safely in a spreadsheet: no player name is read as a formula, numbers stay numbers.

OWASP's rule for CSV injection: a text cell that begins with =, +, -, @, a tab or a carriage return gets a
leading single quote. Names are recorded trimmed, so a tab or a carriage return can only lead a cell the
writer itself is given; those two are checked on the writer the endpoint uses.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.scoreboards import ROW_FIELDS, _csv
from nj_ledger.store import Store
from support.http import Calls

from .conftest import Table, record

DAY = date(2026, 6, 1)
STARTS = ("=", "+", "-", "@", "\t", "\r")
HOSTILE = [
    '=HYPERLINK("http://evil.example","x")',
    "+SUM(1,2)",
    "-2+3",
    "@SUM(A1)",
    "=cmd|' /C calc'!A0",
    "-12",
    "\t=1+1",  # recorded trimmed: "=1+1"
    "\r\n@A1",  # recorded trimmed: "@A1"
]
AWKWARD = [
    'Jeanne "la Reine", dite JJ',
    "Ana, Ben",
    "Marcel le Grand",  # a name may no longer hold a line break (nj_ledger.names); one stored before is a
    "Line break",  # cell of its own all the same (test_a_leading_tab_or_carriage_return_is_neutralised_too)
    "'Quoted already",
    "Chloé",
]
NUMBERS = [name for name in ROW_FIELDS if name != "name"]


def safe(name: str) -> str:
    """The cell a name should become."""
    return "'" + name if name.startswith(STARTS) else name


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def read(text: str, **options: Any) -> list[list[Any]]:
    return list(csv.reader(io.StringIO(text, newline=""), **options))


@pytest.fixture(scope="module")
def club(app: Flask, store: Store) -> tuple[str, dict[str, str]]:
    """A club whose members are named to attack a spreadsheet, or just awkwardly, with games among them."""
    made = Calls(app.test_client()).club("Club des Formules")
    names = HOSTILE + AWKWARD
    tables = [names[i:i + 4] for i in range(0, len(names), 4)] + [[names[0], names[5], names[10], names[13]]]
    for seed, players in enumerate(tables, start=1):
        record(store, made.id, Table(seed, players, day=DAY))
    return made.id, made.auth


def test_no_text_cell_of_the_scoreboard_csv_starts_a_formula(client: FlaskClient, club) -> None:
    club_id, auth = club
    answer = client.get(f"/api/v1/clubs/{club_id}/scoreboard?format=csv&sort=name", headers=auth)
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    text = answer.get_data(as_text=True)
    table = read(text)
    rows = client.get(f"/api/v1/clubs/{club_id}/scoreboard?sort=name", headers=auth).json["rows"]
    assert {row["name"] for row in rows} == {name.strip() for name in HOSTILE + AWKWARD}
    assert table[0] == list(ROW_FIELDS)
    assert len(table) == len(rows) + 1
    for cells, row in zip(table[1:], rows, strict=True):
        by_field = dict(zip(ROW_FIELDS, cells, strict=True))
        # The name comes back whole (quotes, commas, line breaks), behind a quote where it would start a formula.
        assert by_field["name"] == safe(row["name"])
        # Numbers are written as they are: a negative net stays a number, not "'-12".
        assert [by_field[name] for name in NUMBERS] == [str(row[name]) for name in NUMBERS]
    for cells in table[1:]:  # every cell: a number in a number's column, or text that starts no formula
        for field, cell in zip(ROW_FIELDS, cells, strict=True):
            assert (field in NUMBERS and is_number(cell)) or not cell.startswith(STARTS), (field, cell)
    assert any(int(cells[ROW_FIELDS.index("net")]) < 0 for cells in table[1:])
    assert "'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")" in text

    # Text is quoted and numbers are not, so a reader that knows it gets numbers back as numbers.
    typed = read(text, quoting=csv.QUOTE_NONNUMERIC)
    nets = [cells[ROW_FIELDS.index("net")] for cells in typed[1:]]
    assert all(isinstance(net, float) for net in nets) and nets == [float(row["net"]) for row in rows]
    assert [cells[ROW_FIELDS.index("name")] for cells in typed[1:]] == [safe(row["name"]) for row in rows]


def test_a_leading_tab_or_carriage_return_is_neutralised_too(app: Flask) -> None:
    row = {"rank": 1, "name": "", "games": 2, "wins": 0.5, "deals_played": 8, "deals_won": 2, "net": -12,
           "net_per_game": -6.0, "grand_operas": 0, "honours_taken": 1, "honour_chips": 9, "betes_paid": 0,
           "ruins": 0, "rating": -1.5}
    names = ["\t=1+1", "\rA", "\r\n=2", "=1", "+1", "-1", "@1", "A\t=1", "Ana"]
    with app.test_request_context():
        text = _csv([{**row, "name": name} for name in names], "club").get_data(as_text=True)
    table = read(text)
    assert [cells[1] for cells in table[1:]] == [safe(name) for name in names]
    assert all(cells[6:8] == ["-12", "-6.0"] and cells[-1] == "-1.5" for cells in table[1:])
