"""Run a function under a wall-clock budget that really stops it: in a forked worker process.

SymPy can spend minutes in one call (differentiating or printing a swollen expression),
and nothing inside one call can be interrupted from a thread. The worker is a fork of
this process, so it sees the graph and values without copying them; its result comes
back pickled through a pipe. When the budget runs out the worker is killed (SIGKILL)
and BudgetExceeded is raised; a worker that crashes (a C stack overflow in deep SymPy
recursion, say) raises WorkerFailed. The worker also arms its own alarm, so it dies
even if this process is killed first, and its standard streams are /dev/null, so nothing
it (or a fatal error in it) prints reaches the command's output.

Where fork is unavailable (Windows) the function runs in this process; it must then
check the deadline it is given between steps (symbolic.Context.tick does).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import time


class BudgetExceeded(Exception):
    """The work did not finish within its budget."""


class WorkerFailed(Exception):
    """The work raised an exception (message kept) or the worker died."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind  # "error", "recursion" or "crash"


def forking() -> bool:
    """True where work runs in a forked worker."""
    return hasattr(os, "fork") and hasattr(signal, "setitimer")


def run(fn, seconds: float, *, recursion_limit: int | None = None):
    """fn() computed within `seconds` of wall-clock time, or BudgetExceeded / WorkerFailed."""
    if not forking():
        return _call(fn)
    from gradcli.runtime import children

    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the worker: never returns
        try:
            os.close(read_end)
            children.die_with_parent(parent)
            _worker(fn, write_end, seconds, recursion_limit)
        finally:
            os._exit(1)
    children.started(pid)
    os.close(write_end)
    finished = False
    try:
        data = collect(read_end, time.monotonic() + seconds)
        finished = True  # end of file: the worker has closed its end by exiting
    finally:
        os.close(read_end)
        _reap(pid, kill=not finished)
    return outcome(data)


def outcome(data: bytes):
    """The result a worker wrote (its own pickled bytes), or the exception it reported."""
    if not data:
        raise WorkerFailed("the SymPy worker process died", "crash")
    status, payload = pickle.loads(data)  # our own worker's bytes, through our own pipe
    if status == "ok":
        return payload
    raise WorkerFailed(payload[1], payload[0])


def _call(fn):
    try:
        return fn()
    except RecursionError:
        raise WorkerFailed("maximum recursion depth exceeded", "recursion") from None
    except Exception as exc:
        raise WorkerFailed(f"{type(exc).__name__}: {exc}") from None


def _worker(fn, fd: int, seconds: float, recursion_limit: int | None) -> None:
    _quiet_stdio()  # nothing the worker or a crash in it prints reaches the command's streams
    serve(fn, fd, seconds, recursion_limit)


def _quiet_stdio() -> None:
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for target in (0, 1, 2):
        with contextlib.suppress(OSError):
            os.dup2(devnull, target)
    if devnull > 2:
        os.close(devnull)


def serve(fn, fd: int, seconds: float, recursion_limit: int | None) -> None:
    """In a worker process: run fn under an alarm of `seconds` (+1), write its pickled outcome
    to fd, and exit without running atexit handlers or flushing inherited buffers."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # default action: terminate
        signal.setitimer(signal.ITIMER_REAL, seconds + 1.0)
        if recursion_limit:
            import sys

            sys.setrecursionlimit(max(sys.getrecursionlimit(), recursion_limit))
        try:
            payload = ("ok", fn())
        except RecursionError:
            payload = ("error", ("recursion", "maximum recursion depth exceeded"))
        except BaseException as exc:
            payload = ("error", ("error", f"{type(exc).__name__}: {exc}"))
        data = memoryview(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
        while data:
            data = data[os.write(fd, data) :]
        status = 0
    finally:
        os._exit(status)  # skip atexit handlers and the parent's buffered output


def collect(fd: int, deadline: float) -> bytes:
    chunks = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BudgetExceeded
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            raise BudgetExceeded
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _reap(pid: int, kill: bool) -> None:
    from gradcli.runtime import children

    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # reaped by children.kill_all already
        os.waitpid(pid, 0)
    children.ended(pid)
