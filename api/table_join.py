"""A club evening's table joined by its code alone: ``POST /api/v1/tables/{code}/join`` (docs/EVENINGS.md, "Joining
a table by its code").

A player types the code printed on the table (``/tables``) or opens ``/tables/{code}``: the page asks for a table
token with the code, and the phone then is that table's phone, as if it had scanned the table's QR code. The route
needs no credential (it is one of :data:`api.auth.OPEN_ENDPOINTS`, and takes no body); what it gives reaches one
table only (a token of role ``table``, :func:`api.auth.within_table`), never the club.

A code is 8 characters of a 32-letter alphabet (40 bits; the 6-character codes of evenings opened before still
work). Guessing is kept hopeless by counting, per client address (the real client behind the trusted proxies,
:func:`api.proxies.counted_as`; an IPv6 address by its /64), in a moving window kept in each process:

- the codes that named no open table (``TABLE_JOIN_MISSES``, 10 a minute): past them, every join from that address,
  a right code too, is answered 429 ``too-many-joins`` with ``Retry-After`` until the window moves on — were a
  right code still let through, the 429s would only tell a guesser which guess was right;
- every join (``TABLE_JOINS``, 60 a minute), each making a token: a room of phones behind one router joins its
  tables in a few minutes, a script does not fill the table of tokens.

The two are counted apart (``("miss", address)`` and ``("join", address)``), and each try is counted in the same
step that checks it, under a lock: the server's threads never let two tries through on one place left. A try whose
code is still being looked up counts as a miss until it is known (it holds a place among the misses), so that a
burst of guesses sent in parallel is held to the limit too.

A table holds at most ``TABLE_TOKENS_PER_TABLE`` tokens (200; its scorer links and joins alike): past them, a
join by its code is refused (409 ``table-tokens-exhausted``) and the phone scans the table's QR code or the
director makes it a link (``POST …/tables/{table}/links``, which the bound does not hold back), so that no one who
knows a code grows the table of tokens without bound.

A code that names no table and a code of a closed evening are answered alike (404 ``table-unknown``): the answer
tells nothing of which codes were ever made.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from flask import Flask, current_app, request
from flask.views import MethodView
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from marshmallow import fields

from nj_ledger.application import evenings
from nj_ledger.store.evening_tables import JoinedTable, TableFull

from .context import store
from .evenings import NO_STORE, TableViewSchema, table_view
from .i18n import N_
from .inputs import Blueprint
from .problems import PROBLEM_JSON, Problem
from .proxies import counted_as
from .schemas import ProblemSchema

blp = Blueprint("tables", __name__, url_prefix="/api/v1",
                description="A club evening's table joined by its code: a token for that table, with no sign-in.")

EXTENSION = "nj_ledger.table_joins"
TABLE_TOKENS_PER_TABLE = 200  # the most tokens a table holds for a join by its code to make another
UNKNOWN = N_("There is no open table {code!r}: check the code printed on the table.")
TOO_MANY = N_("Too many tries to join a table came from this address: try again in {seconds} seconds.")
TABLE_FULL = N_("Table {table} holds {most} tokens already, the most its code makes: scan the QR code printed on the "
                "table, or ask the director for a scorer link.")


class JoinedSchema(TableViewSchema):
    token = fields.String(metadata={
        "description": "A new table token (Authorization: Bearer …): it reaches this table's games, view, stream and "
                       "confirmations only, never the club's routes. Shown once."})


class TableJoins:
    """The joins of each client address in a moving window: those that missed, and all of them, counted apart."""

    def __init__(self, misses: str, joins: str) -> None:
        self.misses: RateLimitItem = parse(misses)
        self.joins: RateLimitItem = parse(joins)
        self.window = MovingWindowRateLimiter(MemoryStorage())
        self.lock = threading.Lock()  # a try is checked and counted in one step, whichever thread serves it
        self.pending: dict[str, int] = {}  # tries of each address whose code is being looked up

    def _refuse(self, limit: RateLimitItem, kind: str, address: str) -> Problem:
        reset, _ = self.window.get_window_stats(limit, kind, address)
        seconds = max(1, math.ceil(reset - time.time()))
        return Problem(429, "too-many-joins", TOO_MANY, params={"seconds": seconds},
                       headers={"Retry-After": str(seconds)})

    def check(self, address: str) -> None:
        """429 when ``address`` missed too often lately (its tries still being looked up taken for misses), or
        joined too often; else the try is counted as a join, and held as a possible miss until :meth:`done`."""
        with self.lock:
            pending = self.pending.get(address, 0)
            if not self.window.test(self.misses, "miss", address, cost=pending + 1):
                raise self._refuse(self.misses, "miss", address)
            if not self.window.hit(self.joins, "join", address):
                raise self._refuse(self.joins, "join", address)
            self.pending[address] = pending + 1

    def done(self, address: str, *, missed: bool) -> None:
        """A try checked by :meth:`check` is known: a code that named no open table counts as a miss."""
        with self.lock:
            left = self.pending.get(address, 1) - 1
            if left > 0:
                self.pending[address] = left
            else:
                self.pending.pop(address, None)
            if missed:
                self.window.hit(self.misses, "miss", address)


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = TableJoins(app.config["TABLE_JOIN_MISSES"], app.config["TABLE_JOINS"])
    app.config.setdefault("TABLE_TOKENS_PER_TABLE", TABLE_TOKENS_PER_TABLE)


def _joins() -> TableJoins:
    return current_app.extensions[EXTENSION]


@blp.route("/tables/<code>/join")
class Join(MethodView):
    @blp.response(201, JoinedSchema, headers={"Cache-Control": {"description": "no-store: the answer carries a "
                                                                              "token.", "schema": {"type": "string"}}})
    @blp.alt_response(404, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="No open table has this code (table-unknown): a code never made and a table of a "
                                  "closed evening are answered alike. The try counts against the address.")
    @blp.alt_response(409, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="The table holds TABLE_TOKENS_PER_TABLE tokens already (200 by default; its scorer "
                                  "links and joins alike): its code makes no more (table-tokens-exhausted). The "
                                  "director's scorer links are not held back.")
    @blp.alt_response(429, schema=ProblemSchema, content_type=PROBLEM_JSON,
                      description="Too many codes that named no table, or too many joins, from this address lately "
                                  "(too-many-joins), with Retry-After.")
    @blp.doc(security=[])
    def post(self, code: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Join a table of an open evening by its code, with no credential and no body: a new table token (shown
        once) and the table's view (as `GET /tables/{code}`). The code may be sent in lower case, with spaces or
        dashes. Each try is counted per client address: 10 codes that name no open table a minute, 60 joins a
        minute; past either, 429 `too-many-joins` with `Retry-After`. A table holds at most 200 tokens: past them,
        409 `table-tokens-exhausted` (the table's QR code, or a scorer link the director makes, still open it)."""
        address = counted_as(request.remote_addr or "unknown")
        joins = _joins()
        joins.check(address)
        missed = False  # a table full, or the store failing, is no miss
        try:
            joined: JoinedTable | None = evenings.join_table(store(), code,
                                                             current_app.config["TABLE_TOKENS_PER_TABLE"])
            missed = joined is None
        except TableFull as full:
            raise Problem(409, "table-tokens-exhausted", TABLE_FULL,
                          params={"table": full.table, "most": full.most}) from None
        finally:
            joins.done(address, missed=missed)
        if joined is None:
            raise Problem(404, "table-unknown", UNKNOWN, params={"code": code[:20]})
        link = joined.link
        read = evenings.evening(store(), joined.club_id, link.evening_id)
        return {**table_view(read, link.table), "token": link.secret}, 201, NO_STORE
