"""schemathesis against the app's own OpenAPI document: no server error, every response as documented.

Each operation is called with cases generated from its schema, valid ones and
invalid ones (wrong types, missing fields, values out of range), with a scorer
token of a seeded club, on that club and on a game with a deal in progress (the
admin token for creating clubs). Every answer must be below 500 and match the
document: a documented status, its content type, its schema and its headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import schemathesis
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from support.http import ADMIN_TOKEN, Calls
from support.scale import scaled, sized

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]
NEGATIVE_CHECKS = [*CHECKS, negative_data_rejection]  # invalid data is refused with a 4xx
# 413 refuses invalid data too: an array past its maxItems can also be past the body's size limit.
CONFIG = schemathesis.Config.from_dict({"checks": {"negative_data_rejection": {
    "expected-statuses": ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]}}})


@dataclass
class Seed:
    club: str
    game: str
    auth: dict[str, str]
    evening: str
    code: str


def seed(app: Flask) -> Seed:
    calls = Calls(app.test_client())
    club = calls.club("Les Fuzzeurs")
    game = calls.game(club)["id"]
    assert calls.act(club, game, {"type": "deal"}).status_code == 201
    ended = calls.game(club)["id"]
    assert calls.act(club, ended, {"type": "end"}).status_code == 201
    players = ["Ana", "Ben", "Chloé", "Denis", "Élise", "Fanny"]
    evening = calls.client.post(f"/api/v1/clubs/{club.id}/evenings", json={
        "name": "Jeudi", "players": players, "rounds": 2, "starting_chips": 60, "confirmation": True},
        headers=club.auth)
    assert evening.status_code == 201, evening.get_json()
    assert calls.client.post(f"/api/v1/clubs/{club.id}/evenings/{evening.json['id']}/rounds", json={},
                             headers=club.auth).status_code == 201
    return Seed(club.id, game, club.auth, evening.json["id"], evening.json["tables"][0]["code"])


def calls(strategy: Any, checks: list[Any], max_examples: int) -> Any:
    """A hypothesis test calling the app with the cases of ``strategy`` and validating each answer."""

    @settings(max_examples=max_examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def call(case: Any) -> None:
        case.call_and_validate(checks=checks)

    return call


def fuzz(app: Flask, max_examples: int) -> list[str]:
    """Run every operation of the document through schemathesis; the failures found, one text each."""
    place = seed(app)
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app, config=CONFIG)
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 13
    for operation in operations:
        names = {parameter.name for parameter in operation.path_parameters}
        fixed = {name: value for name, value in (("club", place.club), ("game", place.game),
                                                 ("evening", place.evening), ("code", place.code), ("table", 1))
                 if name in names}
        headers: dict[str, Any] = dict(place.auth)
        if operation.label == "POST /api/v1/clubs":
            headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        for mode, checks in ((GenerationMode.POSITIVE, CHECKS), (GenerationMode.NEGATIVE, NEGATIVE_CHECKS)):
            strategy = operation.as_strategy(generation_mode=mode, headers=headers, path_parameters=fixed)
            try:
                calls(strategy, checks, max_examples)()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing of this operation can be made invalid
            except (Exception, FailureGroup) as failure:  # noqa: BLE001 - every failure is listed below
                failures.append(f"{operation.label} ({mode.value}):\n{str(failure)[:4000]}")  # bodies can be huge
    return failures


@scaled
def test_schemathesis_finds_no_server_error_and_no_undocumented_answer(app: Flask) -> None:
    lifetime = app.config["STREAM_LIFETIME"]
    app.config["STREAM_LIFETIME"] = 0.05  # the streams end soon after their backlog, so that each call ends
    try:
        failures = fuzz(app, max_examples=sized(5, 25))
    finally:
        app.config["STREAM_LIFETIME"] = lifetime
    assert not failures, "\n\n".join(failures)
