"""NaN and Inf diagnosis (issue 8), through the CLI in JSON, plain and table form.

Expected values are TensorFlow 2.21's in float64 (checked by hand with tf.GradientTape)
and derived by hand: d log(x)/dx = 1/x, d sqrt(x)/dx = 1/(2 sqrt x), d exp(x)/dx = exp(x);
the unselected side of a where gets an upstream gradient of 0, and 0 * inf = nan.
"""

import json
import math
import re

import pytest
from helpers import invoke, run_json, spec
from hypothesis import given, settings
from hypothesis import strategies as st

WIDE = {"COLUMNS": "250"}  # keep Rich from wrapping the long lines checked below
TRAP_FIX = "where(x > 0, log(where(x > 0, x, 1)), 0)"


def same(actual, expected) -> bool:
    """Exact equality of JSON numbers, with "nan"/"inf" strings and the sign of zero."""
    if isinstance(expected, list):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    if isinstance(expected, str):
        return actual == expected
    return (
        isinstance(actual, float)
        and actual == expected
        and math.copysign(1, actual) == math.copysign(1, expected)
    )


def flat(text: str) -> str:
    """A Rich panel's text on one line: borders dropped, wrapped lines joined by one space."""
    return " ".join(text.replace("│", " ").split())


def explain_json(*args) -> dict:
    res = invoke("explain", *args, "--format", "json")
    assert res.code == 1, res.stderr
    return json.loads(res.stdout)


def non_finite(causes) -> list[dict]:
    return [c for c in causes if c["kind"] == "non_finite"]


# --- the where trap with log ------------------------------------------------------------------
def test_where_log_values_follow_tensorflow():
    doc = run_json("eval", spec("where_log_trap.yaml"))
    assert doc["outputs"]["y"]["value"] == math.log(2.0)
    assert same(doc["gradients"]["x"]["value"], [-0.0, "nan", 0.5])


def test_where_log_eval_warning_json():
    doc = run_json("eval", spec("where_log_trap.yaml"))
    (warning,) = doc["warnings"]
    assert warning["kind"] == "non_finite"
    assert (warning["what"], warning["name"]) == ("gradient", "x")
    (origin,) = warning["origins"]
    assert origin["origin"] == "where_trap"
    assert (origin["node"], origin["line"], origin["op"]) == ("y", 7, "log")
    assert origin["indices"] == [[1]] and origin["elements"] == 1
    assert origin["fix"] == TRAP_FIX
    assert warning["message"].startswith("gradient x is nan at element [1]: where_trap at y")


@pytest.mark.parametrize("fmt", ["plain", "table"])
def test_where_log_eval_warning_is_one_stderr_line(fmt):
    res = invoke("eval", spec("where_log_trap.yaml"), "--format", fmt, env=WIDE)
    assert res.code == 0
    lines = res.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gradcli: warning: gradient x is nan at element [1]: where_trap")
    assert "where(x > 0, log(x), 0)" in lines[0] and TRAP_FIX in lines[0]
    if fmt == "plain":
        assert res.stdout.splitlines() == [
            "output\ty\t0.6931471805599453",
            'grad\tx\t[-0,"nan",0.5]',
        ]
    else:
        assert "nan" in res.stdout and "warning" not in res.stdout


def test_where_log_explain_json():
    doc = explain_json(spec("where_log_trap.yaml"))
    (pair,) = doc["pairs"]
    assert pair["status"] == "non_finite"
    (cause,) = non_finite(pair["causes"])
    assert pair["causes"][0] is not None and pair["causes"][0]["kind"] == "non_finite"
    assert cause["origin"] == "where_trap"
    assert (cause["node"], cause["line"], cause["op"]) == ("y", 7, "log")
    assert cause["elements"] == 1 and cause["indices"] == [[1]]
    assert cause["fix"] == TRAP_FIX
    # the detail names both nodes (the where and the masked log) and the fix
    assert "where(x > 0, log(x), 0)" in cause["detail"]
    assert "derivative of log(x) there is inf (x = 0)" in cause["detail"]
    assert TRAP_FIX in cause["detail"]
    assert "where trap" in pair["reason"]


def test_where_log_explain_table():
    res = invoke("explain", spec("where_log_trap.yaml"), "--format", "table", env=WIDE)
    assert res.code == 1
    assert "dy/dx: non_finite" in res.stdout
    assert "non_finite at y, line 7 (1 element): where_trap:" in flat(res.stdout)
    assert TRAP_FIX in flat(res.stdout)


def test_the_suggested_fix_removes_the_nan():
    doc = run_json("eval", spec("where_log_safe.yaml"))
    assert same(doc["gradients"]["x"]["value"], [0.0, 0.0, 0.5])
    assert doc["warnings"] == []
    pair = run_json("explain", spec("where_log_safe.yaml"), code=1)["pairs"][0]
    assert pair["status"] == "partially_zero" and non_finite(pair["causes"]) == []


def test_where_trap_two_dimensional_elements():
    doc = run_json("eval", "-e", "sum(where(x > 0, log(x), 0))", "--at", "x=[[1, 0], [-1, 0]]")
    assert same(doc["gradients"]["x"]["value"], [[1.0, "nan"], [-0.0, "nan"]])
    (origin,) = doc["warnings"][0]["origins"]
    assert origin["origin"] == "where_trap"
    assert origin["indices"] == [[0, 1], [1, 1]] and origin["elements"] == 2


# --- no trap with sqrt ---------------------------------------------------------------------
def test_where_sqrt_has_no_nan():
    doc = run_json("eval", spec("where_sqrt.yaml"))
    assert doc["outputs"]["y"]["value"] == 2.0
    assert same(doc["gradients"]["x"]["value"], [0.0, 0.25, 0.0])
    assert doc["warnings"] == []
    res = invoke("eval", spec("where_sqrt.yaml"), "--format", "plain")
    assert res.code == 0 and res.stderr == ""


def test_where_sqrt_explain_reports_no_non_finite_cause():
    for fmt in ("json", "table"):
        res = invoke("explain", spec("where_sqrt.yaml"), "--format", fmt, env=WIDE)
        assert res.code == 1  # two zero elements remain a finding
        assert "non_finite" not in res.stdout
    pair = explain_json(spec("where_sqrt.yaml"))["pairs"][0]
    assert pair["status"] == "partially_zero"


# --- singular derivative ---------------------------------------------------------------------
def test_sqrt_at_zero_singular_derivative():
    doc = run_json("eval", spec("sqrt_at_zero.yaml"))
    assert doc["outputs"]["y"]["value"] == 0.0
    assert doc["gradients"]["x"]["value"] == "inf"
    (warning,) = doc["warnings"]
    assert warning["what"] == "gradient"
    assert [o["origin"] for o in warning["origins"]] == ["singular_derivative"]
    assert warning["origins"][0]["op"] == "sqrt" and warning["origins"][0]["indices"] == [[]]
    # the gradient's own entry carries explain's cause and reason too
    (cause,) = doc["gradients"]["x"]["causes"]
    assert (cause["kind"], cause["origin"]) == ("non_finite", "singular_derivative")
    assert doc["gradients"]["x"]["reason"] == (
        "dy/dx holds NaN or Inf: the derivative of sqrt(x) in y is inf"
    )
    pair = explain_json(spec("sqrt_at_zero.yaml"))["pairs"][0]
    assert pair["status"] == "non_finite"
    (cause,) = pair["causes"]
    assert (cause["origin"], cause["node"], cause["line"]) == ("singular_derivative", "y", 5)
    assert "the derivative of sqrt(x) is inf" in cause["detail"] and "x = 0" in cause["detail"]


def test_pow_half_at_zero_is_singular():
    doc = run_json("eval", "-e", "x**0.5", "--at", "x=0")
    assert doc["gradients"]["x"]["value"] == "inf"  # TensorFlow: inf
    assert doc["warnings"][0]["origins"][0]["origin"] == "singular_derivative"


def test_sqrt_table_shows_the_origin():
    res = invoke("explain", spec("sqrt_at_zero.yaml"), env=WIDE)
    assert res.code == 1
    assert "non_finite at y, line 5 (1 element): singular_derivative:" in flat(res.stdout)
    res = invoke("eval", spec("sqrt_at_zero.yaml"), "--format", "table")
    assert res.code == 0
    assert res.stderr.startswith("gradcli: warning: gradient x is inf: singular_derivative at y")


# --- forward origins --------------------------------------------------------------------------
def test_log_at_zero_forward_origin():
    doc = run_json("eval", spec("log_at_zero.yaml"))
    assert doc["outputs"]["y"]["value"] == "-inf"
    assert doc["gradients"]["x"]["value"] == "inf"  # 1 / (x - 1) at 1
    out, grad = doc["warnings"]
    assert (out["what"], out["name"]) == ("output", "y")
    (origin,) = out["origins"]
    assert (origin["origin"], origin["node"], origin["line"], origin["op"]) == (
        "forward",
        "y",
        5,
        "log",
    )
    assert origin["detail"] == "log(x - 1) gives -inf (x - 1 = 0)"
    assert out["message"] == "output y is -inf: forward origin at y (line 5): " + origin["detail"]
    assert grad["origins"][0]["origin"] == "singular_derivative"


def test_log_at_zero_explain():
    pair = explain_json(spec("log_at_zero.yaml"))["pairs"][0]
    assert pair["status"] == "non_finite"
    origins = [c["origin"] for c in non_finite(pair["causes"])]
    assert origins == ["forward", "singular_derivative"]
    forward = pair["causes"][0]
    assert forward["detail"] == "forward: log(x - 1) gives -inf (x - 1 = 0)"
    assert (forward["node"], forward["line"], forward["elements"]) == ("y", 5, 1)
    res = invoke("explain", spec("log_at_zero.yaml"), env=WIDE)
    assert "non_finite at y, line 5 (1 element): forward: log(x - 1) gives -inf" in flat(res.stdout)


def test_exp_overflow_forward_origin():
    doc = run_json("eval", spec("exp_overflow.yaml"))
    assert doc["outputs"]["y"]["value"] == "inf"
    assert doc["gradients"]["x"]["value"] == "inf"
    out, grad = doc["warnings"]
    assert out["origins"][0]["origin"] == "forward" and out["origins"][0]["op"] == "exp"
    assert out["origins"][0]["detail"] == "exp(x) overflows to inf (x = 1000)"
    # the gradient exp(x) inherits the forward value's inf
    assert grad["origins"][0]["origin"] == "propagated"
    assert "exp(x) overflows to inf (x = 1000)" in grad["origins"][0]["detail"]
    pair = explain_json(spec("exp_overflow.yaml"))["pairs"][0]
    assert [c["origin"] for c in pair["causes"]] == ["forward", "propagated"]
    res = invoke("eval", spec("exp_overflow.yaml"), "--format", "plain")
    assert res.stdout.splitlines() == ["output\ty\tinf", "grad\tx\tinf"]
    assert len(res.stderr.splitlines()) == 2 and res.code == 0


def test_input_holding_inf_is_the_forward_origin():
    doc = run_json("eval", "-e", "x*x", "--at", "x=inf")
    assert doc["gradients"]["x"]["value"] == "inf"  # TensorFlow: inf
    out, grad = doc["warnings"]
    assert out["origins"][0]["detail"] == "the input x holds inf"
    assert grad["origins"][0]["origin"] == "propagated"


# --- traps through other masking ops -------------------------------------------------------
@pytest.mark.parametrize(
    ("expr", "at", "expected", "element"),
    [
        # TensorFlow: [nan, 0.5] for relu and maximum; [e, nan] for the exp overflow
        ("sum(relu(log(x)))", "x=[0, 2]", ["nan", 0.5], [0]),
        ("sum(maximum(log(x), 0))", "x=[0, 2]", ["nan", 0.5], [0]),
        ("sum(where(x < 10, exp(x), 0))", "x=[1, 1000]", [math.e, "nan"], [1]),
    ],
)
def test_traps_through_masking_ops(expr, at, expected, element):
    doc = run_json("eval", "-e", expr, "--at", at)
    assert same(doc["gradients"]["x"]["value"], expected)
    (origin,) = doc["warnings"][0]["origins"]
    assert origin["origin"] == "where_trap" and origin["indices"] == [element]


def test_exp_trap_fix():
    doc = run_json("eval", "-e", "sum(where(x < 10, exp(x), 0))", "--at", "x=[1, 1000]")
    assert doc["warnings"][0]["origins"][0]["fix"] == "where(x < 10, exp(where(x < 10, x, 1)), 0)"


# --- no false alarms, long graphs ----------------------------------------------------------
def test_finite_results_have_no_warnings():
    doc = run_json("eval", spec("quadratic.yaml"))
    assert doc["warnings"] == []
    res = invoke("eval", spec("quadratic.yaml"), "--format", "table")
    assert res.code == 0 and res.stderr == ""


def test_long_chain(tmp_path):
    n = 3000
    lines = ["inputs:", "  x: [0.0, 1.0]", "graph:", "  a0: log(x)"]
    lines += [f"  a{i}: a{i - 1} + 1" for i in range(1, n)]
    lines.append(f"  y: sum(where(x > 0, a{n - 1}, 0))")
    path = tmp_path / "chain.yaml"
    path.write_text("\n".join(lines) + "\n")
    doc = run_json("eval", path)
    assert same(doc["gradients"]["x"]["value"], ["nan", 1.0])
    (origin,) = doc["warnings"][0]["origins"]
    assert (origin["origin"], origin["node"], origin["indices"]) == ("where_trap", "a0", [[0]])


def test_overflow_in_the_gradient():
    doc = run_json("eval", "-e", "sum(exp(x) * exp(x))", "--at", "x=[400, 1]")
    # TensorFlow: [inf, 14.778112197861299]: exp(x) * exp(x) twice, by hand
    assert same(doc["gradients"]["x"]["value"], ["inf", 2 * (math.exp(1.0) * math.exp(1.0))])
    out, grad = doc["warnings"]
    assert out["origins"][0]["origin"] == "forward"
    assert [o["origin"] for o in grad["origins"]] == ["overflow"]  # the two exp nodes, once
    assert grad["origins"][0]["indices"] == [[0]]


def test_zero_upstream_times_a_singular_derivative():
    # max passes no gradient to log(0) = -inf, whose derivative is inf: TensorFlow gives nan
    doc = run_json("eval", "-e", "max(log(x))", "--at", "x=[0, 1, 2]")
    assert same(doc["gradients"]["x"]["value"], ["nan", 0.0, 0.5])
    (origin,) = doc["warnings"][0]["origins"]
    assert origin["origin"] == "singular_derivative"
    assert origin["detail"] == (
        "the derivative of log(x) at element [0] is inf at the point itself (x = 0); "
        "the gradient reaching it there is 0, and 0 * inf = nan"
    )


TEMPLATES = [
    "sum(where(x > 0, log(x), 0))",
    "sum(sqrt(x) * w)",
    "sum(x / w)",
    "sum(exp(x * w))",
    "sum(relu(log(x)) + x ** 0.5)",
    "sum(maximum(log(x), w))",
    "logsumexp(x * w)",
    "sum(cumprod(x))",
    "sum(x @ reshape(w, [3, 1]))",
    "max(log1p(x))",
]
NUMBERS = st.sampled_from([0.0, -1.0, 1.0, 2.0, 1000.0, -1000.0, "Infinity", "NaN"])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    template=st.sampled_from(TEMPLATES),
    x=st.lists(NUMBERS, min_size=3, max_size=3),
    w=st.lists(NUMBERS, min_size=3, max_size=3),
)
def test_every_non_finite_value_gets_an_origin(template, x, w):
    at = ["--at", f"x={json.dumps(x).replace(chr(34), '')}"]
    if re.search(r"\bw\b", template):
        at += ["--at", f"w={json.dumps(w).replace(chr(34), '')}"]
    doc = run_json("eval", "-e", template, *at)
    bad = [
        (what, name)
        for what, key in (("output", "outputs"), ("gradient", "gradients"))
        for name, entry in doc[key].items()
        if "nan" in json.dumps(entry["value"]) or "inf" in json.dumps(entry["value"])
    ]
    assert [(w_["what"], w_["name"]) for w_ in doc["warnings"]] == bad
    for warning in doc["warnings"]:
        assert warning["origins"], warning["message"]
        for origin in warning["origins"]:
            assert origin["origin"] in (
                "forward",
                "where_trap",
                "singular_derivative",
                "propagated",
                "overflow",
            )
    res = invoke("explain", "-e", template, *at, "--format", "json")
    assert res.code in (0, 1)
    statuses = {p["input"]: p["status"] for p in json.loads(res.stdout)["pairs"]}
    for what, name in bad:
        if what == "gradient":
            assert statuses[name] == "non_finite"


def test_non_finite_grad_ys(tmp_path):
    path = tmp_path / "seed.yaml"
    path.write_text("inputs:\n  x: [1.0, 2.0]\ngraph:\n  y: x * 3\ngrad_ys:\n  y: [.inf, 1]\n")
    doc = run_json("eval", path)
    assert same(doc["gradients"]["x"]["value"], ["inf", 3.0])  # grad_ys * 3, by hand
    (warning,) = doc["warnings"]
    (origin,) = warning["origins"]
    assert (origin["origin"], origin["node"], origin["indices"]) == ("propagated", "y", [[0]])
    assert origin["detail"] == "grad_ys for y is inf at element [0], so the gradient is inf"


@pytest.mark.parametrize(
    ("expr", "at", "fix"),
    [
        ("sum(where(x > 0, log(x), 0))", "x=[-1, 0, 2]", TRAP_FIX),
        ("sum(where(x > 0, 1/x, 0))", "x=[-1, 0, 2]", "where(x > 0, 1 / where(x > 0, x, 1), 0)"),
        (
            "sum(where(x > 1, log(x - 1), 0))",
            "x=[1, 3]",
            "where(x > 1, log(where(x > 1, x - 1, 1)), 0)",
        ),
        ("sum(where(x <= 0, 0, sqrt(x)))", "x=[-1, 4]", None),  # no trap: sqrt_grad is safe
        ("sum(where(x <= 0, 0, log(x)))", "x=[0, 4]", "where(x <= 0, 0, log(where(x <= 0, 1, x)))"),
    ],
)
def test_suggested_fixes_remove_the_nan(expr, at, fix):
    doc = run_json("eval", "-e", expr, "--at", at)
    if fix is None:
        assert doc["warnings"] == []
        return
    (origin,) = doc["warnings"][0]["origins"]
    assert origin["fix"] == fix
    fixed = run_json("eval", "-e", f"sum({fix})", "--at", at)
    assert fixed["warnings"] == []
    assert fixed["outputs"]["f"]["value"] == doc["outputs"]["f"]["value"]


def test_reciprocal_trap_values():
    # TensorFlow: [-0.0, nan, -0.25], and [0.0, 0.0, -0.25] (positive zeros) for the fix
    doc = run_json("eval", "-e", "sum(where(x > 0, 1/x, 0))", "--at", "x=[-1, 0, 2]")
    assert same(doc["gradients"]["x"]["value"], [-0.0, "nan", -0.25])
    fix = "sum(where(x > 0, 1 / where(x > 0, x, 1), 0))"
    doc = run_json("eval", "-e", fix, "--at", "x=[-1, 0, 2]")
    assert same(doc["gradients"]["x"]["value"], [0.0, 0.0, -0.25])


def test_forward_origins_name_the_operands():
    # TensorFlow: sqrt(-1) = nan with gradient nan; 0/0 = nan with gradients inf and nan
    doc = run_json("eval", "-e", "sqrt(x)", "--at", "x=-1")
    assert (doc["outputs"]["f"]["value"], doc["gradients"]["x"]["value"]) == ("nan", "nan")
    out, grad = doc["warnings"]
    assert out["origins"][0]["detail"] == "sqrt(x) gives nan (x = -1)"
    assert grad["origins"][0]["origin"] == "propagated"
    doc = run_json("eval", "-e", "x / y", "--at", "x=0", "--at", "y=0")
    assert doc["outputs"]["f"]["value"] == "nan"
    assert (doc["gradients"]["x"]["value"], doc["gradients"]["y"]["value"]) == ("inf", "nan")
    out, gx, gy = doc["warnings"]
    assert out["origins"][0]["detail"] == "x / y gives nan (x = 0, y = 0)"
    assert [gx["name"], gy["name"]] == ["x", "y"]
    assert gx["origins"][0]["origin"] == gy["origins"][0]["origin"] == "singular_derivative"


def test_several_outputs(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(
        "inputs:\n  x: [0.0, 2.0]\ngraph:\n  y: sum(x * 2)\n  z: sum(log(x))\noutputs: [y, z]\n"
    )
    doc = run_json("eval", path)
    assert same(doc["gradients"]["x"]["value"], ["inf", 2.5])  # 2 + 1/x, by hand
    assert [(w["what"], w["name"]) for w in doc["warnings"]] == [("output", "z"), ("gradient", "x")]
    assert doc["gradients"]["x"]["reason"].startswith(
        "the gradient of the outputs with respect to x holds NaN or Inf: log(x) in z is -inf"
    )
    pairs = explain_json(path)["pairs"]
    assert [(p["output"], p["status"]) for p in pairs] == [("y", "connected"), ("z", "non_finite")]


@pytest.mark.parametrize(
    ("name", "line", "origins", "stderr"),
    [
        ("where_log_trap.yaml", 7, ["where_trap"], ["gradient x is nan at element [1]"]),
        ("sqrt_at_zero.yaml", 5, ["singular_derivative"], ["gradient x is inf"]),
        (
            "log_at_zero.yaml",
            5,
            ["forward", "singular_derivative"],
            ["output y is -inf", "gradient x is inf"],
        ),
        (
            "exp_overflow.yaml",
            5,
            ["forward", "propagated"],
            ["output y is inf", "gradient x is inf"],
        ),
    ],
)
def test_table_forms(name, line, origins, stderr):
    res = invoke("explain", spec(name), "--format", "table", env=WIDE)
    assert res.code == 1
    text = flat(res.stdout)
    assert "dy/dx: non_finite" in text
    for origin in origins:
        assert f"non_finite at y, line {line} (1 element): {origin}:" in text
    res = invoke("eval", spec(name), "--format", "table", env=WIDE)
    assert res.code == 0
    lines = res.stderr.splitlines()
    assert [s.split(":")[1].strip() for s in lines] == ["warning"] * len(stderr)
    assert [s.split(": ")[2] for s in lines] == stderr


def test_float32_overflow():
    # exp(100) overflows float32 (max ~3.4e38) but not float64 (TensorFlow: inf in float32)
    doc = run_json("eval", "-e", "exp(cast(x, 'float32'))", "--at", "x=100")
    assert doc["outputs"]["f"] == {"value": "inf", "shape": [], "dtype": "float32"}
    out, grad = doc["warnings"]
    assert out["origins"][0]["detail"] == (
        "exp(cast(x, 'float32')) overflows to inf (cast(x, 'float32') = 100)"
    )
    assert grad["origins"][0]["origin"] == "propagated"


def test_where_sqrt_hessian_follows_tensorflow():
    # TensorFlow's SqrtGradGrad divides by sqrt(x) = 0 at the masked elements: nan there;
    # at x = 4 the second derivative is -1 / (4 x^1.5) = -1/32
    doc = run_json("hessian", spec("where_sqrt.yaml"))
    block = doc["hessian"]["x"]["x"]["value"]
    assert same(block, [["nan", 0.0, "nan"], ["nan", -0.03125, "nan"], ["nan", 0.0, "nan"]])


def test_an_empty_reduction_is_not_called_an_overflow():
    # logsumexp over nothing is -inf by definition (TensorFlow's identity), exp at 1000 overflows
    res = invoke(
        "eval", "-e", "logsumexp(x)", "--at", "x=[]", "--check", "off", "--format", "plain"
    )
    assert res.code == 0
    assert res.stderr.splitlines() == [
        "gradcli: warning: output f is -inf: forward origin at f (line 1): logsumexp(x) gives -inf"
    ]
    res = invoke("eval", "-e", "exp(x)", "--at", "x=1000", "--check", "off", "--format", "plain")
    assert "exp(x) overflows to inf (x = 1000)" in res.stderr.splitlines()[0]


def test_a_nan_from_a_domain_error_is_not_called_an_overflow():
    # (-x) ** 0.5 at x = 1: TensorFlow's value and gradient are nan; the derivative is
    # undefined there (a domain error), nothing overflowed
    doc = run_json("eval", "-e", "(-x)**0.5", "--at", "x=1", "--check", "off")
    assert doc["outputs"]["f"]["value"] == "nan" and doc["gradients"]["x"]["value"] == "nan"
    text = " ".join(w["message"] for w in doc["warnings"])
    assert "overflow" not in text and "singular_derivative" in text
