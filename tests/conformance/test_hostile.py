"""Hostile inputs in a real process (bounded time and memory), pipeline behaviour, and
legitimate large inputs that must keep working.

The subprocess timeouts guard against hangs; they are generous on purpose and are not
speed assertions (speed is measured by the benchmark scripts).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest
from helpers import invoke, run_json

HANG_GUARD = 120  # seconds; a hostile input is answered in well under a second
MEMORY_CAP = 1536 * 2**20  # bytes of address space for the child process


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def gradcli(*args, input: bytes | None = None, cwd=None, env=None) -> subprocess.CompletedProcess:
    """Run `python -m gradcli` in a fresh process with capped memory and a hang guard."""
    environ = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    environ.pop("GRADCLI_DEBUG", None)
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *map(str, args)],
        input=input,
        capture_output=True,
        timeout=HANG_GUARD,
        preexec_fn=_cap_memory,
        cwd=cwd,
        env=environ,
    )


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The single stderr line of a failed run (exit 2, nothing on stdout, no traceback)."""
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, err[:500])
    assert proc.stdout == b""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradcli: error: "), err[:500]
    return lines[0]


def billion_laughs() -> str:
    lines = ["inputs:", "  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"  a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]" for k in range(1, 9)]
    return "\n".join([*lines, "graph:", "  f: sum(a8)"]) + "\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("billion laughs", billion_laughs(), "expands (through aliases) into too many values"),
        ("YAML nested 100,000 deep", "inputs:\n  x: " + "[" * 100_000 + "]" * 100_000 + "\n",
         "the YAML is nested more than 200 levels deep"),
        ("expression nested 100,000 deep", "inputs: {x: 1}\ngraph:\n  f: "
         + "(" * 100_000 + "x" + ")" * 100_000 + "\n", "expression nested more than 200 levels"),
        ("zeros 1e9 x 1e9", "inputs:\n  z: {zeros: [1e9, 1e9]}\ngraph:\n  f: sum(z)\n",
         "over the limit of 10,000,000"),
        ("broadcast to 1e10", "inputs:\n  x: 1.0\ngraph:\n  f: sum(broadcast_to(x, "
         "[100000, 100000]))\n", "over the limit of 10,000,000 elements"),
    ],
)  # fmt: skip
def test_hostile_spec_in_a_real_process(name, text, message, tmp_path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    line = one_error_line(gradcli("eval", path, "--format", "json"))
    assert str(path) in line and message in line


def test_limits_can_be_raised_by_flag_and_variable(tmp_path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(
        "inputs:\n  z: {zeros: [3000, 4000], trainable: false}\ngraph:\n  f: sum(z + 1)\n"
    )
    line = one_error_line(gradcli("eval", path))
    assert "12,000,000 elements, over the limit of 10,000,000" in line
    for args, env in (
        (("--max-elements", "20000000"), None),
        ((), {"GRADCLI_MAX_ELEMENTS": "20000000"}),
    ):
        proc = gradcli(*args, "eval", path, "--format", "json", env=env)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["outputs"]["f"]["value"] == 12_000_000.0


@pytest.mark.parametrize(
    ("expression", "value", "gradient"),
    [
        # float64 powers overflow to inf at once: 2**100 = 1.27e30, 2**(1.27e30) = inf
        ("x * 2**2**2**2**100", "inf", "inf"),
        ("x * 10**10**10", "inf", "inf"),
        ("x * 9**999999999", "inf", "inf"),
        # 10**-400 underflows to 0 in float64; d/dx (x * 0) = 0
        ("x * 10**-400", 0.0, 0.0),
    ],
)
def test_exponent_bombs_are_float_arithmetic(expression, value, gradient) -> None:
    proc = gradcli("eval", "-e", expression, "--at", "x=1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["outputs"]["f"]["value"] == value
    assert doc["gradients"]["x"]["value"] == gradient


def test_integer_power_tower_finishes(tmp_path) -> None:
    # int64 powers wrap around as in numpy and TensorFlow; what matters here is the answer
    # comes at once (Python's own integers would compute 10**10**10 for hours)
    path = tmp_path / "spec.yaml"
    path.write_text("inputs:\n  n: {value: 10, dtype: int64}\ngraph:\n  f: n ** n ** n ** n\n")
    proc = gradcli("eval", path, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["outputs"]["f"]
    assert out["dtype"] == "int64" and isinstance(out["value"], int)


CANARY = "gradcli-canary"
SHELL = f"touch {CANARY}"
PAYLOADS = [
    f"!!python/object/apply:os.system [{SHELL!r}]",
    f"!!python/object/apply:subprocess.call [[sh, -c, {SHELL!r}]]",
    f"!!python/object/new:os.system [{SHELL!r}]",
    "!!python/name:os.system",
    "!!python/module:os",
    f"\"__import__('os').system('{SHELL}')\"",
    f"\"eval(\\\"__import__('os').system('{SHELL}')\\\")\"",
    f'"$({SHELL})"',
    f'"`{SHELL}`"',
]
PLACES = {
    "input": "inputs:\n  x: {p}\ngraph:\n  f: x\n",
    "input value": "inputs:\n  x: {{value: {p}}}\ngraph:\n  f: x\n",
    "input dtype": "inputs:\n  x: {{value: 1, dtype: {p}}}\ngraph:\n  f: x\n",
    "shape": "inputs:\n  x: {{zeros: {p}}}\ngraph:\n  f: x\n",
    "function body": "inputs: {{x: 1}}\nfunctions:\n  g: {{params: [a], body: {p}}}\n"
    "graph:\n  f: g(x)\n",
    "function grad": "inputs: {{x: 1}}\nfunctions:\n  g: {{params: [a], body: a, grad: {p}}}\n"
    "graph:\n  f: g(x)\n",
    "graph entry": "inputs:\n  x: 1\ngraph:\n  f: {p}\n",
    "outputs": "inputs:\n  x: 1\ngraph:\n  f: x\noutputs: {p}\n",
    "wrt": "inputs:\n  x: 1\ngraph:\n  f: x\nwrt: {p}\n",
    "grad_ys": "inputs:\n  x: 1\ngraph:\n  f: x\ngrad_ys: {{f: {p}}}\n",
    "unconnected": "inputs:\n  x: 1\ngraph:\n  f: x\nunconnected: {p}\n",
    "description": "inputs:\n  x: 1\ngraph:\n  f: x\ndescription: {p}\n",
    "top level": "{p}\n",
    "key": "inputs:\n  x: 1\ngraph:\n  f: x\n? {p}\n: 1\n",
}


@pytest.mark.parametrize("place", PLACES)
def test_no_field_runs_a_shell_command(place, tmp_path) -> None:
    for k, payload in enumerate(PAYLOADS):
        path = tmp_path / f"spec{k}.yaml"
        path.write_text(PLACES[place].format(p=payload))
        res = invoke("eval", path)  # in-process: any code run here would also show
        assert not (tmp_path / CANARY).exists() and not os.path.exists(CANARY)
        if place == "description" and not payload.startswith("!"):
            assert res.code == 0, res.stderr  # a description is free text, never run
            continue
        assert res.code == 2, (payload, res.code, res.stdout, res.stderr)
        assert res.stdout == "" and len(res.stderr.splitlines()) == 1, res.stderr
        assert f"{path}:" in res.stderr, res.stderr


def test_no_expression_runs_a_shell_command(tmp_path) -> None:
    for payload in PAYLOADS[5:]:
        proc = gradcli("eval", "-e", payload.strip('"').replace('\\"', '"'), cwd=tmp_path)
        assert not (tmp_path / CANARY).exists()
        line = one_error_line(proc)
        assert "<expr>:1:" in line


def test_closed_pipe_exits_quietly(tmp_path) -> None:
    """`gradcli eval ... --format json | head -c 10`: no BrokenPipeError, exit 0."""
    path = tmp_path / "spec.yaml"
    path.write_text("inputs:\n  v: {ones: [200000]}\ngraph:\n  f: v * 3\n")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    for fmt in ("json", "plain", "table"):
        with subprocess.Popen(
            [sys.executable, "-m", "gradcli", "eval", str(path), "--format", fmt],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        ) as proc:
            head = proc.stdout.read(10)
            proc.stdout.close()
            err = proc.stderr.read()
            code = proc.wait(timeout=HANG_GUARD)
        assert len(head) == 10
        assert err == b"", err
        assert code == 0


def test_ctrl_c_exits_130_with_one_line(tmp_path) -> None:
    path = tmp_path / "chain.yaml"
    lines = ["inputs:", "  x: 1.0", "graph:", "  e0: sin(x)"]
    lines += [f"  e{k}: sin(e{k - 1}) + x" for k in range(1, 200_000)]
    path.write_text("\n".join(lines) + "\n")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    with subprocess.Popen(
        [sys.executable, "-m", "gradcli", "eval", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        # A shell without job control starts background jobs with SIGINT ignored, and Python
        # keeps an inherited SIG_IGN; give the child the default disposition a terminal gives.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as proc:
        time.sleep(2.0)  # well into reading and building the 200,000-entry spec
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 130, (proc.returncode, err[-500:])
    assert err.decode().splitlines() == ["gradcli: error: interrupted"]
    assert out == b""


def test_internal_error_is_one_line_with_exit_70(monkeypatch) -> None:
    import gradcli.core.evaluation as eval_command  # eval imports evaluate when it runs

    def broken(problem, **kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(eval_command, "evaluate", broken)
    monkeypatch.delenv("GRADCLI_DEBUG", raising=False)
    res = invoke("eval", "-e", "x", "--at", "x=1")
    assert res.code == 70
    assert res.stdout == ""
    assert res.stderr.splitlines() == [
        "gradcli: error: internal error (ZeroDivisionError: simulated bug); this is a bug in "
        "gradcli. Run again with GRADCLI_DEBUG=1 for the full trace"
    ]
    monkeypatch.setenv("GRADCLI_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        invoke("eval", "-e", "x", "--at", "x=1")


# --- legitimate large inputs keep working -------------------------------------------------


def test_sum_of_20000_terms_on_one_line(tmp_path) -> None:
    # d/dx of sum_k k*x is sum_k k = n(n+1)/2; Python's own ast.parse fails on this line
    n = 20_000
    path = tmp_path / "spec.yaml"
    terms = " + ".join(f"{k}*x" for k in range(1, n + 1))
    path.write_text(f"inputs:\n  x: 2.0\ngraph:\n  f: {terms}\n")
    doc = run_json("eval", path)
    assert doc["gradients"]["x"]["value"] == n * (n + 1) / 2
    assert doc["outputs"]["f"]["value"] == n * (n + 1)


def test_long_chain_of_entries(tmp_path) -> None:
    # e_k = e_{k-1} + x with e_0 = x: e_n = (n+1) x, de_n/dx = n + 1
    n = 5_000
    lines = ["inputs:", "  x: 0.5", "graph:", "  e0: x"]
    lines += [f"  e{k}: e{k - 1} + x" for k in range(1, n + 1)]
    path = tmp_path / "spec.yaml"
    path.write_text("\n".join(lines) + "\n")
    doc = run_json("eval", path)
    assert doc["outputs"][f"e{n}"]["value"] == (n + 1) * 0.5
    assert doc["gradients"]["x"]["value"] == n + 1


def test_large_value_list_and_legitimate_aliases(tmp_path) -> None:
    n = 100_000
    values = ", ".join(str(k % 10) for k in range(n))
    path = tmp_path / "spec.yaml"
    path.write_text(
        f"inputs:\n  v: [{values}]\n  w: &w [1.0, 2.0]\n  u: *w\ngraph:\n  f: sum(v) + sum(w * u)\n"
    )
    doc = run_json("eval", path)
    assert doc["outputs"]["f"]["value"] == 4.5 * n + 5.0  # mean of 0..9 is 4.5; 1 + 4
    assert doc["gradients"]["u"]["value"] == [1.0, 2.0]


def test_nesting_people_write(tmp_path) -> None:
    depth = 150  # parentheses and calls; Python's parser stops at 200 parentheses
    expr = "(" * depth + "x" + ")" * depth + " + " + "sin(" * depth + "x" + ")" * depth
    doc = run_json("eval", "-e", expr, "--at", "x=0")
    assert doc["gradients"]["x"]["value"] == 2.0  # d/dx sin^n(x) at 0 is 1


def test_max_depth_can_be_raised(tmp_path) -> None:
    expr = "(" * 300 + "x" + ")" * 300
    assert invoke("eval", "-e", expr, "--at", "x=1").code == 2
    res = invoke("--max-depth", "400", "eval", "-e", expr, "--at", "x=1", "--format", "json")
    assert res.code == 0, res.stderr
    assert json.loads(res.stdout)["gradients"]["x"]["value"] == 1.0


def test_int_and_bool_gradients_requested_explicitly(tmp_path) -> None:
    # TensorFlow warns and returns None for a non-float source; d(n*x)/dx = n = 2
    path = tmp_path / "spec.yaml"
    path.write_text(
        "inputs:\n  n: {value: 2, dtype: int32}\n  b: {value: true, dtype: bool}\n  x: 1.5\n"
        "graph:\n  f: cast(n, 'float64') * x + where(b, x, 0)\n"
    )
    doc = run_json("eval", path, "--wrt", "n,b,x")
    assert doc["gradients"]["n"]["value"] is None
    assert doc["gradients"]["n"]["status"] == "unconnected"
    assert doc["gradients"]["b"]["value"] is None
    assert doc["gradients"]["x"]["value"] == 3.0  # n + 1 (where takes x)
    doc = run_json("eval", path, "--wrt", "n,b", "--unconnected", "zero")
    assert doc["gradients"]["n"]["value"] == 0 and doc["gradients"]["n"]["dtype"] == "int32"
    assert doc["gradients"]["b"]["value"] is False and doc["gradients"]["b"]["dtype"] == "bool"


def test_endless_spec_is_refused() -> None:
    """/dev/zero as SPEC, or piped into stdin, is read only up to 64 MB."""
    line = one_error_line(gradcli("eval", "/dev/zero"))
    assert line == (
        "gradcli: error: /dev/zero is larger than 64 MB; give big tensors as "
        "zeros/ones/random inputs or with --at"
    )
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [sys.executable, "-m", "gradcli", "eval", "-"],
            stdin=zero,
            capture_output=True,
            timeout=HANG_GUARD,
            preexec_fn=_cap_memory,
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        )
    assert "<stdin> is larger than 64 MB" in one_error_line(proc)
