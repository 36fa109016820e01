"""Shares on the real server (`nj-ledger serve --workers 2`): a revoked share is refused at once by every worker,
and nothing the server prints holds a share's secret."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

from support.http import ADMIN_TOKEN

from .helpers import start_server


def test_a_revoked_share_is_refused_at_once_by_every_worker_and_never_printed(fresh_url: str, tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server, port = start_server(fresh_url, tmp_path, log, workers=2)
    try:
        def call(method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # a new connection each:
            try:  # the server hands them to either worker
                headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
                connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
                answer = connection.getresponse()
                raw = answer.read()
                return answer.status, json.loads(raw) if raw and answer.getheader("Content-Type", "").endswith(
                    "json") else raw
            finally:
                connection.close()

        _, club = call("POST", "/api/v1/clubs", ADMIN_TOKEN, {"name": "Club"})
        status, game = call("POST", f"/api/v1/clubs/{club['id']}/games", club["token"],
                            {"players": ["Ana", "Ben"], "starting_chips": 40})
        assert status == 201
        status, made = call("POST", f"/api/v1/clubs/{club['id']}/shares", club["token"], {"game": game["id"]})
        assert status == 201
        page = made["url"].partition("#")[0]
        assert call("GET", page, made["secret"])[0] == 200
        shared = f"/api/v1/games/{game['id']}"
        assert [call("GET", shared, made["secret"])[0] for _ in range(20)] == [200] * 20  # both workers know it
        assert call("GET", f"/api/v1/clubs/{club['id']}", made["secret"])[0] == 404
        assert call("DELETE", f"/api/v1/clubs/{club['id']}/shares/{made['id']}", club["token"])[0] == 204
        assert [call("GET", shared, made["secret"])[0] for _ in range(20)] == [401] * 20
    finally:
        server.terminate()
        server.wait(timeout=30)
    printed = log_path.read_text(errors="replace")
    assert made["secret"] not in printed and club["token"] not in printed
