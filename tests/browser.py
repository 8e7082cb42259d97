"""Shared helpers of the picture tests: Graphviz's dot and a headless Chromium (skipped,
with the reason, where they are missing), and a PNG decoder (stdlib zlib and struct)."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

DOT = shutil.which("dot")
CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
)
needs_dot = pytest.mark.skipif(
    DOT is None, reason="Graphviz's dot is not installed (apt install graphviz)"
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or DOT is None,
    reason="headless Chromium and Graphviz are not installed (apt install chromium graphviz)",
)
# the flags that keep Chromium off the network and quiet on a closed machine
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BROWSER_TIMEOUT = 120  # seconds; a cold start on a busy machine takes a few


@dataclass
class Page:
    """What Chromium made of a page: its DOM after loading, and the console's lines."""

    dom: str
    console: list[str]


def chromium(page: Path, tmp: Path, *flags: str) -> subprocess.CompletedProcess:
    """Run the headless Chromium on a local file with its own profile under tmp."""
    profile = tmp / "chromium-profile"
    profile.mkdir(exist_ok=True)
    args = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *flags, page.resolve().as_uri()]
    return subprocess.run(args, capture_output=True, text=True, timeout=BROWSER_TIMEOUT)


def load(page: Path, tmp: Path) -> Page:
    """The page's DOM (--dump-dom) and every console line Chromium logged while loading."""
    done = chromium(page, tmp, "--dump-dom", "--enable-logging=stderr", "--v=0")
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    return Page(done.stdout, console)


def screenshot(page: Path, tmp: Path, width: int, height: int, *flags: str) -> Path:
    """A PNG screenshot of the page in a window of width x height."""
    out = tmp / f"shot-{width}x{height}{'-'.join(('', *flags))}.png".replace("--", "")
    done = chromium(page, tmp, f"--screenshot={out}", f"--window-size={width},{height}", *flags)
    assert done.returncode == 0 and out.exists(), done.stderr[-2000:]
    return out


@dataclass
class Image:
    """A decoded 8-bit RGB(A) PNG: width, height and rows of (r, g, b) tuples."""

    width: int
    height: int
    rows: list[list[tuple[int, int, int]]]

    def pixels(self):
        """Every pixel as (r, g, b)."""
        for row in self.rows:
            yield from row


def read_png(path: Path) -> Image:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, chunks, idat = 8, {}, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IDAT":
            idat += body
        else:
            chunks[kind] = body
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[i : i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return Image(width, height, rows)


def is_red(rgb) -> bool:
    """Close to the cut edges' red (#dc2626), antialiasing allowed."""
    r, g, b = rgb
    return r > 170 and g < 90 and b < 90
