"""Selection and control flow: where, clip, cond and custom gradients."""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import custom_arity, is_float
from gradcli.core.ops import kink_facts
from gradcli.core.ops.infer import broadcast, fmt, need_numeric, same_dtype
from gradcli.core.ops.registry import (
    BRANCH,
    BROADCAST,
    CUSTOM,
    FORWARD,
    KINK,
    Op,
    ShapeError,
    is_const_equal,
    register,
)
from gradcli.core.ops.selection import _maximum_scalar, _minimum_scalar
from gradcli.core.ops.sym import each_at


# --- where, clip ------------------------------------------------------------------------------
def _where_infer(attrs, c, x, y):
    if c.dtype != "bool":
        raise ShapeError(f"where: the condition must be boolean (a comparison), got {c.dtype}")
    if c.shape == x.shape == y.shape and x.dtype == y.dtype:  # the common case (a hot path)
        return x.shape, x.dtype
    return broadcast("where", c, x, y), same_dtype("where", x, y)


def _where_scalar(c, x, y):
    return x if c else y


def _where_grad(side):
    def rule(b, n, g):
        c, x = n.inputs[0], n.inputs[1]
        zero = b.const(0.0, like=x)
        return b.where(c, g, zero) if side == 1 else b.where(c, zero, g)

    return rule


# both sides are computed and connected: the unselected side receives zeros (and 0 * inf = nan)
def _where_selection(graph, node, value):
    # a rule's where(c, g, 0) or where(c, 0, g): the side holding the constant 0 gets 0
    c, a, b = node.inputs
    if is_const_equal(graph, b, 0.0):
        return ~value(c), a
    if is_const_equal(graph, a, 0.0):
        return value(c), b
    return None


register(
    Op(
        "where",
        _where_infer,
        accepts="select",
        forward=np.where,
        scalar=_where_scalar,
        grads=(None, _where_grad(1), _where_grad(2)),
        behavior=KINK,
        elementwise=True,
        public=True,
        arity=3,
        # the condition is a constant at the point: the selected side, element by element
        sympy=each_at(lambda sp, xs, vs: xs[1] if vs[0] else xs[2]),
        selects=True,
        at_point=FORWARD,
        no_convention="its condition is a constant; a kink is in what computed it",
        selection=_where_selection,
        batched=BROADCAST,
        inactive=(
            "{text} selects the other side where {cond} is {side}: "
            "{arg} gets no gradient at {count}",
            "where in {entry} {line} selects the other side there",
        ),
    )
)


def _clip_infer(attrs, x, lo, hi):
    need_numeric("clip", x)
    return broadcast("clip", x, lo, hi), same_dtype("clip", x, lo, hi)


def _clip(x, lo, hi):
    # as tf.clip_by_value: maximum(minimum(x, hi), lo)
    return np.maximum(np.minimum(x, hi), lo)


def _clip_scalar(x, lo, hi):
    return _maximum_scalar(_minimum_scalar(x, hi), lo)


def _clip_sympy(sp, xs, vs):
    # maximum(minimum(x, hi), lo), each tie going to the first argument
    (x, lo, hi), (xv, lov, hiv) = xs, vs
    low, low_v = (x, xv) if xv <= hiv else (hi, hiv)
    return low if low_v >= lov else lo


def _clip_grad_x(b, n, g):
    # x passes where x <= hi and min(x, hi) >= lo: at either bound the gradient goes to x
    x, lo, hi = n.inputs
    inside = b.logical_and(b.less_equal(x, hi), b.greater_equal(b.minimum(x, hi), lo))
    return b.where(inside, g, b.const(0.0, like=x))


def _clip_grad_lo(b, n, g):
    x, lo, hi = n.inputs
    return b.where(b.greater_equal(b.minimum(x, hi), lo), b.const(0.0, like=x), g)


def _clip_grad_hi(b, n, g):
    x, lo, hi = n.inputs
    above = b.logical_and(b.greater(x, hi), b.greater_equal(b.minimum(x, hi), lo))
    return b.where(above, g, b.const(0.0, like=x))


def _clip_at_point(node, args, raw):
    (x, lo, hi), (x0, lo0, hi0) = args, raw
    inside = x0 <= hi0
    low, low0 = np.where(inside, x, hi), np.where(inside, x0, hi0)
    return np.where(low0 >= lo0, low, lo)


register(
    Op(
        "clip",
        _clip_infer,
        forward=_clip,
        scalar=_clip_scalar,
        grads=(_clip_grad_x, _clip_grad_lo, _clip_grad_hi),
        behavior=KINK,
        elementwise=True,
        public=True,
        arity=3,
        sympy=each_at(_clip_sympy),
        selects=True,
        at_point=_clip_at_point,
        convention=kink_facts.clip,
        inactive=(
            "{text} is at a bound at {count}",
            "clip in {entry} {line} is at a bound there",
        ),
    )
)


# --- cond: only the taken branch is evaluated and connected --------------------------------
def _cond_infer(attrs, pred, a, b):
    if pred.dtype != "bool":
        raise ShapeError(f"cond: the predicate must be boolean (a comparison), got {pred.dtype}")
    if pred.size != 1:
        raise ShapeError(f"cond: the predicate must be a scalar, got shape {fmt(pred.shape)}")
    if a.shape != b.shape:
        # tf.cond returns the taken branch as it is; a static graph needs one shape
        raise ShapeError(
            f"cond: the branches have shapes {fmt(a.shape)} and {fmt(b.shape)}; give them one "
            "shape (e.g. broadcast_to(0.0, shape) or 0 * x for a zero branch)"
        )
    return a.shape, same_dtype("cond", a, b)


def _cond_cuts(node, ins):
    taken = node.attrs.get("taken")
    return {0, 1, 2} - ({taken} if taken else set())


def _cond_grad(b, n, g, i):
    return g if i == n.attrs.get("taken") else None


# the executor evaluates the taken branch only
register(
    Op(
        "cond",
        _cond_infer,
        accepts="select",
        grad_each=_cond_grad,
        behavior=BRANCH,
        elementwise=True,
        public=True,
        arity=3,
        cuts=_cond_cuts,
        moves=True,
    )
)


def resolve_cond(graph, node, pred_value) -> None:
    """Record which branch a cond took (1: true, 2: false); only that one is connected."""
    node.attrs["taken"] = 1 if bool(np.asarray(pred_value).reshape(())) else 2
    ins = [graph.nodes[i] for i in node.inputs]
    node.diff = tuple(i for i in (node.attrs["taken"],) if is_float(ins[i].dtype))


# --- custom: a function with its own gradient (inputs: its parameters, then what its gradient
# reads, from TensorFlow code, then the body's value; see graph.custom_arity) ---------------
def _custom_infer(attrs, *ins):
    body = ins[-1]
    return body.shape, body.dtype


def _custom_forward(*values):
    return values[-1]


def _custom_cuts(node, ins):
    return set(range(custom_arity(node), len(ins)))


def _custom_grad(b, n, g, i):
    return n.attrs["grad"](b, n, g, i)


register(
    Op(
        "custom",
        _custom_infer,
        forward=_custom_forward,
        grad_each=_custom_grad,
        behavior=CUSTOM,
        cuts=_custom_cuts,
    )
)
