"""The club's server docs/DEPLOY.md makes, made once for every test of this folder.

On a machine of the test's own (tests/deploy/machine.py), the guide's ``internet`` route runs as written: the
ledger installed in /opt/nj-ledger, its user, settings and units; the services start as their units say; Caddy
answers at ``https://club.test`` with a certificate of its own authority (a name no public authority would
sign). The test writes only what the guide asks the operator to write (the server's name) and its own ports.
The tests of test_deploy.py meet it as a club would; test_guide_backups.py then runs the guide's backups,
restores and upgrade on it (they stop, restore and migrate it: they come last).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from browser.scripted_deal import NAMES
from reliability.helpers import free_port
from support.http import answers
from support.tls import Answer, https

from .guide import Block, blocks, made_club
from .machine import Machine, Service, can_make_machines, source_tree, wait_for

SITE = "club.test"
CLUB = "Cercle du Nain Jaune"  # the club the guide's last command makes
HEARTBEAT = 1.0  # seconds between a stream's heartbeats, for the test (15 by default)
WRONG_TOKENS = 5  # a client's wrong tokens before it is answered 429, for the test
CADDY_ROOT = "/var/lib/caddy/.local/share/caddy/pki/authorities/local/root.crt"
SERVICE_ENV = "/etc/nj-ledger/nj-ledger.env"
CADDY_ENV = "/etc/nj-ledger/caddy.env"
LEDGER = "nj-ledger.service"


@dataclass
class Server:
    machine: Machine
    source: Path  # the repository's files, where the guide's commands run
    app_port: int
    http_port: int
    https_port: int
    authority: Path = Path()  # Caddy's root certificate, copied out of the machine
    club: str = ""
    token: str = ""
    services: dict[str, Service] = field(default_factory=dict)

    @property
    def ledger(self) -> Service:
        return self.services[LEDGER]

    # --- as a club reaches it ----------------------------------------------------------------------------------
    def get(self, path: str, token: str | None = None, source: str | None = None,
            headers: dict[str, str] | None = None) -> Answer:
        sent = {**({"Authorization": f"Bearer {token or self.token}"} if token != "" else {}), **(headers or {})}
        return https(SITE, self.https_port, self.authority, "GET", path, headers=sent, source=source)

    def post(self, path: str, body: object, token: str | None = None) -> Answer:
        return https(SITE, self.https_port, self.authority, "POST", path, body,
                     headers={"Authorization": f"Bearer {token or self.token}"})

    def new_game(self) -> str:
        made = self.post(f"/api/v1/clubs/{self.club}/games", {"players": NAMES, "rules": "classic",
                                                               "starting_chips": 200})
        assert made.status == 201, made.body
        return str(made.json()["id"])

    def events(self, game: str) -> list[dict[str, object]]:
        answer = self.get(f"/api/v1/games/{game}/events")
        assert answer.status == 200, answer.body
        return list(answer.json()["events"])

    # --- as its operator does ----------------------------------------------------------------------------------
    def run(self, commands: str) -> str:
        """Shell commands as root on the server, from the repository's folder."""
        return self.machine.run(commands, cwd=self.source, timeout=900)

    def games(self) -> list[str]:
        """The ids of the server's games, as `nj-ledger games list` gives them (none: an empty list, whichever of the
        package's tests runs first)."""
        listed = json.loads(self.run("nj-ledger games list --limit 100 --json"))
        return [str(game["id"]) for game in listed["games"]]

    def start(self, unit: str) -> Service:
        """``unit`` started as systemd would, once it verifies; waited for until it serves. A oneshot unit (the
        nightly backup) runs to its end."""
        self.stop(unit)
        path = f"/etc/systemd/system/{unit}"
        if self.run(f"test -f {path} && echo yes || true").strip() == "yes":
            self.machine.verify(path)
        service = self.services[unit] = self.machine.start(unit)
        if unit == LEDGER:
            wait_for(lambda: answers(self.app_port), 60, "the ledger's health", service)
        elif unit == "caddy.service":
            wait_for(lambda: self.run(f"test -s {CADDY_ROOT} && echo yes || true").strip() == "yes", 60,
                     "Caddy's authority", service)
        elif "Type=oneshot" in self.machine.unit_text(unit):
            assert service.process.wait(timeout=300) == 0, service.output()
        return service

    def stop(self, unit: str) -> None:
        if unit in self.services:
            self.services.pop(unit).stop()

    def block(self, block: Block, after_stop: Callable[[], None] | None = None) -> str:
        """Run a block of the guide as written, its ``systemctl`` lines done as systemd would (a timer enabled:
        its units verified, and its service run once, as the timer would start it); what it printed."""
        said: list[str] = []
        for kind, words in block.steps():
            if kind == "sh":
                said.append(self.run(words[0]))
            elif words[:1] == ["stop"]:
                for unit in units(words[1:]):
                    self.stop(unit)
                if after_stop is not None:
                    after_stop()
            elif words[:1] in (["start"], ["restart"]) or words[:2] == ["enable", "--now"]:
                for unit in units(words[1:]):
                    if unit.endswith(".timer"):
                        self.machine.verify(f"/etc/systemd/system/{unit}")
                        unit = unit.removesuffix(".timer") + ".service"
                    said.append(self.start(unit).output())
            else:
                assert words == ["daemon-reload"], f"a systemctl line the test does not know: {words}"
        return "\n".join(said)


def units(words: list[str]) -> list[str]:
    """The units a ``systemctl`` line names (``nj-ledger`` is ``nj-ledger.service``)."""
    return [word if "." in word else f"{word}.service" for word in words if word not in ("enable", "--now")]


def settings(server: Server) -> None:
    """What the guide asks the operator to write (the server's name), and the test's own ports and authority."""
    machine = server.machine
    machine.run(f"sed -i 's/club.example.org/{SITE}/' {CADDY_ENV}")
    admin_port = free_port()
    machine.run(f"cat >> {CADDY_ENV} <<'EOF'\nNJ_LEDGER_CERT_ISSUER=internal\n"
                f"NJ_LEDGER_HTTP_PORT={server.http_port}\nNJ_LEDGER_HTTPS_PORT={server.https_port}\n"
                f"NJ_LEDGER_CADDY_ADMIN=localhost:{admin_port}\nNJ_LEDGER_UPSTREAM=127.0.0.1:{server.app_port}\nEOF")
    machine.run(f"cat >> {SERVICE_ENV} <<'EOF'\nNJ_LEDGER_PORT={server.app_port}\n"
                f"NJ_LEDGER_STREAM_HEARTBEAT={HEARTBEAT}\nNJ_LEDGER_AUTH_FAILURE_LIMIT={WRONG_TOKENS}/minute\nEOF")


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    reason = can_make_machines()
    if reason is not None:
        pytest.fail(reason)
    folder = tmp_path_factory.mktemp("deploy")
    live = Server(Machine(folder), source_tree(folder), free_port(), free_port(), free_port())
    try:
        said = ""
        for block in blocks("internet"):
            said = live.block(block)
            if "caddy.env" in block.commands:  # what the guide asks the operator to write, and the test's ports
                settings(live)
        live.authority = folder / "caddy-root.crt"
        live.authority.write_text(live.machine.read(CADDY_ROOT))
        live.club, live.token = made_club(said)  # the guide's last command made the club
        wait_for(lambda: live.get("/api/v1/health", token="").status == 200, 60, "the ledger through Caddy",
                 live.services["caddy.service"])
        yield live
    finally:
        live.machine.close()
