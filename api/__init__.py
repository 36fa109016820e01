"""The Flask app: the REST API under ``/api/v1`` (OpenAPI at ``/api/v1/openapi.json``, docs at ``/api/v1/docs``).

    >>> app = create_app({"DATABASE_URL": "sqlite://", "MIGRATE": True})
    >>> app.test_client().get("/api/v1/health").get_json()
    {'status': 'ok'}
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, request
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from nj_ledger.store import Store

from . import (
    accesslog,
    analysis,
    archives,  # noqa: F401 - its route joins the clubs' blueprint before it is registered
    auth,
    clubs,
    docs,
    evening_ladder,  # noqa: F401 - its routes join the evenings' blueprint before it is registered
    evening_screen,  # noqa: F401 - its routes join the evenings' blueprint before it is registered
    evenings,
    exchange,
    games,
    health,
    i18n,
    lan,
    members,  # noqa: F401 - its route joins the scoreboards' blueprint before it is registered
    metrics,
    pages,
    receipts,
    replay,
    scoreboards,
    shares,
    streams,
    table_join,
)
from .auth import guard
from .config import Config, from_environment
from .context import EXTENSION
from .inputs import reject_unreadable_input, require_json_body
from .problems import PROBLEM_JSON, LedgerJSONProvider, register_error_handlers
from .schemas import ExactDocument, ProblemSchema

API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"


class LedgerApi(Api):
    """flask-smorest's Api, documenting errors as problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, **options: Any) -> None:
        """The document, with what the request schemas' fields cannot say on their own (api.schemas.ExactDocument)."""
        super()._init_spec(**{**options, "extra_plugins": [*(options.get("extra_plugins") or ()), ExactDocument()]})

    def _register_responses(self) -> None:
        """The error responses flask-smorest documents, as the problem+json the app sends (not plain JSON)."""
        for status in HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not 100 <= status < 200 and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        default = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(default, self.spec, PROBLEM_JSON)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, default, lazy=True)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app. ``config`` overrides settings (``DATABASE_URL``, ``ADMIN_TOKEN``, ``STORE``, ``MIGRATE``…)."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_object(Config)
    app.config.update(from_environment())
    app.config.update(config or {})
    app.json = LedgerJSONProvider(app)
    app.json.sort_keys = app.config["JSON_SORT_KEYS"]

    store = app.config.get("STORE") or Store(app.config["DATABASE_URL"])
    if app.config["MIGRATE"]:
        store.create_schema()
    app.extensions[EXTENSION] = store

    api = LedgerApi(app)
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer", "description": (
        "A club token (role director, scorer or viewer), the secret of a share link (POST /clubs/{club}/shares), which "
        "reads its one game or its club's scoreboard and nothing else, or a table token of an evening (POST "
        "/clubs/{club}/evenings), which reaches its table's games only.")})
    for blueprint in (health.blp, clubs.blp, shares.blp, games.blp, replay.blp, exchange.blp, scoreboards.blp,
                      receipts.blp, streams.blp, evenings.blp, table_join.blp, lan.blp):
        api.register_blueprint(blueprint)
    streams.document_items(api.spec)
    app.register_blueprint(docs.blp)
    app.register_blueprint(pages.blp)
    i18n.init_app(app)
    register_error_handlers(app)
    auth.init_app(app)
    replay.init_app(app)
    analysis.init_app(app)
    accesslog.init_app(app)  # every answer's X-Request-Id, and its line in the access log
    metrics.init_app(app, api, store)  # GET /metrics, and what it counts
    table_join.init_app(app)  # the joins of a table by its code, counted per client address
    lan.init_app(app)  # the installation page of HTTPS on a room's network; its port's redirect to HTTPS
    app.before_request(guard)
    app.before_request(require_json_body)
    app.before_request(reject_unreadable_input)
    app.after_request(_security_headers)
    return app


SECURITY_HEADERS = (
    ("Content-Security-Policy", API_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
NO_CACHE = (("Cache-Control", "no-cache"),)
# Sent on answers to requests that arrived over HTTPS (directly, or through a trusted proxy: api.proxies): the
# browser then never asks this name over plain HTTP again, for a year, so a network between a phone and the club's
# server cannot take it back to HTTP. Not on plain HTTP, where browsers ignore it (a club room's network).
HSTS = (("Strict-Transport-Security", "max-age=31536000"),)


def _security_headers(response: Response) -> Response:
    """The security headers every answer carries (unless a view set its own), in one pass over the headers."""
    headers = response.headers
    present = {name.lower() for name, _ in headers.items()}
    wanted: tuple[tuple[str, str], ...] = SECURITY_HEADERS
    if request.path.startswith("/api/v1") and not request.path.startswith("/api/v1/docs"):
        wanted += NO_CACHE
    if request.is_secure and current_app.config["HSTS"]:
        wanted += HSTS
    headers.extend([(name, value) for name, value in wanted if name.lower() not in present])
    return response
