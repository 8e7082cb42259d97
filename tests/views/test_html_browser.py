"""explain --html in a real browser: a headless Chromium opens the page for a few real
cases, and the tests check that it renders (the SVG's cut edges in the DOM, no console
message) and that a screenshot has the window's size, is not blank and shows the cut's red;
in dark mode the page is dark. Skipped, with the reason, without Chromium or Graphviz."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from browser import is_red, load, needs_chromium, read_png, screenshot

ROOT = Path(__file__).resolve().parent.parent.parent
CASES = {
    "two_cuts": ([ROOT / "specs" / "two_cuts.yaml"], ["stop_gradient", "non_differentiable"]),
    "cond_untaken": ([ROOT / "specs" / "cond_untaken.yaml"], ["untaken_branch"]),
    "tf_not_watched": (
        [ROOT / "tests" / "data" / "tf_code" / "not_watched_constant.py"],
        ["not_watched"],
    ),
}
WIDTH, HEIGHT = 900, 600

pytestmark = needs_chromium


def page_of(tmp_path: Path, name: str) -> Path:
    args, _ = CASES[name]
    page = tmp_path / f"{name}.html"
    done = subprocess.run(
        [sys.executable, "-m", "gradcli", "explain", *map(str, args), "-q", "--html", str(page)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 1 and page.exists(), done.stderr
    return page


@pytest.mark.parametrize("name", list(CASES))
def test_the_page_renders_with_its_cut_edges_and_no_console_message(tmp_path, name):
    rendered = load(page_of(tmp_path, name), tmp_path)
    assert rendered.console == []
    for kind in CASES[name][1]:
        assert f'class="edge cut cut-{kind}"' in rendered.dom, kind
    assert "<svg" in rendered.dom and 'class="finding unconnected"' in rendered.dom


def test_a_screenshot_shows_the_page_and_the_red_cut(tmp_path):
    shot = read_png(screenshot(page_of(tmp_path, "two_cuts"), tmp_path, WIDTH, HEIGHT))
    assert (shot.width, shot.height) == (WIDTH, HEIGHT)
    colours: dict = {}
    red = 0
    for rgb in shot.pixels():
        colours[rgb] = colours.get(rgb, 0) + 1
        red += is_red(rgb)
    background, most = max(colours.items(), key=lambda kv: kv[1])
    assert most < 0.95 * WIDTH * HEIGHT and len(colours) > 50  # not blank: text and a picture
    assert min(background) > 200  # light mode: a light page
    assert red > 200  # the cut edges' and the status's red


def test_dark_mode_darkens_the_page(tmp_path):
    path = screenshot(page_of(tmp_path, "two_cuts"), tmp_path, WIDTH, HEIGHT, "--force-dark-mode")
    shot = read_png(path)
    colours: dict = {}
    for rgb in shot.pixels():
        colours[rgb] = colours.get(rgb, 0) + 1
    background = max(colours.items(), key=lambda kv: kv[1])[0]
    assert max(background) < 60, background
