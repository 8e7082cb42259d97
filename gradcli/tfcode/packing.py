"""A Python list holding tensors, where an op or NumPy wants one array: TensorFlow packs it
(convert_to_tensor's auto-packing is tf.stack, so gradients flow back to each element), NumPy
reads each tensor's values (each element leaves the tape there, at that line). Either way the
result keeps its elements' history, so the diagnosis names the right cause and line instead of
"does not use it at all"."""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import INT_DTYPES
from gradcli.core.ops import const
from gradcli.tfcode.support import _flatten
from gradcli.tfcode.values import NP, PY, TF, Tensor, Variable

MIXED = "elements of different dtypes packed into one tensor"


def holds_tensors(value) -> bool:
    """A (nested) list or tuple with a tensor or variable among its elements."""
    if not isinstance(value, (list, tuple)):
        return False
    return any(isinstance(v, (Tensor, Variable)) for v in _flatten(list(value)))


def pack(it, value, node, numpy: bool) -> Tensor | None:
    """The list as one tensor (None when it holds no tensor): TensorFlow's packing, or with
    `numpy` NumPy's conversion (a TF tensor leaves the tape at this line)."""
    if not holds_tensors(value):
        return None
    leaves = [v for v in _flatten(list(value)) if isinstance(v, (Tensor, Variable))]
    if numpy:
        dtype = _numpy_dtype(it, value)
    else:
        tf_dtypes = {it._dtype(v) for v in leaves if _kind(v) == TF}
        others = {it._dtype(v) for v in leaves if _kind(v) != TF}
        dtypes = tf_dtypes or others
        if len(dtypes) != 1:
            it.refuse(node, MIXED, "TensorFlow raises there; cast them to one dtype first")
        dtype = dtypes.pop()
    out = _build(it, value, node, dtype, numpy)
    return Tensor(out, NP if numpy else TF)


def _kind(v) -> str:
    return v.kind if isinstance(v, Tensor) else TF


def _numpy_dtype(it, value) -> str:
    """NumPy's dtype for np.array(list): its elements' result type, a Python number (and a
    value float() or int() made from a tensor) counting as float64 or int64."""
    kinds = []
    for v in _flatten(list(value)):
        if isinstance(v, (Tensor, Variable)):
            d = it._dtype(v)
            if _kind(v) == PY:
                d = "float64" if np.dtype(d).kind == "f" else "int64" if d != "bool" else d
            kinds.append(np.dtype(d))
        elif isinstance(v, bool):
            kinds.append(np.dtype(bool))
        elif isinstance(v, int):
            kinds.append(np.dtype("int64"))
        else:
            kinds.append(np.dtype("float64"))
    return str(np.result_type(*kinds))


def _build(it, value, node, dtype: str, numpy: bool) -> int:
    """The node of one (nested) element, iteratively over the list levels."""
    # a stack of (items, ids built so far); a finished level is stacked into its parent
    root: list[int] = []
    stack = [(list(value), 0, root)]
    while stack:
        items, k, ids = stack.pop()
        if k == len(items):
            if stack:
                stack[-1][2].append(_stacked(it, ids, node))
            else:
                root[:] = [_stacked(it, ids, node)]
            continue
        stack.append((items, k + 1, ids))
        x = items[k]
        if isinstance(x, (list, tuple)):
            stack.append((list(x), 0, []))
        else:
            ids.append(_element(it, x, node, dtype, numpy))
    return root[0]


def _element(it, x, node, dtype: str, numpy: bool) -> int:
    if isinstance(x, (Tensor, Variable)):
        if numpy and _kind(x) == TF:
            x = it.leave(x, node, _code(node), "np.array")
        i = it.tensor_id(x)
        if it.g[i].dtype != dtype:
            if not numpy and _kind(x) == TF:
                it.refuse(node, MIXED, "TensorFlow raises there; cast them to one dtype first")
            i = it.emit("cast", [i], {"dtype": dtype}, node)
        return i
    arr = it.python_array(x, node)
    if dtype in INT_DTYPES and not np.all(np.round(arr) == arr):
        it.refuse(node, f"{x!r} packed with {dtype} tensors", "it is not a whole number")
    return const(it.g, arr.astype(dtype), dtype, entry=it.label, pos=it.pos(node))


def _stacked(it, ids: list[int], node) -> int:
    shapes = {it.g[i].shape for i in ids}
    if len(shapes) != 1:
        it.refuse(node, "a list of tensors of different shapes packed into one tensor")
    return it.emit("stack", ids, {"axis": 0}, node)


def _code(node) -> str:
    import ast

    return ast.unparse(node)
