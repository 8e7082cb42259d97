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

from gradcli.core.problem import NONE
from gradcli.tfcode.dataset_iteration import fit_batch, is_dataset
from gradcli.tfcode.drawn import note_draw
from gradcli.tfcode.keras import train_steps
from gradcli.tfcode.keras.compiling import (
    _bind,
    _compiled,
    compiled_loss,
    logged_names,
)
from gradcli.tfcode.keras.library import _to_dtype
from gradcli.tfcode.keras.objects import Instance
from gradcli.tfcode.keras.protocol import call_object, get_attribute
from gradcli.tfcode.refusals import AFTER_UPDATE
from gradcli.tfcode.subnormals import evaluate_checked
from gradcli.tfcode.support import Raises, Stop, _describe
from gradcli.tfcode.values import Tape, Tensor

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

FIT_PARAMS = ("x", "y", "batch_size", "epochs", "verbose", "callbacks", "validation_split",
              "validation_data", "shuffle", "class_weight", "sample_weight", "initial_epoch",
              "steps_per_epoch", "validation_steps", "validation_batch_size",
              "validation_freq")  # fmt: skip
BATCH_PARAMS = ("x", "y", "sample_weight", "class_weight", "return_dict")
NO_GRADIENTS = "No gradients provided for any variable."


def fit(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.fit(x, y, batch_size=None, epochs=1, shuffle=True, ...): the first train step;
    returns Keras's History (callbacks.py)."""
    from gradcli.tfcode.keras import batches, callbacks

    bound = _bind(it, FIT_PARAMS, args, kwargs, node, "model.fit")
    if train_steps.defines(obj, "train_step"):  # the class's own step (train_steps.py)
        return train_steps.fit(it, obj, bound, node)
    compiled = _compiled(it, obj, node)
    cbs = callbacks.callback_list(it, bound.get("callbacks"), node)
    validation = bound.get("validation_data")
    if is_dataset(bound.get("x")):  # the dataset's first element is the first batch
        batch = _dataset_batch(it, bound, node)
    else:
        if validation is not None and not (
            isinstance(validation, (list, tuple)) and len(validation) in (2, 3)
        ):
            it.refuse(node, f"validation_data={_describe(validation)}", "give (x_val, y_val)")
        batch = batches.first_batch(it, bound, node, y_optional=compiled["loss"] is None)
    epochs, first = bound.get("epochs", 1), bound.get("initial_epoch", 0)
    validating = validation is not None or bool(bound.get("validation_split"))
    last = epochs - 1 if isinstance(epochs, int) else 0
    info = {
        "epochs": epochs, "first": first, "verbose": bound.get("verbose", "auto"),
        "steps": batch.steps, "validating": validating,
        "freq": bound.get("validation_freq", 1),
        "may_stop": callbacks.may_stop_before(cbs, first, last, validating),
    }  # fmt: skip
    given = next((cb for cb in cbs if cb.cls.name == "History" and not cb.cls.user), None)
    if batch.size == 0 or (isinstance(epochs, int) and isinstance(first, int) and epochs <= first):
        info["names"] = logged_names(it, obj, node)
        return callbacks.make_history(it, obj, given, info, node)  # no step: no gradient call
    notes = list(batch.notes)
    if bound.get("shuffle", True) is not False and batch.samples > batch.size:
        n, size = batch.samples, batch.size
        note_draw(it, node)  # Keras's first batch is random
        notes.append(
            f"fit shuffles the {n} samples (shuffle=True): Keras's first batch is {size} random "
            f"samples, gradcli's the first {size}; the gradients' values differ, their "
            "None-ness and causes do not"
        )
    notes += trained_note(it, obj, node)
    train_step(it, obj, batch.x, batch.y, node, notes, batch.sample_weight)
    train_steps.mark_trained(it, obj, node)
    info["names"] = logged_names(it, obj, node)
    return callbacks.make_history(it, obj, given, info, node)


def _dataset_batch(it: Interpreter, bound: dict, node):
    """fit's first batch from a tf.data dataset (its first element: (x, y) or (x, y,
    sample_weight)); a Batch of size 0 when Keras trains no step."""
    from gradcli.tfcode.keras.batches import Batch

    element = fit_batch(it, bound, node)
    steps = bound.get("steps_per_epoch") or 1
    if element is None:
        return Batch(None, None, None, samples=0, size=0, steps=0)
    x, y, *rest = element
    shape = it.g[x.id].shape
    size = int(shape[0]) if shape else 1
    return Batch(x, y, rest[0] if rest else None, samples=size, size=size, steps=steps)


def train_on_batch(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.train_on_batch(x, y, sample_weight=, class_weight=, return_dict=): one train
    step on the whole batch; returns the step's loss as Keras logs it (inference.py)."""
    from gradcli.tfcode.keras import batches
    from gradcli.tfcode.keras.inference import logs, trained_result

    bound = _bind(it, BATCH_PARAMS, args, kwargs, node, "model.train_on_batch")
    if train_steps.defines(obj, "train_step"):  # the class's own step (train_steps.py)
        return train_steps.train_on_batch(it, obj, bound, node)
    compiled = _compiled(it, obj, node)
    if bound.get("y") is None and compiled["loss"] is not None:  # else: model.losses only
        it.refuse(node, "model.train_on_batch without y", "pass x and y arrays")
    sw = batches.sample_weights(
        it, bound.get("y"), bound.get("sample_weight"), bound.get("class_weight"), node, True
    )
    data = (bound.get("x"), bound.get("y"), sw)
    x, y, sw = (batches.rows(it, v, 0, None, node) for v in data)
    trained = obj.data.get("trained")
    loss = train_step(it, obj, x, y, node, trained_note(it, obj, node), sw)
    train_steps.mark_trained(it, obj, node)
    if trained is not None:
        return trained_result(obj, node)
    n = batches.count(it, x, node)
    return logs(it, obj, [(loss, n)], bound.get("return_dict", False), node)


def trained_note(it: Interpreter, obj: Instance, node) -> list[str]:
    """A train step after an earlier one trained the weights is refused: Keras computes it at
    the trained weights, which gradcli does not compute (it does not train)."""
    line = obj.data.get("trained")
    if line is not None:
        it.refuse(node, f"a train step after Keras trained the weights at line {line}",
                  AFTER_UPDATE)  # fmt: skip
    return []


def _label(it: Interpreter, name: str, node) -> None:
    """Label the nodes emitted from now on `name` (name@line where the name is taken)."""
    pos = it.pos(node)
    label = name if it.labels.get(name, pos).line == pos.line else f"{name}@{pos.line}"
    it.labels.setdefault(label, pos)
    it.label, it.target_name = label, None


def step_loss(it: Interpreter, obj: Instance, compiled: dict, x, y, sw, node, training: bool):
    """Keras's compute_loss on one batch: the forward pass, the compiled loss, plus
    `model.losses` (regularizers, add_loss) as ops.sum([compiled, *losses])."""
    saved = it.label, it.target_name  # Keras's y_pred and loss, not the statement's name
    try:
        _label(it, "y_pred", node)
        y_pred = call_object(it, obj, [x], {"training": training}, node)
        _label(it, "compiled loss", node)
        if train_steps.defines(obj, "compute_loss"):  # the class's own (train_steps.py)
            return train_steps.user_compute_loss(it, obj, x, y, y_pred, sw, node, training)
        loss = None
        if compiled["loss"] is not None:
            loss = compiled_loss(it, obj, compiled, y, y_pred, sw, node)
    finally:
        it.label, it.target_name = saved
    compiled["built"] = True
    extra = get_attribute(it, node, obj, "losses")  # regularizers, add_loss
    extra = list(extra) if isinstance(extra, list) else []
    parts = ([] if loss is None else [loss]) + [_to_dtype(it, v, "float32", node) for v in extra]
    if not parts:
        raise Raises(
            "ValueError", "No loss to compute. Provide a `loss` argument in `compile()`.",
            it.pos(node),
        )  # fmt: skip
    if len(parts) == 1:
        return parts[0]
    stacked = it.call_api("tf.stack", [parts], {}, node, None)
    return it.op_call("sum", [stacked], {}, node)


def _forward(it: Interpreter, obj: Instance, compiled: dict, data, node, traced: bool):
    """The train step's forward pass and compiled loss, under a fresh tape (and a trace of
    train_step unless run_eagerly): (tape, loss)."""
    from gradcli.tfcode.functions import Trace
    from gradcli.tfcode.support import _flatten

    it.all_tapes += 1
    tape = Tape(it.all_tapes, False, True, it.pos(node), start=len(it.g))
    tape.label = "train_step"
    tape.active = True
    it.tapes.append(tape)
    if traced:
        step = SimpleNamespace(name="train_step", pos=it.pos(node))
        inputs = {v.id for v in _flatten(list(data)) if isinstance(v, Tensor)}
        it.tracing.append(Trace(step, len(it.g), inputs))
    try:
        loss = step_loss(it, obj, compiled, *data, node, training=True)
    finally:
        if traced:
            it.tracing.pop()
        tape.end = len(it.g)
        tape.end_line = node.lineno
        tape.active = False
        it.tapes.remove(tape)
    return tape, loss


def train_step(it: Interpreter, obj: Instance, x, y, node, notes: list, sw=None):
    """Keras's train_step: the loss under a tape, its gradient for trainable_variables;
    returns the step's loss."""
    from gradcli.tfcode.calls import CallKind, finish, lower

    compiled = _compiled(it, obj, node)
    model = ast.unparse(node.func.value) if isinstance(node.func, ast.Attribute) else "model"
    loaded = obj.data.get("loaded")
    if loaded is not None:  # weights from a file gradcli does not read
        from gradcli.tfcode.opaque import unknown_call

        sources = get_attribute(it, node, obj, "trainable_variables")
        named = [(v, f"{model}.trainable_variables[{k}]") for k, v in enumerate(sources)]
        unknown_call(it, node, CallKind.FIT, "compiled loss", named, NONE, loaded)
        return loaded
    error = None
    try:
        tape, loss = _forward(it, obj, compiled, (x, y, sw), node, not compiled["eager"])
    except Raises as raised:  # TensorFlow raises while tracing train_step
        if raised.message.startswith("No loss to compute"):
            raise
        error = {"type": raised.kind, "message": raised.message}
        notes.append(
            f"TensorFlow raises {raised.kind} while tracing train_step (line {raised.pos.line}): "
            f"{raised.message}; {raised.note}. gradcli reads the step eagerly to say where the "
            "gradient would stop"
        )
        tape, loss = _forward(it, obj, compiled, (x, y, sw), node, False)
    sources = get_attribute(it, node, obj, "trainable_variables")
    asts = [ast.Name(id="compiled loss"), ast.parse(f"{model}.trainable_variables").body]
    call, lowered, raises = lower(it, tape, node, CallKind.FIT, loss, sources, None, NONE, asts)
    call.notes += notes
    call.evaluation = evaluate_checked(call.problem.scratch(), it.pos(node))
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
    return loss
