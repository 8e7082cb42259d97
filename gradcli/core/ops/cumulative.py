"""Running extremes and the running log-sum-exp along one axis: cummax, cummin and
cumulative_logsumexp (each with axis=0, exclusive=false, reverse=false, as tf.math.cumsum).

TensorFlow has no cummax or cummin (TensorFlow Probability's tfp.math.cummax is another
package). gradcli defines them as TensorFlow's own composition tf.scan(tf.maximum, x):
out[0] = x[0], out[j] = maximum(out[j-1], x[j]), differentiated as TensorFlow differentiates
that chain. maximum gives the whole gradient to its first argument at a tie, so every output
element's gradient goes to the earliest element (in scan order) that holds the running
maximum; an element that never holds it gets none (explain's `unselected`). exclusive shifts
the result by one (its first element is the identity, -inf for cummax, inf for cummin);
reverse scans from the end. The gradient is the internal `cumextreme_grad` (the upstream
gradient added into the elements picked), whose own gradient is `cumextreme_pick`.

cumulative_logsumexp is tf.math.cumulative_logsumexp: TensorFlow's kernel folds the
pairwise log-add-exp max + log1p(exp(min - max)) along the axis from -inf, with std::max and
std::min (a nan element is skipped as if it were the running value: [1, nan] gives
[1, 1 + log 2]), and its gradient is math_ops' _CumulativeLogsumexpGrad, node for node.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.infer import row_infer
from gradcli.core.ops.reduce import _highest, _lowest
from gradcli.core.ops.registry import KINK, SMOOTH, Op, Transport, register
from gradcli.core.ops.scan import _CUM_ATTRS, _cum_infer
from gradcli.core.ops.sym import finite_max, number, scan_rows


def _flags(attrs) -> tuple[int, bool, bool]:
    return attrs.get("axis", 0), bool(attrs.get("exclusive")), bool(attrs.get("reverse"))


def _scan_view(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """x with the scan axis last, in scan order."""
    moved = np.moveaxis(x, axis, -1)
    return moved[..., ::-1] if reverse else moved


def _unscan(out: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    return np.moveaxis(out[..., ::-1] if reverse else out, -1, axis)


def _shift(out: np.ndarray, first) -> np.ndarray:
    """The exclusive scan from the inclusive one (scan axis last): first, out[0], ..."""
    shifted = np.empty_like(out)
    if out.shape[-1]:
        shifted[..., 0] = first
        shifted[..., 1:] = out[..., :-1]
    return shifted


# --- cummax, cummin ---------------------------------------------------------------------------
_KINDS = {
    "cummax": (np.maximum, np.greater_equal, _lowest),
    "cummin": (np.minimum, np.less_equal, _highest),
}


def _extreme_bind(kind: str):
    combine, _, identity = _KINDS[kind]

    def bind(attrs):
        axis, exclusive, reverse = _flags(attrs)

        def forward(x):
            x = np.asarray(x)
            out = combine.accumulate(_scan_view(x, axis % x.ndim, reverse), axis=-1)
            if exclusive:
                out = _shift(out, identity(x.dtype))
            return _unscan(out, axis % x.ndim, reverse)

        return forward

    return bind


def _route(kind: str, attrs, x) -> tuple[np.ndarray, np.ndarray]:
    """(into, out): output element out[t] (flat index) takes its value and gradient from input
    element into[t]. In scan order within each row, so reversed they run from the end."""
    combine, keeps, _ = _KINDS[kind]
    x = np.asarray(x)
    axis, exclusive, reverse = _flags(attrs)
    axis %= x.ndim
    row = _scan_view(x, axis, reverse)
    running = combine.accumulate(row, axis=-1)
    # maximum(out[j-1], x[j]) passes the gradient on to out[j-1] where out[j-1] >= x[j]
    keep = np.zeros(row.shape, bool)
    keep[..., 1:] = keeps(running[..., :-1], row[..., 1:])
    positions = np.where(keep, 0, np.arange(row.shape[-1]))
    held = np.maximum.accumulate(positions, axis=-1) if row.size else positions
    ids = _scan_view(np.arange(x.size).reshape(x.shape), axis, reverse)
    into = np.take_along_axis(ids, held, axis=-1)
    if exclusive:
        return into[..., :-1].ravel(), ids[..., 1:].ravel()
    return into.ravel(), ids.ravel()


def _pick(kind, attrs, v, x, fill):
    """out[t] = v[into[t]] along the route of x (fill where nothing feeds it)."""
    into, out = _route(kind, attrs, x)
    v = np.asarray(v)
    result = np.full(np.shape(x), fill, dtype=v.dtype)
    result.reshape(-1)[out] = np.broadcast_to(v, np.shape(x)).reshape(-1)[into]
    return result


def _scatter(kind, attrs, g, x, zero):
    """The transpose of _pick: each g[t] added into out[into[t]], from the end of each row
    (TensorFlow's chain adds a run of gradients from its last element back)."""
    into, out = _route(kind, attrs, x)
    g = np.broadcast_to(np.asarray(g), np.shape(x))
    result = np.full(np.shape(x), zero, dtype=g.dtype)
    np.add.at(result.reshape(-1), into[::-1], g.reshape(-1)[out[::-1]])
    return result


def _route_attrs(node) -> dict:
    return {k: node.attrs[k] for k in ("axis", "exclusive", "reverse") if k in node.attrs}


def _extreme_ops(kind: str, word: str) -> None:
    _, _, identity = _KINDS[kind]

    def grad(b, n, g):
        return b.cumextreme_grad(g, n.inputs[0], kind=kind, **_route_attrs(n))

    def at_point(node, args, raw):
        # the route frozen at the point (a tie stays with the earlier element)
        x = np.asarray(args[0], dtype=np.float64)
        return _pick(kind, node.attrs, x, raw[0], identity(x.dtype))

    def sympy(sp, attrs, args, values):
        fill = number(sp, identity(np.asarray(values[0]).dtype))
        return _pick(kind, attrs, args[0], values[0], fill)

    def route(node, j, value_of):
        return _route(kind, node.attrs, value_of(node.inputs[0]))

    register(
        Op(
            kind,
            _cum_infer(kind),
            bind=_extreme_bind(kind),
            grads=(grad,),
            behavior=KINK,
            public=True,
            arity=1,
            attrs=_CUM_ATTRS,
            transport=Transport.ROUTE,
            route=route,
            at_point=at_point,
            convention=tie_facts.running(word[:3]),
            sympy=sympy,
            inactive=(
                f"{kind}({{arg}}) passes the gradient only to the running {word}: "
                "{count} get none",
                f"{kind} in {{entry}} {{line}} passes the gradient only to the running {word}",
            ),
            doc=f"the running {word} along axis (tf.scan(tf.{word}imum, x)); gradient to the "
            f"earliest element holding it",
        )
    )


_extreme_ops("cummax", "max")
_extreme_ops("cummin", "min")


def _internal_infer(attrs, g, x):
    return x.shape, g.dtype


def _internal_route(scatters: bool):
    def route(node, j, value_of):
        into, out = _route(node.attrs["kind"], node.attrs, value_of(node.inputs[1]))
        # scatter: element t of g feeds output element into[t]; pick: the reverse
        return (out, into) if scatters else (into, out)

    return route


register(
    Op(
        "cumextreme_grad",
        _internal_infer,
        bind=lambda attrs: lambda g, x: _scatter(attrs["kind"], attrs, g, x, 0.0),
        grads=(lambda b, n, g: b.cumextreme_pick(g, n.inputs[1], **n.attrs), None),
        cuts=lambda node, inputs: (1,),
        arity=2,
        sympy=lambda sp, attrs, args, values: _scatter(
            attrs["kind"], attrs, args[0], values[1], sp.Integer(0)
        ),
        transport=Transport.ROUTE,
        route=_internal_route(True),
        doc="cummax's gradient: g added into the elements that held the running extreme",
    )
)
register(
    Op(
        "cumextreme_pick",
        _internal_infer,
        bind=lambda attrs: lambda v, x: _pick(attrs["kind"], attrs, v, x, 0.0),
        grads=(lambda b, n, g: b.cumextreme_grad(g, n.inputs[1], **n.attrs), None),
        cuts=lambda node, inputs: (1,),
        arity=2,
        sympy=lambda sp, attrs, args, values: _pick(
            attrs["kind"], attrs, args[0], values[1], sp.Integer(0)
        ),
        moves=True,
        transport=Transport.ROUTE,
        route=_internal_route(False),
        doc="the transpose of cumextreme_grad: v at the elements holding the running extreme",
    )
)


# --- cumulative_logsumexp -------------------------------------------------------------------
def _log_add_exp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TensorFlow's pairwise step: max + log1p(exp(min - max)), -inf when max is -inf, with
    std::max/std::min (a nan b leaves a: log-add-exp(a, a)); numpy's logaddexp (the C
    library's exp and log1p, as TensorFlow's scalar kernel) where the two agree."""
    b_nan = np.isnan(b)
    out = np.logaddexp(a, np.where(b_nan, a, b))
    both_inf = (a == np.inf) & ((b == np.inf) | b_nan)  # exp(inf - inf) = nan
    return np.where(np.isnan(a) | both_inf, np.nan, out)


def _running_lse(row: np.ndarray) -> np.ndarray:
    if not (np.isnan(row).any() or np.isposinf(row).any()):
        return np.logaddexp.accumulate(row, axis=-1)
    out = np.empty_like(row)
    acc = np.full(row.shape[:-1], -np.inf, dtype=row.dtype)
    for j in range(row.shape[-1]):
        acc = out[..., j] = _log_add_exp(acc, row[..., j])
    return out


def _lse_bind(attrs):
    axis, exclusive, reverse = _flags(attrs)

    def forward(x):
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            out = _running_lse(_scan_view(x, axis % x.ndim, reverse))
        if exclusive:
            out = _shift(out, -np.inf)
        return _unscan(out, axis % x.ndim, reverse)

    return forward


def _lse_grad(b, n, g):
    # TensorFlow's _CumulativeLogsumexpGrad: the upstream gradient split by sign into logs
    # (the dtype's lowest where it has none), each scanned the other way and exponentiated
    x, y = n.inputs[0], n.id
    axis, exclusive, reverse = _flags(n.attrs)
    zero, lowest = b.const(0.0, like=x), b.const(float(np.finfo(b.dtype(x)).min), like=x)
    log_pos = b.where(b.greater(g, zero), b.log(g), lowest)
    log_neg = b.where(b.less(g, zero), b.log(b.neg(g)), lowest)

    def part(log_g):
        scanned = b.cumulative_logsumexp(
            b.sub(log_g, y), axis=axis, exclusive=exclusive, reverse=not reverse
        )
        return b.exp(b.add(scanned, x))

    return b.sub(part(log_pos), part(log_neg))


def _lse_sympy(sp, attrs, args, values):
    axis, exclusive, reverse = _flags(attrs)

    def row(xs, vs):
        order = list(range(len(xs)))[::-1] if reverse else list(range(len(xs)))
        out = [None] * len(xs)
        for k, j in enumerate(order):
            seen = order[: k + (not exclusive)]
            if not seen:
                out[j] = number(sp, -np.inf)
                continue
            m = number(sp, finite_max([vs[i] for i in seen]))  # shifted as reduce_logsumexp
            out[j] = sp.log(sp.Add(*[sp.exp(xs[i] - m) for i in seen])) + m
        return out

    return scan_rows(axis % args[0].ndim, args[0], values[0], row)


register(
    Op(
        "cumulative_logsumexp",
        row_infer("cumulative_logsumexp", default_axis=0),
        bind=_lse_bind,
        grads=(_lse_grad,),
        behavior=SMOOTH,
        public=True,
        arity=1,
        attrs=_CUM_ATTRS,
        accepts="float",
        transport=Transport.SCAN,
        sympy=_lse_sympy,
        doc="tf.math.cumulative_logsumexp: log(cumsum(exp(x))) along axis, pairwise and stable",
    )
)
