"""Every relative link between the README, docs/*.md and specs/README.md leads somewhere: the
file exists and the #anchor is a heading of it (GitHub's anchor rules) or an explicit id."""

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from docs_pages import FENCE, PAGES, name
from helpers import ROOT

HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
HTML_ID = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def prose(text: str) -> list[str]:
    """The page's lines outside fenced code blocks (a closed fence's lines become empty)."""
    lines, fence = [], None
    for line in text.splitlines():
        m = FENCE.match(line.strip())
        if fence is None and m:
            fence = m.group(1)
            lines.append("")
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            lines.append("")
        else:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered (code spans keep their content,
    links their text), lowercased, without punctuation but `-` and `_`, spaces as `-`."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = INLINE_LINK.sub(lambda m: m.group(1), text)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors a page defines: its headings' slugs (repeats get -1, -2, ...) and ids."""
    found, seen = set(), {}
    text = page.read_text()
    for line in prose(text):
        m = HEADING.match(line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    found.update(HTML_ID.findall(text))
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of each inline link in the page's prose, code spans left out."""
    found = []
    for number, line in enumerate(prose(page.read_text()), start=1):
        for m in INLINE_LINK.finditer(CODE_SPAN.sub("", line)):
            found.append((number, m.group(2)))
    return found


def test_slugs_follow_githubs_rules():
    assert slug("`gradcli graph`, `gradcli jacobian`, `gradcli hessian`") == (
        "gradcli-graph-gradcli-jacobian-gradcli-hessian"
    )
    assert slug("Saving the results: `--save FILE`") == "saving-the-results---save-file"
    assert slug("TensorFlow code: `gradcli eval|explain FILE.py`") == (
        "tensorflow-code-gradcli-evalexplain-filepy"
    )
    assert slug("The cache of SymPy's derivatives") == "the-cache-of-sympys-derivatives"
    assert slug("`no_path`") == "no_path"
    assert slug("NaN and Inf: `non_finite`") == "nan-and-inf-non_finite"


def test_a_repeated_heading_gets_a_number(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# A\n\n## Notes\n\n```sh\n# not a heading\n```\n\n## Notes\n")
    assert anchors(page) == {"a", "notes", "notes-1"}


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_relative_link_and_anchor_resolves(page):
    wrong = []
    for line, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / unquote(path)).resolve() if path else page
        if not dest.exists():
            wrong.append(f"{name(page)}:{line}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            wrong.append(f"{name(page)}:{line}: {target}: no heading #{anchor}")
        elif anchor and dest.suffix != ".md":
            wrong.append(f"{name(page)}:{line}: {target}: an anchor into a file that is not a page")
    assert not wrong, "\n".join(wrong)


def test_every_page_is_linked_from_the_index_and_links_back():
    index = ROOT / "docs" / "README.md"
    linked = {(index.parent / t.partition("#")[0]).resolve() for _, t in links(index)}
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page != index:
            assert page.resolve() in linked, f"docs/README.md does not link {name(page)}"
            assert links(page), f"{name(page)} links nowhere"
    readme = {(ROOT / t.partition("#")[0]).resolve() for _, t in links(ROOT / "README.md")}
    assert index.resolve() in readme


def test_every_cause_kind_is_documented():
    """Each `causes[].kind` scripts can match on has its place in the docs."""
    from gradcli.explain.report import CauseKind

    text = (ROOT / "docs" / "explain.md").read_text() + (ROOT / "docs" / "pytorch.md").read_text()
    missing = [k.value for k in CauseKind if f"`{k.value}`" not in text]
    assert not missing, missing
