"""The spec layer's rules through the library: the dtypes of inputs, literals and casts
(spec/lowering.py's dtype rules); functions inlined, custom gradients, recursion refused.
"""

import numpy as np
import pytest

from gradcli.api import grad
from gradcli.runtime.errors import GradcliError


def spec_grad(text, **kw):
    return grad(text, {}, spec=True, **kw)


# --- dtypes -------------------------------------------------------------------------------------
FLOAT32 = """
inputs:
  x: {value: [1.5, 2.5], dtype: float32}
graph:
  y: sum(sin(x) * 2.0)
"""


def test_float32_inputs_compute_in_float32():
    ev = spec_grad(FLOAT32)
    assert ev.outputs["y"].dtype == np.float32
    assert ev.gradients["x"].dtype == np.float32
    x = np.array([1.5, 2.5], np.float32)
    expected = np.cos(x) * np.float32(2.0)
    assert ev.gradients["x"].tolist() == expected.tolist()


def test_float32_meeting_float64_is_an_error():
    text = "inputs:\n  a: {value: 1.0, dtype: float32}\n  b: 2.0\ngraph:\n  c: a * b\n"
    with pytest.raises(GradcliError, match="float32 and float64") as exc:
        spec_grad(text)
    assert (exc.value.pos.line, exc.value.pos.col) == (5, 8)


def test_bool_becomes_float_and_int_input_is_unconnected():
    text = """
inputs:
  x: [1.0, -2.0, 3.0]
  n: {value: 2, dtype: int32}
graph:
  y: sum(x * (x > 0)) * n
wrt: [x, n]
"""
    ev = spec_grad(text)
    assert ev.outputs["y"] == 8.0
    assert ev.gradients["x"].tolist() == [2.0, 0.0, 2.0]
    assert ev.gradients["n"] is None and ev.status["n"] == "unconnected"


def test_int_inputs_are_not_default_targets():
    ev = spec_grad("inputs:\n  x: 1.0\n  n: {value: 2, dtype: int64}\ngraph:\n  y: x * n\n")
    assert list(ev.gradients) == ["x"]
    assert ev.gradients["x"] == 2.0


def test_integer_division_gives_float64():
    ev = spec_grad("inputs:\n  n: {value: [1, 2], dtype: int32}\ngraph:\n  y: n / 4\n")
    assert ev.outputs["y"].dtype == np.float64 and ev.outputs["y"].tolist() == [0.25, 0.5]


def test_literal_power_is_float_arithmetic_answered_at_once():
    assert grad("10 ** 10 ** 10 + 0 * x", {"x": 1.0}).outputs["f"] == np.inf


# --- functions ------------------------------------------------------------------------------
FUNCTIONS = """
inputs:
  a: [1.0, -2.0, 0.5]
  b: [2.0, 3.0, 4.0]
functions:
  soft_sign:
    params: [v]
    body: v / (1 + abs(v))
  scaled:
    params: [u, s]
    body: soft_sign(u) * s
  halfgrad:
    params: [u, s]
    body: u * s
    grad: [dy * s * 0.5, null]
graph:
  y: sum(scaled(a, b)) + sum(halfgrad(a, b))
"""


def test_functions_inline_and_custom_gradients_with_null():
    ev = spec_grad(FUNCTIONS)
    a, b = np.array([1.0, -2.0, 0.5]), np.array([2.0, 3.0, 4.0])
    expected_a = b / (1 + np.abs(a)) ** 2 + 0.5 * b
    np.testing.assert_allclose(ev.gradients["a"], expected_a, rtol=1e-15)
    np.testing.assert_allclose(ev.gradients["b"], a / (1 + np.abs(a)), rtol=1e-15)


def test_custom_gradient_may_use_out():
    text = """
inputs:
  x: [0.5, 1.0]
functions:
  myexp:
    params: [v]
    body: exp(v)
    grad: dy * out
graph:
  y: sum(myexp(x))
"""
    np.testing.assert_allclose(spec_grad(text).gradients["x"], np.exp([0.5, 1.0]), rtol=1e-15)


def test_recursive_functions_are_refused():
    text = """
inputs:
  x: 1.0
functions:
  f:
    params: [v]
    body: g(v)
  g:
    params: [v]
    body: f(v) + 1
graph:
  y: f(x)
"""
    with pytest.raises(GradcliError, match=r"calls itself \(f -> g -> f\)"):
        spec_grad(text)
