"""Keras 3's `keras.ops` and the legacy `tf.keras.backend` functions, as rows of the reader's
one table kind (api_table.TFOp: Keras's parameter names and defaults, which differ from
tf.*'s), plus the few that need a handler (argmax's flattening, one_hot, take, the
crossentropies, convert_to_numpy). Checked against the registry like api_table.

Keras 3.15.1 on TensorFlow 2.21:
- `keras.ops.X` (also `tf.keras.ops.X`, `keras.ops.numpy.X`, `keras.ops.nn.X`): each runs the
  tf.* op of the TensorFlow backend; a float64 tensor stays float64, Python floats become
  float32. `keras.ops.sigmoid`/`softmax` keep their logits for the crossentropies (as
  keras.activations do). `keras.ops.convert_to_numpy(t)` leaves the tape (leaves_tape).
- `tf.keras.backend` is keras._tf_keras.keras.backend, the legacy backend with K.mean,
  K.square, ...; `keras.backend` (`import keras`, `from keras import backend as K`) has only
  epsilon, floatx, image_data_format, ...: K.mean there is TensorFlow's AttributeError.
- K.sqrt is sqrt(maximum(x, 0)) (a negative x gets no gradient); K.binary_crossentropy adds
  epsilon inside its logs; K.argmax's axis defaults to -1.
"""

from __future__ import annotations

from gradcli.tfcode.api_table import TFOp


def _u(op: str, param: str = "x") -> TFOp:
    return TFOp(op, (param,), (param,), ignored=())


def _b(op: str, a: str = "x1", b: str = "x2") -> TFOp:
    return TFOp(op, (a, b), (a, b), ignored=())


def _r(op: str, extra: tuple = ()) -> TFOp:
    return TFOp(op, ("x", "axis", "keepdims", *extra), ("x",),
                {"axis": ("axis", None), "keepdims": ("keepdims", False)}, ignored=())  # fmt: skip


OPS: dict[str, TFOp] = {}
for _n, _op in {
    "square": "square", "sqrt": "sqrt", "abs": "abs", "absolute": "abs", "exp": "exp",
    "log": "log", "log1p": "log1p", "expm1": "expm1", "negative": "neg", "sign": "sign",
    "tanh": "tanh", "sin": "sin", "cos": "cos", "tan": "tan", "floor": "floor", "ceil": "ceil",
    "reciprocal": "reciprocal", "logical_not": "logical_not", "sinh": "sinh", "cosh": "cosh",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctanh": "atanh",
}.items():  # fmt: skip
    OPS[_n] = _u(_op)
for _n, _op in {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
    "power": "pow", "maximum": "maximum", "minimum": "minimum", "equal": "equal",
    "not_equal": "not_equal", "greater": "greater", "greater_equal": "greater_equal",
    "less": "less", "less_equal": "less_equal", "logical_and": "logical_and",
    "logical_or": "logical_or", "floor_divide": "floordiv", "mod": "floormod",
    "divide_no_nan": "div_no_nan", "matmul": "matmul", "arctan2": "atan2",
}.items():  # fmt: skip
    OPS[_n] = _b(_op)
for _n, _op in {"mean": "mean", "sum": "sum", "prod": "prod", "std": "std", "var": "var",
                "logsumexp": "logsumexp"}.items():  # fmt: skip
    OPS[_n] = _r(_op)
OPS["max"] = _r("max", ("initial",))  # initial: only None is read
OPS["min"] = _r("min", ("initial",))
OPS["round"] = TFOp("round", ("x", "decimals"), ("x",), ignored=())  # decimals: 0 only
OPS["clip"] = TFOp("clip", ("x", "x_min", "x_max"), ("x", "x_min", "x_max"), ignored=())
OPS["where"] = TFOp("where", ("condition", "x1", "x2"), ("condition", "x1", "x2"), ignored=())
OPS["cast"] = TFOp("cast", ("x", "dtype"), ("x",), {"dtype": ("dtype", None)}, ignored=())
OPS["reshape"] = TFOp("reshape", ("x", "newshape"), ("x",), {"newshape": ("shape", None)},
                      ignored=())  # fmt: skip
OPS["transpose"] = TFOp("transpose", ("x", "axes"), ("x",), {"axes": ("axes", None)}, ignored=())
OPS["concatenate"] = TFOp("concat", ("xs", "axis"), ("xs",), {"axis": ("axis", 0)}, listed=True,
                          ignored=())  # fmt: skip
OPS["stack"] = TFOp("stack", ("x", "axis"), ("x",), {"axis": ("axis", 0)}, listed=True,
                    ignored=())  # fmt: skip
OPS["expand_dims"] = TFOp("expand_dims", ("x", "axis"), ("x",), {"axis": ("axis", None)},
                          ignored=())  # fmt: skip
OPS["squeeze"] = TFOp("squeeze", ("x", "axis"), ("x",), {"axis": ("axis", None)}, ignored=())
OPS["tile"] = TFOp("tile", ("x", "repeats"), ("x",), {"repeats": ("multiples", None)},
                   ignored=())  # fmt: skip
OPS["repeat"] = TFOp("repeat", ("x", "repeats", "axis"), ("x",),
                     {"repeats": ("repeats", None), "axis": ("axis", None)},
                     ignored=())  # fmt: skip
OPS["take_along_axis"] = TFOp("take_along_axis", ("x", "indices", "axis"), ("x", "indices"),
                              {"axis": ("axis", None)}, ignored=())  # fmt: skip
OPS["sort"] = TFOp("sort", ("x", "axis"), ("x",), {"axis": ("axis", -1)}, ignored=())
OPS["argsort"] = TFOp("argsort", ("x", "axis"), ("x",), {"axis": ("axis", -1)}, ignored=())
OPS["tensordot"] = TFOp("tensordot", ("x1", "x2", "axes"), ("x1", "x2"),
                        {"axes": ("axes", 2)}, ignored=())  # fmt: skip
OPS["norm"] = TFOp("norm", ("x", "ord", "axis", "keepdims"), ("x",),
                   {"ord": ("ord", None), "axis": ("axis", None), "keepdims": ("keepdims", False)},
                   ignored=())  # fmt: skip
OPS["stop_gradient"] = _u("stop_gradient", "variable")
OPS["top_k"] = TFOp(
    "top_k",
    ("x", "k", "sorted"),
    ("x",),
    {"k": ("k", None), "sorted": ("sorted", True)},
    ignored=(),
    outputs=("TopKV2", (("values", "top_k"), ("indices", "top_k_indices"))),
)
# keras.ops.nn
NN: dict[str, TFOp] = {
    **{n: _u(n) for n in ("relu", "relu6", "selu", "silu", "softsign", "softplus",
                          "log_sigmoid", "erf", "rsqrt")},
    "swish": _u("silu"),
    "elu": TFOp("elu", ("x", "alpha"), ("x",), ignored=()),  # alpha: 1.0 only
    "gelu": TFOp("gelu", ("x", "approximate"), ("x",), {"approximate": ("approximate", True)},
                 ignored=()),
    "leaky_relu": TFOp("leaky_relu", ("x", "negative_slope"), ("x",),
                       {"negative_slope": ("alpha", 0.2)}, ignored=()),
    "log_softmax": TFOp("log_softmax", ("x", "axis"), ("x",), {"axis": ("axis", -1)},
                        ignored=()),
}  # fmt: skip

# tf.keras.backend (keras._tf_keras.keras.backend, keras/src/legacy/backend.py)
LEGACY: dict[str, TFOp] = {
    **{n: _u(op) for n, op in (("square", "square"), ("abs", "abs"), ("exp", "exp"),
                                ("log", "log"), ("sign", "sign"), ("round", "round"),
                                ("tanh", "tanh"), ("softplus", "softplus"),
                                ("softsign", "softsign"), ("sin", "sin"), ("cos", "cos"),
                                ("sigmoid", "sigmoid"))},
    **{n: _b(op, "x", "y") for n, op in (("maximum", "maximum"), ("minimum", "minimum"),
                                          ("equal", "equal"), ("not_equal", "not_equal"),
                                          ("greater", "greater"),
                                          ("greater_equal", "greater_equal"), ("less", "less"),
                                          ("less_equal", "less_equal"))},
    **{n: _r(op) for n, op in (("mean", "mean"), ("sum", "sum"), ("max", "max"),
                                ("min", "min"), ("prod", "prod"), ("std", "std"),
                                ("var", "var"))},
    "pow": _b("pow", "x", "a"),
    "cast": TFOp("cast", ("x", "dtype"), ("x",), {"dtype": ("dtype", None)}, ignored=()),
    "stop_gradient": _u("stop_gradient", "variables"),
    "expand_dims": TFOp("expand_dims", ("x", "axis"), ("x",), {"axis": ("axis", -1)},
                        ignored=()),
    "reshape": TFOp("reshape", ("x", "shape"), ("x",), {"shape": ("shape", None)}, ignored=()),
    "transpose": _u("transpose"),
    "permute_dimensions": TFOp("transpose", ("x", "pattern"), ("x",),
                               {"pattern": ("axes", None)}, ignored=()),
    "stack": TFOp("stack", ("x", "axis"), ("x",), {"axis": ("axis", 0)}, listed=True,
                  ignored=()),
    "concatenate": TFOp("concat", ("tensors", "axis"), ("tensors",), {"axis": ("axis", -1)},
                        listed=True, ignored=()),
    "argmax": TFOp("argmax", ("x", "axis"), ("x",), {"axis": ("axis", -1)}, ignored=()),
    "argmin": TFOp("argmin", ("x", "axis"), ("x",), {"axis": ("axis", -1)}, ignored=()),
    "l2_normalize": TFOp("l2_normalize", ("x", "axis"), ("x",), {"axis": ("axis", None)},
                         ignored=()),
    "cumsum": TFOp("cumsum", ("x", "axis"), ("x",), {"axis": ("axis", 0)}, ignored=()),
    "tile": TFOp("tile", ("x", "n"), ("x",), {"n": ("multiples", None)}, ignored=()),
    "elu": TFOp("elu", ("x", "alpha"), ("x",), ignored=()),  # alpha: 1.0 only
    "repeat_elements": TFOp("repeat", ("x", "rep", "axis"), ("x",),
                            {"rep": ("repeats", None), "axis": ("axis", None)}, ignored=()),
    "dot": _b("matmul", "x", "y"),  # 2-D tensors (rank > 2: refused by matmul's shapes)
}  # fmt: skip
NATIVE_BACKEND_NAMES = ("backend", "clear_session", "epsilon", "floatx", "get_uid",
                        "image_data_format", "is_float_dtype", "is_int_dtype",
                        "is_keras_tensor", "result_type", "set_epsilon", "set_floatx",
                        "set_image_data_format", "standardize_dtype")  # fmt: skip

KERAS: dict[str, TFOp] = {}
for _prefix in ("keras.ops.", "tf.keras.ops.", "tf.compat.v2.keras.ops."):
    for _n, _row in OPS.items():
        KERAS[_prefix + _n] = _row
    for _n, _row in NN.items():
        KERAS[_prefix + _n] = _row
# the submodules hold only their own ops (Keras 3: cast and stop_gradient are keras.ops.core's,
# logsumexp, top_k, erf and rsqrt keras.ops.math's, norm keras.ops.linalg's)
for _n, _row in OPS.items():
    if _n not in ("cast", "logsumexp", "norm", "stop_gradient", "top_k"):
        KERAS["keras.ops.numpy." + _n] = _row
for _n, _row in NN.items():
    if _n not in ("erf", "rsqrt"):
        KERAS["keras.ops.nn." + _n] = _row
for _prefix in ("tf.keras.backend.", "tf.compat.v2.keras.backend."):
    for _n, _row in LEGACY.items():
        KERAS[_prefix + _n] = _row
