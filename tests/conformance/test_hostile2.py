"""Hostile input and broken environments, second round: by surface (spec, expression, --at,
--points, options, streams, environment, resources).

Every case runs the real command line in a fresh process with capped memory and a hang
guard, and checks the exit status, the one stderr line (with FILE:LINE:COL where there is
one), that nothing else is written, and the bound it exercises. No case may exit 70.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time

import pytest

HANG_GUARD = 120  # seconds: a guard against hangs, not a speed assertion
MEMORY_CAP = 1536 * 2**20  # bytes of address space for the child


def _limits(close: tuple[int, ...] = ()):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
        for fd in close:
            os.close(fd)

    return preexec


def gradcli(
    *args, input: bytes | None = None, env=None, stdout=subprocess.PIPE, close=(), cwd=None
) -> subprocess.CompletedProcess:
    """Run `python -m gradcli` with capped memory, a hang guard, and file descriptors closed."""
    environ = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    for name in ("GRADCLI_DEBUG", "COLUMNS", "PYTHONIOENCODING"):
        environ.pop(name, None)
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *map(str, args)],
        input=input,
        stdin=None if input is not None or 0 in close else subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=HANG_GUARD,
        preexec_fn=_limits(close),
        env=environ,
        cwd=cwd,
    )


ERROR = re.compile(
    r"gradcli: error: (?:(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): )?(?P<msg>.*)"
)


def refused(proc, where: tuple | None = None, code: int = 2) -> str:
    """The message of a refusal: `code`, nothing on stdout, one stderr line, no traceback,
    at `where` = (file, line, col) when given."""
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == code, (proc.returncode, err[-800:])
    assert not proc.stdout, proc.stdout[:300]
    assert "Traceback" not in err and "internal error" not in err, err[-800:]
    lines = err.splitlines()
    assert len(lines) == 1, err[-800:]
    m = ERROR.fullmatch(lines[0])
    assert m, lines[0]
    if where is not None:
        assert (m["file"], m["line"], m["col"]) == tuple(map(str, where)), lines[0]
    return m["msg"]


def write(tmp_path, name: str, text: str | bytes):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


SPEC = "inputs:\n  x: 1.5\ngraph:\n  f: x * x\n"


# --- streams -------------------------------------------------------------------------------
STREAM_COMMANDS = [
    ("eval", "--format", "plain"),
    ("eval", "--format", "json"),
    ("eval", "--format", "table"),
    ("explain",),
    ("check",),
    ("graph",),
    ("jacobian",),
    ("hessian",),
]


@pytest.mark.parametrize("command", STREAM_COMMANDS, ids=" ".join)
def test_a_full_disk_is_one_error_line(tmp_path, command) -> None:
    spec = write(tmp_path, "s.yaml", SPEC)
    with open("/dev/full", "w") as full:
        proc = gradcli(command[0], spec, *command[1:], stdout=full)
    assert refused(proc) == "cannot write to standard output: No space left on device"


def test_a_closed_stdout_is_one_error_line(tmp_path) -> None:
    spec = write(tmp_path, "s.yaml", SPEC)
    for command in (("eval",), ("explain",), ("graph", "--format", "json"), ("--help",)):
        proc = gradcli(*command[:1], *([spec] if command[0] != "--help" else []), *command[1:],
                       close=(1,), stdout=None)  # fmt: skip
        assert refused(proc) == "cannot write to standard output: it is closed", command
    # nothing to write: a closed stdout is no error
    proc = gradcli("explain", spec, "-q", close=(1,), stdout=None)
    assert proc.returncode == 0 and proc.stderr == b""


def test_a_points_run_on_a_full_disk(tmp_path) -> None:
    spec = write(tmp_path, "s.yaml", SPEC)
    points = write(tmp_path, "p.csv", "x\n" + "\n".join(map(str, range(20_000))) + "\n")
    with open("/dev/full", "w") as full:
        proc = gradcli("eval", spec, "--points", points, stdout=full)
    assert refused(proc) == "cannot write to standard output: No space left on device"


def test_a_closed_or_full_stderr_keeps_the_exit_status(tmp_path) -> None:
    proc = gradcli("eval", "-e", "x +", "--at", "x=1", close=(2,))
    assert proc.returncode == 2 and proc.stdout == b""
    spec = write(tmp_path, "s.yaml", SPEC)
    proc = gradcli("explain", spec, "--wrt", "x", close=(2,))
    assert proc.returncode == 0
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "gradcli", "eval", "-e", "x +", "--at", "x=1"],
            stdout=subprocess.PIPE,
            stderr=full,
            timeout=HANG_GUARD,
            preexec_fn=_limits(),
        )
    assert proc.returncode == 2 and proc.stdout == b""


@pytest.mark.parametrize(
    "args", [("eval", "-"), ("eval", "-e", "x", "--at", "x=1", "--points", "-")], ids=str
)
def test_a_closed_stdin_read_as_dash_is_a_clear_error(args) -> None:
    proc = gradcli(*args, close=(0,))
    assert refused(proc) == "cannot read '-': standard input is closed"


def test_a_closed_pipe_stays_quiet(tmp_path) -> None:
    spec = write(tmp_path, "s.yaml", "inputs:\n  v: {ones: [100000]}\ngraph:\n  f: v * 3\n")
    for command in (("eval", "--format", "plain"), ("jacobian", "--format", "json")):
        with subprocess.Popen(
            [sys.executable, "-m", "gradcli", command[0], str(spec), *command[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_limits(),
        ) as proc:
            proc.stdout.read(5)
            proc.stdout.close()
            err = proc.stderr.read()
            assert proc.wait(timeout=HANG_GUARD) in (0, 2), err  # 2: the pass limit, on jacobian
        assert b"Traceback" not in err and b"internal error" not in err


# --- environment ---------------------------------------------------------------------------
SPECS = os.path.join(os.path.dirname(__file__), "..", "..", "specs")


@pytest.mark.parametrize(
    "command",
    [
        ("explain", "mask.yaml"),
        ("graph", "cond_untaken.yaml", "--grad"),
        ("check", "custom_relu.yaml", "--symbolic"),
        ("eval", "where_log_trap.yaml", "--format", "table"),
        ("jacobian", "mask.yaml", "--format", "table"),
    ],
    ids=" ".join,
)
def test_an_ascii_terminal_gets_ascii_glyphs(command) -> None:
    name, spec, *rest = command
    proc = gradcli(name, os.path.join(SPECS, spec), *rest, env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode in (0, 1), proc.stderr[-500:]
    assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr
    proc.stdout.decode("ascii")  # every byte ASCII
    proc.stderr.decode("ascii")
    assert proc.stdout.strip()


COLUMN_COMMANDS = {
    "explain": ("explain", "mask.yaml"),
    "eval table": ("eval", "mask.yaml", "--format", "table", "--check", "off"),
}
_WITHOUT_COLUMNS: dict = {}


@pytest.mark.parametrize("columns", ["0", "100000", "99999999999999999999", "abc"])
@pytest.mark.parametrize("command", COLUMN_COMMANDS)
def test_columns_never_empties_or_pads_the_output(columns, command) -> None:
    name, spec, *rest = COLUMN_COMMANDS[command]
    args = (name, os.path.join(SPECS, spec), *rest)
    proc = gradcli(*args, env={"COLUMNS": columns})
    assert proc.returncode in (0, 1), proc.stderr[-500:]
    lines = proc.stdout.decode().splitlines()
    assert lines and max(map(len, lines)) <= 1000
    # not a terminal: the width is the content's, the same whatever COLUMNS says
    if command not in _WITHOUT_COLUMNS:
        _WITHOUT_COLUMNS[command] = gradcli(*args).stdout
    assert proc.stdout == _WITHOUT_COLUMNS[command]


def test_not_a_terminal_tables_are_as_wide_as_their_content(tmp_path) -> None:
    name = "a_rather_long_input_name_" + "x" * 90
    spec = write(tmp_path, "s.yaml", f"inputs:\n  {name}: 1.5\ngraph:\n  f: {name} * 2\n")
    proc = gradcli("eval", spec, "--format", "table", env={"COLUMNS": "40"})
    assert proc.returncode == 0, proc.stderr
    assert name.encode() in proc.stdout  # not cut at 40 or 80


# --- numbers, checked where they are read --------------------------------------------------
BIG = "1" + "0" * 400  # an integer beyond float64
HUGE = "1" + "0" * 5000  # more digits than Python converts (4,300)
INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("text", "marker", "message"),
    [
        (f"inputs:\n  x: {BIG}\ngraph:\n  f: x * 2\n", BIG, "too large for float64"),
        (f"inputs:\n  x: [1, {BIG}]\ngraph:\n  f: x * 2\n", BIG, "too large for float64"),
        ("inputs:\n  x: [1, 1e400]\ngraph:\n  f: x * 2\n", "1e400", "too large for float64"),
        ("inputs:\n  x: [1, 2.5e999]\ngraph:\n  f: x * 2\n", "2.5e999", "too large for float64"),
        (f"inputs:\n  x: {HUGE}\ngraph:\n  f: x * 2\n", HUGE, "too many digits"),
        ("inputs:\n  n: {value: [1, 9223372036854775808], dtype: int64}\ngraph:\n  f: n\n",
         "9223372036854775808", "does not fit in int64"),
        ("inputs:\n  n: {value: [0, 2147483648], dtype: int32}\ngraph:\n  f: n\n",
         "2147483648", "does not fit in int32"),
        (f"inputs:\n  x: 1.0\ngraph:\n  f: x\ngrad_ys: {{f: {BIG}}}\n", BIG, "too large"),
        (f"inputs:\n  x: 1.0\ngraph:\n  f: x * {BIG}\n", BIG, "too large for float64"),
        ("inputs:\n  x: 1.0\ngraph:\n  f: x * 1e400\n", "1e400", "too large for float64"),
    ],
)  # fmt: skip
def test_spec_numbers_beyond_their_dtype_are_positioned_errors(tmp_path, text, marker, message):
    spec = write(tmp_path, "s.yaml", text)
    offset = text.index(marker)
    line = text.count("\n", 0, offset) + 1
    col = offset - text.rfind("\n", 0, offset)
    assert message in refused(gradcli("eval", spec), (spec, line, col))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-e", "x * 2", "--at", f"x={BIG}"), "--at x: 1000000000...000000 (401 characters) is "
         "too large for float64"),
        (("-e", "x * 2", "--at", f"x=[1, {BIG}]"), "is too large for float64"),
        (("-e", "x * 2", "--at", "x=[1, 1e400]"), "--at x: 1e400 is too large for float64"),
        (("-e", "x * 2", "--at", f"x={HUGE}"), "has 5,001 digits, more than Python converts"),
        (("-e", "x * 2", "--at", f"x=[{HUGE}]"), "has 5,001 digits, more than Python converts"),
        (("-e", f"x * {BIG}", "--at", "x=1"), "is too large for float64"),
    ],
)  # fmt: skip
def test_command_line_numbers_beyond_float64(args, message):
    assert message in refused(gradcli("eval", *args))


def test_an_int64_at_the_top_of_its_range_arrives_intact(tmp_path):
    spec = write(tmp_path, "s.yaml", f"inputs:\n  n: {{value: {INT64_MAX}, dtype: int64}}\n"
                 "  x: 1.5\ngraph:\n  m: n\n  f: n * x\noutputs: [m, f]\n")  # fmt: skip
    for extra, n in (((), INT64_MAX), (("--at", f"n={INT64_MAX}"), INT64_MAX),
                     (("--at", "n=-9223372036854775808"), -(2**63))):  # fmt: skip
        proc = gradcli("eval", spec, "--format", "json", "--check", "off", *extra)
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)["outputs"]
        assert out["m"]["value"] == n and out["m"]["dtype"] == "int64"
        assert out["f"]["value"] == float(n) * 1.5  # promoted to float64: its sign kept
    assert "does not fit in int64" in refused(gradcli("eval", spec, "--at", f"n={INT64_MAX + 1}"))
    points = write(tmp_path, "p.jsonl", f'{{"n": {INT64_MAX}}}\n{{"n": -{INT64_MAX + 1}}}\n')
    proc = gradcli("eval", spec, "--points", points)
    assert proc.returncode == 0, proc.stderr
    values = [json.loads(line)["outputs"] for line in proc.stdout.splitlines()]
    assert values == [{"m": INT64_MAX, "f": INT64_MAX * 1.5}, {"m": -(2**63), "f": -(2**63) * 1.5}]


@pytest.mark.parametrize(
    ("name", "text", "where", "message"),
    [
        ("p.jsonl", '{"x": 1}\n{"x": ' + BIG + "}\n", (2, 1), "too large for float64"),
        ("p.jsonl", '{"x": 1}\n{"x": 1e400}\n', (2, 7), "1e400 is too large for float64"),
        ("p.jsonl", '{"x": 1}\n{"x": ' + HUGE + "}\n", (2, 7), "more than Python converts"),
        ("p.jsonl", '{"x": [1e999]}\n', (1, 8), "too large for float64"),
        ("p.csv", "x\n1\n" + BIG + "\n", (3, 1), "too large for float64"),
        ("p.csv", "x\n1\n1e400\n", (3, 1), "too large for float64"),
        ("p.csv", "x\n1\n" + HUGE + "\n", (3, 1), "more than Python converts"),
    ],
)  # fmt: skip
def test_points_numbers_beyond_float64(tmp_path, name, text, where, message):
    spec = write(tmp_path, "s.yaml", SPEC)
    path = write(tmp_path, name, text)
    proc = gradcli("eval", spec, "--points", path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert err.startswith(f"gradcli: error: {path}:{where[0]}:{where[1]}: ") and message in err
    assert err.count("\n") == 1
    assert len(proc.stdout.splitlines()) == where[0] - 1 - name.endswith(".csv")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", "-e", "x*x", "--at", "x=1", "--rtol", "nan"), "'nan' is not a finite number"),
        (("check", "-e", "x*x", "--at", "x=1", "--atol", "inf"), "'inf' is not a finite number"),
        (("check", "-e", "x*x", "--at", "x=1", "--atol", "-1e-3"), "is below 0"),
        (("--sympy-timeout", "nan", "check", "-e", "x", "--at", "x=1"), "not a finite number"),
        (("--fd-timeout", "inf", "check", "-e", "x", "--at", "x=1"), "not a finite number"),
    ],
)  # fmt: skip
def test_options_that_need_a_finite_number(args, message):
    assert message in refused(gradcli(*args))


def test_a_non_finite_limit_in_the_environment():
    proc = gradcli("check", "-e", "x", "--at", "x=1", env={"GRADCLI_SYMPY_TIMEOUT": "nan"})
    assert "GRADCLI_SYMPY_TIMEOUT" in refused(proc)
    proc = gradcli("check", "-e", "x", "--at", "x=1", env={"GRADCLI_FD_TIMEOUT": "inf"})
    assert "must be a finite number" in refused(proc)


# --- --points: lines, bytes and positions -------------------------------------------------
def test_a_bad_byte_is_reported_at_its_own_line_after_the_points_before_it(tmp_path):
    spec = write(tmp_path, "s.yaml", SPEC)
    path = write(tmp_path, "p.jsonl", b'{"x": 1}\n{"x": 2}\n{"x": 3}\n{"x": \xff}\n{"x": 5}\n')
    proc = gradcli("eval", spec, "--points", path)
    assert proc.returncode == 2
    assert proc.stderr.decode() == f"gradcli: error: {path}:4:7: not valid UTF-8 (byte 0xff)\n"
    assert [json.loads(x)["outputs"]["f"] for x in proc.stdout.splitlines()] == [1.0, 4.0, 9.0]
    csv = write(tmp_path, "p.csv", b"x\n1\n2\n\xc3(\n")
    proc = gradcli("eval", spec, "--points", csv)
    assert proc.stderr.decode() == f"gradcli: error: {csv}:4:1: not valid UTF-8 (byte 0xc3)\n"
    assert len(proc.stdout.splitlines()) == 2


@pytest.mark.parametrize("name", ["p.csv", "p.jsonl", "p.txt"])
def test_a_byte_order_mark_is_accepted(tmp_path, name):
    spec = write(tmp_path, "s.yaml", SPEC)
    text = "x\n1\n2\n" if name != "p.jsonl" else '{"x": 1}\n{"x": 2}\n'
    path = write(tmp_path, name, b"\xef\xbb\xbf" + text.encode())
    proc = gradcli("eval", spec, "--points", path)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["outputs"]["f"] for x in proc.stdout.splitlines()] == [1.0, 4.0]


def test_an_endless_line_is_refused_in_bounded_memory(tmp_path):
    spec = write(tmp_path, "s.yaml", SPEC)
    msg = refused(gradcli("eval", spec, "--points", "/dev/zero"), ("/dev/zero", 1, 1))
    assert msg == (
        "line 1 is longer than 16,777,216 bytes (change it with --max-line or GRADCLI_MAX_LINE)"
    )
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [sys.executable, "-m", "gradcli", "--max-line", "1000", "eval", spec, "--points", "-"],
            stdin=zero,
            capture_output=True,
            timeout=HANG_GUARD,
            preexec_fn=_limits(),
        )
    assert "line 1 is longer than 1,000 bytes" in refused(proc, ("<stdin>", 1, 1))
    path = write(tmp_path, "p.jsonl", '{"x": 1}\n{"x": ' + "1" * 200 + ".0}\n")
    proc = gradcli("--max-line", "100", "eval", spec, "--points", path)
    assert proc.returncode == 2 and len(proc.stdout.splitlines()) == 1
    assert f"{path}:2:1: line 2 is longer than 100 bytes" in proc.stderr.decode()


# --- spec: positions inside block and multi-line scalars -----------------------------------
def _at(text: str, marker: str, nth: int = 0) -> tuple[int, int]:
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(marker, offset + 1)
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


HEAD = "inputs:\n  x: 1.0\ngraph:\n"


@pytest.mark.parametrize(
    ("body", "marker", "message"),
    [
        ("  f: |\n    x +\n    x * $\n  g: x\n", "$", "unexpected character '$'"),
        ("  f: >\n    x +\n    x * $\n  g: x\n", "$", "unexpected character '$'"),
        ("  f: >-\n    x +\n\n    x * $\n  g: x\n", "$", "unexpected character '$'"),
        ("  f: |2+\n      x +\n\n      x * $\n  g: x\n", "$", "unexpected character '$'"),
        ("  f: x + x\n    * x $ 2\n  g: x\n", "$", "unexpected character '$'"),
        ("  f: x + x\n\n    * x $ 2\n  g: x\n", "$", "unexpected character '$'"),
        ('  f: "x +\n    \\t x $ 2"\n  g: x\n', "$", "unexpected character '$'"),
        ("  f: 'x + ''a''\n\n    + x $ 2'\n  g: x\n", "$", "unexpected character '$'"),
        ("  f: |\n    x +\n    sin(y)\n", "y)", "'y'"),
        ("  f: >\n    x +\n    x * (x +\n  g: x\n", "+\n  g", "unexpected end of expression"),
    ],
)  # fmt: skip
def test_errors_inside_multi_line_scalars_point_at_the_true_line(tmp_path, body, marker, message):
    text = HEAD + body
    spec = write(tmp_path, "s.yaml", text)
    line, col = _at(text, marker)
    if message == "unexpected end of expression":
        col += 1  # just after the last character of the expression
    assert message in refused(gradcli("eval", spec), (spec, line, col))


# --- resources: limits enforced while reading and on the whole run ------------------------
def test_an_over_limit_literal_is_refused_while_it_is_read(tmp_path):
    # 3,000,000 values: composing them all takes ~2 GB, over the child's memory cap
    path = tmp_path / "big.yaml"
    path.write_text("inputs:\n  x: [" + "1," * 3_000_000 + "1]\ngraph:\n  f: sum(x)\n")
    start = time.monotonic()
    msg = refused(gradcli("--max-elements", "1000", "eval", path), (path, 2, 6))
    assert msg == (
        "this list holds more than 1,000 elements, over the limit of 1,000 "
        "(change it with --max-elements or GRADCLI_MAX_ELEMENTS); give big data in a .npy "
        "or .npz file, as {file: x.npy} (specs/README.md, inputs from files)"
    )
    assert time.monotonic() - start < HANG_GUARD
    nested = tmp_path / "nested.yaml"
    rows = ", ".join(["[" + ", ".join(["0.5"] * 100) + "]"] * 20)
    nested.write_text(f"inputs:\n  w:\n    value: [{rows}]\ngraph:\n  f: sum(w)\n")
    assert "holds more than 1,000 elements" in refused(
        gradcli("--max-elements", "1000", "eval", nested), (nested, 3, 12)
    )
    assert gradcli("--max-elements", "2000", "eval", nested).returncode == 0


def test_a_long_literal_is_refused_before_its_values_are_read(tmp_path):
    # 12,000,000 values at the default limit: composing 10,000,001 of them would take ~25 s
    # and several GB, over the child's memory cap; counted ahead (spec/literal_count.py),
    # the list is refused at its start. Rows of a nested list are counted alike.
    flat = tmp_path / "flat.yaml"
    flat.write_text("inputs:\n  x: [" + "1," * 12_000_000 + "1]\ngraph:\n  f: sum(x)\n")
    msg = refused(gradcli("eval", flat), (flat, 2, 6))
    assert msg.startswith("this list holds more than 10,000,000 elements, over the limit of ")
    assert msg.endswith("; give big data in a .npy or .npz file, as {file: x.npy} "
                        "(specs/README.md, inputs from files)")  # fmt: skip
    nested = tmp_path / "nested.yaml"
    row = "[" + ", ".join(["0.25"] * 1000) + "]"
    nested.write_text("inputs:\n  w:\n    value: [" + ",\n      ".join([row] * 3000) + "]\n"
                      "    trainable: false\ngraph:\n  f: sum(w)\n")  # fmt: skip
    args = ("--max-elements", "2000000", "eval", nested, "--check", "off")
    assert "holds more than 2,000,000 elements" in refused(gradcli(*args), (nested, 3, 12))


def test_a_literal_in_a_spec_too_long_to_read_is_named(tmp_path):
    # 34,000,000 values (68 MB): over the 64 MB a spec may hold; the literal at the file's
    # start is the more telling error, with its position
    path = tmp_path / "huge.yaml"
    path.write_text("inputs:\n  x: [" + "1," * 34_000_000 + "1]\ngraph:\n  f: sum(x)\n")
    assert "holds more than 10,000,000 elements" in refused(gradcli("eval", path), (path, 2, 6))
    msg = refused(gradcli("--max-elements", "40000000", "eval", path))
    assert (
        msg
        == f"{path} is larger than 64 MB; give big tensors as zeros/ones/random inputs or with --at"
    )
    # a list the count ahead stops at (a comment) is left to the composer, as before
    commented = tmp_path / "commented.yaml"
    commented.write_text("inputs:\n  x: [1, # one\n  " + "1," * 3_000_000 + "1]\ngraph:\n"
                         "  f: sum(x)\n")  # fmt: skip
    assert "holds more than 1,000 elements" in refused(
        gradcli("--max-elements", "1000", "eval", commented), (commented, 2, 6)
    )


def test_the_bytes_of_all_live_tensors_are_bounded(tmp_path):
    # twenty entries of 100,000 elements each: each fits, together they do not
    lines = ["inputs:", "  x: {zeros: [100000]}", "graph:"]
    lines += [f"  a{k}: x + {k}" for k in range(20)]
    lines += ["outputs: [" + ", ".join(f"a{k}" for k in range(20)) + "]"]
    path = write(tmp_path, "s.yaml", "\n".join(lines) + "\n")
    msg = refused(gradcli("--max-bytes", "10000000", "eval", path, "--check", "off"),
                  (path, 15, 10))  # fmt: skip
    assert msg == (
        "evaluating add (a11, shape (100000,), float64) would hold 10,400,000 bytes of "
        "tensors at once: 800,000 for its result and 9,600,000 in the 12 tensors already "
        "held, over the limit of 10,000,000 bytes (change it with --max-bytes or "
        "GRADCLI_MAX_BYTES)"
    )
    proc = gradcli("--max-bytes", "20000000", "eval", path, "--check", "off", "--format", "json")
    assert proc.returncode == 0, proc.stderr


def test_jacobian_work_is_refused_before_the_first_pass(tmp_path):
    # 2,000 passes, each through 10,000,000-element tensors: about a minute of work
    path = write(tmp_path, "s.yaml", "inputs:\n  x: 1.0\n  w: {ones: [2000, 5000], "
                 "trainable: false}\ngraph:\n  y: sum(x * w, axis=1)\n")  # fmt: skip
    start = time.monotonic()
    msg = refused(gradcli("jacobian", path), (path, 5, 6))
    assert time.monotonic() - start < 20
    assert msg.startswith("the Jacobian of 'y' takes 2,000 passes (one per element) of about ")
    assert msg.endswith(
        "over the limit of 10,000,000,000 (change it with --max-work or GRADCLI_MAX_WORK)"
    )
    hess = write(tmp_path, "h.yaml", "inputs:\n  x: {ones: [300]}\ngraph:\n  y: sum(x * x)\n")
    msg = refused(gradcli("--max-work", "1000", "hessian", hess))
    assert "the Hessian of " in msg and "takes 300 passes" in msg
    assert gradcli("hessian", hess, "--format", "json").returncode == 0


def test_points_build_the_graph_once_per_cond_outcome(tmp_path, monkeypatch):
    from helpers import invoke

    import gradcli.cli.inputs  # noqa: F401 - bound to the real build_problem: the spec's build
    import gradcli.spec.assembly as assembly

    builds = []
    real = assembly.build_problem

    def counting(*args, **kwargs):
        builds.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(assembly, "build_problem", counting)
    spec = write(tmp_path, "s.yaml", "inputs:\n  x: 1.0\n  z: 2.0\ngraph:\n"
                 "  f: cond(x > 0, x * z, -x)\n")  # fmt: skip
    rows = "\n".join(f"{(-1) ** k * (k + 1)},{k}" for k in range(200))
    res = invoke("eval", spec, "--points", write(tmp_path, "p.csv", "x,z\n" + rows + "\n"))
    assert res.code == 0, res.stderr
    assert len(builds) == 2  # one build per branch (the spec's own build is not counted)
    got = [json.loads(line) for line in res.stdout.splitlines()]
    for k, doc in enumerate(got):
        x, z = (-1) ** k * (k + 1), k
        assert doc["outputs"]["f"] == (x * z if x > 0 else -x)
        assert doc["gradients"] == ({"x": z, "z": x} if x > 0 else {"x": -1.0, "z": None})


@pytest.mark.parametrize("columns", ["0", "5", "100000"])
def test_a_terminal_width_from_columns_is_clamped(columns):
    import pty

    leader, follower = pty.openpty()
    environ = {**os.environ, "COLUMNS": columns, "OPENBLAS_NUM_THREADS": "1"}
    environ.pop("NO_COLOR", None)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gradcli", "explain", os.path.join(SPECS, "mask.yaml")],
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.PIPE,
            env=environ,
            preexec_fn=_limits(),
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 1 << 16)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait(timeout=HANG_GUARD) == 1, proc.stderr.read()
    finally:
        os.close(leader)
    text = re.sub(rb"\x1b\[[0-9;]*m", b"", b"".join(chunks)).decode()
    lines = [line for line in text.splitlines() if line.strip()]
    width = max(20, min(int(columns), 1000))
    assert lines and max(map(len, lines)) == width  # the panels fill the clamped width
