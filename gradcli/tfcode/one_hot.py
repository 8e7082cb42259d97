"""tf.one_hot for the TensorFlow reader: the registry's one_hot (float64) in TensorFlow's
dtype: `dtype=`, else the dtype of on_value/off_value when given as tensors, else float32."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

PARAMS = ("indices", "depth", "on_value", "off_value", "axis", "dtype", "name")


def one_hot(it: Interpreter, args, kwargs, node):
    """tf.one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None)."""
    from gradcli.tfcode.builtins import _dtype_arg

    bound = dict(zip(PARAMS, args))
    for k, v in kwargs.items():
        if k not in PARAMS:
            it.refuse(node, f"tf.one_hot(..., {k}=...)")
        bound[k] = v
    depth = bound.get("depth")
    if isinstance(depth, (Tensor, Variable)):
        depth = int(it.value(it.tensor_id(depth, read=False)))
    if not isinstance(depth, int) or isinstance(depth, bool):
        it.refuse(node, "tf.one_hot with a depth that is not a Python integer")
    dtype = _dtype_arg(it, bound.get("dtype"), node)
    attrs = {"depth": depth}
    for k in ("on_value", "off_value"):
        v = bound.get(k)
        if isinstance(v, (Tensor, Variable)):
            dtype = dtype or it.g[it.tensor_id(v, read=False)].dtype
            v = float(it.value(it.tensor_id(v, read=False)))
        if v is not None:
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                it.refuse(node, f"tf.one_hot({k}=...) that is not a number")
            attrs[k] = float(v)
    if bound.get("axis") is not None:
        attrs["axis"] = bound["axis"]
    dtype = dtype or "float32"
    if dtype not in ("float32", "float64"):
        it.refuse(node, f"tf.one_hot with dtype {dtype}")
    out = it.op_call("one_hot", [bound.get("indices")], attrs, node)
    if dtype != "float64":
        out = it.op_call("cast", [out], {"dtype": dtype}, node)
    return out
