"""The Keras guide "Customizing what happens in fit()": a Model subclass with its own
`train_step(self, data)`, run by `fit`/`train_on_batch` on the first batch; its gradient
calls are the user's own `tape.gradient` calls, at their lines. Also the Model members such a
step uses (`self.optimizer`, `compute_loss`, the deprecated `compiled_loss`/
`compiled_metrics`, `metrics`, `reset_metrics`) and `keras.utils.unpack_x_y_sample_weight`.

Keras 3.15.1 on TensorFlow 2.21 (verified with tools/tf_code_reference.py):
- the `data` fit passes: `(x, y)`; `x` alone when fit has no y; `(x, y, sample_weight)` with
  sample_weight; a dataset's element as it is. train_on_batch always passes the 3-tuple
  `(x, y, sample_weight)`, None where not given.
- train_step runs under tf.function (unless compile(run_eagerly=True)): its tensors are
  symbolic, `.numpy()` raises AttributeError while tracing, the calls are noted as traced.
- `compile` must have been called (even `super().compile()` with no loss): else fit raises
  ValueError "You must call `compile()` before using the model.".
- `self.compiled_loss(y, y_pred, ...)` warns (UserWarning, deprecated) and is
  `self.compute_loss(y=y, y_pred=y_pred, sample_weight=...)` (its regularization_losses
  argument is ignored; compute_loss adds `self.losses` itself); `self.compiled_metrics`
  warns and updates the metrics; Keras 3 optimizers have no `minimize` (AttributeError).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

from gradcli.tfcode.drawn import note_draw
from gradcli.tfcode.keras.objects import Builtin, Class, Instance, Property
from gradcli.tfcode.keras.protocol import call_member, get_attribute, instantiate
from gradcli.tfcode.keras.updates import update
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, _flatten
from gradcli.tfcode.values import Opaque, PyFunction, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

NOT_COMPILED = "You must call `compile()` before using the model."
NO_LOSS = "No loss to compute. Provide a `loss` argument in `compile()`."


class MetricValue(Opaque):
    """A Keras metric's result: Keras computes it outside the gradient; gradcli does not."""

    def reason(self) -> str:
        return (
            f"unknown beyond line {self.line}: {self.what} is a Keras metric's value, which "
            "gradcli does not compute (metrics are updated outside the gradient)"
        )


class History(MetricValue):
    """fit's History when the class's own train_step makes the logs (not computed)."""

    def reason(self) -> str:
        return (
            f"unknown beyond line {self.line}: {self.what} holds the logs train_step returns, "
            "which gradcli does not compute"
        )


# --- metric objects (callbacks.py's METRIC, with the methods a train_step calls) -------------
def _metric_none(it, obj, args, kwargs, node):
    return None  # update_state / reset_state: Keras's metric variables, not read


def _metric_result(it, obj, args, kwargs, node):
    return MetricValue(node.lineno, f"{obj.data['name']}.result()")


def _metric_call(it, obj, args, kwargs, node):
    value = MetricValue(node.lineno, f"the metric {obj.data['name']}(...)")
    # a metric called on tensors (as a loss, keras#19150): TensorFlow updates its state and
    # reads the value back from its variables (no gradient to those tensors: None), which
    # the reader does not model, so a gradient through it is refused, not left unknown
    value.refused_in_gradient = True
    return value


def _metric_variables(it, obj, args, kwargs, node):
    return []  # a metric's state variables: never trainable, never in a gradient call


METRIC_METHODS = {
    "update_state": Builtin(_metric_none),
    "reset_state": Builtin(_metric_none),
    "reset_states": Builtin(_metric_none),
    "result": Builtin(_metric_result),
    "__call__": Builtin(_metric_call),
    "variables": Property(Builtin(_metric_variables)),
}


# --- the user's train_step ---------------------------------------------------------------------
def defines(obj, name: str) -> bool:
    """Whether obj's class (one of the file's) defines `name` itself (train_step, ...)."""
    if not isinstance(obj, Instance):
        return False
    member, owner = obj.cls.lookup(name)
    return isinstance(member, PyFunction) and owner is not None and owner.user


def _compiled(it: Interpreter, obj: Instance, node) -> dict:
    compiled = obj.data.get("compiled")
    if compiled is None:
        hint = "call model.compile(...) first (super().compile() in a compile override)"
        raise Raises("ValueError", NOT_COMPILED, it.pos(node), hint)
    return compiled


def _rows(it: Interpreter, value, count, node):
    """The first `count` samples of every array of a structure, and the number of samples."""
    from gradcli.tfcode.keras import batches

    if value is None:
        return None, None
    return batches.rows(it, value, 0, count, node), batches.count(it, value, node)


def fit(it: Interpreter, obj: Instance, bound: dict, node):
    """model.fit(...) of a model whose class defines train_step: its first step."""
    from gradcli.tfcode.dataset_iteration import first_element, is_dataset

    _compiled(it, obj, node)
    epochs, first = bound.get("epochs", 1), bound.get("initial_epoch", 0)
    if isinstance(epochs, int) and isinstance(first, int) and epochs <= first:
        return History(node.lineno, "the History of a fit")  # Keras runs no step
    if bound.get("class_weight") is not None:
        it.refuse(node, "model.fit(..., class_weight=...) with a custom train_step")
    notes: list[str] = []
    if is_dataset(bound.get("x")):
        for k in ("y", "sample_weight"):
            if bound.get(k) is not None:
                it.refuse(node, f"model.fit(dataset, {k}=...)", "TensorFlow raises ValueError")
        data = first_element(it, bound["x"], node)
        if data is None:  # the dataset is empty: no step
            return History(node.lineno, "the History of a fit")
    else:
        size = bound.get("batch_size") or 32
        x, n = _rows(it, bound.get("x"), size, node)
        y, _ = _rows(it, bound.get("y"), size, node)
        sw, _ = _rows(it, bound.get("sample_weight"), size, node)
        # Keras drops sample_weight when there is no y (verified): x alone
        data = x if y is None else (x, y) if sw is None else (x, y, sw)
        if bound.get("shuffle", True) is not False and n is not None and n > size:
            note_draw(it, node)  # Keras's first batch is random
            notes.append(
                f"fit shuffles the {n} samples (shuffle=True): Keras's first batch is {size} "
                f"random samples, gradcli's the first {size}; the gradients' values differ, "
                "their None-ness and causes do not"
            )
    run_step(it, obj, "train_step", data, node, notes + trained_note(it, obj, node))
    mark_trained(it, obj, node)
    return History(node.lineno, "the History of a fit with the class's own train_step")


def trained_note(it: Interpreter, obj: Instance, node) -> list[str]:
    """training.py's refusal of a step after Keras trained the weights."""
    from gradcli.tfcode.keras.training import trained_note as note

    return note(it, obj, node)


def train_on_batch(it: Interpreter, obj: Instance, bound: dict, node):
    """model.train_on_batch(x, y=None, sample_weight=None) with the class's train_step: Keras
    passes (x, y, sample_weight), None where not given."""
    _compiled(it, obj, node)
    if bound.get("class_weight") is not None:
        it.refuse(node, "model.train_on_batch(..., class_weight=...) with a custom train_step")
    data = tuple(_rows(it, bound.get(k), None, node)[0] for k in ("x", "y", "sample_weight"))
    run_step(it, obj, "train_step", data, node, trained_note(it, obj, node))
    mark_trained(it, obj, node)
    return MetricValue(node.lineno, "the logs of train_on_batch with the class's own train_step")


def evaluate(it: Interpreter, obj: Instance, bound: dict, node):
    """model.evaluate(...) of a model whose class defines test_step: the step on the first
    batch (a later batch's gradient calls would repeat it); the result is opaque."""
    from gradcli.tfcode.dataset_iteration import first_element, is_dataset
    from gradcli.tfcode.keras import batches

    _compiled(it, obj, node)
    if is_dataset(bound.get("x")):
        data = first_element(it, bound["x"], node)
    else:
        size = batches.batch_size(it, bound.get("batch_size"), bound.get("steps"),
                                  _rows(it, bound.get("x"), None, node)[1], node)  # fmt: skip
        x, y, sw = (_rows(it, bound.get(k), size, node)[0] for k in ("x", "y", "sample_weight"))
        data = x if y is None else (x, y) if sw is None else (x, y, sw)
    if data is not None:
        run_step(it, obj, "test_step", data, node, [])
    return MetricValue(node.lineno, "the logs of evaluate with the class's own test_step")


def test_on_batch(it: Interpreter, obj: Instance, bound: dict, node):
    """model.test_on_batch(x, y=None, sample_weight=None) with the class's test_step."""
    _compiled(it, obj, node)
    data = tuple(_rows(it, bound.get(k), None, node)[0] for k in ("x", "y", "sample_weight"))
    run_step(it, obj, "test_step", data, node, [])
    return MetricValue(node.lineno, "the logs of test_on_batch with the class's own test_step")


def run_step(it: Interpreter, obj: Instance, name: str, data, node, notes: list):
    """Call the class's train_step (test_step) on one batch as Keras does: traced by
    tf.function unless compile(run_eagerly=True); the gradient calls it makes are listed."""
    from gradcli.tfcode.functions import Trace

    compiled = _compiled(it, obj, node)
    member, owner = obj.cls.lookup(name)
    before = len(it.calls)
    traced = not compiled.get("eager", False)
    # Keras keeps the traced step: a later call with the same data signature runs the graph,
    # so no gradient call of the step is made again in Python (none is listed)
    key = (name, it.signature([data]))
    again = traced and key in obj.data.setdefault("traced_steps", set())
    if traced:
        obj.data["traced_steps"].add(key)
        step = SimpleNamespace(name=name, pos=member.pos)
        inputs = {v.id for v in _flatten([data]) if isinstance(v, Tensor)}
        it.tracing.append(Trace(step, len(it.g), inputs))
    it.silent += again
    try:
        return call_member(it, obj, member, owner, [data], {}, node)
    finally:
        it.silent -= again
        if traced:
            it.tracing.pop()
        where = f"model.{node.func.attr}" if hasattr(node.func, "attr") else "fit"
        later = " (later steps are not listed)" if where.endswith("fit") else ""
        for call in it.calls[before:]:
            call.notes.insert(0, f"made by the class's own {name} (line {member.pos.line}), "
                              f"which Keras's {where} at line {node.lineno} runs on the first "
                              f"batch{later}")  # fmt: skip
            call.notes += notes


# --- Model members a custom step uses ----------------------------------------------------------
def compute_loss(it: Interpreter, obj: Instance, args, kwargs, node):
    """Model.compute_loss(x=None, y=None, y_pred=None, sample_weight=None, training=True): the
    compiled loss (training.compiled_loss: per output, cast to float32, times loss_weights)
    plus `self.losses`, as ops.sum([compiled, *losses])."""
    from gradcli.tfcode.keras.compiling import compiled_loss
    from gradcli.tfcode.keras.library import _to_dtype

    names = ("x", "y", "y_pred", "sample_weight", "training")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            message = f"Trainer.compute_loss() got an unexpected keyword argument '{k}'"
            raise Raises("TypeError", message, it.pos(node))
        bound[k] = v
    compiled = obj.data.get("compiled") or {}  # not compiled: Keras's "No loss to compute."
    parts = []
    if compiled.get("loss") is not None:
        y, y_pred, sw = (bound.get(k) for k in ("y", "y_pred", "sample_weight"))
        parts.append(compiled_loss(it, obj, compiled, y, y_pred, sw, node))
    extra = get_attribute(it, node, obj, "losses")  # regularizers, add_loss
    parts += [_to_dtype(it, v, "float32", node) for v in (extra or [])]
    if not parts:
        raise Raises("ValueError", NO_LOSS, it.pos(node))
    if len(parts) == 1:
        return parts[0]
    stacked = it.call_api("tf.stack", [parts], {}, node, None)
    return it.op_call("sum", [stacked], {}, node)


def user_compute_loss(it: Interpreter, obj: Instance, x, y, y_pred, sw, node, training):
    """Keras's default train/test step with the class's own compute_loss: called as
    compute_loss(x, y, y_pred, sample_weight, training=training), without training= when
    its signature has no such parameter (Keras 3 checks the signature)."""
    member, owner = obj.cls.lookup("compute_loss")
    params = [a.arg for a in (*member.args.args, *member.args.kwonlyargs)]
    kwargs = {"training": training} if "training" in params or member.args.kwarg else {}
    return call_member(it, obj, member, owner, [x, y, y_pred, sw], kwargs, node)


def _compiled_loss(it: Interpreter, obj: Instance, args, kwargs, node):
    """Keras 3's deprecated model.compiled_loss(y, y_pred, sample_weight=None,
    regularization_losses=None): compute_loss(y=, y_pred=, sample_weight=); Keras warns
    (UserWarning) and ignores regularization_losses (compute_loss adds self.losses)."""
    names = ("y", "y_pred", "sample_weight", "regularization_losses")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    return compute_loss(
        it, obj, [], {k: bound.get(k) for k in ("y", "y_pred", "sample_weight")}, node
    )


COMPILED_METRICS = Class(
    "DeprecatedCompiledMetric", methods={"update_state": Builtin(_metric_none)}
)


def _compiled_metrics(it, obj, args, kwargs, node):
    return Instance(COMPILED_METRICS)


def _metrics(it: Interpreter, obj: Instance, args, kwargs, node):
    """Model.metrics: the loss tracker ('loss'), then 'compile_metrics' when compile had
    metrics (their values are opaque)."""
    from gradcli.tfcode.keras.callbacks import METRICS

    cache = obj.data.setdefault("metric_objects", {})
    compiled = obj.data.get("compiled") or {}
    wanted = ["loss"] + (["compile_metrics"] if compiled.get("metrics") else [])
    out = []
    for name in wanted:
        if name not in cache:
            mean = METRICS["Mean"]
            cache[name] = instantiate(it, mean, [], {"name": name}, node)
        out.append(cache[name])
    return out


def _metric_logs(it, obj, args, kwargs, node):
    """model.compute_metrics(x, y, y_pred, sample_weight) / get_metrics_result(): the
    metrics' results, which gradcli does not compute."""
    return MetricValue(node.lineno, "the metrics' results")


def _none(it, obj, args, kwargs, node):
    return None


def _default_step(name: str):
    def refuse(it, obj, args, kwargs, node):
        it.refuse(node, f"Keras's own Model.{name} called from the class (super().{name})",
                  "write the step with tf.GradientTape")  # fmt: skip

    return Builtin(refuse)


MODEL_METHODS = {
    "compute_loss": Builtin(compute_loss),
    "compiled_loss": Builtin(_compiled_loss),
    "compiled_metrics": Property(Builtin(_compiled_metrics)),
    "metrics": Property(Builtin(_metrics)),
    "reset_metrics": Builtin(_none),
    "compute_metrics": Builtin(_metric_logs),
    "get_metrics_result": Builtin(_metric_logs),
    "train_step": _default_step("train_step"),
    "test_step": _default_step("test_step"),
}


# --- Keras 3 optimizers ------------------------------------------------------------------------
NO_GRADIENTS = "No gradients provided for any variable."


def apply_gradients(it: Interpreter, obj: Instance, args, kwargs, node):
    """optimizer.apply_gradients(grads_and_vars): the update is not read (gradcli does not
    train); Keras 3 raises ValueError when every gradient is None (a warning when some are),
    and when there are no pairs at all."""
    pairs = args[0] if args else kwargs.get("grads_and_vars")
    if isinstance(pairs, (list, tuple)) and not pairs:  # zip([], []): no variables at all
        raise Raises(
            "ValueError", "not enough values to unpack (expected 2, got 0)", it.pos(node),
            "Keras 3 unpacks zip(*grads_and_vars): the list of variables is empty (a layer "
            "frozen with trainable=False lists no trainable_weights)",
        )  # fmt: skip
    none = all(isinstance(p, tuple) and len(p) == 2 and p[0] is None for p in pairs or [1])
    if isinstance(pairs, (list, tuple)) and none:
        hint = "every gradient is None: the gradient call's explanation names each one's cause"
        raise Raises("ValueError", NO_GRADIENTS, it.pos(node), hint)
    if not update(it, obj, pairs, node):  # an update gradcli does not compute
        mark_updated(it, pairs, node)
    return None


def mark_updated(it: Interpreter, pairs, node) -> None:
    """Remember the variables an optimizer updated in a way gradcli does not compute (a
    gradient given): later gradient calls are refused (calls.py)."""
    for pair in pairs if isinstance(pairs, (list, tuple)) else ():
        ok = isinstance(pair, tuple) and len(pair) == 2 and pair[0] is not None
        if ok and isinstance(pair[1], Variable):
            it.updated.setdefault(pair[1].value, node.lineno)


def mark_trained(it: Interpreter, obj: Instance, node) -> None:
    """Keras trained the model's weights (fit, train_on_batch): they are stale to gradcli."""
    from gradcli.tfcode.keras.layers import all_variables

    obj.data.setdefault("trained", node.lineno)
    for var in all_variables(obj):
        if isinstance(var, Variable):
            it.updated.setdefault(var.value, node.lineno)


def apply(it: Interpreter, obj: Instance, args, kwargs, node):
    """Keras 3's optimizer.apply(grads, trainable_variables=None): as apply_gradients."""
    grads = args[0] if args else kwargs.get("grads")
    if isinstance(grads, (list, tuple)) and grads and all(g is None for g in grads):
        hint = "every gradient is None: the gradient call's explanation names each one's cause"
        raise Raises("ValueError", NO_GRADIENTS, it.pos(node), hint)
    variables = args[1] if len(args) > 1 else kwargs.get("trainable_variables")
    if isinstance(grads, (list, tuple)) and isinstance(variables, (list, tuple)):
        pairs = list(zip(grads, variables))
        if not update(it, obj, pairs, node):
            mark_updated(it, pairs, node)
    return None


OPTIMIZER_METHODS = {"apply_gradients": Builtin(apply_gradients), "apply": Builtin(apply)}


# --- keras.utils -------------------------------------------------------------------------------
def unpack_x_y_sample_weight(it: Interpreter, args, kwargs, node):
    """keras.utils.unpack_x_y_sample_weight(data): (x, y, sample_weight), None-padded."""
    data = args[0] if args else kwargs.get("data")
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) in (1, 2, 3):
        return (*data, *([None] * (3 - len(data))))
    it.refuse(node, f"unpacking data of {len(data)} parts", UNRECORDED)


def pack_x_y_sample_weight(it: Interpreter, args, kwargs, node):
    """keras.utils.pack_x_y_sample_weight(x, y=None, sample_weight=None)."""
    names = ("x", "y", "sample_weight")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    x, y, sw = (bound.get(k) for k in names)
    if y is None:
        return x if not isinstance(x, (tuple, list)) else (x,)
    return (x, y) if sw is None else (x, y, sw)


FUNCTIONS = {
    "utils.unpack_x_y_sample_weight": unpack_x_y_sample_weight,
    "utils.pack_x_y_sample_weight": pack_x_y_sample_weight,
}
