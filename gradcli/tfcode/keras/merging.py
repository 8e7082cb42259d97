"""Keras's Dot layer and the lowercase merge functions (keras.layers.add, subtract,
multiply, average, maximum, minimum, concatenate, dot) for the reader.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- keras.layers.add(inputs, **kwargs) is Add(**kwargs)(inputs) (a new layer, auto-named
  add, add_1, ...), and so for the others; concatenate(inputs, axis=-1), dot(inputs,
  axes=-1, normalize=False).
- Dot(axes, normalize=False): axes an int (a negative one taken modulo each input's rank)
  or a pair; normalize=True first scales each input by minimum(rsqrt(sum(x², axis,
  keepdims)), 1 / epsilon) with epsilon 1e-7 (keras.ops.normalize); then keras's
  batch_dot: rank-2 inputs get a unit axis (x at 1, y at 2), the contracted axes are moved
  last (x) and to 1 (y), rank > 3 inputs are squashed to rank 3, tf.matmul, reshaped back,
  and the unit axis squeezed out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.conv_layers import bind, shape
from gradcli.tfcode.keras.core_layers import MERGE_CLASSES
from gradcli.tfcode.keras.layers import LAYER
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import call_object, instantiate
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

EPSILON = 1e-7  # keras.backend.epsilon()


def _dot_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Dot(axes, normalize=False) (Keras's TypeError/ValueError for malformed axes)."""
    b = bind(it, obj, args, kwargs, node, ("axes", "normalize"), {"normalize": False})
    if "axes" not in b:
        raise GradcliError(
            "TypeError: Dot.__init__() missing 1 required positional argument: 'axes'",
            it.pos(node),
        )
    axes = b["axes"]
    if not isinstance(axes, int) or isinstance(axes, bool):
        if not isinstance(axes, (list, tuple)):
            raise GradcliError(
                "TypeError: Invalid type for argument `axes`: it should be a list or an int. "
                f"Received: axes={axes}",
                it.pos(node),
            )
        if len(axes) != 2:
            raise GradcliError(
                "ValueError: Invalid format for argument `axes`: it should contain two "
                f"elements. Received: axes={axes}",
                it.pos(node),
            )
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
            raise GradcliError(
                "ValueError: Invalid format for argument `axes`: list elements should be "
                f"integers. Received: axes={axes}",
                it.pos(node),
            )
    if not isinstance(b["normalize"], bool):
        it.refuse(node, f"Dot(normalize={_describe(b['normalize'])})", "give True or False")
    obj.data.update(axes=axes, normalize=b["normalize"])
    return None


def _normalize(it: Interpreter, x, axis: int, node):
    """keras.ops.normalize(x, axis) (order 2): x * minimum(rsqrt(sum(x², axis)), 1/eps)."""
    sq = it.op_call("sum", [it.op_call("square", [x], {}, node)], {"axis": axis, "keepdims": True},
                    node)  # fmt: skip
    inv = it.op_call("minimum", [it.op_call("rsqrt", [sq], {}, node), 1.0 / EPSILON], {}, node)
    return it.op_call("mul", [x, inv], {}, node)


def batch_dot(it: Interpreter, x, y, axes: list[int], node):
    """keras's batch_dot (merging/dot.py) with axes already made non-negative."""
    xs, ys = shape(it, x), shape(it, y)
    if 0 in axes:
        it.refuse(node, "a Dot over the batch axis 0", UNRECORDED)
    a0, a1 = axes
    if xs[0] != ys[0] or xs[a0] != ys[a1]:
        raise GradcliError(
            f"ValueError: Incompatible input shapes: axis values {xs[a0]} (at axis {a0}) != "
            f"{ys[a1]} (at axis {a1}). Full input shapes: {xs}, {ys}",
            it.pos(node),
        )
    xn, yn = len(xs), len(ys)
    if xn == 2:
        x = it.op_call("expand_dims", [x], {"axis": 1}, node)
        a0, xn = a0 + 1, 3
    if yn == 2:
        y = it.op_call("expand_dims", [y], {"axis": 2}, node)
        yn = 3
    if a0 != xn - 1:
        pattern = list(range(xn))
        for i in range(a0, xn - 1):
            pattern[i] = pattern[i + 1]
        pattern[-1] = a0
        x = it.op_call("transpose", [x], {"axes": pattern}, node)
    if a1 != 1:
        pattern = list(range(yn))
        for i in range(a1, 1, -1):
            pattern[i] = pattern[i - 1]
        pattern[1] = a1
        y = it.op_call("transpose", [y], {"axes": pattern}, node)
    x_mid = y_trail = None
    if xn > 3:
        s = shape(it, x)
        x_mid = list(s[1:-1])
        x = it.op_call("reshape", [x], {"shape": [s[0], -1, s[-1]]}, node)
    if yn > 3:
        s = shape(it, y)
        y_trail = list(s[2:])
        y = it.op_call("reshape", [y], {"shape": [s[0], s[1], -1]}, node)
    out = it.op_call("matmul", [x, y], {}, node)
    if x_mid is not None or y_trail is not None:
        s = list(shape(it, out))
        if x_mid is not None:
            s = s[:1] + x_mid + s[-1:]
        if y_trail is not None:
            s = s[:-1] + y_trail
        out = it.op_call("reshape", [out], {"shape": s}, node)
    if len(xs) == 2:
        out = it.op_call("squeeze", [out], {"axis": [1]}, node)
    elif len(ys) == 2:
        out = it.op_call("squeeze", [out], {"axis": [-1]}, node)
    return out


def _dot_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Dot's merge: normalised (if asked) inputs through batch_dot."""
    inputs = args[0] if args else kwargs.get("inputs")
    if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
        it.refuse(node, f"a Dot layer on {_describe(inputs)}", UNRECORDED)
    if not all(isinstance(v, (Tensor, Variable)) for v in inputs):
        it.refuse(node, f"a Dot layer on {_describe(inputs)}")
    x1, x2 = inputs
    r1, r2 = len(shape(it, x1)), len(shape(it, x2))
    if r1 < 2 or r2 < 2:
        it.refuse(node, f"a Dot layer on inputs of rank {r1} and {r2}", UNRECORDED)
    axes = obj.data["axes"]
    if isinstance(axes, int):
        axes = [axes % r1, axes % r2] if axes < 0 else [axes, axes]
    else:
        axes = [a % r if a < 0 else a for a, r in zip(axes, (r1, r2))]
    if obj.data["normalize"]:
        x1 = _normalize(it, x1, axes[0], node)
        x2 = _normalize(it, x2, axes[1], node)
    return batch_dot(it, x1, x2, axes, node)


DOT = Class("Dot", (LAYER,), {"__init__": Builtin(_dot_init), "call": Builtin(_dot_call)})


# --- the lowercase functions -------------------------------------------------------------------
def _function(cls: Class, options: tuple = ()):
    def apply(it: Interpreter, args, kwargs, node):
        """keras.layers.<name>(inputs, **kwargs): a new layer called on inputs."""
        if not args and "inputs" not in kwargs:
            raise GradcliError(
                f"TypeError: {cls.name.lower()}() missing 1 required positional argument: 'inputs'",
                it.pos(node),
            )
        kwargs = dict(kwargs)
        inputs = args[0] if args else kwargs.pop("inputs")
        bound = dict(zip(options, args[1:]))
        bound.update(kwargs)
        layer = instantiate(it, cls, [], bound, node)
        return call_object(it, layer, [inputs], {}, node)

    return apply


# keras.<name> -> function(it, args, kwargs, node) (keras/__init__.py's FUNCTIONS)
FUNCTIONS = {
    "layers.add": _function(MERGE_CLASSES["layers.Add"]),
    "layers.subtract": _function(MERGE_CLASSES["layers.Subtract"]),
    "layers.multiply": _function(MERGE_CLASSES["layers.Multiply"]),
    "layers.average": _function(MERGE_CLASSES["layers.Average"]),
    "layers.maximum": _function(MERGE_CLASSES["layers.Maximum"]),
    "layers.minimum": _function(MERGE_CLASSES["layers.Minimum"]),
    "layers.concatenate": _function(MERGE_CLASSES["layers.Concatenate"], ("axis",)),
}
_DOT = _function(DOT, ("axes", "normalize"))


def _dot_function(it: Interpreter, args, kwargs, node):
    """keras.layers.dot(inputs, axes=-1, normalize=False)."""
    if len(args) < 2 and "axes" not in kwargs:
        kwargs = {**kwargs, "axes": -1}
    return _DOT(it, args, kwargs, node)


FUNCTIONS["layers.dot"] = _dot_function
CLASSES = {"layers.Dot": DOT}
