"""An evening and its ranking as the API shows them (JSON), written from what the store read: no request, no
route. The evenings' routes answer with them (:mod:`api.evening_view`, :mod:`api.evening_results`), and
``nj-ledger evening create|show --json`` prints them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nj_ledger import evenings as core
from nj_ledger.evenings import EveningState, GameOutcome
from nj_ledger.store import EveningRead, iso

from .evening_mends import mends_view

TABLE_PAGE = "/tables/{code}"  # the table's scorer page; the token rides in the fragment (#token=…)
TOKEN_FRAGMENT = "token"


def table_page(code: str) -> str:
    """The table's scorer page (its token goes in the fragment)."""
    return TABLE_PAGE.format(code=code)


def now() -> datetime:
    """This moment, in UTC."""
    return datetime.now(UTC)


def counts(read: EveningRead) -> dict[str, int]:
    """The grid's cells by mark."""
    tally = dict.fromkeys(core.CELL_MARKS, 0)
    for row in core.grid(read.state, read.outcomes):
        for cell in row:
            if cell is not None:
                tally[cell["mark"]] += 1
    return {("voided" if mark == core.VOID else mark): count for mark, count in tally.items()}


def _round_finished(state: EveningState, outcomes: dict[str, GameOutcome]) -> bool:
    if not state.started:
        return True
    return all(t.game in state.voided or (t.game in outcomes and outcomes[t.game].status == "ended")
               for t in state.started[-1])


def summary(read: EveningRead) -> dict[str, Any]:
    info = read.info
    return {"id": info.id, "club": info.club_id, "name": info.name, "date": info.played_on.isoformat(),
            "status": info.status, "version": info.version, "created_at": iso(info.created_at),
            "updated_at": iso(info.updated_at)}


def evening_view(read: EveningRead, *, codes: bool = True) -> dict[str, Any]:
    """The evening as `GET …/evenings/{evening}` shows it; without ``codes`` (a results share), its tables'
    codes and pages are null."""
    state = read.state
    return {
        **summary(read), "rules": state.rules, "starting_chips": state.starting_chips, "ranking": state.ranking,
        "confirmation": state.confirmation, "seed": state.seed, "rounds": state.rounds,
        "current_round": state.current_round, "round_finished": _round_finished(state, read.outcomes),
        "ends_at": state.ends_at,
        "time_up": state.ends_at is not None and now() >= datetime.fromisoformat(state.ends_at),
        "table_rule": state.table_rule,
        "players": [{"name": name, "present": name in state.present, "withdrawn": name in state.withdrawn}
                    for name in state.players],
        "worst_pair": state.worst_pair, "bound": state.bound,
        "tables": [{"table": number, "code": code if codes else None, "page": table_page(code) if codes else None}
                   for number, code in sorted(read.codes.items())],
        "frozen_through": state.frozen_through, "counts": counts(read),
    }


def ranking_view(read: EveningRead, through_round: int | None, *, screen: bool = False) -> dict[str, Any]:
    """The ranking as `GET …/ranking` shows it (the big screen's while frozen: the rounds it shows)."""
    state = read.state
    frozen = screen and not state.closed and state.frozen_through is not None
    if frozen:
        through_round = state.frozen_through if through_round is None else min(through_round,
                                                                               state.frozen_through or 0)
    last = state.current_round if through_round is None else min(through_round, state.current_round)
    rows = core.ranking(state, read.outcomes, last)
    complete = all(core.cell_mark(state, t.game, read.outcomes.get(t.game)) in (core.COUNTED, core.VOID)
                   for tables in state.started[:last] for t in tables)
    return {"evening": read.info.id, "name": read.info.name, "version": read.info.version,
            "status": read.info.status, "rule": state.ranking, "through_round": last,
            "current_round": state.current_round, "frozen": frozen, "complete": complete, "rows": rows,
            "mends": mends_view(state, read.entries, last)}
