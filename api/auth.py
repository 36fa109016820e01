"""Bearer tokens: who is calling, for which club, and may they write.

A club token reaches its own club only: asking for another club, or another
club's game, answers 404 as if it did not exist. The admin token (from
``NJ_LEDGER_ADMIN_TOKEN``) only creates clubs.
"""

from __future__ import annotations

import hmac

from flask import current_app, g, request

from nj_ledger.store import TokenInfo

from .context import store
from .problems import Problem

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="nj-ledger"'}
API_PREFIX = "/api/v1/"
READ_METHODS = frozenset({"GET", "HEAD"})
# Routes that need no club token: the service's health, its documentation, and creating a club (admin token).
OPEN_ENDPOINTS = frozenset({"health.Health", "clubs.Clubs"})
OPEN_BLUEPRINTS = frozenset({"api-docs", "docs"})


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
    if not hmac.compare_digest(secret.encode(), str(admin).encode()):
        raise Problem(403, "forbidden", "Creating a club needs the admin token.")


def caller() -> TokenInfo:
    """The club token of this request (401 without a valid one)."""
    known = g.get("token")
    if known is not None:
        return known  # type: ignore[no-any-return]
    secret = bearer_token()
    if secret is None:
        raise Problem(401, "unauthorized", "Send a token: Authorization: Bearer <token>.", headers=CHALLENGE)
    token = store().authenticate(secret)
    if token is None:
        raise Problem(401, "unauthorized", "This token is not valid.", headers=CHALLENGE)
    g.token = token
    return token


def reader() -> TokenInfo:
    return caller()


def writer() -> TokenInfo:
    """A token allowed to write (role ``scorer``); 403 for a viewer."""
    token = caller()
    if not token.can_write:
        raise Problem(403, "forbidden", "This token may read but not write: ask your club for a scorer token.")
    return token


def own_club(token: TokenInfo, club_id: str) -> None:
    """404 unless ``club_id`` is the token's club."""
    if not hmac.compare_digest(token.club_id.encode(), club_id.encode()):
        raise Problem(404, "not-found", "There is no club {club!r}.", params={"club": club_id})


def guard() -> None:
    """Before any view under ``/api/v1``: a valid club token (401), a scorer's to write (403), its own club (404).

    The views check the same again; checking first, for every route but the
    open ones, means a new route cannot forget it, and a caller without the
    right token learns nothing, not even whether its request was well formed.
    """
    if (request.url_rule is None or not request.path.startswith(API_PREFIX) or request.method == "OPTIONS"
            or request.endpoint in OPEN_ENDPOINTS or request.blueprint in OPEN_BLUEPRINTS):
        return
    token = reader() if request.method in READ_METHODS else writer()
    club = (request.view_args or {}).get("club")
    if isinstance(club, str):
        own_club(token, club)
