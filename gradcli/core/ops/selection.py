"""Selections by value: maximum and minimum (ties to the first argument), comparisons, logic."""

from __future__ import annotations

import struct

import numpy as np

from gradcli.core.ops import kink_facts
from gradcli.core.ops.elementwise import binary, unary
from gradcli.core.ops.infer import elementwise
from gradcli.core.ops.registry import COMPARISON, CUT, GRAD_EMIT, KINK, Operator, emit
from gradcli.core.ops.sym import each_at


# --- maximum, minimum: a tie gives the whole gradient to the first argument --------------
def _maximum_scalar(a, b):
    return a if a >= b or a != a else b


def _minimum_scalar(a, b):
    return a if a <= b or a != a else b


_ZERO64 = ("float64", (), struct.pack("=d", 0.0))  # const()'s cache key of a float64 0.0


def _select_rules(selector: str):
    # TensorFlow's _MaximumMinimumGrad builds one mask selector(x, y) and two where_v2 on it;
    # the mask is shared here too: the rule for y reuses the one the rule for x built
    def mask(b, n):
        key = (n.id, selector)
        m = b.shared.get(key)
        if m is None:
            m = b.shared[key] = b.emit(selector, *n.inputs)
        return m

    def direct(b, n, g, first: bool):
        """The same nodes as the rule below, for a GradBuilder's own emit, without its calls
        (mask, zero and where in that order; const()'s cached 0.0 looked up as it does)."""
        graph = b.graph
        key = (n.id, selector)
        m = b.shared.get(key)
        if m is None:
            m = b.shared[key] = emit(
                graph, selector, n.inputs, {}, kind="gradient", origin=b.origin
            )
        x = n.inputs[0]
        zero = graph.const_cache.get(_ZERO64) if graph.nodes[x].dtype == "float64" else None
        if zero is None:
            zero = b.const(0.0, like=x)
        ins = (m, g, zero) if first else (m, zero, g)
        return emit(graph, "where", ins, {}, kind="gradient", origin=b.origin)

    def to_x(b, n, g):
        if type(b).emit is GRAD_EMIT:
            return direct(b, n, g, True)
        return b.where(mask(b, n), g, b.const(0.0, like=n.inputs[0]))

    def to_y(b, n, g):
        if type(b).emit is GRAD_EMIT:
            return direct(b, n, g, False)
        return b.where(mask(b, n), b.const(0.0, like=n.inputs[0]), g)

    return (to_x, to_y)


def _maximum_at_point(node, args, raw):
    return np.where(raw[0] >= raw[1], args[0], args[1])


def _minimum_at_point(node, args, raw):
    return np.where(raw[0] <= raw[1], args[0], args[1])


binary(
    "maximum",
    np.maximum,
    _maximum_scalar,
    _select_rules("greater_equal"),
    behavior=KINK,
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[0] >= vs[1] else xs[1]),
    at_point=_maximum_at_point,
    convention=kink_facts.maximum,
    selects=True,
    inactive=(
        "{text} takes the other argument at {count}",
        "maximum in {entry} {line} takes the other argument there",
    ),
)
binary(
    "minimum",
    np.minimum,
    _minimum_scalar,
    _select_rules("less_equal"),
    behavior=KINK,
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[0] <= vs[1] else xs[1]),
    at_point=_minimum_at_point,
    convention=kink_facts.minimum,
    selects=True,
    inactive=(
        "{text} takes the other argument at {count}",
        "minimum in {entry} {line} takes the other argument there",
    ),
)


# --- comparisons and logic: boolean results, no gradient ----------------------------------
# the scalar paths return numpy's booleans, as the ufuncs do on two scalars
_TRUE, _FALSE = np.True_, np.False_
for _name, _ufunc, _symbol, _scalar in (
    ("less", np.less, "<", lambda a, b: _TRUE if a < b else _FALSE),
    ("less_equal", np.less_equal, "<=", lambda a, b: _TRUE if a <= b else _FALSE),
    ("greater", np.greater, ">", lambda a, b: _TRUE if a > b else _FALSE),
    ("greater_equal", np.greater_equal, ">=", lambda a, b: _TRUE if a >= b else _FALSE),
    ("equal", np.equal, "==", lambda a, b: _TRUE if a == b else _FALSE),
    ("not_equal", np.not_equal, "!=", lambda a, b: _TRUE if a != b else _FALSE),
    ("logical_and", np.logical_and, None, None),
    ("logical_or", np.logical_or, None, None),
):
    binary(
        _name,
        _ufunc,
        _scalar,
        (None, None),
        infer=elementwise(_name, result="bool"),
        behavior=CUT,
        accepts="bool" if _name.startswith("logical") else "compare",
        operator=Operator(_symbol, COMPARISON, comparison=True) if _symbol else None,
    )


def _logical_not_infer(attrs, x):
    return x.shape, "bool"


unary(
    "logical_not",
    np.logical_not,
    None,
    None,
    infer=_logical_not_infer,
    behavior=CUT,
    accepts="bool",
)
