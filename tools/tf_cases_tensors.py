"""TensorFlow reference cases: reductions, cumulative ops, matmul and shape ops."""

from __future__ import annotations

import tensorflow as tf
from tf_cases import INF, M23, W23, In, dyadic, expr, spec

# ============================================================================================
# Reductions
# ============================================================================================
T232 = [[[0.5, -1.0], [2.0, 0.25], [-1.5, 3.0]], [[1.0, 0.75], [-0.5, 2.5], [0.125, -2.0]]]
expr("sum_all", "sum(x)", {"x": T232}, lambda v: tf.reduce_sum(v.x), exact=True)
expr(
    "sum_axes_keepdims",
    "sum(x, axis=[0, 2], keepdims=true) * w",
    {"x": T232, "w": [[[1.5], [-2.0], [0.5]]]},
    lambda v: tf.reduce_sum(v.x, axis=[0, 2], keepdims=True) * v.w,
    exact=True,
)
expr(
    "sum_negative_axis",
    "sum(x, axis=-1) * w",
    {"x": T232, "w": [[1.0, -1.0, 2.0], [0.5, 0.25, -4.0]]},
    lambda v: tf.reduce_sum(v.x, axis=-1) * v.w,
    exact=True,
)
expr("mean_all", "mean(x)", {"x": T232}, lambda v: tf.reduce_mean(v.x), exact=True)
expr(
    "mean_axis",
    "mean(x, axis=1) * w",
    {"x": T232, "w": [[1.0, -1.0], [2.0, 0.5]]},
    lambda v: tf.reduce_mean(v.x, axis=1) * v.w,
    exact=True,
)
expr("max_ties", "max(x)", {"x": [1.0, 3.0, 3.0]}, lambda v: tf.reduce_max(v.x), exact=True)
expr(
    "max_three_ties",
    "max(x)",
    {"x": [2.0, 2.0, 1.0, 2.0]},
    lambda v: tf.reduce_max(v.x),
    exact=True,
    note="1/3 each",
)
expr(
    "max_axis_ties",
    "max(x, axis=1) * w",
    {"x": [[1.0, 3.0, 3.0], [4.0, -1.0, 2.0]], "w": [2.0, -1.0]},
    lambda v: tf.reduce_max(v.x, axis=1) * v.w,
    exact=True,
)
expr(
    "min_ties_keepdims",
    "min(x, axis=0, keepdims=true) * w",
    {"x": [[1.0, 3.0, -2.0], [1.0, -1.0, 2.0]], "w": [[2.0, -1.0, 0.5]]},
    lambda v: tf.reduce_min(v.x, axis=0, keepdims=True) * v.w,
    exact=True,
)
expr("min_all", "min(x)", {"x": T232}, lambda v: tf.reduce_min(v.x), exact=True)
expr(
    "prod_no_zero",
    "prod(x)",
    {"x": [2.0, 3.0, 0.5, 4.0]},
    lambda v: tf.reduce_prod(v.x),
    exact=True,
)
expr(
    "prod_one_zero",
    "prod(x)",
    {"x": [2.0, 0.0, 3.0, -0.5]},
    lambda v: tf.reduce_prod(v.x),
    exact=True,
)
expr(
    "prod_two_zeros",
    "prod(x)",
    {"x": [0.0, 2.0, 0.0, 3.0]},
    lambda v: tf.reduce_prod(v.x),
    exact=True,
)
expr(
    "prod_axis",
    "prod(x, axis=1) * w",
    {"x": [[2.0, 0.0, 3.0], [1.5, -2.0, 0.5], [0.0, 0.0, 4.0]], "w": [1.0, 2.0, -1.0]},
    lambda v: tf.reduce_prod(v.x, axis=1) * v.w,
    exact=True,
)
expr(
    "prod_axes_keepdims",
    "prod(x, axis=[0, 2], keepdims=true) * w",
    {"x": T232, "w": [[[1.0], [-1.0], [2.0]]]},
    lambda v: tf.reduce_prod(v.x, axis=[0, 2], keepdims=True) * v.w,
    exact=True,
)
expr(
    "logsumexp_all",
    "logsumexp(x)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]},
    lambda v: tf.reduce_logsumexp(v.x),
)
expr(
    "logsumexp_axis",
    "logsumexp(x, axis=1) * w",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [1.0, -2.0]},
    lambda v: tf.reduce_logsumexp(v.x, axis=1) * v.w,
)
expr(
    "logsumexp_keepdims",
    "logsumexp(x, axis=0, keepdims=true) * w",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [[1.0, -2.0, 0.5]]},
    lambda v: tf.reduce_logsumexp(v.x, axis=0, keepdims=True) * v.w,
)
expr(
    "logsumexp_neg_inf",
    "logsumexp(x, axis=1)",
    {"x": [[-INF, 0.0, 1.0], [-INF, -INF, -INF], [-INF, -INF, 2.0]]},
    lambda v: tf.reduce_logsumexp(v.x, axis=1),
)
expr(
    "logsumexp_pos_inf",
    "logsumexp(x)",
    {"x": [INF, 1.0, -2.0]},
    lambda v: tf.reduce_logsumexp(v.x),
)
expr(
    "logsumexp_large",
    "logsumexp(x, axis=1) * w",
    {"x": [[1000.0, 1000.5, 999.0], [-1000.0, -999.25, -1001.0]], "w": [1.0, 1.0]},
    lambda v: tf.reduce_logsumexp(v.x, axis=1) * v.w,
)
expr(
    "softmax_last_axis",
    "sum(softmax(x) * w)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
)
expr(
    "softmax_axis0",
    "sum(softmax(x, axis=0) * w)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x, axis=0) * v.w),
)
expr(
    "softmax_output",
    "softmax(x)",
    {"x": [3.0, 1.0, -2.0, 700.0]},
    lambda v: tf.nn.softmax(v.x),
    note="the gradient of sum(softmax) is rounding noise around 0: only the outputs matter",
)
expr(
    "softmax_neg_inf",
    "sum(softmax(x) * w)",
    {"x": [-INF, 0.0, 1.0], "w": [1.0, 2.0, 3.0]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
)
expr(
    "softmax_large",
    "sum(softmax(x) * w)",
    {"x": [1000.0, 1001.0, 998.5], "w": [1.0, -1.0, 2.0]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
)
expr(
    "cross_entropy",
    "-sum(labels * (x - logsumexp(x, axis=1, keepdims=true)))",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "labels": [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]},
    lambda v: -tf.reduce_sum(v.labels * (v.x - tf.reduce_logsumexp(v.x, axis=1, keepdims=True))),
    wrt=["x"],
)

# --- cumsum, cumprod ---------------------------------------------------------------------------
_CUM = [(False, False), (True, False), (False, True), (True, True)]
for _ex, _rev in _CUM:
    _tag = f"{'exclusive' if _ex else 'inclusive'}_{'reverse' if _rev else 'forward'}"
    _kw = f"exclusive={str(_ex).lower()}, reverse={str(_rev).lower()}"
    expr(
        f"cumsum_{_tag}",
        f"cumsum(x, axis=1, {_kw}) * w",
        {"x": M23, "w": W23},
        lambda v, e=_ex, r=_rev: tf.cumsum(v.x, axis=1, exclusive=e, reverse=r) * v.w,
        exact=True,
    )
    expr(
        f"cumprod_{_tag}",
        f"cumprod(x, {_kw}) * w",
        {"x": [2.0, -0.5, 4.0, 1.5], "w": [1.0, 2.0, -1.0, 0.5]},
        lambda v, e=_ex, r=_rev: tf.math.cumprod(v.x, exclusive=e, reverse=r) * v.w,
        exact=True,
    )
    expr(
        f"cumprod_zero_{_tag}",
        f"cumprod(x, {_kw}) * w",
        {"x": [2.0, 0.0, 4.0, 1.5], "w": [1.0, 2.0, -1.0, 0.5]},
        lambda v, e=_ex, r=_rev: tf.math.cumprod(v.x, exclusive=e, reverse=r) * v.w,
        exact=True,
    )
expr(
    "cumprod_axis0_2d",
    "cumprod(x, axis=0) * w",
    {"x": M23, "w": W23},
    lambda v: tf.math.cumprod(v.x, axis=0) * v.w,
    exact=True,
)

# --- signed zeros: TensorFlow copies a one-element reduction, and its sums and scans start
# from +0.0 (so only a copy keeps a -0.0)
spec(
    "negative_zero_reductions",
    {"x": [-0.0], "m": [[-0.0, 1.5, -0.0]], "z": [-0.0, -0.0, -0.0]},
    {
        "one": "sum(x)",
        "one_mean": "mean(x)",
        "size_one_axis": "sum(m, axis=0)",
        "zeros": "sum(z)",
        "scan": "cumsum(z)",
        "scan_rev_ex": "cumsum(z, exclusive=true, reverse=true)",
        "products": "cumprod(z)",
    },
    lambda v: {
        "one": tf.reduce_sum(v.x),
        "one_mean": tf.reduce_mean(v.x),
        "size_one_axis": tf.reduce_sum(v.m, axis=0),
        "zeros": tf.reduce_sum(v.z),
        "scan": tf.cumsum(v.z),
        "scan_rev_ex": tf.cumsum(v.z, exclusive=True, reverse=True),
        "products": tf.math.cumprod(v.z),
    },
    outputs=["one", "one_mean", "size_one_axis", "zeros", "scan", "scan_rev_ex", "products"],
    exact=True,
)
expr(
    "cumprod_zero_gradient_signs",
    "cumprod(x) * w",
    {"x": [3.0, -1.0, 0.0, 0.5, 2.0], "w": [1.0, 2.0, 3.0, 4.0, 5.0]},
    lambda v: tf.math.cumprod(v.x) * v.w,
    exact=True,
    note="the reverse cumsum of the gradient starts from +0.0: +0.0 after the zero, not -0.0",
)
expr(
    "broadcast_gradient_negative_zero",
    "(x + y) * w",
    {"x": [1.0, 2.0, 3.0], "y": [[0.5, -1.0, 2.0]], "w": [[-0.0, 1.5, -0.0]]},
    lambda v: (v.x + v.y) * v.w,
    exact=True,
    note="x's gradient sums over a size-1 axis: a copy, so -0.0 stays -0.0",
)

# ============================================================================================
# matmul: 1-D operands and broadcast batch dimensions (numpy semantics)
# ============================================================================================
expr(
    "matmul_2d",
    "x @ y",
    {"x": dyadic(2, 3), "y": dyadic(3, 4)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
    cli=True,
)
expr(
    "matmul_2d_inexact",
    "matmul(x, y)",
    {"x": [[0.1, 0.7, -1.3], [2.9, 0.3, 0.11]], "y": [[1.7, -0.2], [0.45, 3.1], [-2.2, 0.6]]},
    lambda v: tf.matmul(v.x, v.y),
)
expr(
    "matmul_vec_mat",
    "x @ y",
    {"x": dyadic(3), "y": dyadic(3, 2)},
    lambda v: tf.squeeze(tf.matmul(v.x[None, :], v.y), axis=-2),
    exact=True,
)
expr(
    "matmul_mat_vec",
    "x @ y",
    {"x": dyadic(2, 3), "y": dyadic(3)},
    lambda v: tf.squeeze(tf.matmul(v.x, v.y[:, None]), axis=-1),
    exact=True,
)
expr(
    "matmul_vec_vec",
    "x @ y",
    {"x": dyadic(4), "y": dyadic(4)},
    lambda v: tf.squeeze(tf.matmul(v.x[None, :], v.y[:, None])),
    exact=True,
)
expr(
    "matmul_batch",
    "x @ y",
    {"x": dyadic(2, 3, 4), "y": dyadic(2, 4, 2)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
)
expr(
    "matmul_batch_broadcast",
    "x @ y",
    {"x": dyadic(2, 1, 2, 3), "y": dyadic(3, 3, 2)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
)
expr(
    "matmul_batch_times_matrix",
    "x @ y",
    {"x": dyadic(2, 3, 4), "y": dyadic(4, 2)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
)
expr(
    "matmul_vec_batch",
    "x @ y",
    {"x": dyadic(4), "y": dyadic(2, 4, 3)},
    lambda v: tf.squeeze(tf.matmul(v.x[None, :], v.y), axis=-2),
    exact=True,
)
expr(
    "matmul_batch_vec",
    "x @ y",
    {"x": dyadic(2, 3, 4), "y": dyadic(4)},
    lambda v: tf.squeeze(tf.matmul(v.x, v.y[:, None]), axis=-1),
    exact=True,
)

# ============================================================================================
# Shapes: indexing and slicing, concat, stack, reshape, transpose, broadcast_to
# ============================================================================================
X34 = dyadic(3, 4)
for _i, (_idx, _tf_idx) in enumerate(
    [
        ("[1]", lambda x: x[1]),
        ("[-1]", lambda x: x[-1]),
        ("[0, -2]", lambda x: x[0, -2]),
        ("[:, 2]", lambda x: x[:, 2]),
        ("[1:3, :]", lambda x: x[1:3, :]),
        ("[-2:, -1]", lambda x: x[-2:, -1]),
        ("[::2, 1::2]", lambda x: x[::2, 1::2]),
        ("[::-1, ::-2]", lambda x: x[::-1, ::-2]),
        ("[-1:0:-1, :-1]", lambda x: x[-1:0:-1, :-1]),
        ("[:, 5:]", lambda x: x[:, 5:]),
    ]
):
    expr(
        f"index_{_i}",
        f"x{_idx} * 3 + x{_idx} * x{_idx}",
        {"x": X34},
        lambda v, ix=_tf_idx: ix(v.x) * 3.0 + ix(v.x) * ix(v.x),
        exact=True,
        note=f"x{_idx}",
    )
expr(
    "index_overlapping",
    "x[1:] * x[:-1]",
    {"x": [0.5, -1.0, 2.0, 1.5]},
    lambda v: v.x[1:] * v.x[:-1],
    exact=True,
)
for _axis in (0, 1, -1):
    expr(
        f"concat_axis{_axis}",
        f"concat([x, y, x * y], {_axis}) * w",
        {
            "x": [[0.5, -1.0], [2.0, 0.25]],
            "y": [[1.5, 2.0], [-0.5, 4.0]],
            "w": dyadic(6, 2) if _axis == 0 else dyadic(2, 6),
        },
        lambda v, a=_axis: tf.concat([v.x, v.y, v.x * v.y], a) * v.w,
        exact=True,
    )
    expr(
        f"stack_axis{_axis}",
        f"stack([x, y, x * y], axis={_axis}) * w",
        {
            "x": [0.5, -1.0],
            "y": [1.5, 2.0],
            "w": dyadic(3, 2) if _axis == 0 else dyadic(2, 3),
        },
        lambda v, a=_axis: tf.stack([v.x, v.y, v.x * v.y], axis=a) * v.w,
        exact=True,
    )
expr(
    "list_of_tensors",
    "[x, y * 2] * w",
    {"x": [0.5, -1.0], "y": [1.5, 2.0], "w": [[1.0, -2.0], [0.5, 3.0]]},
    lambda v: tf.stack([v.x, v.y * 2.0]) * v.w,
    exact=True,
)
expr(
    "reshape",
    "reshape(x, [3, -1]) * w",
    {"x": dyadic(2, 3, 2), "w": dyadic(3, 4)},
    lambda v: tf.reshape(v.x, [3, -1]) * v.w,
    exact=True,
)
expr(
    "transpose_default",
    "transpose(x) * w",
    {"x": dyadic(2, 3), "w": dyadic(3, 2)},
    lambda v: tf.transpose(v.x) * v.w,
    exact=True,
)
expr(
    "transpose_axes",
    "transpose(x, [1, 2, 0]) * w",
    {"x": dyadic(2, 3, 4), "w": dyadic(3, 4, 2)},
    lambda v: tf.transpose(v.x, [1, 2, 0]) * v.w,
    exact=True,
)
expr(
    "broadcast_to_vector",
    "broadcast_to(x, [2, 3]) * w",
    {"x": [0.5, -1.0, 2.0], "w": W23},
    lambda v: tf.broadcast_to(v.x, [2, 3]) * v.w,
    exact=True,
)
expr(
    "broadcast_to_column",
    "broadcast_to(x, [2, 2, 3]) * w",
    {"x": [[0.5], [-1.0]], "w": dyadic(2, 2, 3)},
    lambda v: tf.broadcast_to(v.x, [2, 2, 3]) * v.w,
    exact=True,
)
expr(
    "broadcast_to_scalar",
    "broadcast_to(x, [3]) * w",
    {"x": 1.5, "w": [1.0, -2.0, 0.25]},
    lambda v: tf.broadcast_to(v.x, [3]) * v.w,
    exact=True,
)
expr(
    "broadcast_scalar_to_matrix_sum",
    "sum(x + y * m)",
    {"x": 0.5, "y": -1.5, "m": W23},
    lambda v: tf.reduce_sum(v.x + v.y * v.m),
    exact=True,
)

# a scalar seed (or a reduction's gradient) reaches an op that broadcasts one of its inputs
expr(
    "broadcast_to_output",
    "broadcast_to(x, [2, 3])",
    {"x": [0.5, -1.0, 2.0]},
    lambda v: tf.broadcast_to(v.x, [2, 3]),
    exact=True,
)
expr(
    "broadcast_after_reduction",
    "sum(x) + sum(x * 2 + y, axis=0)",
    {"x": [[0.5, -1.0], [2.0, 0.25]], "y": 1.5},
    lambda v: tf.reduce_sum(v.x) + tf.reduce_sum(v.x * 2.0 + v.y, axis=0),
    exact=True,
)
expr(
    "where_broadcast_lazy_seed",
    "where(c > 0, x, y)",
    {"c": [[1.0, -1.0, 2.0], [-1.0, 1.0, 1.0]], "x": [0.5, -1.0, 2.0], "y": 1.5},
    lambda v: tf.where(v.c > 0, v.x, v.y),
    exact=True,
)
expr(
    "cond_broadcast_branch",
    "cond(s > 0, broadcast_to(x, [2, 3]), m)",
    {"s": 1.0, "x": [0.5, -1.0, 2.0], "m": M23},
    lambda v: tf.cond(v.s > 0, lambda: tf.broadcast_to(v.x, [2, 3]), lambda: v.m),
    exact=True,
)
expr(
    "clip_broadcast_bounds",
    "clip(x, lo, hi)",
    {"x": M23, "lo": [0.0, -1.0, 2.5], "hi": 1.0},
    lambda v: tf.clip_by_value(v.x, v.lo, v.hi),
    exact=True,
)


# ============================================================================================
# Empty tensors: a reduction over no elements gives its identity, as TensorFlow
# ============================================================================================
_EMPTY_GRAPH = {
    "total": "sum(x)",
    "average": "mean(x)",
    "largest": "max(x)",
    "smallest": "min(x)",
    "product": "prod(x)",
    "lse": "logsumexp(x)",
    "probs": "softmax(x)",
    "cumprod_ex": "cumprod(x, exclusive=true)",
    "cumsum_rev": "cumsum(x, reverse=true)",
    "int_max": "max(n)",
    "int_min": "min(n)",
}


def _empty_outputs(v, axis):
    return {
        "total": tf.reduce_sum(v.x, axis=axis),
        "average": tf.reduce_mean(v.x, axis=axis),
        "largest": tf.reduce_max(v.x, axis=axis),
        "smallest": tf.reduce_min(v.x, axis=axis),
        "product": tf.reduce_prod(v.x, axis=axis),
        "lse": tf.reduce_logsumexp(v.x, axis=axis),
        "probs": tf.nn.softmax(v.x),
        "cumprod_ex": tf.math.cumprod(v.x, axis=-1, exclusive=True),
        "cumsum_rev": tf.math.cumsum(v.x, axis=-1, reverse=True),
        "int_max": tf.reduce_max(v.n),
        "int_min": tf.reduce_min(v.n),
    }


spec(
    "empty_reductions",
    {"x": [], "n": In([], "int32")},
    _EMPTY_GRAPH,
    lambda v: _empty_outputs(v, None),
    outputs=list(_EMPTY_GRAPH),
    exact=True,
    note="sum 0, mean nan, max -inf (int: the lowest int32), min inf, prod 1, logsumexp -inf",
)
# the same along axis 1 of a (2, 0) tensor (max(n) and min(n) still reduce everything)
_EMPTY_AXIS_GRAPH = {k: t.replace("(x", "(x, axis=1") for k, t in _EMPTY_GRAPH.items()}
spec(
    "empty_reductions_axis",
    {"x": [[], []], "n": In([[], []], "int64")},
    _EMPTY_AXIS_GRAPH,
    lambda v: _empty_outputs(v, 1),
    outputs=list(_EMPTY_GRAPH),
    exact=True,
)
expr(
    "matmul_empty_inner",
    "matmul(x, reshape(w, [0, 3])) * y",
    {"x": [[], []], "w": [], "y": [[1.5, -2.0, 0.5], [1.0, 1.0, -1.0]]},
    lambda v: tf.matmul(v.x, tf.reshape(v.w, [0, 3])) * v.y,
    exact=True,
)
