"""Keras's model.compile: the compiled loss (one loss, or one per output with loss weights),
the optimizer and metrics as compile records them, and the names Keras logs.

Keras 3.15.1 on TensorFlow 2.21 (verified with tools/tf_code_reference.py): a loss string
('mse', 'mean_squared_error', 'mae', the crossentropies, ...) is the keras.losses function
wrapped in a Loss with reduction 'sum_over_batch_size'; a Loss object is used as it is; a
user `def loss(y_true, y_pred)` is wrapped the same way (y_true and y_pred converted to
float32, its per-sample output averaged over every element, a scalar returned as it is).
Each output's loss is cast to float32 and times its loss weight; training.py adds
`model.losses`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.keras import loss_functions
from gradcli.tfcode.keras.library import LOSS, LOSS_CLASSES, OTHER_LOSSES, _to_dtype
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import call_object, instantiate
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import Module, PyFunction

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _bind(it: Interpreter, params, args, kwargs, node, what: str) -> dict:
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"{what}(..., {k}=...)")
        bound[k] = v
    return bound


# compile(loss="...") and keras.losses.<function> -> the loss class Keras wraps it in
LOSS_NAMES = {
    "mse": "MeanSquaredError", "mean_squared_error": "MeanSquaredError",
    "MSE": "MeanSquaredError", "mae": "MeanAbsoluteError", "MAE": "MeanAbsoluteError",
    "mean_absolute_error": "MeanAbsoluteError",
    "binary_crossentropy": "BinaryCrossentropy",
    "categorical_crossentropy": "CategoricalCrossentropy",
    "sparse_categorical_crossentropy": "SparseCategoricalCrossentropy",
    "BCE": "BinaryCrossentropy", "bce": "BinaryCrossentropy",
    "MAPE": "MeanAbsolutePercentageError", "mape": "MeanAbsolutePercentageError",
    "MSLE": "MeanSquaredLogarithmicError", "msle": "MeanSquaredLogarithmicError",
    "KLD": "KLDivergence", "kld": "KLDivergence",
    **{fn: cls for cls, fn in OTHER_LOSSES.items()},
    **{cls: cls for cls in LOSS_CLASSES},
}  # fmt: skip


COMPILE_PARAMS = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics",
                  "run_eagerly", "steps_per_execution", "jit_compile",
                  "auto_scale_loss")  # fmt: skip


def _user_loss_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """A user's loss function wrapped as Keras wraps it (LossFunctionWrapper.call)."""
    return it.call_function(obj.data["user_fn"], list(args[:2]), {}, node)


USER_LOSS = Class("LossFunctionWrapper", (LOSS,), {"call": Builtin(_user_loss_call)})


def _loss_object(it: Interpreter, loss, node) -> Instance:
    """compile's loss= as the Loss object Keras calls."""
    if isinstance(loss, Class) and loss.family() == "loss":  # a class: Keras makes one
        return instantiate(it, loss, [], {}, node)
    name = loss
    if isinstance(loss, Module):
        loss_functions.check_exists(it, loss.path, node)
        fn = loss_functions.canonical(loss.path)
        name = fn or loss.path.rsplit(".", 1)[-1]
    if isinstance(name, str):
        cls = LOSS_CLASSES.get(LOSS_NAMES.get(name, ""))
        if cls is None:
            it.refuse(node, f"compile(loss={name!r})", "give " + ", ".join(LOSS_NAMES))
        return instantiate(it, cls, [], {}, node)
    if isinstance(loss, Instance) and loss.cls.family() == "loss":
        return loss
    if isinstance(loss, PyFunction):
        obj = instantiate(it, USER_LOSS, [], {}, node)
        obj.data["user_fn"] = loss
        return obj
    it.refuse(node, f"compile(loss={_describe(loss)})", "give one loss (a string, object or def)")


OPTIMIZER_STRINGS = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop",
                     "adagrad": "Adagrad", "adadelta": "Adadelta", "adamax": "Adamax",
                     "nadam": "Nadam", "ftrl": "Ftrl", "lion": "Lion",
                     "adafactor": "Adafactor"}  # fmt: skip


def _optimizer(it: Interpreter, value, node):
    """compile's optimizer=: a name (Keras makes the optimizer) or an optimizer object."""
    from gradcli.tfcode.keras.library import OPTIMIZERS

    if isinstance(value, str):
        name = OPTIMIZER_STRINGS.get(value.lower())
        if name is None:
            it.refuse(node, f"compile(optimizer={value!r})")
        return instantiate(it, OPTIMIZERS[name], [], {}, node)
    if isinstance(value, Instance) and value.cls.family() == "optimizer":
        return value
    it.refuse(node, f"compile(optimizer={_describe(value)})", "give a Keras optimizer")


def _loss_spec(it: Interpreter, loss, node):
    """compile's loss=: one loss, or a list/dict of them (None entries kept) per output."""
    if loss is None:
        return None
    if isinstance(loss, (list, tuple)):
        return [None if v is None else _loss_object(it, v, node) for v in loss]
    if isinstance(loss, dict):
        return {k: None if v is None else _loss_object(it, v, node) for k, v in loss.items()}
    return _loss_object(it, loss, node)


def _check_weights(it: Interpreter, weights, node):
    """compile's loss_weights=: Keras's CompileLoss takes a float, a list or a dict."""
    if weights and not isinstance(weights, (list, tuple, dict, float)):
        raise Raises(
            "ValueError",
            "Expected `loss_weights` argument to be a float (single output case) or a list, "
            "tuple, or dict (multiple output case). Received instead: "
            f"loss_weights={weights} of type {_python_type(weights)}",
            it.pos(node),
        )
    items = weights.values() if isinstance(weights, dict) else weights
    items = items if isinstance(weights, (list, tuple, dict)) else [weights]
    for w in items:
        if w is not None and (not isinstance(w, (int, float)) or isinstance(w, bool)):
            it.refuse(node, f"compile(loss_weights=...) with {_describe(w)}", "give numbers")


def _python_type(value) -> str:
    return {int: "<class 'int'>", bool: "<class 'bool'>", str: "<class 'str'>"}.get(
        type(value), "<class 'object'>"
    )


def compile_(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.compile(optimizer='rmsprop', loss=, loss_weights=, metrics=, run_eagerly=, ...)."""
    bound = _bind(it, COMPILE_PARAMS, args, kwargs, node, "model.compile")
    loss = _loss_spec(it, bound.get("loss"), node)
    weight = bound.get("loss_weights")
    if loss is not None:
        _check_weights(it, weight, node)
    obj.data["compiled"] = {
        "loss": loss,
        "weight": weight,
        "eager": bound.get("run_eagerly") is True,
        "optimizer": _optimizer(it, bound.get("optimizer", "rmsprop"), node),
        "metrics": bound.get("metrics"),
        "weighted": bound.get("weighted_metrics"),
        "built": False,
    }
    return None


def _compiled(it: Interpreter, obj: Instance, node) -> dict:
    compiled = obj.data.get("compiled")
    if compiled is None:
        raise Raises(
            "ValueError",
            "You must call `compile()` before using the model.",
            it.pos(node),
            "call model.compile(optimizer=..., loss=...) first",
        )
    return compiled


def output_names(obj: Instance) -> list | None:
    """Keras's model.output_names: the output layers' names of a functional model."""
    from gradcli.tfcode.keras.functional import is_symbolic
    from gradcli.tfcode.support import _flatten

    if "outputs" in obj.data:
        outs = [v for v in _flatten([obj.data["outputs"]]) if is_symbolic(v)]
        return [v.data["node"].layer.layer.name for v in outs]
    return None  # a Sequential or a subclassed model: Keras 3 has no output names


def logged_names(it: Interpreter, obj: Instance, node) -> list | None:
    """The names fit logs each epoch ('loss', each output's loss, each metric's)."""
    from gradcli.tfcode.keras.callbacks import metric_names

    compiled = obj.data["compiled"]
    names = output_names(obj)
    metrics = metric_names(it, compiled["metrics"], compiled["weighted"], names, node)
    losses = compiled.get("output_losses", [])
    if metrics is None or losses is None:
        return None
    return ["loss", *losses, *metrics]


def _per_output(it: Interpreter, spec, names: list | None, n: int, what: str, node) -> list:
    """A loss, weight, y or sample_weight given per output: a list in the outputs' order."""
    if isinstance(spec, dict):
        if names is None:  # Keras 3 iterates the model's output_names, None here
            raise Raises("TypeError", "'NoneType' object is not iterable", it.pos(node))
        if set(spec) != set(names):
            found = list(spec)
            raise Raises(
                "ValueError",
                f"Expected keys {names} in {what} dict, but found {what}.keys()={found}",
                it.pos(node),
            )
        return [spec[k] for k in names]
    if isinstance(spec, (list, tuple)):
        if len(spec) != n:
            it.refuse(node, f"{what} with {len(spec)} entries for a model of {n} outputs")
        return list(spec)
    return [spec] * n


def compiled_loss(it: Interpreter, obj: Instance, compiled: dict, y, y_pred, sw, node):
    """Keras's CompileLoss: each output's loss (sample-weighted, cast to float32, times its
    loss weight), summed over the outputs."""
    from gradcli.tfcode.keras.batches import _is_plain_array

    names = output_names(obj)
    outputs = y_pred if isinstance(y_pred, (list, tuple)) else [y_pred]
    if isinstance(y_pred, dict) or len(outputs) == 0:
        it.refuse(node, "a model returning a dict (or nothing) in a compiled loss")
    n = len(outputs)
    if n > 1 and names is not None and len(names) != n:
        names = None
    single = n == 1
    losses = _per_output(it, compiled["loss"], names, n, "loss", node)
    weights = _per_output(it, compiled["weight"], names, n, "loss_weights", node)
    if single:
        ys = [y]
    elif isinstance(y, dict) or (isinstance(y, (list, tuple)) and not _is_plain_array(y)):
        ys = _per_output(it, y, names, n, "y", node)
    else:
        it.refuse(node, f"one y array for a model of {n} outputs", "give a list or dict")
    sws = [sw] * n if sw is None or not isinstance(sw, (list, tuple, dict)) else (
        _per_output(it, sw, names, n, "sample_weight", node))  # fmt: skip
    total, parts = None, []
    for k, (loss_fn, w, y_t, y_p, s) in enumerate(zip(losses, weights, ys, outputs, sws)):
        if loss_fn is None:
            continue
        kwargs = {} if s is None else {"sample_weight": s}
        value = call_object(it, loss_fn, [y_t, y_p], kwargs, node)
        value = _to_dtype(it, value, "float32", node)
        parts.append((names[k] if names else None, value))
        if w is not None:
            value = it.op_call("mul", [value, float(w)], {}, node)
        total = value if total is None else it.op_call("add", [total, value], {}, node)
    if not single and len(parts) > 1:  # unnamed outputs: Keras's names not read (None)
        compiled["output_losses"] = [f"{k}_loss" for k, _ in parts] if names else None
    return total
