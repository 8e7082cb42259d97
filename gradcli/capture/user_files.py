"""Which source files are the user's: the script and its own modules, never the framework,
gradcli or the standard library. An operation's line is the innermost frame in them."""

from __future__ import annotations

import os
import sysconfig

MAX_STACK = 8  # user frames kept per operation
# a script's own TorchFunctionMode/TorchDispatchMode: its handler is not where ops are
MODE_HOOKS = frozenset(("__torch_function__", "__torch_dispatch__"))


def roots(packages) -> tuple[str, ...]:
    """The folders of these packages (and gradcli's, the standard library's), as prefixes."""
    import gradcli

    found = {os.path.dirname(gradcli.__file__)}
    found |= {os.path.dirname(p.__file__) for p in packages if getattr(p, "__file__", None)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            found.add(path)
    return tuple(os.path.realpath(r) + os.sep for r in found)


class FrameStack(tuple):
    """((file, line, function), ...) of an operation's user frames, innermost first, with
    `spans`: per frame, the source span (line, end line, column, end column; UTF-8 byte
    columns as in `ast`) of the instruction it was running, or None where Python has none."""

    spans: tuple = ()


class UserFiles:
    """The user's files, cached by name; `skipped` are generated files' name prefixes
    (autograph's converted code) that are never the user's either."""

    def __init__(self, script: str, packages=(), skipped: tuple[str, ...] = ()):
        self.script = script
        self.roots = roots(packages)
        self.skipped = skipped
        self.cache: dict[str, bool] = {script: True}
        self.codes: dict = {}  # code object -> whether its frames are the user's
        self.positions: dict = {}  # code object -> its instructions' source spans
        self.top = None  # the script's module code: no frame outside it is the user's

    def __call__(self, filename: str) -> bool:
        known = self.cache.get(filename)
        if known is None:
            known = (
                not filename.startswith("<")
                and not (self.skipped and os.path.basename(filename).startswith(self.skipped))
                and not os.path.realpath(filename).startswith(self.roots)
            )
            self.cache[filename] = known
        return known

    def _mine(self, code) -> bool:
        return self(code.co_filename) and code.co_name not in MODE_HOOKS

    def where(self, frame) -> tuple[str | None, int | None]:
        """(file, line) of the innermost user frame at or outside `frame`."""
        frame = self.frame(frame)
        return (frame.f_code.co_filename, frame.f_lineno) if frame else (None, None)

    def stack(self, frame) -> FrameStack:
        """((file, line, function), ...) of the user frames at or outside `frame`, innermost
        first (at most MAX_STACK): an operation's line and the lines that called it, with
        the column span of each frame's instruction (which side of `x if c else y` ran)."""
        out, spans = [], []
        codes, top, positions = self.codes, self.top, self.positions
        while frame is not None and len(out) < MAX_STACK:
            code = frame.f_code
            mine = codes.get(code)
            if mine is None:
                mine = codes[code] = self._mine(code)
            if mine:
                out.append((code.co_filename, frame.f_lineno, code.co_name))
                known = positions.get(code)
                if known is None:
                    listed = getattr(code, "co_positions", None)  # Python 3.11 on
                    known = positions[code] = tuple(listed()) if listed else ()
                at = frame.f_lasti // 2  # a code unit is 2 bytes; co_positions has one each
                span = known[at] if 0 <= at < len(known) else None
                spans.append(span if span is not None and None not in span else None)
            if code is top:
                break
            frame = frame.f_back
        found = FrameStack(out)
        found.spans = tuple(spans)
        return found

    def summary(self, frames) -> tuple:
        """The same from a traceback's frame summaries (outermost first), as TensorFlow
        keeps them for graph ops."""
        out = []
        for f in reversed(list(frames)):
            if self(f.filename) and f.name not in MODE_HOOKS:
                out.append((f.filename, f.lineno, f.name))
                if len(out) >= MAX_STACK:
                    break
        return tuple(out)

    def frame(self, frame):
        """The innermost user frame at or outside `frame`."""
        while frame is not None and not self._mine(frame.f_code):
            frame = frame.f_back
        return frame
