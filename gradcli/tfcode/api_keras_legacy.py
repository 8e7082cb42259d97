"""The legacy tf.keras.backend (K.*) functions that need a handler (api_keras_calls.py has
the keras.ops ones): K.sqrt is sqrt(maximum(x, 0)) (a negative x gets no gradient), K.clip
with max < min clips to min, K.switch is tf.cond for a scalar condition and tf.where
otherwise, K.get_value / K.eval leave the tape; constants such as K.epsilon()."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.support import Raises
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _bind(it: Interpreter, path, params, args, kwargs, node) -> dict:
    if len(args) > len(params):
        it.refuse(node, f"{path} with {len(args)} arguments")
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"{path}(..., {k}=...)")
        bound[k] = v
    return bound


def _shape(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("x",), args, kwargs, node)
    return tuple(it.g[it.tensor_id(b.get("x"), read=False)].shape)


def _ndim(it: Interpreter, path, args, kwargs, node):
    return len(_shape(it, path, args, kwargs, node))


def _legacy_sqrt(it: Interpreter, path, args, kwargs, node):
    # sqrt(maximum(x, 0)): tf.maximum's tie sends the gradient to x at 0
    b = _bind(it, path, ("x",), args, kwargs, node)
    return it.op_call("sqrt", [it.op_call("maximum", [b.get("x"), 0.0], {}, node)], {}, node)


def _legacy_clip(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("x", "min_value", "max_value"), args, kwargs, node)
    lo, hi = b.get("min_value"), b.get("max_value")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi < lo:
        hi = lo
    lo = float("-inf") if lo is None else lo
    hi = float("inf") if hi is None else hi
    return it.op_call("clip", [b.get("x"), lo, hi], {}, node)


def _legacy_flatten(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("x",), args, kwargs, node)
    return it.op_call("reshape", [b.get("x")], {"shape": [-1]}, node)


def _legacy_batch_flatten(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("x",), args, kwargs, node)
    shape = _shape(it, path, [b.get("x")], {}, node)
    rest = 1
    for d in shape[1:]:
        rest *= d
    return it.op_call("reshape", [b.get("x")], {"shape": [-1, rest]}, node)


def _legacy_relu(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("x", "alpha", "max_value", "threshold"), args, kwargs, node)
    if b.get("alpha", 0.0) != 0 or b.get("threshold", 0.0) != 0 or b.get("max_value") is not None:
        it.refuse(node, f"{path} with alpha, max_value or threshold")
    return it.op_call("relu", [b.get("x")], {}, node)


def _legacy_switch(it: Interpreter, path, args, kwargs, node):
    """K.switch(condition, then, else): tf.cond for a scalar condition, else tf.where with the
    condition reshaped to the expressions' rank (trailing axes of size 1, as Keras tiles)."""
    b = _bind(it, path, ("condition", "then_expression", "else_expression"), args, kwargs, node)
    cond, a, c = b.get("condition"), b.get("then_expression"), b.get("else_expression")
    if not all(isinstance(v, (Tensor, Variable)) for v in (cond, a)):
        it.refuse(node, f"{path} of values that are not tensors", "give tensors (not callables)")
    if it.g[it.tensor_id(cond, read=False)].dtype != "bool":
        cond = it.op_call("cast", [cond], {"dtype": "bool"}, node)
    rank = len(_shape(it, path, [cond], {}, node))
    if rank == 0:
        return it.op_call("cond", [cond, a, c], {}, node)
    expr = _shape(it, path, [a], {}, node)
    if rank > len(expr):
        raise Raises(
            "ValueError",
            "Rank of `condition` should be less than or equal to rank of `then_expression` "
            f"and `else_expression`. ndim(condition)={rank}, ndim(then_expression)={len(expr)}",
            it.pos(node),
        )
    if 1 < rank < len(expr):
        shape = [*_shape(it, path, [cond], {}, node), *[1] * (len(expr) - rank)]
        cond = it.op_call("reshape", [cond], {"shape": shape}, node)
    return it.op_call("where", [cond, a, c], {}, node)


def _legacy_get_value(it: Interpreter, path, args, kwargs, node):
    """K.get_value(x) / K.eval(x): x.numpy() on an eager tensor (leaves the tape)."""
    import ast

    b = _bind(it, path, ("x",), args, kwargs, node)
    x = b.get("x")
    if not isinstance(x, (Tensor, Variable)):
        return x
    if it.symbolic(x):
        it.refuse(node, f"{path} of a traced (symbolic) tensor")
    return it.leave(x, node, ast.unparse(node), "numpy")


def _constant_of(value):
    def run(it: Interpreter, path, args, kwargs, node):
        if args or kwargs:
            it.refuse(node, f"{path} with arguments")
        return value

    return run


def _legacy_constant(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("value", "dtype", "shape", "name"), args, kwargs, node)
    if b.get("shape") is not None:
        it.refuse(node, f"{path}(..., shape=...)")
    dtype = b.get("dtype") or "float32"  # floatx()
    return it.call_api("tf.constant", [b.get("value")], {"dtype": dtype}, node, None)


# K.<name> -> its handler (the ones that need nothing of api_keras_calls)
LEGACY_ONLY = {
    "sqrt": _legacy_sqrt, "clip": _legacy_clip, "flatten": _legacy_flatten,
    "batch_flatten": _legacy_batch_flatten, "relu": _legacy_relu,
    "epsilon": _constant_of(1e-7), "floatx": _constant_of("float32"),
    "image_data_format": _constant_of("channels_last"), "backend": _constant_of("tensorflow"),
    "clear_session": _constant_of(None), "int_shape": _shape, "ndim": _ndim,
    "constant": _legacy_constant, "switch": _legacy_switch, "get_value": _legacy_get_value,
    "eval": _legacy_get_value,
}  # fmt: skip
