"""The commands of docs/DEPLOY.md, as the page gives them: every ``sh`` block follows a ``<!-- run: … -->`` line
that says which test runs it (``internet``, ``lan``…) or why none does (``never (…)``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "DEPLOY.md"
_BLOCK = re.compile(r"<!-- run: (?P<route>[^>]*?) -->\n```sh\n(?P<commands>.*?)```", re.DOTALL)
_ANY_BLOCK = re.compile(r"^```sh$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    route: str
    commands: str
    line: int  # where the block starts in the page, for the test's messages

    def steps(self) -> list[tuple[str, list[str]]]:
        """The block as a test runs it, in order: its shell lines run together (``("sh", [text])``), and each
        ``systemctl`` line apart (``("systemctl", [words after it])``), which the test does as systemd would."""
        found: list[tuple[str, list[str]]] = []
        shell: list[str] = []
        for line in self.commands.splitlines():
            words = line.split()
            if words[:1] != ["systemctl"]:
                shell.append(line)
                continue
            if any(part.strip() for part in shell):
                found.append(("sh", ["\n".join(shell)]))
            shell = []
            found.append(("systemctl", words[1:]))
        if any(part.strip() for part in shell):
            found.append(("sh", ["\n".join(shell)]))
        return found


def blocks(route: str | None = None, text: str | None = None) -> list[Block]:
    """The page's shell blocks in order (those of one route)."""
    text = GUIDE.read_text(encoding="utf-8") if text is None else text
    found = [Block(m["route"].strip(), m["commands"], text.count("\n", 0, m.start()) + 1)
             for m in _BLOCK.finditer(text)]
    return [block for block in found if route is None or block.route == route]


def made_club(output: str) -> tuple[str, str]:
    """The club id and token that ``nj-ledger club create`` printed (its ``id:`` and ``token:`` lines), which the
    guide's servers are then used with."""
    made = re.search(r"id:\s+(\w+)\n\s+token: (\S+)", output)
    assert made, f"no club id and token in what `nj-ledger club create` printed:\n{output}"
    return made[1], made[2]


def unmarked(text: str | None = None) -> int:
    """How many shell blocks say nothing of the test that runs them."""
    text = GUIDE.read_text(encoding="utf-8") if text is None else text
    return len(_ANY_BLOCK.findall(text)) - len(blocks(text=text))
