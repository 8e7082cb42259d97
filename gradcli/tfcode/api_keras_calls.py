"""The keras.ops / tf.keras.backend functions that need more than a table row (api_keras.py):
argmax's flattening and int32, one_hot, take, sigmoid/softmax keeping their logits, the
crossentropies (the legacy K.binary_crossentropy adds epsilon inside its logs), K.sqrt
(sqrt(maximum(x, 0))), K.clip, convert_to_numpy (leaves_tape), constants such as
K.epsilon(); and TensorFlow's AttributeError for keras.backend.<name> Keras 3 lacks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.api_keras import KERAS, NATIVE_BACKEND_NAMES
from gradcli.tfcode.api_keras_legacy import LEGACY_ONLY, _bind, _ndim, _shape
from gradcli.tfcode.support import Raises
from gradcli.tfcode.values import TF, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


# --- functions with a handler ------------------------------------------------------------------


def _keeping_logits(op: str):
    """keras.ops.sigmoid/softmax: the output remembers its logits (_keras_logits)."""

    def run(it: Interpreter, path, args, kwargs, node):
        from gradcli.tfcode.keras.protocol import state

        params = ("x", "axis") if op == "softmax" else ("x",)
        b = _bind(it, path, params, args, kwargs, node)
        attrs = {"axis": b["axis"]} if b.get("axis") is not None else {}
        if op == "softmax" and b.get("axis", -1) is None:
            it.refuse(node, f"{path}(..., axis=None)")
        out = it.op_call(op, [b["x"]], attrs, node)
        if isinstance(b["x"], (Tensor, Variable)) and isinstance(out, Tensor):
            state(it).logits[out.id] = b["x"]
        return Tensor(out.id, TF) if isinstance(out, Tensor) else out

    return run


def _argmax(op: str, legacy: bool):
    """keras.ops.argmax(x, axis=None, keepdims=False): int32; axis None flattens first."""

    def run(it: Interpreter, path, args, kwargs, node):
        b = _bind(it, path, ("x", "axis", "keepdims"), args, kwargs, node)
        x, axis = b.get("x"), b.get("axis")
        if b.get("keepdims"):
            it.refuse(node, f"{path}(..., keepdims=True)")
        if axis is None:
            x, axis = it.op_call("reshape", [x], {"shape": [-1]}, node), 0
        return it.op_call(op, [x], {"axis": axis, "output_type": "int32"}, node)

    return run


def _cumulative(op: str):
    """keras.ops.cumsum/cumprod(x, axis=None, dtype=None): axis None flattens first."""

    def run(it: Interpreter, path, args, kwargs, node):
        b = _bind(it, path, ("x", "axis", "dtype"), args, kwargs, node)
        x = b.get("x")
        if b.get("dtype") is not None:
            x = it.call_api("tf.convert_to_tensor", [x], {"dtype": b["dtype"]}, node, None)
        axis = b.get("axis")
        if axis is None:
            x, axis = it.op_call("reshape", [x], {"shape": [-1]}, node), 0
        return it.op_call(op, [x], {"axis": axis}, node)

    return run


def _dot(it: Interpreter, path, args, kwargs, node):
    """keras.ops.dot(x1, x2): x1 * x2 for a scalar, else tensordot over x1's last axis and
    x2's last (x2 a vector) or second-to-last axis, as the TensorFlow backend."""
    b = _bind(it, path, ("x1", "x2"), args, kwargs, node)
    x1, x2 = b.get("x1"), b.get("x2")
    r1 = len(_shape(it, path, [x1], {}, node)) if isinstance(x1, (Tensor, Variable)) else 0
    r2 = len(_shape(it, path, [x2], {}, node)) if isinstance(x2, (Tensor, Variable)) else 0
    if r1 == 0 or r2 == 0:
        return it.op_call("mul", [x1, x2], {}, node)
    axes = [[r1 - 1], [0 if r2 == 1 else r2 - 2]]
    return it.op_call("tensordot", [x1, x2], {"axes": axes}, node)


def _ignored(it: Interpreter, path, args, kwargs, node):
    return None


def _one_hot(it: Interpreter, path, args, kwargs, node):
    """keras.ops.one_hot(x, num_classes, axis=-1, dtype=None): float32 by default."""
    b = _bind(it, path, ("x", "num_classes", "axis", "dtype", "sparse"), args, kwargs, node)
    if b.get("sparse"):
        it.refuse(node, f"{path}(..., sparse=True)")
    extra = {k: b[k] for k in ("axis", "dtype") if b.get(k) is not None}
    return it.call_api("tf.one_hot", [b.get("x"), b.get("num_classes")], extra, node, None)


def _legacy_one_hot(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("indices", "num_classes"), args, kwargs, node)
    return it.call_api("tf.one_hot", [b.get("indices"), b.get("num_classes")], {}, node, None)


def _take(it: Interpreter, path, args, kwargs, node):
    """keras.ops.take(x, indices, axis=None): axis None gathers from the flattened x."""
    b = _bind(it, path, ("x", "indices", "axis"), args, kwargs, node)
    x, axis = b.get("x"), b.get("axis")
    if axis is None:
        x, axis = it.op_call("reshape", [x], {"shape": [-1]}, node), 0
    return it.call_api("tf.gather", [x, b.get("indices")], {"axis": axis}, node, None)


def _legacy_gather(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("reference", "indices"), args, kwargs, node)
    return it.call_api("tf.gather", [b.get("reference"), b.get("indices")], {}, node, None)


def _convert_to_tensor(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("x", "dtype", "sparse", "ragged"), args, kwargs, node)
    if b.get("sparse") or b.get("ragged"):
        it.refuse(node, f"{path} of a sparse or ragged tensor")
    extra = {"dtype": b["dtype"]} if b.get("dtype") is not None else {}
    return it.call_api("tf.convert_to_tensor", [b.get("x")], extra, node, None)


def _convert_to_numpy(it: Interpreter, path, args, kwargs, node):
    """keras.ops.convert_to_numpy(x): a NumPy array, out of the tape (leaves_tape)."""
    import ast

    b = _bind(it, path, ("x",), args, kwargs, node)
    x = b.get("x")
    if it.symbolic(x):  # inside a traced tf.function (Keras's train_step): np.asarray fails
        it.symbolic_error(it.tensor_id(x), node, "np.array")
    return it.leave(x, node, ast.unparse(node), "np.array")


def _filled(name: str, like: bool):
    def run(it: Interpreter, path, args, kwargs, node):
        params = ("x", "dtype") if like else ("shape", "dtype")
        if path.startswith("tf.keras.backend."):
            params = (*params, "name")
        b = _bind(it, path, params, args, kwargs, node)
        extra = {"dtype": b["dtype"]} if b.get("dtype") is not None else {}
        return it.call_api(f"tf.{name}", [b.get(params[0])], extra, node, None)

    return run


def _normalize(it: Interpreter, path, args, kwargs, node):
    """keras.ops.normalize(x, axis=-1, order=2, epsilon=None): x * min(rsqrt(sum x^2), 1/eps)."""
    from gradcli.tfcode.keras.loss_functions import _normalize as normalize
    from gradcli.tfcode.keras.loss_functions import _Ops

    b = _bind(it, path, ("x", "axis", "order", "epsilon"), args, kwargs, node)
    if b.get("order", 2) != 2 or b.get("epsilon") is not None:
        it.refuse(node, f"{path} with order or epsilon", "the default L2 norm is read")
    return normalize(_Ops(it, node), b.get("x"), b.get("axis", -1))


def _crossentropy(kind: str, legacy: bool):
    """keras.ops.binary_crossentropy / categorical_crossentropy (elementwise / per row), and
    the legacy K.* versions (epsilon added inside binary's logs)."""

    def run(it: Interpreter, path, args, kwargs, node):
        from gradcli.tfcode.keras import loss_functions as lf

        params = ("target", "output", "from_logits", "axis")
        b = _bind(it, path, params[:3] if kind == "binary" else params, args, kwargs, node)
        o = lf._Ops(it, node)
        target, output = o.tensor(b.get("target")), o.tensor(b.get("output"))
        from_logits = bool(b.get("from_logits", False))
        axis = b.get("axis", -1)
        logits = (
            None if legacy else lf._logits(o, output, "sigmoid" if kind == "binary" else "softmax")
        )
        if logits is not None:
            output, from_logits = logits, True
        if kind == "binary":
            if from_logits:
                return o.sigmoid_cross_entropy(target, output)
            if not legacy:
                return lf._bce(o, target, output)
            eps = o.cast(lf.EPSILON, o.dtype(output))
            out = o.clip(output, eps, o.sub(1.0, eps))
            bce = o.mul(target, o.log(o.add(out, lf.EPSILON)))
            bce = o.add(bce, o.mul(o.sub(1, target), o.log(o.add(o.sub(1, out), lf.EPSILON))))
            return o.neg(bce)
        if from_logits:
            return o.softmax_cross_entropy(target, output, axis=axis)
        out = o.div(output, o.sum(output, axis=axis, keepdims=True))
        if legacy:
            eps = o.cast(lf.EPSILON, o.dtype(output))
            out = o.clip(out, eps, o.sub(1.0, eps))
        else:
            out = o.clip(out, lf.EPSILON, 1.0 - lf.EPSILON)
        return o.neg(o.sum(o.mul(target, o.log(out)), axis=axis))

    return run


def _sparse_crossentropy(it: Interpreter, path, args, kwargs, node):
    from gradcli.tfcode.keras import loss_functions as lf

    params = ("target", "output", "from_logits", "axis", "ignore_class")
    b = _bind(it, path, params, args, kwargs, node)
    if b.get("ignore_class") is not None:
        it.refuse(node, f"{path}(..., ignore_class=...)")
    extra = {k: b[k] for k in ("from_logits", "axis") if k in b}
    return lf.call(it, "sparse_categorical_crossentropy", [b.get("target"), b.get("output")],
                   extra, node)  # fmt: skip


def _full(like: bool):
    """keras.ops.full(shape, fill_value, dtype=None) / full_like(x, fill_value, dtype=None):
    broadcast_to(convert_to_tensor(fill_value, dtype), shape) (a tensor fill gets its
    gradient, summed)."""

    def run(it: Interpreter, path, args, kwargs, node):
        first = "x" if like else "shape"
        b = _bind(it, path, (first, "fill_value", "dtype"), args, kwargs, node)
        if like:
            x = b.get("x")
            shape = (
                list(_shape(it, path, [x], {}, node)) if isinstance(x, (Tensor, Variable)) else None
            )
            dtype = b.get("dtype") or (
                it.g[it.tensor_id(x, read=False)].dtype if shape is not None else None
            )
        else:
            shape, dtype = b.get("shape"), b.get("dtype") or "float32"
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            it.refuse(node, f"{path} of a shape that is not a list of integers")
        fill = it.call_api(
            "tf.convert_to_tensor", [b.get("fill_value")], {"dtype": dtype}, node, None
        )
        return it.op_call("broadcast_to", [fill], {"shape": list(shape)}, node)

    return run


def _arange(it: Interpreter, path, args, kwargs, node):
    """keras.ops.arange(start, stop=None, step=1, dtype=None): int32 for Python ints, else
    float32."""
    b = _bind(it, path, ("start", "stop", "step", "dtype"), args, kwargs, node)
    nums = [b.get("start", 0)]
    if b.get("stop") is not None:
        nums.append(b["stop"])
    if b.get("step", 1) != 1:
        nums += [b["step"]] if len(nums) == 2 else [nums[0], b["step"]]
    dtype = b.get("dtype") or ("int32" if all(isinstance(v, int) for v in nums) else "float32")
    return it.call_api("tf.range", nums, {"dtype": dtype}, node, None)


def _eye(it: Interpreter, path, args, kwargs, node):
    b = _bind(it, path, ("N", "M", "k", "dtype"), args, kwargs, node)
    if b.get("k", 0) != 0:
        it.refuse(node, f"{path}(..., k={b['k']!r})")
    extra = {"dtype": b.get("dtype") or "float32"}
    if b.get("M") is not None:
        extra["num_columns"] = b["M"]
    return it.call_api("tf.eye", [b.get("N")], extra, node, None)


OPS_HANDLERS = {
    "sigmoid": _keeping_logits("sigmoid"), "softmax": _keeping_logits("softmax"),
    "argmax": _argmax("argmax", False), "argmin": _argmax("argmin", False),
    "one_hot": _one_hot, "take": _take, "convert_to_tensor": _convert_to_tensor,
    "convert_to_numpy": _convert_to_numpy, "shape": _shape, "ndim": _ndim,
    "zeros_like": _filled("zeros_like", True), "ones_like": _filled("ones_like", True),
    "zeros": _filled("zeros", False), "ones": _filled("ones", False),
    "normalize": _normalize, "cumsum": _cumulative("cumsum"), "cumprod": _cumulative("cumprod"),
    "full": _full(False), "full_like": _full(True), "arange": _arange, "eye": _eye,
    "dot": _dot,
    "binary_crossentropy": _crossentropy("binary", False),
    "categorical_crossentropy": _crossentropy("categorical", False),
    "sparse_categorical_crossentropy": _sparse_crossentropy,
}  # fmt: skip
LEGACY_HANDLERS = {  # the legacy K.sigmoid keeps no logits (K.softmax does)
    **LEGACY_ONLY, "softmax": _keeping_logits("softmax"),
    "one_hot": _legacy_one_hot, "gather": _legacy_gather,
    "zeros_like": _filled("zeros_like", True), "ones_like": _filled("ones_like", True),
    "binary_crossentropy": _crossentropy("binary", True),
    "categorical_crossentropy": _crossentropy("categorical", True),
    "sparse_categorical_crossentropy": _sparse_crossentropy,
}  # fmt: skip
HANDLERS: dict = {}
for _prefix in ("keras.ops.", "tf.keras.ops.", "tf.compat.v2.keras.ops."):
    HANDLERS.update({_prefix + n: h for n, h in OPS_HANDLERS.items()})
HANDLERS.update({"keras.ops.nn." + n: OPS_HANDLERS[n] for n in (
    "sigmoid", "softmax", "one_hot", "normalize", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy")})  # fmt: skip
HANDLERS.update({"keras.ops.numpy." + n: OPS_HANDLERS[n] for n in (
    "argmax", "argmin", "take", "zeros_like", "ones_like", "zeros", "ones", "ndim", "cumsum",
    "cumprod", "dot")})  # fmt: skip
HANDLERS.update({"keras.ops.core." + n: OPS_HANDLERS[n] for n in (
    "convert_to_tensor", "convert_to_numpy", "shape")})  # fmt: skip
for _prefix in ("tf.keras.backend.", "tf.compat.v2.keras.backend."):
    HANDLERS.update({_prefix + n: h for n, h in LEGACY_HANDLERS.items()})
for _n in ("epsilon", "floatx", "image_data_format", "backend", "clear_session"):
    HANDLERS[f"keras.backend.{_n}"] = LEGACY_HANDLERS[_n]
for _prefix in ("keras.config.", "tf.keras.config."):
    for _n in ("epsilon", "floatx", "image_data_format", "backend"):
        HANDLERS[_prefix + _n] = LEGACY_HANDLERS[_n]
for _prefix in ("keras.utils.", "tf.keras.utils."):
    HANDLERS[_prefix + "set_random_seed"] = _ignored  # gradcli's generator is its own

NOT_KERAS = object()


# keras.ops that compute integer and bool inputs in float32 (the backend casts them first);
# keras.ops.sum and square take bool as int32
TO_FLOAT = {"mean", "sqrt", "log", "log1p", "exp", "expm1", "sin", "cos", "tan", "tanh",
            "std", "var", "divide", "true_divide", "sigmoid", "softplus", "logsumexp"}  # fmt: skip
BOOL_TO_INT = {"sum", "square"}


def _keras_dtypes(it: Interpreter, path: str, args, kwargs, node):
    """keras.ops.<name>'s casts of integer/bool tensors (TO_FLOAT, BOOL_TO_INT): the row with
    its tensor arguments cast, or NOT_KERAS when none needs one."""
    from gradcli.tfcode.api_table import lookup

    name = path.rsplit(".", 1)[1]
    row = lookup(path)
    legacy = path.startswith("tf.keras.backend.")  # K.mean/std/var cast only bool
    if row is None or not (legacy or path.startswith(("keras.ops.", "tf.keras.ops."))):
        return NOT_KERAS
    target = {"to_float": "float32", "to_int": "int32", "bool_to_float": "float32"}
    if legacy:
        kind = "bool_to_float" if name in ("mean", "std", "var") else None
    else:
        kind = "to_float" if name in TO_FLOAT else "to_int" if name in BOOL_TO_INT else None
    if kind is None:
        return NOT_KERAS
    bound = dict(zip(row.params, args))
    bound.update(kwargs)
    changed = False
    for p in row.tensors:
        v = bound.get(p)
        if isinstance(v, (Tensor, Variable)):
            dtype = it.g[it.tensor_id(v, read=False)].dtype
            if (kind == "to_float" and dtype in ("int32", "int64", "bool")) or (
                kind != "to_float" and dtype == "bool"
            ):
                bound[p] = it.op_call("cast", [v], {"dtype": target[kind]}, node)
                changed = True
    if not changed:
        return NOT_KERAS
    return it.table_call(path, row, [], bound, node)


def call(it: Interpreter, path: str, args, kwargs, node):
    """A keras.ops / keras.backend function with a handler; TensorFlow's AttributeError for
    a name Keras 3's keras.backend does not have; NOT_KERAS otherwise (a table row)."""
    handler = HANDLERS.get(path)
    if handler is not None:
        return handler(it, path, args, kwargs, node)
    missing_keras_name(it, path, node)
    return _keras_dtypes(it, path, args, kwargs, node)


def missing_keras_name(it: Interpreter, path: str, node) -> None:
    """keras.backend.mean, keras.losses.mse, ...: names Keras 3's own namespaces lack (only
    tf.keras's legacy ones have them): TensorFlow's AttributeError where the name is read."""
    from gradcli.tfcode.keras.loss_functions import check_exists

    check_exists(it, path, node)
    head, _, last = path.rpartition(".")
    if head == "keras.backend" and last not in NATIVE_BACKEND_NAMES:
        raise Raises(
            "AttributeError",
            f"module 'keras.backend' has no attribute '{last}'",
            it.pos(node),
            f"Keras 3's keras.backend has no math functions: use keras.ops.{last} (or "
            f"tf.keras.backend.{last}, the legacy backend, or tf.*)",
        )


def names() -> list[str]:
    """The keras.ops / tf.keras.backend names read (rows and handlers), for docs/reading-code.md."""
    shown = [
        p
        for p in (*KERAS, *HANDLERS)
        if p.startswith(
            ("keras.ops.", "keras.backend.", "tf.keras.backend.", "keras.config.", "keras.utils.")
        )
        and not p.startswith(("keras.ops.numpy.", "keras.ops.nn.", "keras.ops.core."))
    ]
    return sorted(set(shown))
