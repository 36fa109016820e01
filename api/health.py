"""``GET /health``: is the service up and its database reachable; ``GET /ready``: may it be sent requests.

``/health`` stays as cheap as a question to the database can be (``SELECT 1``
on a pooled connection): a load balancer or a monitor asks it often.
``/ready`` reads the schema's revision from the database and answers 503 until
it is the one this server was built for: a server started before ``nj-ledger db
upgrade`` ran, or on a database restored from an older backup, is up but not
ready, and a proxy or an orchestrator holds the requests back meanwhile.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from alembic.runtime.migration import MigrationContext
from flask.views import MethodView
from marshmallow import fields
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from nj_ledger.store.migrate import head_revision

from .context import store
from .dumping import ViewSchema
from .inputs import Blueprint
from .problems import PROBLEM_JSON, Problem
from .schemas import ProblemSchema

blp = Blueprint("health", __name__, url_prefix="/api/v1", description="Service health.")
RETRY = {"Retry-After": "5"}  # seconds before a readiness check is worth asking again


class HealthSchema(ViewSchema):
    status = fields.String(metadata={"example": "ok"})


class ReadySchema(ViewSchema):
    status = fields.String(metadata={"example": "ready"})
    revision = fields.String(metadata={"description": "The schema's revision (the migrations' head)."})


@cache
def _head() -> str | None:
    """The migrations' head revision: the schema this server was built for (read from its migrations once)."""
    return head_revision()


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(security=[])
    def get(self) -> dict[str, Any]:
        """Whether the service and its database answer (no token needed)."""
        try:
            with store().db.reading() as session:
                session.execute(text("SELECT 1"))
        except SQLAlchemyError:
            raise Problem(503, "unavailable", "The database does not answer.") from None
        return {"status": "ok"}


@blp.route("/ready")
class Ready(MethodView):
    @blp.response(200, ReadySchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM_JSON, description=(
        "The database does not answer, or its schema is not the one this server needs (code unavailable)."))
    @blp.doc(security=[])
    def get(self) -> dict[str, Any]:
        """Whether the server may be sent requests: its database answers and its schema is at the migrations'
        head (no token needed)."""
        try:
            with store().db.reading() as session:
                revision = MigrationContext.configure(session.connection()).get_current_revision()
        except SQLAlchemyError:
            raise Problem(503, "unavailable", "The database does not answer.", headers=RETRY) from None
        if revision != _head():
            raise Problem(503, "unavailable", "The database's schema is at revision {found}, not {wanted}: run "
                          "nj-ledger db upgrade.", params={"found": revision or "none", "wanted": _head()},
                          headers=RETRY)
        return {"status": "ready", "revision": revision}
