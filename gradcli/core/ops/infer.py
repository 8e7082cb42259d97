"""Shape and dtype inference helpers shared by the op definitions."""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import Node, is_float
from gradcli.core.ops.registry import ShapeError


def fmt(shape) -> str:
    """A shape as people write it: (2, 3), (5,) or () ."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def broadcast(opname: str, *nodes: Node) -> tuple[int, ...]:
    """The broadcast shape of the inputs, or a ShapeError naming every shape."""
    first = nodes[0].shape
    for n in nodes:  # the common case, all alike, without numpy (a loop: a per-node hot path)
        if n.shape != first:
            break
    else:
        return first
    try:
        return tuple(np.broadcast_shapes(*(n.shape for n in nodes)))
    except ValueError:
        shapes = " and ".join(fmt(n.shape) for n in nodes)
        raise ShapeError(f"{opname}: shapes {shapes} do not broadcast") from None


def same_dtype(opname: str, *nodes: Node) -> str:
    """The common dtype of the inputs (the expression builder has already promoted them)."""
    first = nodes[0].dtype
    for n in nodes:
        if n.dtype != first:
            break
    else:
        return first
    dtypes = {n.dtype for n in nodes}
    if len(dtypes) != 1:
        raise ShapeError(f"{opname}: mixed dtypes {' and '.join(n.dtype for n in nodes)}")
    return nodes[0].dtype


def need_float(opname: str, node: Node) -> None:
    if not is_float(node.dtype):
        raise ShapeError(
            f"{opname} needs a float tensor, got {node.dtype} (convert with cast(..., 'float64'))"
        )


def need_numeric(opname: str, node: Node) -> None:
    if node.dtype == "bool":
        raise ShapeError(f"{opname} needs a number, got bool")


def float_unary(opname: str):
    def infer(attrs, x):
        need_float(opname, x)
        return x.shape, x.dtype

    infer.same_unary = ""  # one float input: its shape and dtype (emit skips the call)
    return infer


def numeric_unary(opname: str):
    def infer(attrs, x):
        need_numeric(opname, x)
        return x.shape, x.dtype

    return infer


def elementwise(opname: str, *, floats: bool = False, result: str | None = None):
    """Inference for an elementwise op over broadcast inputs of one dtype."""

    def infer(attrs, *nodes):
        if len(nodes) == 2:  # the common case, inline: same shapes and dtypes
            a, b = nodes
            if a.shape == b.shape and a.dtype == b.dtype:
                if floats:
                    need_float(opname, a)
                return a.shape, result or a.dtype
        shape = broadcast(opname, *nodes)
        dtype = same_dtype(opname, *nodes)
        if floats:
            need_float(opname, nodes[0])
        return shape, result or dtype

    # inputs of one shape and one float dtype: that shape, and `result` or that dtype (emit
    # skips the call; held equal to the call by tests/core/test_emit_same.py)
    infer.same = result or ""
    return infer


def normalize_axes(opname: str, axis, ndim: int) -> tuple[int, ...] | None:
    """Axis attribute (None, int or sequence) as sorted non-negative axes; None = all axes."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ShapeError(f"{opname}: axis {a} is out of range for a tensor of rank {ndim}")
        a = a % ndim
        if a in out:
            raise ShapeError(f"{opname}: axis {a} is repeated")
        out.append(a)
    return tuple(sorted(out))


def reduced_shape(shape, axes, keepdims: bool) -> tuple[int, ...]:
    """The shape after reducing axes (None = all)."""
    axes = range(len(shape)) if axes is None else axes
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def row_infer(name: str, default_axis: int = -1):
    """Inference of a float op that maps each row along `axis` to a row (softmax)."""

    def infer(attrs, x):
        need_float(name, x)
        if len(x.shape) == 0:
            raise ShapeError(f"{name} needs a tensor of rank 1 or more, got a scalar")
        normalize_axes(name, attrs.get("axis", default_axis), len(x.shape))
        return x.shape, x.dtype

    return infer
