"""The cross-check's SymPy work for one command: the cache first, else a worker.

`begin` runs before the spec is read. Unless the spec's text was seen before (a hint
file in the cache, by the text's hash), it starts a SymPy worker at once (worker.py), so
that SymPy's import overlaps the reading and the evaluation. `Session.gradients` then
looks the derivatives up (structure key and translation fingerprint); a hit evaluates
them with numpy (program.py) and never imports SymPy; a miss runs SymPy in the worker
(or, without one, in a worker forked after importing SymPy here, as before the cache)
and writes the entry. This module imports nothing heavy: `begin` costs a hash and a stat.
"""

from __future__ import annotations

import hashlib
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
    was seen before."""
    cache = Cache(directory()) if use_cache else None
    hint = _hint(spec_path, expr) if cache is not None else None
    seen = hint is not None and cache.hinted(hint)
    worker = None
    if not seen and "sympy" not in sys.modules:  # else forking this process costs less
        from gradcli.check.worker import Worker

        worker = Worker.start()
    global LAST
    LAST = Session(cache, worker, hint)
    return LAST


def _hint(spec_path: str | None, expr: str | None) -> str | None:
    """The hash of the spec's text (or -e expression), or None when it cannot be had cheaply."""
    h = hashlib.sha256(f"gradcli {__version__} cache {FORMAT}\n".encode())
    if expr is not None:
        h.update(b"expr\n" + expr.encode("utf-8", "surrogatepass"))
        return h.hexdigest()
    if not spec_path or spec_path == "-":
        return None
    try:
        with open(spec_path, "rb") as f:
            data = f.read(MAX_SPEC_HINT_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_SPEC_HINT_BYTES:
        return None
    h.update(b"spec\n" + data)
    return h.hexdigest()
