"""No process outlives gradcli: the processes it starts stop with it.

gradcli starts two kinds of process: the SymPy worker (check/worker.py, a fresh
interpreter, often started before the command line is parsed) and the forked workers of
runtime/budget.py. Each is recorded here while it runs (`started`, `ended`).

On SIGTERM, SIGHUP or SIGINT the console script (`install`, from cli/entry.py) kills every
recorded process (SIGKILL), waits for it (a few ms), writes one line on stderr and exits
with 128 + the signal's number, as a shell expects (130 for Ctrl-C, 143 for SIGTERM, 129
for SIGHUP); output not yet written is dropped, and nothing else runs (no traceback, no
exit 70). The signal is acted on at once: Python runs a handler only between bytecodes, so
the handler also writes to a wakeup pipe (signal.set_wakeup_fd) that a thread waits on,
which then does the same when the main thread is inside a long call that releases the GIL.
A signal ignored when gradcli starts (nohup, a background job's SIGINT) stays ignored.

When gradcli dies without running any of this (SIGKILL, a crash), each worker dies with
it: on Linux the kernel sends it SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG);
elsewhere a thread in the worker watches its parent process id (`die_with_parent`).

GRADCLI_DEBUG_PROCESSES=FILE appends one line per event to FILE ("started PID", and the
SymPy worker's "PID importing", "PID ready", "PID working"): the signal tests read it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

# the process's own exit, taken at import: `--run` replaces os._exit while a script runs (so
# that the script's os._exit ends only the script), and a signal must still end gradcli
_EXIT = os._exit

SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
WORDS = {"SIGINT": "interrupted", "SIGTERM": "terminated (SIGTERM)", "SIGHUP": "hung up (SIGHUP)"}
DEBUG = "GRADCLI_DEBUG_PROCESSES"
REAP_WAIT = 0.5  # seconds to wait for the killed processes to be gone (they take ~1 ms)

_pids: set[int] = set()
_handled: dict[int, str] = {}  # signal number -> its name, for the signals install() handles
_stopping = None  # a lock, once install() ran: the first thread to take it exits the process


def started(pid: int) -> None:
    """Record a process gradcli started (killed with it)."""
    _pids.add(pid)
    note(f"started {pid}")


def ended(pid: int) -> None:
    """The process was reaped."""
    _pids.discard(pid)


def note(event: str) -> None:
    """One line in the GRADCLI_DEBUG_PROCESSES file (when it is set)."""
    path = os.environ.get(DEBUG)
    if not path:
        return
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{event}\n".encode())
        finally:
            os.close(fd)


def install() -> None:
    """In the console script, before anything is started: SIGINT, SIGTERM and SIGHUP stop
    every recorded process and exit 128 + n (see the module's docstring)."""
    global _stopping
    import threading

    if _stopping is not None or threading.current_thread() is not threading.main_thread():
        return
    for name in SIGNALS:
        number = getattr(signal, name, None)
        if number is None or signal.getsignal(number) == signal.SIG_IGN:
            continue
        signal.signal(number, _handler)
        _handled[int(number)] = name
    if not _handled:
        return
    _stopping = threading.Lock()
    try:
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError):
        return  # the handlers alone: they run when the main thread next runs Python code
    watcher = threading.Thread(target=_watch, args=(read_end,), name="gradcli-signals")
    watcher.daemon = True
    watcher.start()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_forked)


def _handler(signum, frame) -> None:
    _stop(signum)
    while True:  # another thread is stopping the process: it exits in a moment
        time.sleep(0.05)


def _watch(fd: int) -> None:
    while True:
        try:
            data = os.read(fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        for signum in data:
            if signum in _handled:
                _stop(signum)


def _stop(signum: int) -> None:
    """Kill every recorded process, wait for it, write one line and exit 128 + signum; the
    first caller does it (another returns at once)."""
    if _stopping is None or not _stopping.acquire(blocking=False):
        return
    kill_all()
    line = f"gradcli: error: {WORDS.get(_handled.get(signum, ''), 'stopped by a signal')}\n"
    with contextlib.suppress(OSError):
        os.write(2, line.encode())
    _EXIT(128 + signum)


def kill_all() -> None:
    """SIGKILL every recorded process and reap it (within REAP_WAIT seconds)."""
    pids = list(_pids)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + REAP_WAIT
    for pid in pids:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # reaped already (by subprocess, say)
                break
            except OSError:
                break
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.001)
        _pids.discard(pid)


def _forked() -> None:
    """In a forked child (budget.py's worker): none of the parent's handling."""
    global _stopping
    _pids.clear()
    _stopping = None
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    for number in list(_handled):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(number, signal.SIG_DFL)
    _handled.clear()


PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """In a process gradcli started: end when `parent` ends (it may have already)."""
    if sys.platform.startswith("linux") and _death_signal():
        if os.getppid() != parent:  # the parent died before the death signal was set
            _EXIT(1)
        return
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.05)
        _EXIT(1)

    watcher = threading.Thread(target=watch, name="gradcli-parent")
    watcher.daemon = True
    watcher.start()


def _death_signal() -> bool:
    """prctl(PR_SET_PDEATHSIG, SIGKILL): the kernel kills this process when its parent dies."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except Exception:  # no ctypes, no prctl: the watching thread instead
        return False
