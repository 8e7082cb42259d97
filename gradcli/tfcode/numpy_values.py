"""NumPy's constructors and random functions, read as NumPy values (kind np).

The elementwise, reduction and shape functions of NumPy are rows of api_table.NP (ops: on a
TensorFlow tensor they leave the tape first, leaves_tape). These make arrays from Python
values and give them NumPy's dtypes (np.arange(5) is int64, np.linspace float64):
arange, linspace, zeros_like/ones_like/full_like/empty_like, full, empty, eye, identity,
vstack/hstack, np.float32(x)-style scalar constructors (on a tensor: leaves_tape); np.random
is random_values.py's.
`keras.utils.to_categorical(x, num_classes=None)` is here too: Keras 3 computes it in NumPy
(float64), a trailing dimension of 1 dropped.
"""

from __future__ import annotations

import ast

import numpy as np

from gradcli.tfcode.packing import pack
from gradcli.tfcode.random_values import NP_RANDOM
from gradcli.tfcode.support import Refused, _describe, _is_tf
from gradcli.tfcode.values import NP, DType, Tensor, Unknown, Variable


def _args(it, path: str, params: tuple, args, kwargs, node) -> dict:
    """The call's arguments by NumPy's parameter names (unknown keywords refused)."""
    if len(args) > len(params):
        it.refuse(node, f"{path} with {len(args)} positional arguments")
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"{path}(..., {k}=...)")
        bound[k] = v
    for v in bound.values():
        if isinstance(v, Unknown):
            raise Refused()
    return bound


def _number(it, value, node):
    """A Python number from a Python value or a scalar tensor/array."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (Tensor, Variable)):
        arr = it.as_array(value, node)
        if arr.size == 1:
            return arr.reshape(()).item()
    it.refuse(node, f"the number {_describe(value)}", "give a Python number")


def _dtype(it, value, node) -> str | None:
    from gradcli.tfcode.builtins import _dtype_arg

    if value is float:
        return "float64"
    if value is int:
        return "int64"
    if value is bool:
        return "bool"
    return _dtype_arg(it, value, node)


def _leaf(it, arr, node) -> Tensor:
    return it.leaf(np.asarray(arr), node, NP)


def _array(it, value, node) -> np.ndarray:
    """The concrete value of an array argument (a tensor's too: its values, not its tape);
    Python floats are float64 here, as in NumPy."""
    if isinstance(value, (Tensor, Variable)):
        return np.asarray(it.as_array(value, node))
    return it.python_array(value, node)


def _arange(it, args, kwargs, node):
    bound = _args(it, "np.arange", ("start", "stop", "step", "dtype"), args, kwargs, node)
    nums = [_number(it, bound[k], node) for k in ("start", "stop", "step") if k in bound]
    nums = [n for n in nums if n is not None]
    if not nums:
        it.refuse(node, "np.arange without a stop")
    arr = np.arange(*nums)
    dtype = _dtype(it, bound.get("dtype"), node)
    return _leaf(it, arr.astype(dtype) if dtype else arr, node)


def _linspace(it, args, kwargs, node):
    params = ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis")
    bound = _args(it, "np.linspace", params, args, kwargs, node)
    if bound.get("retstep"):
        it.refuse(node, "np.linspace(..., retstep=True)")
    start, stop = _array(it, bound.get("start"), node), _array(it, bound.get("stop"), node)
    num = _number(it, bound.get("num", 50), node)
    arr = np.linspace(start, stop, int(num), bool(bound.get("endpoint", True)),
                      axis=int(bound.get("axis", 0)))  # fmt: skip
    dtype = _dtype(it, bound.get("dtype"), node)
    return _leaf(it, arr.astype(dtype) if dtype else arr, node)


def _like(fill):
    def make(it, args, kwargs, node):
        from gradcli.tfcode.builtins import _shape

        params = ("a", "dtype", "order", "subok", "shape") if fill != "full" else (
            "a", "fill_value", "dtype", "order", "subok", "shape")  # fmt: skip
        path = f"np.{fill}_like"
        bound = _args(it, path, params, args, kwargs, node)
        like = bound.get("a")
        if isinstance(like, (Tensor, Variable)):
            n = it.g[it.tensor_id(like, read=False)]
            shape, dtype = tuple(n.shape), n.dtype
        else:
            arr = it.python_array(like, node)
            shape, dtype = arr.shape, str(arr.dtype)
        if bound.get("shape") is not None:
            shape = _shape(it, bound["shape"], node)
        dtype = _dtype(it, bound.get("dtype"), node) or dtype
        value = {"zeros": 0, "empty": 0, "ones": 1}.get(fill)
        if fill == "full":
            value = _number(it, bound.get("fill_value"), node)
        return _leaf(it, np.full(shape, value, dtype=dtype), node)

    return make


def _full(it, args, kwargs, node):
    from gradcli.tfcode.builtins import _shape

    bound = _args(it, "np.full", ("shape", "fill_value", "dtype", "order"), args, kwargs, node)
    shape = _shape(it, bound.get("shape"), node)
    fill = _array(it, bound.get("fill_value"), node)
    dtype = _dtype(it, bound.get("dtype"), node)
    return _leaf(it, np.full(shape, fill, dtype=dtype), node)


def _empty(it, args, kwargs, node):
    from gradcli.tfcode.builtins import _shape

    bound = _args(it, "np.empty", ("shape", "dtype", "order"), args, kwargs, node)
    dtype = _dtype(it, bound.get("dtype"), node) or "float64"
    return _leaf(it, np.zeros(_shape(it, bound.get("shape"), node), dtype=dtype), node)


def _eye(it, args, kwargs, node):
    bound = _args(it, "np.eye", ("N", "M", "k", "dtype", "order"), args, kwargs, node)
    n, m = _number(it, bound.get("N"), node), bound.get("M")
    m = None if m is None else int(_number(it, m, node))
    dtype = _dtype(it, bound.get("dtype"), node) or "float64"
    return _leaf(it, np.eye(int(n), m, int(bound.get("k", 0)), dtype=dtype), node)


def _identity(it, args, kwargs, node):
    bound = _args(it, "np.identity", ("n", "dtype"), args, kwargs, node)
    dtype = _dtype(it, bound.get("dtype"), node) or "float64"
    return _leaf(it, np.identity(int(_number(it, bound.get("n"), node)), dtype=dtype), node)


def _stacked(how: str):
    """np.vstack/hstack(tup): concatenations (1-D arrays are rows for vstack)."""

    def make(it, args, kwargs, node):
        bound = _args(it, f"np.{how}", ("tup", "dtype", "casting"), args, kwargs, node)
        items = bound.get("tup")
        if not isinstance(items, (list, tuple)) or not items:
            it.refuse(node, f"np.{how} of {_describe(items)}", "give a list of arrays")
        ranks = [_rank(it, v, node) for v in items]
        if how == "vstack":
            items = [
                it.op_call("reshape", [v], {"shape": [1, -1]}, node) if r < 2 else v
                for v, r in zip(items, ranks)
            ]
            axis = 0
        else:
            axis = 0 if all(r == 1 for r in ranks) else 1
        return _np_op(it, "concat", items, {"axis": axis}, node, f"np.{how}")

    return make


def _rank(it, value, node) -> int:
    if isinstance(value, (Tensor, Variable)):
        return len(it.g[it.tensor_id(value, read=False)].shape)
    return it.python_array(value, node).ndim


def _np_op(it, opname: str, operands: list, attrs: dict, node, path: str) -> Tensor:
    """An op on NumPy's side: TensorFlow tensors among the operands leave the tape first."""
    operands = [it.leave(v, node, ast.unparse(node), path) if _is_tf(v) else v for v in operands]
    result = it.op_call(opname, operands, attrs, node)
    return Tensor(result.id, NP)


def _where(it, args, kwargs, node):
    """np.where(condition, x, y) (the one-argument form, indices, is refused)."""
    from gradcli.tfcode.api_table import NP as ROWS

    if len(args) + len(kwargs) == 1:
        it.refuse(node, "np.where(condition) (the indices form)", "use np.nonzero's values")
    return it.table_call("np.where", ROWS["np.where"], args, kwargs, node)


def _tile(it, args, kwargs, node):
    """np.tile(A, reps): reps an integer or a list of them."""
    from gradcli.tfcode.api_table import NP as ROWS

    args = list(args)
    if len(args) > 1 and isinstance(args[1], int):
        args[1] = [args[1]]
    if isinstance(kwargs.get("reps"), int):
        kwargs = {**kwargs, "reps": [kwargs["reps"]]}
    return it.table_call("np.tile", ROWS["np.tile"], args, kwargs, node)


def _arg(name: str):
    """np.argmax/argmin(a, axis=None): without an axis NumPy takes the flat index."""

    def call(it, args, kwargs, node):
        from gradcli.tfcode.api_table import NP as ROWS

        bound = _args(it, f"np.{name}", ("a", "axis", "out", "keepdims"), args, kwargs, node)
        if bound.get("out") is not None or bound.get("keepdims"):
            it.refuse(node, f"np.{name}(..., out=/keepdims=)")
        a, axis = bound.get("a"), bound.get("axis")
        if axis is None:
            a = _np_op(it, "reshape", [a], {"shape": [-1]}, node, f"np.{name}")
            axis = 0
        return it.table_call(f"np.{name}", ROWS[f"np.{name}"], [a, axis], {}, node)

    return call


def _reduction(name: str):
    """np.mean/std/var/sum/prod/max/min of integers or booleans as NumPy computes them: the
    mean, std and var in float64, sum and prod of booleans counted in int64."""

    def call(it, args, kwargs, node):
        from gradcli.tfcode.api_table import NP as ROWS

        args, kwargs = list(args), dict(kwargs)
        a = args[0] if args else kwargs.pop("a", None)
        if isinstance(a, Unknown):
            raise Refused()
        a = pack(it, a, node, numpy=True) or a  # a list holding tensors: NumPy reads them
        if isinstance(a, (Tensor, Variable)):
            dtype = it.g[it.tensor_id(a, read=False)].dtype
        else:
            a = it.python_array(a, node)
            dtype = str(a.dtype)
        target = None
        if name in ("mean", "std", "var") and dtype not in ("float32", "float64"):
            target = "float64"
        elif name in ("sum", "prod") and dtype == "bool":
            target = "int64"
        if target is not None:
            if isinstance(a, (Tensor, Variable)):
                a = _np_op(it, "cast", [a], {"dtype": target}, node, f"np.{name}")
            else:
                a = a.astype(target)
        if isinstance(a, np.ndarray):
            a = _leaf(it, a, node)
        row = ROWS[f"np.{name}"]
        return it.table_call(f"np.{name}", row, [a, *args[1:]], kwargs, node)

    return call


def take_rows(it, value: Tensor, key, node) -> Tensor:
    """x[idx] of a NumPy array with an integer array or list: the rows idx names (gather;
    negative indices count from the end, as NumPy's)."""
    n = it.g[value.id].shape[0] if it.g[value.id].shape else 0
    idx = np.asarray(it.as_array(key, node) if isinstance(key, Tensor) else key, dtype="int64")
    if np.any((idx >= n) | (idx < -n)):
        from gradcli.tfcode.support import Raises

        bad = int(idx[(idx >= n) | (idx < -n)].reshape(-1)[0])
        message = f"index {bad} is out of bounds for axis 0 with size {n}"
        raise Raises("IndexError", message, it.pos(node))
    rows = _leaf(it, np.where(idx < 0, idx + n, idx), node)
    return _np_op(it, "gather", [value, rows], {"axis": 0}, node, "x[idx]")


# a NumPy array's methods: numpy function of the same name (the array first)
ARRAY_METHODS = {"reshape", "flatten", "ravel", "sum", "mean", "max", "min", "prod", "std",
                 "var", "argmax", "argmin", "copy", "transpose", "squeeze"}  # fmt: skip


def array_method(it, obj: Tensor, name: str, args, kwargs, node):
    """arr.reshape(...), arr.sum(axis=...) ... of a NumPy array (kind np): NumPy's results."""
    if name == "copy":
        return obj
    if name in ("flatten", "ravel"):
        return _np_op(it, "reshape", [obj], {"shape": [-1]}, node, f"np.{name}")
    if name in ("reshape", "transpose"):
        shape = kwargs.get("shape", kwargs.get("axes"))
        if shape is None:
            shape = args[0] if len(args) == 1 and not isinstance(args[0], int) else list(args)
        if name == "transpose" and not shape:
            shape = None
        return it.call_api(f"np.{name}", [obj, shape], {}, node, None)
    return it.call_api(f"np.{name}", [obj, *args], kwargs, node, None)


def scalar_constructor(it, dtype: DType, args, kwargs, node):
    """np.float32(x), np.int64(x) ...: a NumPy value of that dtype (a tensor leaves the tape;
    tf.float32(x) is TensorFlow's TypeError, a DType is not callable)."""
    text = ast.unparse(node.func)
    if text.startswith("tf."):
        from gradcli.tfcode.support import Raises

        raise Raises("TypeError", "'DType' object is not callable", it.pos(node))
    value = args[0] if args else kwargs.get("x", 0)
    if isinstance(value, Unknown):
        raise Refused()
    if isinstance(value, (Tensor, Variable)):
        return _np_op(it, "cast", [value], {"dtype": dtype.name}, node, f"np.{dtype.name}")
    arr = it.python_array(value, node)
    return _leaf(it, arr.astype(dtype.name), node)


# --- keras.utils.to_categorical ----------------------------------------------------------------
def _to_categorical(it, args, kwargs, node):
    """keras.utils.to_categorical(x, num_classes=None): Keras 3's NumPy one-hot (float64)."""
    bound = _args(it, "to_categorical", ("x", "num_classes"), args, kwargs, node)
    x = bound.get("x")
    if _is_tf(x):
        it.refuse(node, "to_categorical of a TensorFlow tensor", "use tf.one_hot")
    labels = _array(it, x, node).astype("int64")
    shape = labels.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    flat = labels.reshape(-1)
    n = bound.get("num_classes")
    n = int(flat.max()) + 1 if not n else int(_number(it, n, node))
    out = np.zeros((flat.size, n), dtype="float64")
    out[np.arange(flat.size), flat] = 1.0
    return _leaf(it, out.reshape((*shape, n)), node)


FIXES = {  # what to write instead of a NumPy function that takes a tensor off the tape
    "np.concatenate": "use tf.concat", "np.vstack": "use tf.concat",
    "np.hstack": "use tf.concat", "np.arcsin": "use tf.asin", "np.arccos": "use tf.acos",
    "np.arctan": "use tf.atan", "np.std": "use tf.math.reduce_std",
    "np.var": "use tf.math.reduce_variance", "np.outer": "use tf.tensordot(a, b, axes=0)",
    "np.trace": "use tf.linalg.trace",
    **{f"np.{d}": "use tf.cast" for d in ("float32", "float64", "int32", "int64", "bool")},
}  # fmt: skip
SPECIAL = {
    **NP_RANDOM,
    "np.arange": _arange,
    "np.linspace": _linspace,
    "np.zeros_like": _like("zeros"),
    "np.ones_like": _like("ones"),
    "np.empty_like": _like("empty"),
    "np.full_like": _like("full"),
    "np.full": _full,
    "np.empty": _empty,
    "np.eye": _eye,
    "np.identity": _identity,
    "np.vstack": _stacked("vstack"),
    "np.hstack": _stacked("hstack"),
    "np.where": _where,
    "np.tile": _tile,
    **{f"np.{n}": _reduction(n) for n in ("mean", "std", "var", "sum", "prod")},
    "np.argmax": _arg("argmax"),
    "np.argmin": _arg("argmin"),
    "keras.utils.to_categorical": _to_categorical,
    "tf.keras.utils.to_categorical": _to_categorical,
}
