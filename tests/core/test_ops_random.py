"""dropout, random_normal and random_uniform: the documented generator (numpy's
default_rng(seed)), TensorFlow 2.21's conventions (rate 0 returns x, rates outside [0, 1)
refused, where(keep, x * scale, 0), noise_shape broadcasting), first and second derivatives
against finite differences, check against SymPy, explain's `mask` cause, and the reader.
TensorFlow's own values for what does not depend on the stream are in tools/tf_cases_random.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import assert_first_and_second_order, eval_grad, invoke, num, run_json

X8 = [1.5, -0.25, 2.0, -3.0, 0.5, 4.0, -1.0, 0.75]


def keep(seed, shape, rate):
    """The documented mask: default_rng(seed) uniform draws >= rate."""
    return np.random.default_rng(seed).random(shape) >= rate


# --- dropout --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rate", "seed"), [(0.5, 1), (0.2, 0), (0.9, 12345)])
def test_dropout_keeps_the_documented_elements_scaled(rate, seed):
    x = np.array(X8)
    f, grads = eval_grad(f"dropout(x, {rate}, seed={seed}) * w", x=X8, w=[1.0] * 8)
    k = keep(seed, (8,), rate)
    np.testing.assert_array_equal(num(f), np.where(k, x * (1 / (1 - rate)), 0.0))
    np.testing.assert_array_equal(num(grads["x"]), np.where(k, 1 / (1 - rate), 0.0))
    np.testing.assert_array_equal(num(grads["w"]), np.where(k, x * (1 / (1 - rate)), 0.0))


def test_dropout_without_a_seed_uses_seed_0():
    f, _ = eval_grad("dropout(x, 0.5)", x=X8)
    np.testing.assert_array_equal(num(f) != 0, keep(0, (8,), 0.5))


def test_the_same_seed_gives_the_same_mask_at_every_point():
    masks = []
    for x in (X8, [v * 3 + 0.5 for v in X8]):
        f, g = eval_grad("dropout(x, 0.5, seed=4)", x=x)
        masks += [num(f) != 0, num(g["x"]) != 0]
    assert all(np.array_equal(m, masks[0]) for m in masks)


def test_rate_zero_returns_x_and_ignores_noise_shape():
    f, grads = eval_grad("dropout(x, 0, noise_shape=[5, 7]) * x", x=X8)
    np.testing.assert_array_equal(num(f), np.square(X8))
    np.testing.assert_array_equal(num(grads["x"]), 2 * np.array(X8))


@pytest.mark.parametrize("rate", ["1", "1.5", "-0.1"])
def test_rates_outside_0_1_are_refused_as_tensorflow(rate):
    res = invoke("eval", "-e", f"dropout(x, {rate})", "--at", "x=[1, 2]")
    assert res.code == 2
    assert "rate must be a float in the range [0, 1)" in res.stderr


def test_noise_shape_broadcasts_the_mask():
    x = np.arange(1.0, 9.0).reshape(2, 4)
    f, grads = eval_grad("dropout(x, 0.5, noise_shape=[1, 4], seed=3)", x=x.tolist())
    k = keep(3, (1, 4), 0.5)
    np.testing.assert_array_equal(num(f).reshape(2, 4), np.where(k, 2 * x, 0))
    np.testing.assert_array_equal(num(grads["x"]).reshape(2, 4), np.where(k, 2.0, 0) + 0 * x)


def test_a_larger_noise_shape_enlarges_the_result_and_sums_the_gradient():
    f, grads = eval_grad("dropout(x, 0.5, noise_shape=[3, 2], seed=5)", x=[1.0, 2.0])
    k = keep(5, (3, 2), 0.5)
    np.testing.assert_array_equal(num(f).reshape(3, 2), np.where(k, [2.0, 4.0], 0))
    np.testing.assert_array_equal(num(grads["x"]), (2.0 * k).sum(axis=0))


def test_noise_shape_must_broadcast():
    res = invoke("eval", "-e", "dropout(x, 0.5, noise_shape=[2])", "--at", "x=[1, 2, 3]")
    assert res.code == 2 and "does not broadcast" in res.stderr


def test_dropped_nonfinite_values_and_upstream_gradients_give_zero():
    # where(keep, x * scale, 0): a dropped inf is 0, and 0 (not nan) reaches x under inf
    at = ["x=[inf, nan, -inf, 1, 2, 3, 4, 5]", "w=[inf, inf, inf, inf, inf, inf, inf, inf]"]
    doc = run_json("eval", "-e", "dropout(x, 0.5, seed=1) * w", "--at", at[0], "--at", at[1],
                   "--check", "off")  # fmt: skip
    k = keep(1, (8,), 0.5)
    gx = num(doc["gradients"]["x"]["value"])
    np.testing.assert_array_equal(gx, np.where(k, np.inf, 0.0))


def test_float32_keeps_float32_and_rounds_the_scale_once():
    doc = run_json(
        "eval", "-e", "dropout(cast(x, 'float32'), 0.3, seed=2)", "--at", "x=[3, 3, 3, 3]",
        "--check", "off",
    )  # fmt: skip
    out = doc["outputs"]["f"]
    assert out["dtype"] == "float32"
    k = keep(2, (4,), 0.3)
    expect = np.where(k, np.float32(3) * np.float32(1 / (1 - 0.3)), np.float32(0))
    np.testing.assert_array_equal(np.asarray(num(out["value"]), np.float32), expect)


def test_dropout_first_and_second_order_against_finite_differences():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(3, 4))
    assert_first_and_second_order("sum(dropout(x, 0.4, seed=3) ** 2 * x)", {"x": x}, "x", rng)
    assert_first_and_second_order(
        "sum(sin(dropout(x, 0.5, noise_shape=[1, 4], seed=1)))", {"x": x}, "x", rng
    )


def test_check_against_sympy():
    res = invoke("check", "-e", "sum(dropout(x, 0.5, seed=2) ** 2 + random_normal([4], "
                 "mean=x, seed=1) * x)", "--at", "x=[1, 2, 3, 4]", "--method", "sympy")  # fmt: skip
    assert res.code == 0, (res.stdout, res.stderr)


def test_explain_calls_the_dropped_elements_a_mask_with_the_rate():
    doc = run_json("explain", "-e", "sum(dropout(x, 0.5, seed=1) * w)", "--at",
                   f"x={X8}", "--at", "w=[1, 1, 1, 1, 1, 1, 1, 1]", "--wrt", "x",
                   code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    dropped = int((~keep(1, (8,), 0.5)).sum())
    assert pair["zero_elements"] == dropped
    (cause,) = pair["causes"]
    assert cause["kind"] == "mask"
    assert cause["detail"] == (
        f"dropped by dropout(rate=0.5) in f (line 1): {dropped} of 8 elements of x get no gradient"
    )


def test_explain_after_an_upstream_zero_names_only_the_new_drops():
    # w zeroes element 0 first: the mask finding counts the others dropout drops
    w = [0.0] + [1.0] * 7
    doc = run_json("explain", "-e", "sum(dropout(x, 0.5, seed=1) * w)", "--at", f"x={X8}",
                   "--at", f"w={w}", "--wrt", "x", code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    k = keep(1, (8,), 0.5)
    assert pair["zero_elements"] == int((~k).sum() + k[0])
    assert "mask" in {c["kind"] for c in pair["causes"]}


# --- random_normal, random_uniform ---------------------------------------------------------------
def test_random_normal_is_the_documented_draw_times_stddev_plus_mean():
    draw = np.random.default_rng(5).standard_normal((2, 3))
    f, grads = eval_grad("random_normal([2, 3], mean=m, stddev=s, seed=5) * w",
                         m=[1.0, 2.0, 3.0], s=0.5, w=[[1, 2, 3], [4, 5, 6]])  # fmt: skip
    w = np.array([[1, 2, 3], [4, 5, 6]], float)
    np.testing.assert_array_equal(num(f).reshape(2, 3), (draw * 0.5 + [1.0, 2.0, 3.0]) * w)
    np.testing.assert_array_equal(num(grads["m"]), w.sum(axis=0))
    assert num(grads["s"]) == pytest.approx(float((draw * w).sum()), rel=1e-15)


def test_random_uniform_is_draw_times_width_plus_minval():
    draw = np.random.default_rng(0).random(4)
    f, grads = eval_grad("random_uniform([4], a, b)", a=-1.0, b=3.0)
    np.testing.assert_array_equal(num(f), draw * 4.0 - 1.0)
    assert num(grads["b"]) == pytest.approx(draw.sum(), rel=1e-15)
    assert num(grads["a"]) == pytest.approx((1 - draw).sum(), rel=1e-15)


def test_random_draws_take_the_dtype_and_refuse_a_mismatched_mean():
    doc = run_json("eval", "-e", "random_uniform([3], dtype='float32') * 0 + 1", "--check",
                   "off")  # fmt: skip
    assert doc["outputs"]["f"]["dtype"] == "float32"
    res = invoke("eval", "-e", "random_normal([3], mean=x, dtype='float32')", "--at", "x=1")
    assert res.code == 2 and "mean is float64 but dtype is float32" in res.stderr


def test_random_ops_first_and_second_order_against_finite_differences():
    rng = np.random.default_rng(1)
    m = rng.uniform(-1, 1, size=(3,))
    s = np.array(0.7)
    expr = "sum(random_normal([2, 3], mean=m, stddev=s, seed=2) ** 2)"
    assert_first_and_second_order(expr, {"m": m, "s": s}, "m", rng)
    assert_first_and_second_order(expr, {"m": m, "s": s}, "s", rng)
    expr = "sum(exp(random_uniform([3], minval=m, maxval=s, seed=4)))"
    assert_first_and_second_order(expr, {"m": m, "s": s}, "m", rng)
    assert_first_and_second_order(expr, {"m": m, "s": s}, "s", rng)


def test_random_draws_alone_have_no_gradient_path():
    doc = run_json("explain", "-e", "sum(random_normal([3], seed=1)) + 0 * stop_gradient(x)",
                   "--at", "x=1", "--wrt", "x", code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["status"] == "unconnected"


# --- the TensorFlow reader ------------------------------------------------------------------------
def _read(tmp_path, body: str) -> dict:
    """The reader's own values of each call (in process): `eval` does not print numbers
    computed from gradcli's draws (they are not TensorFlow's), it refuses them naming --run."""
    from gradcli.tfcode import read_program

    code = tmp_path / "model.py"
    code.write_text("import tensorflow as tf\n" + body)
    res = invoke("eval", str(code), "--check", "off")
    assert res.code == 2 and "numbers drawn at random" in res.stderr and "--run" in res.stderr
    program = read_program(code.read_bytes(), str(code))
    calls = []
    for call in program.calls:
        grads = call.evaluation.gradients.values()
        calls.append({"gradients": [{"value": np.asarray(g).tolist(), "dtype": str(g.dtype)}
                                    for g in grads]})  # fmt: skip
    return {"calls": calls}


def test_the_reader_emits_random_ops_with_tensorflow_gradients(tmp_path):
    # TensorFlow 2.21: d/dm sum(normal([3], mean=m) * [1, 2, 3]) = 6
    doc = _read(tmp_path, (
        "m = tf.Variable(1.5, dtype=tf.float64)\n"
        "with tf.GradientTape() as t:\n"
        "    r = tf.random.normal([3], mean=m, dtype=tf.float64)\n"
        "    f = tf.reduce_sum(r * [1.0, 2.0, 3.0])\n"
        "g = t.gradient(f, m)\n"
    ))  # fmt: skip
    (call,) = doc["calls"]
    assert num(call["gradients"][0]["value"]) == 6.0


def test_the_reader_draws_float32_by_default_and_distinct_unseeded_masks(tmp_path):
    doc = _read(tmp_path, (
        "x = tf.Variable(tf.ones([64]))\n"
        "with tf.GradientTape(persistent=True) as t:\n"
        "    a = tf.reduce_sum(tf.nn.dropout(x, 0.5))\n"
        "    b = tf.reduce_sum(tf.nn.dropout(x, 0.5))\n"
        "    c = tf.reduce_sum(tf.random.uniform([2]) * x[0])\n"
        "ga = t.gradient(a, x)\n"
        "gb = t.gradient(b, x)\n"
        "gc = t.gradient(c, x)\n"
    ))  # fmt: skip
    ga, gb, gc = (call["gradients"][0] for call in doc["calls"])
    assert ga["dtype"] == gc["dtype"] == "float32"
    assert set(num(ga["value"])) == {0.0, 2.0}
    assert not np.array_equal(num(ga["value"]), num(gb["value"]))


def test_the_reader_refuses_integer_dropout(tmp_path):
    code = tmp_path / "model.py"
    code.write_text("import tensorflow as tf\nx = tf.constant([1, 2])\n"
                    "y = tf.nn.dropout(x, 0.5)\n")  # fmt: skip
    res = invoke("eval", str(code))
    assert res.code == 2 and "float" in res.stderr
