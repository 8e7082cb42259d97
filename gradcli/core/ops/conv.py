"""Convolutions in TensorFlow's layouts: conv1d, conv2d, depthwise_conv2d, conv2d_transpose.

Each is a windowed contraction (see windows.py for the window arithmetic). The public ops
normalise their TensorFlow-style attributes (an int or a list of 1, rank or rank + 2
strides; 'SAME', 'VALID' or 'EXPLICIT' padding; NHWC/NCHW) into one canonical form that
the three internal ops share: `conv` (the forward), `conv_backprop_input` and
`conv_backprop_filter` (TensorFlow's Conv2DBackpropInput and Conv2DBackpropFilter, or
their depthwise twins when `depthwise` is set). The gradients are TensorFlow's
(_Conv2DGrad, _Conv2DBackpropInputGrad, _Conv2DBackpropFilterGrad): each backprop op's
gradient is a convolution or the other backprop op, so every order of derivative works.
conv2d_transpose is Conv2DBackpropInput with output_shape as the input's shape.

The numpy kernels (im2col and BLAS) are in conv_kernels.py. TensorFlow's CPU kernels
(Eigen contractions) sum in another order, so results agree to rounding, not bit for bit.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops.conv_kernels import (
    channels_first,
    conv_values,
    filter_grad_values,
    float_dtype,
    input_grad_values,
    layout_shape,
    links,
    out_shape,
    plan,
    split_shape,
)
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.registry import MASK, Attr, AttrKind, Op, ShapeError, Transport, register

CANON = ("strides", "dilations", "padding", "explicit", "data_format", "depthwise")


# --- gradient rules (TensorFlow's) ---------------------------------------------------------
def canon(node) -> dict:
    """A conv node's canonical attributes."""
    return {k: node.attrs[k] for k in CANON}


def _conv_grads(c_of):
    """Rules for a convolution node (x, f) whose canonical attributes c_of(node) gives."""

    def dx(b, n, g):
        x, f = n.inputs
        return b.conv_backprop_input(g, f, **c_of(n, b), input_shape=b.shape(x))

    def df(b, n, g):
        x, f = n.inputs
        return b.conv_backprop_filter(x, g, **c_of(n, b), filter_shape=b.shape(f))

    return (dx, df)


def _input_grad_grads(c_of):
    """Rules for a backprop-input node (g, f): conv of the incoming gradient, and the
    filter gradient of it against g (TensorFlow's _Conv2DBackpropInputGrad)."""

    def dg(b, n, gg):
        return b.conv(gg, n.inputs[1], **c_of(n, b))

    def df(b, n, gg):
        g, f = n.inputs
        return b.conv_backprop_filter(gg, g, **c_of(n, b), filter_shape=b.shape(f))

    return (dg, df)


def _filter_grad_grads(b_c):
    def dx(b, n, gg):
        x, g = n.inputs
        return b.conv_backprop_input(g, gg, **b_c(n, b), input_shape=b.shape(x))

    def dg(b, n, gg):
        return b.conv(n.inputs[0], gg, **b_c(n, b))

    return (dx, dg)


def _internal(n, b):
    return canon(n)


def _route(c_of, transposed: bool):
    """The route hook of a convolution (inputs x, f) or of conv2d_transpose (inputs y, f,
    whose output is x-shaped): gradient elements of the output feed the products' inputs."""

    def route(node, j, value_of):
        shapes = [tuple(np.shape(value_of(i))) for i in node.inputs]
        if transposed:
            x_shape, y_shape = node.shape, shapes[0]
        else:
            x_shape, y_shape = shapes[0], node.shape
        found = links(c_of(node, None), x_shape, shapes[1], y_shape)
        if found is None:
            return None
        src_at = 0 if transposed else 2
        into_at = 1 if j == 1 else (2 if transposed else 0)
        other_at = 1 if j == 0 else (2 if transposed else 0)  # the product's other factor
        if not found:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        into = np.concatenate([t[into_at].reshape(-1) for t in found])
        src = np.concatenate([t[src_at].reshape(-1) for t in found])
        other = np.concatenate([t[other_at].reshape(-1) for t in found])
        return into, src, other

    return route


# --- the ops ----------------------------------------------------------------------------------
def _canon_infer(attrs, x, f):
    return out_shape("conv", attrs, x.shape, f.shape), float_dtype("conv", x, f)


def _internal_attrs(attrs):
    return {k: attrs[k] for k in CANON}


register(
    Op(
        "conv",
        _canon_infer,
        bind=lambda attrs: lambda x, f: conv_values(_internal_attrs(attrs), x, f),
        grads=_conv_grads(_internal),
        behavior=MASK,
        arity=2,
        sympy=lambda sp, attrs, args, values: conv_values(_internal_attrs(attrs), *args),
        overflows=True,
        transport=Transport.ROUTE,
        route=_route(_internal, False),
    )
)


def _bp_input_infer(attrs, g, f):
    shape = tuple(attrs["input_shape"])
    dtype = float_dtype("conv_backprop_input", g, f)
    expected = out_shape("conv_backprop_input", attrs, shape, f.shape)
    if expected != g.shape:
        raise ShapeError(
            f"conv_backprop_input: the gradient's shape {fmt(g.shape)} is not the output "
            f"shape {fmt(expected)} of a convolution of shape {fmt(shape)}"
        )
    return shape, dtype


register(
    Op(
        "conv_backprop_input",
        _bp_input_infer,
        bind=lambda attrs: (
            lambda g, f: input_grad_values(_internal_attrs(attrs), attrs["input_shape"], g, f)
        ),
        grads=_input_grad_grads(_internal),
        behavior=MASK,
        arity=2,
        sympy=lambda sp, attrs, args, values: input_grad_values(
            _internal_attrs(attrs), attrs["input_shape"], *args
        ),
        overflows=True,
        transport=Transport.ROUTE,
        route=_route(_internal, True),
    )
)


def _bp_filter_infer(attrs, x, g):
    shape = tuple(attrs["filter_shape"])
    dtype = float_dtype("conv_backprop_filter", x, g)
    expected = out_shape("conv_backprop_filter", attrs, x.shape, shape)
    if expected != g.shape:
        raise ShapeError(
            f"conv_backprop_filter: the gradient's shape {fmt(g.shape)} is not the output "
            f"shape {fmt(expected)} of the convolution"
        )
    return shape, dtype


register(
    Op(
        "conv_backprop_filter",
        _bp_filter_infer,
        bind=lambda attrs: (
            lambda x, g: filter_grad_values(_internal_attrs(attrs), attrs["filter_shape"], x, g)
        ),
        grads=_filter_grad_grads(_internal),
        behavior=MASK,
        arity=2,
        sympy=lambda sp, attrs, args, values: filter_grad_values(
            _internal_attrs(attrs), attrs["filter_shape"], *args
        ),
        overflows=True,
        transport=Transport.OPAQUE,
    )
)


# --- public ops: TensorFlow's signatures --------------------------------------------------------
def _public(name, rank, *, depthwise=False, explicit_ok=True):
    """The canonical attributes of public op `name`, from a node (c_of) or attrs."""

    def c_of(node, b=None):
        return plan(name, node.attrs, rank, depthwise=depthwise, explicit_ok=explicit_ok)

    def infer(attrs, x, f):
        c = plan(name, attrs, rank, depthwise=depthwise, explicit_ok=explicit_ok)
        if depthwise and len(x.shape) != 4:
            raise ShapeError(f"{name}: input must have rank 4, got shape {fmt(x.shape)}")
        return out_shape(name, c, x.shape, f.shape), float_dtype(name, x, f)

    def bind(attrs):
        c = plan(name, attrs, rank, depthwise=depthwise, explicit_ok=explicit_ok)
        return lambda x, f: conv_values(c, x, f)

    def sympy(sp, attrs, args, values):
        return conv_values(plan(name, attrs, rank, depthwise=depthwise), *args)

    return c_of, infer, bind, sympy


COMMON = (
    Attr("padding", AttrKind.STR, required=True, example="{op}(x, f, 1, padding='SAME')"),
    Attr("data_format", AttrKind.STR),
    Attr("dilations", AttrKind.AXES, 1),
)
EXPLICIT = Attr("explicit_paddings", AttrKind.NESTED)
STRIDES = Attr(
    "strides", AttrKind.AXES, required=True, example="{op}(x, f, strides=1, padding='SAME')"
)

for _name, _r, _dw, _attrs, _doc in (
    (
        "conv1d",
        1,
        False,
        (
            Attr(
                "stride",
                AttrKind.AXES,
                required=True,
                example="{op}(x, f, stride=1, padding='SAME')",
            ),
            *COMMON,
        ),
        "tf.nn.conv1d: input (batch, width, in) by filters (width, in, out); NWC or NCW",
    ),
    (
        "conv2d",
        2,
        False,
        (STRIDES, *COMMON, EXPLICIT),
        "tf.nn.conv2d: input (batch, h, w, in) by filters (h, w, in, out); NHWC or NCHW",
    ),
    (
        "depthwise_conv2d",
        2,
        True,
        (STRIDES, *COMMON, EXPLICIT),
        "tf.nn.depthwise_conv2d: each input channel by its own filters (h, w, in, multiplier)",
    ),
):
    # tf.nn.conv1d has no explicit padding: TensorFlow 2.21 refuses a list (TypeError) and
    # 'EXPLICIT' (its Conv2D gets no explicit_paddings: InvalidArgumentError)
    _c_of, _infer, _bind, _sympy = _public(_name, _r, depthwise=_dw, explicit_ok=_name != "conv1d")
    register(
        Op(
            _name,
            _infer,
            bind=_bind,
            grads=_conv_grads(_c_of),
            behavior=MASK,
            public=True,
            arity=2,
            attrs=_attrs,
            accepts="float",
            sympy=_sympy,
            overflows=True,
            transport=Transport.ROUTE,
            route=_route(_c_of, False),
            doc=_doc,
        )
    )


# --- conv2d_transpose: Conv2DBackpropInput with output_shape as the input's shape ------------
def _transpose_plan(attrs, value_shape, f_shape):
    """(canonical attributes, the output shape) of conv2d_transpose, checked as TensorFlow."""
    c = plan("conv2d_transpose", attrs, 2)
    first = channels_first(c["data_format"])
    if len(value_shape) != 4 or len(f_shape) != 4:
        raise ShapeError(
            f"conv2d_transpose: input and filters must have rank 4, got shapes "
            f"{fmt(value_shape)} and {fmt(f_shape)}"
        )
    given = list(attrs["output_shape"])
    if len(given) == 2:  # the spatial sizes only: batch and channels follow the operands
        shape = layout_shape(value_shape[:1], tuple(given), f_shape[2], first)
    elif len(given) == 4:
        shape = tuple(given)
    else:
        raise ShapeError(
            f"conv2d_transpose: output_shape must have 4 entries (or the 2 "
            f"spatial ones), got {given}"
        )
    lead, _, channels = split_shape(shape, 2, first)
    vlead, _, vchannels = split_shape(value_shape, 2, first)
    if lead != vlead:
        raise ShapeError(
            f"conv2d_transpose: output_shape {given} and input {fmt(value_shape)} "
            "must have the same batch size"
        )
    if f_shape[3] != vchannels:
        raise ShapeError(
            f"conv2d_transpose: filters {fmt(f_shape)} must have the input's {vchannels} "
            "channels last (filters are (h, w, output channels, input channels))"
        )
    if f_shape[2] != channels:
        raise ShapeError(
            f"conv2d_transpose: output_shape {given} must have the filters' "
            f"{f_shape[2]} output channels"
        )
    expected = out_shape("conv2d_transpose", c, shape, f_shape)
    if expected != tuple(value_shape):
        raise ShapeError(
            f"conv2d_transpose: a convolution of output_shape {list(shape)} gives shape "
            f"{fmt(expected)}, not the input's {fmt(value_shape)}"
        )
    return c, shape


def _transpose_c(node, b):
    return _transpose_plan(node.attrs, b.shape(node.inputs[0]), b.shape(node.inputs[1]))[0]


def _transpose_infer(attrs, value, f):
    shape = _transpose_plan(attrs, value.shape, f.shape)[1]
    return shape, float_dtype("conv2d_transpose", value, f)


def _transpose_bind(attrs):
    def forward(value, f):
        c, shape = _transpose_plan(attrs, np.shape(value), np.shape(f))
        return input_grad_values(c, shape, value, f)

    return forward


def _transpose_route_c(node, b):
    return plan("conv2d_transpose", node.attrs, 2)


register(
    Op(
        "conv2d_transpose",
        _transpose_infer,
        bind=_transpose_bind,
        grads=_input_grad_grads(_transpose_c),
        behavior=MASK,
        public=True,
        arity=2,
        attrs=(
            Attr(
                "output_shape",
                AttrKind.INTS,
                required=True,
                example="{op}(x, f, [1, 8, 8, 3], 2, 'SAME')",
            ),
            STRIDES,
            Attr("padding", AttrKind.STR, "SAME"),
            Attr("data_format", AttrKind.STR),
            Attr("dilations", AttrKind.AXES, 1),
            EXPLICIT,
        ),
        accepts="float",
        sympy=lambda sp, attrs, args, values: _transpose_bind(attrs)(*args),
        overflows=True,
        transport=Transport.ROUTE,
        route=_route(_transpose_route_c, True),
        doc="tf.nn.conv2d_transpose: the input gradient of conv2d (filters (h, w, out, in))",
    )
)
