"""The web pages a club uses at the table: home, sign-in, new game, scorer, replay, audit, result sheet,
scoreboard.

Each page is a template and a JavaScript module from ``static/pages/``; the
module reads the JSON API with the club token kept in the browser
(``Authorization: Bearer``), so the pages themselves hold no club data and need
no token. No inline script runs: the policy allows scripts from this server only.

    >>> from api import create_app
    >>> app = create_app({"DATABASE_URL": "sqlite://", "MIGRATE": True})
    >>> response = app.test_client().get("/", headers={"Accept-Language": "fr"})
    >>> response.status_code, response.headers["Content-Language"]
    (200, 'fr')
"""

from __future__ import annotations

import ast
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, g, render_template, url_for

import nj_ledger
from nj_ledger.profiles import PROFILES, default_starting_chips
from nj_ledger.rules import resolve_rules

from .addresses import public_base
from .authority import organiser_fingerprint
from .i18n import LANGUAGES, current_language
from .page_text import page_messages

blp = Blueprint("pages", __name__)

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; manifest-src 'self'; worker-src 'self'"
)
STATIC = Path(__file__).parent / "static"
# What the service worker keeps for use with no connection: every asset the pages load (their scripts, styles,
# icons). The shell's pages are kept too, and each page when it is opened (``static/sw.js``).
OFFLINE_FOLDERS = ("pages", "icons")
# The policy of the worker the scorer runs the core's rules in under Pyodide, for the state shown while actions
# wait to be sent (``static/core-worker.js``, ``static/pages/core.js``, docs/OFFLINE.md): it imports the
# runtime's modules and fetches its files and the core's modules from this server, and compiles WebAssembly (the
# only answer that may: no page does).
CORE_WORKER_POLICY = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; "
                      "frame-ancestors 'none'; base-uri 'none'")
# The Pyodide runtime, fetched by ``make install`` (scripts/vendor_pyodide.py): the worker keeps it in a cache of
# its own, filled when the scorer first loads it, named after this stamp (the version and integrity unpacked).
RUNTIME_STAMP = STATIC / "vendor" / "pyodide" / "VERSION"
# The core's module the scorer page runs (it imports the rules it needs: decide, reducer, view, ...).
CORE_ENTRY = "scorer"
# The worker's own policy: it fetches from this server only (its pages and assets), and runs nothing else.
WORKER_POLICY = "default-src 'none'; connect-src 'self'; script-src 'none'; frame-ancestors 'none'; base-uri 'none'"
GAME_ID = "<string(maxlength=64):game>"


def render_page(template: str, script: str, **data: Any) -> Response:
    """A page: its template, its script module, and ``data-*`` attributes for the script."""
    language = current_language()
    g.content_language = language
    body = render_template(
        f"pages/{template}", script=script, data=data, lang=language, languages=LANGUAGES,
        messages=page_messages(),
    )
    response = Response(body, mimetype="text/html")
    response.headers["Content-Security-Policy"] = PAGE_POLICY
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.route("/")
def home() -> Response:
    """The club's games, and the address phones open with the code that signs one in (api.lan); on the server's
    machine itself, with HTTPS, the fingerprint each phone checks the club's certificate by (api.authority)."""
    return render_page("home.html", "home.js", phones=public_base() or "", fingerprint=organiser_fingerprint())


@blp.route("/signin")
def signin() -> Response:
    return render_page("signin.html", "signin.js")


# The options of a profile the new-game form shows, as a table argues about them; each is also a rule override
# the API takes (``rules: {profile, payment…}``).
FORM_OPTIONS = ("payment", "bete", "shortfall", "may_stop")


@lru_cache(maxsize=1)
def form_profiles() -> str:
    """Each profile's values of the form's options and its default starting chips, as JSON for the page."""
    profiles = {}
    for name in PROFILES:
        rules = resolve_rules(name)
        profiles[name] = {**{option: getattr(rules, option) for option in FORM_OPTIONS},
                          "starting_chips": default_starting_chips(name)}
    return json.dumps(profiles, separators=(",", ":"))


@blp.route("/games/new")
def new_game() -> Response:
    return render_page("new_game.html", "new_game.js", profiles=form_profiles())


@blp.route(f"/games/{GAME_ID}/record")
def record(game: str) -> Response:
    return render_page("record.html", "record.js", game=game)


@blp.route(f"/games/{GAME_ID}/replay")
def replay(game: str) -> Response:
    return render_page("replay.html", "replay.js", game=game)


@blp.route(f"/games/{GAME_ID}/sheet")
def sheet(game: str) -> Response:
    """A game's result sheet, laid out for printing: the game, each deal's winner and payments, the standings."""
    return render_page("sheet.html", "sheet.js", game=game)


@blp.route(f"/games/{GAME_ID}/audit")
def audit(game: str) -> Response:
    return render_page("audit.html", "audit.js", game=game)


@blp.route("/clubs/<string(maxlength=64):club>/scoreboard")
def scoreboard(club: str) -> Response:
    return render_page("scoreboard.html", "scoreboard.js", club=club)


# --- club evenings (docs/EVENINGS.md) -------------------------------------------------------------------------
CLUB_ID = "<string(maxlength=64):club>"
EVENING_ID = "<string(maxlength=64):evening>"


@blp.route(f"/clubs/{CLUB_ID}/evenings")
def evenings(club: str) -> Response:
    """The club's evenings, and the form that opens one (players present, tables, rounds or end, rules)."""
    return render_page("evenings.html", "evenings.js", club=club, profiles=form_profiles())


@blp.route(f"/clubs/{CLUB_ID}/evenings/{EVENING_ID}")
def evening(club: str, evening: str) -> Response:
    """The director's page: rounds, the table × round grid, the mends, the tables' codes and QR codes."""
    return render_page("evening.html", "evening.js", club=club, evening=evening, phones=public_base() or "")


@blp.route(f"/clubs/{CLUB_ID}/evenings/{EVENING_ID}/screen")
def evening_screen(club: str, evening: str) -> Response:
    """The big screen, for a television or a projector, followed live: the round's seating between rounds, the
    leaderboard with the tables' progress during a round (opened with the evening's share from the director's
    big-screen link, or by a member)."""
    return render_page("screen.html", "screen.js", club=club, evening=evening)


@blp.route(f"/clubs/{CLUB_ID}/evenings/{EVENING_ID}/results")
def evening_results(club: str, evening: str) -> Response:
    """The published results of an evening (a share link opens it): the ranking, round by round, print and CSV."""
    return render_page("results.html", "results.js", club=club, evening=evening)


@blp.route("/tables")
def table_code() -> Response:
    """Type a table's code to open its page."""
    return render_page("table.html", "table_page.js", code="")


@blp.route("/tables/<string(maxlength=16):code>")
def table(code: str) -> Response:
    """A table of a club evening, opened by its code (its QR code's link carries the table's token)."""
    return render_page("table.html", "table_page.js", code=code.strip().upper())


@lru_cache(maxsize=1)
def offline_assets() -> tuple[str, tuple[str, ...]]:
    """The version of the assets (a hash of their paths and bytes) and the paths the service worker keeps."""
    digest = hashlib.sha256()
    names = []
    for folder in OFFLINE_FOLDERS:
        for path in sorted((STATIC / folder).iterdir()):
            if path.is_file() and path.suffix in {".js", ".css", ".svg", ".png"}:
                name = f"{folder}/{path.name}"
                names.append(name)
                digest.update(name.encode() + b"\0" + path.read_bytes())
    worker = (STATIC / "sw.js").read_bytes()
    digest.update(worker)
    digest.update((STATIC / "core-worker.js").read_bytes())
    digest.update(core_modules().encode())
    return digest.hexdigest()[:16], tuple(names)


@lru_cache(maxsize=1)
def core_modules() -> str:
    """The core's modules the scorer page runs, read from the installed ``nj_ledger`` (JSON text): its entry
    (:mod:`nj_ledger.scorer`), the package's ``__init__`` and every core module they import, as
    ``{"entry": "nj_ledger.scorer", "modules": {"nj_ledger/decide.py": source, ...}}``."""
    root = Path(nj_ledger.__file__).parent
    found: dict[str, str] = {}
    todo = [CORE_ENTRY, "__init__"]
    while todo:
        name = todo.pop()
        path = f"nj_ledger/{name.replace('.', '/')}.py"
        if path in found:
            continue
        source = (root / f"{name.replace('.', '/')}.py").read_text(encoding="utf-8")
        found[path] = source
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                todo.append(node.module)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("nj_ledger."):
                todo.append((node.module or "").removeprefix("nj_ledger."))
    return json.dumps({"entry": f"nj_ledger.{CORE_ENTRY}", "modules": dict(sorted(found.items()))})


@blp.route("/core/modules.json")
def core() -> Response:
    """The core's rules for the scorer page, which runs them under Pyodide with no connection (docs/OFFLINE.md):
    the very modules the server runs, nothing of the store, the API or the command line."""
    response = Response(core_modules(), mimetype="application/json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.route("/core/worker.js")
def core_worker() -> Response:
    """The worker the scorer page runs the core's rules in, off its own thread (``static/core-worker.js``)."""
    response = Response((STATIC / "core-worker.js").read_text(encoding="utf-8"), mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = CORE_WORKER_POLICY
    return response


def runtime_version() -> str:
    """The stamp of the Pyodide runtime unpacked (its version and integrity, hashed), or "" when it is missing."""
    try:
        return hashlib.sha256(RUNTIME_STAMP.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def runtime_files() -> list[str]:
    """The paths of the Pyodide runtime's files the scorer loads (none when it is missing)."""
    folder = RUNTIME_STAMP.parent
    if not RUNTIME_STAMP.is_file():
        return []
    return [url_for("static", filename=f"vendor/pyodide/{path.name}") for path in sorted(folder.iterdir())
            if path.is_file() and path.name not in {"VERSION", "LICENSE"}]


@blp.route("/sw.js")
def service_worker() -> Response:
    """The service worker, at the top of the site so that its scope is every page (``static/sw.js``)."""
    version, names = offline_assets()
    assets = [url_for("static", filename=name) for name in names] + [
        url_for("pages.manifest"), url_for("pages.core"), url_for("pages.core_worker")]
    head = (f"const VERSION = {json.dumps(version)};\nconst ASSETS = {json.dumps(assets)};\n"
            f"const RUNTIME = {json.dumps(runtime_version())};\nconst RUNTIME_FILES = {json.dumps(runtime_files())};\n")
    body = head + (STATIC / "sw.js").read_text(encoding="utf-8")
    response = Response(body, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = WORKER_POLICY
    return response


@blp.route("/manifest.webmanifest")
def manifest() -> Response:
    """The web app's manifest: installed, the pages open full screen from the home page, with the 7♦ icon."""
    icon = lambda name: url_for("static", filename=f"icons/{name}")  # noqa: E731
    document = {
        "name": "Nain Jaune Ledger", "short_name": "Nain Jaune", "start_url": "/", "scope": "/",
        "display": "standalone", "background_color": "#faf8f2", "theme_color": "#1f6b47",
        "icons": [
            {"src": icon("icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": icon("icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": icon("icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = Response(json.dumps(document), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response
