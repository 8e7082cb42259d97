"""N-d index ops: gather_nd, scatter_nd, tensor_scatter_add and tensor_scatter_update
(TensorFlow's GatherNd, ScatterNd, TensorScatterAdd, TensorScatterUpdate), with their
gradient rules.

An index vector of length C (the last axis of `indices`) addresses the first C
dimensions (after gather_nd's batch_dims). A vector outside the shape is TensorFlow's
CPU error: positioned when the build knows the indices (a literal or an input), else
raised when the node is evaluated.

Repeated index vectors: scatter_nd and tensor_scatter_add add their updates in the order
of the vectors, into zeros (scatter_nd: an update of -0.0 lands as +0.0) or into the
tensor, as TensorFlow's CPU kernels do; gather_nd's gradient is that scatter_nd.
tensor_scatter_update keeps the last of the updates of a repeated vector (TensorFlow's
CPU kernel writes them in order), yet TensorFlow's gradient, gather_nd(g, indices), gives
every one of them the upstream gradient there. gradcli follows TensorFlow; its references
(SymPy, finite differences) take each overwritten duplicate as added to the result minus
its value at the point, the function whose derivative that gradient is.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.indexing import known
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.registry import Attr, AttrKind, Op, ShapeError, Transport, register
from gradcli.core.ops.sym import apply, number

MAX_DEPTH = 7  # TensorFlow's nd kernels take index vectors of at most 7 coordinates


def dims(shape) -> str:
    """A shape as TensorFlow's messages print it: [2,3]."""
    return "[" + ",".join(map(str, shape)) + "]"


def _flat_ids(shape) -> np.ndarray:
    return np.arange(math.prod(shape), dtype=np.int64).reshape(shape)


def vectors(ids) -> int:
    """How many index vectors ids holds."""
    return math.prod(np.shape(ids)[:-1])


# --- index vectors -------------------------------------------------------------------------------
def coords(ids: np.ndarray, batch: int = 0) -> tuple:
    """The index arrays that address a tensor at the vectors of ids (batch axes first)."""
    lead = ids.shape[:-1]
    grids = []
    for k in range(batch):  # the position along each batch axis is its own coordinate
        shape = [1] * len(lead)
        shape[k] = lead[k]
        grids.append(np.broadcast_to(np.arange(lead[k]).reshape(shape), lead))
    return (*grids, *(ids[..., c] for c in range(ids.shape[-1])))


def check_vectors(opname: str, ids, shape, *, batch: int = 0, what: str = "shape") -> None:
    """TensorFlow's CPU error for the first index vector outside shape (an IndexError)."""
    ids = np.asarray(ids)
    c = ids.shape[-1]
    bounds = np.asarray(shape[batch : batch + c], dtype=np.int64)
    bad = np.any((ids < 0) | (ids >= bounds), axis=-1)
    if not np.any(bad):
        return
    where = tuple(int(p) for p in np.argwhere(bad)[0]) if bad.ndim else ()
    vector = [int(v) for v in ids[where]]
    if batch:  # TensorFlow's batched gather_nd: the batch axes flattened, their positions first
        flat = int(np.ravel_multi_index(where[:batch], ids.shape[:batch]))
        vector = [*where[:batch], *vector]
        where = (flat, *where[batch:])
    at = f"[{','.join(map(str, where))}]" if where else ""
    raise IndexError(
        f"{opname}: indices{at} = [{', '.join(map(str, vector))}] does not index into "
        f"{what} {dims(shape)}"
    )


def _known_check(opname: str, ids_node, shape, **kw) -> None:
    value = known(ids_node)
    if value is not None and vectors(value):
        try:
            check_vectors(opname, value, shape, **kw)
        except IndexError as exc:
            raise ShapeError(str(exc)) from None


def _depth(opname: str, ishape, batch: int, low: int) -> int:
    if len(ishape) == 0:
        raise ShapeError(f"{opname}: indices must be at least a vector, got a scalar")
    c = ishape[-1]
    if not low <= c + batch <= MAX_DEPTH:
        raise ShapeError(
            f"{opname}: index vectors of length {c + batch} are not supported (TensorFlow's "
            f"kernels take {low} to {MAX_DEPTH})"
        )
    return c


# --- gather_nd -----------------------------------------------------------------------------------
def _gather_nd_dims(attrs, pshape, ishape) -> tuple[int, int]:
    """(batch_dims, index depth C), checked as tf.gather_nd does."""
    batch = attrs.get("batch_dims", 0)
    if batch < 0:
        raise ShapeError(f"gather_nd: batch_dims must be >= 0, got {batch}")
    if len(pshape) == 0:
        raise ShapeError("gather_nd: params must be at least a vector, got a scalar")
    c = _depth("gather_nd", ishape, batch, 0)
    for name, shape in (("indices", ishape), ("params", pshape)):
        if batch >= len(shape):
            raise ShapeError(
                f"gather_nd: batch_dims {batch} must be less than the rank of {name} ({len(shape)})"
            )
    if tuple(pshape[:batch]) != tuple(ishape[:batch]):
        raise ShapeError(
            f"gather_nd: the first {batch} dimensions of params {fmt(pshape)} and indices "
            f"{fmt(ishape)} differ"
        )
    if batch + c > len(pshape):
        raise ShapeError(
            f"gather_nd: index vectors of length {c} do not fit params of shape {fmt(pshape)}"
            + (f" after {batch} batch dimensions" if batch else "")
        )
    return batch, c


def _gather_nd_shape(pshape, ishape, batch, c):
    return (*ishape[:-1], *pshape[batch + c :])


def _gather_nd_infer(attrs, params, indices):
    batch, c = _gather_nd_dims(attrs, params.shape, indices.shape)
    _known_check("gather_nd", indices, params.shape, batch=batch, what="param shape")
    return _gather_nd_shape(params.shape, indices.shape, batch, c), params.dtype


def _gather_nd_bind(attrs):
    def gather_nd(params, indices):
        p, ids = np.asarray(params), np.asarray(indices)
        batch, c = _gather_nd_dims(attrs, p.shape, ids.shape)
        shape = _gather_nd_shape(p.shape, ids.shape, batch, c)
        if vectors(ids) == 0:
            return np.full(shape, _zero(p.dtype), dtype=p.dtype)
        if p.size == 0:
            raise IndexError(
                "gather_nd: requested more than 0 entries, but params is empty. Params shape: "
                f"{dims(p.shape)}"
            )
        check_vectors("gather_nd", ids, p.shape, batch=batch, what="param shape")
        where = coords(ids, batch)
        if not where:  # C = 0 without batch dimensions: all of params, for every vector
            return np.broadcast_to(p, shape).copy()
        return p[where]

    return gather_nd


def _gather_nd_grad(b, n, g):
    # TensorFlow's _GatherNdGrad: scatter_nd(indices, g, shape(params)), repeats summed in order
    params, indices = n.inputs
    attrs = {"batch_dims": n.attrs["batch_dims"]} if n.attrs.get("batch_dims") else {}
    if len(b.shape(indices)) == 1:  # one index vector (TensorFlow's own gradient raises here)
        indices = b.reshape(indices, shape=(1, *b.shape(indices)))
        g = b.reshape(g, shape=(1, *b.shape(g)))
    return b.scatter_nd(indices, g, shape=b.shape(params), **attrs)


def _gather_nd_route(node, j, value_of):
    """Each output element reads one element of params: gather_nd of params' flat ids."""
    ids = value_of(node.inputs[1])
    picked = _gather_nd_bind(node.attrs)(_flat_ids(np.shape(value_of(node.inputs[0]))), ids)
    return picked.ravel(), np.arange(picked.size)


register(
    Op(
        "gather_nd",
        _gather_nd_infer,
        accepts="any",
        index_inputs=(1,),
        bind=_gather_nd_bind,
        grads=(_gather_nd_grad, None),
        public=True,
        arity=2,
        attrs=(Attr("batch_dims", AttrKind.AXIS, 0),),
        sympy=lambda sp, attrs, args, values: _gather_nd_bind(attrs)(args[0], values[1]),
        moves=True,
        transport=Transport.ROUTE,
        route=_gather_nd_route,
        doc="tf.gather_nd: the elements or slices of params at the index vectors of indices",
    )
)


# --- scatter_nd, tensor_scatter_add, tensor_scatter_update -----------------------------------
def _scatter_dims(opname: str, ishape, ushape, shape, batch: int = 0) -> int:
    """The index depth C, with updates checked against indices and the output's shape."""
    c = _depth(opname, ishape, batch, 1)
    if len(ushape) == 0:
        raise ShapeError(f"{opname}: updates must have rank at least one, got a scalar")
    if batch + c > len(shape):
        raise ShapeError(
            f"{opname}: index vectors of length {c} do not fit a tensor of shape {fmt(shape)}"
        )
    expected = (*ishape[:-1], *shape[batch + c :])
    if tuple(ushape) != expected:
        raise ShapeError(
            f"{opname}: updates must have shape {fmt(expected)} (indices.shape[:-1] + the "
            f"output's shape after the first {batch + c}), got {fmt(ushape)}"
        )
    if math.prod(shape) == 0 and math.prod(ishape[:-1]):
        raise ShapeError(
            f"{opname}: indices and updates specified for an empty output of shape {fmt(shape)}"
        )
    return c


def _add_at(out: np.ndarray, ids: np.ndarray, updates, batch: int = 0) -> np.ndarray:
    """updates added into out at the index vectors, one after the other in their order."""
    if vectors(ids):
        np.add.at(out, coords(ids, batch), np.asarray(updates))
    return out


def _zero(dtype) -> object:
    return 0 if np.dtype(dtype).kind == "O" else np.zeros((), dtype)


def _scatter_nd_infer(attrs, indices, updates):
    shape = tuple(attrs["shape"])
    for d in shape:
        if d < 0:
            raise ShapeError(f"scatter_nd: dimension {d} of shape {fmt(shape)} must be >= 0")
    batch = attrs.get("batch_dims", 0)
    _scatter_dims("scatter_nd", indices.shape, updates.shape, shape, batch)
    _known_check("scatter_nd", indices, shape, batch=batch)
    return shape, updates.dtype


def _scatter_nd_bind(attrs):
    shape, batch = tuple(attrs["shape"]), attrs.get("batch_dims", 0)

    def scatter_nd(indices, updates):
        ids, u = np.asarray(indices), np.asarray(updates)
        check_vectors("scatter_nd", ids, shape, batch=batch)
        return _add_at(np.full(shape, _zero(u.dtype), dtype=u.dtype), ids, u, batch)

    return scatter_nd


def _to_updates(b, n, g):
    # TensorFlow's gradient to the updates of every scatter: gather_nd(g, indices)
    indices = n.inputs[0] if n.op == "scatter_nd" else n.inputs[1]
    attrs = {"batch_dims": n.attrs["batch_dims"]} if n.attrs.get("batch_dims") else {}
    return b.gather_nd(g, indices, **attrs)


def _updates_route(node, j, value_of):
    """Update element t feeds from the output element its index vector addresses."""
    indices = node.inputs[0] if node.op == "scatter_nd" else node.inputs[1]
    attrs = {"batch_dims": node.attrs.get("batch_dims", 0)}
    picked = _gather_nd_bind(attrs)(_flat_ids(node.shape), value_of(indices)).ravel()
    return np.arange(picked.size), picked


register(
    Op(
        "scatter_nd",
        _scatter_nd_infer,
        index_inputs=(0,),
        bind=_scatter_nd_bind,
        grads=(None, _to_updates),
        public=True,
        arity=2,
        attrs=(Attr("shape", AttrKind.INTS, required=True),),
        sympy=lambda sp, attrs, args, values: _scatter_nd_bind(attrs)(values[0], args[1]),
        transport=Transport.ROUTE,
        route=_updates_route,
        doc="tf.scatter_nd: updates added into zeros of `shape` at the index vectors",
    )
)


def _tensor_scatter_infer(opname):
    def infer(attrs, tensor, indices, updates):
        if len(tensor.shape) == 0:
            raise ShapeError(f"{opname}: tensor must be at least a vector, got a scalar")
        _scatter_dims(opname, indices.shape, updates.shape, tensor.shape)
        _known_check(opname, indices, tensor.shape)
        return tensor.shape, tensor.dtype

    return infer


def _tensor_scatter_add(tensor, indices, updates):
    t, ids = np.asarray(tensor), np.asarray(indices)
    check_vectors("tensor_scatter_add", ids, t.shape)
    return _add_at(t.copy(), ids, updates)


def _winners(ids: np.ndarray, shape) -> np.ndarray:
    """Which index vectors write last to their place (the others are overwritten)."""
    flat = ids.reshape(-1, ids.shape[-1])
    places = np.ravel_multi_index(tuple(flat.T), shape[: ids.shape[-1]])
    _, first_from_end = np.unique(places[::-1], return_index=True)
    last = np.zeros(places.size, dtype=bool)
    last[places.size - 1 - first_from_end] = True
    return last.reshape(ids.shape[:-1])


def _update(tensor, indices, updates, frozen=None):
    """tensor_scatter_update; with `frozen` (the updates at the point), each overwritten
    duplicate u is also added as u - frozen (the function TensorFlow's gradient follows)."""
    t, ids, u = np.asarray(tensor), np.asarray(indices), np.asarray(updates)
    check_vectors("tensor_scatter_update", ids, t.shape)
    out = t.copy()
    if vectors(ids) == 0:
        return out
    last = _winners(ids, t.shape)
    out[coords(ids[last])] = u[last]
    if frozen is not None and not last.all():
        lost = ~last
        np.add.at(out, coords(ids[lost]), u[lost] - np.asarray(frozen)[lost])
    return out


def _update_sympy(sp, attrs, args, values):
    return _update(args[0], values[1], args[2], apply(lambda v: number(sp, v), values[2]))


def _duplicates(ids: np.ndarray, shape) -> np.ndarray:
    """Which index vectors share their place with another one (updates tied for it)."""
    flat = ids.reshape(-1, ids.shape[-1])
    places = np.ravel_multi_index(tuple(flat.T), shape[: ids.shape[-1]])
    _, inverse, counts = np.unique(places, return_inverse=True, return_counts=True)
    return (counts[inverse.reshape(-1)] >= 2).reshape(ids.shape[:-1])


def _update_at_point(node, args, raw):
    return _update(args[0], args[1], args[2], raw[2])


def _zeros_to_tensor(b, n, g):
    # TensorFlow: tensor_scatter_update(g, indices, zeros): the overwritten elements get +0
    _, indices, updates = n.inputs
    zeros = b.broadcast_to(b.const(0.0, like=g), shape=b.shape(updates))
    return b.tensor_scatter_update(g, indices, zeros)


def _identity_route(node, j, value_of):
    if j == 2:
        return _updates_route(node, j, value_of)
    ids = np.arange(node.size)
    return ids, ids


def _kept_route(node, j, value_of):
    """tensor_scatter_update: the tensor's elements not overwritten feed from themselves."""
    if j == 2:
        return _updates_route(node, j, value_of)
    kept = np.ones(node.shape, dtype=bool)
    ids = np.asarray(value_of(node.inputs[1]))
    if vectors(ids):
        kept[coords(ids)] = False
    flat = np.flatnonzero(kept)
    return flat, flat


_TENSOR_SCATTER = {"public": True, "arity": 3, "index_inputs": (1,), "transport": Transport.ROUTE}
register(
    Op(
        "tensor_scatter_add",
        _tensor_scatter_infer("tensor_scatter_add"),
        forward=_tensor_scatter_add,
        grads=(lambda b, n, g: g, None, _to_updates),
        sympy=lambda sp, attrs, args, values: _tensor_scatter_add(args[0], values[1], args[2]),
        route=_identity_route,
        doc="tf.tensor_scatter_nd_add: updates added into tensor at the index vectors",
        **_TENSOR_SCATTER,
    )
)
register(
    Op(
        "tensor_scatter_update",
        _tensor_scatter_infer("tensor_scatter_update"),
        forward=_update,
        grads=(_zeros_to_tensor, None, _to_updates),
        sympy=_update_sympy,
        moves=True,
        at_point=_update_at_point,
        convention=tie_facts.scatter_update(_duplicates),
        route=_kept_route,
        unselected=(
            "{text} overwrites {count} of {size} elements of {arg}: they get no gradient",
            "{entry} overwrites them with tensor_scatter_update {line}",
        ),
        doc="tf.tensor_scatter_nd_update: tensor with the updates written at the index vectors",
        **_TENSOR_SCATTER,
    )
)
