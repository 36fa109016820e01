"""Every JSON answer leaves through its schema, and holds what its view built: a field a view makes that its
schema does not declare would be dropped on the way out, so the schemas are checked to drop nothing, on the
answers that are written a part at a time (replay, audit, export, scoreboard, analysis) as on the others."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask
from marshmallow import Schema

from api.dumping import ViewSchema
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from support.apps import new_app
from support.http import Calls, Club

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


def dropped(view: Any, dumped: Any, path: str = "") -> list[str]:
    """The keys of ``view`` (nested mappings and lists included) that its dump does not hold."""
    if isinstance(view, Mapping) and isinstance(dumped, Mapping):
        lost = [f"{path}.{key}" for key in view if key not in dumped]
        return lost + [name for key in dumped if key in view for name in dropped(view[key], dumped[key],
                                                                                   f"{path}.{key}")]
    if isinstance(view, list) and isinstance(dumped, list):
        return [name for n, (a, b) in enumerate(zip(view, dumped, strict=True))
                for name in dropped(a, b, f"{path}[{n}]")]
    return []


@pytest.fixture
def losses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What every dump through a response schema left out of its view, or gave otherwise than marshmallow's own
    dump would (a value of another type), while the test runs."""
    lost: list[str] = []
    dump = ViewSchema.dump

    def checked(schema: ViewSchema, obj: Any, *, many: bool | None = None) -> Any:
        out = dump(schema, obj, many=many)
        view = obj
        if isinstance(obj, Mapping) and schema.exclude:
            view = {key: value for key, value in obj.items() if key not in schema.exclude}
        lost.extend(f"{type(schema).__name__}{name}" for name in dropped(view if not schema.many else list(obj),
                                                                         out))
        theirs = Schema.dump(schema, obj, many=many)
        if orjson.dumps(out, option=orjson.OPT_SORT_KEYS) != orjson.dumps(theirs, option=orjson.OPT_SORT_KEYS):
            lost.append(f"{type(schema).__name__}: {out!r} is not marshmallow's {theirs!r}")
        return out

    monkeypatch.setattr(ViewSchema, "dump", checked)
    yield lost


def test_the_answers_written_a_part_at_a_time_hold_every_field_their_views_built(
        app: Flask, client: Any, calls: Calls, club: Club, store: Store, losses: list[str]) -> None:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    game = import_document(store.games, club.id, document).game.id
    adjusted = import_document(store.games, club.id, {**document, "actions": document["actions"][:22]}).game.id
    adjust = {"type": "adjust", "from": "seat:0", "to": "seat:1", "amount": 2, "reason": "a bet"}
    assert calls.act(club, adjusted, adjust).status_code == 201
    undone = calls.game(club)["id"]
    acted = calls.act(club, undone, {"type": "deal", "dealer": 0}, {"type": "play", "seat": 1, "cards": ["2C"]},
                      {"type": "undo", "reason": "wrong card"}, {"type": "play", "seat": 1, "cards": ["3C"]})
    assert acted.status_code == 201, acted.json
    receipt = acted.json["receipt"]
    for each in (game, undone, adjusted):
        audit = calls.read("GET", f"/api/v1/games/{each}/audit", club=club, status=200)
        assert audit["transfers"] and audit["findings"]
        assert calls.read("GET", f"/api/v1/games/{each}/export", club=club, status=200)["actions"]
    assert calls.read("POST", f"/api/v1/games/{undone}/audit", {"receipts": [receipt]}, club=club,
                      status=200)["receipts"]["ok"]
    assert any(c["type"] == "undo" for c in calls.audit(club, undone)["corrections"])
    assert any(c["type"] == "adjust" for c in calls.audit(club, adjusted)["corrections"])
    steps = calls.read("GET", f"/api/v1/games/{game}/deals/1/replay", club=club, status=200)["steps"]
    assert steps[0]["event"] is None and steps[-1]["state"]["deal"]["winner"] is not None
    assert calls.read("GET", f"/api/v1/clubs/{club.id}/scoreboard", club=club, status=200)["rows"]
    app.config["NJ_LEDGER_ANALYSIS_LIMIT"] = 20_000
    url = f"/api/v1/games/{game}/deals/1/analysis"
    for _ in range(600):
        answer = client.get(url, headers=club.auth)
        if answer.status_code != 202:
            break
        time.sleep(0.05)
    assert answer.status_code == 200 and answer.json["decisions"]
    assert losses == []


def test_every_json_answer_is_declared_by_a_response_schema_of_one_kind() -> None:
    """Every schema a route answers with is a :class:`ViewSchema`: one way an answer leaves, held to its
    declaration by the test above and by tests/api/test_dumping.py."""
    app = new_app()
    declared, other = 0, []
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        methods = [getattr(view.view_class, m.lower()) for m in sorted(rule.methods or ())
                   if hasattr(view, "view_class") and hasattr(view.view_class, m.lower())]
        for method in methods:
            responses = getattr(method, "_apidoc", {}).get("response", {}).get("responses", {})
            for status, answers in responses.items():
                for answer in answers:
                    schema = answer.get("schema")
                    if schema is None or isinstance(schema, dict):
                        continue
                    declared += 1
                    kind = schema if isinstance(schema, type) else type(schema)
                    if not issubclass(kind, ViewSchema):
                        other.append(f"{rule.rule} {status}: {kind.__name__}")
    assert other == [] and declared > 60
