"""Hostile input for `--run FILE.py`: bad files, scripts that exit, stop, print, close
streams, take signals or threads for themselves, and hostile environments (stdout closed,
a broken pipe). Each case runs the real CLI (a subprocess where the process itself is at
stake, click's runner for usage errors) on a script written to tmp_path.

The contract: bad input is one line on stderr (FILE:LINE:COL where there is one) and exit
2; the script raising is its finding (JSON "error", exit 1); nothing ends in a traceback,
an internal error (70) or a process left behind; stdout holds only gradcli's report.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from textwrap import dedent

import pytest

torch = pytest.importorskip("torch", reason="--run needs PyTorch")

from helpers import invoke  # noqa: E402

GOOD = """\
import torch
w = torch.ones(2, requires_grad=True)
(w * 2).sum().backward()
"""


def script(tmp_path, text: str, name: str = "train.py") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def gradcli(*args, stdin=subprocess.DEVNULL, timeout=120, **kw) -> subprocess.CompletedProcess:
    """The CLI in a subprocess of its own (its own session: nothing it leaves can hide)."""
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    env.pop("GRADCLI_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *map(str, args)],
        capture_output=True,
        text=True,
        stdin=stdin,
        timeout=timeout,
        env=env,
        **kw,
    )


def clean(res) -> None:
    """No traceback, no internal error, at most one gradcli error line."""
    assert res.returncode not in (70, -11, 139), (res.returncode, res.stderr[-3000:])
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    assert "internal error" not in res.stderr, res.stderr[-3000:]
    assert res.stderr.count("gradcli: error:") <= 1, res.stderr[-3000:]


def error_line(res) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("gradcli: error:")]
    assert len(lines) == 1, res.stderr[-3000:]
    return lines[0]


def report(res, code: int) -> dict:
    clean(res)
    assert res.returncode == code, (res.returncode, res.stderr[-3000:])
    return json.loads(res.stdout)  # stdout holds the report and nothing else


def run_json(path, *extra, code=0, command="explain", **kw) -> dict:
    res = gradcli(command, "--run", path, "--format", "json", *extra, **kw)
    return report(res, code)


def grads(doc) -> list:
    return [(g["name"], g["status"]) for c in doc["calls"] for g in c["gradients"]]


# --- the file itself -----------------------------------------------------------------


def test_missing_file(tmp_path):
    res = invoke("explain", "--run", tmp_path / "nope.py")
    assert res.code == 2
    assert "nope.py" in res.stderr and "No such file" in res.stderr
    assert res.stderr.count("\n") == 1


def test_a_directory(tmp_path):
    (tmp_path / "d.py").mkdir()
    res = invoke("explain", "--run", tmp_path / "d.py")
    assert res.code == 2
    assert "d.py" in res.stderr and res.stderr.count("\n") == 1


def test_not_utf8_names_line_and_column(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"import torch\nname = 'caf\xe9'\n")
    res = invoke("explain", "--run", path)
    assert res.code == 2
    assert f"{path}:2:12:" in res.stderr and "not utf-8" in res.stderr
    assert res.stderr.count("\n") == 1


def test_coding_declaration_is_read_as_python_reads_it(tmp_path):
    path = tmp_path / "latin.py"
    text = "# -*- coding: latin-1 -*-\n" + GOOD + "name = 'café'\n"
    path.write_bytes(text.encode("latin-1"))
    doc = run_json(path)
    assert grads(doc) == [("w", "connected")]


def test_syntax_error_file_line_col(tmp_path):
    path = script(tmp_path, "import torch\nx = (1,\n")
    res = invoke("explain", "--run", path)
    assert res.code == 2
    assert f"{path}:2:5: the script does not compile" in res.stderr
    assert res.stderr.count("\n") == 1


def test_null_byte_position(tmp_path):
    path = tmp_path / "nul.py"
    path.write_bytes(b"import torch\nx = 1 \x00\n")
    res = invoke("explain", "--run", path)
    assert res.code == 2
    assert f"{path}:2:7:" in res.stderr and "null byte" in res.stderr


def test_no_gradient_call_is_exit_2_with_reason(tmp_path):
    path = script(tmp_path, "import torch\nprint(torch.ones(2) * 3)\n")
    res = gradcli("explain", "--run", path)
    clean(res)
    assert res.returncode == 2
    assert "ran without any gradient call" in error_line(res)
    assert res.stdout == ""


# --- the script's own ends -------------------------------------------------------------


@pytest.mark.parametrize("arg, status", [("0", None), ("3", 3), ("'msg'", 1)])
def test_sys_exit_before_any_call(tmp_path, arg, status):
    path = script(tmp_path, f"import sys, torch\nsys.exit({arg})\n" + GOOD)
    res = gradcli("explain", "--run", path)
    clean(res)
    assert res.returncode == 2
    line = error_line(res)
    if status is None:
        assert "ran without any gradient call" in line
    else:
        assert f"exited with status {status} without any gradient call" in line
    if arg == "'msg'":
        assert "msg\n" in res.stderr  # written as Python writes it


@pytest.mark.parametrize("arg, note", [("0", None), ("3", 3), ("'msg'", 1), ("None", None)])
def test_sys_exit_after_a_call(tmp_path, arg, note):
    """The report stands; a status other than 0 is a note (the exit status stays the
    gradients')."""
    path = script(tmp_path, GOOD + f"import sys\nsys.exit({arg})\n")
    doc = run_json(path, code=0)
    assert grads(doc) == [("w", "connected")]
    notes = [n for n in doc["notes"] if "exited with status" in n]
    assert notes == ([] if note is None else [f"the script exited with status {note}"])


@pytest.mark.parametrize("arg", ["0", "5"])
def test_os_exit_ends_the_script_not_gradcli(tmp_path, arg):
    """os._exit(n) would end gradcli's process with no report (exit 0, empty stdout): in
    the script it ends the script, as sys.exit(n) does."""
    path = script(tmp_path, GOOD + f"import os\nos._exit({arg})\nprint('never')\n")
    doc = run_json(path, code=0)
    assert grads(doc) == [("w", "connected")]
    assert ("the script exited with status 5" in doc["notes"]) == (arg == "5")


def test_os_exit_from_another_thread(tmp_path):
    path = script(
        tmp_path,
        GOOD
        + dedent("""
        import os, threading, time
        threading.Thread(target=lambda: os._exit(4)).start()
        while True:
            time.sleep(0.01)
        """),
    )
    doc = run_json(path, "--timeout", "60", code=0)
    assert grads(doc) == [("w", "connected")]
    assert "the script exited with status 4" in doc["notes"]
    assert doc["stopped"] is None


def test_os_exit_in_a_forked_child_is_real(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import os, torch
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 7
        """)
        + GOOD,
    )
    doc = run_json(path)
    assert grads(doc) == [("w", "connected")] and doc["error"] is None


def test_script_raising_keyboardinterrupt_is_its_error(tmp_path):
    path = script(tmp_path, GOOD + "raise KeyboardInterrupt\n")
    doc = run_json(path, code=1)
    assert doc["error"]["message"].startswith("KeyboardInterrupt")
    assert doc["error"]["line"] == 4


def test_real_ctrl_c_is_interrupted(tmp_path):
    path = script(tmp_path, GOOD + "import time\nprint('ready', flush=True)\ntime.sleep(60)\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gradcli", "explain", "--run", path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    line = ""
    while "ready" not in line and time.monotonic() < deadline:
        line = proc.stderr.readline()
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "gradcli: error: interrupted" in err and "Traceback" not in err


def test_system_exit_in_a_gradient_hook(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import sys, torch
        w = torch.ones(2, requires_grad=True)
        w.register_hook(lambda g: sys.exit(4))
        (w * 2).sum().backward()
        print("never")
        """),
    )
    res = gradcli("explain", "--run", path, "--format", "json")
    doc = report(res, 1)
    assert "the script exited with status 4" in doc["notes"]
    assert "never" not in res.stderr


def test_deep_recursion_is_the_scripts_error(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import torch
        w = torch.ones(2, requires_grad=True)
        def f(x):
            return f(x * 1.0)
        f(w)
        """),
    )
    doc = run_json(path, code=1)
    assert doc["error"]["message"].startswith("RecursionError")
    assert doc["error"]["line"] == 5


def test_recursion_as_deep_as_python_allows(tmp_path):
    """gradcli's own frames do not shorten the script's recursion."""
    path = script(
        tmp_path,
        dedent("""
        import sys, torch
        w = torch.ones(2, requires_grad=True)
        def f(x, n):
            return x if n == 0 else f(x * 1.0, n - 1)
        f(w, sys.getrecursionlimit() - 60).sum().backward()
        """),
    )
    doc = run_json(path)
    assert grads(doc) == [("w", "connected")]


def test_huge_exception_message_is_one_truncated_line(tmp_path):
    path = script(tmp_path, GOOD + "raise ValueError('x' * 1_000_000 + '\\nsecond line')\n")
    doc = run_json(path, code=1)
    message = doc["error"]["message"]
    assert len(message) <= 2100 and "\n" not in message
    assert message.startswith("ValueError: xxx") and "characters in all" in message
    res = gradcli("explain", "--run", path)
    assert res.returncode == 1 and len(res.stdout) < 10_000


def test_exception_whose_str_raises(tmp_path):
    path = script(
        tmp_path,
        GOOD
        + dedent("""
        class Odd(Exception):
            def __str__(self):
                raise RuntimeError("no")
        raise Odd()
        """),
    )
    doc = run_json(path, code=1)
    assert doc["error"]["message"].startswith("Odd: ")


# --- time ------------------------------------------------------------------------------


def test_infinite_loop_after_a_call_timeout(tmp_path):
    path = script(tmp_path, GOOD + "while True:\n    pass\n")
    start = time.monotonic()
    doc = run_json(path, "--timeout", "1", code=0)
    assert time.monotonic() - start < 60
    assert doc["stopped"] == "timeout" and grads(doc) == [("w", "connected")]


def test_infinite_loop_before_any_call_timeout(tmp_path):
    path = script(tmp_path, "import torch\nx = torch.ones(2)\nwhile True:\n    pass\n")
    res = gradcli("explain", "--run", path, "--timeout", "1")
    clean(res)
    assert res.returncode == 2
    assert "was stopped by --timeout 1 without any gradient call" in error_line(res)


def test_timeout_in_a_sleep(tmp_path):
    path = script(tmp_path, GOOD + "import time\ntime.sleep(600)\n")
    start = time.monotonic()
    doc = run_json(path, "--timeout", "1")
    assert time.monotonic() - start < 60 and doc["stopped"] == "timeout"


def test_timeout_when_the_script_takes_sigalrm(tmp_path):
    """The script's own SIGALRM handler and timer do not disable --timeout."""
    path = script(
        tmp_path,
        dedent("""
        import signal, time, torch
        fired = []
        signal.signal(signal.SIGALRM, lambda s, f: fired.append(1))
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        time.sleep(0.5)
        assert fired
        """)
        + GOOD
        + "while True:\n    pass\n",
    )
    doc = run_json(path, "--timeout", "2")
    assert doc["stopped"] == "timeout" and grads(doc) == [("w", "connected")]


def test_timeout_during_long_torch_calls(tmp_path):
    """The stop is raised when the running torch call returns."""
    path = script(
        tmp_path,
        GOOD
        + dedent("""
        a = torch.randn(1500, 1500)
        while True:
            a = torch.tanh(a @ a)
        """),
    )
    start = time.monotonic()
    doc = run_json(path, "--timeout", "1")
    assert time.monotonic() - start < 60 and doc["stopped"] == "timeout"


def test_script_that_swallows_the_stop_ends_gradcli(tmp_path):
    """A script that catches BaseException in a loop cannot keep gradcli running: after
    --timeout and its grace, gradcli gives up with one line and exit 2."""
    path = script(
        tmp_path,
        GOOD
        + dedent("""
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
        """),
    )
    res = gradcli("explain", "--run", path, "--timeout", "1")
    assert res.returncode == 2, res.stderr
    assert "did not stop within 1 s of --timeout 1" in error_line(res)
    assert "Traceback" not in res.stderr


def test_non_daemon_thread_is_waited_for(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import threading, time, torch
        w = torch.ones(2, requires_grad=True)
        def late():
            time.sleep(0.5)
            print("late thread")
        threading.Thread(target=late).start()
        (w * 2).sum().backward()
        """),
    )
    res = gradcli("explain", "--run", path, "--format", "json")
    doc = report(res, 0)
    assert "late thread" in res.stderr and grads(doc) == [("w", "connected")]


def test_thread_that_never_ends_under_timeout(tmp_path):
    """As Python would, gradcli waits for the script's threads; --timeout bounds the wait,
    and the thread left running neither writes into the report nor keeps gradcli alive."""
    path = script(
        tmp_path,
        dedent("""
        import threading, time, torch
        def spin():
            while True:
                time.sleep(0.01)
                print("tick")
        threading.Thread(target=spin).start()
        """)
        + GOOD,
    )
    res = gradcli("explain", "--run", path, "--format", "json", "--timeout", "1", timeout=60)
    doc = report(res, 0)
    assert doc["stopped"] == "timeout" and grads(doc) == [("w", "connected")]
    assert "tick" in res.stderr


# --- output ----------------------------------------------------------------------------


def test_every_kind_of_print_lands_on_stderr(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import os, subprocess, sys, torch
        print("via print")
        sys.stdout.write("via write\\n")
        sys.__stdout__.write("via dunder\\n")
        os.write(1, b"via fd1\\n")
        subprocess.run([sys.executable, "-c", "print('via child')"])
        os.system("echo via system")
        """)
        + GOOD
        + "sys.stdout.write('no newline at end')\n",
    )
    res = gradcli("explain", "--run", path, "--format", "json")
    doc = report(res, 0)
    for what in ("print", "write", "dunder", "fd1", "child", "system"):
        assert f"via {what}\n" in res.stderr
    assert "no newline at end" in res.stderr
    assert grads(doc) == [("w", "connected")]


@pytest.mark.parametrize("command", ["eval", "explain"])
def test_json_on_stdout_for_eval_and_explain(tmp_path, command):
    path = script(tmp_path, "print('noise')\n" + GOOD)
    doc = run_json(path, command=command)
    assert grads(doc) == [("w", "connected")]


def test_graph_stdout_stays_the_graph(tmp_path):
    path = script(tmp_path, "print('noise')\n" + GOOD)
    res = gradcli("graph", "--run", path, "--format", "json")
    clean(res)
    assert res.returncode == 0
    json.loads(res.stdout)


@pytest.mark.parametrize("data, expect", [(b"hello\n", "'hello\\n'"), (None, "''")])
def test_script_reading_stdin(tmp_path, data, expect):
    path = script(tmp_path, "import sys\nprint(repr(sys.stdin.read()))\n" + GOOD)
    res = gradcli(
        "explain",
        "--run",
        path,
        "--format",
        "json",
        input=data.decode() if data else None,
        stdin=None if data else subprocess.DEVNULL,
    )
    report(res, 0)
    assert expect in res.stderr


@pytest.mark.parametrize(
    "closing",
    [
        "sys.stdout.close()",
        "sys.stderr.close()",
        "sys.__stdout__.close(); sys.__stderr__.close()",
        "os.close(1); os.close(2)",
        "os.dup2(os.open(os.devnull, os.O_WRONLY), 2)",
    ],
)
def test_script_closing_its_streams(tmp_path, closing):
    """gradcli's report and its error lines survive whatever the script closes."""
    path = script(tmp_path, f"import os, sys\n{closing}\n" + GOOD)
    doc = run_json(path)
    assert grads(doc) == [("w", "connected")]
    path = script(tmp_path, f"import os, sys, torch\n{closing}\n", "nocall.py")
    res = gradcli("explain", "--run", path)
    assert res.returncode == 2
    assert "without any gradient call" in error_line(res)


def test_gradcli_stdout_closed(tmp_path):
    path = script(tmp_path, "print('noise')\n" + GOOD)
    res = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m gradcli explain --run {path} >&-"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert "cannot write to standard output" in error_line(res)
    assert "noise" in res.stderr  # the script's own prints still reach stderr


def test_broken_pipe(tmp_path):
    path = script(tmp_path, GOOD)
    res = subprocess.run(
        [
            "bash",
            "-o",
            "pipefail",
            "-c",
            f"{sys.executable} -m gradcli explain --run {path} --format json | head -c 10",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == '{\n  "schem' and res.stderr == ""


def test_script_sigpipe_handler_does_not_outlive_it(tmp_path):
    path = script(tmp_path, "import signal\nsignal.signal(signal.SIGPIPE, signal.SIG_DFL)\n" + GOOD)
    res = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{sys.executable} -m gradcli explain --run {path} "
         "--calls all --format json | head -c 1"],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, (res.returncode, res.stderr)


# --- the interpreter the script shares with gradcli -------------------------------------


def test_script_changes_cwd_path_argv(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import os, sys
        os.chdir("/")
        sys.path.insert(0, "/nonexistent")
        sys.argv[:] = ["changed"]
        """)
        + GOOD,
    )
    out = tmp_path / "graph.json"
    res = gradcli("graph", "--run", path, "--format", "json", "--output", "graph.json",
                  cwd=tmp_path)  # fmt: skip
    clean(res)
    assert res.returncode == 0 and out.exists()  # written where gradcli was started


def test_script_folder_first_on_path_and_cwd_unchanged(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "helper.py").write_text("import torch\nFACTOR = 3.0\n")
    path = script(
        tmp_path,
        dedent("""
        import os, sys, torch, helper
        assert os.getcwd() == sys.argv[1], (os.getcwd(), sys.argv)
        assert __name__ == "__main__"
        assert sys.argv[0].endswith("train.py") and sys.argv[2:] == ["--lr", "x"]
        w = torch.ones(2, requires_grad=True)
        (w * helper.FACTOR).sum().backward()
        """),
        "sub/train.py",
    )
    doc = run_json(path, "--", str(tmp_path), "--lr", "x", cwd=tmp_path)
    assert doc["error"] is None and grads(doc) == [("w", "connected")]


def test_script_deletes_sys_modules_entries(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import sys
        for name in list(sys.modules):
            if name.startswith(("gradcli", "click", "rich", "json")):
                del sys.modules[name]
        """)
        + GOOD
        + "raise ValueError('late')\n",
    )
    doc = run_json(path, code=1)
    assert doc["error"]["message"] == "ValueError: late"


def test_script_lowers_recursion_limit(tmp_path):
    path = script(tmp_path, GOOD + "import sys\nsys.setrecursionlimit(60)\n")
    doc = run_json(path)
    assert grads(doc) == [("w", "connected")]


def test_threads_running_torch_ops(tmp_path):
    """Operations and gradient calls in other threads are not captured (the capture is a
    TorchFunctionMode, which is per thread): what the main thread did is reported, and
    nothing breaks."""
    path = script(
        tmp_path,
        dedent("""
        import threading, torch
        w = torch.ones(2, requires_grad=True)
        out = {}
        def work():
            out["loss"] = (w * 3).sum()
            (w * 5).sum().backward()
        t = threading.Thread(target=work)
        t.start()
        t.join()
        out["loss"].backward()
        """),
    )
    doc = run_json(path, "--calls", "all")
    assert [c["line"] for c in doc["calls"]] == [11]
    assert grads(doc) == [("w", "connected")]


def test_own_torch_function_mode_counts_backward_once(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import torch
        from torch.overrides import TorchFunctionMode
        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))
        w = torch.ones(2, requires_grad=True)
        with Mode():
            loss = (w * 2).sum()
            loss.backward()
        """),
    )
    doc = run_json(path, "--calls", "all")
    assert len(doc["calls"]) == 1 and grads(doc) == [("w", "connected")]


def test_monkeypatched_backward_does_not_crash(tmp_path):
    """A script replacing Tensor.backward: gradcli ends cleanly (see the report: the call is
    not yet recognised, torch_calls.kind_of keys the original function)."""
    path = script(
        tmp_path,
        dedent("""
        import torch
        original = torch.Tensor.backward
        def backward(self, *args, **kwargs):
            print("patched backward")
            return original(self, *args, **kwargs)
        torch.Tensor.backward = backward
        """)
        + GOOD,
    )
    res = gradcli("explain", "--run", path, "--format", "json")
    clean(res)
    assert res.returncode in (0, 2)


def test_name_guard_and_script_args(tmp_path):
    path = script(
        tmp_path,
        dedent("""
        import sys
        def main():
            import torch
            w = torch.ones(2, requires_grad=True)
            (w * float(sys.argv[1])).sum().backward()
        if __name__ == "__main__":
            main()
        """),
    )
    doc = run_json(path, "--", "3")
    assert doc["calls"][0]["gradients"][0]["value"] == [3.0, 3.0]


def test_script_args_after_dashes_are_not_gradcli_options(tmp_path):
    path = script(tmp_path, "import sys\nassert sys.argv[1:] == ['--format', 'x']\n" + GOOD)
    res = gradcli("explain", "--run", path, "--", "--format", "x")
    clean(res)
    assert res.returncode == 0, res.stderr


def test_long_chain_before_one_backward(tmp_path):
    """100,000 operations before one backward: no crash (PyTorch frees a graph whose nodes
    Python has touched recursively; gradcli raises the stack limit). Time and memory are
    measured for the report, not asserted."""
    path = script(
        tmp_path,
        dedent("""
        import torch
        w = torch.ones(4, requires_grad=True)
        x = w
        for i in range(100_000):
            x = x * 1.0
        x.sum().backward()
        """),
    )
    start = time.monotonic()
    res = gradcli("explain", "--run", path, "--format", "json", timeout=600)
    doc = report(res, 0)
    print(f"100,000 ops: {time.monotonic() - start:.1f} s")
    assert grads(doc) == [("w", "connected")]


# --- usage -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["--calls", "0"], "'0' is not a positive count"),
        (["--calls", "-1"], "'-1' is not a positive count"),
        (["--calls", "x"], "'x' is neither a positive count nor 'all'"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--timeout", "nan"], "'nan' is not a positive, finite number of seconds"),
        (["--timeout", "inf"], "'inf' is not a positive, finite number of seconds"),
        (["--timeout", "0"], "'0' is not a positive, finite number of seconds"),
        (["--timeout", "-1"], "'-1' is not a positive, finite number of seconds"),
        (["--timeout", "soon"], "'soon' is not a number of seconds"),
        (["-e", "x"], "-e does not apply to --run"),
        (["--at", "x=1"], "--at does not apply to --run"),
        (["--wrt", "x"], "--wrt does not apply to --run"),
    ],
)
def test_usage_errors(tmp_path, args, words):
    path = script(tmp_path, GOOD)
    res = invoke("explain", "--run", path, *args)
    assert res.code == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("gradcli: error:")
    assert words in res.stderr
    assert res.stdout == ""


def test_run_options_without_run():
    for args in (["--calls", "2"], ["--seed", "1"], ["--timeout", "1"]):
        res = invoke("explain", "-e", "x", *args)
        assert res.code == 2 and "applies to --run FILE.py only" in res.stderr


def test_huge_timeout_never_expires(tmp_path):
    path = script(tmp_path, GOOD)
    doc = run_json(path, "--timeout", "1e300")
    assert doc["stopped"] is None and doc["error"] is None
