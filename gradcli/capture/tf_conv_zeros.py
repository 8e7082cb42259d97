"""Why TensorFlow's gradient turned zero at a 2-D convolution, read from its own arrays.

A filter element's gradient sums input * received-gradient products over every output
position, an input element's sums filter * received-gradient products over the windows
it falls in. As for a matmul, an element the op was fed at (some gradient reached it
through the op) is `mask` when every product behind it meets a zero (a zero input, the
implicit zeros of padding, a zero filter tap) and `cancellation` when some products are
nonzero but sum to zero. The products are counted by TensorFlow's own backprop kernels
run on 0/1 indicator arrays with the op's strides, padding and dilations, so padding and
striding are exactly TensorFlow's.

A 2-D max pool passes each window's gradient to the window's maximum (TensorFlow's
MaxPoolGrad, the first maximum on a tie): an input element no window picks is
`unselected` (the static reader's word for max_pool), one picked only by windows that
received zeros received its zero, and one picked by windows that received nonzero
gradients summing to zero is a `cancellation`.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from gradcli.explain.report import CauseKind as K

CONV_ATTRS = ("strides", "padding", "explicit_paddings", "data_format", "dilations", "ksize")


def conv_attrs(attrs) -> dict:
    """The convolution's attributes from the op callback's flat (name, value, ...) tuple
    (eager values, or a traced op's AttrValue protos)."""
    out = {}
    for k, v in zip(attrs[::2], attrs[1::2]):
        if k not in CONV_ATTRS:
            continue
        if hasattr(v, "list"):  # an AttrValue proto
            v = list(v.list.i) if k != "padding" and k != "data_format" else v.s
        if isinstance(v, bytes):
            v = v.decode()
        out[k] = list(v) if isinstance(v, (list, tuple)) else v
    return out


def kind_at(op, j: int, gy, gx, operands):
    """(kind, elements) of the zeros born in input j's gradient at a Conv2D (kind None when
    it made none); None where it cannot be read (an operand unknown, attributes missing)."""
    attrs = op.extra.get("attrs")
    if op.extra.get("type") == "MaxPool":
        return _max_pool(attrs, j, gy, gx, operands)
    if not attrs or len(operands) < 2 or any(o is None for o in operands[:2]) or j > 1:
        return None
    x, w = np.asarray(operands[0]), np.asarray(operands[1])
    gy, zero = np.asarray(gy), np.asarray(gx) == 0
    if not zero.any():
        return None, 0
    flowing = (gy != 0).astype(np.float32)
    kw = dict(
        strides=attrs["strides"],
        padding=attrs["padding"],
        explicit_paddings=attrs.get("explicit_paddings", []),
        data_format=attrs.get("data_format", "NHWC"),
        dilations=attrs.get("dilations", [1, 1, 1, 1]),
    )
    try:
        terms, fed = _counts(j, x, w, flowing, kw)
    except tf.errors.OpError:  # a layout the kernels do not take here: left to the roles
        return None
    if terms.shape != zero.shape:
        return None
    masked = int(np.count_nonzero(zero & fed & (terms == 0)))
    cancelled = int(np.count_nonzero(zero & fed & (terms > 0)))
    if not masked and not cancelled:
        return None, 0
    return (K.CANCELLATION if cancelled > masked else K.MASK), masked + cancelled


def _counts(j, x, w, flowing, kw):
    """(nonzero products behind each element of input j's gradient, whether the op was fed
    there), by TensorFlow's backprop kernels on indicator arrays."""
    if j == 1:  # the filter: products with the input over the output positions
        terms = tf.raw_ops.Conv2DBackpropFilter(
            input=(x != 0).astype(np.float32), filter_sizes=w.shape, out_backprop=flowing, **kw
        ).numpy()
        channel = -1 if kw["data_format"] == "NHWC" else 1
        reached = np.moveaxis(flowing, channel, -1).reshape(-1, flowing.shape[channel]).any(0)
        fed = np.broadcast_to(reached, w.shape)
    else:  # the input: products with the filter over the windows it falls in

        def back(f):
            return tf.raw_ops.Conv2DBackpropInput(
                input_sizes=x.shape, filter=f, out_backprop=flowing, **kw
            ).numpy()

        terms = back((w != 0).astype(np.float32))
        fed = back(np.ones(w.shape, np.float32)) > 0
    return terms, fed


def _max_pool(attrs, j: int, gy, gx, operands):
    """(kind, elements) of the zeros born in a MaxPool's input gradient (see module doc)."""
    if not attrs or "ksize" not in attrs or j != 0 or not operands or operands[0] is None:
        return None
    x = np.asarray(operands[0])
    zero = np.asarray(gx) == 0
    if not zero.any():
        return None, 0
    kw = dict(
        ksize=attrs["ksize"],
        strides=attrs["strides"],
        padding=attrs["padding"],
        data_format=attrs.get("data_format", "NHWC"),
    )
    try:
        y = tf.raw_ops.MaxPool(input=x, **kw)

        def picked(g):
            return tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=y, grad=g, **kw).numpy()

        flowing = picked((np.asarray(gy) != 0).astype(x.dtype)) > 0
        ever = picked(np.ones(y.shape, x.dtype)) > 0
    except (tf.errors.OpError, TypeError, ValueError):  # a layout the kernel does not take
        return None
    if ever.shape != zero.shape:
        return None
    unselected = int(np.count_nonzero(zero & ~ever))
    cancelled = int(np.count_nonzero(zero & flowing))
    if not unselected and not cancelled:
        return None, 0
    return (K.CANCELLATION if cancelled > unselected else K.UNSELECTED), unselected + cancelled
