"""Sources, identity and casts, shape ops, indexing, concat and stack, with their gradient rules."""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import DTYPES
from gradcli.core.ops.infer import fmt, normalize_axes, same_dtype
from gradcli.core.ops.registry import (
    ATOM,
    BROADCAST,
    CUT,
    STOP,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    lead_aligned,
    register,
)
from gradcli.core.ops.sym import obj


# --- sources: constants and spec inputs (values live in attrs["value"]) ----------------------
def _source_infer(attrs):
    value = attrs["value"]
    if isinstance(value, float):
        return (), "float64"
    return tuple(value.shape), value.dtype.name


register(Op("const", _source_infer, arity=0))
register(Op("input", _source_infer, arity=0))


# --- identity, stop_gradient, cast ---------------------------------------------------------
def _same(attrs, x):
    return x.shape, x.dtype


def _identity(x):
    return x


def _same_sympy(sp, attrs, args, values):
    return args[0]


register(
    Op(
        "identity",
        _same,
        accepts="any",
        forward=_identity,
        scalar=_identity,
        grads=(lambda b, n, g: g,),
        elementwise=True,
        arity=1,
        sympy=_same_sympy,
        moves=True,
        printer=lambda node, first, index_text: first,
        batched=BROADCAST,
    )
)
register(
    Op(
        "stop_gradient",
        _same,
        accepts="any",
        forward=_identity,
        scalar=_identity,
        grads=(None,),
        behavior=STOP,
        elementwise=True,
        public=True,
        arity=1,
        cut_words=(
            "stop_gradient",
            "stop_gradient({arg}) passes no gradient to {arg}",
            "stop_gradient in {where}",
        ),
    )
)


# a gradient op TensorFlow registers NotDifferentiable (ResizeBilinearGrad): the same values,
# and no gradient through it (non_differentiable, where stop_gradient is the user's own cut)
register(
    Op(
        "no_gradient",
        _same,
        accepts="any",
        forward=_identity,
        scalar=_identity,
        grads=(None,),
        behavior=CUT,
        elementwise=True,
        arity=1,
        cut_words=(
            "non_differentiable",
            "TensorFlow registers no gradient for the gradient op that computed {arg} "
            "(NotDifferentiable): no higher derivative passes through it",
            "a NotDifferentiable gradient op in {where}",
        ),
    )
)


# --- cast ---------------------------------------------------------------------------------
def _cast_infer(attrs, x):
    dtype = attrs["dtype"]
    if dtype not in DTYPES:
        raise ShapeError(f"cast: unknown dtype '{dtype}' (one of {', '.join(DTYPES)})")
    return x.shape, dtype


def _cast_bind(attrs):
    dtype = np.dtype(attrs["dtype"])
    return lambda x: np.asarray(x).astype(dtype)[()]


def _cast_grad(b, n, g):
    # float -> float casts pass the gradient back in the source dtype; the rest cut it
    return b.cast(g, dtype=b.dtype(n.inputs[0]))


def _cast_at_point(node, args, raw):
    # the references compute in float64: a cast between floats changes nothing there
    arr = np.asarray(args[0])
    if arr.dtype.kind != "f":
        return args[0]
    arr = arr.astype(np.float64, copy=False)
    return float(arr) if arr.shape == () else arr


register(
    Op(
        "cast",
        _cast_infer,
        accepts="any",
        bind=_cast_bind,
        grads=(_cast_grad,),
        elementwise=True,
        public=True,
        arity=1,
        attrs=(Attr("dtype", AttrKind.DTYPE, required=True),),
        # only float -> float casts are translated (the others cut the gradient): the value
        sympy=_same_sympy,
        moves=True,
        at_point=_cast_at_point,
        no_convention="a float cast is smooth; a cast to an integer passes no gradient",
    )
)


# --- reshape, transpose, broadcast_to ------------------------------------------------------
def _reshape_infer(attrs, x):
    shape = list(attrs["shape"])
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape: at most one -1 in the shape, got {fmt(shape)}")
    if any(d < -1 for d in shape):
        raise ShapeError(f"reshape: negative dimension in {fmt(shape)}")
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or x.size % known:
            raise ShapeError(f"reshape: cannot reshape {fmt(x.shape)} into {fmt(shape)}")
        shape[shape.index(-1)] = x.size // known
    elif known != x.size:
        raise ShapeError(
            f"reshape: cannot reshape {fmt(x.shape)} ({x.size} elements) into {fmt(shape)}"
        )
    return tuple(shape), x.dtype


def _reshape_bind(attrs):
    shape = tuple(attrs["shape"])
    return lambda x: np.reshape(x, shape)


def _reshape_batched(node, probed):
    # the node's own shape (its -1 resolved) after the seed axis
    return lambda x: np.reshape(x, x.shape[:1] + node.shape)


register(
    Op(
        "reshape",
        _reshape_infer,
        accepts="any",
        bind=_reshape_bind,
        grads=(lambda b, n, g: b.reshape(g, shape=b.shape(n.inputs[0])),),
        public=True,
        arity=1,
        attrs=(Attr("shape", AttrKind.INTS, required=True),),
        sympy=lambda sp, attrs, args, values: np.reshape(args[0], tuple(attrs["shape"])),
        moves=True,
        transport=Transport.RESHAPE,
        batched=_reshape_batched,
    )
)


def _perm(attrs, ndim):
    axes = attrs.get("axes")
    return tuple(range(ndim))[::-1] if axes is None else tuple(a % ndim for a in axes)


def _transpose_infer(attrs, x):
    axes = attrs.get("axes")
    rank = len(x.shape)
    if axes is not None and (
        any(not -rank <= a < rank for a in axes)
        or sorted(a % rank for a in axes) != list(range(rank))
    ):
        raise ShapeError(f"transpose: axes {list(axes)} are not a permutation of {rank} axes")
    perm = _perm(attrs, len(x.shape))
    return tuple(x.shape[a] for a in perm), x.dtype


def _transpose_bind(attrs):
    axes = attrs.get("axes")
    return lambda x: np.transpose(x, axes)


def _transpose_batched(node, probed):
    # the permutation shifted past the seed axis, which stays first
    perm = (0, *(a + 1 for a in _perm(node.attrs, len(node.shape))))
    return lambda x: np.transpose(x, perm)


def _transpose_grad(b, n, g):
    perm = _perm(n.attrs, len(b.shape(n.inputs[0])))
    return b.transpose(g, axes=tuple(int(i) for i in np.argsort(perm)))


register(
    Op(
        "transpose",
        _transpose_infer,
        accepts="any",
        bind=_transpose_bind,
        grads=(_transpose_grad,),
        public=True,
        arity=1,
        attrs=(Attr("axes", AttrKind.INTS),),
        sympy=lambda sp, attrs, args, values: np.transpose(args[0], attrs.get("axes")),
        moves=True,
        transport=Transport.TRANSPOSE,
        batched=_transpose_batched,
    )
)


def _broadcast_to_infer(attrs, x):
    shape = tuple(attrs["shape"])
    try:
        np.broadcast_shapes(x.shape, shape)
        if np.broadcast_shapes(x.shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise ShapeError(f"broadcast_to: cannot broadcast {fmt(x.shape)} to {fmt(shape)}") from None
    return shape, x.dtype


def _broadcast_to_bind(attrs):
    shape = tuple(attrs["shape"])
    return lambda x: np.broadcast_to(x, shape)


def _broadcast_to_batched(node, probed):
    rank = len(node.shape)
    return lambda x: np.broadcast_to(lead_aligned(x, rank), x.shape[:1] + node.shape)


# its gradient is the upstream gradient summed back to x's shape, which fit does
register(
    Op(
        "broadcast_to",
        _broadcast_to_infer,
        accepts="any",
        bind=_broadcast_to_bind,
        grads=(lambda b, n, g: g,),
        elementwise=True,
        public=True,
        arity=1,
        attrs=(Attr("shape", AttrKind.INTS, required=True),),
        sympy=lambda sp, attrs, args, values: np.broadcast_to(args[0], tuple(attrs["shape"])),
        moves=True,
        overflows=True,
        batched=_broadcast_to_batched,
    )
)


# --- indexing and its gradient -------------------------------------------------------------
def _axes_indexed(index: tuple, ndim: int) -> list:
    """The items of an index that take an axis each, `...` spelled out as full slices
    (None, a new axis, takes none)."""
    taking = [i for i in index if i is not None]
    if taking.count(Ellipsis) > 1:
        raise ShapeError("an index can only have a single ellipsis ('...')")
    if Ellipsis in taking:
        k = taking.index(Ellipsis)
        fill = [slice(None)] * max(ndim - (len(taking) - 1), 0)
        taking = taking[:k] + fill + taking[k + 1 :]
    return taking


def _index_infer(attrs, x):
    index = _axes_indexed(attrs["index"], len(x.shape))
    if len(index) > len(x.shape):
        raise ShapeError(
            f"too many indices ({len(index)}) for a tensor of shape {fmt(x.shape)}, which has "
            f"{len(x.shape)} dimension{'s' * (len(x.shape) != 1)}"
        )
    for axis, (i, d) in enumerate(zip(index, x.shape)):
        if isinstance(i, int) and not -d <= i < d:
            raise ShapeError(
                f"index {i} is out of range for axis {axis} of size {d} (shape {fmt(x.shape)})"
            )
    probe = np.broadcast_to(np.empty((), dtype=np.int8), x.shape)
    try:
        return probe[attrs["index"]].shape, x.dtype
    except IndexError as exc:
        raise ShapeError(
            f"index out of range for a tensor of shape {fmt(x.shape)}: {exc}"
        ) from None


def _index_bind(attrs):
    index = attrs["index"]
    return lambda x: np.asarray(x)[index]


def _index_grad(b, n, g):
    x = n.inputs[0]
    return b.getitem_grad(g, shape=b.shape(x), index=n.attrs["index"])


def _getitem_text(node, first, index_text):
    text, precedence = first
    operand = f"({text})" if precedence < ATOM else text
    return f"{operand}[{index_text(node.attrs['index'])}]", ATOM


register(
    Op(
        "getitem",
        _index_infer,
        accepts="any",
        bind=_index_bind,
        grads=(_index_grad,),
        arity=1,
        sympy=lambda sp, attrs, args, values: obj(args[0])[attrs["index"]],
        moves=True,
        transport=Transport.GATHER,
        printer=_getitem_text,
    )
)


def _getitem_grad_infer(attrs, g):
    return tuple(attrs["shape"]), g.dtype


def _getitem_grad_sympy(sp, attrs, args, values):
    out = np.full(tuple(attrs["shape"]), sp.Integer(0), dtype=object)
    out[attrs["index"]] = args[0]
    return out


def _getitem_grad_bind(attrs):
    shape, index = tuple(attrs["shape"]), attrs["index"]

    def scatter(g):
        out = np.zeros(shape, dtype=np.asarray(g).dtype)
        out[index] = g
        return out

    return scatter


register(
    Op(
        "getitem_grad",
        _getitem_grad_infer,
        bind=_getitem_grad_bind,
        grads=(lambda b, n, g: b.getitem(g, index=n.attrs["index"]),),
        arity=1,
        sympy=_getitem_grad_sympy,
        transport=Transport.SCATTER,
    )
)


# --- concat, stack --------------------------------------------------------------------------
def _concat_infer(attrs, *xs):
    if not xs:
        raise ShapeError("concat needs at least one tensor")
    dtype = same_dtype("concat", *xs)
    rank = len(xs[0].shape)
    if rank == 0:
        raise ShapeError("concat: cannot concatenate scalars (use stack)")
    (axis,) = normalize_axes("concat", attrs.get("axis", 0), rank)
    for x in xs[1:]:
        if len(x.shape) != rank or any(
            d != e for i, (d, e) in enumerate(zip(x.shape, xs[0].shape)) if i != axis
        ):
            raise ShapeError(
                f"concat: shapes {fmt(xs[0].shape)} and {fmt(x.shape)} differ outside axis {axis}"
            )
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return tuple(shape), dtype


def _concat_bind(attrs):
    axis = attrs.get("axis", 0)
    return lambda *xs: np.concatenate(xs, axis=axis)


def _concat_grad(b, n, g, i):
    shapes = [b.shape(x) for x in n.inputs]
    (axis,) = normalize_axes("concat", n.attrs.get("axis", 0), len(shapes[0]))
    start = sum(s[axis] for s in shapes[:i])
    index = (slice(None),) * axis + (slice(start, start + shapes[i][axis]),)
    return b.getitem(g, index=index)


register(
    Op(
        "concat",
        _concat_infer,
        accepts="any",
        bind=_concat_bind,
        grad_each=_concat_grad,
        public=True,
        attrs=(Attr("axis", AttrKind.AXIS, 0),),
        sympy=lambda sp, attrs, args, values: np.concatenate(args, axis=attrs.get("axis", 0)),
        moves=True,
        transport=Transport.PARTS,
    )
)


def _stack_infer(attrs, *xs):
    if not xs:
        raise ShapeError("stack needs at least one tensor")
    dtype = same_dtype("stack", *xs)
    for x in xs[1:]:
        if x.shape != xs[0].shape:
            raise ShapeError(f"stack: shapes {fmt(xs[0].shape)} and {fmt(x.shape)} differ")
    (axis,) = normalize_axes("stack", attrs.get("axis", 0), len(xs[0].shape) + 1)
    shape = list(xs[0].shape)
    shape.insert(axis, len(xs))
    return tuple(shape), dtype


def _stack_bind(attrs):
    axis = attrs.get("axis", 0)
    return lambda *xs: np.stack(xs, axis=axis)


def _stack_grad(b, n, g, i):
    (axis,) = normalize_axes("stack", n.attrs.get("axis", 0), len(b.shape(n.id)))
    return b.getitem(g, index=(slice(None),) * axis + (i,))


register(
    Op(
        "stack",
        _stack_infer,
        accepts="any",
        bind=_stack_bind,
        grad_each=_stack_grad,
        public=True,
        attrs=(Attr("axis", AttrKind.AXIS, 0),),
        sympy=lambda sp, attrs, args, values: np.stack(args, axis=attrs.get("axis", 0)),
        moves=True,
        transport=Transport.PARTS,
    )
)
