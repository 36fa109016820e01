"""Running every workload in one go: the table on the terminal and the JSON report.

    $ nj-ledger bench --quick --json bench-results/quick.json

``--quick`` uses small sizes (a couple of minutes on two cores); the full run
uses the sizes of SPEC §9 (a store and an import of 1,000,000 events).
"""

from __future__ import annotations

import gc
import inspect
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks.scratch import postgres_url
from nj_ledger.receipts import Signer, b64url
from nj_ledger.store import Store
from nj_ledger.store.keys import SIGNING_KEY_ENV
from nj_ledger.store.migrate import upgrade

from . import analysis, audit, bulk, followers, live, longest, memory, peer, replay, seating
from .data import long_game, simulated_deals, write_document
from .machine import machine
from .results import skipped

Echo = Callable[[str], None]


@dataclass(frozen=True)
class Sizes:
    bulk_deals: int  # (a, b) deals imported
    live_games: int  # (c) games played through HTTP …
    live_deals: int  # … of this many deals each
    replay_events: int  # (d) events of the game rebuilt by the reducer and by the peer
    store_events: int  # (d, e, f) events of the long game imported, replayed and audited
    replay_requests: int  # (d) replay endpoint requests
    scoreboard: int = 1  # 0: leave the scoreboard workload out (a smoke run of the harness)
    followers: int = 1000  # (g) streams of one game across two server processes …
    follower_appends: int = 100  # … while a scorer appends this many actions (and as many without followers)
    analysis_deals: int = 20  # (h) deals the double-dummy solver solves, of each of its three workloads …
    analysis_budget: int = 400_000  # … each within this many searched positions


FULL = Sizes(bulk_deals=3000, live_games=32, live_deals=4, replay_events=100_000, store_events=1_000_000,
             replay_requests=300)
QUICK = Sizes(bulk_deals=150, live_games=8, live_deals=2, replay_events=10_000, store_events=30_000,
              replay_requests=60, followers=200, follower_appends=30, analysis_deals=5, analysis_budget=40_000)


def sizes_for(quick: bool, **overrides: int) -> Sizes:
    return replace(QUICK if quick else FULL, **overrides)


def run(sizes: Sizes, *, quick: bool, json_path: Path | None = None, echo: Echo = print,
        server: str | None = None) -> dict[str, Any]:
    """Every workload at ``sizes``; the report (also written to ``json_path``)."""
    peer.require()
    # A signing key of the run's own: its databases are thrown away, and no key file is left behind.
    os.environ.setdefault(SIGNING_KEY_ENV, b64url(Signer.generate().seed))
    server = server or postgres_url()
    rows: list[dict[str, Any]] = []

    def step(label: str, work: Callable[[], Any]) -> None:
        echo(f"… {label}")
        result = work()
        rows.extend(result if isinstance(result, list) else [result])
        write({"partial": True})  # a long run that is stopped keeps what it measured

    def write(extra: dict[str, Any]) -> dict[str, Any]:
        report = {"machine": machine(server), "quick": quick, "sizes": sizes.__dict__, **extra, "workloads": rows}
        if json_path is not None:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return report

    games = simulated_deals(sizes.bulk_deals)
    gc.freeze()  # the simulated games stay put: the collector need not walk them during every workload
    step("bulk import into SQLite (ours, eventsourcing, sqlite3)", lambda: bulk.bulk_sqlite(games))
    step("bulk import into PostgreSQL (ours, eventsourcing, COPY)", lambda: bulk.bulk_postgres(games, server))
    games.clear()
    live_games = simulated_deals(sizes.live_games * sizes.live_deals, seed=1000, per_game=sizes.live_deals)
    gc.freeze()
    step("live appends through HTTP", lambda: live.live_appends(live_games))
    step(f"{sizes.followers} followers of one game on two servers",
         lambda: followers.followers_workload(sizes.followers, sizes.follower_appends, server))
    step("reducer against repository.get", lambda: replay.reducer(long_game(sizes.replay_events, seed=5)))
    with tempfile.TemporaryDirectory(prefix="nj-bench-") as folder:
        echo(f"… simulating a game of {sizes.store_events} events")
        game = long_game(sizes.store_events)
        events, deals = len(game.events), game.state.deal_number if game.state else 0
        path = Path(folder) / "long-game.json"
        write_document(game, path)
        del game
        url = f"sqlite:///{Path(folder) / 'store.sqlite'}"
        upgrade(url)
        store = Store(url)
        try:
            club, token = store.clubs.create_club("Bench")
            step("streaming import, peak memory", lambda: list(memory.import_peak(url, path, events, club.id)))
            game_id = store.games.list_games(club.id, limit=1)[0].id
            step("hash chain verification", lambda: audit.chain(store, club.id, game_id))
        finally:
            store.close()
        step("replay endpoint", lambda: replay.endpoint(url, club.id, token.secret, game_id, deals,
                                                        sizes.replay_requests, events))
    step("the longest replay the bounds allow", lambda: longest.workload(quick))
    step("seats drawn and rotated over an evening", lambda: seating.workload(quick))
    step("deal analysis: the double-dummy solver",
         lambda: analysis.workload(deals=sizes.analysis_deals, budget=sizes.analysis_budget))
    if sizes.scoreboard:
        step("scoreboard", lambda: scoreboard_rows(quick, echo))
    else:
        rows.append(skipped("scoreboard", "ms", "left out of this run (--size scoreboard=0)"))
    return write({})


def scoreboard_rows(quick: bool, echo: Echo | None = None) -> list[dict[str, Any]]:
    """The scoreboard workload of ``benchmarks/scoreboard.py`` (a ``workload(quick=...)`` function), if present."""
    try:
        from . import scoreboard
    except ImportError:
        return [skipped("scoreboard", "ms", "benchmarks/scoreboard.py is not there: no scoreboard workload")]
    work = getattr(scoreboard, "workload", None) or getattr(scoreboard, "run", None)
    if work is None:
        return [skipped("scoreboard", "ms", "benchmarks/scoreboard.py has no workload(quick=...) function")]
    takes_echo = "echo" in inspect.signature(work).parameters
    result = work(quick=quick, echo=echo) if takes_echo else work(quick=quick)
    lines = result if isinstance(result, list) else [result]
    keys = ("name", "unit", "ours", "peer", "raw", "ratio_peer", "ratio_raw", "target", "met")
    return [{key: line.get(key) for key in keys} | {k: v for k, v in line.items() if k not in keys}
            for line in lines]


def table(report: dict[str, Any]) -> str:
    """The report as a text table, the machine underneath."""
    header = ("workload", "unit", "ours", "peer", "raw", "×peer", "×raw", "target", "met")
    lines = [header]
    for w in report["workloads"]:
        met = {True: "yes", False: "NO", None: "-"}[w["met"]]
        lines.append((w["name"], w["unit"], _figure(w["ours"]), _figure(w["peer"]), _figure(w["raw"]),
                      _ratio(w["ratio_peer"]), _ratio(w["ratio_raw"]), w["target"] or "", met))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = []
    for number, line in enumerate(lines):
        cells = [cell.ljust(widths[i]) if i in (0, 1, 7) else cell.rjust(widths[i]) for i, cell in enumerate(line)]
        text.append("  ".join(cells).rstrip())
        if number == 0:
            text.append("  ".join("-" * width for width in widths))
    notes = [f"  {w['name']}: {w['note']}" for w in report["workloads"] if w.get("note")]
    m = report["machine"]
    text.append("")
    text.append(f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; Python {m['python']}, "
                f"SQLite {m['sqlite']}, PostgreSQL {m['postgresql'] or 'unreachable'}; "
                f"load average {m['load_average']}")
    return "\n".join(text + (["notes:", *notes] if notes else []))


def _figure(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 1 or value == 0:
        return f"{value:,.1f}"
    return f"{value:.2g}"  # seconds under one keep two figures (0.011, 4.1e-05), not 0.0


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}×"
