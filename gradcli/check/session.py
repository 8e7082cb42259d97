"""The cross-check's SymPy work for one command: the cache first, else a worker.

`begin` runs before the spec is read. Unless the spec's text was seen before (a hint
file in the cache, by the text's hash), it starts a SymPy worker at once (worker.py), so
that SymPy's import overlaps the reading and the evaluation; the console script starts
it sooner still, before click is imported (`start_ahead`, cli/entry.py), and `begin`
adopts that worker when it was started for the same arguments. `Session.gradients` then
looks the derivatives up (structure key and translation fingerprint); a hit evaluates
them with numpy (program.py) and never imports SymPy; a miss runs SymPy in the worker
(or, without one, in a worker forked after importing SymPy here, as before the cache)
and writes the entry. This module imports nothing heavy: `begin` costs a hash and a stat.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys

from gradcli import __version__
from gradcli.check.cache import FORMAT, MAX_SPEC_HINT_BYTES, Cache, directory

LAST: Session | None = None  # the last session begun (tests and benchmarks read its outcome)


class Session:
    """The cache (None with --no-cache) and the worker started ahead (None: none started)."""

    def __init__(self, cache: Cache | None, worker, hint: str | None):
        self.cache = cache
        self.worker = worker
        self.hint = hint
        self.outcome: str | None = None  # "hit", "miss", "uncached" (for tests and benchmarks)
        self.replayed = False  # SymPy's work came from a replayed translation (replay.py)

    def close(self) -> None:
        """Stop the worker if it was not needed (or is still running)."""
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def take_worker(self):
        worker, self.worker = self.worker, None
        return worker


def begin(spec_path: str | None, expr: str | None, use_cache: bool) -> Session:
    """A session for a command that may check with SymPy; starts the worker unless the spec
    was seen before (or adopts the one start_ahead started for the same arguments)."""
    cache, hint, wanted = _plan(spec_path, expr, use_cache)
    ahead = _take_ahead((spec_path, expr, use_cache))
    worker = None
    if wanted:
        worker = ahead if ahead is not None else _start()
    elif ahead is not None:
        ahead.close()
    global LAST
    LAST = Session(cache, worker, hint)
    return LAST


def start_ahead(spec_path: str | None, expr: str | None, use_cache: bool) -> None:
    """Start now the worker that begin() will want for the same arguments: the console
    script calls this before click is imported (cli/entry.py)."""
    global _AHEAD
    drop_ahead()
    if _plan(spec_path, expr, use_cache)[2]:
        worker = _start()
        if worker is not None:
            _AHEAD = ((spec_path, expr, use_cache), worker)


def drop_ahead() -> None:
    """Stop a worker started ahead that no command adopted."""
    _take_ahead(None)  # None matches no arguments: the worker is stopped


_AHEAD: tuple | None = None  # ((spec_path, expr, use_cache), worker) from start_ahead


def _take_ahead(key):
    """The worker started ahead for `key` (None if none); one started for other arguments
    (the console script's reading of argv differed from click's) is stopped."""
    global _AHEAD
    if _AHEAD is None:
        return None
    (started_for, worker), _AHEAD = _AHEAD, None
    if started_for == key:
        return worker
    worker.close()
    return None


def _plan(spec_path, expr, use_cache) -> tuple[Cache | None, str | None, bool]:
    """The cache, the spec's hint, and whether a worker should start: unless the spec was
    seen before, or SymPy is imported here already (then forking this process costs less)."""
    cache = Cache(directory()) if use_cache else None
    hint = _hint(spec_path, expr) if cache is not None else None
    seen = hint is not None and cache.hinted(hint)
    return cache, hint, not seen and "sympy" not in sys.modules


def _start():
    from gradcli.check.worker import Worker

    return Worker.start()


def _hint(spec_path: str | None, expr: str | None) -> str | None:
    """The hash of the spec's text (or -e expression), or None when it cannot be had cheaply."""
    h = hashlib.sha256(f"gradcli {__version__} cache {FORMAT}\n".encode())
    if expr is not None:
        h.update(b"expr\n" + expr.encode("utf-8", "surrogatepass"))
        return h.hexdigest()
    if not spec_path or spec_path == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(spec_path).st_mode):
            return None  # a pipe (`eval <(...)`) must keep its bytes for the spec reader
        with open(spec_path, "rb") as f:
            data = f.read(MAX_SPEC_HINT_BYTES + 1)
    except (OSError, ValueError):  # ValueError: a path with a NUL character (library use)
        return None
    if len(data) > MAX_SPEC_HINT_BYTES:
        return None
    h.update(b"spec\n" + data)
    return h.hexdigest()
