"""Settings of the web app: defaults here, the environment on top, a test's mapping on top of that."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from nj_ledger.store import default_database_url

ADMIN_TOKEN_ENV = "NJ_LEDGER_ADMIN_TOKEN"
AUTH_FAILURE_LIMIT_ENV = "NJ_LEDGER_AUTH_FAILURE_LIMIT"
STREAM_HEARTBEAT_ENV = "NJ_LEDGER_STREAM_HEARTBEAT"
STREAM_LIFETIME_ENV = "NJ_LEDGER_STREAM_LIFETIME"
STREAMS_PER_ADDRESS_ENV = "NJ_LEDGER_STREAMS_PER_ADDRESS"
STREAMS_PER_CREDENTIAL_ENV = "NJ_LEDGER_STREAMS_PER_CREDENTIAL"
ACCESS_LOG_ENV = "NJ_LEDGER_ACCESS_LOG"
PROXIES_ENV = "NJ_LEDGER_PROXIES"
PUBLIC_URL_ENV = "NJ_LEDGER_PUBLIC_URL"
METRICS_FROM_ENV = "NJ_LEDGER_METRICS_FROM"
CLIENT_REQUESTS_ENV = "NJ_LEDGER_CLIENT_REQUESTS"
BODY_DEADLINE_ENV = "NJ_LEDGER_BODY_DEADLINE"
TABLE_JOIN_MISSES_ENV = "NJ_LEDGER_TABLE_JOIN_MISSES"
TABLE_JOINS_ENV = "NJ_LEDGER_TABLE_JOINS"


class Config:
    API_TITLE = "Nain Jaune Ledger"
    API_VERSION = "1"
    OPENAPI_VERSION = "3.0.3"
    OPENAPI_URL_PREFIX = "/api/v1"
    OPENAPI_JSON_PATH = "openapi.json"
    API_SPEC_OPTIONS: ClassVar[dict[str, Any]] = {
        "info": {"description": "Record, replay and audit games of Nain Jaune. Errors are RFC 9457 "
                                "problem+json with a stable `code`. Authenticate with "
                                "`Authorization: Bearer <token>`."},
        "security": [{"bearerAuth": []}],
    }
    MAX_CONTENT_LENGTH = 2 * 1024 * 1024  # a long game's document is well under this
    # Requests one client address may have in flight at once in a worker (NJ_LEDGER_CLIENT_REQUESTS), bodies being
    # sent included; streams are counted apart. Past it: 429 at once (api.admission). A table's phones behind one
    # router each have one or two requests in flight at most.
    CLIENT_REQUESTS = 32
    # Seconds a request's body may take to arrive (NJ_LEDGER_BODY_DEADLINE), and at most a tenth of it, 2 s at
    # least, between two of its pieces: then 408 (api.admission). A 2 MiB document over a slow phone link is
    # well within it.
    BODY_DEADLINE = 60.0
    JSON_SORT_KEYS = True
    MIGRATE = False  # run the migrations when the app starts (the CLI's serve does it for SQLite)
    # Wrong tokens one client address may send before it is answered 429 (limits' notation).
    AUTH_FAILURE_LIMIT = "100/minute"
    # Joins of a table by its code (POST /tables/{code}/join, api.table_join) one client address may make: codes that
    # named no open table (NJ_LEDGER_TABLE_JOIN_MISSES), and joins of any kind (NJ_LEDGER_TABLE_JOINS).
    TABLE_JOIN_MISSES = "10/minute"
    TABLE_JOINS = "60/minute"
    # Reverse proxies in front of the server believed about the client's address and scheme (api.proxies): their
    # addresses or networks ("127.0.0.1,::1"), or a number of hops; 0: none.
    PROXIES = 0
    # Seconds between two heartbeats (SSE comments) of an idle stream (NJ_LEDGER_STREAM_HEARTBEAT).
    STREAM_HEARTBEAT = 15.0
    # Seconds a stream lasts at most (NJ_LEDGER_STREAM_LIFETIME): then it ends, and the client reconnects with
    # Last-Event-ID (EventSource does by itself), maybe to another worker: connections spread again.
    STREAM_LIFETIME = 3600.0
    # Streams one client address (NJ_LEDGER_STREAMS_PER_ADDRESS), and one token or share link from any address
    # (NJ_LEDGER_STREAMS_PER_CREDENTIAL), may hold open at once in a worker; past it, 429 (api.stream_limits). Forty
    # phones of a club behind one router, its screens and a second tab here and there fit in the first.
    STREAMS_PER_ADDRESS = 64
    STREAMS_PER_CREDENTIAL = 128
    # Who may read GET /metrics besides this machine itself (NJ_LEDGER_METRICS_FROM): addresses or networks, the
    # client's as the trusted proxies tell it (a scraper on another machine of a private network).
    METRICS_FROM = ""
    # The access log (NJ_LEDGER_ACCESS_LOG): "json", a JSON line per request on the standard error (api.accesslog),
    # or "off". Off for an app made by create_app (the tests), unless asked; `nj-ledger serve` writes it unless
    # the environment says "off". ACCESS_LOG_STREAM, a text stream, takes the lines instead (the tests).
    ACCESS_LOG = "off"
    ACCESS_LOG_STREAM = None
    # The address phones open (NJ_LEDGER_PUBLIC_URL; `nj-ledger serve --lan` sets it): the links written for phones
    # use it (api.addresses). None: the address the request came to, unless that is this machine's loopback.
    PUBLIC_URL = None
    # Set by `nj-ledger serve --lan --https` (api.lan): the club's certificate authority (a PEM file) the
    # installation page gives phones, that page's plain-HTTP address, and, on the plain-HTTP port, the redirect of
    # every other page to HTTPS.
    LAN_AUTHORITY = None
    LAN_INSTALL_URL = None
    LAN_REDIRECT = False
    # Strict-Transport-Security on answers over HTTPS; off on a room's network, where the plain-HTTP port must stay
    # reachable by name for the installation page.
    HSTS = True


def from_environment() -> dict[str, Any]:
    settings: dict[str, Any] = {"DATABASE_URL": default_database_url(),
                                "ADMIN_TOKEN": os.environ.get(ADMIN_TOKEN_ENV) or None}
    if os.environ.get(AUTH_FAILURE_LIMIT_ENV):
        settings["AUTH_FAILURE_LIMIT"] = os.environ[AUTH_FAILURE_LIMIT_ENV]
    if os.environ.get(PROXIES_ENV):
        settings["PROXIES"] = os.environ[PROXIES_ENV]  # read by api.proxies.trusted_proxies
    if os.environ.get(STREAM_HEARTBEAT_ENV):
        settings["STREAM_HEARTBEAT"] = float(os.environ[STREAM_HEARTBEAT_ENV])
    if os.environ.get(STREAM_LIFETIME_ENV):
        settings["STREAM_LIFETIME"] = float(os.environ[STREAM_LIFETIME_ENV])
    if os.environ.get(STREAMS_PER_ADDRESS_ENV):
        settings["STREAMS_PER_ADDRESS"] = int(os.environ[STREAMS_PER_ADDRESS_ENV])
    if os.environ.get(STREAMS_PER_CREDENTIAL_ENV):
        settings["STREAMS_PER_CREDENTIAL"] = int(os.environ[STREAMS_PER_CREDENTIAL_ENV])
    if os.environ.get(ACCESS_LOG_ENV):
        settings["ACCESS_LOG"] = os.environ[ACCESS_LOG_ENV]
    if os.environ.get(PUBLIC_URL_ENV):
        settings["PUBLIC_URL"] = os.environ[PUBLIC_URL_ENV]
    if os.environ.get(METRICS_FROM_ENV):
        settings["METRICS_FROM"] = os.environ[METRICS_FROM_ENV]
    if os.environ.get(CLIENT_REQUESTS_ENV):
        settings["CLIENT_REQUESTS"] = int(os.environ[CLIENT_REQUESTS_ENV])
    if os.environ.get(BODY_DEADLINE_ENV):
        settings["BODY_DEADLINE"] = float(os.environ[BODY_DEADLINE_ENV])
    if os.environ.get(TABLE_JOIN_MISSES_ENV):
        settings["TABLE_JOIN_MISSES"] = os.environ[TABLE_JOIN_MISSES_ENV]
    if os.environ.get(TABLE_JOINS_ENV):
        settings["TABLE_JOINS"] = os.environ[TABLE_JOINS_ENV]
    return settings
