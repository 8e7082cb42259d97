"""Keras 3's other loss functions (keras.losses.huber, hinge, kl_divergence, ...), read as the
ops Keras 3.15.1's own code runs on the TensorFlow backend (keras/src/losses/losses.py): each
is emitted op by op into the program graph, so its value and gradient are TensorFlow's
autodiff of that code (ties of maximum, clips at Keras's epsilon 1e-7, where's untaken side).

Conventions kept from Keras (verified against TensorFlow 2.21 in tests/data/tf_code):
- y_pred is converted to a tensor (Python values: float32), y_true cast to its dtype.
- hinge and squared_hinge turn labels that are all 0 or 1 into -1/1 (2 * y_true - 1).
- kl_divergence clips both y_true and y_pred to [1e-7, 1]: a y_pred below 1e-7 gets no
  gradient; mean_squared_logarithmic_error takes maximum(y, 1e-7) with a float32 epsilon;
  mean_absolute_percentage_error divides by maximum(abs(y_true), 1e-7).
- cosine_similarity is -sum(normalize(y_true) * normalize(y_pred)): minus the similarity
  (-1 is best), x * min(rsqrt(sum(x^2)), 1e7), so a zero vector gives 0.
- dice and tversky reduce over every axis by default (axis=None): one number per batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.keras.protocol import state
from gradcli.tfcode.values import TF, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

EPSILON = 1e-7  # keras.backend.epsilon()


class _Ops:
    """Keras's ops at one call: each method emits one registry op through the interpreter."""

    def __init__(self, it: Interpreter, node):
        self.it, self.node = it, node

    def __getattr__(self, opname: str):
        return lambda *xs, **attrs: self.it.op_call(opname, list(xs), attrs, self.node)

    def dtype(self, x) -> str:
        return self.it.g[self.it.tensor_id(x, read=False)].dtype

    def shape(self, x) -> tuple:
        return tuple(self.it.g[self.it.tensor_id(x, read=False)].shape)

    def value(self, x) -> np.ndarray:
        return self.it.value(self.it.tensor_id(x, read=False))

    def const(self, value, dtype: str):
        return self.it.leaf(np.asarray(value, dtype=dtype), self.node)

    def cast(self, x, dtype: str):
        """ops.cast / convert_to_tensor(x, dtype): the same tensor when it has the dtype."""
        it = self.it
        if isinstance(x, (Tensor, Variable)):
            i = it.tensor_id(x)
            if it.g[i].dtype == dtype:
                return x if isinstance(x, Variable) or x.kind == TF else Tensor(i, TF)
            return Tensor(it.emit("cast", [i], {"dtype": dtype}, self.node), TF)
        return it.leaf(it.as_array(x, self.node, dtype), self.node)

    def tensor(self, x):
        """ops.convert_to_tensor(x): Python values as float32 (ints as int32)."""
        if isinstance(x, (Tensor, Variable)):
            return x if isinstance(x, Variable) or x.kind == TF else Tensor(x.id, TF)
        return self.it.leaf(self.it.as_array(x, self.node), self.node)


def _inputs(o: _Ops, y_true, y_pred):
    """y_pred = convert_to_tensor(y_pred); y_true = cast(y_true, y_pred.dtype)."""
    y_pred = o.tensor(y_pred)
    return o.cast(y_true, o.dtype(y_pred)), y_pred


def _same_rank(o: _Ops, y_true, y_pred):
    from gradcli.tfcode.keras.library import _same_rank

    return _same_rank(o.it, y_true, y_pred, o.node)


def _binary_labels(o: _Ops, y_true):
    # convert_binary_labels_to_hinge: ops.cond(all labels 0 or 1, 2 * y - 1, y); the labels'
    # values are known here, so the taken branch alone is emitted (cond's gradient)
    v = o.value(y_true)
    if np.all((v == 0) | (v == 1)):
        return o.sub(o.mul(2.0, y_true), 1.0)
    return y_true


def hinge(o: _Ops, y_true, y_pred):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    y_true = _binary_labels(o, y_true)
    return o.mean(o.maximum(o.sub(1.0, o.mul(y_true, y_pred)), 0.0), axis=-1)


def squared_hinge(o: _Ops, y_true, y_pred):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    y_true = _binary_labels(o, y_true)
    return o.mean(o.square(o.maximum(o.sub(1.0, o.mul(y_true, y_pred)), 0.0)), axis=-1)


def categorical_hinge(o: _Ops, y_true, y_pred):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    pos = o.sum(o.mul(y_true, y_pred), axis=-1)
    neg = o.max(o.mul(o.sub(1.0, y_true), y_pred), axis=-1)
    return o.maximum(o.add(o.sub(neg, pos), 1.0), o.const(0.0, o.dtype(y_pred)))


def mean_absolute_percentage_error(o: _Ops, y_true, y_pred):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    epsilon = o.const(EPSILON, o.dtype(y_pred))
    y_true, y_pred = _same_rank(o, y_true, y_pred)
    diff = o.abs(o.div(o.sub(y_true, y_pred), o.maximum(o.abs(y_true), epsilon)))
    return o.mul(100.0, o.mean(diff, axis=-1))


def mean_squared_logarithmic_error(o: _Ops, y_true, y_pred):
    # epsilon = convert_to_tensor(1e-7): float32, then brought to y_pred's dtype by maximum
    y_true, y_pred = _inputs(o, y_true, y_pred)
    epsilon = o.cast(o.const(EPSILON, "float32"), o.dtype(y_pred))
    y_true, y_pred = _same_rank(o, y_true, y_pred)
    first = o.log(o.add(o.maximum(y_pred, epsilon), 1.0))
    second = o.log(o.add(o.maximum(y_true, epsilon), 1.0))
    return o.mean(o.square(o.sub(first, second)), axis=-1)


def _normalize(o: _Ops, x, axis):
    # ops.nn.normalize(x, axis, order=2): x * minimum(rsqrt(sum(x^2)), 1 / epsilon)
    inv = o.rsqrt(o.sum(o.square(x), axis=axis, keepdims=True))
    return o.mul(x, o.minimum(inv, 1.0 / EPSILON))


def cosine_similarity(o: _Ops, y_true, y_pred, axis=-1):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    y_true, y_pred = _same_rank(o, y_true, y_pred)
    y_pred = _normalize(o, y_pred, axis)
    y_true = _normalize(o, y_true, axis)
    return o.neg(o.sum(o.mul(y_true, y_pred), axis=axis))


def huber(o: _Ops, y_true, y_pred, delta=1.0):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    y_true, y_pred = _same_rank(o, y_true, y_pred)
    dtype = o.dtype(y_pred)
    delta = o.cast(delta, dtype)
    error = o.sub(y_pred, y_true)
    abs_error = o.abs(error)
    half = o.const(0.5, dtype)
    quadratic = o.mul(half, o.square(error))
    linear = o.sub(o.mul(delta, abs_error), o.mul(half, o.square(delta)))
    return o.mean(o.where(o.less_equal(abs_error, delta), quadratic, linear), axis=-1)


def log_cosh(o: _Ops, y_true, y_pred):
    # x + softplus(-2 x) - log(2), log(2) computed in float32 (ops.log(2.0)) and then cast
    y_true, y_pred = _inputs(o, y_true, y_pred)
    y_true, y_pred = _same_rank(o, y_true, y_pred)
    log2 = o.cast(o.const(np.log(np.float32(2.0)), "float32"), o.dtype(y_pred))
    x = o.sub(y_pred, y_true)
    return o.mean(o.sub(o.add(x, o.softplus(o.mul(x, -2.0))), log2), axis=-1)


def kl_divergence(o: _Ops, y_true, y_pred):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    y_true = o.clip(y_true, EPSILON, 1.0)
    y_pred = o.clip(y_pred, EPSILON, 1.0)
    return o.sum(o.mul(y_true, o.log(o.div(y_true, y_pred))), axis=-1)


def poisson(o: _Ops, y_true, y_pred):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    epsilon = o.const(EPSILON, o.dtype(y_pred))
    return o.mean(o.sub(y_pred, o.mul(y_true, o.log(o.add(y_pred, epsilon)))), axis=-1)


def _logits(o: _Ops, y_pred, op_type: str = "sigmoid"):
    """The logits Keras's backend finds on a sigmoid/softmax output (_get_logits)."""
    return logits_of(o.it, y_pred, op_type)


def logits_of(it: Interpreter, y_pred, op_type: str):
    """Keras's _get_logits: the input of a keras.activations/keras.ops sigmoid or softmax
    (`_keras_logits`); inside a traced function (fit's train_step) also of any Sigmoid or
    Softmax op (`output.op.type`), tf.nn.sigmoid's included."""
    if not isinstance(y_pred, Tensor):
        return None
    found = state(it).logits.get(y_pred.id)
    if found is not None or not it.symbolic(y_pred):
        return found
    node = it.g[y_pred.id]
    last = len(node.shape) - 1
    if node.op == op_type and node.attrs.get("axis", -1) in (-1, last):
        return Tensor(node.inputs[0], TF)
    return None


def _keep_logits(o: _Ops, out, x):
    if isinstance(out, Tensor):
        state(o.it).logits[out.id] = x
    return out


def _bce(o: _Ops, target, output):
    # the TensorFlow backend's binary_crossentropy(target, output, from_logits=False)
    logits = _logits(o, output)
    if logits is not None:
        return o.sigmoid_cross_entropy(target, logits)
    output = o.clip(output, EPSILON, 1.0 - EPSILON)
    bce = o.mul(target, o.log(output))
    bce = o.add(bce, o.mul(o.sub(1, target), o.log(o.sub(1, output))))
    return o.neg(bce)


def binary_focal_crossentropy(
    o: _Ops, y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0,
    from_logits=False, label_smoothing=0.0, axis=-1,
):  # fmt: skip
    y_true, y_pred = _inputs(o, y_true, y_pred)
    if label_smoothing:
        y_true = o.add(o.mul(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    if from_logits:
        y_pred = _keep_logits(o, o.sigmoid(y_pred), y_pred)
    bce = _bce(o, y_true, y_pred)
    p_t = o.add(o.mul(y_true, y_pred), o.mul(o.sub(1, y_true), o.sub(1, y_pred)))
    focal = o.mul(o.pow(o.sub(1.0, p_t), gamma), bce)
    if apply_class_balancing:
        weight = o.add(o.mul(y_true, alpha), o.mul(o.sub(1, y_true), 1 - alpha))
        focal = o.mul(weight, focal)
    return o.mean(focal, axis=axis)


def categorical_focal_crossentropy(
    o: _Ops, y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
    axis=-1,
):  # fmt: skip
    y_true, y_pred = _inputs(o, y_true, y_pred)
    if label_smoothing:
        classes = o.cast(o.shape(y_true)[-1], o.dtype(y_pred))
        y_true = o.add(o.mul(y_true, 1.0 - label_smoothing), o.div(label_smoothing, classes))
    if from_logits:
        y_pred = o.softmax(y_pred, axis=axis)
    output = o.div(y_pred, o.sum(y_pred, axis=axis, keepdims=True))
    output = o.clip(output, EPSILON, 1.0 - EPSILON)
    cce = o.mul(o.neg(y_true), o.log(output))
    weighting = o.mul(o.pow(o.sub(1.0, output), gamma), alpha)
    return o.sum(o.mul(weighting, cce), axis=axis)


def dice(o: _Ops, y_true, y_pred, axis=None):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    intersection = o.sum(o.mul(y_true, y_pred), axis=axis)
    total = o.add(o.add(o.sum(y_true, axis=axis), o.sum(y_pred, axis=axis)), EPSILON)
    return o.sub(1, o.div(o.mul(2.0, intersection), total))


def tversky(o: _Ops, y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    y_true, y_pred = _inputs(o, y_true, y_pred)
    intersection = o.sum(o.mul(y_true, y_pred), axis=axis)
    fp = o.sum(o.mul(o.sub(1, y_pred), y_true), axis=axis)
    fn = o.sum(o.mul(y_pred, o.sub(1, y_true)), axis=axis)
    denominator = o.add(o.add(o.add(intersection, o.mul(fp, alpha)), o.mul(fn, beta)), EPSILON)
    return o.sub(1, o.div(intersection, denominator))


def binary_accuracy(o: _Ops, y_true, y_pred, threshold=0.5):
    # keras.metrics.binary_accuracy: elementwise (no mean), through a comparison: no gradient
    y_pred = o.tensor(y_pred)
    y_true = o.tensor(y_true)
    y_true, y_pred = _same_rank(o, y_true, y_pred)
    y_pred = o.cast(o.greater(y_pred, threshold), o.dtype(y_true))
    return o.cast(o.equal(y_true, y_pred), "float32")


def categorical_accuracy(o: _Ops, y_true, y_pred):
    # keras.metrics.categorical_accuracy: argmax of both (int32), compared: no gradient
    y_pred = o.tensor(y_pred)
    y_true = o.cast(o.argmax(o.tensor(y_true), axis=-1, output_type="int32"), o.dtype(y_pred))
    y_pred = o.cast(o.argmax(y_pred, axis=-1, output_type="int32"), o.dtype(y_true))
    return o.cast(o.equal(y_true, y_pred), "float32")


# function name -> (its implementation, its options after y_true and y_pred with defaults)
FUNCTIONS = {
    "hinge": (hinge, ()),
    "squared_hinge": (squared_hinge, ()),
    "categorical_hinge": (categorical_hinge, ()),
    "mean_absolute_percentage_error": (mean_absolute_percentage_error, ()),
    "mean_squared_logarithmic_error": (mean_squared_logarithmic_error, ()),
    "cosine_similarity": (cosine_similarity, (("axis", -1),)),
    "huber": (huber, (("delta", 1.0),)),
    "log_cosh": (log_cosh, ()),
    "kl_divergence": (kl_divergence, ()),
    "poisson": (poisson, ()),
    "binary_focal_crossentropy": (binary_focal_crossentropy, (
        ("apply_class_balancing", False), ("alpha", 0.25), ("gamma", 2.0),
        ("from_logits", False), ("label_smoothing", 0.0), ("axis", -1))),
    "categorical_focal_crossentropy": (categorical_focal_crossentropy, (
        ("alpha", 0.25), ("gamma", 2.0), ("from_logits", False), ("label_smoothing", 0.0),
        ("axis", -1))),
    "dice": (dice, (("axis", None),)),
    "tversky": (tversky, (("alpha", 0.5), ("beta", 0.5), ("axis", None))),
}  # fmt: skip
# keras.metrics' own functions (not losses): through comparisons, no gradient
METRIC_ONLY = {
    "binary_accuracy": (binary_accuracy, (("threshold", 0.5),)),
    "categorical_accuracy": (categorical_accuracy, ()),
}
# the loss functions of the registry (ops/keras_losses.py), read through api_table's rows
REGISTRY_FUNCTIONS = ("mean_squared_error", "mean_absolute_error", "binary_crossentropy",
                      "categorical_crossentropy", "sparse_categorical_crossentropy")  # fmt: skip
# tf.keras.losses / tf.keras.metrics legacy aliases (keras._legacy: not in keras.losses)
LEGACY = {
    "mse": "mean_squared_error", "MSE": "mean_squared_error", "mae": "mean_absolute_error",
    "MAE": "mean_absolute_error", "mape": "mean_absolute_percentage_error",
    "MAPE": "mean_absolute_percentage_error", "msle": "mean_squared_logarithmic_error",
    "MSLE": "mean_squared_logarithmic_error", "kld": "kl_divergence", "KLD": "kl_divergence",
    "kullback_leibler_divergence": "kl_divergence", "logcosh": "log_cosh",
}  # fmt: skip
# keras.metrics.<name> that are the loss functions themselves (not cosine_similarity, dice,
# tversky: Keras exports those from keras.losses only)
METRIC_FUNCTIONS = (*REGISTRY_FUNCTIONS, "hinge", "squared_hinge", "categorical_hinge",
                    "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
                    "huber", "log_cosh", "kl_divergence", "poisson",
                    "binary_focal_crossentropy", "categorical_focal_crossentropy")  # fmt: skip


def canonical(path: str) -> str | None:
    """keras.losses.<fn> / keras.metrics.<fn> (and tf.keras's legacy aliases) -> the loss
    function's name, or None for a name that is not a loss function there."""
    from gradcli.tfcode.keras.library import keras_name

    name = keras_name(path)
    if name is None:
        return None
    head, _, last = name.rpartition(".")
    legacy = path.startswith("tf.")  # tf.keras is keras._tf_keras: the legacy aliases too
    if legacy and last in LEGACY:
        last = LEGACY[last]
    if head == "losses" and (last in FUNCTIONS or last in REGISTRY_FUNCTIONS):
        return last
    if head == "metrics" and (last in METRIC_FUNCTIONS or last in METRIC_ONLY):
        return last
    return None


def check_exists(it: Interpreter, path: str, node) -> None:
    """keras.losses.mse (Keras 3's own namespace has no legacy aliases) and
    keras.metrics.cosine_similarity/dice/tversky: TensorFlow's AttributeError."""
    from gradcli.tfcode.support import Raises

    head, _, last = path.rpartition(".")
    if not path.startswith("keras.") or head not in ("keras.losses", "keras.metrics"):
        return
    if last in LEGACY or (head == "keras.metrics" and last in FUNCTIONS):
        real = LEGACY.get(last, last)
        raise Raises(
            "AttributeError",
            f"module '{head}' has no attribute '{last}'",
            it.pos(node),
            f"Keras 3's {head} has no {last} (tf.keras.{head[6:]} keeps the legacy aliases): "
            f"use keras.losses.{real}",
        )


def call(it: Interpreter, fn: str, args, kwargs, node, path: str | None = None):
    """keras.losses.<fn>(y_true, y_pred, **options): one loss per sample."""
    if fn in REGISTRY_FUNCTIONS:
        from gradcli.tfcode import api_table

        row_path = f"tf.keras.losses.{fn}"
        row = api_table.TF[row_path]
        if fn != "mean_squared_error" and fn != "mean_absolute_error":
            # the backend's crossentropies use a sigmoid/softmax output's logits
            args, kwargs = list(args), dict(kwargs)
            y_pred = args[1] if len(args) > 1 else kwargs.get("y_pred")
            kind = "sigmoid" if fn == "binary_crossentropy" else "softmax"
            logits = logits_of(it, y_pred, kind)
            if logits is not None:
                if len(args) > 1:
                    args[1] = logits
                else:
                    kwargs["y_pred"] = logits
                if len(args) > 2:
                    args[2] = True
                else:
                    kwargs["from_logits"] = True
        return it.table_call(row_path, row, args, kwargs, node)
    impl, options = FUNCTIONS[fn] if fn in FUNCTIONS else METRIC_ONLY[fn]
    params = ("y_true", "y_pred", *(k for k, _ in options))
    bound = dict(zip(params, args))
    if len(args) > len(params):
        it.refuse(node, f"keras.losses.{fn} with {len(args)} arguments")
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"keras.losses.{fn}(..., {k}=...)")
        bound[k] = v
    if "y_true" not in bound or "y_pred" not in bound:
        it.refuse(node, f"keras.losses.{fn} without y_true and y_pred")
    values = {k: bound.get(k, default) for k, default in options}
    for k, v in values.items():
        if k == "axis":
            ok = (
                v is None
                or isinstance(v, int)
                or (isinstance(v, (list, tuple)) and all(isinstance(a, int) for a in v))
            )
        else:
            ok = isinstance(v, (int, float)) and not (
                isinstance(v, bool) and k not in ("from_logits", "apply_class_balancing")
            )
        if not ok:
            it.refuse(node, f"keras.losses.{fn}(..., {k}={v!r})", "give a Python constant")
    if isinstance(values.get("axis"), tuple):
        values["axis"] = list(values["axis"])
    return impl(_Ops(it, node), bound["y_true"], bound["y_pred"], **values)


def get(it: Interpreter, path: str, args, kwargs, node):
    """keras.losses.get(identifier): a loss function's name gives the function, a class name
    a new object of the class (Keras's ALL_OBJECTS_DICT); objects and functions pass."""
    from gradcli.tfcode.keras.library import LOSS_CLASSES
    from gradcli.tfcode.keras.protocol import instantiate
    from gradcli.tfcode.values import Module

    identifier = args[0] if args else kwargs.get("identifier")
    if not isinstance(identifier, str):
        return identifier
    prefix = path.rsplit(".", 1)[0]
    aliases = {"bce": "binary_crossentropy", "BCE": "binary_crossentropy", **LEGACY}
    name = aliases.get(identifier, identifier)
    if name in LOSS_CLASSES:
        return instantiate(it, LOSS_CLASSES[name], [], {}, node)
    if name in FUNCTIONS or name in REGISTRY_FUNCTIONS:
        return Module(f"{prefix}.{name}")
    it.refuse(node, f"{path}({identifier!r})", "give a Keras 3 loss name")
