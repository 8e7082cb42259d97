"""gradcli eval's command-line promises: formats, stdin, overrides, errors, a real subprocess."""

import json
import os
import subprocess
import sys
import warnings

import pytest
from helpers import SPECS, invoke, run_json, spec


def test_json_document_fields():
    doc = run_json("eval", spec("mask.yaml"))
    assert doc["schema"] == 1 and doc["unconnected"] == "none"
    assert doc["outputs"]["loss"]["shape"] == [] and doc["outputs"]["loss"]["dtype"] == "float64"
    g = doc["gradients"]["x"]
    assert set(g) >= {"value", "shape", "dtype", "status"}
    assert g["shape"] == [5, 5] and g["status"] == "connected"


def test_json_encodes_non_finite_numbers_as_strings():
    res = invoke("eval", "-e", "log(x) * [1, -1] + [0, 0] / x2", "--at", "x=0", "--at", "x2=0",
                 "--format", "json")  # fmt: skip
    assert res.code == 0
    doc = json.loads(res.stdout, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
    assert doc["outputs"]["f"]["value"] == ["nan", "nan"]
    assert doc["gradients"]["x"]["value"] == "nan"  # -inf + inf


@pytest.mark.parametrize("command, expr, cell", [
    ("eval", "sum(log(x))", "[inf,  1.]"), ("check", "sum(log(x))", "[inf,  1.]"),
    ("jacobian", "log(x)", "[[inf,  0.],"), ("hessian", "sum(-log(x))", "[[inf,  0.],"),
])  # fmt: skip
def test_table_cells_with_inf_and_nan_are_not_read_as_markup(command, expr, cell):
    # Rich reads "[inf,  1.]" as a markup tag: unescaped, the cell came out empty
    res = invoke(command, "-e", expr, "--at", "x=[0.0, 1.0]", "--format", "table")
    assert res.code == 0, res.stderr
    cells = [c.strip() for line in res.stdout.splitlines() for c in line.split("│")]
    assert cell in cells, res.stdout


def test_plain_format_lines():
    res = invoke("eval", spec("custom_relu.yaml"), "--format", "plain")
    assert res.code == 0
    assert res.stdout.splitlines() == ["output\tz\t1.5", "grad\tx\t[2,0,2]"]


def test_plain_is_the_default_when_not_a_terminal():
    res = invoke("eval", spec("stop_gradient.yaml"))
    assert res.stdout.splitlines() == ["output\tz\t6", "grad\tx\tNone", "grad\ty\t2"]


def test_table_format_without_colour():
    res = invoke("eval", spec("stop_gradient.yaml"), "--format", "table")
    assert res.code == 0
    assert "\x1b[" not in res.stdout  # not a terminal: no colour codes
    lines = res.stdout.splitlines()
    assert any(line.split()[:4] == ["z", "│", "()", "│"] for line in lines)
    row_x = next(line for line in lines if line.lstrip().startswith("x "))
    assert "None" in row_x and "unconnected" in row_x
    row_y = next(line for line in lines if line.lstrip().startswith("y "))
    assert "2" in row_y and "connected" in row_y


def test_spec_from_stdin():
    text = (SPECS / "quadratic.yaml").read_text()
    res = invoke("eval", "-", "--format", "plain", input=text)
    assert res.code == 0 and res.stdout.splitlines()[-1] == "grad\tx\t7"


def test_at_overrides_keep_the_spec_shape_rules():
    doc = run_json("eval", spec("two_inputs.yaml"), "--at", "x=[1, 2]", "--at", "y=inf")
    assert doc["outputs"]["z"]["value"] == ["inf", "inf"]
    doc = run_json("eval", spec("quadratic.yaml"), "--at", "x=-1.5")
    assert doc["gradients"]["x"]["value"] == 0.0


def test_wrt_override_and_intermediate_target():
    doc = run_json("eval", spec("mask.yaml"), "--wrt", "masked_x")
    assert list(doc["gradients"]) == ["masked_x"]
    assert doc["gradients"]["masked_x"]["value"] == [[1.0] * 5] * 5
    doc = run_json("eval", spec("two_inputs.yaml"), "--wrt", "y", "--wrt", "x")
    assert list(doc["gradients"]) == ["y", "x"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "-e", "sinn(x)", "--at", "x=1"],
         "<expr>:1:1: unknown function 'sinn' (did you mean 'sin'?)"),
        (["eval", "-e", "x * y", "--at", "x=1"], "no value for 'y'"),
        (["eval", "-e", "x", "--at", "x=[1, 2"], "--at x: cannot read"),
        (["eval", "-e", "x", "--at", "x"], "expected NAME=VALUE"),
        (["eval", spec("quadratic.yaml"), "--wrt", "q"], "--wrt names 'q'"),
        (["eval", spec("quadratic.yaml"), "-e", "x"], "not both"),
        (["eval"], "no spec"),
        (["eval", "missing.yaml"], "cannot read missing.yaml"),
        (["eval", spec("quadratic.yaml"), "--format", "xml"], "'xml' is not one of"),
    ],
)  # fmt: skip
def test_errors_are_one_line_with_exit_2(args, message):
    res = invoke(*args)
    assert res.code == 2
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradcli: error: ")
    assert message in lines[0]
    assert "Traceback" not in res.stderr


def test_error_position_in_a_spec_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("inputs:\n  x: 1.0\ngraph:\n  y: x * 2\n  z: y + sinn(x)\n")
    res = invoke("eval", path)
    assert res.code == 2
    assert res.stderr.strip() == (
        f"gradcli: error: {path}:5:10: unknown function 'sinn' (did you mean 'sin'?)"
    )


def test_error_position_inside_quoted_and_block_scalars(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text('inputs:\n  x: 1.0\ngraph:\n  y: "x * 2 + q"\n  z: |\n    y +\n      w\n')
    res = invoke("eval", path)
    assert f"{path}:4:15: unknown name 'q'" in res.stderr
    path.write_text("inputs:\n  x: 1.0\ngraph:\n  y: x\n  z: |\n    y +\n      w\n")
    res = invoke("eval", path)
    assert f"{path}:7:7: unknown name 'w'" in res.stderr


def run_process(*args, env=None, input=None):
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, input=input,
                          timeout=120)  # fmt: skip


def test_real_subprocess_pipeline():
    proc = run_process("eval", "-e", "x*x + 3*x", "--at", "x=2", "--format", "plain")
    assert proc.returncode == 0
    grads = [line.split("\t")[2] for line in proc.stdout.splitlines() if line.startswith("grad")]
    assert grads == ["7"]


def test_real_subprocess_error_is_one_line():
    proc = run_process("eval", str(SPECS / "nope.yaml"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_help_and_version():
    res = invoke("--help")
    assert res.code == 0 and "eval" in res.stdout
    res = invoke("--version")
    assert res.code == 0 and res.stdout.startswith("gradcli, version ")


@pytest.mark.parametrize(
    "at, expected",
    [
        ("x=[1, inf, -inf, nan]", [1.0, "inf", "-inf", "nan"]),
        ("x=[1, Infinity, -Infinity, NaN]", [1.0, "inf", "-inf", "nan"]),
        ("x=[[inf], [-1e308]]", [["inf"], [-1e308]]),
    ],
)
def test_at_lists_accept_inf_and_nan(at, expected):
    # x * 1 keeps the values; the JSON document spells non-finite numbers as strings.
    doc = run_json("eval", "-e", "x * 1", "--at", at, "--check", "off")
    assert doc["outputs"]["f"]["value"] == expected


def test_at_rejects_words_that_only_contain_inf():
    res = invoke("eval", "-e", "x", "--at", "x=[1, infinity]")
    assert res.code == 2 and res.stdout == ""
    assert res.stderr.startswith("gradcli: error: --at x: cannot read")


def test_cond_branches_of_different_shapes_are_one_error_line():
    res = invoke("eval", "-e", "cond(x > 0, x, [1.0, 2.0])", "--at", "x=1")
    assert res.code == 2 and res.stdout == ""
    assert res.stderr == (
        "gradcli: error: <expr>:1:1: cond: the branches have shapes () and (2,); give them one "
        "shape (e.g. broadcast_to(0.0, shape) or 0 * x for a zero branch) in 'f'\n"
    )


@pytest.mark.parametrize(
    "text, at",
    [
        ("inputs:\n  x: {value: 1e300, dtype: float32}\ngraph:\n  z: x\n", []),
        ("inputs:\n  x: {value: 1.0, dtype: float32}\ngraph:\n  z: x * 2\n", ["--at", "x=1e300"]),
    ],
)
def test_a_float32_value_past_its_range_is_inf_without_a_numpy_warning(text, at):
    # TensorFlow: tf.constant(1e300, tf.float32) is inf; a numpy warning here becomes an error
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = invoke("eval", "-", "--check", "off", "--format", "plain", *at, input=text)
    assert res.code == 0
    assert res.stdout.splitlines()[0] == "output\tz\tinf"
    assert all(line.startswith("gradcli: warning: ") for line in res.stderr.splitlines())


@pytest.mark.parametrize(
    "args, message",
    [
        (["-e", "sum(x, keepdims=0.5)", "--at", "x=[1,2]"], "<expr>:1:8: sum: keepdims must be"),
        (["-e", "cumsum(x, reverse=2)", "--at", "x=[1,2]"], "<expr>:1:11: cumsum: reverse must be"),
        (["-"], "<stdin>:3:11: an output is listed twice"),
    ],
)
def test_flags_and_duplicate_outputs_are_refused(args, message):
    # an output named twice would count twice in the gradient's sum over outputs
    res = invoke("eval", *args, input="inputs: {x: 1.0}\ngraph: {f: x*x}\noutputs: [f, f]\n")
    assert res.code == 2 and res.stdout == ""
    assert res.stderr.startswith(f"gradcli: error: {message}")
    assert len(res.stderr.splitlines()) == 1


def test_a_target_named_twice_is_reported_once():
    doc = run_json("eval", "-e", "x*y", "--at", "x=2", "--at", "y=3", "--wrt", "x,x,y")
    assert {k: v["value"] for k, v in doc["gradients"].items()} == {"x": 3.0, "y": 2.0}


def test_keepdims_takes_one_and_zero_as_true_and_false():
    assert run_json("eval", "-e", "sum(x, keepdims=1)", "--at", "x=[1,2]")["outputs"]["f"][
        "value"
    ] == [3.0]
    assert (
        run_json("eval", "-e", "sum(x, keepdims=0)", "--at", "x=[1,2]")["outputs"]["f"]["value"]
        == 3.0
    )


@pytest.mark.parametrize("command", [["check", "--method", "fd"], ["eval", "--check", "fd"]])
def test_finite_differences_through_a_solver_that_fails_at_the_moved_point(command):
    """eigvalsh of [[1, 0], [0, nan]] converges at once (zero off-diagonal), as in
    TensorFlow; a perturbed off-diagonal makes the solver fail (TensorFlow raises). Finite
    differences then have no value there: elements not compared, never an internal error."""
    doc = run_json(*command, "-e", "sum(eigvalsh(x))", "--at", "x=[[1.0,0.0],[0.0,nan]]")
    check = doc if command[0] == "check" else doc["check"]
    x = check["inputs"]["x"]
    assert x["not_compared"] == 4 and x["ok"]  # the loss itself is nan: no finite estimate


def test_a_float64_input_through_float32_ops_is_checked_with_float32_tolerances():
    """sum(cast(x, float32)^3) rounds as float32 does: its float64 finite differences differ
    from the exact float32 gradient by more than float64's rtol 1e-6, within float32's 1e-4."""
    doc = run_json("check", "-e", "sum(cast(x, 'float32') * cast(x, 'float32') * 3.3)",
                   "--at", "x=[1.1, 2.7, 3.3]")  # fmt: skip
    x = doc["inputs"]["x"]
    assert (x["rtol"], x["atol"]) == (1e-4, 1e-6) and x["ok"]


def test_every_help_ends_with_an_example_and_the_page_to_read():
    """gradcli --help and each command's --help: the common invocation, then the docs page
    (which exists: the link is checked by the docs' link test as well)."""
    from pathlib import Path

    from click.testing import CliRunner

    from gradcli.cli.main import cli

    root = Path(__file__).resolve().parents[2]
    for args in ([], *[[name] for name in cli.commands]):
        text = CliRunner().invoke(cli, [*args, "--help"]).output.rstrip().splitlines()
        example, more = text[-2].strip(), text[-1].strip()
        assert example.startswith("Example: gradcli "), (args, example)
        page = more.removeprefix("More: ").split("#")[0]
        assert more.startswith("More: docs/") and (root / page).is_file(), (args, more)
