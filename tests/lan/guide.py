"""The local network's commands of docs/DEPLOY.md ("In a club room: the local network"), run as the page gives
them, from the repository's folder, with the checkout's own ``.venv``: each ``<!-- run: lan -->`` block's lines
in order, its last line (``serve``) left running as the club's server.

The test gives them what a laptop would have: an instance folder of its own, free ports (through
``NJ_LEDGER_PORT`` and ``NJ_LEDGER_HTTPS_PORT``, which ``serve`` reads as its ``--port`` and ``--https-port``), and
the machine's real network: the address the server prints is this machine's own, not a loopback one.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page

from deploy.guide import Block, blocks
from support.http import Calls, HttpClient

ROOT = Path(__file__).resolve().parents[2]
CLUB = "Cercle du Nain Jaune"  # the club the guide's first command makes
QR_CHARACTERS = set("█▀▄ ")


def lan_blocks() -> list[list[str]]:
    """The lines of the guide's two ``lan`` blocks (comments and blank lines left out)."""
    found = blocks("lan")
    assert len(found) == 2, "the guide's local network: serve --lan, then serve --lan --https"
    return [lines(block) for block in found]


def lines(block: Block) -> list[str]:
    return [line for line in block.commands.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def environment(instance: Path, port: int, https_port: int) -> dict[str, str]:
    return {**os.environ, "NJ_LEDGER_INSTANCE": str(instance), "NJ_LEDGER_PORT": str(port),
            "NJ_LEDGER_HTTPS_PORT": str(https_port), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}


def run_lines(lines: list[str], env: dict[str, str]) -> str:
    """Run the lines of a block (all but a server) in the repository's folder; their output."""
    output = ""
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        output += done.stdout
    return output


@dataclass
class Served:
    """A server the guide's ``serve`` line started, and what it printed."""

    process: subprocess.Popen[bytes]
    log: Path
    phones: str  # the address it says phones open
    scan: str  # the address its QR code is printed for (the installation page, with HTTPS)

    @property
    def port(self) -> int:
        """The port of the address phones open."""
        return int(self.phones.rstrip("/").rsplit(":", 1)[1])

    @property
    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def qr_lines(self) -> list[str]:
        """The QR code as printed in the terminal."""
        return [line for line in self.output.splitlines() if line and set(line) <= QR_CHARACTERS]

    def calls(self, authority: Path | None = None) -> Calls:
        """The API's calls at the address phones open (over HTTPS: trusting ``authority`` alone)."""
        return api_calls(self.phones, authority)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def serve(line: str, env: dict[str, str], log: Path, answers: Callable[[str], bool]) -> Served:
    """Start the guide's ``serve`` line; once it printed where phones go and ``answers(that address)``."""
    assert line.startswith(".venv/bin/nj-ledger serve --lan"), line
    with log.open("wb") as written:
        process = subprocess.Popen(["bash", "-c", f"exec {line}"], cwd=ROOT, env=env, stdout=written,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    served = Served(process, log, "", "")
    deadline = time.monotonic() + 90
    while True:
        printed = re.search(r"phones open (\S+)", served.output)
        if printed:
            served.phones = printed[1]
            install = re.search(r"installs the club's certificate, once: (\S+)", served.output)
            served.scan = install[1] if install else served.phones
            try:
                if answers(served.phones):
                    return served
            except OSError:
                pass
        if process.poll() is not None or time.monotonic() > deadline:
            served.stop()
            raise AssertionError(f"the guide's server did not answer:\n{served.output}")
        time.sleep(0.3)


def show_outbox(page: Page) -> None:
    """Bring the scorer's outbox into view for a screenshot, in one step of the page's own: the scorer draws its
    controls again as it goes (a resend, the core's state), and an element found first may be gone by the
    time a second step scrolls to it."""
    page.evaluate("document.getElementById('outbox-badge').scrollIntoView({block: 'nearest'})")


def health(address: str, authority: Path | None = None) -> bool:
    answer = api_calls(address, authority, timeout=5).get("/health")
    return bool(answer.status_code == 200 and answer.json == {"status": "ok"})


def api_calls(address: str, authority: Path | None = None, timeout: float = 10) -> Calls:
    """The API's calls at ``address`` (``http://…/`` or ``https://…/``, trusting ``authority`` alone), a
    connection for each."""
    return Calls(HttpClient.at(f"{address}api/v1", authority=authority, fresh=True, timeout=timeout))


def machine_addresses() -> set[str]:
    """This machine's global addresses, as ``ip`` lists them (not the way the ledger finds them)."""
    listed = subprocess.run(["ip", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True,
                            check=True).stdout
    return {match.split("/")[0] for match in re.findall(r"inet6? (\S+)", listed)}


def decode_qr(image: Path) -> str:
    """The text of the QR code in an image file, read by zbar's ``zbarimg`` (Debian's zbar-tools)."""
    done = subprocess.run(["zbarimg", "--quiet", "--raw", str(image)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"no QR code read in {image}: {done.stderr}"
    return done.stdout.strip()


def terminal_qr_image(lines: list[str], scale: int = 8) -> bytes:
    """The QR code printed in a terminal (half blocks, light modules as the text's colour, on a dark
    background), drawn as a PGM image zbarimg reads."""
    rows: list[list[bool]] = []
    for line in lines:
        rows += [[ch in "█▀" for ch in line], [ch in "█▄" for ch in line]]
    width, height = len(rows[0]) * scale, len(rows) * scale
    pixels = bytearray()
    for row in rows:
        line = b"".join(bytes([255 if light else 0]) * scale for light in row)
        pixels += line * scale
    return f"P5 {width} {height} 255\n".encode() + bytes(pixels)
