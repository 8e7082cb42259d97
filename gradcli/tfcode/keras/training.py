"""Keras's training APIs as gradient calls: `model.compile(...)`, then `model.fit(...)` or
`model.train_on_batch(...)` is ONE gradient call (kind "fit"): the compiled loss of the first
batch with respect to `model.trainable_variables`, as Keras 3's TensorFlow `train_step` takes
it with its GradientTape.

Keras 3.15.1 on TensorFlow 2.21 (verified with tools/tf_code_reference.py):
- compile's loss: a string ('mse', 'mean_squared_error', 'mae', the crossentropies) is the
  keras.losses function wrapped in a Loss with reduction 'sum_over_batch_size'; a Loss object
  is used as it is; a user `def loss(y_true, y_pred)` is wrapped the same way: y_true and
  y_pred converted to float32, its per-sample output averaged over every element (a scalar
  returned as it is). The compiled loss is cast to float32, times loss_weights when given;
  `model.losses` (regularization penalties, read inside the step's tape) are added as Keras's
  compute_loss does: ops.sum of [compiled loss, *losses].
- fit's first batch is the first batch_size samples (default 32) when shuffle=False or the
  data fits in one batch; with shuffle=True Keras draws a random first batch (gradcli takes
  the first samples: values then differ, None-ness and causes do not).
- train_step runs under tf.function (unless compile(run_eagerly=True)): a loss calling
  .numpy() or np.* on y_pred raises while tracing; gradcli gives TensorFlow's error and the
  diagnosis (leaves_tape at the loss's line).
- every gradient None: Keras raises ValueError "No gradients provided for any variable." at
  the fit line; gradcli gives each variable's cause (argmax, a cast to int, ...).
"""

from __future__ import annotations

import ast
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from gradcli.core.evaluation import evaluate
from gradcli.core.problem import NONE
from gradcli.tfcode.dataset_iteration import fit_batch, is_dataset
from gradcli.tfcode.keras.library import LOSS, LOSS_CLASSES, _to_dtype
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import call_object, get_attribute, instantiate
from gradcli.tfcode.support import Raises, Stop, _describe
from gradcli.tfcode.values import Module, PyFunction, Tape, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

# compile(loss="...") and keras.losses.<function> -> the loss class Keras wraps it in
LOSS_NAMES = {
    "mse": "MeanSquaredError", "mean_squared_error": "MeanSquaredError",
    "MSE": "MeanSquaredError", "mae": "MeanAbsoluteError", "MAE": "MeanAbsoluteError",
    "mean_absolute_error": "MeanAbsoluteError",
    "binary_crossentropy": "BinaryCrossentropy",
    "categorical_crossentropy": "CategoricalCrossentropy",
    "sparse_categorical_crossentropy": "SparseCategoricalCrossentropy",
}  # fmt: skip
COMPILE_PARAMS = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics",
                  "run_eagerly", "steps_per_execution", "jit_compile",
                  "auto_scale_loss")  # fmt: skip
FIT_PARAMS = ("x", "y", "batch_size", "epochs", "verbose", "callbacks", "validation_split",
              "validation_data", "shuffle", "class_weight", "sample_weight", "initial_epoch",
              "steps_per_epoch", "validation_steps", "validation_batch_size",
              "validation_freq")  # fmt: skip
BATCH_PARAMS = ("x", "y", "sample_weight", "class_weight", "return_dict")
NO_GRADIENTS = "No gradients provided for any variable."


def _bind(it: Interpreter, params, args, kwargs, node, what: str) -> dict:
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"{what}(..., {k}=...)")
        bound[k] = v
    return bound


def _user_loss_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """A user's loss function wrapped as Keras wraps it (LossFunctionWrapper.call)."""
    return it.call_function(obj.data["user_fn"], list(args[:2]), {}, node)


USER_LOSS = Class("LossFunctionWrapper", (LOSS,), {"call": Builtin(_user_loss_call)})


def _loss_object(it: Interpreter, loss, node) -> Instance:
    """compile's loss= as the Loss object Keras calls."""
    name = loss
    if isinstance(loss, Module):
        name = loss.path.rsplit(".", 1)[-1]
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


def compile_(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.compile(optimizer, loss=, loss_weights=, metrics=, run_eagerly=, ...)."""
    bound = _bind(it, COMPILE_PARAMS, args, kwargs, node, "model.compile")
    loss = bound.get("loss")
    weight = bound.get("loss_weights")
    if isinstance(weight, (list, tuple)) and len(weight) == 1:
        weight = weight[0]
    if weight is not None and not isinstance(weight, (int, float)):
        it.refuse(node, f"compile(loss_weights={_describe(weight)})", "give one number")
    obj.data["compiled"] = {
        "loss": None if loss is None else _loss_object(it, loss, node),
        "weight": weight,
        "eager": bound.get("run_eagerly") is True,
    }
    return None


def _rows(it: Interpreter, value, count, node):
    """The first `count` samples of fit's x or y (all of them for count None)."""
    if isinstance(value, (Tensor, Variable)):
        arr = it.value(it.tensor_id(value, read=False))
    else:
        arr = it.as_array(value, node)
    if arr.ndim == 0:
        it.refuse(node, "model.fit of a scalar", "give arrays with a batch dimension")
    return it.leaf(np.array(arr[:count] if count is not None else arr), node), arr.shape[0]


def fit(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.fit(x, y, batch_size=None, epochs=1, shuffle=True, ...): the first train step."""
    bound = _bind(it, FIT_PARAMS, args, kwargs, node, "model.fit")
    if is_dataset(bound.get("x")):  # the dataset's first element is the first batch
        batch = fit_batch(it, bound, node)
        return None if batch is None else train_step(it, obj, *batch, node, [])
    for k in ("class_weight", "sample_weight", "validation_data"):
        if bound.get(k) is not None:
            it.refuse(node, f"model.fit(..., {k}=...)")
    compiled = obj.data.get("compiled") or {}
    if bound.get("y") is None and compiled.get("loss") is not None:
        it.refuse(node, "model.fit without y (a dataset or generator)", "pass x and y arrays")
    epochs, first = bound.get("epochs", 1), bound.get("initial_epoch", 0)
    if isinstance(epochs, int) and isinstance(first, int) and epochs <= first:
        return None  # Keras trains no step: no gradient call
    size = bound.get("batch_size") or 32
    x, n = _rows(it, bound.get("x"), size, node)
    y = None if bound.get("y") is None else _rows(it, bound.get("y"), size, node)[0]
    notes = []
    if bound.get("shuffle", True) is not False and n > size:
        notes.append(
            f"fit shuffles the {n} samples (shuffle=True): Keras's first batch is {size} random "
            f"samples, gradcli's the first {size}; the gradients' values differ, their "
            "None-ness and causes do not"
        )
    return train_step(it, obj, x, y, node, notes)


def train_on_batch(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.train_on_batch(x, y): one train step on the whole batch."""
    bound = _bind(it, BATCH_PARAMS, args, kwargs, node, "model.train_on_batch")
    for k in ("class_weight", "sample_weight"):
        if bound.get(k) is not None:
            it.refuse(node, f"model.train_on_batch(..., {k}=...)")
    compiled = obj.data.get("compiled") or {}
    if bound.get("y") is None and compiled.get("loss") is not None:
        it.refuse(node, "model.train_on_batch without y", "pass x and y arrays")
    x, _ = _rows(it, bound.get("x"), None, node)
    y = None if bound.get("y") is None else _rows(it, bound.get("y"), None, node)[0]
    return train_step(it, obj, x, y, node, [])


def _forward(it: Interpreter, obj: Instance, compiled: dict, x, y, node, traced: bool):
    """The train step's forward pass and compiled loss, under a fresh tape (and a trace of
    train_step unless run_eagerly): (tape, loss)."""
    from gradcli.tfcode.functions import Trace

    it.all_tapes += 1
    tape = Tape(it.all_tapes, False, True, it.pos(node), start=len(it.g))
    tape.label = "train_step"
    tape.active = True
    it.tapes.append(tape)
    if traced:
        step = SimpleNamespace(name="train_step", pos=it.pos(node))
        it.tracing.append(Trace(step, len(it.g), {x.id} | ({y.id} if y is not None else set())))
    try:
        y_pred = call_object(it, obj, [x], {"training": True}, node)
        loss = None
        if compiled["loss"] is not None:
            loss = call_object(it, compiled["loss"], [y, y_pred], {}, node)
            loss = _to_dtype(it, loss, "float32", node)
        if loss is not None and compiled["weight"] is not None:
            loss = it.op_call("mul", [loss, float(compiled["weight"])], {}, node)
        extra = get_attribute(it, node, obj, "losses")  # regularizers, add_loss
        parts = ([] if loss is None else [loss]) + [
            _to_dtype(it, v, "float32", node) for v in (extra if isinstance(extra, list) else [])
        ]
        if not parts:
            raise Raises(
                "ValueError",
                "No loss to compute. Provide a `loss` argument in `compile()`.",
                it.pos(node),
                "compile a loss, or add one with self.add_loss in the model's call",
            )
        loss = parts[0]
        if len(parts) > 1:  # Keras: ops.sum([compiled, *losses])
            stacked = it.call_api("tf.stack", [parts], {}, node, None)
            loss = it.op_call("sum", [stacked], {}, node)
    finally:
        if traced:
            it.tracing.pop()
        tape.end = len(it.g)
        tape.end_line = node.lineno
        tape.active = False
        it.tapes.remove(tape)
    return tape, loss


def train_step(it: Interpreter, obj: Instance, x, y, node, notes: list):
    """Keras's train_step: the loss under a tape, its gradient for trainable_variables."""
    from gradcli.tfcode.calls import CallKind, finish, lower

    compiled = obj.data.get("compiled")
    if compiled is None:
        raise Raises(
            "ValueError",
            "You must call `compile()` before using the model.",
            it.pos(node),
            "call model.compile(optimizer=..., loss=...) first",
        )
    error = None
    try:
        tape, loss = _forward(it, obj, compiled, x, y, node, not compiled["eager"])
    except Raises as raised:  # TensorFlow raises while tracing train_step
        error = {"type": raised.kind, "message": raised.message}
        notes.append(
            f"TensorFlow raises {raised.kind} while tracing train_step (line {raised.pos.line}): "
            f"{raised.message}; {raised.note}. gradcli reads the step eagerly to say where the "
            "gradient would stop"
        )
        tape, loss = _forward(it, obj, compiled, x, y, node, False)
    sources = get_attribute(it, node, obj, "trainable_variables")
    model = ast.unparse(node.func.value) if isinstance(node.func, ast.Attribute) else "model"
    asts = [ast.Name(id="compiled loss"), ast.parse(f"{model}.trainable_variables").body]
    call, lowered, raises = lower(it, tape, node, CallKind.FIT, loss, sources, None, NONE, asts)
    call.notes += notes
    call.evaluation = evaluate(call.problem.scratch())
    if error is not None:
        call.error = error
    finish(it, call, lowered, raises)
    if error is not None:
        raise Stop()
    if all(r is None for r in call.evaluation.grads.results):
        raise Raises(
            "ValueError",
            NO_GRADIENTS,
            it.pos(node),
            "Keras's optimizer gets a None gradient for every variable: the call's "
            "explanation names each one's cause",
        )
    return None
