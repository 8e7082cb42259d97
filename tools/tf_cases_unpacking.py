"""TensorFlow reference cases: the multi-output ops split, unstack and moments.

Their outputs are unpacked by a graph entry (`a, b: split(x, 2)`) or indexed
(`split(x, 2)[1]`). An output nobody uses still gets a zero gradient in TensorFlow (its
SplitGrad concatenates zeros), so the input stays connected.
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import M23, X4, In, hessian, spec

X6 = [0.5, -1.25, 2.0, -0.75, 1.5, 3.25]
M34 = [[0.5, -1.25, 2.0, 1.0], [-0.75, 1.5, 3.25, -2.0], [1.75, 0.25, -0.5, 2.5]]


def _split_equal(v):
    a, b = tf.split(v.x, 2)
    return tf.reduce_sum(tf.sin(a) * b * v.w)


def _split_sizes(v):
    a, b, c = tf.split(v.x, [1, -1, 2])
    return tf.reduce_sum(a * a) + tf.reduce_sum(tf.exp(b)) - tf.reduce_sum(c**3)


def _moments_axis0(v):
    m, var = tf.nn.moments(v.x, [0])
    return tf.reduce_sum(m * [1.0, 2, 3, 4]) + tf.reduce_sum(var * [2, -1, 0.5, 3.0])


def _unstack_rows(v):
    r0, r1 = tf.unstack(v.x)
    return tf.reduce_sum(r0 * r1) + tf.reduce_sum(tf.tanh(r1))


spec(
    "split_equal",
    {"x": X6, "w": [1.5, -0.5, 2.0]},
    {"a, b": "split(x, 2)", "f": "sum(sin(a) * b * w)"},
    _split_equal,
)
spec(
    "split_sizes_rest",
    {"x": X6},
    {"a, b, c": "split(x, [1, -1, 2])", "f": "sum(a * a) + sum(exp(b)) - sum(c ** 3)"},
    _split_sizes,
)
spec(
    "split_one_output_used",
    {"x": M23},
    {"f": "sum(split(x, 3, axis=-1)[1] ** 2)"},
    lambda v: tf.reduce_sum(tf.split(v.x, 3, axis=-1)[1] ** 2),
    exact=True,
    note="the unused pieces get zeros: x stays connected",
)
spec(
    "split_zero_size_piece",
    {"x": X4},
    {"a, b": "split(x, [0, 4])", "f": "sum(b * b) + sum(a)"},
    lambda v: (lambda a, b: tf.reduce_sum(b * b) + tf.reduce_sum(a))(*tf.split(v.x, [0, 4])),
    exact=True,
)
spec(
    "split_concat_swapped",
    {"x": M34, "w": M34},
    {"p, q": "split(x, 2, axis=1)", "f": "sum(concat([q, p], 1) * w)"},
    lambda v: (lambda p, q: tf.reduce_sum(tf.concat([q, p], 1) * v.w))(*tf.split(v.x, 2, axis=1)),
    exact=True,
)
spec(
    "split_into_concat",
    {"x": M34, "w": [[1.0, -2.0], [0.5, 3.0], [2.0, 1.0], [-1.0, 0.25], [1.5, 1.0], [4.0, -3.0]]},
    {"f": "sum(concat(split(x, 2, axis=1), 0) * w)"},
    lambda v: tf.reduce_sum(tf.concat(tf.split(v.x, 2, axis=1), 0) * v.w),
    exact=True,
    note="a list of outputs passed whole to concat, as TensorFlow code does",
)
spec(
    "unstack_rows",
    {"x": M23},
    {"r0, r1": "unstack(x)", "f": "sum(r0 * r1) + sum(tanh(r1))"},
    _unstack_rows,
)
spec(
    "unstack_axis1_indexed",
    {"x": M34},
    {"f": "sum(unstack(x, axis=1)[2] * unstack(x, axis=-1)[0])"},
    lambda v: tf.reduce_sum(tf.unstack(v.x, axis=1)[2] * tf.unstack(v.x, axis=-1)[0]),
    exact=True,
)
spec(
    "moments_axis0",
    {"x": M34},
    {"m, var": "moments(x, [0])", "f": "sum(m * [1, 2, 3, 4]) + sum(var * [2, -1, 0.5, 3])"},
    _moments_axis0,
)
spec(
    "moments_all_axes_keepdims",
    {"x": M34},
    {"m, var": "moments(x, [0, 1], keepdims=true)", "f": "sum(sqrt(var) + m * m)"},
    lambda v: (lambda m, var: tf.reduce_sum(tf.sqrt(var) + m * m))(
        *tf.nn.moments(v.x, [0, 1], keepdims=True)
    ),
)
spec(
    "moments_variance_only",
    {"x": X6},
    {"f": "moments(x, 0)[1]"},
    lambda v: tf.nn.moments(v.x, [0])[1],
)
spec(
    "moments_constant_row",
    {"x": [[2.0, 2.0, 2.0], [1.0, -1.0, 3.0]]},
    {"m, var": "moments(x, [1])", "f": "sum(sqrt(var))"},
    lambda v: (lambda m, var: tf.reduce_sum(tf.sqrt(var)))(*tf.nn.moments(v.x, [1])),
    note="a constant row: variance 0, sqrt's gradient inf times zero deviations gives NaN",
)
spec(
    "moments_float32",
    {"x": In(M34, "float32")},
    {"m, var": "moments(x, [1])", "f": "sum(var) - sum(m)"},
    lambda v: (lambda m, var: tf.reduce_sum(var) - tf.reduce_sum(m))(*tf.nn.moments(v.x, [1])),
)
hessian(
    "h_moments_variance",
    "sum(moments(x, 0)[1] * 2)",
    {"x": X4},
    lambda v: tf.reduce_sum(tf.nn.moments(v.x, [0])[1] * 2),
)
hessian(
    "h_split_product",
    "sum(split(x, 2)[0] * split(x, 2)[1])",
    {"x": X4},
    lambda v: tf.reduce_sum(tf.split(v.x, 2)[0] * tf.split(v.x, 2)[1]),
    exact=True,
)


# --- one output: an entry of one name binds it (Python's `a, = tf.split(x, 1)`) ----------------
def _one_output(v):
    (a,) = tf.split(v.x, 1)
    (b,) = tf.split(v.x, [3], axis=1)
    (r,) = tf.unstack(v.x)
    return tf.reduce_sum(a * a) + tf.reduce_sum(tf.sin(b) * r)


spec(
    "split_unstack_one_output",
    {"x": [[0.5, -1.25, 2.0]]},
    {"a": "split(x, 1)", "b": "split(x, [3], axis=1)", "r": "unstack(x)",
     "f": "sum(a * a) + sum(sin(b) * r)"},
    _one_output,
    note="each op gives one tensor here: the entry's one name binds it",
)  # fmt: skip
spec(
    "unstack_one_output_axis1",
    {"x": [[0.5], [-1.25]], "w": [2.0, -0.5]},
    {"r": "unstack(x, axis=1)", "f": "sum(r * w)"},
    lambda v: (lambda r: tf.reduce_sum(r * v.w))(*tf.unstack(v.x, axis=1)),
    exact=True,
)
