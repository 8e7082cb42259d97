"""conv3d, max_pool3d and avg_pool3d (NDHWC): values against plain loops, first and second
derivatives against finite differences, TensorFlow's float32-only 3-D pools and its
MaxPool3DGrad (every element within 1e-5 of the maximum gets the whole gradient), the
refusals TensorFlow's CPU makes, explain, check and the reader. TensorFlow's own values are
tools/tf_cases_volumes.py's.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.helpers import (
    assert_first_and_second_order,
    invoke,
    num,
    run_json,
    value_grad_hvp,
)

RNG = np.random.default_rng(2024)


def conv3d_loops(x, k, strides=(1, 1, 1)):
    """VALID conv3d by definition: y[b, o] = sum over taps and channels of x * k."""
    b, *n, _ = x.shape
    kd, kh, kw, _, m = k.shape
    out = [(n[i] - k.shape[i]) // strides[i] + 1 for i in range(3)]
    y = np.zeros((b, *out, m))
    for o in itertools.product(*(range(v) for v in out)):
        at = [o[i] * strides[i] for i in range(3)]
        window = x[:, at[0] : at[0] + kd, at[1] : at[1] + kh, at[2] : at[2] + kw, :]
        y[(slice(None), *o)] = np.tensordot(window, k, axes=4)
    return y


def forward(expr, inputs):
    from gradcli.api import problem_from_expression
    from gradcli.core.executor import run

    problem = problem_from_expression(expr, inputs, wrt=list(inputs))
    return np.asarray(run(problem.graph, problem.outputs)[problem.outputs[0]])


CONVS = [("conv3d(x, k, 1, 'VALID')", (1, 1, 1)), ("conv3d(x, k, [2, 1, 2], 'VALID')", (2, 1, 2))]


@pytest.mark.parametrize(("call", "strides"), CONVS)
def test_conv3d_against_loops_and_finite_differences(call, strides):
    x, k = RNG.uniform(-1, 1, (2, 4, 3, 5, 2)), RNG.uniform(-1, 1, (2, 2, 3, 2, 3))
    np.testing.assert_allclose(forward(call, {"x": x, "k": k}), conv3d_loops(x, k, strides),
                               atol=1e-12)  # fmt: skip
    w = RNG.uniform(-1, 1, forward(call, {"x": x, "k": k}).shape)
    for name in ("x", "k"):
        expr = f"sum({call} ** 2 * w)"
        assert_first_and_second_order(expr, {"x": x, "k": k, "w": w}, name, RNG)


def test_conv3d_same_pads_as_tensorflow():
    # SAME, stride 1, a 3-deep window: one zero plane before and after along depth
    x, k = RNG.uniform(-1, 1, (1, 3, 2, 2, 1)), RNG.uniform(-1, 1, (3, 1, 1, 1, 1))
    padded = np.pad(x, ((0, 0), (1, 1), (0, 0), (0, 0), (0, 0)))
    np.testing.assert_allclose(forward("conv3d(x, k, 1, 'SAME')", {"x": x, "k": k}),
                               conv3d_loops(padded, k), atol=1e-12)  # fmt: skip


@pytest.mark.parametrize(("expr", "message"), [
    ("conv3d(x, k, 1, 'VALID', dilations=2)", "only supports dilation rates of 1"),
    ("conv3d(x, k, 1, 'EXPLICIT')", "padding must be 'SAME' or 'VALID'"),
    ("max_pool3d(x, 2, 1, 'VALID')", "float32 only (MaxPool3D raises InvalidArgumentError"),
    ("avg_pool3d(x, 2, 1, 'VALID')", "float32 only (AvgPool3D has no such CPU kernel"),
    ("max_pool3d(cast(x, 'float32'), [2, 2], 1, 'VALID')", "ksize should have 1, 3 or 5"),
])  # fmt: skip
def test_tensorflow_cpu_refusals(expr, message):
    at = ["--at", f"x={np.ones((1, 3, 3, 3, 1)).tolist()}", "--at",
          f"k={np.ones((2, 2, 2, 1, 1)).tolist()}"]  # fmt: skip
    res = invoke("eval", "-e", f"sum({expr})", *(at if "k," in expr else at[:2]))
    assert res.code == 2 and message in res.stderr, res.stderr


def _pool_grad(expr, x):
    doc = run_json("eval", "-e", expr, "--at", f"x={x.tolist()}", "--check", "off")
    return num(doc["gradients"]["x"]["value"]).reshape(x.shape)


def test_max_pool3d_gives_every_near_maximum_the_whole_gradient():
    x = np.array([1, 5, 5, 2, 0, 4.999992, 3, 4.99998]).reshape(1, 2, 2, 2, 1)
    g = _pool_grad("sum(max_pool3d(cast(x, 'float32'), 2, 2, 'VALID') * 3)", x)
    # 5, 5 and 4.999992 (within 1e-5 in float32) each get 3; 4.99998 does not
    assert g.reshape(-1).tolist() == [0, 3, 3, 0, 0, 3, 0, 0]


def test_max_pool3d_overlapping_windows_add_up():
    x = np.array([1.0, 3, 2, 0]).reshape(1, 1, 1, 4, 1)
    g = _pool_grad("sum(max_pool3d(cast(x, 'float32'), [1, 1, 2], 1, 'VALID'))", x)
    assert g.reshape(-1).tolist() == [0, 2, 1, 0]  # windows (1, 3), (3, 2), (2, 0)


def test_max_pool3d_second_order_picks_the_first_maximum():
    # d/dx of sum(max_pool3d(x)^2)'s gradient: MaxPool3DGradGrad reads the first tied 5 only
    x = np.array([1, 5, 5, 2, 0, 1, 3, 4.0]).reshape(1, 2, 2, 2, 1)
    expr = "sum(max_pool3d(cast(x, 'float32'), 2, 2, 'VALID') ** 2)"
    v = np.zeros_like(x)
    v.reshape(-1)[1] = 1.0  # the Hessian's column for the first 5
    _, g, hv = value_grad_hvp(expr, {"x": x}, "x", v)
    assert g.reshape(-1).tolist() == [0, 10, 10, 0, 0, 0, 0, 0]
    assert hv.reshape(-1).tolist() == [0, 2, 2, 0, 0, 0, 0, 0]
    v.reshape(-1)[1], v.reshape(-1)[2] = 0.0, 1.0  # the second 5: not read
    assert value_grad_hvp(expr, {"x": x}, "x", v)[2].reshape(-1).tolist() == [0] * 8


@pytest.mark.parametrize("expr", [
    "sum(avg_pool3d(cast(x, 'float32'), 2, 1, 'SAME') ** 2 * cast(w, 'float32'))",
    "sum(max_pool3d(cast(x, 'float32'), [2, 1, 2], [1, 1, 2], 'SAME') ** 2 * cast(w, 'float32'))",
])  # fmt: skip
def test_pools_against_finite_differences(expr):
    # float32 pools: dyadic values 1/4 apart and a step of 1/16 keep every window's order and
    # make the quadratic's central differences exact up to float32 rounding of f
    x = RNG.permutation(24).reshape(1, 2, 3, 4, 1) / 4.0
    bare = expr.replace(" ** 2 * cast(w, 'float32')", "")
    w = RNG.integers(-4, 5, forward(bare, {"x": x}).shape) / 4.0
    inputs = {"x": x, "w": w}

    def fd(fn):
        out = np.zeros(x.size)
        for i in range(x.size):
            step = np.zeros(x.size)
            step[i] = 1 / 16
            up, down = (fn(x + sign * step.reshape(x.shape)) for sign in (1, -1))
            out[i] = (up - down) * 8
        return out.reshape(x.shape)

    _, g, _ = value_grad_hvp(expr, inputs, "x")
    np.testing.assert_allclose(g, fd(lambda z: value_grad_hvp(expr, {**inputs, "x": z}, "x")[0]),
                               rtol=1e-4, atol=1e-4)  # fmt: skip
    v = RNG.uniform(-1, 1, x.shape)
    _, _, hv = value_grad_hvp(expr, inputs, "x", v)
    gv = fd(lambda z: float(np.sum(value_grad_hvp(expr, {**inputs, "x": z}, "x")[1] * v)))
    np.testing.assert_allclose(hv, gv, rtol=1e-4, atol=1e-4)


def test_check_against_sympy():
    res = invoke("check", "-e", "sum(conv3d(x, [[[[[1.0]], [[2]]]]], 1, 'SAME') ** 2)",
                 "--at", "x=[[[[[1], [2]], [[3], [4]]]]]", "--method", "sympy")  # fmt: skip
    assert res.code == 0, (res.stdout, res.stderr)


def test_explain_names_the_elements_no_window_selects():
    x = np.array([1.0, 3, 2, 0, 5, 4]).reshape(1, 1, 1, 6, 1)
    doc = run_json("explain", "-e", "sum(max_pool3d(cast(x, 'float32'), [1, 1, 2], [1, 1, 3], "
                   "'VALID'))", "--at", f"x={x.tolist()}", "--wrt", "x", code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["zero_elements"] == 4  # windows (1, 3) and (0, 5) pick 3 and 5; 2 and 4 unread
    assert {c["kind"] for c in pair["causes"]} == {"unselected"}


def test_the_reader_maps_conv3d_and_the_3d_pools(tmp_path):
    code = tmp_path / "model.py"
    code.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable(tf.ones([1, 4, 4, 4, 2]))\n"
        "k = tf.Variable(tf.ones([2, 2, 2, 2, 3]))\n"
        "with tf.GradientTape() as tape:\n"
        "    h = tf.nn.conv3d(x, k, [1, 1, 1, 1, 1], 'SAME')\n"
        "    y = tf.reduce_sum(tf.nn.avg_pool3d(tf.nn.max_pool3d(h, 2, 2, 'VALID'), 2, 2,"
        " 'VALID'))\n"
        "g = tape.gradient(y, [x, k])\n"
    )
    doc = run_json("eval", str(code), "--check", "off")
    (call,) = doc["calls"]
    assert [g["dtype"] for g in call["gradients"]] == ["float32", "float32"]
