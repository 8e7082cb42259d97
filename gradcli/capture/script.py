"""Running a user's script in this process exactly as `python FILE ARGS` would.

`__name__ == "__main__"`, `sys.argv = [FILE, *ARGS]`, the script's folder first on
`sys.path`, the working directory unchanged. The script's standard output goes to standard
error (gradcli's own stdout stays clean for pipelines), at the Python level and at the
descriptor, so prints from C code and child processes follow. A capture stops the script
by raising `StopScript`, a BaseException the script's `except Exception` does not catch.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from gradcli.runtime.errors import GradcliError, Pos


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


def compile_script(path: str):
    """The script's code object and its text; a missing file or a syntax error is exit 2."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise GradcliError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GradcliError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    try:
        code = compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        pos = Pos(path, exc.lineno or 1, exc.offset or 1)
        raise GradcliError(f"the script does not compile: {exc.msg}", pos) from None
    except ValueError as exc:  # null bytes
        raise GradcliError(f"the script does not compile: {exc}", Pos(path, 1, 1)) from None
    return code, text


@contextmanager
def _stdout_to_stderr():
    """The script's prints (Python and file descriptor 1) go to standard error."""
    saved_stream = sys.stdout
    saved_fd = None
    with suppress(OSError, ValueError):
        sys.stdout.flush()
    try:
        saved_fd = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        saved_fd = None
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        with suppress(OSError, ValueError):
            sys.stderr.flush()
        sys.stdout = saved_stream
        if saved_fd is not None:
            os.dup2(saved_fd, 1)
            os.close(saved_fd)


@contextmanager
def _timeout(seconds: float | None):
    """Raise StopScript("timeout") in the main thread after `seconds` of wall-clock time."""
    usable = seconds is not None and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise StopScript("timeout")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
    """Execute the script's code as __main__; never raises what the script raises."""
    outcome = Outcome()
    with _as_main(path, args) as namespace, _stdout_to_stderr():
        outcome.namespace = namespace
        try:
            with _timeout(timeout):
                exec(code, namespace)
        except StopScript as stop:
            outcome.stopped = stop.reason
        except SystemExit as exc:
            if exc.code not in (None, 0):
                outcome.exit_code = exc.code if isinstance(exc.code, int) else 1
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the script's own failure, reported as a finding
            outcome.exception = exc
    return outcome


def script_frames(tb, is_user) -> list[tuple[str, int, str]]:
    """(file, line, function) of a traceback's frames in the user's files, innermost first."""
    found = []
    for frame, line in traceback.walk_tb(tb):
        if is_user(frame.f_code.co_filename):
            found.append((frame.f_code.co_filename, line, frame.f_code.co_name))
    return found[::-1]
