"""gradcli check and eval's check, through the CLI: exit codes, JSON fields, tables, formulas.

Expected values are derived by hand in the comments (or come from the specs' own comments,
which derive them); the program's output is never its own reference.
"""

import dataclasses
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import SPECS, invoke, run_json, spec

from gradcli.core.ops import REGISTRY


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch):
    """Each test starts from the default limits (a CLI run replaces limits.current)."""
    from gradcli.runtime import limits

    monkeypatch.setattr(limits, "current", limits.Limits())


ALL_SPECS = sorted(p.name for p in SPECS.glob("*.yaml"))
# specs that demonstrate a wrong custom gradient on purpose (their comment says so)
WRONG_ON_PURPOSE = {"custom_relu.yaml"}

RIGHT_CUSTOM = """\
# custom_relu with the right gradient: relu'(v) = 1 where v > 0, else 0
inputs:
  x: [1.0, -2.0, 0.5]
functions:
  custom_relu:
    params: [v]
    body: relu(v)
    grad: dy * (v > 0)
graph:
  z: sum(custom_relu(x))
"""


def check_json(*args, code=0, input=None, env=None) -> dict:
    res = invoke("check", *args, "--format", "json", input=input, env=env)
    assert res.code == code, (res.code, res.stdout, res.stderr)
    return json.loads(res.stdout)


# --- every spec --------------------------------------------------------------------------
def test_the_wrong_on_purpose_specs_say_so():
    for name in WRONG_ON_PURPOSE:
        assert "WRONG" in (SPECS / name).read_text()


@pytest.mark.parametrize("name", ALL_SPECS)
def test_every_spec_passes_check_unless_wrong_on_purpose(name):
    res = invoke("check", spec(name))
    expected = 1 if name in WRONG_ON_PURPOSE else 0
    assert res.code == expected, (res.stdout, res.stderr)
    assert res.stderr == ""


@pytest.mark.parametrize("name", ALL_SPECS)
def test_every_spec_passes_eval_with_its_default_check(name):
    res = invoke("eval", spec(name), "--format", "json")
    assert res.code == 0, res.stderr
    check = json.loads(res.stdout)["check"]
    assert check["ok"] is True and check["method"] in ("sympy", "fd")


# --- gradcli check: values and JSON fields ------------------------------------------------
def test_check_json_fields_sympy():
    doc = check_json(spec("quadratic.yaml"))
    assert doc["schema"] == 1
    assert doc["method"] == "sympy" and doc["requested"] == "auto"
    assert doc["fallback"] is False and doc["reason"] is None and doc["ok"] is True
    x = doc["inputs"]["x"]
    # y = x*x + 3x at x = 2: dy/dx = 2x + 3 = 7, exactly, on both sides
    assert x["autodiff"] == 7.0 and x["reference"] == 7.0
    assert x["max_abs_error"] == 0.0 and x["max_rel_error"] == 0.0
    assert x["verdict"] == "agree" and x["ok"] is True and x["method"] == "sympy"
    assert x["shape"] == [] and x["dtype"] == "float64"
    assert x["rtol"] == 1e-6 and x["atol"] == 1e-8 and x["checked"] == 1
    assert doc["customs"] == [] and doc["max_abs_error"] == 0.0


def test_check_by_finite_differences():
    doc = check_json(spec("two_inputs.yaml"), "--method", "fd")
    assert doc["method"] == "fd" and doc["fallback"] is False and doc["evaluations"] > 0
    # z = x*y + y*y at (2, 3): dz/dx = y = 3, dz/dy = x + 2y = 8
    assert doc["inputs"]["x"]["reference"] == pytest.approx(3.0, abs=1e-9)
    assert doc["inputs"]["y"]["reference"] == pytest.approx(8.0, abs=1e-9)
    assert doc["inputs"]["x"]["autodiff"] == 3.0 and doc["inputs"]["y"]["autodiff"] == 8.0
    assert doc["max_abs_error"] < 1e-9


def test_check_tensor_reference_values():
    # the mask spec: d sum(x * mask) / dx = mask
    mask = [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [1, 0, 0, 0, 0]]
    for method in ("sympy", "fd"):
        doc = check_json(spec("mask.yaml"), "--method", method)
        ref = np.array(doc["inputs"]["x"]["reference"])
        assert np.allclose(ref, mask, rtol=0, atol=1e-9)
        assert doc["inputs"]["x"]["checked"] == 25


def test_check_tutorial_z_values():
    # z = x**2 + y*x - 3y at (3, 2): dz/dx = 2x + y = 8, dz/dy = x - 3 = 0
    doc = check_json(spec("tutorial_z.yaml"))
    assert doc["inputs"]["x"]["reference"] == 8.0 and doc["inputs"]["y"]["reference"] == 0.0


def test_check_table_lists_inputs_method_and_summary():
    res = invoke("check", spec("two_inputs.yaml"))
    assert res.code == 0
    lines = res.stdout.splitlines()
    assert lines[0] == "method: sympy"
    assert any(line.split()[:2] == ["x", "│"] and "agree" in line for line in lines)
    assert any(line.split()[:2] == ["y", "│"] and "agree" in line for line in lines)
    assert "check ok: 2 gradients agree with SymPy's derivative" in res.stdout


def test_stop_gradient_is_a_constant_for_the_references():
    # z = stop_gradient(x) * y: dz/dx is None (reference 0), dz/dy = x = 2
    for method in ("sympy", "fd"):
        doc = check_json(spec("stop_gradient.yaml"), "--method", method)
        assert doc["inputs"]["x"]["autodiff"] is None
        assert doc["inputs"]["x"]["reference"] == 0.0
        assert doc["inputs"]["y"]["reference"] == pytest.approx(2.0, abs=1e-9)


def test_cond_takes_the_evaluated_branch():
    # cond(x > 0, x*y, 0) at (2, 3): dz/dx = y = 3, dz/dy = x = 2
    doc = check_json(spec("cond_taken.yaml"))
    assert doc["inputs"]["x"]["reference"] == 3.0 and doc["inputs"]["y"]["reference"] == 2.0


def test_kinks_follow_the_core_conventions():
    # relu'(0) = 0, abs'(0) = 0, maximum's tie goes to the first argument
    for method in ("sympy", "fd"):
        doc = check_json(
            "-e", "relu(x) + abs(x) + maximum(x, y)", "--at", "x=0", "--at", "y=0",
            "--method", method,
        )  # fmt: skip
        assert doc["inputs"]["x"]["reference"] == pytest.approx(1.0, abs=1e-9)
        assert doc["inputs"]["y"]["reference"] == pytest.approx(0.0, abs=1e-9)


def test_float32_spec_is_checked_by_finite_differences_in_float64():
    text = "inputs:\n  x: {value: 0.5, dtype: float32}\ngraph:\n  y: sin(x) * x\n"
    doc = check_json("-", input=text)
    assert doc["method"] == "fd" and doc["fallback"] is False
    assert "float32" in doc["reason"]
    # d(x sin x)/dx = sin x + x cos x at x = 0.5
    expected = math.sin(0.5) + 0.5 * math.cos(0.5)
    assert doc["inputs"]["x"]["reference"] == pytest.approx(expected, rel=1e-7)
    assert doc["inputs"]["x"]["rtol"] == 1e-4 and doc["inputs"]["x"]["atol"] == 1e-6


def test_integer_inputs_are_skipped():
    text = "inputs:\n  x: 2.0\n  n: {value: 3, dtype: int32}\nwrt: [x, n]\ngraph:\n  y: x * n\n"
    doc = check_json("-", input=text)
    assert doc["inputs"]["n"]["verdict"] == "skipped" and "int32" in doc["inputs"]["n"]["note"]
    assert doc["inputs"]["x"]["reference"] == 3.0


# --- a wrong gradient: disagreement, loudly ----------------------------------------------
@pytest.fixture
def wrong_sin(monkeypatch):
    """Break the core's sin gradient (cos -> sin), as a bug in gradcli would."""
    op = REGISTRY["sin"]
    wrong = dataclasses.replace(op, grads=(lambda b, n, g: b.mul(g, b.sin(n.inputs[0])),))
    monkeypatch.setitem(REGISTRY, "sin", wrong)


@pytest.mark.parametrize("method", ["sympy", "fd"])
def test_check_exits_1_and_lists_the_worst_elements(wrong_sin, method):
    args = ("-e", "sum(sin(x))", "--at", "x=[0.5, 1.0, 0.0]", "--method", method)
    doc = check_json(*args, code=1)
    x = doc["inputs"]["x"]
    assert doc["ok"] is False and x["verdict"] == "disagree" and x["ok"] is False
    # the reference is cos(x); the broken autodiff gives sin(x)
    assert x["reference"] == pytest.approx([math.cos(0.5), math.cos(1.0), 1.0], rel=1e-9)
    assert x["autodiff"] == pytest.approx([math.sin(0.5), math.sin(1.0), 0.0], rel=1e-12)
    worst = x["worst"]
    assert worst[0]["element"] == "x[2]"  # |0 - 1| is the largest error
    assert worst[0]["index"] == [2] and worst[0]["abs_error"] == pytest.approx(1.0, abs=1e-9)
    assert len(worst) == 3
    assert doc["max_abs_error"] == pytest.approx(1.0, abs=1e-9)
    res = invoke("check", *args)
    assert res.code == 1
    assert "DISAGREE" in res.stdout and "x[2]: autodiff 0, reference" in res.stdout
    assert "check FAILED" in res.stdout


def test_eval_warns_and_exits_1_on_disagreement(wrong_sin):
    res = invoke("eval", "-e", "sin(x)", "--at", "x=0.5", "--format", "plain")
    assert res.code == 1
    assert res.stdout.splitlines()[1] == f"grad\tx\t{math.sin(0.5)!r}"
    assert res.stderr.startswith("gradcli: warning: check FAILED against SymPy's derivative")
    assert len(res.stderr.splitlines()) == 1
    doc = json.loads(invoke("eval", "-e", "sin(x)", "--at", "x=0.5", "--format", "json").stdout)
    assert doc["check"]["ok"] is False and doc["check"]["inputs"]["x"]["verdict"] == "disagree"
    table = invoke("eval", "-e", "sin(x)", "--at", "x=0.5", "--format", "table")
    assert table.code == 1 and "DISAGREES" in table.stdout and "check FAILED" in table.stdout
    off = invoke("eval", "-e", "sin(x)", "--at", "x=0.5", "--check", "off")
    assert off.code == 0 and off.stderr == ""


# --- custom gradients --------------------------------------------------------------------
@pytest.mark.parametrize("method", ["auto", "sympy", "fd"])
def test_wrong_custom_gradient_fails_with_the_factor(method):
    doc = check_json(spec("custom_relu.yaml"), "--method", method, code=1)
    assert doc["ok"] is False
    (c,) = doc["customs"]
    assert c["function"] == "custom_relu" and c["parameter"] == "v" and c["ok"] is False
    # grad: 2 * (v > 0) against relu' = (v > 0): twice the derivative at x = 1 and 0.5
    assert (
        c["message"] == "custom_relu's gradient is 2x the derivative of its body at 2 of 3 elements"
    )
    assert c["factor"] == 2.0 and c["mismatched"] == 2 and c["elements"] == 3
    assert c["at"].startswith(spec("custom_relu.yaml") + ":12:")
    assert [(w["element"], w["gradient"], w["derivative"]) for w in c["worst"]] == [
        ("v[0]", 2.0, pytest.approx(1.0, abs=1e-9)),
        ("v[2]", 2.0, pytest.approx(1.0, abs=1e-9)),
    ]
    # the engine honours the custom gradient as given: [2, 0, 2]
    assert doc["inputs"]["x"]["autodiff"] == [2.0, 0.0, 2.0]
    assert doc["inputs"]["x"]["verdict"] == "agree"


def test_wrong_custom_gradient_table_names_the_function():
    res = invoke("check", spec("custom_relu.yaml"))
    assert res.code == 1
    assert "WRONG  custom_relu's gradient is 2x the derivative of its body at 2 of 3" in res.stdout
    assert "the custom gradient of custom_relu is WRONG" in res.stdout


@pytest.mark.parametrize("method", ["auto", "fd"])
def test_right_custom_gradient_passes(method):
    doc = check_json("-", "--method", method, input=RIGHT_CUSTOM)
    (c,) = doc["customs"]
    assert c["ok"] is True and c["mismatched"] == 0
    assert (
        c["message"]
        == "custom_relu's gradient matches the derivative of its body at all 3 elements"
    )
    assert doc["inputs"]["x"]["autodiff"] == [1.0, 0.0, 1.0]


def test_custom_gradient_of_two_parameters_names_the_wrong_one():
    text = """\
inputs:
  a: 1.5
  b: -0.5
functions:
  mul2:
    params: [u, v]
    body: u * v
    grad: [dy * v, dy * u * 3]
graph:
  z: mul2(a, b)
"""
    doc = check_json("-", input=text, code=1)
    by_param = {c["parameter"]: c for c in doc["customs"]}
    assert by_param["u"]["ok"] is True
    # d(uv)/dv = u; the grad: gives 3u
    assert (
        by_param["v"]["message"]
        == "mul2's gradient for v is 3x the derivative of its body at 1 of 1 element"
    )


def test_custom_gradient_missing_for_a_parameter():
    text = """\
inputs:
  a: 1.5
functions:
  f:
    params: [u]
    body: u * u
    grad: null
graph:
  z: f(a)
"""
    doc = check_json("-", input=text, code=1)
    (c,) = doc["customs"]
    assert (
        c["message"]
        == "f gives no gradient, but the derivative of its body is nonzero at 1 of 1 element"
    )


def test_eval_takes_a_custom_gradient_as_given():
    doc = run_json("eval", spec("custom_relu.yaml"))
    assert doc["check"]["ok"] is True and doc["check"]["customs"] == []
    assert doc["check"]["inputs"]["x"]["reference"] == [2.0, 0.0, 2.0]


# --- eval's check -------------------------------------------------------------------------
def test_eval_json_check_object():
    doc = run_json("eval", spec("two_inputs.yaml"))
    check = doc["check"]
    assert set(check) >= {"method", "ok", "max_abs_error", "max_rel_error", "inputs"}
    assert check["method"] == "sympy" and check["ok"] is True
    assert check["max_abs_error"] == 0.0 and check["max_rel_error"] == 0.0
    assert check["inputs"]["x"]["reference"] == 3.0 and check["inputs"]["y"]["reference"] == 8.0


@pytest.mark.parametrize("method", ["sympy", "fd"])
def test_eval_check_method_option(method):
    doc = run_json("eval", spec("quadratic.yaml"), "--check", method)
    assert doc["check"]["method"] == method
    assert doc["check"]["inputs"]["x"]["reference"] == pytest.approx(7.0, abs=1e-9)


def test_eval_check_off_gives_null():
    doc = run_json("eval", spec("quadratic.yaml"), "--check", "off")
    assert doc["check"] is None


def test_eval_table_has_a_check_column_and_a_summary_line():
    res = invoke("eval", spec("two_inputs.yaml"), "--format", "table")
    assert res.code == 0
    header = next(line for line in res.stdout.splitlines() if line.startswith(" wrt"))
    assert header.split("┃")[-1].strip() == "check"
    assert res.stdout.count("ok (sympy, 0)") == 2
    assert (
        res.stdout.rstrip()
        .splitlines()[-1]
        .startswith("check ok: 2 gradients agree with SymPy's derivative; max abs error 0")
    )


def test_eval_table_without_check_has_no_check_column():
    res = invoke("eval", spec("two_inputs.yaml"), "--format", "table", "--check", "off")
    assert "check" not in res.stdout


def test_eval_plain_output_is_unchanged_by_the_check():
    res = invoke("eval", spec("two_inputs.yaml"), "--format", "plain")
    # z = x*y + y*y at (2, 3): 6 + 9 = 15; dz/dx = 3, dz/dy = 8
    assert res.stdout.splitlines() == ["output\tz\t15", "grad\tx\t3", "grad\ty\t8"]


def test_eval_check_column_shows_the_fallback_method():
    res = invoke("eval", spec("mlp.yaml"), "--format", "table")
    assert res.code == 0
    assert "ok (fd," in res.stdout
    assert "finite differences (fallback: the expression is too big for SymPy" in res.stdout


# --- --symbolic ---------------------------------------------------------------------------
def test_symbolic_quadratic_in_every_format():
    # d(x*x + 3x)/dx = 2x + 3
    doc = check_json(spec("quadratic.yaml"), "--symbolic")
    assert doc["formulas"] == [{"output": "y", "input": "x", "formula": "2*x + 3", "note": None}]
    res = invoke("check", spec("quadratic.yaml"), "--symbolic")
    assert "d y/d x = 2⋅x + 3" in res.stdout
    res = invoke("eval", spec("quadratic.yaml"), "--symbolic", "--format", "plain")
    assert res.stdout.splitlines()[-1] == "formula\td y/d x\t2*x + 3"
    res = invoke("eval", "-e", "x*x + 3*x", "--at", "x=2", "--symbolic", "--format", "table")
    assert "d f/d x = 2⋅x + 3" in res.stdout


def test_symbolic_two_inputs_and_tensor_elements():
    doc = run_json("eval", spec("tutorial_z.yaml"), "--symbolic")
    formulas = {(f["output"], f["input"]): f["formula"] for f in doc["formulas"]}
    assert formulas == {("z", "x"): "2*x + y", ("z", "y"): "x - 3"}
    doc = run_json("eval", "-e", "sum(w * w)", "--at", "w=[1, 2]", "--symbolic")
    assert doc["formulas"][0]["input"] == "w[0]" and doc["formulas"][0]["formula"] == "2*w[0]"


def test_symbolic_big_tensor_gets_a_note():
    doc = run_json("eval", spec("mask.yaml"), "--symbolic", "--check", "off")
    (f,) = doc["formulas"]
    assert f["formula"] is None and "25 elements" in f["note"]
    assert doc["check"] is None


def test_symbolic_with_stop_gradient_is_zero():
    doc = run_json("eval", spec("stop_gradient.yaml"), "--symbolic")
    formulas = {f["input"]: f["formula"] for f in doc["formulas"]}
    # z = stop_gradient(x) * y: 0 for x, x's value (2) for y
    assert formulas == {"x": "0", "y": "2"}


# --- bounded cost: the fallbacks ----------------------------------------------------------
def chain_spec(n: int) -> str:
    lines = ["inputs:", "  x0: 0.5", "graph:"]
    lines += [f"  x{i}: sin(x{i - 1}) * 0.5 + 0.25" for i in range(1, n + 1)]
    return "\n".join(lines) + "\n"


def chain_gradient(n: int) -> float:
    """d x_n / d x_0 = prod 0.5 cos(x_{i-1}), by hand."""
    x, g = 0.5, 1.0
    for _ in range(n):
        g *= math.cos(x) * 0.5
        x = math.sin(x) * 0.5 + 0.25
    return g


def test_node_limit_falls_back_to_finite_differences():
    doc = check_json("-", input=chain_spec(300))
    assert doc["method"] == "fd" and doc["fallback"] is True
    assert doc["reason"].startswith("the expression is too big for SymPy: about")
    assert "over the limit of 250 (GRADCLI_SYMPY_MAX_NODES)" in doc["reason"]
    assert doc["inputs"]["x0"]["reference"] == pytest.approx(chain_gradient(300), rel=1e-6)


def test_node_limit_flag_and_env():
    doc = check_json("-", "--method", "sympy", input=chain_spec(3))
    assert doc["method"] == "sympy"
    res = invoke("--sympy-max-nodes", "5", "check", "-", "--format", "json", input=chain_spec(3))
    assert json.loads(res.stdout)["reason"].endswith(
        "over the limit of 5 (GRADCLI_SYMPY_MAX_NODES)"
    )
    doc = check_json("-", input=chain_spec(3), env={"GRADCLI_SYMPY_MAX_NODES": "5"})
    assert doc["method"] == "fd" and doc["fallback"] is True


def test_time_budget_falls_back_and_says_so():
    # 120 sines of sines of the same x: a small graph, but SymPy's derivative has a term
    # per level, each a product of up to 120 cosines: far more than 0.05 s of work
    text = "inputs:\n  x: 0.3\ngraph:\n" + "".join(
        f"  y{i}: sin(y{i - 1} * x + {i})\n" if i else "  y0: sin(x)\n" for i in range(120)
    )
    env = {"GRADCLI_SYMPY_TIMEOUT": "0.05", "GRADCLI_SYMPY_MAX_NODES": "100000"}
    doc = check_json("-", "--method", "sympy", input=text, env=env)
    assert doc["method"] == "fd" and doc["fallback"] is True and doc["ok"] is True
    assert doc["reason"] == "SymPy did not finish within 0.05 s (GRADCLI_SYMPY_TIMEOUT)"
    res = invoke("check", "-", input=text, env=env)
    assert "fd (fallback: SymPy did not finish within 0.05 s" in res.stdout


def test_recursion_error_falls_back(monkeypatch):
    from gradcli.check import sympy_translation as symbolic

    def deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(symbolic, "translate_problem", deep)
    doc = check_json(spec("quadratic.yaml"))
    assert doc["method"] == "fd" and doc["fallback"] is True
    assert doc["reason"] == "SymPy exceeded Python's recursion limit (the expression is too deep)"
    assert doc["inputs"]["x"]["reference"] == pytest.approx(7.0, abs=1e-9)


def test_graphs_reusing_subexpressions_never_reach_sympy():
    # x_i = x_{i-1}**2 ... flattened to a tree doubles at every step: 2**40 nodes
    text = "inputs:\n  x0: 0.5\ngraph:\n" + "".join(
        f"  x{i}: x{i - 1} * x{i - 1} * 0.5 + 0.25\n" for i in range(1, 41)
    )
    doc = check_json("-", "--method", "sympy", input=text)
    assert doc["method"] == "fd" and "too big for SymPy" in doc["reason"]


@pytest.mark.slow
def test_hundred_thousand_node_chain_returns_through_the_fallback():
    doc = check_json("-", "--method", "auto", input=chain_spec(100_000))
    assert doc["method"] == "fd" and doc["fallback"] is True
    assert "too big for SymPy" in doc["reason"]
    assert doc["ok"] is True
    expected = chain_gradient(100_000)
    assert doc["inputs"]["x0"]["autodiff"] == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_fd_sampling_of_big_inputs():
    text = "inputs:\n  w: {random: normal, shape: [40, 40], seed: 0}\ngraph:\n  y: sum(w * w)\n"
    res = invoke("--fd-max-elements", "50", "check", "-", "--method", "fd", "--format", "json",
                 input=text)  # fmt: skip
    assert res.code == 0, res.stderr
    w = json.loads(res.stdout)["inputs"]["w"]
    assert w["checked"] == 50 and "50 of 1600 elements checked" in w["note"]
    assert w["directional"]["ok"] is True


# --- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("check", "no-such-file.yaml"),
        ("check", spec("quadratic.yaml"), "--method", "magic"),
        ("check", spec("quadratic.yaml"), "--rtol", "-1"),
        ("check", spec("quadratic.yaml"), "--atol", "x"),
        ("check", spec("quadratic.yaml"), "--format", "plain"),
        ("eval", spec("quadratic.yaml"), "--check", "maybe"),
        ("--sympy-timeout", "0", "check", spec("quadratic.yaml")),
    ],
)
def test_bad_options_exit_2_with_one_line(args):
    res = invoke(*args)
    assert res.code == 2
    assert res.stderr.startswith("gradcli: error: ") and len(res.stderr.splitlines()) == 1


def test_bad_spec_names_file_line_col():
    res = invoke("check", "-", input="inputs:\n  x: 1.0\ngraph:\n  y: x +* 2\n")
    assert res.code == 2
    assert res.stderr.startswith("gradcli: error: <stdin>:4:")


def test_tolerance_options_are_used():
    # finite differences at a huge tolerance agree even with a broken gradient
    doc = check_json(spec("quadratic.yaml"), "--rtol", "0.5", "--atol", "0")
    assert doc["inputs"]["x"]["rtol"] == 0.5 and doc["inputs"]["x"]["atol"] == 0.0


# --- sympy stays off the paths that do not need it ----------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["eval", "--check", "off", "specs/quadratic.yaml", "--format", "json"],
        ["eval", "--check", "fd", "specs/quadratic.yaml", "--format", "json"],
    ],
)
def test_sympy_is_not_imported(args):
    code = (
        "import sys\n"
        "from gradcli.cli.main import cli\n"
        f"rc = cli.main({args!r}, standalone_mode=False)\n"
        "sys.stdout.flush()\n"
        "assert 'sympy' not in sys.modules, 'sympy was imported'\n"
        "print('NO-SYMPY', rc)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SPECS.parent)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=SPECS.parent, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("NO-SYMPY 0")


def test_the_default_check_runs_sympy_in_its_worker():
    # without the cache, the default check uses SymPy: imported in the worker process the
    # command starts at once, never in the command's own process (tests/cli/
    # test_sympy_cache_cli.py: with the cache, a spec seen before needs no SymPy at all)
    code = (
        "import sys\n"
        "from gradcli.cli.main import cli\n"
        "args = ['eval', 'specs/quadratic.yaml', '--format', 'json', '--no-cache']\n"
        "cli.main(args, standalone_mode=False)\n"
        "print('sympy' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=SPECS.parent, capture_output=True, text=True
    )
    *doc, imported = proc.stdout.splitlines()
    assert json.loads("\n".join(doc))["check"]["method"] == "sympy"
    assert imported == "False"


def test_big_custom_gradient_is_checked_on_a_sample():
    def text(grad):
        return (
            "inputs:\n  x: {random: normal, shape: [30, 30], seed: 0}\n"
            f"functions:\n  f:\n    params: [v]\n    body: v * v * v\n    grad: {grad}\n"
            "graph:\n  z: sum(f(x))\n"
        )

    # d v^3/dv = 3v^2; 2v differs from it wherever v is not 0 or 2/3 (every normal sample)
    doc = check_json("-", input=text("dy * 2 * v"), code=1)
    (c,) = doc["customs"]
    assert c["message"] == (
        "f's gradient differs from the derivative of its body at 256 of 256 checked "
        "elements (of 900)"
    )
    for w in c["worst"]:
        v = w["gradient"] / 2
        assert w["derivative"] == pytest.approx(3 * v * v, rel=1e-6, abs=1e-9)
    doc = check_json("-", input=text("dy * 3 * v * v"))
    assert doc["customs"][0]["ok"] is True


def test_non_finite_constants_keep_their_derivative():
    # d(x * nan)/dx = nan (SymPy alone would simplify x*nan to nan and differentiate to 0)
    doc = check_json("-e", "x * nan + y", "--at", "x=1", "--at", "y=2", "--method", "sympy")
    assert doc["inputs"]["x"]["reference"] == "nan" and doc["inputs"]["x"]["autodiff"] == "nan"
    assert doc["inputs"]["y"]["reference"] == 1.0 and doc["ok"] is True


def test_fd_time_budget_leaves_elements_unchecked():
    env = {"GRADCLI_FD_TIMEOUT": "0.000001"}
    doc = check_json("-e", "sum(x * x)", "--at", "x=[1, 2]", "--method", "fd", env=env)
    x = doc["inputs"]["x"]
    assert x["checked"] == 0 and x["reference"] == ["nan", "nan"]
    assert "0 of 2 elements checked: finite differences ran out of time" in x["note"]


@pytest.mark.parametrize("method", ["sympy", "fd"])
def test_a_nan_element_leaves_the_others_checked(method):
    # sum(sqrt(x)) at [-1, 4]: nan where x < 0, 1 / (2 sqrt(4)) = 0.25 elsewhere; SymPy
    # alone would make the whole sum nan and every derivative 0
    doc = check_json("-e", "sum(sqrt(x))", "--at", "x=[-1, 4]", "--method", method)
    x = doc["inputs"]["x"]
    assert x["autodiff"] == ["nan", 0.25] and x["verdict"] == "agree"
    if method == "sympy":
        assert x["reference"][0] == "nan"
        assert x["reference"][1] == pytest.approx(0.25, rel=1e-9)
    else:  # a nan sum has nan differences: x[1] is not compared, never a false alarm
        assert x["reference"] == ["nan", "nan"] and x["not_compared"] == 1


def test_eval_check_samples_at_most_32_elements():
    # mlp.yaml has 64 + 16 + 48 + 3 = 131 trainable elements
    check = run_json("eval", spec("mlp.yaml"))["check"]
    inputs = check["inputs"]
    assert sum(v["checked"] for v in inputs.values()) <= 32
    for v in inputs.values():
        assert "eval's sample of 32" in v["note"] and v["directional"]["ok"] is True
    full = check_json(spec("mlp.yaml"))
    assert sum(v["checked"] for v in full["inputs"].values()) == 131


def test_finite_differences_perturb_an_input_held_in_fortran_order():
    """A target value held transposed (Keras's orthogonal initializer: an F-ordered array)
    must be perturbed too: reshape(-1) of an F-ordered copy is not a view (the derivative
    came out 0 and the check said DISAGREE for LSTM recurrent kernels)."""
    from gradcli import api
    from gradcli.check import finite_differences as finite
    from gradcli.check.conventions import forward_values

    ev = api.grad("sum(sin(w) * w)", {"w": np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])})
    problem = ev.problem
    values = forward_values(problem.graph, problem.outputs)
    t = problem.wrt[0]
    values[t] = np.asfortranarray(values[t])
    loss = finite.Loss(problem, values)
    x0 = finite.to64(values[t])
    assert not x0.flags.c_contiguous
    w = np.asarray(x0).reshape(-1)
    for k in range(w.size):
        estimate, _ = finite.derivative(loss, t, loss.chain(t), x0, k, abs(w[k]), 1e-8, 1e-10)
        assert np.isclose(estimate, np.sin(w[k]) + w[k] * np.cos(w[k]), rtol=1e-7)
