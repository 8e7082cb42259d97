"""tf.data.Dataset's methods (see datasets.py for the semantics kept): each returns a new
Dataset whose elements are computed lazily from its input's."""

from __future__ import annotations

import itertools

import numpy as np

from gradcli.tfcode.datasets import (
    INFINITE,
    MAPPED,
    UNKNOWN,
    Dataset,
    DatasetIterator,
    TensorSpec,
    _bind,
    _int,
    _leaves,
    _rebuild,
    _smap,
    _tensors_of,
    read_by,
    spec_of,
)
from gradcli.tfcode.drawn import note_draw
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import MAX_RANGE, Raises, Refused, _describe
from gradcli.tfcode.values import NP, Opaque, PyFunction, Tensor, Unknown, Variable

_SAME = object()
BATCH_SIZE_ERROR = (  # TensorFlow's words; its function name counts padded_batch's components
    "{{{{function_node __wrapped__{function}_device_/job:localhost/replica:0/task:0/device:"
    "CPU:0}}}} Batch size must be greater than zero. [Op:{op}] name: "
)


def batch_size(it, bound: dict, node, op: str, components: int | None = None) -> int:
    """The bound batch_size when positive, else TensorFlow's InvalidArgumentError from `op`."""
    size = _int(it, bound.get("batch_size"), node, "batch_size")
    if size <= 0:
        function = op if components is None else f"{op}_N_{components}_Toutput_types_{components}"
        message = BATCH_SIZE_ERROR.format(function=function, op=op)
        raise Raises("InvalidArgumentError", message, it.pos(node))
    return size


def _derive(ds: Dataset, source, card: int, kind: str, spec=_SAME) -> Dataset:
    """A dataset made from ds: its shuffle note kept, its endlessness as card says, its
    element_spec ds's unless given."""
    endless = ds.endless if card == INFINITE else None
    spec = ds.spec if spec is _SAME else spec
    return Dataset(source, card, kind, ds.shuffled, endless, spec, ds.origins)


def _respec(ds: Dataset, shape):
    """ds's element_spec with each TensorSpec's shape changed by shape(old shape)."""
    if ds.spec is None:
        return None
    return _smap(ds.spec, lambda sp: TensorSpec(tuple(shape(sp.shape)), sp.dtype))


def _batch(it, ds: Dataset, args, kwargs, node):
    """ds.batch(batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
    name=None): components stacked along a new first axis."""
    params = ("batch_size", "drop_remainder", "num_parallel_calls", "deterministic", "name")
    bound = _bind(it, params, args, kwargs, node, "batch")
    size = batch_size(it, bound, node, "BatchDatasetV2")
    drop = bound.get("drop_remainder", False)
    if not isinstance(drop, bool):
        it.refuse(node, f"drop_remainder={_describe(drop)}", "give True or False")
    card = batched_card(ds.card, size, drop)

    def source():
        for chunk in chunks(ds.source(), size, drop):
            yield _stack(it, chunk, node)

    spec = _respec(ds, lambda shape: (size if drop else None, *shape))
    return _derive(ds, source, card, "_BatchDataset", spec)


def _stack(it, chunk: list, node):
    columns = [_leaves(e) for e in chunk]
    out = []
    for c in range(len(columns[0])):
        first = columns[0][c].shape
        for col in columns:
            if col[c].shape != first:
                it.refuse(
                    node, f"batching elements of shapes {first} and {col[c].shape}", UNRECORDED
                )
        out.append(np.stack([col[c] for col in columns]))
    return _rebuild(chunk[0], iter(out))


def _unbatch(it, ds: Dataset, args, kwargs, node):
    """ds.unbatch(name=None): each element split along its first axis."""
    _bind(it, ("name",), args, kwargs, node, "unbatch")
    first = next(iter(ds.source()), None) if ds.card != 0 else None
    if first is not None and any(a.ndim == 0 for a in _leaves(first)):
        raise Raises("ValueError", "Cannot unbatch an input with scalar components.", it.pos(node))

    def source():
        for element in ds.source():
            leaves = _leaves(element)
            for k in range(leaves[0].shape[0]):
                yield _smap(element, lambda a, k=k: a[k])

    card = INFINITE if ds.card == INFINITE else UNKNOWN
    return _derive(ds, source, card, "_UnbatchDataset", _respec(ds, lambda shape: shape[1:]))


def _shuffle(it, ds: Dataset, args, kwargs, node):
    """ds.shuffle(buffer_size, seed=None, reshuffle_each_iteration=None, name=None): the order
    kept (TensorFlow's is random), noted on every element made from it."""
    params = ("buffer_size", "seed", "reshuffle_each_iteration", "name")
    bound = _bind(it, params, args, kwargs, node, "shuffle")
    if "buffer_size" not in bound:
        message = "DatasetV2.shuffle() missing 1 required positional argument: 'buffer_size'"
        raise Raises("TypeError", message, it.pos(node))
    size = _int(it, bound["buffer_size"], node, "buffer_size")
    out = _derive(ds, ds.source, ds.card, "_ShuffleDataset")
    if size != 1:  # a buffer of one keeps the order
        out.shuffled = node.lineno
        note_draw(it, node)  # TensorFlow's order is random: later numbers are not its own
    return out


def _repeat(it, ds: Dataset, args, kwargs, node):
    """ds.repeat(count=None, name=None): count None or -1 repeats forever."""
    bound = _bind(it, ("count", "name"), args, kwargs, node, "repeat")
    count = bound.get("count")
    count = -1 if count is None else _int(it, count, node, "count")
    if count < 0:
        card = 0 if ds.card == 0 else INFINITE
    else:
        card = ds.card * count if ds.card >= 0 else ds.card

    def source():
        done = 0
        while count < 0 or done < count:
            empty = True
            for element in ds.source():
                empty = False
                yield element
            if empty:
                return
            done += 1

    out = _derive(ds, source, card, "_RepeatDataset")
    if card == INFINITE and ds.card != INFINITE:
        out.endless = node.lineno
    return out


def _take(it, ds: Dataset, args, kwargs, node):
    """ds.take(count, name=None): the first count elements (-1: all)."""
    bound = _bind(it, ("count", "name"), args, kwargs, node, "take")
    count = _int(it, bound.get("count"), node, "count")
    if count < 0:
        card = ds.card
    elif ds.card == INFINITE:
        card = count
    else:
        card = ds.card if ds.card == UNKNOWN else min(count, ds.card)

    def source():
        return ds.source() if count < 0 else itertools.islice(ds.source(), count)

    return _derive(ds, source, card, "_TakeDataset")


def _skip(it, ds: Dataset, args, kwargs, node):
    """ds.skip(count, name=None): all but the first count elements (-1: none left)."""
    bound = _bind(it, ("count", "name"), args, kwargs, node, "skip")
    count = _int(it, bound.get("count"), node, "count")
    if ds.card == INFINITE and (count < 0 or count > MAX_RANGE):
        it.refuse(node, f"skip({count}) on an infinite dataset", "TensorFlow never ends it")
    if count < 0:
        return _derive(ds, lambda: iter(()), 0, "_SkipDataset")
    card = ds.card if ds.card < 0 else max(0, ds.card - count)
    return _derive(ds, lambda: itertools.islice(ds.source(), count, None), card, "_SkipDataset")


def _same(kind: str, params: tuple):
    def method(it, ds: Dataset, args, kwargs, node):
        _bind(it, params, args, kwargs, node, kind)
        return _derive(ds, ds.source, ds.card, f"_{kind.capitalize()}Dataset")

    return method


def _enumerate(it, ds: Dataset, args, kwargs, node):
    """ds.enumerate(start=0, name=None): (an int64 counter, the element)."""
    bound = _bind(it, ("start", "name"), args, kwargs, node, "enumerate")
    start = _int(it, bound.get("start", 0), node, "start")

    def source():
        for k, element in enumerate(ds.source(), start):
            yield (np.array(k, dtype="int64"), element)

    spec = None if ds.spec is None else (TensorSpec((), "int64"), ds.spec)
    return _derive(ds, source, ds.card, "_EnumerateDataset", spec)


def _concatenate(it, ds: Dataset, args, kwargs, node):
    """ds.concatenate(dataset, name=None)."""
    other = _bind(it, ("dataset", "name"), args, kwargs, node, "concatenate").get("dataset")
    if not isinstance(other, Dataset):
        it.refuse(node, f"concatenate with {_describe(other)}")
    cards = (ds.card, other.card)
    card = INFINITE if INFINITE in cards else (UNKNOWN if UNKNOWN in cards else sum(cards))
    spec = ds.spec if ds.spec == other.spec else None  # differing shapes: the first element's
    chain = lambda: itertools.chain(ds.source(), other.source())  # noqa: E731
    out = _derive(ds, chain, card, "_ConcatenateDataset", spec)
    out.shuffled = ds.shuffled if ds.shuffled is not None else other.shuffled
    out.origins = tuple(dict.fromkeys((*ds.origins, *other.origins)))
    out.endless = ds.endless or other.endless
    return out


# --- map and filter: a function traced on each element -------------------------------------------
def _apply(it, fn, element, node, what: str, read: list | None = None):
    """fn on one element as tf.data calls it (a tuple as separate arguments), traced like a
    tf.function and recorded by no tape: the result's arrays (the trainable variables it
    reads are added to `read`)."""
    from types import SimpleNamespace

    from gradcli.tfcode.functions import Trace

    start = len(it.g)
    tensors = _smap(element, lambda a: it.leaf(a, node))
    args = list(tensors) if isinstance(tensors, tuple) else [tensors]
    inner = getattr(fn, "fn", fn)  # a bound method's function
    name = f"{getattr(inner, 'name', _describe(fn))} (the Dataset.{what} function)"
    pos = getattr(inner, "pos", None) or it.pos(node)
    it.tracing.append(Trace(SimpleNamespace(name=name, pos=pos), start, set()))
    tapes, it.tapes = it.tapes, []  # tf.data runs it in a graph of its own: no tape sees it
    it.watchers.append(read if read is not None else [])
    it.autograph.append(True)  # tf.data converts its functions with AutoGraph
    try:
        if isinstance(fn, PyFunction):
            result = it.call_function(fn, args, {}, node)
        else:  # a bound method, a layer or another callable object of the file
            from gradcli.tfcode.keras import call_object

            result = call_object(it, fn, args, {}, node)
    finally:
        it.autograph.pop()
        it.watchers.pop()
        it.tapes = tapes
        it.tracing.pop()
    return _arrays(it, result, node, what)


def _arrays(it, value, node, what: str):
    """A map function's result as element arrays: lists become tuples, numbers tensors."""
    if isinstance(value, Opaque):
        it.refuse(node, f"a Dataset.{what} function returning {value.what} (line {value.line})")
    if isinstance(value, Unknown):
        raise Refused()
    if isinstance(value, (list, tuple)):
        return tuple(_arrays(it, v, node, what) for v in value)
    if isinstance(value, dict):
        return {k: _arrays(it, v, node, what) for k, v in value.items()}
    if isinstance(value, (Tensor, Variable)):
        return np.asarray(it.value(it.tensor_id(value, read=False)))
    if isinstance(value, (bool, int, float)):
        return it.as_array(value, node)
    it.refuse(node, f"a Dataset.{what} function returning {_describe(value)}")


def _function(it, fn, node, what: str):
    """The function given to map, filter, reduce, ...: a def, lambda or callable object."""
    from gradcli.tfcode.keras import OBJECTS

    if isinstance(fn, Opaque):
        it.refuse(node, f"Dataset.{what} of {fn.what} (line {fn.line})", "gradcli does not read it")
    if not isinstance(fn, (PyFunction, *OBJECTS)):
        it.refuse(node, f"Dataset.{what} of {_describe(fn)}", "give a def or lambda")
    return fn


def _map(it, ds: Dataset, args, kwargs, node):
    """ds.map(map_func, num_parallel_calls=None, deterministic=None, name=None)."""
    params = ("map_func", "num_parallel_calls", "deterministic", "name")
    fn = _function(it, _bind(it, params, args, kwargs, node, "map").get("map_func"), node, "map")
    first = next(iter(ds.source()), None) if ds.card != 0 else None
    spec, read = None, []
    if first is not None:  # TensorFlow traces the function here: its errors are raised here
        batched = ds.spec is not None and any(sp.shape[:1] == (None,) for sp in _leaves(ds.spec))
        spec = spec_of(_apply(it, fn, first, node, "map", read), batched)

    def source():
        for element in ds.source():
            yield _apply(it, fn, element, node, "map")

    out = _derive(ds, source, ds.card, "_MapDataset", spec)
    out.origins = tuple(dict.fromkeys((*ds.origins, *read_by(it, read, MAPPED, node))))
    return out


def _keep(it, fn, element, node) -> bool:
    result = _apply(it, fn, element, node, "filter")
    if not isinstance(result, np.ndarray) or result.dtype != bool or result.shape != ():
        spec = (
            f"TensorSpec(shape={tuple(result.shape)}, dtype=tf.{result.dtype}, name=None)"
            if isinstance(result, np.ndarray)
            else "a structure"
        )
        message = (
            "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
            f"return type is {spec}."
        )
        raise Raises("ValueError", message, it.pos(node))
    return bool(result)


def _filter(it, ds: Dataset, args, kwargs, node):
    """ds.filter(predicate, name=None): the elements whose predicate is True (the reader
    knows every value, so the predicate decides as it does in TensorFlow)."""
    bound = _bind(it, ("predicate", "name"), args, kwargs, node, "filter")
    fn = _function(it, bound.get("predicate"), node, "filter")
    first = next(iter(ds.source()), None) if ds.card != 0 else None
    if first is not None:
        _keep(it, fn, first, node)

    def source():
        for count, element in enumerate(ds.source()):
            if count > MAX_RANGE:
                it.refuse(node, f"a filter examining more than {MAX_RANGE:,} elements")
            if _keep(it, fn, element, node):
                yield element

    return _derive(ds, source, INFINITE if ds.card == INFINITE else UNKNOWN, "_FilterDataset")


# --- the rest -------------------------------------------------------------------------------------
def _apply_method(it, ds: Dataset, args, kwargs, node):
    """ds.apply(transformation_func): transformation_func(ds)."""
    fn = _bind(it, ("transformation_func",), args, kwargs, node, "apply").get("transformation_func")
    return it.call_function(_function(it, fn, node, "apply"), [ds], {}, node)


def _as_numpy_iterator(it, ds: Dataset, args, kwargs, node):
    """ds.as_numpy_iterator(): the elements as NumPy arrays."""
    _bind(it, (), args, kwargs, node, "as_numpy_iterator")
    items = _tensors_of(it, ds, ds.source(), node, NP)
    return DatasetIterator(items, ds.card == INFINITE)


def _cardinality(it, ds: Dataset, args, kwargs, node):
    """ds.cardinality(): an int64 scalar (INFINITE -1, UNKNOWN -2)."""
    return it.leaf(np.array(ds.card, dtype="int64"), node)


METHODS = {
    "batch": _batch, "unbatch": _unbatch, "shuffle": _shuffle, "repeat": _repeat,
    "take": _take, "skip": _skip, "map": _map, "filter": _filter, "enumerate": _enumerate,
    "concatenate": _concatenate, "apply": _apply_method,
    "prefetch": _same("prefetch", ("buffer_size", "name")),
    "cache": _same("cache", ("filename", "name")),
    "as_numpy_iterator": _as_numpy_iterator, "cardinality": _cardinality,
}  # fmt: skip


def batched_card(card: int, size: int, drop: bool) -> int:
    """The cardinality after batch(size, drop_remainder=drop) (negative: unknown/infinite)."""
    if card < 0:
        return card
    return card // size if drop else -(-card // size)


def chunks(items, size: int, drop: bool):
    """Consecutive lists of `size` elements; the short last one unless drop."""
    while True:
        chunk = list(itertools.islice(items, size))
        if not chunk or (drop and len(chunk) < size):
            return
        yield chunk


from gradcli.tfcode.dataset_extra import EXTRA  # noqa: E402 (it builds on the methods above)

METHODS.update(EXTRA)
