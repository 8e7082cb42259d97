"""eval --points' output: one compact JSON line per point, and a progress bar on stderr."""

from __future__ import annotations

import sys
import time

import numpy as np

from gradcli.views.format import console, dumps_line, json_numbers, jsonable


def _texts(column, n: int) -> list[str]:
    """One JSON text per point for a column of values (or None: unconnected)."""
    if column is None:
        return ["null"] * n
    if column.dtype == np.float64 and column.ndim == 1:
        return json_numbers(np.ascontiguousarray(column))
    return [dumps_line(jsonable(v)) for v in column]


def write_chunk(out, outputs: dict, gradients: dict, n: int) -> None:
    """n JSON lines {"outputs": {...}, "gradients": {...}} from columns of n values."""
    sections = []
    parts = []
    for values in (outputs, gradients):
        fields = []
        for name, column in values.items():
            fields.append(dumps_line(name).replace("%", "%%") + ":%s")
            parts.append(_texts(column, n))
        sections.append(",".join(fields))
    # one %-template per line: C-level formatting, several times faster than joining pieces
    template = '{"outputs":{' + sections[0] + '},"gradients":{' + sections[1] + "}}\n"
    out.write("".join([template % row for row in zip(*parts)]))


class Progress:
    """A Rich progress bar on stderr, shown only on a terminal and once a run passes 1 s."""

    def __init__(self, total: int | None):
        self.total = total
        self.enabled = sys.stderr.isatty()
        self.start = time.monotonic()
        self.bar = None
        self.task = None

    def update(self, done_chars: int, points: int) -> None:
        """Show how far the reader has got (in characters) and how many points are done."""
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 1.0:
                return
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(console=console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("points", total=self.total)
        self.bar.update(self.task, completed=done_chars, description=f"{points:,} points")

    def close(self) -> None:
        """Remove the bar, if it was shown."""
        if self.bar is not None:
            self.bar.stop()
