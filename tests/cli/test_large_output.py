"""Large outputs and gradients through the CLI: written in bulk, the same text as before.

Each value is computed here with NumPy; the JSON layout is checked against json.dumps
with indent=2 (the per-value path) and plain numbers against docs/commands.md's rule.
"""

import json
import math

import numpy as np
import pytest
from helpers import invoke

SPECIALS = [0.0, -0.0, -1.0, 5e-324, 1e308, -1e308, 2.0, math.nan, math.inf, -math.inf]


def yaml_number(v: float) -> str:
    if math.isnan(v):
        return ".nan"
    if math.isinf(v):
        return ".inf" if v > 0 else "-.inf"
    return repr(v)


@pytest.fixture
def special_spec(tmp_path):
    """2,000 inputs (the bulk path starts at 1,024): specials, then random positive values."""
    rng = np.random.default_rng(3)
    x = np.concatenate([SPECIALS, rng.uniform(0.001, 1000.0, size=2000 - len(SPECIALS))])
    path = tmp_path / "big.yaml"
    path.write_text(
        "inputs:\n"
        f"  x: [{', '.join(yaml_number(v) for v in x.tolist())}]\n"
        "graph:\n"
        "  l: log(x)\n"
        "  n: -x\n"
        "outputs: [l, n]\n"
    )
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        expected = {"l": np.log(x), "n": -x, "x": 1.0 / x - 1.0}
    return path, expected


def as_floats(data) -> np.ndarray:
    return np.array([float(v) for v in data])  # "nan", "inf", "-inf" included


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal element by element, NaN where NaN, and the sign of every zero."""
    zeros = (a == 0) & (b == 0)
    return np.array_equal(a, b, equal_nan=True) and bool(
        np.all(np.signbit(a[zeros]) == np.signbit(b[zeros]))
    )


def test_json_of_large_arrays(special_spec):
    path, expected = special_spec
    res = invoke("eval", path, "--format", "json", "--check", "off")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
    # the layout of the per-value path: json.dumps with indent=2, one number per line
    assert res.stdout == json.dumps(doc, indent=2) + "\n"
    assert same(as_floats(doc["outputs"]["l"]["value"]), expected["l"])
    assert same(as_floats(doc["outputs"]["n"]["value"]), expected["n"])
    assert same(as_floats(doc["gradients"]["x"]["value"]), expected["x"])
    assert doc["outputs"]["n"]["value"][:4] == [-0.0, 0.0, 1.0, -5e-324]
    assert doc["outputs"]["l"]["value"][:3] == ["-inf", "-inf", "nan"]


def test_plain_of_large_arrays(special_spec):
    path, expected = special_spec
    res = invoke("eval", path, "--format", "plain", "--check", "off")
    assert res.code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert [line.split("\t")[:2] for line in lines] == [
        ["output", "l"],
        ["output", "n"],
        ["grad", "x"],
    ]

    def text(v: float) -> str:  # docs/commands.md: 7 not 7.0, non-finite numbers quoted in lists
        if math.isnan(v) or math.isinf(v):
            return '"nan"' if math.isnan(v) else ('"inf"' if v > 0 else '"-inf"')
        if v == int(v) and abs(v) < 1e16:
            return "-0" if v == 0 and math.copysign(1.0, v) < 0 else str(int(v))
        return repr(v)

    for line, name in zip(lines, ("l", "n", "x")):
        value = line.split("\t")[2]
        assert value == "[" + ",".join(text(v) for v in expected[name].tolist()) + "]"
    assert lines[1].split("\t")[2].startswith("[-0,0,1,-5e-324,-1e+308,1e+308,-2,")


def test_large_jacobian_json_and_plain():
    # d(2*x)/dx for 40 inputs: 1,600 elements, 2 on the diagonal
    at = "x=" + json.dumps(list(range(40)))
    res = invoke("jacobian", "-e", "2 * x", "--at", at, "--format", "json")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert res.stdout == json.dumps(doc, indent=2) + "\n"
    assert doc["jacobian"]["f"]["x"]["value"] == (2.0 * np.eye(40)).tolist()
    res = invoke("jacobian", "-e", "2 * x", "--at", at, "--format", "plain")
    rows = ",".join(
        "[" + ",".join("2" if i == j else "0" for j in range(40)) + "]" for i in range(40)
    )
    assert res.stdout == f"jacobian\tf\tx\t[{rows}]\n"
