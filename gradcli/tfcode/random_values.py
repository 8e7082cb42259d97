"""Random values: np.random.normal/uniform/randn/rand/randint/random/random_sample/
standard_normal/choice/permutation/shuffle and tf.random.normal/uniform, drawn from gradcli's
seeded generator (numbers differ from NumPy's and TensorFlow's; snippets using them are
`values: structure`). NumPy's give a Python number without `size=`, as NumPy does;
np.random.shuffle keeps the order (one of the permutations NumPy could draw).

tf.random.uniform with an integer dtype (int32/int64) draws integers in [minval, maxval)
(TensorFlow requires maxval then: ValueError "Must specify maxval for integer dtype tf.int32");
an integer tensor has no gradient, so it is a constant of the program.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.drawn import note_draw
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import NP, TF, Tensor

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _random(dist: str):
    """np.random.*: gradcli's own seeded generator (numbers differ from NumPy's)."""

    def make(it: Interpreter, args, kwargs, node):
        from gradcli.tfcode.builtins import _opt, _shape

        if dist in ("randn", "rand"):  # np.random.rand(d0, d1, ...): the shape only
            size = tuple(args) if args else None
            params = {}
        else:
            size = _opt(args, kwargs, 2, "size")
            names = ("loc", "scale") if dist == "normal" else ("low", "high")
            params = {k: _opt(args, kwargs, i, k) for i, k in enumerate(names)}
        for k, v in params.items():
            if v is not None and not isinstance(v, (int, float)):
                params[k] = it.as_array(v, node).astype("float64")
        shape = _shape(it, size, node) if size is not None else ()
        if dist in ("normal", "randn"):
            mean, std = params.get("loc"), params.get("scale")
            arr = it.rng.normal(0.0 if mean is None else mean, 1.0 if std is None else std, shape)
        else:
            low, high = params.get("low"), params.get("high")
            arr = it.rng.uniform(0.0 if low is None else low, 1.0 if high is None else high, shape)
        if size is None and np.ndim(arr) == 0:  # NumPy gives a float without a size
            return float(arr)
        return it.leaf(arr.astype("float64"), node, NP)

    return make


TF_RANDOM = {  # tf.random.normal/uniform: parameters in order, and the two tensor ones
    "normal": (("shape", "mean", "stddev", "dtype", "seed", "name"), ("mean", "stddev")),
    "uniform": (("shape", "minval", "maxval", "dtype", "seed", "name"), ("minval", "maxval")),
}


def _seed(it: Interpreter, seed, node) -> int:
    """An op seed: the given integer, else the next one from the reader's generator (so
    unseeded calls draw different numbers, as TensorFlow's stream does)."""
    if seed is None:
        return int(it.rng.unrecorded.integers(2**31))  # the op it seeds is noted
    if isinstance(seed, int) and not isinstance(seed, bool):
        return seed
    it.refuse(node, f"the seed {_describe(seed)}", "give a Python integer")


def _tf_random(dist: str):
    """tf.random.normal/uniform as gradcli's random_normal/random_uniform ops: draws * stddev +
    mean and draws * (maxval - minval) + minval, so tensor arguments get TensorFlow's
    gradients; the draws come from gradcli's generator."""
    params, (low, high) = TF_RANDOM[dist]

    def make(it: Interpreter, args, kwargs, node):
        from gradcli.tfcode.builtins import _dtype_arg, _shape

        if len(args) > len(params):
            it.refuse(node, f"tf.random.{dist} with {len(args)} positional arguments", UNRECORDED)
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params:
                it.refuse(node, f"tf.random.{dist}(..., {k}=...)")
            bound[k] = v
        shape = _shape(it, bound.get("shape", ()), node)
        dtype = _dtype_arg(it, bound.get("dtype"), node) or "float32"
        if dist == "uniform" and dtype in ("int32", "int64"):
            return _integer_uniform(it, bound, shape, dtype, node)
        if dtype not in ("float32", "float64"):
            it.refuse(node, f"tf.random.{dist} with dtype {dtype}")
        lo, hi = bound.get(low), bound.get(high)
        operands = [0.0 if lo is None else lo, 1.0 if hi is None else hi]
        attrs = {"shape": shape, "dtype": dtype, "seed": _seed(it, bound.get("seed"), node)}
        ids = it.convert(operands, node, default=dtype)
        return Tensor(it.emit(f"random_{dist}", ids, attrs, node), TF)

    return make


def _integer_uniform(it: Interpreter, bound: dict, shape, dtype: str, node) -> Tensor:
    """tf.random.uniform(shape, minval=0, maxval, dtype=tf.int32/int64): integers in
    [minval, maxval) from gradcli's generator (TensorFlow's ValueError without maxval, its
    TypeError for a minval or maxval that is not an integer)."""
    if bound.get("maxval") is None:
        message = f"Must specify maxval for integer dtype tf.{dtype}"
        raise Raises("ValueError", message, it.pos(node))
    bounds = []
    for key, default in (("minval", 0), ("maxval", None)):
        value = bound.get(key)
        value = default if value is None else value
        if isinstance(value, float):
            message = f"Cannot convert {value!r} to EagerTensor of dtype {dtype}"
            raise Raises("TypeError", message, it.pos(node))
        arr = np.asarray(it.as_array(value, node))
        if arr.dtype.kind not in "iu":
            it.refuse(node, f"tf.random.uniform's {key}={_describe(value)} for dtype {dtype}")
        bounds.append(arr.astype("int64"))
    low, high = bounds
    if np.any(high <= low):
        raise Raises(
            "InvalidArgumentError",
            "{{function_node __wrapped__RandomUniformInt_device_/job:localhost/replica:0/task:0/"
            f"device:CPU:0}}}} Need minval < maxval, got {low} >= {high} [Op:RandomUniformInt] "
            "name: ",
            it.pos(node),
        )
    arr = it.rng.integers(low, high, size=shape).astype(dtype)
    return it.leaf(arr, node, TF)


# --- np.random's other functions: randint, random, choice, permutation, shuffle ---------------
def _size(it, size, node) -> tuple | None:
    from gradcli.tfcode.builtins import _shape

    return None if size is None else _shape(it, size, node)


def _scalar_or_leaf(it, arr, size, node):
    """NumPy returns a Python-like scalar when size is None, else an array."""
    if size is None:
        return np.asarray(arr).reshape(()).item()
    return _np_leaf(it, arr, node)


def _randint(it, args, kwargs, node):
    bound = _np_args(it, "np.random.randint", ("low", "high", "size", "dtype"), args, kwargs, node)
    low, high = bound.get("low"), bound.get("high")
    low = _np_number(it, low, node)
    if high is None:
        low, high = 0, low
    else:
        high = _np_number(it, high, node)
    size = _size(it, bound.get("size"), node)
    dtype = _np_dtype(it, bound.get("dtype"), node) or "int64"
    arr = it.rng.integers(int(low), int(high), size=size or ()).astype(dtype)
    return _scalar_or_leaf(it, arr, size, node)


def _random_sample(name: str):
    def make(it, args, kwargs, node):
        bound = _np_args(it, f"np.random.{name}", ("size",), args, kwargs, node)
        size = _size(it, bound.get("size"), node)
        draw = it.rng.standard_normal if name == "standard_normal" else it.rng.random
        return _scalar_or_leaf(it, draw(size or ()), size, node)

    return make


def _choice(it, args, kwargs, node):
    bound = _np_args(it, "np.random.choice", ("a", "size", "replace", "p"), args, kwargs, node)
    a = bound.get("a")
    pool = np.arange(a) if isinstance(a, int) else _np_array(it, a, node)
    size = _size(it, bound.get("size"), node)
    p = bound.get("p")
    p = None if p is None else _np_array(it, p, node).astype("float64")
    arr = it.rng.choice(pool, size=size or (), replace=bool(bound.get("replace", True)), p=p)
    return _scalar_or_leaf(it, arr, size, node)


def _permutation(it, args, kwargs, node):
    bound = _np_args(it, "np.random.permutation", ("x",), args, kwargs, node)
    x = bound.get("x")
    pool = np.arange(x) if isinstance(x, int) else _np_array(it, x, node)
    return _np_leaf(it, it.rng.permutation(pool), node)


def _shuffle(it, args, kwargs, node):
    """np.random.shuffle(x): in place; gradcli keeps the order (values: structure)."""
    _np_args(it, "np.random.shuffle", ("x",), args, kwargs, node)
    note_draw(it, node)  # NumPy's order is random: later numbers are not its own
    return None


def _np_args(it, path, params, args, kwargs, node):
    from gradcli.tfcode.numpy_values import _args

    return _args(it, path, params, args, kwargs, node)


def _np_number(it, value, node):
    from gradcli.tfcode.numpy_values import _number

    return _number(it, value, node)


def _np_dtype(it, value, node):
    from gradcli.tfcode.numpy_values import _dtype

    return _dtype(it, value, node)


def _np_leaf(it, arr, node):
    return it.leaf(np.asarray(arr), node, NP)


def _np_array(it, value, node):
    from gradcli.tfcode.numpy_values import _array

    return _array(it, value, node)


NP_RANDOM = {
    "np.random.randint": _randint,
    "np.random.random": _random_sample("random"),
    "np.random.random_sample": _random_sample("random"),
    "np.random.standard_normal": _random_sample("standard_normal"),
    "np.random.choice": _choice,
    "np.random.permutation": _permutation,
    "np.random.shuffle": _shuffle,
}
