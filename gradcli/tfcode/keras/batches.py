"""The data of Keras's training APIs: the first batch `(x, y, sample_weight)` that
`model.fit` trains on, and the batches `evaluate` and `predict` go through, from NumPy arrays,
tensors, Python lists and lists/tuples/dicts of them (multi-input and multi-output models).

Keras 3.15.1 on TensorFlow 2.21 (keras/src/trainers/data_adapters, verified with
tools/tf_code_reference.py):
- batch_size defaults to 32; without it, `steps_per_epoch=S` (fit) or `steps=S` (evaluate,
  predict) makes it ceil(n / S); an epoch has `steps_per_epoch` steps, else ceil(n / size).
- validation_split=f (fit, without validation_data) takes the LAST n - floor(n * (1 - f))
  samples as validation data before any shuffling: training batches come from the first
  floor(n * (1 - f)); Keras raises ValueError when either part would be empty.
- class_weight={class: weight} becomes per-sample weights from y, as
  data_adapter_utils.class_weight_to_sample_weights: one-hot (or probability) rows by
  argmax, a trailing axis of 1 squeezed, labels rounded to int32, a class absent from the
  dict weighs 1.0 (float32); class_weight with sample_weight, or with several outputs,
  raises ValueError.
- one sample_weight array for a multi-output model weighs every output's loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


@dataclass
class Batch:
    """One batch of fit's data, as leaf tensors in the structure the user gave."""

    x: object
    y: object
    sample_weight: object
    samples: int  # samples the epoch goes through (after validation_split)
    size: int  # the batch size
    steps: int  # the epoch's steps (history.params['steps'])
    notes: list = field(default_factory=list)


def leaves(value) -> list:
    """The arrays of a structure (lists, tuples, dicts in insertion order)."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, (list, tuple)) and v and not _is_plain_array(v):
            stack.extend(reversed(v))
        elif v is not None:
            out.append(v)
    return out


def _is_plain_array(v) -> bool:
    """A Python list of numbers (or of such lists): one array, not a structure of arrays."""
    first = v[0]
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    return isinstance(first, (int, float, bool))


def array(it: Interpreter, value, node) -> np.ndarray:
    """One array of the data, with a batch axis."""
    if isinstance(value, (Tensor, Variable)):
        arr = it.value(it.tensor_id(value, read=False))
    else:
        arr = it.as_array(value, node)
    if arr.ndim == 0:
        it.refuse(node, "Keras training data that is a scalar", "give arrays with a batch axis")
    return arr


def count(it: Interpreter, value, node) -> int:
    """The number of samples in a structure of arrays (its first array's)."""
    arrays = leaves(value)
    if not arrays:
        it.refuse(node, f"Keras training data {_describe(value)}", "give NumPy arrays or tensors")
    return int(array(it, arrays[0], node).shape[0])


def rows(it: Interpreter, value, start: int, stop: int | None, node):
    """Samples [start:stop] of every array of a structure, as new constant tensors."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: rows(it, v, start, stop, node) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and value and not _is_plain_array(value):
        items = [rows(it, v, start, stop, node) for v in value]
        return items if isinstance(value, list) else tuple(items)
    arr = array(it, value, node)
    return it.leaf(np.array(arr[start:stop]), node)


def class_weights(it: Interpreter, y, class_weight, node) -> np.ndarray:
    """Keras's class_weight_to_sample_weights: one float32 weight per sample of y."""
    if not isinstance(class_weight, dict):
        it.refuse(node, f"class_weight={_describe(class_weight)}", "give a dict {class: weight}")
    labels = array(it, y, node)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else labels[..., 0]
    labels = np.round(labels).astype("int32")
    weights = np.ones(labels.shape[0], dtype="float32")
    for i in range(labels.shape[0]):
        w = class_weight.get(int(labels[i]), 1.0)
        if isinstance(w, (Tensor, Variable)) or not isinstance(w, (int, float)):
            it.refuse(node, f"a class weight that is {_describe(w)}", "give Python numbers")
        weights[i] = w
    return weights


def _value_error(it: Interpreter, node, message: str):
    raise Raises("ValueError", message, it.pos(node))


def sample_weights(it: Interpreter, y, sample_weight, class_weight, node, on_batch=False):
    """fit's sample_weight (or class_weight turned into one), for the whole data
    (on_batch: train_on_batch's, whose error message differs)."""
    if class_weight is None:
        return sample_weight
    if sample_weight is not None and on_batch:
        _value_error(
            it,
            node,
            "Arguments `sample_weight` and `class_weight` cannot be specified at the same "
            f"time. Received: sample_weight={array(it, sample_weight, node)}, "
            f"class_weight={class_weight!r}",
        )
    if sample_weight is not None:
        _value_error(it, node, "You cannot `class_weight` and `sample_weight` at the same time.")
    if isinstance(y, dict) or (isinstance(y, (list, tuple)) and y and not _is_plain_array(y)):
        _value_error(it, node, "`class_weight` is only supported for Models with a single output.")
    return it.leaf(class_weights(it, y, class_weight, node), node)


def validation_split(it: Interpreter, data, fraction, node):
    """Keras's train_validation_split: (training part, validation part) of (x, y, sw)."""
    if not isinstance(fraction, (int, float)) or isinstance(fraction, bool):
        it.refuse(node, f"validation_split={_describe(fraction)}", "give a number")
    n = count(it, data[0], node)
    split_at = math.floor(n * (1.0 - fraction))
    if split_at in (0, n):
        _value_error(
            it,
            node,
            f"Training data contains {n} samples, which is not sufficient to split it into "
            "a validation and training set as specified by "
            f"`validation_split={fraction}`. Either provide more data, or a different value "
            "for the `validation_split` argument.",
        )
    train = tuple(rows(it, v, 0, split_at, node) for v in data)
    valid = tuple(rows(it, v, split_at, n, node) for v in data)
    return train, valid


def batch_size(it: Interpreter, given, steps, n: int, node) -> int:
    """The batch size Keras's array adapter uses."""
    if given:
        if not isinstance(given, int) or isinstance(given, bool) or given < 0:
            it.refuse(node, f"batch_size={_describe(given)}", "give a positive integer")
        return given
    if steps:
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            it.refuse(node, f"steps={_describe(steps)}", "give a positive integer")
        return math.ceil(n / steps)
    return 32


def first_batch(it: Interpreter, bound: dict, node, y_optional: bool = False) -> Batch:
    """fit's first training batch: after validation_split, class_weight, batch_size and
    steps_per_epoch, the first `size` samples (shuffle is noted by the caller); y may be
    None for a model compiled without a loss (it trains on model.losses)."""
    x, y = bound.get("x"), bound.get("y")
    if y is None and not y_optional:  # a dataset or generator gives (x, y, sample_weight)
        it.refuse(node, "model.fit without y (a dataset or generator)", "pass x and y arrays")
    sw = sample_weights(it, y, bound.get("sample_weight"), bound.get("class_weight"), node)
    notes: list[str] = []
    fraction = bound.get("validation_split") or 0.0
    if fraction and bound.get("validation_data") is None:
        (x, y, sw), _ = validation_split(it, (x, y, sw), fraction, node)
        notes.append(
            f"validation_split={fraction}: Keras keeps the last samples for validation and "
            f"trains on the first {count(it, x, node)}"
        )
    n = count(it, x, node)
    steps_per_epoch = bound.get("steps_per_epoch")
    size = batch_size(it, bound.get("batch_size"), steps_per_epoch, n, node)
    steps = steps_per_epoch or math.ceil(n / size)
    first = (rows(it, v, 0, size, node) for v in (x, y, sw))
    return Batch(*first, samples=n, size=size, steps=steps, notes=notes)
