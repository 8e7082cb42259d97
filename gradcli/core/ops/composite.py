"""Composite ops: an op that TensorFlow defines as a composition of other ops (gelu, losses).

The composition is written once, as expand(b, attrs, *inputs) over a builder's op
methods (b.mul, b.erfc, b.const(value, like=...), b.shape(t)). The forward runs it on numpy
values (`evaluate`), its SymPy form composes the ops' translations (`expansion_sympy`),
finite differences follow each inner op's convention at a kink (`expansion_at_point`),
and the gradient rule emits it into the gradient graph and differentiates
it there with the ops' own rules (`expansion_grad`), so value and gradient are those of
TensorFlow's autodiff of the same composition, and higher orders go through graph ops.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gradcli.core.ops.convention import Hit
from gradcli.core.ops.registry import (
    REGISTRY,
    ZERO_GRAD,
    Behavior,
    GradBuilder,
    Op,
    fit,
    materialize,
    run_rule,
)
from gradcli.core.ops.sym import number, obj


class _Values:
    """The builder interface on numpy values: b.op(*values, **attrs) runs op's forward."""

    def __getattr__(self, opname: str):
        op = REGISTRY[opname]
        return lambda *values, **attrs: op.fn(attrs)(*values)

    def const(self, value, like):
        return np.asarray(value, dtype=np.asarray(like).dtype)

    def shape(self, value) -> tuple[int, ...]:
        return np.shape(value)


_VALUES = _Values()


def evaluate(expand):
    """bind(attrs) for an Op: the forward of the composition, on numpy values."""

    def bind(attrs):
        def forward(*values):
            with np.errstate(all="ignore"):
                return np.asarray(expand(_VALUES, attrs, *map(np.asarray, values)))[()]

        return forward

    return bind


class _Symbolic:
    """The builder interface on (SymPy object array, numpy value) pairs: each op's sympy."""

    def __init__(self, sp):
        self.sp = sp

    def __getattr__(self, opname: str):
        op = REGISTRY[opname]

        def apply(*pairs, **attrs):
            exprs = [p[0] for p in pairs]
            values = [p[1] for p in pairs]
            with np.errstate(all="ignore"):
                value = np.asarray(op.fn(attrs)(*values))
            if op.sympy is None:  # a cut op (a comparison): its value is a constant
                return obj(np.frompyfunc(lambda v: number(self.sp, v), 1, 1)(value)), value
            return obj(op.sympy(self.sp, attrs, exprs, values)), value

        return apply

    def const(self, value, like):
        v = np.asarray(value, dtype=np.asarray(like[1]).dtype)
        return obj(number(self.sp, v)), v

    def shape(self, pair) -> tuple[int, ...]:
        return np.shape(pair[1])


def expansion_sympy(expand):
    """sympy(sp, attrs, args, values) for an Op: the composition of its ops' translations."""

    def translate(sp, attrs, args, values):
        pairs = [(obj(a), np.asarray(v)) for a, v in zip(args, values)]
        return expand(_Symbolic(sp), attrs, *pairs)[0]

    return translate


class _AtPoint:
    """The builder interface on (value, value at the point) pairs, for finite differences:
    each op follows its own reference convention (Op.at_point), and ops through which no
    gradient flows (comparisons, sign, stop_gradient) keep their value at the point."""

    def __getattr__(self, opname: str):
        op = REGISTRY[opname]
        frozen = op.behavior in (Behavior.CUT, Behavior.STOP, Behavior.ZERO)

        def apply(*pairs, **attrs):
            args = [p[0] for p in pairs]
            raws = [p[1] for p in pairs]
            fn = op.fn(attrs)
            with np.errstate(all="ignore"):
                raw = np.asarray(fn(*raws))
                if frozen:
                    return raw, raw
                if callable(op.at_point):
                    return np.asarray(op.at_point(SimpleNamespace(attrs=attrs), args, raws)), raw
                return np.asarray(fn(*args)), raw

        return apply

    def const(self, value, like):
        v = np.asarray(value, dtype=np.asarray(like[1]).dtype)
        return v, v

    def shape(self, pair) -> tuple[int, ...]:
        return np.shape(pair[1])


_AT_POINT = _AtPoint()


def expansion_at_point(expand):
    """at_point(node, args, raw) for an Op: the composition with every op inside it on the
    side its own gradient takes at the point (a clip at its bound, a max at a tie)."""

    def at_point(node, args, raw):
        pairs = [(np.asarray(a), np.asarray(r)) for a, r in zip(args, raw)]
        return expand(_AT_POINT, node.attrs, *pairs)[0][()]

    return at_point


class _Detecting(_Values):
    """The builder interface on numpy values that also runs each inner op's convention
    detector (Op.convention), collecting its hits with the inner op's name."""

    def __init__(self):
        self.hits: list = []

    def __getattr__(self, opname: str):
        op = REGISTRY[opname]

        def apply(*values, **attrs):
            values = [np.asarray(v) for v in values]
            if op.convention is not None:
                for hit in op.convention(SimpleNamespace(op=opname, attrs=attrs), values):
                    self.hits.append((opname, hit))
            return op.fn(attrs)(*values)

        return apply


def expansion_convention(expand):
    """convention(node, ins) for an Op: the hits of the ops inside its composition, each on
    the inputs whose shape its elements broadcast to (mean_absolute_error's abs at 0)."""

    def detect(node, ins):
        builder = _Detecting()
        with np.errstate(all="ignore"):
            expand(builder, node.attrs, *map(np.asarray, ins))
        out = []
        for opname, hit in builder.hits:
            for j, value in enumerate(ins):
                shape = np.shape(value)
                try:
                    fits = np.broadcast_shapes(hit.mask.shape, shape) == shape
                except ValueError:
                    fits = False
                if not fits or np.asarray(value).dtype.kind != "f":
                    continue
                same = hit.mask.shape == shape
                out.append(
                    Hit(
                        j,
                        np.array(np.broadcast_to(hit.mask, shape)),
                        hit.convention,
                        hit.below if same else None,
                        hit.above if same else None,
                        op=opname,
                    )
                )
        return out

    return detect


def expansion_grad(expand):
    """grad_each(b, node, g, i): g backpropagated through the composition to input i.

    The composition is emitted after the node (gradient nodes), reading input i through an
    identity when the same tensor is also another input, then differentiated in
    reverse node order with each op's rule, contributions to one node added in the order
    they arrive, as gradcli's autodiff does for the same expression.
    """

    def rule(b: GradBuilder, node, g, i: int):
        graph = b.graph
        nodes = graph.nodes
        ins = list(node.inputs)
        target = ins[i]
        if ins.count(target) > 1:  # one tensor at several positions: follow position i only
            target = ins[i] = b.identity(target)
        start = len(nodes)
        out = expand(b, node.attrs, *ins)
        live = {target}  # the composition's nodes a gradient from the target reaches
        for k in range(start, out + 1):
            n = nodes[k]
            if any(n.inputs[j] in live for j in n.diff):
                live.add(k)
        if out not in live:
            return ZERO_GRAD
        adjoint = {out: g}
        result = None
        for k in range(out, start - 1, -1):
            gk = adjoint.get(k)
            if gk is None or k not in live:
                continue
            n = nodes[k]
            op = REGISTRY[n.op]
            lazy = gk is not ZERO_GRAD and b.shape(gk) != n.shape
            if lazy and (not op.elementwise or any(nodes[j].shape != n.shape for j in n.inputs)):
                gk = materialize(b, gk, n.shape)
            for j in n.diff:
                src = n.inputs[j]
                if src not in live:
                    continue
                r = ZERO_GRAD if gk is ZERO_GRAD else run_rule(b, n, gk, j, op)
                if r is None:
                    continue
                if r is not ZERO_GRAD:
                    r = fit(b, r, nodes[src].shape)
                if src == target:
                    result = _sum(b, result, r)
                else:
                    adjoint[src] = _sum(b, adjoint.get(src), r)
        return ZERO_GRAD if result is None else result

    return rule


def _sum(b: GradBuilder, old, g):
    if old is None or old is ZERO_GRAD:
        return g
    return old if g is ZERO_GRAD else b.add(old, g)


def composite_op(name: str, expand, infer, **facts) -> Op:
    """A public float op defined by its expansion: forward, gradient, SymPy form and the
    references' side of its kinks all come from expand; facts add or override fields."""
    fields = {
        "bind": evaluate(expand),
        "grad_each": expansion_grad(expand),
        "sympy": expansion_sympy(expand),
        "at_point": expansion_at_point(expand),
        "convention": expansion_convention(expand),
        "public": True,
        "accepts": "float",
    }
    return Op(name, infer, **{**fields, **facts})
