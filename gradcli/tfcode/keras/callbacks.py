"""What Keras's training APIs report rather than differentiate: callbacks (read and
ignored), the History that `fit` returns, metric objects and names, and the values gradcli
does not compute (Keras's averaged losses and metrics), which are opaque.

Keras 3.15.1 on TensorFlow 2.21 (verified with tools/tf_code_reference.py):
- `fit` returns a History (the one in callbacks= if the user passed one, also kept as
  `model.history`): `history.epoch` is [initial_epoch, ..., epochs - 1] (fewer if a
  callback stopped training), `history.params` {'verbose': verbose as given ('auto' by
  default), 'epochs': epochs, 'steps': steps per epoch}, and `history.history` one list
  per logged name, keys sorted: 'loss', '<output>_loss' for each output of a multi-output
  model, each compiled metric's name (a string as written, an object's `name`, a
  function's __name__; a repeated name gets _1, _2 ...), then 'val_' + each of those when
  validating (only on the epochs validation_freq selects).
- callbacks act between steps, so the first step's gradient never depends on them; only
  EarlyStopping, TerminateOnNaN and user callbacks can stop training early, which makes
  `history.epoch` depend on the losses (opaque) unless EarlyStopping provably cannot fire
  before the last epoch.
- `metrics_names` is ['loss'], plus 'compile_metrics' when compile had metrics, plus each
  output's '<output>_loss' tracker once the model has trained or evaluated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.keras.objects import Builtin, Class, Instance, Property, snake_case
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Module, Opaque, PyFunction

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

NOT_TRAINED = (
    "is what Keras reports while training (losses and metrics averaged over the epoch's "
    "batches, with weight updates in between); gradcli reads only the first step's gradient "
    "and does not train"
)
NOT_COMPUTED = "is a metric Keras computes; gradcli computes only the compiled loss"


class Reported(Opaque):
    """A value Keras reports that gradcli does not compute: opaque, with the reason."""

    def __init__(self, line: int, what: str, why: str):
        super().__init__(line, what)
        self.why = why

    def attribute(self, name: str) -> Opaque:
        return Reported(self.line, f"{self.what}.{name}", self.why)

    def reason(self) -> str:
        return f"unknown beyond line {self.line}: {self.what} {self.why}"


# --- callbacks ---------------------------------------------------------------------------------
EARLY_STOPPING = ("monitor", "min_delta", "patience", "verbose", "mode", "baseline",
                  "restore_best_weights", "start_from_epoch")  # fmt: skip


def _callback_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """A callback's options, kept (EarlyStopping's decide whether training may stop)."""
    names = EARLY_STOPPING if obj.cls.name == "EarlyStopping" else ()
    options = dict(zip(names, args))
    options.update(kwargs)
    obj.data["options"] = options
    return None


def _ignored(it, obj, args, kwargs, node):
    return None


def _model(it, obj, args, kwargs, node):
    return obj.data.get("model")


CALLBACK = Class(
    "Callback",
    kind="callback",
    methods={
        "__init__": Builtin(_callback_init),
        "set_model": Builtin(_ignored),
        "set_params": Builtin(_ignored),
        "model": Property(Builtin(_model)),
    },
)
CALLBACK_NAMES = ("BackupAndRestore", "CSVLogger", "EarlyStopping", "LambdaCallback",
                  "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger",
                  "ReduceLROnPlateau", "RemoteMonitor", "SwapEMAWeights", "TensorBoard",
                  "TerminateOnNaN")  # fmt: skip
HISTORY = Class("History", (CALLBACK,), {})
CALLBACKS = {"Callback": CALLBACK, "History": HISTORY,
             **{n: Class(n, (CALLBACK,)) for n in CALLBACK_NAMES}}  # fmt: skip
# callbacks that may end training before `epochs` (BackupAndRestore may resume a run)
MAY_STOP = {"TerminateOnNaN", "LambdaCallback", "BackupAndRestore"}


def callback_list(it: Interpreter, callbacks, node) -> list[Instance]:
    """fit's callbacks= as a list of callback objects (anything else refused)."""
    if callbacks is None:
        return []
    if not isinstance(callbacks, (list, tuple)):
        it.refuse(node, f"callbacks={_describe(callbacks)}", "give a list of callbacks")
    for cb in callbacks:
        if not (isinstance(cb, Instance) and cb.cls.family() == "callback"):
            it.refuse(node, f"a callback that is {_describe(cb)}")
    return list(callbacks)


def _early_stop_epoch(cb: Instance, first: int, validating: bool) -> float:
    """The first epoch at which EarlyStopping could stop training (inf: never)."""
    o = cb.data.get("options", {})
    monitor = o.get("monitor", "val_loss")
    if isinstance(monitor, str) and monitor.startswith("val_") and not validating:
        return float("inf")  # Keras warns that the monitored value is missing; never stops
    patience, start = o.get("patience", 0), o.get("start_from_epoch", 0)
    if not isinstance(patience, int) or not isinstance(start, int):
        return first
    e0 = max(first, start)
    # the first monitored epoch is always an improvement (wait back to 0) unless a baseline
    # is set; each later epoch adds one to wait; it stops once wait >= patience (epoch > 0)
    earliest = e0 + max(patience, 1) if o.get("baseline") is None else e0 + max(patience - 1, 0)
    return max(earliest, 1)


def may_stop_before(callbacks: list[Instance], first: int, last: int, validating: bool) -> bool:
    """Whether a callback could end training before epoch `last` completes."""
    for cb in callbacks:
        if cb.cls.user or cb.cls.name in MAY_STOP:
            return True
        if cb.cls.name == "EarlyStopping" and _early_stop_epoch(cb, first, validating) < last:
            return True
    return False


# --- metrics -----------------------------------------------------------------------------------
def _metric_init(it: Interpreter, obj: Instance, args, kwargs, node):
    name = kwargs.get("name")
    special = {"LogCoshError": "logcosh", "FBetaScore": "fbeta_score"}
    obj.data["name"] = name if isinstance(name, str) else special.get(
        obj.cls.name, snake_case(obj.cls.name)
    )  # fmt: skip
    return None


def _metric_ignored(it, obj, args, kwargs, node):
    return None


def _metric_name(it, obj, args, kwargs, node):
    return obj.data["name"]


IGNORED = ("__call__", "update_state", "result", "reset_state", "reset_states")
METRIC = Class(
    "Metric",
    kind="metric",
    methods={
        "__init__": Builtin(_metric_init),
        "name": Property(Builtin(_metric_name)),
        # a metric never takes part in a gradient: its updates and result are ignored
        **{m: Builtin(_metric_ignored) for m in IGNORED},
    },
)
METRIC_NAMES = ("AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "BinaryIoU",
                "CategoricalAccuracy", "CategoricalCrossentropy", "CategoricalHinge",
                "ConcordanceCorrelation", "CosineSimilarity", "F1Score", "FBetaScore",
                "FalseNegatives", "FalsePositives", "Hinge", "IoU", "KLDivergence",
                "LogCoshError", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError",
                "MeanIoU", "MeanSquaredError", "MeanSquaredLogarithmicError", "OneHotIoU",
                "OneHotMeanIoU", "PearsonCorrelation", "Poisson", "Precision",
                "PrecisionAtRecall", "R2Score", "Recall", "RecallAtPrecision",
                "RootMeanSquaredError", "SensitivityAtSpecificity", "SparseCategoricalAccuracy",
                "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy",
                "SpecificityAtSensitivity", "SquaredHinge", "Sum", "TopKCategoricalAccuracy",
                "TrueNegatives", "TruePositives")  # fmt: skip
METRICS = {"Metric": METRIC, **{n: Class(n, (METRIC,)) for n in METRIC_NAMES}}


def metric_name(it: Interpreter, metric, node) -> str:
    """The name Keras logs a compiled metric under."""
    if isinstance(metric, str):
        return metric
    if isinstance(metric, Instance) and metric.cls.family() == "metric":
        return metric.data["name"]
    if isinstance(metric, Instance) and metric.cls.family() == "loss":
        return metric.data.get("name") or snake_case(metric.cls.name)
    if isinstance(metric, PyFunction):
        return metric.name
    if isinstance(metric, Module):
        return metric.path.rsplit(".", 1)[-1]
    it.refuse(node, f"a compiled metric that is {_describe(metric)}")


def metric_names(it: Interpreter, metrics, weighted, outputs: list | None, node):
    """The logged names of compile's metrics= and weighted_metrics= (None: not known)."""
    names: list[str] = []
    for given in (metrics, weighted):
        if given is None:
            continue
        if isinstance(given, dict):
            if outputs is None or not all(k in outputs for k in given):
                return None
            for out in outputs:
                items = given.get(out)
                items = [] if items is None else items
                items = items if isinstance(items, (list, tuple)) else [items]
                names += [f"{out}_{metric_name(it, m, node)}" for m in items]
        elif isinstance(given, (list, tuple)):
            if outputs is not None and len(outputs) > 1:
                return None  # Keras matches them to outputs in ways not read here
            names += [metric_name(it, m, node) for m in given]
        else:
            it.refuse(node, f"compile(metrics={_describe(given)})", "give a list or a dict")
    out: list[str] = []
    for name in names:  # a repeated name gets _1, _2 ...
        k, unique = 0, name
        while unique in out:
            k += 1
            unique = f"{name}_{k}"
        out.append(unique)
    return out


# --- History -----------------------------------------------------------------------------------
def make_history(it: Interpreter, model: Instance, given: Instance | None, info: dict, node):
    """The History fit returns, from what fit knows (info: epochs, first, verbose, steps,
    names, validating, freq, may_stop)."""
    hist = given if given is not None else Instance(HISTORY)
    line = node.lineno
    epochs, first = info["epochs"], info["first"]
    ran = list(range(first, epochs)) if isinstance(epochs, int) else None
    names = info["names"]
    if ran is not None and not info["may_stop"]:
        history: object = {}
        if ran:
            valid = [e for e in ran if _should_eval(e, info["freq"])] if info["validating"] else []
            for name in sorted(names):
                history[name] = [_reported(line, name, e) for e in ran]
            for name in sorted(names) if valid else []:
                history[f"val_{name}"] = [_reported(line, f"val_{name}", e) for e in valid]
        if names is None:
            history = Reported(line, "history.history", NOT_TRAINED)
        epoch: object = ran
    else:
        why = (
            "depends on the losses Keras computes while training (a callback may stop it "
            "early); gradcli does not train"
        )
        epoch = Reported(line, "history.epoch", why)
        history = Reported(line, "history.history", NOT_TRAINED)
    hist.attrs.update(
        history=history,
        epoch=epoch,
        params={"verbose": info["verbose"], "epochs": epochs, "steps": info["steps"]},
    )
    hist.data["model"] = model
    model.attrs["history"] = hist
    return hist


def _reported(line: int, name: str, epoch: int) -> Reported:
    return Reported(line, f"history.history[{name!r}][{epoch}]", NOT_TRAINED)


def _should_eval(epoch: int, freq) -> bool:
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    if isinstance(freq, (list, tuple)):
        return epoch + 1 in freq
    return True
