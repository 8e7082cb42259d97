"""Keras 3's loss functions as TensorFlow 2.21 computes them (keras.losses.*, TensorFlow
backend): binary, categorical and sparse categorical crossentropy, mean squared and mean
absolute error.

Each is a composite op (ops/composite.py) whose expansion is Keras' own composition
(keras/src/losses/losses.py over keras/src/backend/tensorflow/nn.py), so the gradient is
TensorFlow's autodiff of it, node for node. They return one loss per sample, as the
functions do (the keras.losses classes then reduce them: 'sum_over_batch_size').

Probabilities (from_logits=false) are clipped with tf.clip_by_value to [epsilon,
1 - epsilon], epsilon = keras.backend.epsilon() = 1e-7, both bounds converted to the
tensor's dtype (float32: 1.00000001e-7 and 0.99999988); a clipped probability passes no
gradient (clip's convention: at a bound itself it does). from_logits=true hands the logits
to tf.nn.sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits or
sparse_softmax_cross_entropy_with_logits.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gradcli.core.ops import xent
from gradcli.core.ops.composite import composite_op
from gradcli.core.ops.indexing import known
from gradcli.core.ops.infer import broadcast, fmt, need_float, normalize_axes, reduced_shape
from gradcli.core.ops.registry import (
    KINK,
    Attr,
    AttrKind,
    ShapeError,
    Transport,
    register,
)

EPSILON = 1e-7  # keras.backend.epsilon()
BOUNDS = "[1e-7, 1 - 1e-7] (Keras' epsilon)"
FROM_LOGITS = Attr("from_logits", AttrKind.BOOL, False)
SMOOTHING = Attr("label_smoothing", AttrKind.FLOAT, 0.0)
AXIS = Attr("axis", AttrKind.AXIS, -1)


def keras_loss(name, expand, infer, *, attrs, doc, **facts):
    """Register a public composite loss: forward, gradient, SymPy form and the references'
    side of its kinks, all from its expansion."""
    return register(
        composite_op(name, expand, infer, arity=2, attrs=attrs, overflows=True, doc=doc, **facts)
    )


def _clipped(b, p):
    # tf.clip_by_value(output, epsilon(), 1.0 - epsilon()): minimum, then maximum
    return b.clip(p, b.const(EPSILON, like=p), b.const(1.0 - EPSILON, like=p))


def _inactive(logits_words: str, clip_words: str):
    """Explain's words, which depend on from_logits (Op.inactive as a callable)."""

    def words(node):
        if node.attrs.get("from_logits"):
            return (
                "{text} is saturated (" + logits_words + ") at {count}: {arg} gets no gradient",
                "{op} in {entry} {line} is saturated there",
            )
        return (
            "{text} clips " + clip_words + " to " + BOUNDS + ": {arg} gets no gradient at {count}",
            "the clip in {op} in {entry} {line} is at a bound there",
        )

    return words


def _same_shape(name: str, y_true, y_pred) -> None:
    need_float(name, y_true)
    need_float(name, y_pred)
    if y_true.shape != y_pred.shape:
        raise ShapeError(
            f"{name}: y_true and y_pred must have one shape, got {fmt(y_true.shape)} and "
            f"{fmt(y_pred.shape)}"
        )
    if y_true.dtype != y_pred.dtype:
        raise ShapeError(f"{name}: mixed dtypes {y_true.dtype} and {y_pred.dtype}")
    if not y_pred.shape:
        raise ShapeError(f"{name} needs tensors of rank 1 or more, got scalars")


def _axis_infer(name: str):
    """Two tensors of one shape, reduced along `axis` (Keras' backend checks)."""

    def infer(attrs, y_true, y_pred):
        _same_shape(name, y_true, y_pred)
        axes = normalize_axes(name, attrs.get("axis", -1), len(y_pred.shape))
        return reduced_shape(y_pred.shape, axes, False), y_pred.dtype

    return infer


def _smoothing(attrs) -> float:
    return float(attrs.get("label_smoothing", 0.0))


# --- binary_crossentropy ---------------------------------------------------------------------
def _bce_expand(b, attrs, y_true, y_pred):
    # keras.losses.binary_crossentropy: labels squeezed towards 0.5, then the mean over axis
    # of the backend's elementwise loss
    smoothing = _smoothing(attrs)
    if smoothing:
        scaled = b.mul(y_true, b.const(1.0 - smoothing, like=y_true))
        y_true = b.add(scaled, b.const(0.5 * smoothing, like=y_true))
    if attrs.get("from_logits"):
        loss = b.sigmoid_cross_entropy(y_true, y_pred)
    else:
        # -(target * log(output) + (1 - target) * log(1 - output)), output clipped
        out = _clipped(b, y_pred)
        one = b.const(1.0, like=y_pred)
        bce = b.mul(y_true, b.log(out))
        bce = b.add(bce, b.mul(b.sub(one, y_true), b.log(b.sub(one, out))))
        loss = b.neg(bce)
    return b.mean(loss, axis=attrs.get("axis", -1))


keras_loss(
    "binary_crossentropy",
    _bce_expand,
    _axis_infer("binary_crossentropy"),
    attrs=(FROM_LOGITS, SMOOTHING, AXIS),
    behavior=KINK,
    transport=Transport.ROUTE,
    route=xent.dense_route,
    inactive=_inactive("sigmoid(y_pred) equals y_true", "y_pred"),
    doc="keras.losses.binary_crossentropy(y_true, y_pred, from_logits=false, "
    "label_smoothing=0, axis=-1): the mean over axis",
)


# --- categorical_crossentropy ----------------------------------------------------------------
def _cce_expand(b, attrs, y_true, y_pred):
    # keras.losses.categorical_crossentropy; label smoothing counts the classes of the last
    # axis whatever `axis` is, as Keras does
    axis = attrs.get("axis", -1)
    smoothing = _smoothing(attrs)
    if smoothing:
        classes = b.const(float(b.shape(y_true)[-1]), like=y_true)
        scaled = b.mul(y_true, b.const(1.0 - smoothing, like=y_true))
        y_true = b.add(scaled, b.div(b.const(smoothing, like=y_true), classes))
    if attrs.get("from_logits"):
        return b.softmax_cross_entropy(y_true, y_pred, axis=axis)
    # the backend: output / sum(output), clipped, then -sum(target * log(output))
    out = b.div(y_pred, b.sum(y_pred, axis=axis, keepdims=True))
    out = _clipped(b, out)
    return b.neg(b.sum(b.mul(y_true, b.log(out)), axis=axis))


keras_loss(
    "categorical_crossentropy",
    _cce_expand,
    _axis_infer("categorical_crossentropy"),
    attrs=(FROM_LOGITS, SMOOTHING, AXIS),
    behavior=KINK,
    transport=Transport.ROUTE,
    route=xent.dense_route,
    inactive=_inactive("softmax(y_pred) equals y_true", "y_pred / sum(y_pred)"),
    doc="keras.losses.categorical_crossentropy(y_true, y_pred, from_logits=false, "
    "label_smoothing=0, axis=-1): one loss per row along axis",
)


# --- sparse_categorical_crossentropy ---------------------------------------------------------
SCCE = "sparse_categorical_crossentropy"


def _squeezed(labels_shape, pred_shape) -> tuple[int, ...]:
    """Keras drops a last axis of size 1 from labels of y_pred's rank."""
    if len(labels_shape) == len(pred_shape) and labels_shape and labels_shape[-1] == 1:
        return tuple(labels_shape[:-1])
    return tuple(labels_shape)


def _scce_infer(attrs, y_true, y_pred):
    need_float(SCCE, y_pred)
    if not y_pred.shape:
        raise ShapeError(f"{SCCE} needs y_pred of rank 1 or more (the class axis), got a scalar")
    axis = attrs.get("axis", -1)
    if axis not in (-1, len(y_pred.shape) - 1):
        raise ShapeError(f"{SCCE}: only axis=-1 is supported (as Keras), got axis={axis}")
    labels = _squeezed(y_true.shape, y_pred.shape)
    if labels != tuple(y_pred.shape[:-1]):
        raise ShapeError(
            f"{SCCE}: y_true must have the shape of y_pred without its last axis, "
            f"{fmt(y_pred.shape[:-1])}, got {fmt(y_true.shape)}"
        )
    depth = y_pred.shape[-1]
    if depth == 0 and y_true.size:
        raise ShapeError(
            f"{SCCE}: must have at least one class, got y_pred of shape {fmt(y_pred.shape)}"
        )
    value = known(y_true)
    if value is not None:
        try:
            xent.check_labels(SCCE, value, depth)
        except IndexError as exc:
            raise ShapeError(str(exc)) from None
    return y_pred.shape[:-1], y_pred.dtype


def _scce_expand(b, attrs, y_true, y_pred):
    # keras.losses.sparse_categorical_crossentropy: log(clip(y_pred)) as the logits unless
    # from_logits, then tf.nn.sparse_softmax_cross_entropy_with_logits
    labels = _squeezed(b.shape(y_true), b.shape(y_pred))
    if labels != tuple(b.shape(y_true)):
        y_true = b.reshape(y_true, shape=labels)
    logits = y_pred if attrs.get("from_logits") else b.log(_clipped(b, y_pred))
    return b.sparse_softmax_cross_entropy(y_true, logits)


keras_loss(
    SCCE,
    _scce_expand,
    _scce_infer,
    attrs=(FROM_LOGITS, AXIS),
    index_inputs=(0,),
    accepts="number",  # y_pred: infer asks for floats (the TensorFlow reader casts none)
    behavior=KINK,
    transport=Transport.ROUTE,
    route=xent.sparse_route,
    inactive=_inactive("softmax(y_pred) is 1 at the label", "y_pred"),
    doc="keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=false, "
    "axis=-1): integer labels, one per row of y_pred (its last axis)",
)


# --- mean_squared_error, mean_absolute_error -------------------------------------------------
def same_rank(ts, ps) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Keras' squeeze_or_expand_to_same_rank(y_true, y_pred): ranks one apart, the larger's
    last axis of size 1 is dropped, or given to a rank-1 other."""
    ts, ps = tuple(ts), tuple(ps)
    if len(ts) == len(ps) + 1 and ts[-1] == 1:
        return (ts, (*ps, 1)) if len(ps) == 1 else (ts[:-1], ps)
    if len(ps) == len(ts) + 1 and ps[-1] == 1:
        return ((*ts, 1), ps) if len(ts) == 1 else (ts, ps[:-1])
    return ts, ps


def _error_infer(name: str):
    def infer(attrs, y_true, y_pred):
        need_float(name, y_true)
        need_float(name, y_pred)
        ts, ps = same_rank(y_true.shape, y_pred.shape)
        shape = broadcast(name, SimpleNamespace(shape=ts), SimpleNamespace(shape=ps))
        if not shape:
            raise ShapeError(f"{name} needs tensors of rank 1 or more (it averages the last axis)")
        if y_true.dtype != y_pred.dtype:
            raise ShapeError(f"{name}: mixed dtypes {y_true.dtype} and {y_pred.dtype}")
        return shape[:-1], y_pred.dtype

    return infer


def _error_expand(unary: str):
    def expand(b, attrs, y_true, y_pred):
        # mean(square(y_true - y_pred), axis=-1) (abs for the absolute error), after Keras
        # has brought the two to one rank
        ts, ps = same_rank(b.shape(y_true), b.shape(y_pred))
        if ts != b.shape(y_true):
            y_true = b.reshape(y_true, shape=ts)
        if ps != b.shape(y_pred):
            y_pred = b.reshape(y_pred, shape=ps)
        return b.mean(getattr(b, unary)(b.sub(y_true, y_pred)), axis=-1)

    return expand


def _error_route(node, j, value_of):
    """Each element of the broadcast difference reads one element of each input and feeds
    the loss of its row (the last axis)."""
    shapes = same_rank(*(np.shape(value_of(i)) for i in node.inputs))
    return xent.row_route(shapes[j], np.broadcast_shapes(*shapes), -1)


keras_loss(
    "mean_squared_error",
    _error_expand("square"),
    _error_infer("mean_squared_error"),
    attrs=(),
    transport=Transport.ROUTE,
    route=_error_route,
    doc="keras.losses.mean_squared_error(y_true, y_pred): mean(square(y_true - y_pred)) "
    "over the last axis",
)
keras_loss(
    "mean_absolute_error",
    _error_expand("abs"),
    _error_infer("mean_absolute_error"),
    attrs=(),
    behavior=KINK,
    transport=Transport.ROUTE,
    route=_error_route,
    inactive=(
        "{text} is at y_true = y_pred, where abs'(0) = 0: {arg} gets no gradient at {count}",
        "{op} in {entry} {line} is at y_true = y_pred there (abs'(0) = 0)",
    ),
    doc="keras.losses.mean_absolute_error(y_true, y_pred): mean(abs(y_true - y_pred)) "
    "over the last axis",
)
