"""Measure what running the core's rules in the scorer page costs (docs/OFFLINE.md, "Rules in the page").

Serves the app (as the browser tests do), opens the scorer of a game in Chromium at a phone's viewport and
loads the core in the page (``core.js``) four ways: cold (a fresh browser profile, everything from the
network), again in the same profile (from the worker's cache, compiled code cached by the browser), with no
connection in that profile, and with no connection the first time (a fresh profile: the runtime kept by the
worker when the page opened, never compiled before: what a scorer meets the first time the connection drops).
Then the cost of one answer, asked of the core's worker and answered: the state of a deal's log with actions
waiting (``project``) and what may be tapped (``taps``). "blocked" is the page's own thread (long tasks).

    python scripts/measure_scorer_core.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the tests' helpers too (`support`)

from nj_ledger import new_game  # noqa: E402
from nj_ledger.simulator import simulate  # noqa: E402
from tests.browser.conftest import CHROMIUM_ARGS, chromium_path, sign_in  # noqa: E402
from tests.browser.server import start_server  # noqa: E402

LOAD = """async () => {
    const { loadCore } = await import("/static/pages/core.js");
    const tasks = [];
    const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries()));
    observer.observe({ type: "longtask", buffered: true }); // buffered: a load the page made itself, before this
    const started = performance.now();
    const core = await loadCore();
    const total = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
    observer.disconnect();
    // the tasks of the load: since this call, or, when the page had loaded the core itself, since it started to
    const since = core.timing.total > total + 10 ? performance.now() - core.timing.total - 200 : started;
    const blocked = tasks.filter((e) => e.startTime >= since).map((e) => e.duration);
    return { total, ...core.timing, longest_task: Math.max(0, ...blocked),
             blocked: blocked.reduce((sum, d) => sum + d, 0) };
}"""

ANSWERS = """async ([game, long]) => {
    const { loadCore } = await import("/static/pages/core.js");
    const { allEvents } = await import("/static/pages/common.js");
    const core = await loadCore();
    const records = await allEvents(game);
    const batches = [[{ type: "play", seat: 1, cards: ["5H", "6H"] }], [{ type: "pass", seat: 2 }],
                     [{ type: "play", seat: 0, cards: ["7C", "8C"] }]];
    const time = async (work, n) => {
        const t = performance.now();
        for (let i = 0; i < n; i++) await work(i);
        return (performance.now() - t) / n;
    };
    const project = await time(() => core.project(records, batches), 20);
    const taps = await time((i) => core.taps(i % 2 ? [] : ["9D"], null), 20);
    // a long game's log replayed in the page (what each answer of the server costs while the outbox drains)
    const log = await allEvents(long);
    const replayed = await time((i) => core.project(i % 2 ? log : log.slice(0, -1), []), 6);
    return { project, taps, long_game_events: log.length, long_game_replay: replayed };
}"""


KEPT = """async () => {
    await navigator.serviceWorker.ready;
    const files = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"];
    const kept = async () => (await Promise.all(files.map((f) => caches.match(`/static/vendor/pyodide/${f}`))))
        .every(Boolean);
    for (let i = 0; i < 300 && !(await kept()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < 100 && !(await caches.match(location.pathname)); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    folder = Path(tempfile.mkdtemp())
    server = start_server(folder)
    game = server.store.games.create_game(server.club, new_game(["Ana", "Ben", "Chloé"], "classic", 200, dealer=0),
                                    [{"type": "deal"}]).game.id
    played = simulate(seed=5, profile="classic", players=4, deals=12)
    long = server.store.games.create_game(server.club, played.events[0], played.actions).game.id
    kinds = ("cold", "http_cache", "worker_offline", "first_offline", "answers")
    results: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
    with sync_playwright() as driver:
        for run in range(runs):
            context = driver.chromium.launch_persistent_context(
                str(folder / f"profile-{run}"), executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, service_workers="allow")
            page: Page = context.new_page()
            sign_in(page, server)
            page.goto(f"{server.url}/games/{game}/record")
            page.wait_for_selector("#status:has-text('Deal 1')")
            results["cold"].append(page.evaluate(LOAD))
            page.reload()
            page.wait_for_selector("#status:has-text('Deal 1')")
            results["http_cache"].append(page.evaluate(LOAD))
            page.evaluate(KEPT)
            context.set_offline(True)
            page.reload()
            page.wait_for_selector("#status:has-text('Deal 1')")
            page.wait_for_selector("body[data-core]", timeout=60_000)
            results["worker_offline"].append(page.evaluate(LOAD))
            context.set_offline(False)
            results["answers"].append(page.evaluate(ANSWERS, [game, long]))
            context.close()
            # what a scorer meets the first time the connection drops: the runtime kept by the worker (fetched
            # when the page opened), never compiled on this phone before
            context = driver.chromium.launch_persistent_context(
                str(folder / f"first-{run}"), executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, service_workers="allow")
            page = context.new_page()
            sign_in(page, server)
            page.goto(f"{server.url}/games/{game}/record")
            page.wait_for_selector("#status:has-text('Deal 1')")
            page.evaluate(KEPT)
            context.set_offline(True)
            page.reload()
            page.wait_for_selector("body[data-core]", timeout=60_000)
            results["first_offline"].append(page.evaluate(LOAD))
            context.close()
    server.stop()
    summary = {kind: {key: round(statistics.median(r[key] for r in rows), 1) for key in rows[0]}
               for kind, rows in results.items()}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
