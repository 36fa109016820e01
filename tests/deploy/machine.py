"""A server of the test's own, on this machine: the deploy guide's commands run in it as root, as written.

A mount namespace whose ``/etc``, ``/opt``, ``/usr`` and ``/var/lib`` are overlays over this machine's:
the guide installs, adds a user, writes its settings and units there, and all of it vanishes with the
namespace, this machine untouched. The network is this machine's, so the browser and the test reach the
services on loopback ports.

No systemd runs here: where the guide says ``systemctl enable --now`` or ``systemctl restart``, the test starts
what the unit says, as systemd would: its ``ExecStart`` as its ``User``, in its ``WorkingDirectory``, with the
environment of its ``Environment`` and ``EnvironmentFile`` lines (drop-ins included), variables expanded; and
``systemd-analyze verify`` checks every unit the guide installed.
"""

from __future__ import annotations

import fcntl
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
OVERLAID = ("/etc", "/opt", "/usr", "/var/lib")
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # a root shell's, and systemd's
UNIT_FOLDERS = ("/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system")
STOP_WITHIN = 20.0
APT_TURN = Path("/tmp/nj-ledger-deploy-apt.lock")  # held by the machine whose apt-get runs (the cache is shared)


class MachineError(AssertionError):
    """A command of the guide failed: its output says why."""


def can_make_machines() -> str | None:
    """Why a machine cannot be made here (None: it can). Root is needed to mount overlays and add users."""
    if os.geteuid() != 0:
        return "the deploy guide's test makes a machine of its own with mount namespaces: it runs as root"
    for program in ("unshare", "nsenter", "setpriv", "systemd-analyze"):
        if subprocess.run(["which", program], capture_output=True, check=False).returncode != 0:
            return f"{program} is missing"
    return None


def source_tree(folder: Path) -> Path:
    """The files a clone of this repository holds (changes not committed included), with the Pyodide runtime
    ``make install`` fetched: where the guide's commands run, as from a clone."""
    source = folder / "source"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for name in listed:
        origin, target = ROOT / name, source / name
        if origin.is_symlink() or origin.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_symlink():
                target.symlink_to(origin.readlink())
            else:
                shutil.copy2(origin, target)
    vendored = Path("api") / "static" / "vendor" / "pyodide"
    shutil.copytree(ROOT / vendored, source / vendored, dirs_exist_ok=True)
    return source


@dataclass
class Service:
    unit: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_WITHIN)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


class Machine:
    """The namespace, held open by a process that sleeps in it; commands enter it with nsenter."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        mounts = []
        for path in OVERLAID:
            layer = folder / "layers" / path.strip("/").replace("/", "-")
            (layer / "upper").mkdir(parents=True)
            (layer / "work").mkdir()
            mounts.append(f"mount -t overlay overlay -o lowerdir={path},upperdir={layer}/upper,workdir={layer}/work "
                          f"{path}")
        script = " && ".join(mounts) + " && echo ready && exec sleep infinity"
        self.holder = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        assert self.holder.stdout is not None
        ready = self.holder.stdout.readline()
        if ready.strip() != b"ready":
            self.holder.kill()
            raise MachineError(f"no machine: {self.holder.communicate()[1].decode(errors='replace')}")
        self.services: list[Service] = []

    def _enter(self) -> list[str]:
        return ["nsenter", f"--target={self.holder.pid}", "--mount", "--"]

    def run(self, commands: str, cwd: Path | str = "/", timeout: float = 600, check: bool = True) -> str:
        """Run shell ``commands`` as root in the machine (a root login's PATH), stopping at the first failure."""
        # Two machines (two test workers) share the host's apt cache: their apt-get runs take turns, or the second
        # finds /var/cache/apt/archives/lock held and fails.
        with open(APT_TURN, "a") as turn:
            if "apt-get" in commands:
                fcntl.flock(turn, fcntl.LOCK_EX)
            done = subprocess.run(
                [*self._enter(), "bash", "-c", f"set -euo pipefail\ncd {shlex.quote(str(cwd))}\n{commands}"],
                capture_output=True, text=True, timeout=timeout, check=False,
                env={"PATH": ROOT_PATH, "HOME": "/root", "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"})
        if check and done.returncode != 0:
            raise MachineError(f"{commands}\nexit {done.returncode}\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def read(self, path: str) -> str:
        return self.run(f"cat {shlex.quote(path)}")

    def unit_text(self, unit: str) -> str:
        """The unit file and its drop-ins, as systemd reads them (drop-ins after the unit)."""
        found = self.run(" ; ".join(f"test -f {folder}/{unit} && cat {folder}/{unit} && exit 0" for folder in
                                    UNIT_FOLDERS) + " ; exit 1")
        drop_ins = self.run(f"ls /etc/systemd/system/{unit}.d/*.conf 2>/dev/null || true").split()
        return "\n".join([found, *(self.read(path) for path in sorted(drop_ins))])

    def verify(self, unit_path: str) -> None:
        """``systemd-analyze verify``: the unit's syntax, and that the programs it starts are there."""
        self.run(f"systemd-analyze verify {shlex.quote(unit_path)}")

    def start(self, unit: str, overrides: dict[str, str] | None = None) -> Service:
        """Start ``unit`` as systemd would (see the module's text); ``overrides`` are appended to its environment."""
        settings = unit_settings(self.unit_text(unit))
        environment: dict[str, str] = {"PATH": ROOT_PATH, "LANG": "C.UTF-8"}
        for line in settings.get("Environment", []):
            environment.update(_assignments(line))
        for path in settings.get("EnvironmentFile", []):
            missing_is_fine = " 2>/dev/null || true" if path.startswith("-") else ""
            environment.update(environment_file(self.run(f"cat {shlex.quote(path.lstrip('-'))}{missing_is_fine}")))
        environment.update(overrides or {})
        user = (settings.get("User") or ["root"])[-1]
        group = (settings.get("Group") or [user])[-1]
        home = self.run(f"getent passwd {shlex.quote(user)} | cut -d: -f6").strip()
        environment.update({"USER": user, "LOGNAME": user, "HOME": home})
        command = [_expand(part, environment) for part in shlex.split(settings["ExecStart"][-1])]
        folder = (settings.get("WorkingDirectory") or [home])[-1]
        log = self.folder / f"{unit}.log"
        written: IO[bytes] = log.open("wb")
        process = subprocess.Popen(
            [*self._enter(), "setpriv", f"--reuid={user}", f"--regid={group}", "--init-groups", "--",
             "env", "-i", *(f"{k}={v}" for k, v in environment.items()), "bash", "-c",
             f"cd {shlex.quote(folder)} && exec {shlex.join(command)}"],
            stdout=written, stderr=subprocess.STDOUT, start_new_session=True)
        written.close()
        service = Service(unit, process, log)
        self.services.append(service)
        return service

    def close(self) -> None:
        for service in reversed(self.services):
            service.stop()
        self.holder.kill()
        self.holder.wait()


def unit_settings(text: str) -> dict[str, list[str]]:
    """The ``[Service]`` lines of a unit (and its drop-ins), each key with every value it was given in order.

    >>> unit_settings("[Unit]\\nUser=no\\n[Service]\\nUser=a\\nExecStart=/bin/x ${A}\\nUser=b")["User"]
    ['a', 'b']
    """
    settings: dict[str, list[str]] = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]" and "=" in line:
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def environment_file(text: str) -> dict[str, str]:
    """An ``EnvironmentFile``'s assignments as systemd reads them (comments, blank lines, quoted values)."""
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found[key.strip()] = value
    return found


def _assignments(line: str) -> Iterator[tuple[str, str]]:
    for word in shlex.split(line):
        if "=" in word:
            key, value = word.split("=", 1)
            yield key, value


def _expand(word: str, environment: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: environment.get(m[1] or m[2], ""), word)


def wait_for(check: object, within: float, what: str, service: Service | None = None) -> None:
    """Wait until ``check()`` is true (exceptions count as not yet)."""
    deadline = time.monotonic() + within
    while True:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:  # noqa: BLE001 - not yet
            pass
        if service is not None and service.process.poll() is not None:
            raise MachineError(f"{service.unit} stopped while waiting for {what}:\n{service.output()}")
        if time.monotonic() > deadline:
            raise MachineError(f"{what}: not within {within} s" + (f"\n{service.output()}" if service else ""))
        time.sleep(0.2)
