"""``GET /health``: is the service up and its database reachable."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from .context import store
from .problems import Problem

blp = Blueprint("health", __name__, url_prefix="/api/v1", description="Service health.")


class HealthSchema(Schema):
    status = fields.String(metadata={"example": "ok"})


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(security=[])
    def get(self) -> dict[str, Any]:
        """Whether the service and its database answer (no token needed)."""
        try:
            with store().reading() as session:
                session.execute(text("SELECT 1"))
        except SQLAlchemyError:
            raise Problem(503, "unavailable", "The database does not answer.") from None
        return {"status": "ok"}
