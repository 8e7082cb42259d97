"""Running a user's script in this process exactly as `python FILE ARGS` would.

`__name__ == "__main__"`, `sys.argv = [FILE, *ARGS]`, the script's folder first on
`sys.path`, the working directory unchanged. The script's standard output goes to standard
error (gradcli's own stdout stays clean for pipelines), at the Python level and at the
descriptor, so prints from C code and child processes follow. A capture stops the script
by raising `StopScript`, a BaseException the script's `except Exception` does not catch.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
import time
import traceback
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from gradcli.runtime.errors import GradcliError, Pos

_REAL_EXIT = os._exit  # the script's os._exit is replaced while it runs (_exit_hook)


class StopScript(BaseException):
    """Raised inside the script to stop it: enough calls were captured, or time ran out."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Outcome:
    """How the script ended: finished, stopped (reason), or raised (the exception)."""

    stopped: str | None = None
    exception: BaseException | None = None
    exit_code: int | None = None  # sys.exit(n) with n != 0
    namespace: dict | None = None  # the script's globals when it ended


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a byte offset; the column counts characters."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def compile_script(path: str):
    """The script's code object and its text; a missing file or a syntax error is exit 2.

    The text is decoded as Python decodes it: UTF-8, or the encoding a coding declaration
    (PEP 263) or a byte-order mark names."""
    import tokenize

    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise GradcliError(f"cannot read {path}: {exc.strerror or exc}") from None
    null = data.find(b"\0")
    if null >= 0:
        pos = Pos(path, *_line_col(data, null))
        raise GradcliError("the script does not compile: it contains a null byte", pos)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown encoding in the coding declaration
        pos = Pos(path, exc.lineno or 1, 1)
        raise GradcliError(f"the script does not compile: {exc.msg}", pos) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        pos = Pos(path, *_line_col(data, exc.start))
        raise GradcliError(
            f"the script is not {encoding} text (byte 0x{data[exc.start]:02x}); "
            "declare its encoding with a '# -*- coding: ... -*-' line",
            pos,
        ) from None
    text = text.removeprefix("\ufeff")
    try:
        code = compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        pos = Pos(path, exc.lineno or 1, exc.offset or 1)
        raise GradcliError(f"the script does not compile: {exc.msg}", pos) from None
    except (ValueError, MemoryError, RecursionError) as exc:  # too nested for the compiler
        raise GradcliError(f"the script does not compile: {exc}", Pos(path, 1, 1)) from None
    return code, text


class _ScriptStream(io.TextIOWrapper):
    """The script's sys.stdout and sys.stderr: gradcli's standard error, through a
    descriptor of their own, so that a script closing them closes nothing of gradcli's.
    Remembers whether the last character written ended a line."""

    ended = True

    def write(self, text):
        n = super().write(text)
        if text:
            type(self).ended = text.endswith("\n")
        return n


def _script_stream(fd: int, like) -> io.TextIOWrapper:
    encoding = getattr(like, "encoding", None) or "utf-8"
    raw = os.fdopen(fd, "wb", buffering=0)
    return _ScriptStream(
        raw, encoding=encoding, errors="backslashreplace", line_buffering=True, write_through=True
    )


def _dup(fd: int) -> int | None:
    try:
        return os.dup(fd)
    except OSError:
        return None


@contextmanager
def _stdout_to_stderr(before: set):
    """The script's prints (Python and file descriptor 1) go to standard error.

    Descriptors 1 and 2 are saved and put back afterwards (a script may close or redirect
    them); the script's sys.stdout, sys.stderr, sys.__stdout__ and sys.__stderr__ are
    streams of its own on copies of descriptor 2."""
    names = ("stdout", "stderr", "__stdout__", "__stderr__")
    saved_streams = {name: getattr(sys, name) for name in names}
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with suppress(Exception):
            stream.flush()
    saved_out, saved_err = _dup(1), _dup(2)
    target = saved_err if saved_err is not None else os.open(os.devnull, os.O_WRONLY)
    with suppress(OSError):
        os.dup2(target, 1)
    if saved_err is None:
        with suppress(OSError):
            os.dup2(target, 2)
        os.close(target)
    streams = []
    try:
        for _ in range(2):
            streams.append(_script_stream(os.dup(2), saved_streams["stderr"]))
    except OSError:
        pass
    if len(streams) == 2:
        sys.stdout, sys.stderr = streams
        sys.__stdout__, sys.__stderr__ = streams
    else:
        sys.stdout = sys.stderr
    _ScriptStream.ended = True
    _WATCH_ERR[:] = [saved_err] if saved_err is not None else []
    try:
        yield
    finally:
        _WATCH_ERR.clear()
        left = _script_threads(before)
        for stream in streams:
            with suppress(Exception):
                stream.flush()
            if not left:
                with suppress(Exception):
                    stream.close()
        for name, stream in saved_streams.items():
            setattr(sys, name, stream)
        if left:
            sys.stdout = _Routed(sys.stdout, sys.stderr, threading.get_ident())
        for fd, saved in ((1, saved_out), (2, saved_err)):
            with suppress(OSError):
                if saved is None:
                    os.close(fd)
                else:
                    os.dup2(saved, fd)
                    os.close(saved)
        if not _ScriptStream.ended:  # gradcli's next line starts on a line of its own
            with suppress(Exception):
                sys.stderr.write("\n")


class _Expired(StopScript):
    """--timeout ran out (raised by the alarm, or injected by the watchdog thread)."""

    def __init__(self, reason: str = "timeout"):
        super().__init__(reason)


class _Exited(BaseException):
    """The script called os._exit(n): it ends like sys.exit(n) (see _exit_hook)."""

    code = 0


MAX_ALARM = 1e8  # seconds: setitimer refuses more; a longer --timeout never expires anyway
RETRY = 1.0  # seconds between the watchdog's stops of a script that swallowed one


def _async_raise(ident: int, exc_type) -> None:
    """Raise exc_type in thread `ident` at its next bytecode (None: cancel a pending one)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(ident), ctypes.py_object(exc_type) if exc_type else None
    )


class _Watch:
    """The thread running the script, and the stops sent to it from elsewhere (the
    watchdog at --timeout, os._exit from another thread). Once `done`, nothing more is
    sent, and a stop already sent but not yet raised is cancelled."""

    def __init__(self):
        self.ident = threading.get_ident()
        self.lock = threading.Lock()
        self.done = False
        self.sent = None  # the exception type last sent

    def send(self, exc_type) -> bool:
        with self.lock:
            if self.done:
                return False
            self.sent = exc_type
            _async_raise(self.ident, exc_type)
            return True

    def finish(self) -> None:
        with self.lock:
            self.done = True
            if self.sent is not None:
                _async_raise(self.ident, None)


def grace(seconds: float) -> float:
    """How long after --timeout gradcli waits for the script to stop before it gives up."""
    return max(1.0, min(5.0, seconds))


def _watchdog(watch: _Watch, seconds: float, stopped: threading.Event, path: str) -> None:
    """At the deadline, stop the script even when it took SIGALRM for itself; when it has
    not stopped `grace` seconds later (a call in C code that does not return, a script
    that catches every exception), end gradcli with one line and exit 2."""
    if stopped.wait(seconds):
        return
    hard = time.monotonic() + grace(seconds)
    while time.monotonic() < hard:
        if not watch.send(_Expired) or stopped.wait(min(RETRY, hard - time.monotonic())):
            return
    if stopped.is_set() or watch.done:
        return
    message = (
        f"gradcli: error: {path}: the script did not stop within {grace(seconds):g} s of "
        f"--timeout {seconds:g} (it is in a long call into C code, or it catches the stop); "
        "nothing could be reported\n"
    )
    with suppress(OSError):
        os.write(_WATCH_ERR[0] if _WATCH_ERR else 2, message.encode("utf-8", "replace"))
    _REAL_EXIT(2)


_WATCH_ERR: list[int] = []  # gradcli's own standard error while the script runs


@contextmanager
def _timeout(seconds: float | None, watch: _Watch, path: str):
    """Raise StopScript("timeout") in the script's thread after `seconds` of wall-clock
    time: by SIGALRM (which also interrupts a sleep or a blocking read), and by a watchdog
    thread for a script that installs its own SIGALRM handler or timer."""
    if seconds is None or seconds > MAX_ALARM:  # over three years: it never runs out
        yield
        return
    stopped = threading.Event()
    dog = threading.Thread(
        target=_watchdog, args=(watch, seconds, stopped, path), name="gradcli-timeout"
    )
    dog.daemon = True
    alarm = threading.current_thread() is threading.main_thread()
    if alarm:

        def expire(signum, frame):
            raise _Expired()

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    dog.start()
    try:
        yield
    finally:
        stopped.set()
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


@contextmanager
def _signals():
    """Every signal handler the script installs is undone afterwards (a script's SIGPIPE or
    SIGINT handler must not outlive it). While it runs, a real Ctrl-C is told apart from
    a KeyboardInterrupt the script raises itself: yields a list that a Ctrl-C appends to."""
    interrupted: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    saved = {}
    for signum in signal.valid_signals():
        with suppress(OSError, ValueError, RuntimeError):
            handler = signal.getsignal(signum)
            if handler is not None:
                saved[signum] = handler

    def interrupt(signum, frame):
        interrupted.append(signum)
        raise KeyboardInterrupt

    if saved.get(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupt)
    try:
        yield interrupted
    finally:
        for signum, handler in saved.items():
            with suppress(OSError, ValueError, RuntimeError, TypeError):
                if signal.getsignal(signum) is not handler:
                    signal.signal(signum, handler)


@contextmanager
def _exit_hook(watch: _Watch):
    """os._exit(n) in the script ends the script, not gradcli: in the script's thread it
    raises (like sys.exit(n)); in another thread of the script it ends that thread and stops
    the script's thread. In a child process (fork) it is os._exit itself."""
    real = _REAL_EXIT
    pid = os.getpid()

    def _exit(n):
        if os.getpid() != pid:
            real(n)
        _Exited.code = n
        if threading.get_ident() == watch.ident:
            raise _Exited()
        watch.send(_Exited)
        raise SystemExit(n)  # ends this thread quietly

    os._exit = _exit
    try:
        yield
    finally:
        os._exit = real if os._exit is _exit else os._exit


@contextmanager
def _interpreter_state():
    """What a script changes in the interpreter and gradcli needs back: the working
    directory, the modules it removed from sys.modules, the recursion limit (raised by
    gradcli's own depth, so the script recurses as deep as under python), and a C stack
    large enough to free a long autograd graph."""
    saved_limit = sys.getrecursionlimit()
    try:
        saved_cwd = os.getcwd()
    except OSError:
        saved_cwd = None
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(saved_limit + depth + 100)
    modules = dict(sys.modules)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved_limit)
        for name, module in modules.items():  # gradcli's own, among others
            if sys.modules.get(name) is not module and name != "__main__":
                sys.modules[name] = module
        if saved_cwd is not None:
            with suppress(OSError):
                os.chdir(saved_cwd)


STACK = 1 << 30  # bytes of C stack allowed to the main thread (soft limit)


@contextmanager
def larger_stack():
    """The soft stack limit raised while the script and its graphs live: PyTorch frees an
    autograd graph whose nodes Python has seen (a capture sees every one) recursively, and
    a chain of ~50,000 operations overflows the default 8 MB stack (a segmentation fault)
    when the graph is dropped. Put back afterwards: processes started later would inherit
    it, and glibc sizes their threads' stacks by it (1 GiB each, which an address-space
    limit refuses). The caller drops the script's objects inside this block."""
    saved = None
    with suppress(Exception):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        want = STACK if hard == resource.RLIM_INFINITY else min(STACK, hard)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
            saved = (soft, hard)
    try:
        yield
    finally:
        if saved is not None:
            with suppress(Exception):
                import resource

                resource.setrlimit(resource.RLIMIT_STACK, saved)


def _join_threads(before: set) -> None:
    """Wait for the threads the script started and did not make daemons, as Python waits
    for them before it exits (under --timeout, only until it runs out)."""
    for t in threading.enumerate():
        if t not in before and not t.daemon and t is not threading.current_thread():
            t.join()


def _script_threads(before: set) -> list:
    """The threads the script started that still run. (Thread.is_alive() is not asked: a
    join() interrupted by the stop marks a running thread stopped, in Python 3.11.)"""
    running = sys._current_frames()
    return [
        t
        for t in threading.enumerate()
        if t not in before
        and t is not threading.current_thread()
        and t.ident in running
        and not (t.daemon and t.name.startswith("gradcli-"))
    ]


def _abandon_threads(before: set) -> None:
    """The script's threads still running after it was stopped (or after its end, when
    --timeout ran out while gradcli waited for them) are ended: SystemExit at their next
    bytecode, which a thread ends on quietly; one blocked in C code is made a daemon, so
    that it cannot keep gradcli's process alive (Python would wait for it)."""
    for t in _script_threads(before):
        with suppress(Exception):
            _async_raise(t.ident, SystemExit)
        with suppress(Exception):
            if not t.daemon:
                lock = getattr(t, "_tstate_lock", None)
                getattr(threading, "_shutdown_locks", set()).discard(lock)
                t._daemonic = True


@contextmanager
def _as_main(path: str, args: list[str]):
    """sys.argv, sys.path[0] and a fresh __main__ module, restored afterwards."""
    import types

    saved_argv, saved_path = sys.argv, list(sys.path)
    saved_main = sys.modules.get("__main__")
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    module.__spec__ = None
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.modules["__main__"] = module
    try:
        yield module.__dict__
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main


def run(code, path: str, args: list[str], timeout: float | None) -> Outcome:
    """Execute the script's code as __main__; never raises what the script raises (a real
    Ctrl-C is raised on: KeyboardInterrupt)."""
    outcome = Outcome()
    watch = _Watch()
    before = set(threading.enumerate())  # threads, not idents: an ident is reused
    with (
        _interpreter_state(),
        _signals() as interrupted,
        _as_main(path, args) as namespace,
        _stdout_to_stderr(before),
        _exit_hook(watch),
    ):
        outcome.namespace = namespace
        try:
            try:
                with _timeout(timeout, watch, path):
                    _execute(code, namespace, before, outcome, interrupted)
            finally:
                _finish(watch)
        except StopScript as stop:
            outcome.stopped = stop.reason
        except (SystemExit, _Exited) as exc:
            _exit_status(outcome, exc)
        except KeyboardInterrupt as exc:
            if interrupted:
                raise
            outcome.exception = exc  # raised by the script itself: its error
        except BaseException as exc:  # the script's own failure, reported as a finding
            outcome.exception = _printable(exc)
    _abandon_threads(before)
    return outcome


def _execute(code, namespace, before: set, outcome: Outcome, interrupted: list) -> None:
    """exec the script, then wait for its threads as Python would at its end: not when
    gradcli stopped it, nor after a Ctrl-C. The script's own end (its error, sys.exit) is
    raised on after the wait; a --timeout during the wait still reports that end."""
    try:
        exec(code, namespace)
    except StopScript:
        raise
    except BaseException as exc:
        if interrupted:
            raise
        ended = exc
    else:
        ended = None
    try:
        _join_threads(before)
    except StopScript as stop:
        if ended is None:
            raise
        outcome.stopped = stop.reason
    if ended is not None:
        raise ended


class _Routed:
    """gradcli's stdout once the script is over but some of its threads still run: what
    those threads print goes to standard error, so the report stays clean."""

    def __init__(self, stream, other, owner: int):
        self._stream, self._other, self._owner = stream, other, owner

    def write(self, text):
        if threading.get_ident() != self._owner:
            return self._other.write(text)
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _printable(exc: BaseException) -> BaseException:
    """The script's exception, or a stand-in of the same name when its str() raises."""
    try:
        str(exc)
        return exc
    except Exception as failed:
        standin = type(type(exc).__name__, (Exception,), {})
        text = f"(its message could not be read: {type(failed).__name__})"
        return standin(text).with_traceback(exc.__traceback__)


def _finish(watch: _Watch) -> None:
    """Tell the watchdog the script is over; a stop it sent meanwhile is raised here (and
    read as the script's end), never later in gradcli's own code."""
    while True:
        try:
            watch.finish()
            return
        except (StopScript, _Exited):
            if watch.done:
                raise


def _exit_status(outcome: Outcome, exc: BaseException) -> None:
    """sys.exit(code) or os._exit(code): the status as Python would make it; a message
    (sys.exit("text")) is written to standard error, as Python writes it."""
    code = _Exited.code if isinstance(exc, _Exited) else exc.code
    if code is None or code == 0:
        return
    if isinstance(code, int):
        outcome.exit_code = code
        return
    outcome.exit_code = 1
    with suppress(Exception):
        sys.stderr.write(f"{code}\n")
        sys.stderr.flush()


def script_frames(tb, is_user) -> list[tuple[str, int, str]]:
    """(file, line, function) of a traceback's frames in the user's files, innermost first."""
    found = []
    for frame, line in traceback.walk_tb(tb):
        if is_user(frame.f_code.co_filename):
            found.append((frame.f_code.co_filename, line, frame.f_code.co_name))
    return found[::-1]


def script_frame(tb, is_user) -> tuple[str | None, int | None, str | None]:
    """(file, line, function) of a traceback's innermost frame in the user's files."""
    frames = script_frames(tb, is_user)
    return frames[0] if frames else (None, None, None)
