"""3-D convolution and pooling in TensorFlow's layouts (NDHWC, or NCDHW): conv3d, max_pool3d,
avg_pool3d.

conv3d is conv.py's windowed contraction with three spatial axes (the same internal conv
ops and gradients). TensorFlow's CPU Conv3D refuses dilations above 1, and so does gradcli;
NCDHW is computed as what it means (TensorFlow's CPU kernel misreads it), as for conv2d.

TensorFlow 2.21 has CPU pooling kernels of three dimensions for float32 only (MaxPool3D
refuses float64, AvgPool3D has no float64 CPU kernel): gradcli refuses float64 with
TensorFlow's reason. avg_pool3d shares the pools' kernels (a window's real elements
over their count; AvgPool3DGrad spreads g / count). max_pool3d's forward is the running
maximum of pooling.py (NaN never wins, an all -inf window gives the lowest float), but its
gradient is MaxPool3DGrad's, which differs from 2-D max pooling: every element of a window
within 1e-5 of the window's maximum (|x - y| < 1e-5 in float32) receives the whole g, so
ties share nothing and each tied element gets g. MaxPool3DGradGrad picks, per window, gg at
the first element exactly equal to the maximum (0 when none is); each is the other's
gradient, with zero gradients to x and to the pooled maximum, as TensorFlow's rules say.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.conv import COMMON, STRIDES, _conv_grads, _public, _route
from gradcli.core.ops.conv_kernels import plan as conv_plan
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.pool_kernels import (
    avg_values,
    max_values,
    out_shape,
    parts,
    plan,
)
from gradcli.core.ops.pooling import (
    POOL_ATTRS,
    _avg_route,
    _ids,
    _internal,
    _max_at_point,
    _max_sympy,
    max_windows,
)
from gradcli.core.ops.registry import (
    KINK,
    MASK,
    ZERO_GRAD,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.windows import from_last, tap_spans, taps, to_last

TOLERANCE = 1e-5  # MaxPool3DGrad's: elements this close to the maximum get the gradient


# --- conv3d ------------------------------------------------------------------------------------
_c_of, _conv_infer, _bind, _sympy = _public("conv3d", 3, explicit_ok=False)


def _conv3d_infer(attrs, x, f):
    shape, dtype = _conv_infer(attrs, x, f)
    if max(conv_plan("conv3d", attrs, 3, explicit_ok=False)["dilations"]) > 1:
        raise ShapeError(
            "conv3d: TensorFlow's CPU Conv3D only supports dilation rates of 1 "
            "(InvalidArgumentError)"
        )
    return shape, dtype


register(
    Op(
        "conv3d",
        _conv3d_infer,
        bind=_bind,
        grads=_conv_grads(_c_of),
        behavior=MASK,
        public=True,
        arity=2,
        attrs=(STRIDES, *COMMON),
        accepts="float",
        sympy=_sympy,
        overflows=True,
        transport=Transport.ROUTE,
        route=_route(_c_of, False),
        doc="tf.nn.conv3d: input (batch, d, h, w, in) by filters (d, h, w, in, out); NDHWC "
        "or NCDHW",
    )
)


# --- max_pool3d's gradient kernels -----------------------------------------------------------
def _near(xl, yl, o_idx, i_idx):
    """Which elements of one tap's reads are within TOLERANCE of their window's maximum."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(xl[i_idx] - yl[o_idx]) < xl.dtype.type(TOLERANCE)


def max3d_grad_values(c, x, y, g):
    """MaxPool3DGrad: g added to every element of its window near the maximum, in output
    order."""
    x, y, g = np.asarray(x), np.asarray(y), np.asarray(g)
    rank, first, lead, axes = parts(c, x.shape)
    xl, yl, gl = (to_last(t, rank, first) for t in (x, y, g))
    dx = np.zeros(xl.shape, dtype=g.dtype)
    for tap in reversed(list(taps(axes))):  # the last tap reads the earliest output
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            dx[i_idx] = dx[i_idx] + np.where(_near(xl, yl, o_idx, i_idx), gl[o_idx], 0)
    return from_last(dx, lead, first)


def max3d_grad_grad_values(c, x, y, gg):
    """MaxPool3DGradGrad: per window, gg at the first element equal to the maximum (else 0)."""
    x, y, gg = np.asarray(x), np.asarray(y), np.asarray(gg)
    rank, first, lead, axes = parts(c, x.shape)
    xl, yl, gl = (to_last(t, rank, first) for t in (x, y, gg))
    out = np.zeros(yl.shape, dtype=gg.dtype)
    done = np.zeros(yl.shape, dtype=bool)
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            take = ~done[o_idx] & (xl[i_idx] == yl[o_idx])
            out[o_idx] = np.where(take, gl[i_idx], out[o_idx])
            done[o_idx] |= take
    return from_last(out, lead, first)


def _grad_infer(attrs, x, y, g):
    expected = out_shape("max_pool3d_grad", _internal(attrs), x.shape)
    if y.shape != expected or g.shape != expected:
        raise ShapeError(
            f"max_pool3d_grad: shapes {fmt(y.shape)}, {fmt(g.shape)} for {fmt(expected)}"
        )
    return x.shape, x.dtype


def _grad_grad_infer(attrs, x, y, gg):
    if gg.shape != x.shape:
        raise ShapeError(f"max_pool3d_grad_grad: {fmt(gg.shape)} is not x's shape {fmt(x.shape)}")
    return out_shape("max_pool3d_grad_grad", _internal(attrs), x.shape), x.dtype


def _zero(b, n, g):
    return ZERO_GRAD


register(
    Op(
        "max_pool3d_grad",
        _grad_infer,
        bind=lambda attrs: lambda x, y, g: max3d_grad_values(_internal(attrs), x, y, g),
        grads=(
            _zero,
            _zero,
            lambda b, n, gg: b.max_pool3d_grad_grad(*n.inputs[:2], gg, **_internal(n.attrs)),
        ),
        arity=3,
        no_sympy="a scatter to the elements near each maximum (max_pool3d's own SymPy form "
        "picks the elements)",
        transport=Transport.OPAQUE,
    )
)
register(
    Op(
        "max_pool3d_grad_grad",
        _grad_grad_infer,
        bind=lambda attrs: lambda x, y, gg: max3d_grad_grad_values(_internal(attrs), x, y, gg),
        grads=(
            _zero,
            _zero,
            lambda b, n, g: b.max_pool3d_grad(*n.inputs[:2], g, **_internal(n.attrs)),
        ),
        arity=3,
        no_sympy="a gather at each maximum (max_pool3d's own SymPy form picks the elements)",
        transport=Transport.OPAQUE,
    )
)


# --- public pools ------------------------------------------------------------------------------
def _float32_only(name, x, why):
    if x.dtype != "float32":
        raise ShapeError(
            f"{name}: TensorFlow's CPU kernel takes float32 only ({why} for {x.dtype}); "
            "cast(x, 'float32') converts"
        )
    return x.dtype


def _max3d_c(n):
    return plan("max_pool3d", n.attrs, 3)


def _max3d_infer(attrs, x):
    dtype = _float32_only("max_pool3d", x, "MaxPool3D raises InvalidArgumentError")
    return out_shape("max_pool3d", plan("max_pool3d", attrs, 3), x.shape), dtype


def _max3d_route(node, j, value_of):
    """Each output feeds every element of its window near the maximum (MaxPool3DGrad)."""
    c = _max3d_c(node)
    x = np.asarray(value_of(node.inputs[0]))
    y = np.asarray(value_of(node.id))
    rank, first, _, axes = parts(c, x.shape)
    xl, yl = to_last(x, rank, first), to_last(y, rank, first)
    xi, yi = _ids(x.shape, rank, first), _ids(node.shape, rank, first)
    into, src = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            near = _near(xl, yl, o_idx, i_idx)
            into.append(xi[i_idx][near])
            src.append(yi[o_idx][near])
    return np.concatenate(into), np.concatenate(src)


register(
    Op(
        "max_pool3d",
        _max3d_infer,
        bind=lambda attrs: lambda x: max_values(plan("max_pool3d", attrs, 3), x),
        grads=(lambda b, n, g: b.max_pool3d_grad(n.inputs[0], n.id, g, **_max3d_c(n)),),
        behavior=KINK,
        public=True,
        arity=1,
        attrs=POOL_ATTRS,
        accepts="float",
        sympy=_max_sympy(3, "max_pool3d"),
        at_point=_max_at_point(3, "max_pool3d"),
        convention=tie_facts.max_pool(
            max_windows(3, "max_pool3d"), tie_facts.MAX_POOL3D, TOLERANCE
        ),
        transport=Transport.ROUTE,
        route=_max3d_route,
        inactive=(
            "{op} passes the gradient only to the elements within 1e-5 of each window's "
            "largest: {count} get none",
            "{op} in {entry} {line} passes the gradient only to each window's largest elements",
        ),
        doc="tf.nn.max_pool3d: the largest element of each window (float32; the gradient "
        "goes whole to every element within 1e-5 of it)",
    )
)


def _avg3d_c(n):
    return plan("avg_pool3d", n.attrs, 3)


def _avg3d_infer(attrs, x):
    dtype = _float32_only("avg_pool3d", x, "AvgPool3D has no such CPU kernel: NotFoundError")
    return out_shape("avg_pool3d", plan("avg_pool3d", attrs, 3), x.shape), dtype


register(
    Op(
        "avg_pool3d",
        _avg3d_infer,
        bind=lambda attrs: lambda x: avg_values(plan("avg_pool3d", attrs, 3), x),
        grads=(
            lambda b, n, g: b.avg_pool_grad(g, **_avg3d_c(n), input_shape=b.shape(n.inputs[0])),
        ),
        public=True,
        arity=1,
        attrs=POOL_ATTRS,
        accepts="float",
        sympy=lambda sp, attrs, args, values: avg_values(plan("avg_pool3d", attrs, 3), args[0]),
        transport=Transport.ROUTE,
        route=_avg_route(_avg3d_c, lambda n, v: np.shape(v(n.inputs[0]))),
        doc="tf.nn.avg_pool3d: the mean of each window's elements (float32; SAME: the real "
        "ones only)",
    )
)
