"""A real server for the browser tests: the app on a free loopback port, SQLite in a temporary folder."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

from werkzeug.serving import BaseWSGIServer, make_server

from api.context import EXTENSION
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from support.apps import new_app
from support.http import Calls, HttpClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@dataclass
class LiveServer:
    url: str
    store: Store
    club: str
    club_name: str
    token: str
    example_game: str  # a finished example game (dimanche-chez-jeanne), four deals
    server: BaseWSGIServer
    thread: threading.Thread

    def calls(self) -> Calls:
        """The API's calls, over HTTP to this server."""
        return Calls(HttpClient.at(self.url, timeout=30))

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)
        self.store.close()


def start_server(folder: Path) -> LiveServer:
    """Serve the app on 127.0.0.1 with a demo club, its scorer token and one example game."""
    app = new_app(url=f"sqlite:///{folder / 'ledger.sqlite'}", MIGRATE=True, TESTING=True,
                  NJ_LEDGER_ANALYSIS_LIMIT=20_000)  # a deal's analysis within a second
    store: Store = app.extensions[EXTENSION]
    club, token = store.clubs.create_club("Les Honneurs du Jeudi")
    document = json.loads((EXAMPLES / "dimanche-chez-jeanne.json").read_text(encoding="utf-8"))
    example = import_document(store.games, club.id, document)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="browser-test-server", daemon=True)
    thread.start()
    return LiveServer(
        url=f"http://127.0.0.1:{server.server_port}", store=store, club=club.id, club_name=club.name,
        token=token.secret, example_game=example.game.id, server=server, thread=thread,
    )


if __name__ == "__main__":  # PYTHONPATH=tests python -m browser.server: a server to look at by hand
    import tempfile
    import time

    live = start_server(Path(tempfile.mkdtemp()))
    print(json.dumps({"url": live.url, "club": live.club, "token": live.token, "game": live.example_game}), flush=True)
    while True:
        time.sleep(3600)
