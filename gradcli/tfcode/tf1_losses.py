"""TF1's `tf.compat.v1.losses.*`, emitted op by op as TensorFlow 2.21 composes them
(tensorflow/python/ops/losses/losses_impl.py), so values and gradients are TensorFlow's.

Each is a per-element loss, then `compute_weighted_loss(losses, weights=1.0,
reduction=SUM_BY_NONZERO_WEIGHTS)`: cast to float32, times `weights`, and reduced:
`NONE` keeps the elements, `SUM` sums them, `MEAN` divides the sum by the sum of the weights,
`SUM_BY_NONZERO_WEIGHTS` (the default) by the count of elements whose weight is not zero,
`SUM_OVER_BATCH_SIZE` by the count of elements (each a `div_no_nan`, so 0 when nothing counts),
then cast back to the loss's dtype. The per-element losses:
- mean_squared_error(labels, predictions): (predictions - labels)^2 (SquaredDifference, whose
  gradient 2g(x - y) is square-of-difference's exactly);
- absolute_difference(labels, predictions): |predictions - labels|;
- softmax_cross_entropy(onehot_labels, logits, label_smoothing=0): softmax cross entropy with
  the labels behind stop_gradient, smoothed as `labels * (1 - s) + s / classes`;
- sparse_softmax_cross_entropy(labels, logits);
- sigmoid_cross_entropy(multi_class_labels, logits, label_smoothing=0): labels cast to the
  logits' dtype, smoothed as `labels * (1 - s) + 0.5 * s`.
`weights` a Python number or a tensor broadcastable to the losses (a tensor's zeros counted
as TensorFlow's `_num_present` does); `scope` and `loss_collection` are read and ignored.
"""

from __future__ import annotations

import numpy as np

from gradcli.tfcode.support import Raises, Refused, _describe
from gradcli.tfcode.values import Module, Tensor, Unknown, Variable

REDUCTIONS = ("none", "sum", "weighted_mean", "weighted_sum_by_nonzero_weights",
              "weighted_sum_over_batch_size")  # fmt: skip
NAMES = {"NONE": "none", "SUM": "sum", "MEAN": "weighted_mean",
         "SUM_BY_NONZERO_WEIGHTS": "weighted_sum_by_nonzero_weights",
         "SUM_OVER_NONZERO_WEIGHTS": "weighted_sum_by_nonzero_weights",
         "SUM_OVER_BATCH_SIZE": "weighted_sum_over_batch_size"}  # fmt: skip
COMMON = ("weights", "scope", "loss_collection", "reduction")
PARAMS = {
    "mean_squared_error": ("labels", "predictions", *COMMON),
    "absolute_difference": ("labels", "predictions", *COMMON),
    "softmax_cross_entropy": ("onehot_labels", "logits", "weights", "label_smoothing", "scope",
                              "loss_collection", "reduction"),
    "sparse_softmax_cross_entropy": ("labels", "logits", *COMMON),
    "sigmoid_cross_entropy": ("multi_class_labels", "logits", "weights", "label_smoothing",
                              "scope", "loss_collection", "reduction"),
}  # fmt: skip


def _reduction(it, value, node) -> str:
    if value is None:
        return "weighted_sum_by_nonzero_weights"
    if isinstance(value, Module):
        value = NAMES.get(value.path.rsplit(".", 1)[-1], value.path)
    if value not in REDUCTIONS:
        it.refuse(node, f"the reduction {_describe(value)}", "give tf.compat.v1.losses.Reduction.X")
    return value


def _per_element(it, name: str, bound: dict, node):
    """The unweighted loss of each element, as TensorFlow's function computes it."""
    op = it.op_call
    if name in ("mean_squared_error", "absolute_difference"):
        pred = op("cast", [bound["predictions"]], {"dtype": "float32"}, node)
        labels = op("cast", [bound["labels"]], {"dtype": "float32"}, node)
        diff = op("sub", [pred, labels], {}, node)
        return op("square" if name == "mean_squared_error" else "abs", [diff], {}, node)
    logits = bound["logits"]
    if name == "sparse_softmax_cross_entropy":
        labels = bound["labels"]
        rank = len(it.g[it.tensor_id(logits, read=False)].shape)
        if _tensor(labels) and len(it.g[it.tensor_id(labels, read=False)].shape) == rank:
            labels = op("squeeze", [labels], {"axis": [-1]}, node)  # (n, 1) labels: (n,)
        return op("sparse_softmax_cross_entropy", [labels, logits], {}, node)
    key = "onehot_labels" if name == "softmax_cross_entropy" else "multi_class_labels"
    dtype = it.g[it.tensor_id(logits, read=False)].dtype if _tensor(logits) else "float32"
    labels = op("cast", [bound[key]], {"dtype": dtype}, node)
    smoothing = bound.get("label_smoothing") or 0
    if not isinstance(smoothing, (int, float)):
        it.refuse(node, f"label_smoothing={_describe(smoothing)}", "give a Python number")
    if smoothing > 0:
        classes = it.g[it.tensor_id(labels, read=False)].shape[-1]
        # TensorFlow divides in the logits' dtype: label_smoothing / cast(classes)
        add = (np.asarray(smoothing, dtype) / np.asarray(classes, dtype)).item()
        add = add if key == "onehot_labels" else 0.5 * smoothing
        keep = 1.0 - smoothing
        labels = op("add", [op("mul", [labels, keep], {}, node), add], {}, node)
    if name == "softmax_cross_entropy":
        labels = op("stop_gradient", [labels], {}, node)
        return op("softmax_cross_entropy", [labels, logits], {}, node)
    return op("sigmoid_cross_entropy", [labels, logits], {}, node)


def _tensor(v) -> bool:
    return isinstance(v, (Tensor, Variable))


def _weighted(it, losses, weights, reduction: str, node):
    """compute_weighted_loss(losses, weights, reduction), op by op."""
    op = it.op_call
    dtype = it.g[it.tensor_id(losses, read=False)].dtype
    losses = op("cast", [losses], {"dtype": "float32"}, node)
    numeric = isinstance(weights, (int, float))
    if _tensor(weights):
        w = op("cast", [weights], {"dtype": "float32"}, node)
    else:
        w = float(weights) if numeric else np.asarray(weights, "float32")
    weighted = op("mul", [losses, w], {}, node)
    if reduction == "none":
        return op("cast", [weighted], {"dtype": dtype}, node)
    loss = op("sum", [weighted], {}, node)
    shape = it.g[it.tensor_id(losses, read=False)].shape
    if reduction == "weighted_mean":
        count = op("sum", [op("mul", [np.ones(shape, "float32"), w], {}, node)], {}, node)
    elif reduction == "weighted_sum_by_nonzero_weights":
        if numeric and w != 0.0:
            count = float(np.prod(shape, dtype=np.int64))
        else:
            present = op("not_equal", [w if not numeric else np.float32(w), 0.0], {}, node)
            present = op("cast", [present], {"dtype": "float32"}, node)
            count = op("sum", [op("mul", [present, np.ones(shape, "float32")], {}, node)], {},
                       node)  # fmt: skip
    elif reduction == "weighted_sum_over_batch_size":
        count = float(np.prod(shape, dtype=np.int64))
    else:
        return op("cast", [loss], {"dtype": dtype}, node)
    total = op("sum", [loss], {}, node)  # _safe_mean sums the (scalar) sum again
    return op("cast", [op("div_no_nan", [total, count], {}, node)], {"dtype": dtype}, node)


def _loss(name: str):
    def call(it, args, kwargs, node):
        params = PARAMS[name]
        if len(args) > len(params):
            it.refuse(node, f"tf.compat.v1.losses.{name} with {len(args)} arguments")
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params:
                it.refuse(node, f"tf.compat.v1.losses.{name}(..., {k}=...)")
            bound[k] = v
        if any(isinstance(v, Unknown) for v in bound.values()):
            raise Refused()
        for k in params[:2]:
            if bound.get(k) is None:
                message = f"Argument `{k}` must not be None."
                raise Raises("ValueError", message, it.pos(node))
        weights = bound.get("weights", 1.0)
        weights = 1.0 if weights is None else weights
        if not isinstance(weights, (int, float)) and not _tensor(weights):
            weights = it.as_array(weights, node, "float32")
        reduction = _reduction(it, bound.get("reduction"), node)
        return _weighted(it, _per_element(it, name, bound, node), weights, reduction, node)

    return call


SPECIAL = {f"tf.compat.v1.losses.{n}": _loss(n) for n in PARAMS}
