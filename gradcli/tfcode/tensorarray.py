"""tf.TensorArray, as TensorFlow 2.21 defines it: a Python list of tensors in eager mode.

`write` and `unstack` change the array and return it (eager); inside `@tf.function`
TensorFlow's arrays are functional, so there they return a new array and leave the old one
as it was. `read` gives the element itself (no op: the gradient flows straight through);
with `clear_after_read` (the default) eager TensorFlow forgets an element once read, so a
second read is its InvalidArgumentError and `stack` then sees zeros there. `stack`, `gather`
and `concat` are tf.stack/tf.concat of the elements, unwritten ones zeros of the element
shape, so their gradients are those ops' own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, Refused, _describe
from gradcli.tfcode.values import DType, Method, Tensor, Unknown, Variable

METHODS = {"write", "read", "stack", "unstack", "gather", "concat", "size", "scatter",
           "close", "mark_used", "identity"}  # fmt: skip


@dataclass(eq=False)
class TensorArray:
    """One tf.TensorArray: its dtype and elements (None: never written)."""

    dtype: str
    items: list = field(default_factory=list)
    dynamic_size: bool = False
    clear_after_read: bool = True
    element_shape: tuple | None = None
    read_indices: set = field(default_factory=set)

    # the interpreter's protocol for objects of its own (see expressions.attribute)
    def tf_attribute(self, it, node, name: str):
        if name in METHODS:
            return Method(self, name)
        if name == "dtype":
            return DType(self.dtype)
        if name == "dynamic_size":
            return self.dynamic_size
        if name == "element_shape":
            return self.element_shape
        it.refuse(node, f"TensorArray.{name}")

    def tf_method(self, it, name: str, args, kwargs, node):
        return METHOD_FUNCTIONS[name](it, self, args, kwargs, node)


def tensor_array(it, args, kwargs, node):
    """tf.TensorArray(dtype, size=None, dynamic_size=None, clear_after_read=None,
    tensor_array_name=None, handle=None, flow=None, infer_shape=True, element_shape=None,
    colocate_with_first_write_call=True, name=None)."""
    from gradcli.tfcode.builtins import _dtype_arg, _opt

    dtype = _dtype_arg(it, _opt(args, kwargs, 0, "dtype"), node)
    size = _index(it, _opt(args, kwargs, 1, "size"), node, "size")
    dynamic = bool(_opt(args, kwargs, 2, "dynamic_size", False))
    clear = _opt(args, kwargs, 3, "clear_after_read", None)
    shape = kwargs.get("element_shape")
    for k in kwargs:
        if k not in ("dtype", "size", "dynamic_size", "clear_after_read", "element_shape",
                     "infer_shape", "name", "tensor_array_name",
                     "colocate_with_first_write_call"):  # fmt: skip
            it.refuse(node, f"tf.TensorArray(..., {k}=...)")
    if shape is not None:
        if hasattr(shape, "dims"):
            shape = shape.dims
        if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) for d in shape):
            it.refuse(node, f"element_shape={_describe(shape)}", "give a list of integers")
        shape = tuple(shape)
    return TensorArray(dtype, [None] * size, dynamic, True if clear is None else bool(clear), shape)


def _index(it, value, node, what: str) -> int:
    if isinstance(value, Unknown):
        raise Refused()
    if isinstance(value, (Tensor, Variable)):
        value = it.value(it.tensor_id(value, read=False))
        if value.dtype.kind not in "iu" or value.size != 1:
            it.refuse(node, f"a TensorArray {what} that is not an integer")
        value = int(value.reshape(()))
    if not isinstance(value, int) or isinstance(value, bool):
        it.refuse(node, f"a TensorArray {what} that is {_describe(value)}")
    return value


def _target(it, ta: TensorArray) -> TensorArray:
    """The array a change goes to: itself in eager mode, a copy inside @tf.function."""
    if it.tracing:
        return replace(ta, items=list(ta.items), read_indices=set(ta.read_indices))
    return ta


def _out_of_range(it, node, message: str):
    raise Raises("OutOfRangeError", message, it.pos(node))


def _write(it, ta: TensorArray, index: int, value, node) -> None:
    if index < 0:
        _out_of_range(it, node, f"Writing to negative indices (index {index}) is not allowed.")
    if index >= len(ta.items):
        if not ta.dynamic_size:
            _out_of_range(
                it,
                node,
                f"Tried to write to index {index} but array is not resizeable and size is: "
                f"{len(ta.items)} ",
            )
        ta.items.extend([None] * (index - len(ta.items) + 1))
    if isinstance(value, Variable):
        value = Tensor(it.tensor_id(value))
    if not isinstance(value, Tensor):
        value = it.leaf(it.as_array(value, node, ta.dtype), node)
    dtype = it.g[value.id].dtype
    if dtype != ta.dtype:
        raise Raises(
            "InvalidArgumentError",
            f"TensorArray dtype is {ta.dtype} but Op is trying to write dtype {dtype} ",
            it.pos(node),
        )
    if ta.element_shape is None:
        ta.element_shape = tuple(it.g[value.id].shape)
    ta.items[index] = value


def _write_method(it, ta, args, kwargs, node):
    from gradcli.tfcode.builtins import _opt

    out = _target(it, ta)
    index = _index(it, _opt(args, kwargs, 0, "index"), node, "index")
    _write(it, out, index, _opt(args, kwargs, 1, "value"), node)
    return out


def _element(it, ta: TensorArray, index: int, node) -> Tensor:
    """Element `index`, zeros of the element shape when it was never written."""
    item = ta.items[index]
    if item is None:
        if ta.element_shape is None:
            it.refuse(node, "reading an unwritten TensorArray element of unknown shape")
        item = it.leaf(np.zeros(ta.element_shape, dtype=ta.dtype), node)
        ta.items[index] = item
    return item


def _read(it, ta, args, kwargs, node):
    from gradcli.tfcode.builtins import _opt

    index = _index(it, _opt(args, kwargs, 0, "index"), node, "index")
    if index < 0:
        _out_of_range(it, node, f"Reading from negative indices (index {index}) is not allowed.")
    if index >= len(ta.items):
        _out_of_range(
            it, node, f"Tried to read from index {index} but array size is: {len(ta.items)} "
        )
    eager_clear = ta.clear_after_read and not it.tracing
    if ta.items[index] is None and index in ta.read_indices:
        raise Raises(
            "InvalidArgumentError",
            f"Could not read index {index} twice because it was cleared after a previous read "
            "(perhaps try setting clear_after_read = false?)",
            it.pos(node),
        )
    item = _element(it, ta, index, node)
    if eager_clear:
        ta.items[index] = None
        ta.read_indices.add(index)
    return item


def _stack_of(it, ta, items: list, node):
    if not items:
        shape = (0, *(ta.element_shape or ()))
        return it.leaf(np.zeros(shape, dtype=ta.dtype), node)
    return it.op_call("stack", items, {"axis": 0}, node)


def _stack(it, ta, args, kwargs, node):
    items = [_element(it, ta, k, node) for k in range(len(ta.items))]
    return _stack_of(it, ta, items, node)


def _gather(it, ta, args, kwargs, node):
    from gradcli.tfcode.builtins import _opt

    indices = _opt(args, kwargs, 0, "indices")
    if isinstance(indices, (Tensor, Variable)):
        indices = [int(k) for k in it.value(it.tensor_id(indices, read=False)).reshape(-1)]
    if not isinstance(indices, (list, tuple)):
        it.refuse(node, f"TensorArray.gather of {_describe(indices)}")
    items = [_element(it, ta, _index(it, k, node, "index"), node) for k in indices]
    return _stack_of(it, ta, items, node)


def _concat(it, ta, args, kwargs, node):
    items = [_element(it, ta, k, node) for k in range(len(ta.items))]
    if any(len(it.g[i.id].shape) == 0 for i in items):
        it.refuse(node, "TensorArray.concat of scalars", UNRECORDED)
    if len(items) == 1:
        return it.op_call("identity", items, {}, node)
    return it.op_call("concat", items, {"axis": 0}, node)


def _unstack(it, ta, args, kwargs, node):
    from gradcli.tfcode.builtins import _opt

    value = _opt(args, kwargs, 0, "value")
    parts = it.op_call("unstack", [value], {"axis": 0}, node)
    if len(parts) > len(ta.items) and not ta.dynamic_size:
        raise Raises(
            "ValueError",
            f"Cannot unstack {len(parts)} tensors into a TensorArray of static size "
            f"{len(ta.items)} ",
            it.pos(node),
        )
    out = _target(it, ta)
    out.items = list(parts)
    if parts and out.element_shape is None:
        out.element_shape = tuple(it.g[parts[0].id].shape)
    return out


def _scatter(it, ta, args, kwargs, node):
    from gradcli.tfcode.builtins import _opt

    indices = _opt(args, kwargs, 0, "indices")
    if isinstance(indices, (Tensor, Variable)):
        indices = [int(k) for k in it.value(it.tensor_id(indices, read=False)).reshape(-1)]
    parts = it.op_call("unstack", [_opt(args, kwargs, 1, "value")], {"axis": 0}, node)
    out = _target(it, ta)
    for k, part in zip(indices, parts):
        _write(it, out, _index(it, k, node, "index"), part, node)
    return out


def _size(it, ta, args, kwargs, node):
    return it.leaf(np.array(len(ta.items), dtype="int32"), node)


def _same(it, ta, args, kwargs, node):
    return ta


def _nothing(it, ta, args, kwargs, node):
    return None


METHOD_FUNCTIONS = {
    "write": _write_method, "read": _read, "stack": _stack, "unstack": _unstack,
    "gather": _gather, "concat": _concat, "size": _size, "scatter": _scatter,
    "close": _nothing, "mark_used": _nothing, "identity": _same,
}  # fmt: skip
