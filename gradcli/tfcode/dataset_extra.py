"""More of tf.data.Dataset's methods: padded_batch, reduce, shard, take_while and
get_single_element (TensorFlow 2.21's results and errors, see datasets.py)."""

from __future__ import annotations

import itertools

import numpy as np

from gradcli.tfcode.dataset_methods import (
    _apply,
    _derive,
    _function,
    _keep,
    batch_size,
    batched_card,
    chunks,
)
from gradcli.tfcode.datasets import (
    INFINITE,
    UNKNOWN,
    Dataset,
    TensorSpec,
    _bind,
    _int,
    _leaves,
    _rebuild,
    _smap,
)
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import Tensor, Variable

OP_ERROR = (
    "{{{{function_node __wrapped__{op}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "
)


def _padded_batch(it, ds: Dataset, args, kwargs, node):
    """ds.padded_batch(batch_size, padded_shapes=None, padding_values=None,
    drop_remainder=False, name=None): each component padded (at the end of every axis) to
    padded_shapes, its unknown (None or -1) sizes to the batch's largest, then stacked."""
    params = ("batch_size", "padded_shapes", "padding_values", "drop_remainder", "name")
    bound = _bind(it, params, args, kwargs, node, "padded_batch")
    shapes = _per_component(it, ds, bound.get("padded_shapes"), node, "padded_shapes", True)
    size = batch_size(it, bound, node, "PaddedBatchDatasetV2", len(shapes))
    drop = bound.get("drop_remainder", False)
    values = _per_component(it, ds, bound.get("padding_values"), node, "padding_values")
    card = batched_card(ds.card, size, drop)

    def source():
        for chunk in chunks(ds.source(), size, drop):
            columns = [_leaves(e) for e in chunk]
            out = []
            for c in range(len(columns[0])):
                parts = [col[c] for col in columns]
                out.append(_pad(it, parts, shapes[c], values[c], node))
            yield _rebuild(chunk[0], iter(out))

    spec = None
    if ds.spec is not None:  # TensorFlow's static shapes: a padded axis unknown unless given
        first = size if drop else None
        spec = _rebuild(ds.spec, iter(
            TensorSpec((first, *(None if given is None or given[a] < 0 else given[a]
                                 for a in range(len(sp.shape)))), sp.dtype)
            for sp, given in zip(_leaves(ds.spec), shapes)
        ))  # fmt: skip
    return _derive(ds, source, card, "_PaddedBatchDataset", spec)


def _per_component(it, ds: Dataset, value, node, what: str, shapes: bool = False) -> list:
    """padded_shapes or padding_values for each component, in flatten order (None: default)."""
    count = len(_leaves(ds.spec)) if ds.spec is not None else None
    if value is None:
        return [None] * (count or 1)
    if isinstance(value, (tuple, dict)) and not (shapes and isinstance(value, tuple)
                                                 and all(_dim(d) for d in value)):  # fmt: skip
        flat = _leaves(value)
    else:
        flat = [value]
    if count is not None and len(flat) != count:
        it.refuse(node, f"{what} that does not match the element's structure")
    out = []
    for v in flat:
        if shapes:
            if not isinstance(v, (list, tuple)) or not all(_dim(d) for d in v):
                it.refuse(node, f"{what} of {_describe(v)}", "give lists of integers or None")
            out.append(tuple(-1 if d is None else d for d in v))
        elif isinstance(v, (Tensor, Variable)):
            out.append(it.value(it.tensor_id(v, read=False)))
        elif isinstance(v, (int, float, bool)):
            out.append(np.asarray(v))
        else:
            it.refuse(node, f"{what} of {_describe(v)}")
    return out


def _dim(d) -> bool:
    return d is None or (isinstance(d, int) and not isinstance(d, bool))


def _pad(it, parts: list, shape, value, node) -> np.ndarray:
    rank = parts[0].ndim
    if shape is not None and len(shape) != rank:
        it.refuse(node, f"padded_shapes of rank {len(shape)} for a rank-{rank} component")
    largest = [max(p.shape[a] for p in parts) for a in range(rank)]
    target = [largest[a] if shape is None or shape[a] < 0 else shape[a] for a in range(rank)]
    if any(t < m for t, m in zip(target, largest)):
        it.refuse(node, f"padded_shapes {shape} smaller than an element {largest}", UNRECORDED)
    fill = 0 if value is None else value.astype(parts[0].dtype)
    out = np.full((len(parts), *target), fill, dtype=parts[0].dtype)
    for k, p in enumerate(parts):
        out[(k, *(slice(0, n) for n in p.shape))] = p
    return out


def _reduce(it, ds: Dataset, args, kwargs, node):
    """ds.reduce(initial_state, reduce_func, name=None): reduce_func(state, element) over
    every element, traced as map's function; the final state as tensors."""
    bound = _bind(it, ("initial_state", "reduce_func", "name"), args, kwargs, node, "reduce")
    fn = _function(it, bound.get("reduce_func"), node, "reduce")
    if ds.card == INFINITE:
        it.refuse(node, "reduce of an infinite dataset", "TensorFlow never ends it")
    from gradcli.tfcode.datasets import _components

    state = _components(it, bound.get("initial_state"), node)
    recording, read = bool(it.tapes), []
    for element in ds.source():
        state = _apply(it, fn, (state, element), node, "reduce", read)
    if recording or read:  # TensorFlow's ReduceDataset records no gradient: its result is None
        it.refuse(
            node,
            "Dataset.reduce while a tape records or over a function reading a variable",
            "TensorFlow's ReduceDataset op has no gradient (None)",
        )
    return _smap(state, lambda a: it.leaf(a, node))


def _shard(it, ds: Dataset, args, kwargs, node):
    """ds.shard(num_shards, index, name=None): every num_shards-th element from index."""
    bound = _bind(it, ("num_shards", "index", "name"), args, kwargs, node, "shard")
    shards = _int(it, bound.get("num_shards"), node, "num_shards", 1)
    index = _int(it, bound.get("index"), node, "index", 0)
    if index >= shards:
        it.refuse(node, f"shard index {index} of {shards} shards")
    card = ds.card if ds.card < 0 else max(0, (ds.card - index + shards - 1) // shards)
    source = lambda: itertools.islice(ds.source(), index, None, shards)  # noqa: E731
    return _derive(ds, source, card, "_ShardDataset")


def _take_while(it, ds: Dataset, args, kwargs, node):
    """ds.take_while(predicate, name=None): the elements before the first that fails."""
    bound = _bind(it, ("predicate", "name"), args, kwargs, node, "take_while")
    fn = _function(it, bound.get("predicate"), node, "take_while")

    def source():
        for element in ds.source():
            if not _keep(it, fn, element, node):
                return
            yield element

    return _derive(ds, source, UNKNOWN, "_TakeWhileDataset")


def single_element(it, args, kwargs, node):
    """tf.data.experimental.get_single_element(dataset)."""
    ds = args[0] if args else kwargs.get("dataset")
    return get_single_element(it, ds, [], {}, node)


def get_single_element(it, ds: Dataset, args, kwargs, node):
    """ds.get_single_element(name=None) (tf.data.experimental.get_single_element(ds))."""
    if not isinstance(ds, Dataset):
        it.refuse(node, f"get_single_element of {_describe(ds)}")
    if ds.card == INFINITE:
        it.refuse(node, "get_single_element of an infinite dataset")
    first = list(itertools.islice(ds.source(), 2))
    if len(first) != 1:
        message = (
            OP_ERROR.format(op="DatasetToSingleElement_output_types_1")
            + ("Dataset was empty." if not first else "Dataset had more than one element.")
            + " [Op:DatasetToSingleElement] name: "
        )
        raise Raises("InvalidArgumentError", message, it.pos(node))
    return _smap(first[0], lambda a: it.leaf(a, node))


EXTRA = {
    "padded_batch": _padded_batch, "reduce": _reduce, "shard": _shard,
    "take_while": _take_while, "get_single_element": get_single_element,
}  # fmt: skip
