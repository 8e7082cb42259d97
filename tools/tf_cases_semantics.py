"""TensorFlow reference cases: cond, stop_gradient, dtypes, connectivity, custom gradients."""

from __future__ import annotations

import tensorflow as tf
from tf_cases import INF, NAN, D, F, In, c, dyadic, expr, f64, spec

# ============================================================================================
# cond: only the taken branch is evaluated and connected
# ============================================================================================
for _x, _tag in ((2.0, "taken"), (-1.0, "untaken")):
    expr(
        f"cond_literal_{_tag}",
        "cond(x > 0, x * y, 0.0)",
        {"x": _x, "y": 3.0},
        lambda v: tf.cond(v.x > 0, lambda: v.x * v.y, lambda: c(0.0)),
        exact=True,
        cli=True,
        note="TensorFlow needs a tensor for the constant branch (a Python float raises TypeError)",
    )
    spec(
        f"cond_tensor_constant_{_tag}",
        {"x": _x, "y": 3.0, "zero": In(0.0, trainable=False)},
        {"z": "cond(x > 0, x*y, zero)"},
        lambda v: tf.cond(v.x > 0, lambda: v.x * v.y, lambda: v.zero),
        exact=True,
    )
for _s, _tag in ((1.0, "true"), (-3.0, "false")):
    expr(
        f"cond_vector_{_tag}",
        "cond(sum(x) > 0, x * 2, -x * y)",
        {"x": [0.5, -1.0, _s], "y": [1.5, 2.0, -0.5]},
        lambda v: tf.cond(tf.reduce_sum(v.x) > 0, lambda: v.x * 2.0, lambda: -v.x * v.y),
        exact=True,
    )
expr(
    "cond_untaken_branch_would_be_nan",
    "cond(x > 0, log(x), x * 2)",
    {"x": -1.0},
    lambda v: tf.cond(v.x > 0, lambda: tf.math.log(v.x), lambda: v.x * 2.0),
    exact=True,
)
expr(
    "cond_nested",
    "cond(x > 0, cond(y > 0, x * y, x - y), y * y)",
    {"x": 1.5, "y": -2.0},
    lambda v: tf.cond(
        v.x > 0,
        lambda: tf.cond(v.y > 0, lambda: v.x * v.y, lambda: v.x - v.y),
        lambda: v.y * v.y,
    ),
    exact=True,
)

# ============================================================================================
# stop_gradient
# ============================================================================================
expr(
    "stop_gradient",
    "stop_gradient(x) * y",
    {"x": 2.0, "y": 3.0},
    lambda v: tf.stop_gradient(v.x) * v.y,
    exact=True,
    cli=True,
)
expr(
    "stop_gradient_one_path",
    "x * stop_gradient(x) + stop_gradient(x * y)",
    {"x": [1.5, -2.0], "y": [0.5, 4.0]},
    lambda v: v.x * tf.stop_gradient(v.x) + tf.stop_gradient(v.x * v.y),
    exact=True,
)


# ============================================================================================
# dtypes: casts, float32 computing in float32, int and bool inputs
# ============================================================================================
expr(
    "cast_roundtrip_float32",
    "cast(cast(x, 'float32'), 'float64') * y",
    {"x": [0.1, -2.7, 1e-50, 3e38], "y": [1.5, -1.0, 2.0, 0.5]},
    lambda v: tf.cast(tf.cast(v.x, F), D) * v.y,
    exact=True,
)
expr(
    "cast_to_int",
    "x * cast(x, 'int32')",
    {"x": [-1.5, 2.75, 0.5]},
    lambda v: v.x * f64(tf.cast(v.x, tf.int32)),
    exact=True,
)
expr(
    "cast_to_int_only",
    "cast(x, 'int32')",
    {"x": [-1.5, 2.75]},
    lambda v: tf.cast(v.x, tf.int32),
    exact=True,
)
expr(
    "cast_bool_to_float",
    "cast(x > 0, 'float64') * y + x * (y > 0)",
    {"x": [-1.0, 2.0, 0.5], "y": [1.5, -1.0, 2.0]},
    lambda v: f64(v.x > 0) * v.y + v.x * f64(v.y > 0),
    exact=True,
)
_X32 = [0.1, -1.7, 2.5, 0.3333]
spec(
    "float32_tanh",
    {"x": In(_X32, "float32")},
    {"f": "sum(tanh(x) * x + exp(x) / (1 + x * x))"},
    lambda v: tf.reduce_sum(tf.tanh(v.x) * v.x + tf.exp(v.x) / (1.0 + v.x * v.x)),
    cli=True,
)
spec(
    "float32_tanh_sigmoid_saturation",
    {"x": In([9.0, -9.5, 17.0, 2.0], "float32")},
    {"t": "tanh(x)", "s": "sigmoid(x)"},
    lambda v: {"t": tf.tanh(v.x), "s": tf.sigmoid(v.x)},
    outputs=["t", "s"],
    note="the outputs agree within an ulp: TensorFlow's fast float32 tanh is exactly +-1 "
    "from |x| ~ 9 and its sigmoid 1 at 17, where numpy's give +-0.99999994",
    differs={
        "gradient x": "tanh'(9), tanh'(-9.5) and sigmoid'(17) are 0 in TensorFlow, "
        "~1e-7 (1 - 0.99999994**2) in gradcli",
    },
)
spec(
    "three_paths_summation_order",
    {"x": 1.0, "a": 1e16, "b": 1.0, "c": -1e16},
    {"f": "x * a + x * b + x * c"},
    lambda v: v.x * v.a + v.x * v.b + v.x * v.c,
    wrt=["x"],
    exact=True,
    differs={
        "gradient x": "TensorFlow's tape adds the three contributions as (a + c) + b = 1, "
        "gradcli as (c + b) + a = 0: an order, not a formula"
    },
)
spec(
    "float32_literal_stays_float32",
    {"x": In(_X32, "float32")},
    {"f": "x * 2.1 + 0.1"},
    lambda v: v.x * 2.1 + 0.1,
    exact=True,
)
spec(
    "float32_sqrt_log_at_zero",
    {"x": In([0.0, 4.0, -1.0], "float32")},
    {"a": "sqrt(x)", "b": "log(x)", "c": "where(x > 0, sqrt(x), 0)"},
    lambda v: {"a": tf.sqrt(v.x), "b": tf.math.log(v.x), "c": tf.where(v.x > 0, tf.sqrt(v.x), 0.0)},
    outputs=["a", "b", "c"],
)
spec(
    "float32_reductions",
    {
        "x": In([[0.1, 0.7, -1.3], [2.9, 0.3, 0.11]], "float32"),
        "w": In([[1.7, -0.2], [0.45, 3.1], [-2.2, 0.6]], "float32"),
    },
    {"f": "logsumexp(x @ w) + mean(softmax(x, axis=0) * x) + prod(x) + max(x)"},
    lambda v: (
        tf.reduce_logsumexp(tf.matmul(v.x, v.w))
        + tf.reduce_mean(tf.nn.softmax(v.x, axis=0) * v.x)
        + tf.reduce_prod(v.x)
        + tf.reduce_max(v.x)
    ),
)
spec(
    "float32_sigmoid_softplus",
    {"x": In([-20.0, -1.5, 0.5, 3.0, 20.0], "float32")},
    {"f": "sigmoid(x) * softplus(x) + tanh(x)"},
    lambda v: tf.sigmoid(v.x) * tf.nn.softplus(v.x) + tf.tanh(v.x),
)
spec(
    "float32_where_traps",
    {"x": In([-1.0, 0.0, 2.0], "float32")},
    {"a": "where(x > 0, log(x), 0)", "b": "where(x > 0, x ** 0.5, 0)", "c": "relu(x) + abs(x)"},
    lambda v: {
        "a": tf.where(v.x > 0, tf.math.log(v.x), 0.0),
        "b": tf.where(v.x > 0, v.x**0.5, 0.0),
        "c": tf.nn.relu(v.x) + tf.abs(v.x),
    },
    outputs=["a", "b", "c"],
)
spec(
    "float32_to_float64",
    {"x": In([0.1, -1.7], "float32"), "y": [0.1, 2.0]},
    {"f": "cast(x, 'float64') * y + cast(cast(y, 'float32') * x, 'float64')"},
    lambda v: tf.cast(v.x, D) * v.y + tf.cast(tf.cast(v.y, F) * v.x, D),
    exact=True,
)
spec(
    "int_inputs",
    {"x": [1.5, -2.0, 0.5], "n": In([1, 2, 3], "int32"), "m": In(4, "int64")},
    {"f": "x * n + sin(m) + n / m"},
    lambda v: v.x * f64(v.n) + tf.sin(f64(v.m)) + f64(v.n) / f64(v.m),
    wrt=["x", "n", "m"],
    note="int inputs are never connected; zero mode gives int zeros",
)
spec(
    "bool_input",
    {"x": [1.5, -2.0], "flags": In([True, False], "bool")},
    {"f": "where(flags, x, -x * 2)"},
    lambda v: tf.where(v.flags, v.x, -v.x * 2.0),
    wrt=["x", "flags"],
    exact=True,
)
spec(
    "non_trainable_named_in_wrt",
    {"x": [1.5, -2.0], "k": In([2.0, 0.5], trainable=False)},
    {"f": "x * k"},
    lambda v: v.x * v.k,
    wrt=["x", "k"],
    exact=True,
)

# ============================================================================================
# Unconnected inputs, several outputs, grad_ys, gradients w.r.t. intermediates
# ============================================================================================
spec(
    "unused_input",
    {"x": In([[1.0, 2.0]], trainable=False), "w": [[1.0, 0.0], [0.0, 1.0]], "b": [[0.0, 0.0]]},
    {"y": "x + b", "loss": "mean(y)"},
    lambda v: tf.reduce_mean(v.x + v.b),
    exact=True,
    cli=True,
)
spec(
    "multi_output_grad_ys",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "y": [2.0, -1.0, 0.5], "z": 1.5},
    {"a": "x * y", "b": "sum(x * x, axis=1)", "c": "z * 2"},
    lambda v: {"a": v.x * v.y, "b": tf.reduce_sum(v.x * v.x, axis=1), "c": v.z * 2.0},
    outputs=["a", "b", "c"],
    grad_ys={"a": [1.0, -2.0, 0.5], "b": [3.0, -1.0], "c": 0.0},
    exact=True,
    cli=True,
    note="grad_ys broadcast from (3,) to (2, 3); a zero grad_ys still connects z",
)
spec(
    "grad_ys_scalar_broadcast",
    {"x": [0.5, -1.0, 2.0]},
    {"f": "x * x"},
    lambda v: v.x * v.x,
    grad_ys={"f": 2.5},
    exact=True,
)
spec(
    "grad_ys_matrix",
    {"x": [[0.5, -1.0], [2.0, 0.25]]},
    {"f": "sin(x)"},
    lambda v: tf.sin(v.x),
    grad_ys={"f": [[1.0, -2.0], [0.5, 3.0]]},
)


def _wrt_intermediate(v):
    h = v.watch("h", v.x * v.x)
    return tf.reduce_sum(tf.sin(h) * h + v.x)


spec(
    "wrt_intermediate",
    {"x": [0.5, -1.0, 2.0]},
    {"h": "x * x", "y": "sum(sin(h) * h + x)"},
    _wrt_intermediate,
    wrt=["x", "h"],
    note="TensorFlow: tape.watch on the intermediate",
)


def _wrt_intermediate_unused(v):
    h = v.watch("h", v.x * 3.0)
    v.watch("g", v.x * v.x)
    return tf.reduce_sum(h)


spec(
    "wrt_intermediate_unused",
    {"x": [0.5, -1.0]},
    {"h": "x * 3", "g": "x * x", "y": "sum(h)"},
    _wrt_intermediate_unused,
    wrt=["g", "h", "x"],
    exact=True,
    note="g is not on the path to y: None",
)
spec(
    "wrt_output_itself",
    {"x": [0.5, -1.0]},
    {"y": "x * 3"},
    lambda v: v.watch("y", v.x * 3.0),
    wrt=["y", "x"],
    exact=True,
)

# ============================================================================================
# Custom gradients (tf.custom_gradient) and inlined functions
# ============================================================================================


@tf.custom_gradient
def _tf_custom_relu(v):
    def grad(dy):
        return dy * f64(v > 0) * 2.0

    return tf.nn.relu(v), grad


spec(
    "custom_relu",
    {"x": [1.0, -2.0, 0.5]},
    {"y": "custom_relu(x)", "z": "sum(y)"},
    lambda v: tf.reduce_sum(_tf_custom_relu(v.x)),
    functions={"custom_relu": {"params": ["v"], "body": "relu(v)", "grad": "dy * (v > 0) * 2"}},
    exact=True,
    cli=True,
)


@tf.custom_gradient
def _tf_scaled_mul(a, b):
    def grad(dy):
        return dy * b * 3.0, None

    return a * b, grad


spec(
    "custom_two_params_one_none",
    {"x": [1.5, -2.0], "y": [0.5, 4.0]},
    {"f": "sum(scaled_mul(x, y) * x)"},
    lambda v: tf.reduce_sum(_tf_scaled_mul(v.x, v.y) * v.x),
    functions={"scaled_mul": {"params": ["a", "b"], "body": "a * b", "grad": ["dy * b * 3", None]}},
    exact=True,
    note="y reaches f only through the custom function, whose gradient for b is None",
)


@tf.custom_gradient
def _tf_exp_out(v):
    out = tf.exp(v)

    def grad(dy):
        return dy * out

    return out, grad


spec(
    "custom_uses_out",
    {"x": [0.5, -1.0, 2.0]},
    {"f": "sum(my_exp(x * 2) * x)"},
    lambda v: tf.reduce_sum(_tf_exp_out(v.x * 2.0) * v.x),
    functions={"my_exp": {"params": ["v"], "body": "exp(v)", "grad": "dy * out"}},
)


@tf.custom_gradient
def _tf_clip_grad_norm(v):
    def grad(dy):
        return tf.clip_by_value(dy, -1.0, 1.0)

    return tf.identity(v), grad


spec(
    "custom_clipped_identity",
    {"x": [0.5, -1.0, 2.0]},
    {"f": "sum(clipped(x) * [3, -0.5, -2])"},
    lambda v: tf.reduce_sum(_tf_clip_grad_norm(v.x) * c([3.0, -0.5, -2.0])),
    functions={"clipped": {"params": ["v"], "body": "v", "grad": "clip(dy, -1, 1)"}},
    exact=True,
)
spec(
    "function_inlined",
    {"x": [0.5, -1.0, 0.0]},
    {"f": "soft_sign(x) * soft_sign(x * 2)"},
    lambda v: (v.x / (1.0 + tf.abs(v.x))) * ((v.x * 2.0) / (1.0 + tf.abs(v.x * 2.0))),
    functions={"soft_sign": {"params": ["v"], "body": "v / (1 + abs(v))"}},
    note="x reaches f by four paths; the order in which their contributions are added "
    "differs from TensorFlow's AddN, so the last bit may differ",
)

# ============================================================================================
# NaN and infinity propagation
# ============================================================================================
expr("relu_nan", "relu(x)", {"x": [NAN, -INF, INF]}, lambda v: tf.nn.relu(v.x), exact=True)
expr(
    "maximum_nan",
    "maximum(x, y) + minimum(x, y)",
    {"x": [NAN, 1.0, NAN], "y": [1.0, NAN, NAN]},
    lambda v: tf.maximum(v.x, v.y) + tf.minimum(v.x, v.y),
    exact=True,
)
expr(
    "max_reduction_nan",
    "max(x, axis=1) + min(x, axis=1)",
    {"x": [[1.0, NAN, 3.0], [2.0, 5.0, 5.0]]},
    lambda v: tf.reduce_max(v.x, axis=1) + tf.reduce_min(v.x, axis=1),
    exact=True,
)
expr(
    "abs_sign_nan",
    "abs(x) + sign(x)",
    {"x": [NAN, -INF, INF]},
    lambda v: tf.abs(v.x) + tf.sign(v.x),
    exact=True,
)
expr(
    "clip_nan",
    "clip(x, 0, 1)",
    {"x": [NAN, INF, -INF]},
    lambda v: tf.clip_by_value(v.x, 0.0, 1.0),
    exact=True,
)
expr(
    "mul_by_zero_nonfinite",
    "x * 0 + y * x",
    {"x": [NAN, INF, 1.0], "y": [0.0, 0.0, INF]},
    lambda v: v.x * 0.0 + v.y * v.x,
    exact=True,
)
expr(
    "exp_overflow",
    "exp(x) * 0 + exp(-x)",
    {"x": [800.0, -800.0, 0.0]},
    lambda v: tf.exp(v.x) * 0.0 + tf.exp(-v.x),
)
expr(
    "softplus_extremes",
    "softplus(x)",
    {"x": [-1000.0, -40.0, -36.0, -34.0, -20.0, 0.0, 20.0, 33.0, 34.0, 36.0, 40.0, 1000.0]},
    lambda v: tf.nn.softplus(v.x),
)
expr(
    "softplus_nonfinite",
    "softplus(x)",
    {"x": [-INF, INF, NAN]},
    lambda v: tf.nn.softplus(v.x),
)
expr(
    "sigmoid_tanh_extremes",
    "sigmoid(x) + tanh(x)",
    {"x": [-800.0, -40.0, -20.0, 20.0, 40.0, 800.0]},
    lambda v: tf.sigmoid(v.x) + tf.tanh(v.x),
)
expr(
    "sum_with_inf",
    "sum(x * y)",
    {"x": [INF, 1.0, 2.0], "y": [1.0, 0.0, -INF]},
    lambda v: tf.reduce_sum(v.x * v.y),
    exact=True,
)
expr(
    "square_overflow",
    "square(x) - x * x",
    {"x": [1e200, -1e-200]},
    lambda v: tf.square(v.x) - v.x * v.x,
    exact=True,
)

# ============================================================================================
# A small network, end to end
# ============================================================================================
spec(
    "mlp",
    {
        "x": In(dyadic(4, 3), trainable=False),
        "labels": In([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], trainable=False),
        "w1": [[0.3, -0.2, 0.5, 0.1], [-0.4, 0.6, 0.2, -0.3], [0.25, 0.15, -0.35, 0.45]],
        "b1": [0.1, -0.1, 0.0, 0.05],
        "w2": [[0.5, -0.5], [0.3, 0.2], [-0.6, 0.4], [0.1, -0.1]],
        "b2": [0.0, 0.1],
    },
    {
        "hidden": "relu(x @ w1 + b1)",
        "logits": "hidden @ w2 + b2",
        "log_probs": "logits - logsumexp(logits, axis=1, keepdims=true)",
        "loss": "-mean(sum(labels * log_probs, axis=1))",
    },
    lambda v: (
        -tf.reduce_mean(
            tf.reduce_sum(
                v.labels
                * (
                    (tf.matmul(tf.nn.relu(tf.matmul(v.x, v.w1) + v.b1), v.w2) + v.b2)
                    - tf.reduce_logsumexp(
                        tf.matmul(tf.nn.relu(tf.matmul(v.x, v.w1) + v.b1), v.w2) + v.b2,
                        axis=1,
                        keepdims=True,
                    )
                ),
                axis=1,
            )
        )
    ),
    cli=True,
    ulps=32,
    note="b2's gradient sums softmax - label over the batch: terms near 0.5 cancel to 0.0135, "
    "so one ulp of a term (summation order, the log and exp kernels) is 16 ulps of the result",
)
