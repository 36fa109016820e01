"""Shares on the real server (`nj-ledger serve --workers 2`): a revoked share is refused at once by every worker,
and nothing the server prints holds a share's secret."""

from __future__ import annotations

from pathlib import Path

from support.http import ADMIN_TOKEN, Calls, HttpClient

from .helpers import start_server


def test_a_revoked_share_is_refused_at_once_by_every_worker_and_never_printed(fresh_url: str, tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server, port = start_server(fresh_url, tmp_path, log, workers=2)
    try:
        calls = Calls(HttpClient(port, fresh=True, timeout=30))  # a new connection each: the server hands them
        club = calls.post("/api/v1/clubs", {"name": "Club"}, token=ADMIN_TOKEN).json  # to either worker
        answer = calls.post(f"/api/v1/clubs/{club['id']}/games", {"players": ["Ana", "Ben"], "starting_chips": 40},
                            token=club["token"])
        status, game = answer.status_code, answer.json
        assert status == 201
        answer = calls.post(f"/api/v1/clubs/{club['id']}/shares", {"game": game["id"]}, token=club["token"])
        status, made = answer.status_code, answer.json
        assert status == 201
        page = made["url"].partition("#")[0]
        assert calls.get(page, token=made["secret"]).status_code == 200
        shared = f"/api/v1/games/{game['id']}"

        def status_of(path: str, token: str) -> int:
            return int(calls.get(path, token=token).status_code)

        assert [status_of(shared, made["secret"]) for _ in range(20)] == [200] * 20  # both workers know it
        assert status_of(f"/api/v1/clubs/{club['id']}", made["secret"]) == 404
        assert calls.delete(f"/api/v1/clubs/{club['id']}/shares/{made['id']}", token=club["token"]).status_code == 204
        assert [status_of(shared, made["secret"]) for _ in range(20)] == [401] * 20
    finally:
        server.terminate()
        server.wait(timeout=30)
    printed = log_path.read_text(errors="replace")
    assert made["secret"] not in printed and club["token"] not in printed
