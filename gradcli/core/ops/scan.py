"""Scans along one axis: softmax, cumsum and cumprod, with TensorFlow's gradient rules."""

from __future__ import annotations

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.infer import need_numeric, normalize_axes, row_infer
from gradcli.core.ops.reduce import _extreme, _lowest
from gradcli.core.ops.registry import (
    MASK,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.sym import finite_max, number, scan_rows


# --- softmax ---------------------------------------------------------------------------------
def _softmax_bind(attrs):
    axis = attrs.get("axis", -1)

    def softmax(x):
        # TensorFlow's kernel: e * (1 / sum(e)), e = exp(x - max(x)) (not e / sum(e))
        e = np.exp(x - _extreme(np.max, _lowest)(x, axis, True))
        return e * (e.dtype.type(1.0) / np.sum(e, axis=axis, keepdims=True))

    return softmax


def _softmax_sympy(sp, attrs, args, values):
    def row(xs, vs):
        m = number(sp, finite_max(vs))
        es = [sp.exp(x - m) for x in xs]
        total = sp.Add(*es)
        return [e / total for e in es]

    axis = attrs.get("axis", -1) % args[0].ndim
    return scan_rows(axis, args[0], values[0], row)


def _softmax_grad(b, n, g):
    # TensorFlow's SoftmaxGrad: (g - sum(g * s, axis)) * s
    s = n.id
    total = b.sum(b.mul(g, s), axis=(n.attrs.get("axis", -1),), keepdims=True)
    return b.mul(b.sub(g, total), s)


register(
    Op(
        "softmax",
        row_infer("softmax"),
        bind=_softmax_bind,
        grads=(_softmax_grad,),
        public=True,
        arity=1,
        attrs=(Attr("axis", AttrKind.AXIS, -1),),
        transport=Transport.SCAN,
        cancels=True,
        accepts="float",
        sympy=_softmax_sympy,
    )
)


# --- cumsum, cumprod ---------------------------------------------------------------------------
def _cum_infer(name):
    def infer(attrs, x):
        need_numeric(name, x)
        if len(x.shape) == 0:
            raise ShapeError(f"{name} needs a tensor of rank 1 or more, got a scalar")
        normalize_axes(name, attrs.get("axis", 0), len(x.shape))
        return x.shape, x.dtype

    return infer


def _cumsum(x, axis, dtype):
    # TensorFlow's scan starts from 0: (0 + x0) + x1 ..., so a leading -0.0 sums to +0.0
    out = np.cumsum(x, axis=axis, dtype=dtype)
    out += 0
    return out


def _cum_bind(fn, identity):
    def bind(attrs):
        axis = attrs.get("axis", 0)
        exclusive, reverse = bool(attrs.get("exclusive")), bool(attrs.get("reverse"))

        def forward(x):
            x = np.asarray(x)
            if reverse:
                x = np.flip(x, axis)
            out = fn(x, axis=axis, dtype=x.dtype)
            if exclusive and x.shape[axis] > 0:
                out = np.roll(out, 1, axis=axis)
                first = [slice(None)] * x.ndim
                first[axis] = 0
                out[tuple(first)] = identity
            return np.flip(out, axis) if reverse else out

        return forward

    return bind


def _cum_sympy(combine, identity, freeze_zeros=False):
    def translate(sp, attrs, args, values):
        exclusive, reverse = bool(attrs.get("exclusive")), bool(attrs.get("reverse"))

        def row(xs, vs):
            if freeze_zeros:  # cumprod's gradient is 0 where x == 0 (TensorFlow's div_no_nan)
                xs = [sp.Integer(0) if v == 0 else x for x, v in zip(xs, vs)]
            xs = xs[::-1] if reverse else xs
            out, acc = [], sp.Integer(identity)
            for x in xs:
                nxt = combine(acc, x)
                out.append(acc if exclusive else nxt)
                acc = nxt
            return out[::-1] if reverse else out

        return scan_rows(attrs.get("axis", 0) % args[0].ndim, args[0], values[0], row)

    return translate


def _cumsum_grad(b, n, g):
    a = n.attrs
    return b.cumsum(
        g, axis=a.get("axis", 0), exclusive=bool(a.get("exclusive")), reverse=not a.get("reverse")
    )


def _cumprod_grad(b, n, g):
    # TensorFlow's CumprodGrad: div_no_nan(cumsum(prod * g, reversed), x), so 0 where x == 0
    # (not the true derivative there, but TensorFlow's value)
    a = n.attrs
    x = n.inputs[0]
    summed = b.cumsum(
        b.mul(n.id, g),
        axis=a.get("axis", 0),
        exclusive=bool(a.get("exclusive")),
        reverse=not a.get("reverse"),
    )
    return b.div_no_nan(summed, x)


def _cumprod_at_point(node, args, raw):
    # elements that are 0 at the point are constants: cumprod's gradient is 0 there
    x = np.where(np.asarray(raw[0]) == 0, 0.0, args[0])
    return _cum_bind(np.cumprod, 1)(node.attrs)(x)


_CUM_ATTRS = (
    Attr("axis", AttrKind.AXIS, 0),
    Attr("exclusive", AttrKind.BOOL, False),
    Attr("reverse", AttrKind.BOOL, False),
)
register(
    Op(
        "cumsum",
        _cum_infer("cumsum"),
        bind=_cum_bind(_cumsum, 0),
        grads=(_cumsum_grad,),
        public=True,
        arity=1,
        attrs=_CUM_ATTRS,
        transport=Transport.SCAN,
        overflows=True,
        sympy=_cum_sympy(lambda a, x: a + x, 0),
    )
)
register(
    Op(
        "cumprod",
        _cum_infer("cumprod"),
        bind=_cum_bind(np.cumprod, 1),
        grads=(_cumprod_grad,),
        public=True,
        arity=1,
        attrs=_CUM_ATTRS,
        transport=Transport.SCAN,
        behavior=MASK,
        overflows=True,
        at_point=_cumprod_at_point,
        convention=tie_facts.cumprod,
        sympy=_cum_sympy(lambda a, x: a * x, 1, freeze_zeros=True),
    )
)
