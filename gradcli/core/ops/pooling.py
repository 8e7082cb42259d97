"""Pooling in TensorFlow's layouts: max_pool1d, max_pool2d, avg_pool1d, avg_pool2d.

A window holds only real elements: SAME padding adds no elements to it (windows.py has
the arithmetic), and no window is ever made of padding alone (SAME pads less than a
window on each side). The public ops normalise their attributes (ksize and strides an
int or a list of 1, rank or rank + 2 entries) into the canonical ones of the internal ops.

max: TensorFlow's CPU kernel keeps a running maximum that starts at the dtype's lowest
finite value and takes an element only when it is strictly larger, so NaN never wins,
ties keep the first element in row-major window order, and a window of -inf gives the
lowest float. Its gradient (MaxPoolGrad) recomputes the argmax from the input with the
same comparison, except that the first element of a window is always taken first (a
leading NaN keeps the gradient); each g is added to its argmax in output order. The
gradient of MaxPoolGrad is MaxPoolGradGrad (g picked at the argmax), whose own gradient
is MaxPoolGrad again; the argmax is a constant for both. Both kernels take TensorFlow's
inputs (x, y, g), y the pool's output (unread by the values: the CPU kernels recompute
the argmax from x), and give zeros to x and y as _MaxPoolGradGrad does: at the orders
after, those zeros flow back through y = max_pool(x) and keep x connected (a zero, not
None, as TensorFlow's nested tapes give).

avg: the sum of the window's real elements in row-major order, divided by their count
(SAME windows at the edges average fewer elements). AvgPoolGrad multiplies g by
1 / count and adds it to each element of the window in output order; its gradient is
avg_pool again (TensorFlow's _AvgPoolGradGrad).
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.graph import FLOAT_DTYPES
from gradcli.core.ops import tie_facts
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.pool_kernels import (
    CANON,
    argmax,
    avg_grad_values,
    avg_values,
    max_grad_grad_values,
    max_grad_values,
    max_values,
    out_shape,
    parts,
    plan,
)
from gradcli.core.ops.registry import (
    KINK,
    ZERO_GRAD,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.windows import channels_first, from_last, tap_spans, taps, to_last


def _internal(attrs) -> dict:
    return {k: attrs[k] for k in CANON}


# --- explain: which output feeds which input element -------------------------------------------
def _ids(shape, rank, first):
    return to_last(np.arange(math.prod(shape), dtype=np.int64).reshape(shape), rank, first)


def _max_route(c_of):
    def route(node, j, value_of):
        c = c_of(node)
        x = np.asarray(value_of(node.inputs[0]))
        rank, first = len(c["data_format"]) - 2, channels_first(c["data_format"])
        into = _ids(x.shape, rank, first).reshape(-1)[argmax(c, x).reshape(-1)]
        return into, _ids(node.shape, rank, first).reshape(-1)

    return route


def _avg_route(c_of, x_shape_of):
    def route(node, j, value_of):
        c = c_of(node)
        x_shape = x_shape_of(node, value_of)
        rank, first, _, axes = parts(c, x_shape)
        xl, yl = _ids(x_shape, rank, first), _ids(node.shape, rank, first)
        into, src = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        for tap in taps(axes):
            spans = tap_spans(axes, tap)
            if spans is not None:
                into.append(xl[spans[1]].reshape(-1))
                src.append(yl[spans[0]].reshape(-1))
        return np.concatenate(into), np.concatenate(src)

    return route


def _grad_route(node, j, value_of):
    """avg_pool_grad (input g, output x-shaped): output element x feeds the g elements
    whose windows hold it (the avg_pool route, turned around)."""
    c = _internal(node.attrs)
    rank, first, _, axes = parts(c, node.shape)
    g_shape = np.shape(value_of(node.inputs[0]))
    xl, yl = _ids(node.shape, rank, first), _ids(g_shape, rank, first)
    into, src = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            into.append(yl[spans[0]].reshape(-1))
            src.append(xl[spans[1]].reshape(-1))
    return np.concatenate(into), np.concatenate(src)


# --- ops ------------------------------------------------------------------------------------
def _float(opname, *nodes) -> str:
    if any(n.dtype != nodes[0].dtype for n in nodes) or nodes[0].dtype not in FLOAT_DTYPES:
        raise ShapeError(f"{opname}: needs float tensors of one dtype")
    return nodes[0].dtype


def _max_grad_rule(c_of):
    def rule(b, n, g):
        return b.max_pool_grad(n.inputs[0], n.id, g, **c_of(n))  # TensorFlow's (x, y, g)

    return rule


def _same_as_x(opname):
    def infer(attrs, x, y, g):
        expected = out_shape(opname, _internal(attrs), x.shape)
        if g.shape != expected or y.shape != expected:
            raise ShapeError(
                f"{opname}: output and gradient shapes {fmt(y.shape)}, {fmt(g.shape)}, "
                f"expected {fmt(expected)}"
            )
        return x.shape, _float(opname, x, y, g)

    return infer


def _picked_infer(attrs, x, y, gg):
    expected = out_shape("max_pool_grad_grad", _internal(attrs), x.shape)
    if gg.shape != x.shape or y.shape != expected:
        raise ShapeError(
            f"max_pool_grad_grad: shapes {fmt(y.shape)}, {fmt(gg.shape)} for x {fmt(x.shape)}"
        )
    return expected, _float("pool", x, y, gg)


def _zero(b, n, g):
    return ZERO_GRAD  # _MaxPoolGradGrad's zeros_like(x) and zeros_like(y)


register(
    Op(
        "max_pool_grad",
        _same_as_x("max_pool_grad"),
        bind=lambda attrs: lambda x, y, g: max_grad_values(_internal(attrs), x, g),
        grads=(
            _zero,
            _zero,
            lambda b, n, gg: b.max_pool_grad_grad(*n.inputs[:2], gg, **_internal(n.attrs)),
        ),
        arity=3,
        no_sympy="an argmax scatter (max_pool's own SymPy form picks the elements)",
        transport=Transport.OPAQUE,
    )
)
register(
    Op(
        "max_pool_grad_grad",
        _picked_infer,
        bind=lambda attrs: lambda x, y, gg: max_grad_grad_values(_internal(attrs), x, gg),
        grads=(
            _zero,
            _zero,
            lambda b, n, g: b.max_pool_grad(*n.inputs[:2], g, **_internal(n.attrs)),
        ),
        arity=3,
        no_sympy="an argmax gather (max_pool's own SymPy form picks the elements)",
        transport=Transport.OPAQUE,
    )
)


def _avg_infer(attrs, x):
    return out_shape("avg_pool", _internal(attrs), x.shape), _float("avg_pool", x)


register(
    Op(
        "avg_pool",
        _avg_infer,
        bind=lambda attrs: lambda x: avg_values(_internal(attrs), x),
        grads=(
            lambda b, n, g: b.avg_pool_grad(
                g, **_internal(n.attrs), input_shape=b.shape(n.inputs[0])
            ),
        ),
        arity=1,
        sympy=lambda sp, attrs, args, values: avg_values(_internal(attrs), args[0]),
        transport=Transport.ROUTE,
        route=_avg_route(lambda n: _internal(n.attrs), lambda n, v: np.shape(v(n.inputs[0]))),
    )
)


def _avg_grad_infer(attrs, g):
    shape = tuple(attrs["input_shape"])
    expected = out_shape("avg_pool_grad", _internal(attrs), shape)
    if g.shape != expected:
        raise ShapeError(f"avg_pool_grad: gradient shape {fmt(g.shape)}, expected {fmt(expected)}")
    return shape, _float("avg_pool_grad", g)


register(
    Op(
        "avg_pool_grad",
        _avg_grad_infer,
        bind=lambda attrs: lambda g: avg_grad_values(_internal(attrs), attrs["input_shape"], g),
        grads=(lambda b, n, gg: b.avg_pool(gg, **_internal(n.attrs)),),
        arity=1,
        sympy=lambda sp, attrs, args, values: avg_grad_values(
            _internal(attrs), attrs["input_shape"], args[0]
        ),
        transport=Transport.ROUTE,
        route=_grad_route,
    )
)


# --- public ops: TensorFlow's signatures --------------------------------------------------------
POOL_ATTRS = (
    Attr(
        "ksize",
        AttrKind.AXES,
        required=True,
        example="{op}(x, ksize=2, strides=2, padding='VALID')",
    ),
    Attr("strides", AttrKind.AXES, required=True, example="{op}(x, 2, strides=2, padding='VALID')"),
    Attr("padding", AttrKind.STR, required=True, example="{op}(x, 2, 2, padding='VALID')"),
    Attr("data_format", AttrKind.STR),
)


def _max_at_point(rank, name):
    def at_point(node, args, raw):
        # the references' side of a tie: the element TensorFlow's argmax picks at the point
        c = plan(name, node.attrs, rank)
        x0 = np.asarray(raw[0])
        _, first, lead, _ = parts(c, x0.shape)
        best = argmax(c, x0)
        picked = to_last(np.asarray(args[0]), rank, first).reshape(-1)[best.reshape(-1)]
        return from_last(picked.reshape(best.shape), lead, first)

    return at_point


def max_windows(rank, name):
    """windows(node, x) for tie_facts.max_pool: x channels last and its windows' geometry."""

    def windows(node, x):
        c = plan(name, node.attrs, rank)
        _, first, lead, axes = parts(c, x.shape)
        return to_last(x, rank, first), lead, first, axes, taps, tap_spans, argmax(c, x)

    return windows


def _max_sympy(rank, name):
    def sympy(sp, attrs, args, values):
        c = plan(name, attrs, rank)
        _, first, lead, _ = parts(c, np.shape(args[0]))
        best = argmax(c, np.asarray(values[0]))
        picked = to_last(np.asarray(args[0]), rank, first).reshape(-1)[best.reshape(-1)]
        return from_last(picked.reshape(best.shape), lead, first)

    return sympy


for _r in (1, 2):
    _mx, _av = f"max_pool{_r}d", f"avg_pool{_r}d"

    def _c_of(n, name=_mx, rank=_r):
        return plan(name, n.attrs, rank)

    def _infer(attrs, x, name=_mx, rank=_r):
        return out_shape(name, plan(name, attrs, rank), x.shape), _float(name, x)

    register(
        Op(
            _mx,
            _infer,
            bind=lambda attrs, name=_mx, rank=_r: lambda x: max_values(plan(name, attrs, rank), x),
            grads=(_max_grad_rule(_c_of),),
            behavior=KINK,
            public=True,
            arity=1,
            attrs=POOL_ATTRS,
            accepts="float",
            sympy=_max_sympy(_r, _mx),
            at_point=_max_at_point(_r, _mx),
            convention=tie_facts.max_pool(max_windows(_r, _mx)),
            transport=Transport.ROUTE,
            route=_max_route(_c_of),
            inactive=(
                "{op} passes the gradient only to the first largest element of each window: "
                "{count} get none",
                "{op} in {entry} {line} passes the gradient only to each window's largest element",
            ),
            doc=f"tf.nn.{_mx}: the largest element of each window (ties: the first)",
        )
    )

    def _avg_c(n, name=_av, rank=_r):
        return plan(name, n.attrs, rank)

    def _avg_public_infer(attrs, x, name=_av, rank=_r):
        return out_shape(name, plan(name, attrs, rank), x.shape), _float(name, x)

    register(
        Op(
            _av,
            _avg_public_infer,
            bind=lambda attrs, name=_av, rank=_r: lambda x: avg_values(plan(name, attrs, rank), x),
            grads=(
                lambda b, n, g, c_of=_avg_c: b.avg_pool_grad(
                    g, **c_of(n), input_shape=b.shape(n.inputs[0])
                ),
            ),
            public=True,
            arity=1,
            attrs=POOL_ATTRS,
            accepts="float",
            sympy=lambda sp, attrs, args, values, name=_av, rank=_r: avg_values(
                plan(name, attrs, rank), args[0]
            ),
            transport=Transport.ROUTE,
            route=_avg_route(_avg_c, lambda n, v: np.shape(v(n.inputs[0]))),
            doc=f"tf.nn.{_av}: the mean of each window's elements (SAME: the real ones only)",
        )
    )
