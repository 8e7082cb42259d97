"""Datasets meet Python and Keras: `for` loops, iter/next, enumerate/zip/list/len on a
dataset (pybuiltins.py and loops.py call these hooks), and `model.fit(dataset)`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gradcli.tfcode.datasets import INFINITE, Dataset, DatasetIterator
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import TF, Tensor


def first_element(it, ds: Dataset, node):
    """The first element as tensors (None when the dataset is empty)."""
    return next(iter(ds.tf_iterate(it, node, endless_ok=True)), None)


def is_dataset(value) -> bool:
    return isinstance(value, Dataset)


# --- Python's iteration builtins on datasets -----------------------------------------------------
@dataclass(eq=False)
class Stream:
    """enumerate(ds) or zip(ds, ...): lazy, so that a loop over an infinite dataset can break."""

    items: Iterator
    infinite: bool
    endless: int | None

    def tf_iterate(self, it, node, endless_ok: bool = False, kind: str = TF):
        if self.infinite and not endless_ok:
            it.refuse(
                node,
                f"iterating over an infinite dataset (repeat() without a count, line "
                f"{self.endless})",
                "TensorFlow never ends this loop: add .take(n), give repeat a count, or break",
            )
        return self.items


def iterable(value) -> bool:
    """True for the values only these hooks iterate (datasets, their iterators, streams)."""
    return hasattr(value, "tf_iterate")


def _endless(value) -> tuple[bool, int | None]:
    if isinstance(value, Dataset):
        return value.card == INFINITE, value.endless
    if isinstance(value, Stream):
        return value.infinite, value.endless
    if isinstance(value, DatasetIterator):
        return value.infinite, None
    return False, None


def lazy_builtin(it, name: str, args, kwargs, node):
    """enumerate(ds, start=0) or zip(ds, other, ...), items made as the loop asks."""
    sources = args[:1] if name == "enumerate" else args  # enumerate's second is its start
    parts = [
        a.tf_iterate(it, node, endless_ok=True) if iterable(a) else iter(it.iterate(a, node))
        for a in sources
    ]
    flags = [_endless(a) for a in sources]
    endless = next((line for _, line in flags if line is not None), None)
    if name == "enumerate":
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        return Stream(enumerate(parts[0], start), flags[0][0], endless)
    return Stream(zip(*parts), all(f for f, _ in flags), endless)


def iter_builtin(it, args, kwargs, node):
    """iter(ds): an iterator over its elements; iter of a list or tuple, over its items."""
    value = args[0] if args else None
    if isinstance(value, DatasetIterator):
        return value
    if iterable(value):
        return DatasetIterator(value.tf_iterate(it, node, endless_ok=True), _endless(value)[0])
    return DatasetIterator(iter(it.iterate(value, node)), False)


def next_builtin(it, args, kwargs, node):
    """next(iterator[, default])."""
    value = args[0] if args else None
    if not isinstance(value, DatasetIterator):
        what = f"'{value.kind}' object" if isinstance(value, Dataset) else _describe(value)
        raise Raises("TypeError", f"{what} is not an iterator", it.pos(node))
    return value.tf_next(it, node, list(args[1:2]))


# --- model.fit(dataset) (keras/training.py's hook) ------------------------------------------------
def fit_batch(it, bound: dict, node):
    """model.fit(ds, epochs=, steps_per_epoch=, validation_data=): the first element of the
    dataset is the first train step's (x, y[, sample_weight]) as Keras 3 unpacks it; None
    when no step runs."""
    ds = bound["x"]
    pos = it.pos(node)
    if bound.get("y") is not None:
        raise Raises(
            "ValueError",
            "When providing `x` as a tf.data.Dataset, `y` should not be passed. Instead, the "
            "targets should be included as part of the tf.data.Dataset.",
            pos,
        )
    if bound.get("sample_weight") is not None:
        raise Raises(
            "ValueError",
            "When providing `x` as a tf.data.Dataset, `sample_weights` should not be passed. "
            "Instead, the sample weights should be included as part of the tf.data.Dataset.",
            pos,
        )
    if bound.get("class_weight") is not None:
        it.refuse(node, "model.fit(dataset, class_weight=...)")
    if bound.get("validation_split"):
        it.refuse(node, "model.fit(dataset, validation_split=...)", UNRECORDED)
    if ds.card == INFINITE and bound.get("steps_per_epoch") is None:
        it.refuse(
            node,
            f"model.fit on an infinite dataset (repeat() without a count, line {ds.endless}) "
            "without steps_per_epoch",
            "Keras never ends the epoch: give steps_per_epoch",
        )
    epochs, first = bound.get("epochs", 1), bound.get("initial_epoch", 0)
    if isinstance(epochs, int) and isinstance(first, int) and epochs <= first:
        return None
    element = first_element(it, ds, node)
    if element is None:  # Keras warns that the input ran out of data: no step, no call
        return None
    if not isinstance(element, tuple) or len(element) == 1:
        raise Raises("ValueError", "None values not supported.", pos, "the dataset has no y")
    if len(element) not in (2, 3):
        it.refuse(node, f"model.fit on a dataset of {len(element)}-tuples")
    if not all(isinstance(v, Tensor) for v in element):
        it.refuse(node, "model.fit on a dataset whose x or y is a tuple or dict")
    return element
