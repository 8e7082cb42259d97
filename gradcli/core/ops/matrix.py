"""Matrix structure ops over the last two axes (batched): diag, diag_part, trace, band_part,
tril, triu, and the constant eye.

diag and diag_part are TensorFlow's MatrixDiagV3 and MatrixDiagPartV3 for one diagonal,
k (0 the main one, k > 0 above it, k < 0 below; a (lower, upper) band of several, whose
layout depends on `align`, is refused); each one's gradient is the other at the same k
(_MatrixDiagV3Grad, _MatrixDiagPartV3Grad: diagonal k of g, or g on diagonal k of a zero
matrix of x's shape). One diagonal always has the length of the vector placed, so
`align` (how TensorFlow places diagonals shorter than the longest) plays no part. trace
is tf.linalg.trace, TensorFlow's reduce_sum(matrix_diag_part(x), -1), a composite op
(TensorFlow's has no offset). band_part (MatrixBandPart) and tril/triu (tf.experimental.numpy: where
over a constant triangular mask) keep a band and put +0.0 elsewhere; their gradient
keeps the same band of g. The elements they drop get no gradient (explain's
`unselected`, through ROUTE hooks that run the forward on element ids).
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.graph import DTYPES
from gradcli.core.ops.composite import composite_op
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.registry import (
    CUT,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.sym import number
from gradcli.core.ops.tiling import bind_fill, copy_route, moves_sympy


def _need_matrix(name: str, shape) -> None:
    if len(shape) < 2:
        raise ShapeError(
            f"{name}: input must be at least 2-dim (a matrix or a batch of matrices), got shape "
            f"{fmt(shape)}"
        )


def _offset(name: str, attrs) -> int:
    """The one diagonal k asks for (an integer; TensorFlow's (lower, upper) pair is refused)."""
    k = attrs.get("k", 0)
    if not isinstance(k, int):
        if isinstance(k, (list, tuple)) and len(k) == 2 and k[0] == k[1]:
            return int(k[0])
        raise ShapeError(
            f"{name}: k must be one integer (one diagonal), got {list(k)}; a band of several "
            "diagonals is not supported"
        )
    return k


# --- diag: vectors onto the diagonal of matrices ---------------------------------------------
def _diag_size(attrs, shape) -> tuple[int, int]:
    """(rows, columns) as MatrixDiagV3 decides them for diagonal k of n elements: at least
    n - min(k, 0) rows and n + max(k, 0) columns, square when neither is given, the least
    that fits for the one not given, and one of them exactly its least."""
    if not shape:
        raise ShapeError("diag: diagonal must be at least 1-dim, got a scalar")
    k = _offset("diag", attrs)
    n = shape[-1]
    least_rows, least_cols = n - min(k, 0), n + max(k, 0)
    rows, cols = attrs.get("num_rows", -1), attrs.get("num_cols", -1)
    for which, given, least in (("rows", rows, least_rows), ("columns", cols, least_cols)):
        if given != -1 and given < least:
            raise ShapeError(
                f"diag: the number of {which} is too small for diagonal k={k} of {n} elements "
                f"(num_rows={rows}, num_cols={cols}; at least {least})"
            )
    if rows == -1 and cols == -1:
        rows = cols = max(least_rows, least_cols)
    rows, cols = (least_rows if rows == -1 else rows), (least_cols if cols == -1 else cols)
    if rows != least_rows and cols != least_cols:
        raise ShapeError(
            f"diag: num_rows={rows} and num_cols={cols} do not fit diagonal k={k} of {n} "
            f"elements (rows must be {least_rows} or columns {least_cols})"
        )
    return rows, cols


def _diagonal_ids(k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) indices of diagonal k's first n elements."""
    i = np.arange(n)
    return (i, i + k) if k >= 0 else (i - k, i)


def _diag_infer(attrs, v):
    return (*v.shape[:-1], *_diag_size(attrs, v.shape)), v.dtype


def _diag(attrs, v, zero=None):
    v = np.asarray(v)
    rows, cols = _diag_size(attrs, v.shape)
    fill = attrs.get("padding_value", 0.0) if zero is None else zero
    out = np.full((*v.shape[:-1], rows, cols), fill, dtype=v.dtype)
    r, c = _diagonal_ids(_offset("diag", attrs), v.shape[-1])
    out[..., r, c] = v
    return out


def _diag_sympy(sp, attrs, args, values):
    return _diag(attrs, args[0], number(sp, attrs.get("padding_value", 0.0)))


register(
    Op(
        "diag",
        _diag_infer,
        accepts="any",
        bind=bind_fill(_diag),
        grads=(lambda b, n, g: b.diag_part(g, k=_offset("diag", n.attrs)),),
        public=True,
        arity=1,
        attrs=(
            Attr("k", AttrKind.AXIS, 0),
            Attr("num_rows", AttrKind.AXIS, -1),
            Attr("num_cols", AttrKind.AXIS, -1),
            Attr("padding_value", AttrKind.NUMBER, 0.0),
        ),
        sympy=_diag_sympy,
        moves=True,
        transport=Transport.ROUTE,
        route=copy_route(_diag),
        doc="tf.linalg.diag: the last axis onto diagonal k of matrices (k > 0 above the main "
        "one, k < 0 below)",
    )
)


# --- diag_part: the diagonals of matrices ----------------------------------------------------
def _diag_part_length(attrs, shape) -> int:
    """Diagonal k's length in matrices of `shape` (MatrixDiagPartV3's bounds checked)."""
    _need_matrix("diag_part", shape)
    k = _offset("diag_part", attrs)
    rows, cols = shape[-2:]
    if not (-rows < k < cols or k == 0):
        raise ShapeError(
            f"diag_part: k={k} is out of bounds for {rows}x{cols} matrices: it must be "
            f"between {-rows} and {cols}, both excluded"
        )
    return min(rows + min(k, 0), cols - max(k, 0))


def _diag_part_infer(attrs, x):
    return (*x.shape[:-2], _diag_part_length(attrs, x.shape)), x.dtype


def _diag_part(attrs, x, zero=None):
    x = np.asarray(x)
    r, c = _diagonal_ids(_offset("diag_part", attrs), _diag_part_length(attrs, x.shape))
    return x[..., r, c].copy()


def _diag_part_grad(b, n, g):
    rows, cols = b.shape(n.inputs[0])[-2:]
    return b.diag(g, k=_offset("diag_part", n.attrs), num_rows=rows, num_cols=cols)


register(
    Op(
        "diag_part",
        _diag_part_infer,
        accepts="any",
        bind=bind_fill(_diag_part),
        grads=(_diag_part_grad,),
        public=True,
        arity=1,
        attrs=(Attr("k", AttrKind.AXIS, 0),),
        sympy=moves_sympy(_diag_part),
        moves=True,
        transport=Transport.ROUTE,
        route=copy_route(_diag_part),
        doc="tf.linalg.diag_part: diagonal k of each matrix (also non-square; k > 0 above "
        "the main one, k < 0 below)",
    )
)


# --- trace: tf.linalg.trace = reduce_sum(matrix_diag_part(x), axis=-1) --------------------------
def _trace_expand(b, attrs, x):
    return b.sum(b.diag_part(x), axis=-1)


def _trace_infer(attrs, x):
    _need_matrix("trace", x.shape)
    return x.shape[:-2], x.dtype


def _trace_route(node, j, value_of):
    """Each diagonal element feeds its matrix's trace; the other elements feed nothing."""
    shape = np.shape(value_of(node.inputs[0]))
    ids = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    into = np.diagonal(ids, 0, -2, -1)
    src = np.arange(math.prod(shape[:-2]), dtype=np.int64).reshape((*shape[:-2], 1))
    return into.reshape(-1), np.broadcast_to(src, into.shape).reshape(-1)


register(
    composite_op(
        "trace",
        _trace_expand,
        _trace_infer,
        accepts="number",  # trace sums integers too
        arity=1,
        overflows=True,
        transport=Transport.ROUTE,
        route=_trace_route,
        doc="tf.linalg.trace: the sum of each matrix's main diagonal",
    )
)


# --- band_part, tril, triu: a band of each matrix kept, +0.0 elsewhere -----------------------
def _band_mask(attrs, rows, cols):
    lower, upper = attrs["num_lower"], attrs["num_upper"]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    return ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))


def _band_check(attrs, rows, cols) -> None:
    # MatrixBandPart: a negative bound keeps the whole triangle; a positive one fits the matrix
    for name, bound, size, what in (
        ("num_lower", attrs["num_lower"], rows, "rows"),
        ("num_upper", attrs["num_upper"], cols, "columns"),
    ):
        if bound > size:
            raise ShapeError(
                f"band_part: {name} must be negative or at most the number of {what} ({size}), "
                f"got {bound}"
            )


def _banded(name: str, mask, check, attrs: tuple[Attr, ...], doc: str) -> None:
    """Register an op keeping mask(attrs, rows, cols) of each matrix (+0.0 elsewhere)."""

    def infer(attrs, x):
        _need_matrix(name, x.shape)
        check(attrs, *x.shape[-2:])
        return x.shape, x.dtype

    def fill(attrs, x, zero=None):
        x = np.asarray(x)
        keep = mask(attrs, *x.shape[-2:])
        return np.where(keep, x, np.zeros((), x.dtype) if zero is None else zero)

    register(
        Op(
            name,
            infer,
            accepts="any",
            bind=bind_fill(fill),
            grads=(lambda b, n, g: b.emit(name, g, **n.attrs),),
            public=True,
            arity=1,
            attrs=attrs,
            sympy=moves_sympy(fill),
            moves=True,
            transport=Transport.ROUTE,
            route=copy_route(fill),
            doc=doc,
        )
    )


_banded(
    "band_part",
    _band_mask,
    _band_check,
    (
        Attr("num_lower", AttrKind.AXIS, required=True),
        Attr("num_upper", AttrKind.AXIS, required=True),
    ),
    "tf.linalg.band_part: num_lower diagonals below and num_upper above kept (negative: all)",
)
_banded(
    "tril",
    lambda attrs, rows, cols: np.tri(rows, cols, attrs.get("k", 0), dtype=bool),
    lambda attrs, rows, cols: None,
    (Attr("k", AttrKind.AXIS, 0),),
    "tf.experimental.numpy.tril: the elements on and below diagonal k kept",
)
_banded(
    "triu",
    lambda attrs, rows, cols: ~np.tri(rows, cols, attrs.get("k", 0) - 1, dtype=bool),
    lambda attrs, rows, cols: None,
    (Attr("k", AttrKind.AXIS, 0),),
    "tf.experimental.numpy.triu: the elements on and above diagonal k kept",
)


# --- eye: a constant (no tensor inputs, no gradient) -------------------------------------------
def _eye_shape(attrs) -> tuple[int, ...]:
    rows = attrs["num_rows"]
    cols = attrs.get("num_columns")
    cols = rows if cols is None else cols
    batch = list(attrs.get("batch_shape") or [])
    for what, size in (
        ("num_rows", rows),
        ("num_columns", cols),
        *(("batch_shape", d) for d in batch),
    ):
        if size < 0:
            raise ShapeError(f"eye: {what} must be >= 0, got {size}")
    return (*batch, rows, cols)


def _eye_infer(attrs):
    dtype = attrs.get("dtype", "float64")
    if dtype not in DTYPES:
        raise ShapeError(f"eye: unknown dtype '{dtype}' (one of {', '.join(DTYPES)})")
    return _eye_shape(attrs), dtype


def _eye_bind(attrs):
    shape, dtype = _eye_infer(attrs)
    return lambda: np.broadcast_to(np.eye(shape[-2], shape[-1], dtype=dtype), shape).copy()


register(
    Op(
        "eye",
        _eye_infer,
        bind=_eye_bind,
        behavior=CUT,
        public=True,
        arity=0,
        attrs=(
            Attr("num_rows", AttrKind.AXIS, required=True, example="{op}(num_rows=3)"),
            Attr("num_columns", AttrKind.AXIS),
            Attr("batch_shape", AttrKind.INTS),
            Attr("dtype", AttrKind.DTYPE, "float64"),
        ),
        doc="tf.eye: identity matrices (float64 unless dtype says; TensorFlow's default is "
        "float32)",
    )
)
