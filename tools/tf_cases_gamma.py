"""TensorFlow reference cases: lgamma, digamma, polygamma (gradcli/core/ops/gamma.py) and the
running scans cummax, cummin, cumulative_logsumexp (gradcli/core/ops/cumulative.py).

The gamma family is computed as TensorFlow's CPU kernels compute it (the C library's lgamma,
Cephes' psi and zeta), so its cases are exact: bit-identical values and gradients, on grids
of ordinary, negative non-integer, tiny and huge arguments, at the poles (lgamma inf with a
nan gradient, digamma nan, polygamma inf or nan) and on empty tensors. Subnormal arguments
are left out: TensorFlow computes with denormals flushed to zero, gradcli does not.

TensorFlow has no cummax or cummin: their cases compare gradcli with the composition it
follows, tf.maximum (tf.minimum) folded along the axis, differentiated by TensorFlow (ties
give the gradient to the running value, so to the earliest element holding it).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_cases import INF, NAN, expr, hessian

_RNG = np.random.default_rng(2021)


def _grid() -> list[float]:
    """Arguments across lgamma's and digamma's regimes, no integers <= 0, no subnormals."""
    parts = [
        _RNG.uniform(-12.0, 0.0, 24),  # reflection
        _RNG.uniform(0.0, 12.0, 24),  # upward recurrence, zeros of lgamma near 1 and 2
        10.0 ** _RNG.uniform(1.0, 300.0, 10),  # asymptotic series, huge
        -(10.0 ** _RNG.uniform(-300.0, 0.0, 6)),  # tiny negatives: reflection near 0
        10.0 ** _RNG.uniform(-300.0, -1.0, 6),  # tiny positives
        [1.4616321449683622, -0.5040830082644554, -2.610720868444145],  # near zeros of digamma
        [0.9999999999999999, 1.0000000000000002, 2.0000000000000004, -2.9999999999999996],
    ]
    return [float(v) for part in parts for v in part]


GRID = _grid()
POLES = [0.0, -0.0, -1.0, -2.0, -50.0, -1e20]
EDGES = [1e306, 1.7976931348623157e308, INF, -INF, NAN, 2.5e305]

# ============================================================================================
# lgamma, digamma
# ============================================================================================
expr(
    "lgamma_grid",
    "lgamma(x)",
    {"x": GRID},
    lambda v: tf.math.lgamma(v.x),
    exact=True,
    note="the C library's lgamma; gradient digamma(x), Cephes' psi",
)
expr(
    "lgamma_poles",
    "lgamma(x)",
    {"x": POLES},
    lambda v: tf.math.lgamma(v.x),
    exact=True,
    note="inf at 0, -1, -2, ... (huge negatives are integers); gradient digamma = nan",
)
expr(
    "lgamma_edges",
    "lgamma(x)",
    {"x": EDGES},
    lambda v: tf.math.lgamma(v.x),
    exact=True,
    note="overflow past 2.55e305 with a finite gradient; lgamma(-inf) = inf, gradient nan",
)
expr("lgamma_empty", "lgamma(x)", {"x": []}, lambda v: tf.math.lgamma(v.x), exact=True)
expr("digamma_grid", "digamma(x)", {"x": GRID}, lambda v: tf.math.digamma(v.x), exact=True)
expr(
    "digamma_poles",
    "digamma(x)",
    {"x": POLES},
    lambda v: tf.math.digamma(v.x),
    exact=True,
    note="nan at 0, -1, -2, ...; gradient polygamma(1, x) = inf there",
)
expr("digamma_edges", "digamma(x)", {"x": EDGES}, lambda v: tf.math.digamma(v.x), exact=True)
expr(
    "gamma_scalar_chain",
    "lgamma(x) * digamma(y) + polygamma(1, x * y)",
    {"x": 0.75, "y": -1.25},
    lambda v: (
        tf.math.lgamma(v.x) * tf.math.digamma(v.y)
        + tf.math.polygamma(tf.constant(1.0, tf.float64), v.x * v.y)
    ),
    exact=True,
)

# ============================================================================================
# polygamma(a, x): no gradient to a (TensorFlow's rule returns None)
# ============================================================================================
P_X = [-2.75, -0.5, 0.25, 1.0, 3.5, 12.0, 1e3, 1e-5]


def _pg(a, x):
    return tf.math.polygamma(tf.constant(a, tf.float64), x)


for _n in (1, 2, 3, 6):
    expr(
        f"polygamma_{_n}",
        f"polygamma({_n}, x)",
        {"x": P_X},
        lambda v, n=float(_n): _pg(n, v.x),
        exact=True,
    )
expr(
    "polygamma_broadcast",
    "polygamma(a, x)",
    {"a": [[0.0], [1.0], [4.0]], "x": [-1.5, 0.5, 7.0]},
    lambda v: tf.math.polygamma(v.a, v.x),
    exact=True,
    note="the gradient to x sums over a's rows; a gets None (zeros when unconnected: zero)",
)
expr(
    "polygamma_orders",
    "polygamma(a, x)",
    {"a": [0.5, -1.0, NAN, 170.0, 171.0, 30.0], "x": [2.0, 2.0, 2.0, 20.0, 20.0, 1e-300]},
    lambda v: tf.math.polygamma(v.a, v.x),
    exact=True,
    note="nan unless a is a non-negative integer; exp(lgamma(a + 1)) overflows past 170",
)
expr(
    "polygamma_poles",
    "polygamma(a, x)",
    {"a": [1.0, 2.0, 3.0, 1.0, 2.0, 1.0], "x": [0.0, 0.0, -3.0, -INF, INF, NAN]},
    lambda v: tf.math.polygamma(v.a, v.x),
    exact=True,
    note="poles: inf for odd a, nan for even a >= 2 (Cephes' zeta at a non-positive integer)",
)
expr(
    "polygamma_very_negative",
    "polygamma(a, x)",
    {"a": [1.0, 2.0, 1.0], "x": [-100.5, -1000.25, -3000.75]},
    lambda v: tf.math.polygamma(v.a, v.x),
    exact=True,
    note="Cephes' zeta sums terms one by one up to x + n > 9 (no reflection)",
)
expr(
    "polygamma_only_a",
    "polygamma(a, x)",
    {"a": [1.0, 2.0], "x": [0.5, 1.5]},
    lambda v: tf.math.polygamma(v.a, v.x),
    wrt=["a"],
    exact=True,
    note="no gradient flows to the order: None",
)
expr(
    "polygamma_empty",
    "polygamma(2, x)",
    {"x": []},
    lambda v: _pg(2.0, v.x),
    exact=True,
)

# ============================================================================================
# Second order: the rules' own graphs (digamma -> polygamma(1) -> polygamma(2) ...)
# ============================================================================================
H3 = [-1.25, 0.5, 3.0]
hessian(
    "h_lgamma",
    "sum(lgamma(x))",
    {"x": H3},
    lambda v: tf.reduce_sum(tf.math.lgamma(v.x)),
    exact=True,
)
hessian(
    "h_digamma",
    "sum(digamma(x))",
    {"x": H3},
    lambda v: tf.reduce_sum(tf.math.digamma(v.x)),
    exact=True,
)
hessian(
    "h_polygamma",
    "sum(polygamma(2, x))",
    {"x": H3},
    lambda v: tf.reduce_sum(_pg(2.0, v.x)),
    exact=True,
)
hessian(
    "h_lgamma_product",
    "lgamma(x * y) + digamma(x) * y",
    {"x": 1.75, "y": -0.5},
    lambda v: tf.math.lgamma(v.x * v.y) + tf.math.digamma(v.x) * v.y,
    exact=True,
)

# ============================================================================================
# cumulative_logsumexp
# ============================================================================================
# close: the gradient's exp and log run on numpy's vectorised functions (an ulp from libm's)
LSE = "gradient through numpy's exp and log"
L6 = [1.0, 3.0, -2.0, 3.0, 0.5, -1.0]
W6 = [0.5, -1.0, 2.0, 0.25, -3.0, 1.5]
M34 = [[0.5, -1.0, 2.0, 0.0], [1.5, 1.5, -3.0, 4.0], [-0.25, 2.0, 1.0, -1.0]]
W34 = [[1.0, -2.0, 0.5, 3.0], [-1.0, 0.25, 2.0, -0.5], [0.5, 1.5, -1.0, 2.0]]

for _excl in (False, True):
    for _rev in (False, True):
        _tag = ("_exclusive" if _excl else "") + ("_reverse" if _rev else "")
        expr(
            f"cumulative_logsumexp{_tag}",
            f"cumulative_logsumexp(x, exclusive={str(_excl).lower()}, "
            f"reverse={str(_rev).lower()}) * w",
            {"x": L6, "w": W6},
            lambda v, e=_excl, r=_rev: (
                tf.math.cumulative_logsumexp(v.x, exclusive=e, reverse=r) * v.w
            ),
            note=LSE,
        )
for _axis in (0, 1, -1):
    expr(
        f"cumulative_logsumexp_axis{_axis}",
        f"cumulative_logsumexp(x, axis={_axis}) * w",
        {"x": M34, "w": W34},
        lambda v, a=_axis: tf.math.cumulative_logsumexp(v.x, axis=a) * v.w,
        note=LSE,
    )
expr(
    "cumulative_logsumexp_wide",
    "cumulative_logsumexp(x, axis=0, reverse=true) * w",
    {"x": np.round(_RNG.normal(0, 4, (6, 9)), 3).tolist(), "w": _RNG.normal(0, 1, 9).tolist()},
    lambda v: tf.math.cumulative_logsumexp(v.x, axis=0, reverse=True) * v.w,
    note="9 columns scanned along axis 0 at once",
)
expr(
    "cumulative_logsumexp_large",
    "cumulative_logsumexp(x) * w",
    {"x": [1000.0, -1000.0, 1000.0, 999.0, -INF], "w": [1.0, 2.0, -1.0, 0.5, 1.0]},
    lambda v: tf.math.cumulative_logsumexp(v.x) * v.w,
    note=LSE,
)
hessian(
    "h_cumulative_logsumexp_zero_upstream",
    "sum(cumulative_logsumexp(x) * (x - x))",
    {"x": [0.0, 0.5, -1.0]},
    lambda v: tf.reduce_sum(tf.math.cumulative_logsumexp(v.x) * (v.x - v.x)),
    note="TensorFlow's rule takes log of the upstream gradient where it is positive "
    "(where(g > 0, log(g), min)): with g = 0 the second derivative is log's 0 * inf, nan",
)
expr(
    "cumulative_logsumexp_neg_inf",
    "cumulative_logsumexp(x) * w",
    {"x": [-INF, -INF, 1.0, 2.0], "w": [1.0, 2.0, -1.0, 0.5]},
    lambda v: tf.math.cumulative_logsumexp(v.x) * v.w,
    note="a leading -inf: exp(lowest - (-inf)) in TensorFlow's rule gives nan gradients",
)
expr(
    "cumulative_logsumexp_nan_inf",
    "cumulative_logsumexp(x, axis=1)",
    {"x": [[NAN, 1.0, 2.0], [1.0, NAN, 2.0], [INF, INF, 1.0], [1.0, INF, -INF]]},
    lambda v: tf.math.cumulative_logsumexp(v.x, axis=1),
    note="std::max/std::min: a nan element counts as the running value; inf + inf is nan",
)
expr(
    "cumulative_logsumexp_zero_grad",
    "cumulative_logsumexp(x) * w",
    {"x": [0.5, -1.0, 2.0], "w": [0.0, 1.0, 0.0]},
    lambda v: tf.math.cumulative_logsumexp(v.x) * v.w,
    note="zero upstream gradients take the dtype's lowest as their log",
)
expr(
    "cumulative_logsumexp_empty",
    "cumulative_logsumexp(x, axis=1)",
    {"x": [[], []]},
    lambda v: tf.math.cumulative_logsumexp(v.x, axis=1),
    exact=True,
)
hessian(
    "h_cumulative_logsumexp",
    "sum(cumulative_logsumexp(x) * w)",
    {"x": [0.5, -1.0, 2.0], "w": [1.0, -2.0, 0.5]},
    lambda v: tf.reduce_sum(tf.math.cumulative_logsumexp(v.x) * v.w),
    wrt=["x"],
    note=LSE,
)


# ============================================================================================
# cummax, cummin: TensorFlow's tf.maximum / tf.minimum folded along the axis
# ============================================================================================
def running(fn, x, axis=0, exclusive=False, reverse=False):
    """The fold gradcli's cummax (fn = tf.maximum) and cummin (tf.minimum) are defined as."""
    items = tf.unstack(x, axis=axis)
    items = items[::-1] if reverse else items
    outs, acc = [], None
    for item in items:
        acc = item if acc is None else fn(acc, item)
        outs.append(acc)
    if exclusive:
        identity = -INF if fn is tf.maximum else INF
        outs = [tf.fill(tf.shape(items[0]), tf.constant(identity, x.dtype)), *outs[:-1]]
    outs = outs[::-1] if reverse else outs
    return tf.stack(outs, axis=axis)


T6 = [1.0, 3.0, 2.0, 3.0, 5.0, 0.0]  # a tie at 3: the gradient stays with the first 3
Q6 = [1.0, -2.0, 0.5, 2.0, -0.25, 4.0]
for _kind, _fn in (("cummax", tf.maximum), ("cummin", tf.minimum)):
    for _excl in (False, True):
        for _rev in (False, True):
            _tag = ("_exclusive" if _excl else "") + ("_reverse" if _rev else "")
            expr(
                f"{_kind}{_tag}",
                f"{_kind}(x, exclusive={str(_excl).lower()}, reverse={str(_rev).lower()}) * w",
                {"x": T6 if _kind == "cummax" else [-v for v in T6], "w": Q6},
                lambda v, f=_fn, e=_excl, r=_rev: running(f, v.x, exclusive=e, reverse=r) * v.w,
                exact=True,
            )
expr(
    "cummax_axis1",
    "cummax(x, axis=1) * w",
    {"x": [[1.0, 0.5, 2.0, 2.0], [4.0, -1.0, 4.0, 5.0], [0.0, 0.0, 0.0, 0.0]], "w": W34},
    lambda v: running(tf.maximum, v.x, axis=1) * v.w,
    exact=True,
)
expr(
    "cummin_axis0_reverse",
    "cummin(x, axis=0, reverse=true) * w",
    {"x": M34, "w": W34},
    lambda v: running(tf.minimum, v.x, axis=0, reverse=True) * v.w,
    exact=True,
)
expr(
    "cummax_nan_inf",
    "cummax(x) * w",
    {"x": [-INF, -INF, 1.0, NAN, 3.0, INF], "w": Q6},
    lambda v: running(tf.maximum, v.x) * v.w,
    exact=True,
    note="maximum propagates nan; its gradient then goes to the new element (nan >= x fails)",
)
expr(
    "cummax_empty",
    "cummax(x, axis=0)",
    {"x": [[], []]},
    lambda v: running(tf.maximum, v.x, axis=0),
    exact=True,
)
expr(
    "cummax_run_order",
    "cummax(x) * w",
    {"x": [5.0, 1.0, 2.0, 3.0], "w": [0.3, 0.1, 0.2, 0.7]},
    lambda v: running(tf.maximum, v.x) * v.w,
    exact=True,
    note="x[0] holds the max throughout: its gradient adds w from the end, 0.3 + (0.1 + "
    "(0.2 + 0.7)), as TensorFlow's chain does (from the start it would round differently)",
)
hessian(
    "h_cummax_square",
    "sum(square(cummax(x)) * w)",
    {"x": [1.0, 3.0, 2.0, 3.0], "w": [1.0, -2.0, 0.5, 1.5]},
    lambda v: tf.reduce_sum(tf.square(running(tf.maximum, v.x)) * v.w),
    wrt=["x"],
    exact=True,
)
