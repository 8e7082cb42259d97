"""Keras's inference APIs and the model methods around training: `predict` and
`predict_on_batch` (the forward pass with training=False, returned as NumPy), `evaluate`
and `test_on_batch` (the compiled loss with training=False, returned as Python floats),
what `train_on_batch` returns, and `summary`/`save`/`load_weights`/`metrics_names`/...

Keras 3.15.1 on TensorFlow 2.21 (verified with tools/tf_code_reference.py):
- predict runs the model in its own tf.function, batch by batch (32 by default), and
  returns NumPy arrays (a list of them for several outputs): under a GradientTape the
  result has left TensorFlow, so a loss computed from it has no gradient (every variable
  None, cause leaves_tape at the predict line); `model(x, training=False)` keeps it.
- evaluate/test_on_batch/train_on_batch return Keras's logs: the loss tracker's mean over
  the batches, weighted by their sizes, in float32 (total += loss * n_batch; result =
  total / n), as a Python float; with compiled metrics, a list [loss, *metrics] ordered
  'loss', the compiled metrics, each output's loss, then the other names sorted
  (return_dict=True: a dict with the names sorted). gradcli computes the loss exactly;
  metrics and per-output losses are opaque (Keras computes them, gradcli does not).
- summary, save, save_weights, export: read and ignored (they print or write files);
  load_weights: the weights then come from a file gradcli does not read, so everything
  the model computes afterwards is opaque (unknown beyond that line).
"""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING

from gradcli.tfcode.keras import batches, train_steps
from gradcli.tfcode.keras.callbacks import NOT_COMPUTED, Reported
from gradcli.tfcode.keras.compiling import _bind, _compiled, logged_names, output_names
from gradcli.tfcode.keras.objects import Builtin, Instance, Property
from gradcli.tfcode.keras.protocol import call_object
from gradcli.tfcode.keras.training import step_loss
from gradcli.tfcode.support import _kind
from gradcli.tfcode.values import PY, TF, Opaque, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

PREDICT_PARAMS = ("x", "batch_size", "verbose", "steps", "callbacks")
EVALUATE_PARAMS = ("x", "y", "batch_size", "verbose", "sample_weight", "steps", "callbacks",
                   "return_dict")  # fmt: skip
TEST_PARAMS = ("x", "y", "sample_weight", "return_dict")


def _leave(it: Interpreter, value, node, how: str, kind: str):
    """Every tensor of a result taken out of TensorFlow (leaves_tape at this line)."""
    if isinstance(value, (list, tuple)):
        items = [_leave(it, v, node, how, kind) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _leave(it, v, node, how, kind) for k, v in value.items()}
    if not isinstance(value, (Tensor, Variable)):
        return value
    out = it.leave(value, node, _code(node), how, "the model's result")
    return Tensor(out.id, kind)


def _code(node) -> str:
    import ast

    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _loaded(obj: Instance):
    """What the model computes is opaque: weights loaded from a file, or trained by Keras."""
    return obj.data.get("loaded")


def trained_result(obj: Instance, node, extra: str = "") -> Reported | None:
    """A result of the model after fit/train_on_batch updated its weights (None before)."""
    line = obj.data.get("trained")
    if line is None:
        return None
    why = (
        f"comes from the weights Keras trained at line {line}; gradcli does not train (it "
        f"reads the first step's gradient at the initial weights){extra}"
    )
    return Reported(node.lineno, _code(node), why)


def predict(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.predict(x, batch_size=None, verbose='auto', steps=None, callbacks=None)."""
    bound = _bind(it, PREDICT_PARAMS, args, kwargs, node, "model.predict")
    x = bound.get("x")
    if x is None:
        it.refuse(node, "model.predict without x")
    n = batches.count(it, x, node)
    size = batches.batch_size(it, bound.get("batch_size"), bound.get("steps"), n, node)
    stop = None if not bound.get("steps") else bound["steps"] * size
    if stop is not None and isinstance(n, int) and stop >= n:
        stop = None  # every row
    return _predict(it, obj, _inputs(it, x, stop, node), node)


def predict_on_batch(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.predict_on_batch(x): the whole batch."""
    bound = _bind(it, ("x",), args, kwargs, node, "model.predict_on_batch")
    return _predict(it, obj, _inputs(it, bound.get("x"), None, node), node)


def _inputs(it: Interpreter, x, stop, node):
    """predict's input rows: a whole tensor's values are read there (it leaves the tape at
    this line, so the diagnosis names it), else the rows as new constants."""
    if stop is None and isinstance(x, (Tensor, Variable)) and _kind(x) == TF:
        what = ast.unparse(node.args[0]) if node.args else "x"
        return it.leave(x, node, ast.unparse(node), "predict", what)
    return batches.rows(it, x, 0, stop, node)


PREDICT_NUMPY = (
    "; predict returns NumPy arrays, so no gradient could pass through it anyway "
    "(leaves_tape): call model(x, training=False) under the tape"
)


def _predict(it: Interpreter, obj: Instance, x, node):
    if _loaded(obj) is not None:
        return _loaded(obj)
    if trained_result(obj, node) is not None:
        return trained_result(obj, node, PREDICT_NUMPY)
    out = call_object(it, obj, [x], {"training": False}, node)
    return _leave(it, out, node, "predict", "np")


def evaluate(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.evaluate(x, y, batch_size=None, verbose='auto', sample_weight=None, steps=None,
    callbacks=None, return_dict=False): the compiled loss over every batch."""
    bound = _bind(it, EVALUATE_PARAMS, args, kwargs, node, "model.evaluate")
    if train_steps.defines(obj, "test_step"):  # the class's own step (train_steps.py)
        return train_steps.evaluate(it, obj, bound, node)
    _compiled(it, obj, node)
    x, y, sw = bound.get("x"), bound.get("y"), bound.get("sample_weight")
    if x is None or y is None:
        it.refuse(node, "model.evaluate without x and y arrays (a dataset)")
    n = batches.count(it, x, node)
    steps = bound.get("steps")
    size = batches.batch_size(it, bound.get("batch_size"), steps, n, node)
    count = math.ceil(n / size)
    if steps:
        count = min(count, steps)
    if _loaded(obj) is not None:
        return _loaded(obj)
    if trained_result(obj, node) is not None:
        return trained_result(obj, node)
    parts = []
    for k in range(count):
        data = [batches.rows(it, v, k * size, (k + 1) * size, node) for v in (x, y, sw)]
        loss = step_loss(it, obj, obj.data["compiled"], *data, node, training=False)
        parts.append((loss, batches.count(it, data[0], node)))
    return logs(it, obj, parts, bound.get("return_dict", False), node)


def test_on_batch(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.test_on_batch(x, y, sample_weight=None, return_dict=False)."""
    bound = _bind(it, TEST_PARAMS, args, kwargs, node, "model.test_on_batch")
    if train_steps.defines(obj, "test_step"):  # the class's own step (train_steps.py)
        return train_steps.test_on_batch(it, obj, bound, node)
    _compiled(it, obj, node)
    data = [batches.rows(it, bound.get(k), 0, None, node) for k in ("x", "y", "sample_weight")]
    if _loaded(obj) is not None:
        return _loaded(obj)
    if trained_result(obj, node) is not None:
        return trained_result(obj, node)
    loss = step_loss(it, obj, obj.data["compiled"], *data, node, training=False)
    n = batches.count(it, data[0], node)
    return logs(it, obj, [(loss, n)], bound.get("return_dict", False), node)


def logs(it: Interpreter, obj: Instance, parts: list, as_dict: bool, node):
    """Keras's logs after these (loss, batch size) steps: the loss tracker's float32 mean
    as a Python float, the rest opaque; a float, a list or a dict as Keras returns them."""
    total, seen = None, 0
    for loss, n in parts:  # Mean.update_state(loss, sample_weight=n): total += loss * n
        term = it.op_call("mul", [loss, float(n)], {}, node)
        total = term if total is None else it.op_call("add", [total, term], {}, node)
        seen += n
    mean = it.op_call("div_no_nan", [total, float(seen)], {}, node)
    loss = _leave(it, mean, node, "evaluate", PY)
    names = logged_names(it, obj, node)
    if names is None:
        return Reported(node.lineno, _code(node), "are logs of metrics Keras computes")
    values = {"loss": loss}
    for name in names[1:]:
        values[name] = Reported(node.lineno, f"{_code(node)}[{name!r}]", NOT_COMPUTED)
    if as_dict:
        return {k: values[k] for k in sorted(values)}
    compiled = obj.data["compiled"]
    metrics = [m for m in names[1:] if m not in compiled.get("output_losses", [])]
    multi = len(output_names(obj) or []) > 1
    order = ["loss"]
    if not multi:
        order += metrics
    order += compiled.get("output_losses", [])
    order += sorted(k for k in values if k not in order)
    if len(order) == 1:
        return loss
    return [values[k] for k in order]


# --- the model methods around training ---------------------------------------------------------
def _ignored(it, obj, args, kwargs, node):
    return None


def _load_weights(it: Interpreter, obj: Instance, args, kwargs, node):
    """model.load_weights(path): every result of the model is opaque from here on."""
    opaque = Opaque(node.lineno, _code(node))
    stack = [obj]
    while stack:
        layer = stack.pop()
        if _loaded(layer) is None:
            layer.data["loaded"] = opaque
            from gradcli.tfcode.keras.layers import sublayers

            stack.extend(sublayers(layer))
    return None


def _metrics_names(it: Interpreter, obj: Instance, args, kwargs, node):
    compiled = obj.data.get("compiled")
    if compiled is None:
        return []
    names = ["loss"]
    if compiled["metrics"] or compiled["weighted"]:
        names.append("compile_metrics")
    if compiled["built"]:
        names += compiled.get("output_losses") or []
    return names


def _optimizer(it, obj, args, kwargs, node):
    compiled = obj.data.get("compiled")
    if compiled is None:
        from gradcli.tfcode.support import Raises

        message = f"'{obj.cls.name}' object has no attribute 'optimizer'"
        raise Raises("AttributeError", message, it.pos(node))
    return compiled["optimizer"]


def _opaque_result(what: str):
    def get(it, obj, args, kwargs, node):
        return Reported(node.lineno, _code(node), what)

    return Builtin(get)


def _count_params(it: Interpreter, obj: Instance, args, kwargs, node):
    from gradcli.tfcode.keras.layers import all_variables

    total = 0
    for v in all_variables(obj, seeds=False):
        total += math.prod(it.g[v.value].shape)
    return total


MODEL_METHODS = {
    "predict": Builtin(predict),
    "predict_on_batch": Builtin(predict_on_batch),
    "evaluate": Builtin(evaluate),
    "test_on_batch": Builtin(test_on_batch),
    "summary": Builtin(_ignored),
    "save": Builtin(_ignored),
    "save_weights": Builtin(_ignored),
    "export": Builtin(_ignored),
    "load_weights": Builtin(_load_weights),
    "metrics_names": Property(Builtin(_metrics_names)),
    "optimizer": Property(Builtin(_optimizer)),
    "get_config": _opaque_result("is a configuration dict gradcli does not build"),
    "to_json": _opaque_result("is a JSON text gradcli does not build"),
    "count_params": Builtin(_count_params),
}
