"""A SymPy worker process started before it is needed, so that SymPy's import overlaps
the command's own reading and evaluation.

The worker is a fresh interpreter (`python -I -c BOOTSTRAP`, this process's sys.path
passed in GRADCLI_WORKER_PATH, one thread for BLAS; the site module stays: an editable
install finds gradcli through a .pth file's import hook): it imports SymPy (with the
cyclic collector paused), then waits for one job on its standard input (a replay of the
translation, replay.py, or a whole job).
Its standard input and output are pipes of this process's own (descriptors above 2), its
standard error is /dev/null: it never reads or writes the command's streams, whatever they
are (closed, a terminal, a file). The job (the problem's graph, the forward values and
what to compute) goes down the pipe pickled, between two processes of the same gradcli;
the worker answers one byte when it has the job, then its outcome as budget.serve writes
it. Nothing it sends is stored: the cache holds only text (cache.py).

The budget is the same as in the forked worker (runtime/budget.py): `seconds` from the
moment the worker has the job (SymPy's import is not counted, as it is not when the
command imports SymPy itself), with the same exceptions for a timeout, a crash, a
recursion error or a failure.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import sys
import time

from gradcli.runtime import budget, children

BOOTSTRAP = (
    "import os, sys\n"
    "sys.path[:] = os.environ['GRADCLI_WORKER_PATH'].split(os.pathsep)\n"
    "from gradcli.check.worker import main\n"
    "main()\n"
)
PARENT = "GRADCLI_WORKER_PARENT"  # the pid of the process the worker ends with
READY = b"R"
IMPORT_WAIT = 60.0  # seconds for the worker to start and import SymPy, beyond the budget
RECURSION_LIMIT = 10_000


class Worker:
    """The parent's handle on one worker process (one job, then it exits)."""

    def __init__(self, proc, to_worker: int, from_worker: int):
        self.proc = proc
        self.to_worker = to_worker
        self.from_worker = from_worker
        self.used = False

    @classmethod
    def start(cls) -> Worker | None:
        """A worker importing SymPy from now on, or None where one cannot be started."""
        if not sys.executable or not budget.forking():
            return None
        import subprocess

        fds: list[int] = []
        try:
            job_r, job_w = _pipe(fds)
            out_r, out_w = _pipe(fds)
            env = dict(os.environ)
            env["GRADCLI_WORKER_PATH"] = os.pathsep.join(sys.path)
            env[PARENT] = str(os.getpid())  # the worker ends when this process does
            for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
                env[name] = "1"
            proc = subprocess.Popen(
                [sys.executable, "-I", "-c", BOOTSTRAP],
                stdin=job_r,
                stdout=out_w,
                stderr=subprocess.DEVNULL,
                close_fds=True,
                env=env,
            )
        except (OSError, ValueError, subprocess.SubprocessError):
            for fd in fds:
                _close(fd)
            return None
        children.started(proc.pid)
        _close(job_r)
        _close(out_w)
        return cls(proc, job_w, out_r)

    def run(self, job: tuple, seconds: float):
        """The job's outcome within `seconds` of the worker having it (budget's exceptions)."""
        if self.used:
            raise budget.WorkerFailed("the SymPy worker was used already", "crash")
        self.used = True
        try:
            data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise budget.WorkerFailed(f"the job could not be sent ({exc})", "crash") from None
        finished = False
        try:
            try:
                _send(self.to_worker, data)
            except OSError:
                raise budget.WorkerFailed("the SymPy worker process died", "crash") from None
            finally:
                _close(self.to_worker)
                self.to_worker = -1
            first = _read_first(self.from_worker, time.monotonic() + IMPORT_WAIT)
            if first != READY:
                raise budget.WorkerFailed("the SymPy worker process died", "crash")
            rest = budget.collect(self.from_worker, time.monotonic() + seconds)
            finished = True
        finally:
            if not finished:
                self.close()
        self.close()
        return budget.outcome(rest)

    def close(self) -> None:
        """Stop the worker (if it still runs) and release its pipes; safe to call twice."""
        for name in ("to_worker", "from_worker"):
            fd = getattr(self, name)
            if fd >= 0:
                _close(fd)
                setattr(self, name, -1)
        proc = self.proc
        if proc is not None:
            self.proc = None
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    proc.kill()
            with contextlib.suppress(Exception):
                proc.wait()
            children.ended(proc.pid)


def _pipe(opened: list[int]) -> tuple[int, int]:
    """A pipe whose ends are above the standard descriptors, so none can become stdio."""
    import fcntl

    r, w = os.pipe()
    opened += [r, w]
    out = []
    for fd in (r, w):
        if fd <= 2:
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
            opened.append(moved)
            os.close(fd)
            fd = moved
        out.append(fd)
    return out[0], out[1]


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_first(fd: int, deadline: float) -> bytes:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise budget.BudgetExceeded
    ready, _, _ = select.select([fd], [], [], remaining)
    if not ready:
        raise budget.BudgetExceeded
    return os.read(fd, 1)


# --- the worker's side ----------------------------------------------------------------------
def main() -> None:
    """The worker process: import SymPy, take one job from stdin, answer on stdout."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parent = os.environ.get(PARENT, "")
    if parent.isdigit():
        children.die_with_parent(int(parent))  # no worker outlives its command
    children.note(f"{os.getpid()} importing")
    sympy = _import_sympy()
    children.note(f"{os.getpid()} ready")
    # numpy and gradcli's check are not imported here: a replayed translation (replay.py)
    # needs neither, and unpickling a full job imports what it refers to
    if not _job_waiting(0):  # else the job imports what it needs, with no sample work first
        _prewarm(sympy)
    data = _read_all(0)
    if not data:
        os._exit(0)  # the command needed no SymPy after all
    work, seconds, current_limits = pickle.loads(data)  # our parent's own bytes
    from gradcli.runtime import limits

    if current_limits is not None:
        limits.current = current_limits
    _send(1, READY)
    children.note(f"{os.getpid()} working")
    deadline = time.monotonic() + seconds

    def job():
        return work(deadline=deadline)

    budget.serve(job, 1, seconds, RECURSION_LIMIT)


def _import_sympy():
    """SymPy, imported with the cyclic collector paused: the import triggers ~150
    collections that free almost nothing (~20 ms, on the first cross-check's path)."""
    from gradcli.runtime import gcpause

    gcpause.FREEZE = True  # one job per process, as in the command (gcpause.paused)
    with gcpause.paused(lasting=True):
        import sympy
    return sympy


def _job_waiting(fd: int) -> bool:
    """Whether the job (or the end of input) can be read from fd without waiting."""
    try:
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return False
    return bool(ready)


def _prewarm(sympy) -> None:
    """SymPy's first derivative and first printing import more modules: done while the
    command is still reading, before the job comes. SymPy's caches only memoize: nothing
    here changes what the job computes."""
    try:
        from gradcli.check import replay

        x = sympy.Symbol("x", real=True)
        expr = sympy.diff(x * x * 3 + sympy.exp(x) * x, x)
        replay.printed(sympy, [expr], [x])
    except Exception:
        pass


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
