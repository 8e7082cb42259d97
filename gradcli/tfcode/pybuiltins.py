"""Python's builtins the reader interprets (float, int, range, len, sum, zip, ...): values
as Python computes them; a tensor's float() or int() leaves TensorFlow (leaves_tape), or is
AutoGraph's cast inside @tf.function."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.dataset_iteration import iter_builtin, iterable, lazy_builtin, next_builtin
from gradcli.tfcode.values import Tensor, Unknown, Variable

if TYPE_CHECKING:  # annotations only: interpret.py imports this module
    from gradcli.tfcode.interpret import Interpreter


def _python_number(kind):
    def make(it: Interpreter, args, kwargs, node):
        value = args[0] if args else 0
        traced = it.symbolic(value) or (isinstance(value, Variable) and bool(it.tracing))
        if isinstance(value, (Tensor, Variable)) and traced:  # a variable there: a graph read
            if not (it.autograph and it.autograph[-1]):  # Python's own float() of a graph tensor
                it.refuse(node, f"{kind}() of a traced (symbolic) tensor in code AutoGraph does "
                          "not convert (autograph=False, a Keras layer's or model's method, "
                          "a custom gradient)",
                          "Python cannot convert a graph tensor there")  # fmt: skip
            dtype = "float32" if kind == "float" else "int32"  # AutoGraph's float() and int()
            return Tensor(it.emit("cast", [it.tensor_id(value)], {"dtype": dtype}, node))
        if isinstance(value, (Tensor, Variable)):
            return it.leave(value, node, ast.unparse(node), kind)
        if isinstance(value, Tensor):
            return value
        try:
            return float(value) if kind == "float" else int(value)
        except (TypeError, ValueError) as exc:
            raise GradcliError(f"{type(exc).__name__}: {exc}", it.pos(node)) from None

    return make


def _builtin(fn):
    def make(it: Interpreter, args, kwargs, node):
        if fn in (list, tuple) and args and iterable(args[0]):  # a dataset's elements
            return fn(args[0].tf_iterate(it, node))
        if any(isinstance(a, (Tensor, Variable, Unknown)) for a in args):
            it.refuse(node, f"{fn.__name__}() of a tensor")
        try:
            return fn(*args)
        except (TypeError, ValueError) as exc:
            raise GradcliError(f"{type(exc).__name__}: {exc}", it.pos(node)) from None

    return make


def _range_builtin(it: Interpreter, args, kwargs, node):
    if (
        not all(isinstance(a, int) and not isinstance(a, bool) for a in args)
        or not 1 <= len(args) <= 3
    ):
        it.refuse(node, "range() with non-constant bounds")
    try:
        return range(*args)
    except ValueError as exc:
        raise GradcliError(f"ValueError: {exc}", it.pos(node)) from None


def _len(it: Interpreter, args, kwargs, node):
    v = args[0]
    if isinstance(v, (Tensor, Variable)):
        shape = it.g[it.tensor_id(v, read=False)].shape
        return shape[0]
    if hasattr(v, "tf_len"):  # a dataset
        return v.tf_len(it, node)
    return _builtin(len)(it, args, kwargs, node)


def _sum(it: Interpreter, args, kwargs, node):
    """Python's sum(iterable, start=0): start + each item in turn (tensors: add ops)."""
    if not args:
        raise GradcliError(
            "TypeError: sum() takes at least 1 positional argument (0 given)", it.pos(node)
        )
    total = args[1] if len(args) > 1 else kwargs.get("start", 0)
    for item in it.iterate(args[0], node):
        total = it.binop(ast.Add(), total, item, node)
    return total


def _lazy(name: str):
    """zip and enumerate: lists, or lazy over a dataset (a loop over it may break)."""

    def make(it: Interpreter, args, kwargs, node):
        if any(iterable(a) for a in args):
            return lazy_builtin(it, name, args, kwargs, node)
        return list(zip(*args)) if name == "zip" else list(enumerate(*args, **kwargs))

    return make


def _isinstance(it, args, kwargs, node):
    """isinstance(value, T): T a Python type (tuple, list, dict, int, float, str, bool),
    tf.Tensor / tf.Variable, a class of the file or of Keras, or a tuple of them."""
    from gradcli.tfcode.keras.objects import Class, Instance
    from gradcli.tfcode.support import _describe
    from gradcli.tfcode.values import Module

    if len(args) != 2 or kwargs:
        it.refuse(node, "isinstance with other than two arguments")
    value, kinds = args
    python = {"tuple": tuple, "list": list, "dict": dict, "int": int, "float": float,
              "str": str, "bool": bool}  # fmt: skip
    for kind in kinds if isinstance(kinds, tuple) else (kinds,):
        path = kind.path if isinstance(kind, Module) else None
        if path is not None and path.startswith("builtins.") and path[9:] in python:
            if isinstance(value, python[path[9:]]):
                return True
        elif path in ("tf.Tensor", "tf.Variable"):
            if isinstance(value, Variable if path == "tf.Variable" else (Tensor, Variable)):
                return True
        elif isinstance(kind, Class):
            if isinstance(value, Instance) and kind in value.cls.mro():
                return True
        else:
            it.refuse(node, f"isinstance(..., {_describe(kind)})")
    return False


PYTHON_BUILTINS = {
    "builtins.isinstance": _isinstance,
    "builtins.dict": _builtin(dict),
    "builtins.float": _python_number("float"),
    "builtins.int": _python_number("int"),
    "builtins.range": _range_builtin,
    "builtins.sum": _sum,
    "builtins.len": _len,
    "builtins.abs": _builtin(abs),
    "builtins.min": _builtin(min),
    "builtins.max": _builtin(max),
    "builtins.list": _builtin(list),
    "builtins.tuple": _builtin(tuple),
    "builtins.str": _builtin(str),
    "builtins.bool": _builtin(bool),
    "builtins.zip": _lazy("zip"),
    "builtins.enumerate": _lazy("enumerate"),
    "builtins.iter": iter_builtin,
    "builtins.next": next_builtin,
}
BUILTINS = {"print", "super", *(name.split(".", 1)[1] for name in PYTHON_BUILTINS)}
