"""The documentation pages the doc tests read: the README, docs/*.md and specs/README.md."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "specs" / "README.md"]
FENCE = re.compile(r"^(```+|~~~+)(.*)$")


def name(page: Path) -> str:
    """A page's path relative to the repository, as test ids and messages show it."""
    return page.relative_to(ROOT).as_posix()


def blocks(page: Path, lang: str) -> list[tuple[int, str, str]]:
    """(line of the opening fence, the line before the block, body) of each fenced block of
    `lang` (``` or ~~~, also indented in a list item; the body keeps its indentation)."""
    found = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i].strip())
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).strip()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        if info == lang:
            before = lines[i - 1] if i else ""
            found.append((i + 1, before, "\n".join(lines[i + 1 : j])))
        i = j + 1
    return found
