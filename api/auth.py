"""Bearer tokens: who is calling, for which club, and may they write.

A club token reaches its own club only: asking for another club, or another
club's game, answers 404 as if it did not exist. The admin token (from
``NJ_LEDGER_ADMIN_TOKEN``) only creates clubs; it must be long and random, or
the app refuses to start (:func:`check_admin_token`).

Wrong tokens are counted per client address (the ``limits`` library, a moving
window kept in each process: with N workers an address gets N times the limit):
past ``AUTH_FAILURE_LIMIT`` every token from that address is answered 429 with
``Retry-After`` until the window moves on, a right one too (were a right token
still let through, the 429s would only tell a guesser which guess was right).
A request with no token is not counted. Behind a reverse proxy, name the proxies
to believe (``NJ_LEDGER_PROXIES``, :mod:`api.proxies`), or every client counts as the proxy.

A table token (:mod:`api.evenings`, role ``table``) reaches one table of one evening: the games of that table
(their state, events, stream and replays, and its table actions), the table's own view by its code, and its
confirmations; every other route answers it 404, and once the evening is closed it writes nothing (403
``evening-closed``).

A share's secret (:mod:`api.shares`) is sent as a bearer token too, and reads one
resource only: a game share its game's state, events, stream, replays, audit and export,
a scoreboard share its club's scoreboard, an evening share that evening, its rounds, ranking and leaderboard (the
published results) and its big screen's tables (:mod:`api.evening_screen`); only the share made for the big screen
reads the tables' codes (:func:`reads_table_codes`), a results share reads them left out. Any other route answers a
share as it answers a token that has no access there: 403 for a write, 404 for a read.
"""

from __future__ import annotations

import functools
import hmac
import math
import time
from typing import Any

from flask import Flask, current_app, g, request
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from nj_ledger.store import ShareInfo, TableInfo, TokenInfo

from .context import store
from .problems import NO_ROUTE, Problem
from .proxies import behind_proxies, counted_as, trusted_proxies

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="nj-ledger"'}
API_PREFIX = "/api/v1/"
READ_METHODS = frozenset({"GET", "HEAD"})
# Routes that need no club token: the service's health and readiness, its documentation, creating a club (admin
# token), the public keys that check receipts, a phone's sign-in with its one-time code (api.lan), and a table
# joined by its code (api.table_join).
OPEN_ENDPOINTS = frozenset({"health.Health", "health.Ready", "clubs.Clubs", "keys.Keys", "phones.SignIn",
                            "tables.Join"})
OPEN_BLUEPRINTS = frozenset({"api-docs", "docs"})
# What a share reaches: the routes of its resource (reading, and the audit's receipts check, which writes nothing).
SHARED_ROUTES = {
    "game": frozenset({"games.Game", "games.Events", "replay.Replay", "replay.Analysis", "replay.Audit",
                       "exchange.Export", "streams.GameStream"}),
    "scoreboard": frozenset({"scoreboards.Scoreboard"}),
    "evening": frozenset({"evenings.Evening", "evenings.Rounds", "evenings.Ranking", "evenings.Leaderboard",
                          "evenings.Screen", "streams.EveningStream"}),
}
# What a table token reaches: its table's games (by the game in the path) and its table's routes (by the code).
TABLE_GAME_ROUTES = frozenset({"games.Game", "games.Actions", "games.Events", "games.Taps", "replay.Replay",
                               "replay.Analysis", "streams.GameStream"})
TABLE_CODE_ROUTES = frozenset({"evenings.Table", "evenings.TableConfirmations", "streams.TableStream"})
FAILURES = "nj_ledger.failed_authentications"
ADMIN_TOKEN_LENGTH = 43  # characters at least: as many as `nj-ledger admin-token` writes 32 random bytes in
ADMIN_TOKEN_BITS = 128  # at least, by zxcvbn's count of the guesses it takes
ESTIMATED_LENGTH = 72  # zxcvbn's own limit (its work grows fast past it): a longer token is judged by its start
# Words a guesser of this server's token tries first, beside zxcvbn's dictionaries (English words, names, common
# passwords): the product's and the setting's own.
PRODUCT_WORDS = ("nain", "jaune", "nainjaune", "ledger", "njledger", "club", "admin", "token", "secret", "server")
MAKE_ADMIN_TOKEN = "nj-ledger admin-token"


class WeakAdminToken(ValueError):
    """The configured admin token is too short or too regular to be a secret."""


def check_admin_token(secret: str | None) -> None:
    """Refuse an admin token a person chose: shorter than 43 characters, or worth fewer than 128 bits to a
    guesser by the zxcvbn estimate, which counts a word, a name, a date, a year, a sequence, a keyboard row or a
    repeat for the few guesses it takes, and only what it cannot explain at ten guesses a character.

    So a club's name with a year, a passphrase of common words, and a UUID (122 random bits at most, none in
    the examples copied from documentation) are refused; 32 random bytes written in base64url (what
    ``nj-ledger admin-token`` makes) or in hex pass.

    >>> check_admin_token("dQGeTO0WrMX2PHzR_vaWCJmM6xSfBqCKfSYfhfNRc0c")
    >>> check_admin_token("correct-horse-battery-staple-2024!-the-club")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    api.auth.WeakAdminToken: The admin token (NJ_LEDGER_ADMIN_TOKEN) is not random enough: ...
    """
    if not secret:
        return
    bits = guessing_bits(secret)
    if len(secret) < ADMIN_TOKEN_LENGTH or bits < ADMIN_TOKEN_BITS:
        raise WeakAdminToken(
            "The admin token (NJ_LEDGER_ADMIN_TOKEN) is not random enough: it needs at least "
            f"{ADMIN_TOKEN_LENGTH} characters and {ADMIN_TOKEN_BITS} bits by the zxcvbn estimate, which counts "
            f"words, names, dates, sequences and repeats for the few guesses they take (this one: {len(secret)} "
            f"characters, about {bits:.0f} bits). Make one with: {MAKE_ADMIN_TOKEN}")


@functools.lru_cache(maxsize=16)
def guessing_bits(secret: str) -> float:
    """How many bits a guesser needs for ``secret`` by zxcvbn (log2 of its guesses), judged on its first
    :data:`ESTIMATED_LENGTH` characters; kept for the process, as every app made checks its token again."""
    from zxcvbn import zxcvbn  # its dictionaries are read when a token is first checked

    return float(zxcvbn(secret[:ESTIMATED_LENGTH], user_inputs=PRODUCT_WORDS,
                        max_length=ESTIMATED_LENGTH)["guesses_log10"]) * math.log2(10)


class FailedAuthentications:
    """Wrong tokens per client address, in a moving window (``"100/minute"``)."""

    def __init__(self, limit: str) -> None:
        self.limit = parse(limit)
        self.window = MovingWindowRateLimiter(MemoryStorage())

    def check(self, address: str) -> None:
        """429 when ``address`` sent too many wrong tokens lately."""
        if self.window.test(self.limit, address):
            return
        reset, _ = self.window.get_window_stats(self.limit, address)
        seconds = max(1, math.ceil(reset - time.time()))
        raise Problem(429, "too-many-requests", "Too many requests with a wrong token came from this address: "
                      "try again in {seconds} seconds.", params={"seconds": seconds},
                      headers={"Retry-After": str(seconds)})

    def failed(self, address: str) -> None:
        self.window.hit(self.limit, address)


def init_app(app: Flask) -> None:
    """Check the admin token, set up the count of wrong tokens, and trust the proxies the settings name."""
    check_admin_token(app.config.get("ADMIN_TOKEN"))
    app.extensions[FAILURES] = FailedAuthentications(app.config["AUTH_FAILURE_LIMIT"])
    # the client's address and scheme as the trusted proxies tell them (api.proxies)
    app.wsgi_app = behind_proxies(app.wsgi_app, trusted_proxies(app.config["PROXIES"]))  # type: ignore[method-assign]


def _failures() -> FailedAuthentications:
    return current_app.extensions[FAILURES]


def _address() -> str:
    """Who is counted: the client's address (behind trusted proxies, the one they name: ``PROXIES``), an IPv6
    address by its /64 (a host can take any address of its network), an IPv4 one written as IPv6 as itself."""
    return counted_as(request.remote_addr or "unknown")


def check_guesses() -> None:
    """429 when this client sent too many wrong secrets lately: for a route that takes a secret in its body (a
    phone's one-time sign-in code, :mod:`api.lan`), which counts with the wrong tokens."""
    _failures().check(_address())


def wrong_guess() -> None:
    """Count a wrong secret sent in a body (a sign-in code that is no code) against this client."""
    _failures().failed(_address())


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()


def require_admin() -> None:
    secret = bearer_token()
    if secret is None:
        raise Problem(401, "unauthorized", "Send the admin token: Authorization: Bearer <token>.", headers=CHALLENGE)
    admin = current_app.config.get("ADMIN_TOKEN")
    if not admin:
        raise Problem(403, "forbidden", "Creating clubs is switched off: the server has no admin token "
                                        "(set NJ_LEDGER_ADMIN_TOKEN to allow it).")
    _failures().check(_address())
    if not hmac.compare_digest(secret.encode(), str(admin).encode()):
        _failures().failed(_address())
        raise Problem(403, "forbidden", "Creating a club needs the admin token.")


def caller() -> TokenInfo:
    """The club token of this request (401 without a valid one)."""
    known = g.get("token")
    if known is not None:
        return known
    secret = bearer_token()
    if secret is None:
        raise Problem(401, "unauthorized", "Send a token: Authorization: Bearer <token>.", headers=CHALLENGE)
    _failures().check(_address())
    token = store().authenticate(secret)
    if token is None:
        _failures().failed(_address())
        raise Problem(401, "unauthorized", "This token is not valid.", headers=CHALLENGE)
    g.token = token
    return token


def reader() -> TokenInfo:
    return caller()


def writer() -> TokenInfo:
    """The caller, allowed to write (role ``scorer``); 403 for a share or a viewer. Asked once a request, by
    :func:`guard`, for every request that writes: the views read the caller it established (:func:`caller`)."""
    token = caller()
    if isinstance(token, ShareInfo):
        raise Problem(403, "forbidden", "A share link may read what it shares, never write.")
    if not token.can_write:
        raise Problem(403, "forbidden", "This token may read but not write: ask your club for a scorer token.")
    return token


def sees_members_data() -> bool:
    """Whether the caller may read the club's members' personal data (a scorer's or the director's token)."""
    token = reader()
    return not isinstance(token, (ShareInfo, TableInfo)) and token.can_write


def scorer_reader() -> TokenInfo:
    """The caller, allowed to read a member's personal data: a club's scorer token; 403 for a viewer's (a share
    or a table token finds nothing there, as on any route outside its reach: :func:`within_share`,
    :func:`within_table`)."""
    token = reader()
    if not isinstance(token, (ShareInfo, TableInfo)) and not sees_members_data():
        raise Problem(403, "forbidden", "A member's personal data is given to a club's scorer or director token only.")
    return token


def own_club(token: TokenInfo, club_id: str) -> None:
    """404 unless ``club_id`` is the token's club."""
    if not hmac.compare_digest(token.club_id.encode(), club_id.encode()):
        raise Problem(404, "not-found", "There is no club {club!r}.", params={"club": club_id})


def guard() -> None:
    """Before any view under ``/api/v1``: a valid club token (401), a scorer's to write or to read a member's
    personal data (403), its own club (404).

    Checked once, here, for every route but the open ones: a new route cannot
    forget it, and a caller without the right token learns nothing, not even
    whether its request was well formed. The views read what it established:
    the caller (:func:`caller`), whose club is the one they reach.
    """
    if (request.url_rule is None or not request.path.startswith(API_PREFIX) or request.method == "OPTIONS"
            or request.endpoint in OPEN_ENDPOINTS or request.blueprint in OPEN_BLUEPRINTS):
        return
    if _for_scorers():
        token = scorer_reader()
    else:
        token = reader() if request.method in READ_METHODS or _reads_only() else writer()
    club = (request.view_args or {}).get("club")
    if isinstance(club, str):
        own_club(token, club)
    if isinstance(token, ShareInfo):
        within_share(token)
    if isinstance(token, TableInfo):
        within_table(token)


def within_table(table: TableInfo) -> None:
    """404 unless this route is one of the table's: a game of its table, or its own code's view; 403 for a write
    once its evening is closed. Every other route is closed to a table token, the routes added later too."""
    arguments = request.view_args or {}
    game, code = arguments.get("game"), arguments.get("code")
    scope = store().tables.table_scope(table.club_id, table.evening_id, table.table)
    reached = ((request.endpoint in TABLE_GAME_ROUTES and isinstance(game, str) and game in scope.games)
               or (request.endpoint in TABLE_CODE_ROUTES and isinstance(code, str)
                   and hmac.compare_digest(code.strip().upper().encode(), scope.code.encode())))
    if not reached:
        if isinstance(game, str):
            raise Problem(404, "not-found", "There is no game {game!r} in this club.", params={"game": game})
        if isinstance(code, str):
            raise Problem(404, "not-found", "There is no table {code!r}.", params={"code": code})
        club = arguments.get("club")
        if isinstance(club, str):
            raise Problem(404, "not-found", "There is no club {club!r}.", params={"club": club})
        raise Problem(404, "not-found", NO_ROUTE)
    if scope.closed and request.method not in READ_METHODS:
        raise Problem(403, "evening-closed", "The evening is closed: its tables' tokens may read, no longer write.")


def within_share(share: ShareInfo) -> None:
    """404 unless this route reads the share's resource: its game's (and that game), its evening's (and that
    evening), or its club's scoreboard.

    Every other route is closed to a share, the routes added later too: a share
    reaches what :data:`SHARED_ROUTES` names, never more.
    """
    arguments = request.view_args or {}
    game = arguments.get("game")
    evening = arguments.get("evening")
    if request.endpoint in SHARED_ROUTES.get(share.resource, ()) and (
            share.resource == "scoreboard"
            or (share.resource == "game" and isinstance(game, str) and share.game_id is not None
                and hmac.compare_digest(game.encode(), share.game_id.encode()))
            or (share.resource == "evening" and isinstance(evening, str) and share.evening_id is not None
                and hmac.compare_digest(evening.encode(), share.evening_id.encode()))):
        return
    if isinstance(game, str):
        raise Problem(404, "not-found", "There is no game {game!r} in this club.", params={"game": game})
    club = arguments.get("club")
    if isinstance(club, str):
        raise Problem(404, "not-found", "There is no club {club!r}.", params={"club": club})
    raise Problem(404, "not-found", NO_ROUTE)


def reads_table_codes(token: TokenInfo) -> bool:
    """Whether ``token`` may read the codes of an evening's tables (and their pages and QR codes), which join a
    table for writing (``POST /tables/{code}/join``): a club token, and the big screen's share (shown in the room);
    never a results share, which is public."""
    return not isinstance(token, ShareInfo) or token.screen


def _for_scorers() -> bool:
    """Whether the route's view class lists this method among the reads kept to a scorer's token
    (``for_scorers``: personal data); a HEAD is the GET it is served by."""
    view = current_app.view_functions.get(request.endpoint or "")
    method = "GET" if request.method == "HEAD" else request.method
    return method in getattr(getattr(view, "view_class", None), "for_scorers", ())


def _reads_only() -> bool:
    """Whether the route's view class lists this method among those that write nothing (``reads_only``)."""
    view: Any = current_app.view_functions.get(request.endpoint or "")
    return request.method in getattr(getattr(view, "view_class", None), "reads_only", ())
