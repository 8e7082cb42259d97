"""tf.clip_by_norm, tf.linalg.global_norm, tf.clip_by_global_norm, tf.tensor_scatter_nd_sub.

TensorFlow defines them in Python as compositions of ops; the same ops are emitted here, so
values and gradients are autodiff of TensorFlow's own formulas (a zero-norm tensor's safe
square root, clip_norm below zero taken as zero, an infinite norm's NaN scale included).
"""

from __future__ import annotations

import numpy as np

from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Refused, _describe
from gradcli.tfcode.values import Tensor, Unknown, Variable


def clip_by_norm(it, args, kwargs, node):
    """tf.clip_by_norm(t, clip_norm, axes=None): t * clip_norm / max(l2norm(t), clip_norm),
    with TensorFlow's safe square root at a zero norm (tf.where on l2sum > 0)."""
    from gradcli.tfcode.builtins import _opt

    t = _opt(args, kwargs, 0, "t")
    clip = _opt(args, kwargs, 1, "clip_norm")
    axes = _opt(args, kwargs, 2, "axes")
    values = _tensor(it, t, node)
    dtype = it.g[values.id].dtype
    if isinstance(clip, (int, float)) and not isinstance(clip, bool):
        clip = max(clip, 0)
    else:
        clip = it.op_call("cast", [it.op_call("maximum", [clip, 0], {}, node)], {"dtype": dtype},
                          node)  # fmt: skip
    attrs = {"keepdims": True}
    if axes is not None:
        attrs["axis"] = it.attribute_value("tf.reduce_sum", "axis", axes, node)
    l2sum = it.op_call("sum", [it.op_call("mul", [values, values], {}, node)], attrs, node)
    pred = it.op_call("greater", [l2sum, 0], {}, node)
    ones = it.leaf(np.ones(it.g[l2sum.id].shape, dtype=dtype), node)
    safe = it.op_call("where", [pred, l2sum, ones], {}, node)
    l2norm = it.op_call("where", [pred, it.op_call("sqrt", [safe], {}, node), l2sum], {}, node)
    intermediate = it.op_call("mul", [values, clip], {}, node)
    denominator = it.op_call("maximum", [l2norm, clip], {}, node)
    return it.op_call("identity", [it.op_call("div", [intermediate, denominator], {}, node)], {},
                      node)  # fmt: skip


def global_norm(it, args, kwargs, node):
    """tf.linalg.global_norm(t_list): sqrt(2 * sum of l2_loss(t)), Nones skipped."""
    from gradcli.tfcode.builtins import _opt

    t_list = _opt(args, kwargs, 0, "t_list")
    return _global_norm(it, _list(it, t_list, node), node)


def _global_norm(it, values: list, node):
    halves = [it.op_call("l2_loss", [v], {}, node) for v in values if v is not None]
    if not halves:
        it.refuse(node, "a global norm of no tensors")
    half = it.op_call("sum", [it.op_call("stack", halves, {"axis": 0}, node)], {}, node)
    two = it.leaf(np.array(2.0, dtype=it.g[half.id].dtype), node)
    return it.op_call("sqrt", [it.op_call("mul", [half, two], {}, node)], {}, node)


def clip_by_global_norm(it, args, kwargs, node):
    """tf.clip_by_global_norm(t_list, clip_norm, use_norm=None): ([t * scale], global_norm)
    with scale = clip_norm * min(1 / norm, 1 / clip_norm) + (norm - norm)."""
    from gradcli.tfcode.builtins import _opt

    t_list = _opt(args, kwargs, 0, "t_list")
    clip = _opt(args, kwargs, 1, "clip_norm")
    use_norm = _opt(args, kwargs, 2, "use_norm")
    values = _list(it, t_list, node)
    norm = _global_norm(it, values, node) if use_norm is None else use_norm
    one = it.leaf(np.array(1.0, dtype=it.g[it.tensor_id(norm, read=False)].dtype), node)
    smaller = it.op_call(
        "minimum",
        [it.op_call("div", [1.0, norm], {}, node), it.op_call("div", [one, clip], {}, node)],
        {},
        node,
    )
    finite = it.op_call("mul", [clip, smaller], {}, node)
    scale = it.op_call("add", [finite, it.op_call("sub", [norm, norm], {}, node)], {}, node)
    clipped = []
    for v in values:
        if v is None:
            clipped.append(None)
            continue
        dtype = it.g[v.id].dtype
        s = (
            scale
            if it.g[scale.id].dtype == dtype
            else it.op_call("cast", [scale], {"dtype": dtype}, node)
        )
        clipped.append(it.op_call("identity", [it.op_call("mul", [v, s], {}, node)], {}, node))
    return clipped, norm


def _list(it, t_list, node) -> list:
    if not isinstance(t_list, (list, tuple)):
        it.refuse(node, f"tf.clip_by_global_norm of {_describe(t_list)}", UNRECORDED)
    return [None if v is None else _tensor(it, v, node) for v in t_list]


def _tensor(it, v, node) -> Tensor:
    if isinstance(v, Variable):
        return Tensor(it.tensor_id(v))
    if isinstance(v, Tensor):
        return v
    if isinstance(v, Unknown):
        raise Refused()
    return it.leaf(it.as_array(v, node), node)


def tensor_scatter_nd_sub(it, args, kwargs, node):
    """tf.tensor_scatter_nd_sub(tensor, indices, updates): tensor_scatter_nd_add of -updates
    (the same numbers, bit for bit: t - u is t + (-u), in the same order for repeated
    indices; the gradient of updates is -gather_nd(g), as TensorFlow's)."""
    from gradcli.tfcode.builtins import _opt

    tensor = _opt(args, kwargs, 0, "tensor")
    indices = _opt(args, kwargs, 1, "indices")
    updates = _opt(args, kwargs, 2, "updates")
    negated = it.op_call("neg", [_tensor(it, updates, node)], {}, node)
    return it.op_call("tensor_scatter_add", [tensor, indices, negated], {}, node)


SPECIAL = {
    "tf.clip_by_norm": clip_by_norm,
    "tf.clip_by_global_norm": clip_by_global_norm,
    "tf.linalg.global_norm": global_norm,
    "tf.tensor_scatter_nd_sub": tensor_scatter_nd_sub,
}
