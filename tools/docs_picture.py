"""Regenerate docs/img/explain-html.png, the picture the docs show of `explain --html`:
the page of specs/two_cuts.yaml as a headless Chromium draws it.

    python tools/docs_picture.py

Needs Graphviz's dot and Chromium (apt install graphviz chromium).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PICTURE = ROOT / "docs" / "img" / "explain-html.png"
SPEC = "specs/two_cuts.yaml"
WINDOW = "1000,560"


def main() -> int:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None or shutil.which("dot") is None:
        print("needs dot and chromium: apt install graphviz chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run([sys.executable, "-m", "gradcli", "explain", SPEC, "-q", "--html",
                        str(page)], cwd=ROOT, check=False, timeout=120)  # fmt: skip
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                 f"--user-data-dir={tmp}/profile", f"--window-size={WINDOW}",
                 f"--screenshot={PICTURE}"]  # fmt: skip
        subprocess.run([browser, *flags, page.as_uri()], check=True, capture_output=True,
                       timeout=120)  # fmt: skip
    print(f"wrote {PICTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
