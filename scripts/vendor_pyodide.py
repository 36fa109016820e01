"""Bring the Pyodide runtime the scorer page runs the core in to ``api/static/vendor/pyodide/`` (``make install``).

Pyodide is not kept in the repository (14 MB, a 9.6 MB WebAssembly file among them, changed with each
release): it is fetched once per checkout from the npm registry, the version pinned below, and the tarball's
SHA-512 checked against the pinned integrity (npm's ``dist.integrity``) before anything is unpacked. Only the
files the page loads are kept, next to the licence (MPL-2.0, kept in the repository). ``npm pack`` fetches it
when npm is installed, else the tarball is read from the registry's address directly; either way the bytes
must match the integrity. A checkout that already has this version does nothing.

    python scripts/vendor_pyodide.py          # fetch, check, unpack (or nothing to do)
    python scripts/vendor_pyodide.py --check  # exit 1 when the runtime is missing or not this version
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

VERSION = "314.0.7"
INTEGRITY = "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A=="
TARBALL = f"https://registry.npmjs.org/pyodide/-/pyodide-{VERSION}.tgz"
# What the page loads: the loader, the runtime (its JavaScript and WebAssembly), the standard library, and the
# lock file `loadPyodide` reads at start (no package of it is loaded: the core needs the standard library only).
FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
TARGET = Path(__file__).resolve().parent.parent / "api" / "static" / "vendor" / "pyodide"
STAMP = TARGET / "VERSION"


def present() -> bool:
    return (STAMP.is_file() and STAMP.read_text().strip() == f"{VERSION} {INTEGRITY}"
            and all((TARGET / name).is_file() for name in FILES))


def fetch(folder: Path) -> Path:
    npm = shutil.which("npm")
    if npm:
        subprocess.run([npm, "pack", f"pyodide@{VERSION}", "--silent", "--pack-destination", str(folder)],
                       check=True, stdout=subprocess.DEVNULL)
        return folder / f"pyodide-{VERSION}.tgz"
    tarball = folder / f"pyodide-{VERSION}.tgz"
    with urllib.request.urlopen(TARBALL, timeout=120) as answer, tarball.open("wb") as out:
        shutil.copyfileobj(answer, out)
    return tarball


def checked(tarball: Path) -> None:
    algorithm, _, expected = INTEGRITY.partition("-")
    digest = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
    if digest != expected:
        raise SystemExit(f"pyodide-{VERSION}.tgz does not match its pinned integrity ({INTEGRITY}): not unpacked")


def unpack(tarball: Path) -> None:
    TARGET.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball, "r:gz") as archive:
        for name in FILES:
            member = archive.getmember(f"package/{name}")
            source = archive.extractfile(member)
            assert source is not None
            (TARGET / name).write_bytes(source.read())
    STAMP.write_text(f"{VERSION} {INTEGRITY}\n")


def main(argv: list[str]) -> int:
    if "--check" in argv:
        return 0 if present() else 1
    if present():
        return 0
    with tempfile.TemporaryDirectory() as folder:
        tarball = fetch(Path(folder))
        checked(tarball)
        unpack(tarball)
    print(f"Pyodide {VERSION} unpacked in {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
