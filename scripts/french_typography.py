"""French typography for the French catalog: run it after adding French, as often as wanted (it is idempotent).

    .venv/bin/python scripts/french_typography.py            # fixes api/translations/fr/LC_MESSAGES/messages.po
    .venv/bin/python scripts/french_typography.py --check    # lists what it would fix; exit status 1 if anything

In every ``msgstr`` (the header and the ``msgid`` lines are left as they are):

- a no-break space (U+00A0) before ``:``, and before ``;``, ``!`` and ``?`` unless a narrow no-break space (U+202F)
  is already there: the ASCII space before them becomes a no-break space, and one is put in where none was;
- « guillemets » with no-break spaces inside, instead of “curly quotes”;
- one apostrophe, the straight one (the pages' scripts elide "de Ana" into "d'Ana" with it).

What is code rather than French is left alone: ``{placeholders}`` (and the JSON written inside braces), ``%(name)s``,
text between straight double quotes (JSON keys, NJN syntax such as ``"0: 5H 6H"``) or backquotes (commands),
an HTTP header and its value (``Content-Type: application/json``), addresses (``https://…``),
times (``12:30``) and anything else where the mark is not followed by a space or the end of the sentence
(``seat:0``, ``?next=``, ``{value!r}``).

Only the entries it changes are written again (wrapped like ``make translations`` wraps them); every other line of
the file stays byte for byte, so entries added at the same time by others are kept. The fixing function,
:func:`fix`, is also what tests/pages/test_french_scan.py checks every French sentence against.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from babel.messages.pofile import normalize, unescape

CATALOG = Path(__file__).resolve().parent.parent / "api" / "translations" / "fr" / "LC_MESSAGES" / "messages.po"
NBSP = "\u00a0"
NNBSP = "\u202f"
WIDTH = 110  # as api/catalog.py writes the catalog

# Spans that are code, not French: placeholders (and JSON in braces), %-formats, straight-quoted text, addresses.
PROTECTED = re.compile(r"""\{[^{}]*\}|%\([a-z_]+\)[sd]|"[^"\n]*"|`[^`\n]*`|\b[a-z]+://\S+|"""
                       r"""\b(?:Authorization|[A-Z][a-z]+(?:-[A-Z][a-z]+)+): [\w.+/<>-]+""")
# A high mark ending a clause: followed by a space, a closing mark, or the end.
HIGH = re.compile(r"(?P<before>[ \u00a0\u202f]?)(?P<mark>[:;!?])(?=$|[\s»)\]…\"'.,])")
OPEN_QUOTE = re.compile(r"«[ \u00a0\u202f]?")
CLOSE_QUOTE = re.compile(r"[ \u00a0\u202f]?»")
CURLY = re.compile(r"“\s*([^“”]*?)\s*”")
MASK = 0xE000  # code spans are masked with private-use characters while the French is fixed


def _fix_plain(text: str) -> str:
    """French typography in ``text``, whose code spans are masked (each is one private-use character)."""
    text = text.replace("’", "'")
    text = CURLY.sub(lambda m: f"«{NBSP}{m.group(1)}{NBSP}»", text)
    text = OPEN_QUOTE.sub("«" + NBSP, text)
    text = CLOSE_QUOTE.sub(NBSP + "»", text)

    def high(m: re.Match[str]) -> str:
        before, mark = m.group("before"), m.group("mark")
        if m.start() == 0 and not before:
            return m.group(0)  # nothing before the mark: nothing to space it from
        if before == NNBSP and mark != ":":
            return m.group(0)  # a narrow no-break space before ; ! ? is right too
        return NBSP + mark

    return HIGH.sub(high, text)


def fix(text: str) -> str:
    """``text`` (a French sentence of the catalog) with French typography; code spans untouched. Idempotent."""
    spans: list[str] = []

    def mask(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return chr(MASK + len(spans) - 1)

    fixed = _fix_plain(PROTECTED.sub(mask, text))
    return re.sub(f"[{chr(MASK)}-{chr(MASK + 0x1000)}]", lambda m: spans[ord(m.group(0)) - MASK], fixed)


# --- the catalog, line by line ----------------------------------------------------------------------------------
STRING_LINE = re.compile(r'^"(.*)"\s*$')
MSGSTR = re.compile(r'^(msgstr(?:\[\d+\])?) "(.*)"\s*$')


def _decode(parts: list[str]) -> str:
    return "".join(unescape(f'"{part}"') for part in parts)


def fix_catalog(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The catalog's text with every ``msgstr`` fixed, and the (before, after) of each string changed."""
    lines = text.split("\n")
    out: list[str] = []
    changed: list[tuple[str, str]] = []
    msgid_parts: list[str] = []
    in_msgid = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("msgid "):
            in_msgid = True
            msgid_parts = [line[len('msgid "'):-1]]
            out.append(line)
            i += 1
            continue
        match = MSGSTR.match(line)
        if not match:
            if in_msgid and STRING_LINE.match(line):
                msgid_parts.append(STRING_LINE.match(line).group(1))  # type: ignore[union-attr]
            elif not line.startswith("msgid_plural"):
                in_msgid = False
            out.append(line)
            i += 1
            continue
        in_msgid = False
        keyword, first = match.group(1), match.group(2)
        parts = [first]
        block = [line]
        i += 1
        while i < len(lines) and STRING_LINE.match(lines[i]):
            parts.append(STRING_LINE.match(lines[i]).group(1))  # type: ignore[union-attr]
            block.append(lines[i])
            i += 1
        if _decode(msgid_parts) == "":  # the header
            out.extend(block)
            continue
        before = _decode(parts)
        after = fix(before)
        if after == before:
            out.extend(block)
            continue
        changed.append((before, after))
        out.append(f"{keyword} {normalize(after, width=WIDTH)}")
    return "\n".join(out), changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("catalog", nargs="?", type=Path, default=CATALOG)
    parser.add_argument("--check", action="store_true", help="list what would change; change nothing")
    args = parser.parse_args(argv)
    text = args.catalog.read_text(encoding="utf-8")
    fixed, changed = fix_catalog(text)
    for before, after in changed:
        print(f"- {before!r}\n+ {after!r}")
    if args.check:
        return 1 if changed else 0
    if changed:
        args.catalog.write_text(fixed, encoding="utf-8")
    print(f"{len(changed)} French strings fixed in {args.catalog}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
