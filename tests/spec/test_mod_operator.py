"""x % y is floormod, as TensorFlow's Tensor.__mod__ (TensorFlow's FloorMod on floats).

Values and gradients against TensorFlow's stored numbers for floormod
(tests/data/tf_reference.json), the same cases written with %; the precedence of % is
that of * and / (left to right), as in Python and TensorFlow.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import TEST_DATA, eval_grad, num

from gradcli import api
from gradcli.core.jacobian import hessian
from gradcli.spec import expression as ex

DATA = json.loads((TEST_DATA / "tf_reference.json").read_text())
CASES = {c["id"]: c for c in DATA["cases"]}
HESSIANS = {h["id"]: h for h in DATA["hessians"]}
# floormod's reference cases, with the call written as the operator
WRITTEN = {
    "floormod_signs": "x % y",
    "floormod_broadcast": "x % y",
    "floormod_times_x": "x * (x % y)",
}


def _decode(enc: dict) -> np.ndarray:
    flat = [float(v) if isinstance(v, str) else v for v in np.array(enc["value"]).reshape(-1)]
    return np.array(flat, dtype=enc["dtype"]).reshape(enc["shape"])


def _same(got, enc: dict) -> None:
    want = _decode(enc)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 included


@pytest.mark.parametrize("mode", ["none", "zero"])
@pytest.mark.parametrize("case_id", list(WRITTEN))
def test_percent_matches_tensorflows_floormod(case_id, mode) -> None:
    case = CASES[case_id]
    assert case["expr"].replace(" ", "") != WRITTEN[case_id].replace(" ", "")
    at = {k: np.asarray(v, dtype=np.float64) for k, v in case["at"].items()}
    ev = api.grad(WRITTEN[case_id], at, unconnected=mode)
    (want,) = case["outputs"].values()
    _same(ev.outputs["f"], want)
    for name, enc in case["gradients"][mode].items():
        _same(ev.gradients[name], enc)


@pytest.mark.parametrize("mode", ["none", "zero"])
def test_percent_second_order_matches_tensorflow(mode) -> None:
    case = HESSIANS["h_floormod"]
    at = {k: np.asarray(v, dtype=np.float64) for k, v in case["at"].items()}
    problem = api.problem_from_expression("sum(x * (x % y))", at, wrt=case["wrt"], unconnected=mode)
    blocks = hessian(problem)
    for block in case["hessians"][mode]:
        got = blocks[block["of"]][block["by"]].value
        if block["value"] is None:  # d/dy of -floor(x / y): no gradient, as in TensorFlow
            assert got is None
        else:
            _same(got, block["value"])


def test_percent_is_the_floormod_op_and_binds_like_times() -> None:
    assert ex.parse("a % b").op == "%"
    assert ex._PRECEDENCE["%"] == ex._PRECEDENCE["*"] == ex._PRECEDENCE["/"]
    # left to right with * and /: (x * 3) % 4 and (x % 4) * 3
    value, _ = eval_grad("x * 3 % 4", x=2.5)
    assert num(value) == 3.5
    value, _ = eval_grad("x % 4 * 3", x=5.5)
    assert num(value) == 4.5
    value, grads = eval_grad("-x % 4", x=1.5)  # (-x) % 4: the sign binds tighter
    assert (num(value), num(grads["x"])) == (2.5, -1.0)
    value, _ = eval_grad("x + 7 % 4", x=1.0)
    assert num(value) == 4.0


def test_percent_values_and_gradients_equal_floormods() -> None:
    xs, ys = [5.5, -5.5, 5.5, -5.5, 0.75, 3.0], [2.0, 2.0, -2.0, -2.0, 0.5, 1.5]
    assert eval_grad("x % y", x=xs, y=ys) == eval_grad("floormod(x, y)", x=xs, y=ys)
