"""conv1d, conv2d, depthwise_conv2d, conv2d_transpose and the pools: the forward against
loops written from the definitions, gradients against finite differences (first and
second order), max_pool's ties and NaNs as TensorFlow's CPU kernels treat them, check
against SymPy, explain's `unselected` counts, the reader, and positioned errors.

The values and gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_conv.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import (
    assert_first_and_second_order,
    assert_sympy_check,
    eval_grad,
    forward,
    invoke,
    num,
    run_json,
    value_grad_hvp,
)

from gradcli.api import problem_from_expression
from gradcli.core.executor import run

RNG = np.random.default_rng(20261124)


# --- loop references (NHWC, one batch axis), written from the definitions --------------------
def same(n, k, s, d=1):
    """(out, pad before) of TensorFlow's SAME padding."""
    out = -(-n // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return out, total // 2


def geometry(n, k, s, d, padding):
    if padding == "SAME":
        return same(n, k, s, d)
    if isinstance(padding, tuple):
        lo, hi = padding
        return (n + lo + hi - (k - 1) * d - 1) // s + 1, lo
    return (n - (k - 1) * d - 1) // s + 1, 0


def conv_loops(x, f, s=(1, 1), padding="SAME", d=(1, 1), depthwise=False, pads=None):
    """out[b, i, j, :] = sum over taps of x[b, i*s - top + a*d, j*s - left + c*d] @ f[a, c]."""
    n, h, w, ch = x.shape
    kh, kw = f.shape[:2]
    oh, top = geometry(h, kh, s[0], d[0], pads[0] if pads else padding)
    ow, left = geometry(w, kw, s[1], d[1], pads[1] if pads else padding)
    out = np.zeros((n, oh, ow, ch * f.shape[3] if depthwise else f.shape[3]))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for c in range(kw):
                    p, q = i * s[0] - top + a * d[0], j * s[1] - left + c * d[1]
                    if 0 <= p < h and 0 <= q < w:
                        if depthwise:
                            out[:, i, j] += (x[:, p, q, :, None] * f[a, c]).reshape(n, -1)
                        else:
                            out[:, i, j] += x[:, p, q] @ f[a, c]
    return out


def pool_loops(x, k, s, padding, kind):
    """max: the largest real element of each window; avg: their mean."""
    n, h, w, ch = x.shape
    oh, top = geometry(h, k[0], s[0], 1, padding)
    ow, left = geometry(w, k[1], s[1], 1, padding)
    out = np.zeros((n, oh, ow, ch))
    for i in range(oh):
        for j in range(ow):
            rows = slice(max(i * s[0] - top, 0), min(i * s[0] - top + k[0], h))
            cols = slice(max(j * s[1] - left, 0), min(j * s[1] - left + k[1], w))
            window = x[:, rows, cols, :]
            out[:, i, j] = window.max(axis=(1, 2)) if kind == "max" else window.mean(axis=(1, 2))
    return out


def nchw(t):
    return np.transpose(t, (0, 3, 1, 2))


def nhwc(t):
    return np.transpose(t, (0, 2, 3, 1))


# call over x (and k), their shapes, the loop reference on (x, k)
CASES = [
    ("conv2d(x, k, 1, 'SAME')", (2, 5, 4, 3), (3, 2, 3, 2), lambda x, k: conv_loops(x, k)),
    ("conv2d(x, k, [2, 3], 'VALID')", (1, 7, 8, 2), (2, 3, 2, 3),
     lambda x, k: conv_loops(x, k, (2, 3), "VALID")),
    ("conv2d(x, k, 2, 'SAME', dilations=[2, 1])", (1, 6, 5, 2), (2, 3, 2, 2),
     lambda x, k: conv_loops(x, k, (2, 2), "SAME", (2, 1))),
    ("conv2d(x, k, [1, 1, 2, 1], 'SAME')", (1, 5, 7, 2), (4, 3, 2, 2),
     lambda x, k: conv_loops(x, k, (1, 2))),
    ("conv2d(x, k, 1, 'EXPLICIT', explicit_paddings=[[0, 0], [1, 2], [0, 1], [0, 0]])",
     (1, 4, 4, 2), (2, 2, 2, 2), lambda x, k: conv_loops(x, k, pads=((1, 2), (0, 1)))),
    ("conv2d(x, k, 1, 'EXPLICIT', explicit_paddings=[[2, 0], [1, 1]])", (1, 3, 3, 1),
     (2, 2, 1, 2), lambda x, k: conv_loops(x, k, pads=((2, 0), (1, 1)))),
    ("conv2d(x, k, [2, 1], 'SAME', 'NCHW')", (2, 3, 5, 4), (3, 2, 3, 2),
     lambda x, k: nchw(conv_loops(nhwc(x), k, (2, 1)))),
    ("conv2d(x, k, 1, 'VALID')", (2, 1, 4, 3, 2), (2, 2, 2, 2),
     lambda x, k: conv_loops(x.reshape(2, 4, 3, 2), k, padding="VALID").reshape(2, 1, 3, 2, 2)),
    ("conv1d(x, k, 2, 'SAME', dilations=2)", (2, 7, 2), (3, 2, 3),
     lambda x, k: conv_loops(x[:, None], k[None], (1, 2), "SAME", (1, 2))[:, 0]),
    ("conv1d(x, k, 1, 'VALID', 'NCW')", (2, 2, 6), (3, 2, 3),
     lambda x, k: conv_loops(x.transpose(0, 2, 1)[:, None], k[None], padding="VALID")[:, 0]
     .transpose(0, 2, 1)),
    ("depthwise_conv2d(x, k, [1, 2, 2, 1], 'SAME')", (1, 5, 5, 2), (3, 3, 2, 2),
     lambda x, k: conv_loops(x, k, (2, 2), depthwise=True)),
    ("depthwise_conv2d(x, k, 1, 'VALID', dilations=2)", (1, 6, 7, 2), (2, 3, 2, 3),
     lambda x, k: conv_loops(x, k, padding="VALID", d=(2, 2), depthwise=True)),
    ("depthwise_conv2d(x, k, 1, 'SAME', 'NCHW')", (1, 2, 4, 5), (2, 2, 2, 1),
     lambda x, k: nchw(conv_loops(nhwc(x), k, depthwise=True))),
]  # fmt: skip


@pytest.mark.parametrize(("call", "x_shape", "k_shape", "loops"), CASES)
def test_convolutions_against_loops_and_finite_differences(call, x_shape, k_shape, loops):
    x, k = RNG.uniform(-1, 1, size=x_shape), RNG.uniform(-1, 1, size=k_shape)
    y = forward(call, {"x": x, "k": k})
    np.testing.assert_allclose(y, loops(x, k), rtol=1e-13, atol=1e-13)
    w = RNG.uniform(0.5, 1.5, size=y.shape)
    inputs = {"x": x, "k": k, "w": w}
    for name in ("x", "k"):
        assert_first_and_second_order(f"sum({call} ** 3 * w)", inputs, name, RNG)


TRANSPOSE = [
    ("conv2d_transpose(x, k, [1, 6, 5, 2], 2, 'SAME')", (1, 3, 3, 3), (3, 3, 2, 3), (2, 2), "SAME"),
    ("conv2d_transpose(x, k, [5, 4], 1, 'VALID')", (2, 3, 2, 3), (3, 3, 1, 3), (1, 1), "VALID"),
    ("conv2d_transpose(x, k, [2, 7, 5, 2], [2, 1], 'SAME')", (2, 4, 5, 3), (2, 3, 2, 3),
     (2, 1), "SAME"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "x_shape", "k_shape", "strides", "padding"), TRANSPOSE)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(call, x_shape, k_shape, strides, padding):
    """<conv2d_transpose(y, k), z> = <y, conv2d(z, k)> for every z of the output's shape."""
    y, k = RNG.uniform(-1, 1, size=x_shape), RNG.uniform(-1, 1, size=k_shape)
    out = forward(call, {"x": y, "k": k})
    z = RNG.uniform(-1, 1, size=out.shape)
    conv = conv_loops(z, k, strides, padding)
    assert conv.shape == y.shape
    assert np.sum(out * z) == pytest.approx(np.sum(y * conv), rel=1e-12)
    inputs = {"x": y, "k": k, "w": RNG.uniform(0.5, 1.5, size=out.shape)}
    for name in ("x", "k"):
        assert_first_and_second_order(f"sum({call} ** 3 * w)", inputs, name, RNG)


POOLS = [
    ("max_pool2d(x, 3, 1, 'SAME')", (1, 5, 4, 2), lambda x: pool_loops(x, (3, 3), (1, 1), "SAME",
                                                                     "max")),
    ("max_pool2d(x, [3, 2], 2, 'SAME')", (2, 5, 7, 1),
     lambda x: pool_loops(x, (3, 2), (2, 2), "SAME", "max")),
    ("max_pool2d(x, 2, 3, 'VALID')", (1, 7, 8, 2),
     lambda x: pool_loops(x, (2, 2), (3, 3), "VALID", "max")),
    ("max_pool2d(x, 2, [1, 2], 'SAME', 'NCHW')", (1, 2, 4, 5),
     lambda x: nchw(pool_loops(nhwc(x), (2, 2), (1, 2), "SAME", "max"))),
    ("max_pool1d(x, 3, 2, 'SAME')", (2, 7, 2),
     lambda x: pool_loops(x[:, None], (1, 3), (1, 2), "SAME", "max")[:, 0]),
    ("avg_pool2d(x, 3, 2, 'SAME')", (2, 5, 6, 2),
     lambda x: pool_loops(x, (3, 3), (2, 2), "SAME", "avg")),
    ("avg_pool2d(x, [2, 3], [3, 2], 'VALID')", (1, 7, 7, 1),
     lambda x: pool_loops(x, (2, 3), (3, 2), "VALID", "avg")),
    ("avg_pool2d(x, 2, 1, 'SAME', 'NCHW')", (1, 3, 4, 3),
     lambda x: nchw(pool_loops(nhwc(x), (2, 2), (1, 1), "SAME", "avg"))),
    ("avg_pool1d(x, 4, 3, 'SAME', 'NCW')", (2, 3, 8),
     lambda x: pool_loops(x.transpose(0, 2, 1)[:, None], (1, 4), (1, 3), "SAME", "avg")[:, 0]
     .transpose(0, 2, 1)),
]  # fmt: skip


@pytest.mark.parametrize(("call", "shape", "loops"), POOLS)
def test_pools_against_loops_and_finite_differences(call, shape, loops):
    x = RNG.permutation(np.prod(shape)).reshape(shape) / 7.0 - 1.0  # no ties: smooth there
    np.testing.assert_allclose(forward(call, {"x": x}), loops(x), rtol=1e-14, atol=1e-15)
    w = RNG.uniform(0.5, 1.5, size=np.shape(loops(x)))
    assert_first_and_second_order(f"sum({call} ** 3 * w)", {"x": x, "w": w}, "x", RNG)


# --- TensorFlow's CPU conventions for max_pool (see tools/tf_cases_conv.py) ------------------
def test_max_pool_ties_go_to_the_first_element_of_each_window():
    w = [[[1.0], [2.0], [3.0], [4.0], [5.0]]]
    _, grads = eval_grad("sum(max_pool1d(x, 3, 1, 'SAME') * w)", x=[[[1.0]] * 5], w=w)
    # windows [pad, 0, 1], [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, pad]: first max each
    assert num(grads["x"]).tolist() == [3.0, 3.0, 4.0, 5.0, 0.0]


def test_max_pool_skips_nan_and_starts_from_the_lowest_float():
    x = [[[np.nan], [1.0], [-0.0], [0.0], [-np.inf], [-np.inf], [2.0], [np.nan]]]
    y = forward("max_pool1d(x, 2, 1, 'VALID')", {"x": np.array(x)}).ravel()
    assert y[:2].tolist() == [1.0, 1.0]
    assert str(y[2]) == "-0.0"  # the first of a tie is kept
    assert y[4] == np.finfo(np.float64).min and y[6] == 2.0
    x = np.array([np.nan, 1.0, 2.0, np.nan]).reshape(1, 4, 1)
    _, g, _ = value_grad_hvp("sum(max_pool1d(x, 2, 1, 'VALID'))", {"x": x}, "x")
    # [nan, 1]: a leading NaN keeps the gradient; [1, 2] and [2, nan]: 2
    assert g.ravel().tolist() == [1.0, 0.0, 2.0, 0.0]


def test_max_pool_second_derivative_picks_the_same_argmax():
    x = np.array([1.0, 3.0, 3.0, 5.0, 4.0]).reshape(1, 5, 1)
    v = np.arange(1.0, 6.0).reshape(1, 5, 1)
    _, g, hv = value_grad_hvp("sum(max_pool1d(x, 2, 1, 'VALID') ** 2)", {"x": x}, "x", v)
    assert g.ravel().tolist() == [0.0, 12.0, 0.0, 20.0, 0.0]
    assert hv.ravel().tolist() == [0.0, 8.0, 0.0, 16.0, 0.0]


def test_avg_pool_same_divides_by_the_real_elements():
    y = forward("avg_pool1d(x, 3, 2, 'SAME')", {"x": np.arange(1.0, 6.0).reshape(1, 5, 1)})
    assert y.ravel().tolist() == [1.5, 3.0, 4.5]


def test_an_empty_output_has_zero_gradients():
    # TensorFlow's filter gradient is uninitialised memory here; the sum over no outputs is 0
    x, k = RNG.uniform(-1, 1, (1, 2, 4, 1)), RNG.uniform(-1, 1, (3, 2, 1, 2))
    value, grads = eval_grad("sum(conv2d(x, k, 1, 'VALID'))", x=x.tolist(), k=k.tolist())
    assert num(value) == 0.0
    assert not num(grads["x"]).any() and not num(grads["k"]).any()


def test_float32_stays_float32():
    problem = problem_from_expression(
        "conv2d(cast(x, 'float32'), cast(k, 'float32'), 1, 'SAME')",
        {"x": np.ones((1, 3, 3, 1)), "k": np.ones((2, 2, 1, 1))},
        wrt=[],
    )
    y = run(problem.graph, list(problem.outputs))[problem.outputs[0]]
    assert y.dtype == np.float32 and y[0, 0, 0, 0] == 4.0


# --- check: SymPy through the object-array forward ---------------------------------------------
CHECKS = [
    ("conv2d(x, [[[[1.0, 2]], [[0.5, -1]]]], [1, 2], 'SAME') ** 2", "x=[[[[1], [2], [3]], "
     "[[4], [5], [6]]]]"),
    ("conv2d_transpose(x, [[[[1.0]], [[0.5]]]], [1, 2, 4, 1], [1, 2], 'SAME') ** 2",
     "x=[[[[1], [2]], [[4], [5]]]]"),
    ("depthwise_conv2d(x, [[[[1.0, -1]], [[0.5, 2]]]], 1, 'VALID') ** 2",
     "x=[[[[1], [2], [3]], [[4], [5], [6]]]]"),
    ("conv1d(x, [[[1.0]], [[-2]]], 1, 'SAME', dilations=2) ** 2", "x=[[[1], [2], [3], [4]]]"),
    ("max_pool2d(x, 2, 1, 'SAME') ** 2", "x=[[[[1], [5], [3]], [[4], [2], [6]]]]"),
    ("avg_pool2d(x, 2, 1, 'SAME') ** 2", "x=[[[[1], [5], [3]], [[4], [2], [6]]]]"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_against_sympy(expr, at):
    assert_sympy_check(expr, at)


# --- explain: elements no window reads, or no window selects ---------------------------------
X7 = "x=[[[1], [2], [3], [4], [5], [6], [7]]]"
EXPLAINED = [
    ("sum(conv1d(x, [[[1.0]], [[2.0]]], 3, 'VALID'))", X7,
     "conv1d(x, [[[1]], [[2]]], stride=3, padding='VALID') uses 4 of 7 elements of x; the "
     "other 3 get no gradient"),
    ("sum(max_pool1d(x, 2, 2, 'VALID'))", X7,
     "max_pool1d(x, ksize=2, strides=2, padding='VALID') uses 3 of 7 elements of x; the other "
     "4 get no gradient"),
    ("sum(avg_pool1d(x, 1, 3, 'SAME'))", X7,
     "avg_pool1d(x, ksize=1, strides=3, padding='SAME') uses 3 of 7 elements of x; the other 4 "
     "get no gradient"),
    ("sum(conv2d(x, [[[[1.0]]]], 2, 'VALID'))", "x=[[[[1], [2], [3]], [[4], [5], [6]]]]",
     "conv2d(x, [[[[1]]]], strides=2, padding='VALID') uses 2 of 6 elements of x; the other 4 "
     "get no gradient"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at", "detail"), EXPLAINED)
def test_explain_counts_the_unselected_elements(expr, at, detail):
    doc = run_json("explain", "-e", expr, "--at", at, "--wrt", "x", code=1)
    (pair,) = doc["pairs"]
    (cause,) = pair["causes"]
    assert cause["kind"] == "unselected"
    assert cause["detail"] == detail


def test_explain_names_a_filter_tap_that_only_reads_padding():
    # a 3-tall filter over a 1-row input, SAME: the first and last rows of taps read padding
    doc = run_json("explain", "-e", "sum(conv2d(x, k, 1, 'SAME'))", "--at",
                   "x=[[[[1], [2]]]]", "--at", "k=[[[[1]]], [[[1]]], [[[1]]]]", "--wrt", "k",
                   code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["zero_elements"] == 2
    assert [c["kind"] for c in pair["causes"]] == ["unselected"]


def test_explain_maps_a_large_conv_all_or_nothing():
    from gradcli.core.ops.conv_kernels import links, plan

    found = links(plan("conv2d", {"strides": 1, "padding": "SAME"}, 2),
                  (16, 32, 32, 64), (3, 3, 64, 64), (16, 32, 32, 64))  # fmt: skip
    assert found is None


# --- the TensorFlow reader ----------------------------------------------------------------------
def test_the_reader_maps_tf_nn_conv2d_and_max_pool2d(tmp_path):
    code = tmp_path / "model.py"
    code.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable(tf.ones([1, 4, 4, 2], tf.float64))\n"
        "k = tf.Variable(tf.ones([2, 2, 2, 3], tf.float64))\n"
        "with tf.GradientTape() as tape:\n"
        "    y = tf.reduce_sum(tf.nn.max_pool2d(tf.nn.conv2d(x, k, strides=1, padding='SAME'),"
        " 2, 2, 'VALID'))\n"
        "g = tape.gradient(y, [x, k])\n"
    )
    doc = run_json("eval", str(code), "--check", "off")
    (call,) = doc["calls"]
    gx = num(call["gradients"][0]["value"])
    assert gx.shape == (32,) and gx.sum() == pytest.approx(3 * 4 * 4 * 2)


# --- errors: positioned, exit status 2 ---------------------------------------------------------
ERRORS = [
    ("conv2d(x, k, 1, 'same')", "padding must be 'SAME', 'VALID' or 'EXPLICIT' \\(capitals"),
    ("conv2d(x, k, 0, 'SAME')", "strides must be at least 1"),
    ("conv2d(x, k, [1, 2, 1], 'SAME')", "strides should have 1, 2 or 4 entries"),
    ("conv2d(x, k, [2, 1, 1, 1], 'SAME')", "must be 1 in the batch and channel entries"),
    ("conv2d(x, k, 1, 'SAME', 'NCWH')", "data_format must be 'NHWC' or 'NCHW'"),
    ("conv2d(x, k[:, :, :1], 1, 'SAME')", "the filters' input channels \\(1"),
    ("conv2d(x[0], k, 1, 'SAME')", "input must have rank 4 or more"),
    ("conv2d(x[:, :1], k, 1, 'VALID', dilations=2)", "computed output size would be negative"),
    ("conv2d(x, k, 1, 'EXPLICIT')", "explicit_paddings needs 4 pairs"),
    ("conv2d(x, k, 1, 'EXPLICIT', explicit_paddings=[[1, 0], [0, 0], [0, 0], [0, 0]])",
     "must be 0 in the batch and channel dimensions"),
    ("conv2d(x, k, 1, 'SAME', explicit_paddings=[[1, 1], [1, 1]])", "needs padding='EXPLICIT'"),
    ("depthwise_conv2d(x, k, [1, 2, 1, 1], 'SAME')", "strides must be equal along rows"),
    ("depthwise_conv2d(x, k, 2, 'SAME', dilations=2)", "dilations \\[2, 2\\] need strides of 1"),
    ("conv2d_transpose(x, k, [1, 5, 5, 2], 1, 'VALID')", "a convolution of output_shape"),
    ("conv2d_transpose(x, k, [1, 5, 5], 1, 'VALID')", "output_shape must have 4 entries"),
    ("max_pool2d(x, 2, 1, 'EXPLICIT')", "padding must be 'SAME' or 'VALID'"),
    ("max_pool2d(x, [1, 2, 2, 2], 1, 'VALID')", "ksize \\[1, 2, 2, 2\\] must be 1 in the batch"),
    ("avg_pool1d(x, 2, 1, 'VALID')", "input must have rank 3 \\(NWC\\)"),
    ("max_pool2d(x, 0, 1, 'VALID')", "ksize must be at least 1"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "message"), ERRORS)
def test_errors_are_positioned(expr, message):
    at = [
        "--at",
        f"x={np.ones((1, 3, 4, 2)).tolist()}",
        "--at",
        f"k={np.ones((2, 2, 2, 2)).tolist()}",
    ]
    res = invoke("eval", "-e", expr, *(at if "k" in expr else at[:2]), "--check", "off")
    assert res.code == 2, res.stderr
    assert res.stderr.startswith("gradcli: error: <expr>:1:"), res.stderr
    assert re.search(message, res.stderr), res.stderr


def test_conv1d_refuses_explicit_padding_as_tensorflow():
    # tf.nn.conv1d has no explicit padding in TensorFlow 2.21: a list is a TypeError, and
    # 'EXPLICIT' reaches Conv2D without explicit_paddings (InvalidArgumentError)
    res = invoke("eval", "-e", "sum(conv1d(x, f, 1, 'EXPLICIT'))", "--at", "x=[[[1], [2], [3]]]",
                 "--at", "f=[[[1]], [[1]]]", "--check", "off")  # fmt: skip
    assert res.code == 2
    assert "conv1d: padding must be 'SAME' or 'VALID'" in res.stderr
    assert "tf.nn.conv1d takes no explicit padding in TensorFlow either" in res.stderr
