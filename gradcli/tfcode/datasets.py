"""tf.data datasets, read statically: a Dataset is the sequence of its elements' values.

TensorFlow 2.21 semantics the reader keeps (verified with tools/tf_code_reference.py):
- elements are new eager tensors at each iteration: no gradient flows back through a dataset
  into what it was made from, nor through a `map` function (tf.data runs it in its own graph,
  which no tape records); they are fresh constants here.
- `from_tensor_slices` slices tuples and dicts component-wise; a list is ONE tensor (stacked),
  converted as tf.convert_to_tensor does (NumPy float64 stays float64, Python floats are
  float32, Python ints int32); all components need the same first dimension.
- `map(fn)` and `filter(pred)` trace fn like a tf.function (its tensors are symbolic: `.numpy()`
  or `np.*` on them is TensorFlow's error at map's line); a tuple element is passed as
  separate arguments, anything else as one; a list result becomes a tuple, Python numbers
  tensors.
- `shuffle` keeps the order here (TensorFlow's is random): values differ, None-ness and
  causes do not; each element made from a shuffled dataset notes it.
- cardinality: a count, INFINITE (-1, `repeat()`) or UNKNOWN (-2, after filter/unbatch).
  Iterating an infinite dataset with no `break` in the loop is refused at the loop (it never
  ends); with one, the loop runs as Python runs it, bounded like every loop.
Elements are computed lazily, only as far as the program iterates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import MAX_RANGE, Raises, Refused, _describe, _is_python
from gradcli.tfcode.values import TF, Method, Module, Opaque, Tensor, Unknown, Variable

INFINITE, UNKNOWN = -1, -2
CONSTANTS = {"tf.data.AUTOTUNE": -1, "tf.data.experimental.AUTOTUNE": -1,
             "tf.data.INFINITE_CARDINALITY": INFINITE,
             "tf.data.experimental.INFINITE_CARDINALITY": INFINITE,
             "tf.data.UNKNOWN_CARDINALITY": UNKNOWN,
             "tf.data.experimental.UNKNOWN_CARDINALITY": UNKNOWN}  # fmt: skip
ORIGIN_NOTE = (
    "the elements of a tf.data dataset made from {what} are new tensors: TensorFlow passes no "
    "gradient back through a dataset (None for {them}); compute from {them} inside the tape"
)
SHUFFLE_NOTE = (
    "the dataset is shuffled (line {line}): TensorFlow's element order is random, gradcli "
    "keeps the order; the gradients' values differ, their None-ness and causes do not"
)


@dataclass(eq=False)
class Dataset:
    """A tf.data.Dataset: a fresh iterator of its elements (tuples/dicts of NumPy arrays)."""

    source: Callable[[], Iterator]
    card: int  # a count, INFINITE or UNKNOWN
    kind: str = "_TensorSliceDataset"  # TensorFlow's class name, for its messages
    shuffled: int | None = None  # the line of a shuffle() upstream
    endless: int | None = None  # the line of the repeat() that makes it infinite
    spec: object = None  # element_spec: a nest of TensorSpecs (None: the first element's)
    origins: tuple = ()  # (Variable, how, Pos, graph size) its values came from (read_by)

    # the interpreter's protocol for objects of its own (see expressions.attribute)
    def tf_attribute(self, it, node, name: str):
        from gradcli.tfcode.dataset_methods import METHODS

        if name in METHODS:
            return Method(self, name)
        if name == "element_spec":
            return element_spec(it, self, node)
        it.refuse(node, f"Dataset.{name}")

    def tf_method(self, it, name: str, args, kwargs, node):
        from gradcli.tfcode.dataset_methods import METHODS

        return METHODS[name](it, self, args, kwargs, node)

    def tf_iterate(self, it, node, endless_ok: bool = False, kind: str = TF):
        """Its elements as tensors, lazily; an infinite dataset only where the loop breaks."""
        if self.card == INFINITE and not endless_ok:
            it.refuse(
                node,
                f"iterating over an infinite dataset (repeat() without a count, line "
                f"{self.endless})",
                "TensorFlow never ends this loop: add .take(n), give repeat a count, or break",
            )
        return _tensors_of(it, self, self.source(), node, kind)

    def tf_len(self, it, node) -> int:
        if self.card == INFINITE:
            raise Raises("TypeError", "The dataset is infinite.", it.pos(node))
        if self.card == UNKNOWN:
            raise Raises("TypeError", "The dataset length is unknown.", it.pos(node))
        return self.card


@dataclass(frozen=True)
class TensorSpec:
    """tf.TensorSpec in an element_spec: a static shape (None: any size) and a dtype."""

    shape: tuple
    dtype: str

    def tf_attribute(self, it, node, name: str):
        from gradcli.tfcode.values import DType

        if name in ("shape", "dtype"):
            return self.shape if name == "shape" else DType(self.dtype)
        it.refuse(node, f"TensorSpec.{name}")


def spec_of(element, batched: bool = False):
    """The TensorSpecs of an element's arrays (its first axis unknown when batched)."""
    return _smap(element, lambda a: TensorSpec((None, *a.shape[1:]) if batched and a.ndim
                                               else tuple(a.shape), str(a.dtype)))  # fmt: skip


def element_spec(it, ds: Dataset, node):
    """ds.element_spec: tracked through slicing, batching and unbatching; after map, the
    first element's result (its first axis unknown when the input's was)."""
    if ds.spec is not None:
        return ds.spec
    first = next(iter(ds.source()), None) if ds.card != 0 else None
    if first is None:
        it.refuse(node, "the element_spec of an empty mapped dataset")
    return spec_of(first)


@dataclass(eq=False)
class DatasetIterator:
    """iter(ds) or ds.as_numpy_iterator(): where iteration has got to."""

    items: Iterator
    infinite: bool

    def tf_attribute(self, it, node, name: str):
        if name in ("next", "get_next"):
            return Method(self, name)
        it.refuse(node, f"the iterator's .{name}")

    def tf_method(self, it, name: str, args, kwargs, node):
        return self.tf_next(it, node, args)

    def tf_iterate(self, it, node, endless_ok: bool = False, kind: str = TF):
        if self.infinite and not endless_ok:
            it.refuse(node, "iterating over an infinite dataset's iterator", "break, or take(n)")
        return self.items

    def tf_next(self, it, node, default: list):
        try:
            return next(self.items)
        except StopIteration:
            if default:
                return default[0]
            raise Raises("StopIteration", "", it.pos(node)) from None


def _tensors_of(it, ds: Dataset, elements: Iterator, node, kind: str):
    """Each element's arrays as new tensors (a shuffled dataset's noted), at most MAX_RANGE."""
    for count, element in enumerate(elements):
        if count >= MAX_RANGE:
            it.refuse(node, f"a loop over more than {MAX_RANGE:,} dataset elements")
        yield _smap(element, lambda a: _tensor(it, ds, a, node, kind))


def _tensor(it, ds: Dataset, arr: np.ndarray, node, kind: str) -> Tensor:
    """A new tensor of an element's value, with notes (identity nodes) for the gradient calls
    using it when the dataset is shuffled or made from variables."""
    out = it.leaf(arr, node, kind)
    if kind != TF:
        return out
    notes = []
    if ds.shuffled is not None:
        notes.append(SHUFFLE_NOTE.format(line=ds.shuffled))
    if ds.origins:  # the variables it read: where no_path names them (unused_sources.py)
        variables = list(dict.fromkeys(o[0] for o in ds.origins))
        it.reads_from[out.id] = tuple(v.value for v in variables)
        it.read_at[out.id] = {o[0].value: o for o in reversed(ds.origins)}  # first wins
        names = [f"{v.label} (line {v.pos.line})" for v in variables]
        them = ", ".join(v.label for v in variables)
        what = ", ".join(names)
        notes.append(ORIGIN_NOTE.format(what=what, them=them))
    for note in notes:
        out = Tensor(it.emit("identity", [out.id], {}, node, record=False), TF)
        it.notes[out.id] = (None, note)
    return out


# --- element structures: tuples and dicts of arrays ----------------------------------------------
def _smap(structure, fn):
    if isinstance(structure, tuple):
        return tuple(_smap(v, fn) for v in structure)
    if isinstance(structure, dict):
        return {k: _smap(v, fn) for k, v in structure.items()}
    return fn(structure)


def _leaves(structure) -> list:
    if isinstance(structure, tuple):
        return [x for v in structure for x in _leaves(v)]
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in _leaves(structure[k])]
    return [structure]


def _rebuild(structure, flat: Iterator):
    if isinstance(structure, tuple):
        return tuple(_rebuild(v, flat) for v in structure)
    if isinstance(structure, dict):
        return {k: _rebuild(structure[k], flat) for k in sorted(structure)}
    return next(flat)


def _components(it, value, node, origins: list | None = None):
    """A nest of tensors as TensorFlow's dataset converts it: tuples and dicts are
    structure, anything else (a list included) one tensor; the variables among them are
    added to origins."""
    if isinstance(value, Opaque):
        it.refuse(
            node,
            f"a dataset of {value.what} (line {value.line})",
            "gradcli does not read it, so it cannot know the elements",
        )
    if isinstance(value, Unknown):
        raise Refused()
    if isinstance(value, tuple):
        if not value:
            it.refuse(node, "a dataset of an empty tuple")
        return tuple(_components(it, v, node, origins) for v in value)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            it.refuse(node, "a dataset of a dict whose keys are not strings")
        return {k: _components(it, v, node, origins) for k, v in value.items()}
    if isinstance(value, (Tensor, Variable)):
        if origins is not None:
            origins.extend(origin_of(value))
        return np.asarray(it.value(it.tensor_id(value, read=False)))
    if isinstance(value, list) and any(isinstance(v, (Tensor, Variable)) for v in _flat(value)):
        return it.python_array(value, node)  # tensors stacked: their own dtype
    if isinstance(value, (str, type(None))) or not (_is_python(value) or hasattr(value, "dtype")):
        it.refuse(node, f"a dataset of {_describe(value)}", "give tensors, arrays or numbers")
    return it.as_array(value, node)


SLICED, MAPPED = "sliced", "mapped"  # how a dataset read a variable: its values, or in map


def read_by(it, variables, how: str, node) -> tuple:
    """Origins: each variable read by a dataset made at node (its line, the graph's size)."""
    at, size = it.pos(node), len(it.g)
    return tuple(dict.fromkeys((v, how, at, size) for v in variables))


def origin_of(value) -> list:
    """[the variable] for a variable (its values cannot pass a gradient back), else []."""
    if isinstance(value, Variable):
        return [value]
    return []


def _flat(value) -> list:
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        else:
            out.append(v)
    return out


def _int(it, value, node, what: str, minimum: int | None = None) -> int:
    """An integer argument (a Python int, an integer tensor or tf.data.AUTOTUNE)."""
    if isinstance(value, Module) and value.path in CONSTANTS:
        return CONSTANTS[value.path]
    if isinstance(value, Unknown):
        raise Refused()
    if isinstance(value, (Tensor, Variable)):
        arr = it.value(it.tensor_id(value, read=False))
        if arr.dtype.kind in "iu" and arr.size == 1:
            value = int(arr.reshape(()))
    if not isinstance(value, int) or isinstance(value, bool):
        it.refuse(node, f"{what}={_describe(value)}", "give a Python integer")
    if minimum is not None and value < minimum:
        it.refuse(node, f"{what}={value}")
    return value


def _bind(it, params: tuple, args, kwargs, node, what: str) -> dict:
    if len(args) > len(params):
        it.refuse(node, f"{what}() with {len(args)} positional arguments", UNRECORDED)
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"{what}(..., {k}=...)")
        bound[k] = v
    return bound


# --- constructors ---------------------------------------------------------------------------------
def from_tensor_slices(it, args, kwargs, node):
    """tf.data.Dataset.from_tensor_slices(tensors, name=None)."""
    bound = _bind(it, ("tensors", "name"), args, kwargs, node, "from_tensor_slices")
    origins: list = []
    structure = _components(it, bound.get("tensors"), node, origins)
    leaves = _leaves(structure)
    if any(a.ndim == 0 for a in leaves):
        raise Raises(
            "ValueError", "Unbatching a tensor is only supported for rank >= 1", it.pos(node)
        )
    n = leaves[0].shape[0]
    for a in leaves[1:]:
        if a.shape[0] != n:
            message = f"Dimensions {n} and {a.shape[0]} are not compatible"
            raise Raises("ValueError", message, it.pos(node))

    def source():
        return (_smap(structure, lambda a, k=k: a[k]) for k in range(n))

    spec = _smap(structure, lambda a: TensorSpec(a.shape[1:], str(a.dtype)))
    return Dataset(source, n, spec=spec, origins=read_by(it, origins, SLICED, node))


def from_tensors(it, args, kwargs, node):
    """tf.data.Dataset.from_tensors(tensors, name=None): one element."""
    bound = _bind(it, ("tensors", "name"), args, kwargs, node, "from_tensors")
    origins: list = []
    structure = _components(it, bound.get("tensors"), node, origins)
    out = Dataset(lambda: iter([structure]), 1, "_TensorDataset", spec=spec_of(structure))
    out.origins = read_by(it, origins, SLICED, node)
    return out


def range_(it, args, kwargs, node):
    """tf.data.Dataset.range(*args, output_type=tf.int64, name=None)."""
    from gradcli.tfcode.builtins import _dtype_arg

    for k in kwargs:
        if k not in ("output_type", "name"):
            it.refuse(node, f"tf.data.Dataset.range(..., {k}=...)")
    dtype = _dtype_arg(it, kwargs.get("output_type"), node) or "int64"
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            message = f"Cannot convert {a!r} to EagerTensor of dtype int64"
            raise Raises("TypeError", message, it.pos(node))
    if not 1 <= len(args) <= 3:
        it.refuse(node, f"tf.data.Dataset.range with {len(args)} arguments")
    values = range(*args)
    out = Dataset(lambda: (np.array(v, dtype=dtype) for v in values), len(values), "_RangeDataset")
    out.spec = TensorSpec((), dtype)
    return out


def zip_(it, args, kwargs, node):
    """tf.data.Dataset.zip(*args, datasets=None, name=None): a nest of datasets, or several."""
    nest = kwargs.get("datasets", args[0] if len(args) == 1 else tuple(args))
    flat = _leaves(nest) if isinstance(nest, (tuple, dict)) else [nest]
    if not flat or not all(isinstance(d, Dataset) for d in flat):
        it.refuse(node, "tf.data.Dataset.zip of something other than datasets")
    cards = [d.card for d in flat]
    if UNKNOWN in cards:
        card = UNKNOWN
    else:
        finite = [c for c in cards if c != INFINITE]
        card = min(finite) if finite else INFINITE

    def source():
        iters = [d.source() for d in flat]
        for parts in zip(*iters):
            yield _rebuild(nest, iter(parts)) if isinstance(nest, (tuple, dict)) else parts[0]

    shuffled = next((d.shuffled for d in flat if d.shuffled is not None), None)
    endless = next((d.endless for d in flat if d.endless is not None), None)
    specs = [d.spec for d in flat]
    spec = None
    if all(sp is not None for sp in specs):
        spec = _rebuild(nest, iter(specs)) if isinstance(nest, (tuple, dict)) else specs[0]
    origins = tuple(dict.fromkeys(o for d in flat for o in d.origins))
    return Dataset(source, card, "_ZipDataset", shuffled, endless, spec, origins)


def cardinality(it, args, kwargs, node):
    """tf.data.experimental.cardinality(dataset)."""
    ds = args[0] if args else kwargs.get("dataset")
    if not isinstance(ds, Dataset):
        it.refuse(node, f"cardinality of {_describe(ds)}")
    return it.leaf(np.array(ds.card, dtype="int64"), node)


SPECIAL = {
    "tf.data.Dataset.from_tensor_slices": from_tensor_slices,
    "tf.data.Dataset.from_tensors": from_tensors,
    "tf.data.Dataset.range": range_,
    "tf.data.Dataset.zip": zip_,
    "tf.data.experimental.cardinality": cardinality,
    "tf.data.experimental.get_single_element": lambda it, a, k, n: _single(it, a, k, n),
}


def _single(it, args, kwargs, node):
    import gradcli.tfcode.dataset_methods  # noqa: F401 (first: dataset_extra builds on it)
    from gradcli.tfcode.dataset_extra import single_element

    return single_element(it, args, kwargs, node)
