"""One table from TensorFlow and NumPy dotted names to registry ops (data, not code).

Each row says which registry op a TensorFlow function becomes, the function's parameters in
TensorFlow's order, which of them are tensor inputs (in the op's input order), and which
become the op's attributes (op attribute name, TensorFlow's default). A test checks every
row against the registry: the op exists and its attributes are in the op's schema. Adding
an op to gradcli's reader is one row here once the op is registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TFOp:
    """How one TensorFlow (or NumPy) function maps to a registry op."""

    op: str
    params: tuple[str, ...]  # TensorFlow's parameters, in positional order
    tensors: tuple[str, ...]  # the params that are the op's tensor inputs, in op order
    attrs: dict = field(default_factory=dict)  # param -> (op attribute, TensorFlow's default)
    listed: bool = False  # the one tensor param is a list of tensors (concat, stack)
    ignored: tuple[str, ...] = ("name",)  # accepted and ignored
    swap: bool = False  # the op's inputs are the tensors reversed
    # a function returning several tensors that are several registry ops over the same
    # inputs and attributes: TensorFlow's namedtuple name and its (field, op) pairs
    # (tf.math.top_k: TopKV2(values=top_k, indices=top_k_indices))
    outputs: tuple[str, tuple[tuple[str, str], ...]] | None = None
    as_tuple: bool = False  # a multi-output op's results as a tuple (moments), not a list
    keyword_only: bool = False  # tf.raw_ops.X: keyword arguments only (api_raw_ops.py)
    # tensor params that may be left out: the op's TENSOR attribute of that place gives its
    # default (tf.nn.silu's beta=1.0)
    optional: tuple[str, ...] = ()


def _unary(op: str) -> TFOp:
    return TFOp(op, ("x", "name"), ("x",))


def _binary(op: str) -> TFOp:
    return TFOp(op, ("x", "y", "name"), ("x", "y"))


def _reduce(op: str) -> TFOp:
    return TFOp(
        op,
        ("input_tensor", "axis", "keepdims", "name"),
        ("input_tensor",),
        {"axis": ("axis", None), "keepdims": ("keepdims", False)},
    )


UNARY = {
    "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "log1p": "log1p",
    "sqrt": "sqrt", "square": "square", "abs": "abs", "sign": "sign", "tanh": "tanh",
    "sigmoid": "sigmoid", "floor": "floor", "ceil": "ceil", "round": "round",
    "negative": "neg", "softplus": "softplus", "logical_not": "logical_not",
}  # fmt: skip
BINARY = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "truediv": "div",
    "pow": "pow", "maximum": "maximum", "minimum": "minimum", "less": "less",
    "less_equal": "less_equal", "greater": "greater", "greater_equal": "greater_equal",
    "equal": "equal", "not_equal": "not_equal", "logical_and": "logical_and",
    "logical_or": "logical_or", "divide_no_nan": "div_no_nan", "multiply_no_nan": "mul_no_nan",
    "floormod": "floormod", "mod": "floormod", "floordiv": "floordiv", "xlog1py": "xlog1py",
}  # fmt: skip
REDUCE = {
    "reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
    "reduce_prod": "prod", "reduce_logsumexp": "logsumexp",
}  # fmt: skip

TF: dict[str, TFOp] = {}
for _name, _op in UNARY.items():
    TF[f"tf.math.{_name}"] = _unary(_op)
for _name, _op in BINARY.items():
    TF[f"tf.math.{_name}"] = _binary(_op)
for _name, _op in REDUCE.items():
    TF[f"tf.math.{_name}"] = _reduce(_op)
    TF[f"tf.{_name}"] = _reduce(_op)
# the tf.* aliases TensorFlow 2.21 has (not tf.ceil, tf.cumprod, tf.reciprocal, tf.rsqrt:
# tests/data/tf_public_names.txt)
for _name in ("sin", "cos", "tan", "exp", "sqrt", "square", "abs", "sign", "tanh", "sigmoid",
              "floor", "round", "negative", "add", "subtract", "multiply", "divide",
              "truediv", "pow", "maximum", "minimum", "less", "less_equal", "greater",
              "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
              "logical_not"):  # fmt: skip
    TF[f"tf.{_name}"] = TF[f"tf.math.{_name}"]
TF["tf.nn.sigmoid"] = TF["tf.math.sigmoid"]
TF["tf.nn.tanh"] = TF["tf.math.tanh"]
TF["tf.nn.relu"] = TFOp("relu", ("features", "name"), ("features",))
TF["tf.nn.softplus"] = TFOp("softplus", ("features", "name"), ("features",))
TF["tf.math.cumsum"] = TFOp(
    "cumsum",
    ("x", "axis", "exclusive", "reverse", "name"),
    ("x",),
    {"axis": ("axis", 0), "exclusive": ("exclusive", False), "reverse": ("reverse", False)},
)
TF["tf.cumsum"] = TF["tf.math.cumsum"]
TF["tf.math.cumprod"] = TFOp(
    "cumprod",
    ("x", "axis", "exclusive", "reverse", "name"),
    ("x",),
    {"axis": ("axis", 0), "exclusive": ("exclusive", False), "reverse": ("reverse", False)},
)
TF["tf.nn.softmax"] = TFOp(
    "softmax", ("logits", "axis", "name"), ("logits",), {"axis": ("axis", -1)}
)
TF["tf.math.softmax"] = TF["tf.nn.softmax"]
TF["tf.argmax"] = TFOp(
    "argmax",
    ("input", "axis", "output_type", "name"),
    ("input",),
    {"axis": ("axis", 0), "output_type": ("output_type", "int64")},
)
TF["tf.math.argmax"] = TF["tf.argmax"]
TF["tf.argmin"] = TFOp(
    "argmin",
    ("input", "axis", "output_type", "name"),
    ("input",),
    {"axis": ("axis", 0), "output_type": ("output_type", "int64")},
)
TF["tf.math.argmin"] = TF["tf.argmin"]
TF["tf.matmul"] = TFOp("matmul", ("a", "b", "name"), ("a", "b"))
TF["tf.linalg.matmul"] = TF["tf.matmul"]
TF["tf.where"] = TFOp("where", ("condition", "x", "y", "name"), ("condition", "x", "y"))
TF["tf.stop_gradient"] = TFOp("stop_gradient", ("input", "name"), ("input",))
TF["tf.identity"] = TFOp("identity", ("input", "name"), ("input",))
TF["tf.cast"] = TFOp("cast", ("x", "dtype", "name"), ("x",), {"dtype": ("dtype", None)})
TF["tf.dtypes.cast"] = TF["tf.cast"]
TF["tf.reshape"] = TFOp(
    "reshape", ("tensor", "shape", "name"), ("tensor",), {"shape": ("shape", None)}
)
TF["tf.transpose"] = TFOp(
    "transpose", ("a", "perm", "conjugate", "name"), ("a",), {"perm": ("axes", None)}
)
TF["tf.broadcast_to"] = TFOp(
    "broadcast_to", ("input", "shape", "name"), ("input",), {"shape": ("shape", None)}
)
TF["tf.concat"] = TFOp(
    "concat", ("values", "axis", "name"), ("values",), {"axis": ("axis", None)}, listed=True
)
TF["tf.stack"] = TFOp(
    "stack", ("values", "axis", "name"), ("values",), {"axis": ("axis", 0)}, listed=True
)
TF["tf.clip_by_value"] = TFOp(
    "clip", ("t", "clip_value_min", "clip_value_max", "name"),
    ("t", "clip_value_min", "clip_value_max"),
)  # fmt: skip

# special functions and activations (tf.math.*, tf.nn.*)
for _name in ("erf", "erfc", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
              "expm1", "reciprocal", "rsqrt", "erfinv"):  # fmt: skip
    TF[f"tf.math.{_name}"] = _unary(_name)
for _name in ("asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"):
    TF[f"tf.{_name}"] = TF[f"tf.math.{_name}"]
TF["tf.math.atan2"] = TFOp("atan2", ("y", "x", "name"), ("y", "x"))
TF["tf.atan2"] = TF["tf.math.atan2"]
TF["tf.math.xlogy"] = _binary("xlogy")
TF["tf.math.xdivy"] = _binary("xdivy")
TF["tf.truncatemod"] = _binary("truncatemod")  # TensorFlow has no tf.math.truncatemod
TF["tf.math.log_sigmoid"] = _unary("log_sigmoid")
TF["tf.math.lgamma"] = _unary("lgamma")
TF["tf.math.digamma"] = _unary("digamma")
TF["tf.math.polygamma"] = TFOp("polygamma", ("a", "x", "name"), ("a", "x"))
TF["tf.math.cumulative_logsumexp"] = TFOp(
    "cumulative_logsumexp",
    ("x", "axis", "exclusive", "reverse", "name"),
    ("x",),
    {"axis": ("axis", 0), "exclusive": ("exclusive", False), "reverse": ("reverse", False)},
)
for _name in ("relu6", "elu", "selu", "softsign"):
    TF[f"tf.nn.{_name}"] = TFOp(_name, ("features", "name"), ("features",))
for _name in ("silu", "swish"):
    TF[f"tf.nn.{_name}"] = TFOp(
        _name, ("features", "beta"), ("features", "beta"), optional=("beta",), ignored=()
    )
TF["tf.nn.leaky_relu"] = TFOp(
    "leaky_relu", ("features", "alpha", "name"), ("features",), {"alpha": ("alpha", 0.2)}
)
TF["tf.nn.gelu"] = TFOp(
    "gelu",
    ("features", "approximate", "name"),
    ("features",),
    {"approximate": ("approximate", False)},
)
TF["tf.nn.sigmoid_cross_entropy_with_logits"] = TFOp(
    "sigmoid_cross_entropy", ("labels", "logits", "name"), ("labels", "logits")
)
TF["tf.nn.l2_loss"] = TFOp("l2_loss", ("t", "name"), ("t",))
TF["tf.math.reduce_variance"] = TFOp(
    "var",
    ("input_tensor", "axis", "keepdims", "name"),
    ("input_tensor",),
    {"axis": ("axis", None), "keepdims": ("keepdims", False)},
)
TF["tf.math.reduce_std"] = TFOp(
    "std",
    ("input_tensor", "axis", "keepdims", "name"),
    ("input_tensor",),
    {"axis": ("axis", None), "keepdims": ("keepdims", False)},
)
TF["tf.nn.log_softmax"] = TFOp(
    "log_softmax", ("logits", "axis", "name"), ("logits",), {"axis": ("axis", -1)}
)
TF["tf.math.log_softmax"] = TF["tf.nn.log_softmax"]
# indexing
TF["tf.gather"] = TFOp(
    "gather",
    ("params", "indices", "validate_indices", "axis", "batch_dims", "name"),
    ("params", "indices"),
    {"axis": ("axis", None), "batch_dims": ("batch_dims", 0)},
    ignored=("name", "validate_indices"),
)
# tf.one_hot: the reader's own handler (tfcode/one_hot.py), for TensorFlow's float32 default
TF["tf.math.unsorted_segment_sum"] = TFOp(
    "unsorted_segment_sum",
    ("data", "segment_ids", "num_segments", "name"),
    ("data", "segment_ids"),
    {"num_segments": ("num_segments", None)},
)
TF["tf.math.segment_sum"] = TFOp(
    "segment_sum", ("data", "segment_ids", "name"), ("data", "segment_ids")
)
TF["tf.gather_nd"] = TFOp(
    "gather_nd",
    ("params", "indices", "name", "batch_dims"),
    ("params", "indices"),
    {"batch_dims": ("batch_dims", 0)},
)
TF["tf.scatter_nd"] = TFOp(
    "scatter_nd", ("indices", "updates", "shape", "name"), ("indices", "updates"),
    {"shape": ("shape", None)},
)  # fmt: skip
TF["tf.tensor_scatter_nd_add"] = TFOp(
    "tensor_scatter_add", ("tensor", "indices", "updates", "name"),
    ("tensor", "indices", "updates"),
)  # fmt: skip
TF["tf.tensor_scatter_nd_update"] = TFOp(
    "tensor_scatter_update", ("tensor", "indices", "updates", "name"),
    ("tensor", "indices", "updates"),
)  # fmt: skip
TF["tf.experimental.numpy.take_along_axis"] = TFOp(
    "take_along_axis", ("arr", "indices", "axis"), ("arr", "indices"), {"axis": ("axis", None)},
    ignored=(),
)  # fmt: skip
# the reader takes no string attribute yet: the default direction only (ASCENDING)
TF["tf.sort"] = TFOp(
    "sort", ("values", "axis", "direction", "name"), ("values",), {"axis": ("axis", -1)}
)
TF["tf.argsort"] = TFOp(
    "argsort", ("values", "axis", "direction", "stable", "name"), ("values",),
    {"axis": ("axis", -1)}, ignored=("name", "stable"),
)  # fmt: skip
for _name in ("segment_max", "segment_min", "segment_mean"):
    TF[f"tf.math.{_name}"] = TFOp(_name, ("data", "segment_ids", "name"), ("data", "segment_ids"))
    TF[f"tf.math.unsorted_{_name}"] = TFOp(
        f"unsorted_{_name}",
        ("data", "segment_ids", "num_segments", "name"),
        ("data", "segment_ids"),
        {"num_segments": ("num_segments", None)},
    )
# cross entropies, norms and Keras' loss functions (attribute defaults are left to the op:
# None here, so that only values the call gives are read)
TF["tf.nn.softmax_cross_entropy_with_logits"] = TFOp(
    "softmax_cross_entropy",
    ("labels", "logits", "axis", "name"),
    ("labels", "logits"),
    {"axis": ("axis", None)},
)
TF["tf.nn.sparse_softmax_cross_entropy_with_logits"] = TFOp(
    "sparse_softmax_cross_entropy", ("labels", "logits", "name"), ("labels", "logits")
)
TF["tf.norm"] = TFOp(
    "norm",
    ("tensor", "ord", "axis", "keepdims", "name"),
    ("tensor",),
    {"ord": ("ord", None), "axis": ("axis", None), "keepdims": ("keepdims", False)},
)
TF["tf.linalg.norm"] = TF["tf.norm"]
TF["tf.math.l2_normalize"] = TFOp(
    "l2_normalize",
    ("x", "axis", "epsilon", "name"),
    ("x",),
    {"axis": ("axis", None), "epsilon": ("epsilon", None)},
)
TF["tf.nn.l2_normalize"] = TF["tf.math.l2_normalize"]
_CROSSENTROPY_ATTRS = {
    "from_logits": ("from_logits", None),
    "label_smoothing": ("label_smoothing", None),
    "axis": ("axis", None),
}
for _name, _params, _attrs in (
    ("binary_crossentropy", ("from_logits", "label_smoothing", "axis"), _CROSSENTROPY_ATTRS),
    ("categorical_crossentropy", ("from_logits", "label_smoothing", "axis"), _CROSSENTROPY_ATTRS),
    (
        "sparse_categorical_crossentropy",
        ("from_logits", "ignore_class", "axis"),  # ignore_class: only None is read
        {"from_logits": ("from_logits", None), "axis": ("axis", None)},
    ),
    ("mean_squared_error", (), {}),
    ("mean_absolute_error", (), {}),
):
    _row = TFOp(_name, ("y_true", "y_pred", *_params), ("y_true", "y_pred"), _attrs, ignored=())
    TF[f"tf.keras.losses.{_name}"] = _row
    TF[f"keras.losses.{_name}"] = _row

TF["tf.squeeze"] = TFOp("squeeze", ("input", "axis", "name"), ("input",), {"axis": ("axis", None)})
TF["tf.expand_dims"] = TFOp(
    "expand_dims", ("input", "axis", "name"), ("input",), {"axis": ("axis", None)}
)
TF["tf.reverse"] = TFOp(
    "reverse", ("tensor", "axis", "name"), ("tensor",), {"axis": ("axis", None)}
)
# shapes (2): contraction, copies, padding, matrix structure
TF["tf.tensordot"] = TFOp(
    "tensordot", ("a", "b", "axes", "name"), ("a", "b"), {"axes": ("axes", None)}
)
TF["tf.linalg.tensordot"] = TF["tf.tensordot"]
TF["tf.tile"] = TFOp(
    "tile", ("input", "multiples", "name"), ("input",), {"multiples": ("multiples", None)}
)
TF["tf.repeat"] = TFOp(
    "repeat",
    ("input", "repeats", "axis", "name"),
    ("input",),
    {"repeats": ("repeats", None), "axis": ("axis", None)},
)
TF["tf.pad"] = TFOp(
    "pad",
    ("tensor", "paddings", "mode", "constant_values", "name"),
    ("tensor",),
    {"paddings": ("paddings", None), "mode": ("mode", None),
     "constant_values": ("constant_values", None)},
)  # fmt: skip
TF["tf.roll"] = TFOp(
    "roll", ("input", "shift", "axis", "name"), ("input",),
    {"shift": ("shift", None), "axis": ("axis", None)},
)  # fmt: skip
TF["tf.linalg.diag"] = TFOp(
    "diag",
    ("diagonal", "name", "k", "num_rows", "num_cols", "padding_value", "align"),
    ("diagonal",),
    {"k": ("k", 0), "num_rows": ("num_rows", -1), "num_cols": ("num_cols", -1),
     "padding_value": ("padding_value", None)},
    ignored=("name", "align"),  # align places a band's shorter diagonals: one k only here
)  # fmt: skip
TF["tf.linalg.diag_part"] = TFOp(
    "diag_part",
    ("input", "name", "k", "padding_value", "align"),
    ("input",),
    {"k": ("k", 0)},
    ignored=("name", "padding_value", "align"),  # both only matter for a band of diagonals
)
TF["tf.linalg.trace"] = TFOp("trace", ("x", "name"), ("x",))
TF["tf.linalg.band_part"] = TFOp(
    "band_part", ("input", "num_lower", "num_upper", "name"), ("input",),
    {"num_lower": ("num_lower", None), "num_upper": ("num_upper", None)},
)  # fmt: skip
for _name in ("tril", "triu"):
    TF[f"tf.experimental.numpy.{_name}"] = TFOp(
        _name, ("m", "k"), ("m",), {"k": ("k", 0)}, ignored=()
    )
# tf.eye's row is shadowed by the reader's own handler (builtins.SPECIAL), which makes a
# constant; the row serves tf.linalg.eye and tf.eye once that handler goes
TF["tf.eye"] = TFOp(
    "eye",
    ("num_rows", "num_columns", "batch_shape", "dtype", "name"),
    (),
    {"num_rows": ("num_rows", None), "num_columns": ("num_columns", None),
     "batch_shape": ("batch_shape", None), "dtype": ("dtype", "float32")},
)  # fmt: skip
TF["tf.linalg.eye"] = TF["tf.eye"]

# linear algebra
TF["tf.linalg.svd"] = TFOp(
    "svd",
    ("tensor", "full_matrices", "compute_uv", "name"),
    ("tensor",),
    {"full_matrices": ("full_matrices", False), "compute_uv": ("compute_uv", True)},
    as_tuple=True,  # (s, u, v); s alone with compute_uv=False
)
TF["tf.linalg.det"] = TFOp("det", ("input", "name"), ("input",))
TF["tf.linalg.logdet"] = TFOp("logdet", ("matrix", "name"), ("matrix",))
TF["tf.linalg.inv"] = TFOp(
    "inv", ("input", "adjoint", "name"), ("input",), {"adjoint": ("adjoint", False)}
)
TF["tf.linalg.solve"] = TFOp(
    "solve",
    ("matrix", "rhs", "adjoint", "name"),
    ("matrix", "rhs"),
    {"adjoint": ("adjoint", False)},
)
TF["tf.linalg.triangular_solve"] = TFOp(
    "triangular_solve",
    ("matrix", "rhs", "lower", "adjoint", "name"),
    ("matrix", "rhs"),
    {"lower": ("lower", True), "adjoint": ("adjoint", False)},
)
TF["tf.linalg.cholesky"] = TFOp("cholesky", ("input", "name"), ("input",))
TF["tf.linalg.eigvalsh"] = TFOp("eigvalsh", ("tensor", "name"), ("tensor",))
TF["tf.linalg.eigh"] = TFOp("eigh", ("tensor", "name"), ("tensor",), as_tuple=True)
TF["tf.linalg.slogdet"] = TFOp(
    "slogdet",
    ("input", "name"),
    ("input",),
    outputs=(
        "LogMatrixDeterminant",
        (("sign", "slogdet_sign"), ("log_abs_determinant", "log_abs_det")),
    ),
)
# convolutions and pooling (padding and data_format are strings; a padding list is refused)
_WINDOW = {"padding": ("padding", None), "data_format": ("data_format", None)}
TF["tf.nn.conv1d"] = TFOp(
    "conv1d",
    ("input", "filters", "stride", "padding", "data_format", "dilations", "name"),
    ("input", "filters"),
    {"stride": ("stride", None), **_WINDOW, "dilations": ("dilations", None)},
)
TF["tf.nn.conv2d"] = TFOp(
    "conv2d",
    ("input", "filters", "strides", "padding", "data_format", "dilations", "name"),
    ("input", "filters"),
    {"strides": ("strides", None), **_WINDOW, "dilations": ("dilations", None)},
)
TF["tf.nn.depthwise_conv2d"] = TFOp(
    "depthwise_conv2d",
    ("input", "filter", "strides", "padding", "data_format", "dilations", "name"),
    ("input", "filter"),
    {"strides": ("strides", None), **_WINDOW, "dilations": ("dilations", None)},
)
TF["tf.nn.conv2d_transpose"] = TFOp(
    "conv2d_transpose",
    ("input", "filters", "output_shape", "strides", "padding", "data_format", "dilations",
     "name"),
    ("input", "filters"),
    {"output_shape": ("output_shape", None), "strides": ("strides", None), **_WINDOW,
     "dilations": ("dilations", None)},
)  # fmt: skip
TF["tf.nn.conv3d"] = TFOp(
    "conv3d",
    ("input", "filters", "strides", "padding", "data_format", "dilations", "name"),
    ("input", "filters"),
    {"strides": ("strides", None), **_WINDOW, "dilations": ("dilations", None)},
)
for _name in ("max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "max_pool3d",
              "avg_pool3d"):  # fmt: skip
    TF[f"tf.nn.{_name}"] = TFOp(
        _name,
        ("input", "ksize", "strides", "padding", "data_format", "name"),
        ("input",),
        {"ksize": ("ksize", None), "strides": ("strides", None), **_WINDOW},
    )

# NumPy functions: applied to a tensor they first take it out of TensorFlow (leaves_tape)
NP: dict[str, TFOp] = {
    **{f"np.{n}": TFOp(op, ("x",), ("x",), ignored=()) for n, op in (
        ("sin", "sin"), ("cos", "cos"), ("exp", "exp"), ("log", "log"), ("sqrt", "sqrt"),
        ("square", "square"), ("abs", "abs"), ("tanh", "tanh"), ("sign", "sign"),
        ("round", "round"), ("floor", "floor"), ("negative", "neg"))},
    **{f"np.{n}": TFOp(op, ("x1", "x2"), ("x1", "x2"), ignored=()) for n, op in (
        ("add", "add"), ("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
        ("maximum", "maximum"), ("minimum", "minimum"), ("power", "pow"))},
    **{f"np.{n}": TFOp(op, ("a", "axis", "keepdims"), ("a",),
                       {"axis": ("axis", None), "keepdims": ("keepdims", False)}, ignored=())
       for n, op in (("sum", "sum"), ("mean", "mean"), ("max", "max"), ("min", "min"),
                     ("prod", "prod"))},
    "np.matmul": TFOp("matmul", ("x1", "x2"), ("x1", "x2"), ignored=()),
    "np.dot": TFOp("matmul", ("a", "b"), ("a", "b"), ignored=()),
    "np.argmax": TFOp("argmax", ("a", "axis"), ("a",), {"axis": ("axis", None)}, ignored=()),
    "np.clip": TFOp("clip", ("a", "a_min", "a_max"), ("a", "a_min", "a_max"), ignored=()),
}  # fmt: skip
# NumPy's shape functions and more elementwise ones (constructors and np.random: numpy_values.py)
NP.update({f"np.{n}": TFOp(op, ("x",), ("x",), ignored=()) for n, op in (
    ("log1p", "log1p"), ("expm1", "expm1"), ("tan", "tan"), ("arcsin", "asin"),
    ("arccos", "acos"), ("arctan", "atan"), ("sinh", "sinh"), ("cosh", "cosh"),
    ("ceil", "ceil"), ("reciprocal", "reciprocal"))})  # fmt: skip
NP.update({
    "np.concatenate": TFOp("concat", ("arrays", "axis"), ("arrays",), {"axis": ("axis", 0)},
                           listed=True, ignored=()),
    "np.stack": TFOp("stack", ("arrays", "axis"), ("arrays",), {"axis": ("axis", 0)},
                     listed=True, ignored=()),
    "np.expand_dims": TFOp("expand_dims", ("a", "axis"), ("a",), {"axis": ("axis", None)},
                           ignored=()),
    "np.reshape": TFOp("reshape", ("a", "shape", "order"), ("a",), {"shape": ("shape", None)},
                       ignored=("order",)),
    "np.transpose": TFOp("transpose", ("a", "axes"), ("a",), {"axes": ("axes", None)},
                         ignored=()),
    "np.squeeze": TFOp("squeeze", ("a", "axis"), ("a",), {"axis": ("axis", None)}, ignored=()),
    "np.argmin": TFOp("argmin", ("a", "axis"), ("a",), {"axis": ("axis", None)}, ignored=()),
    "np.where": TFOp("where", ("condition", "x", "y"), ("condition", "x", "y"), ignored=()),
    **{f"np.{n}": TFOp(n, ("a", "axis", "dtype", "out", "ddof", "keepdims"), ("a",),
                       {"axis": ("axis", None), "keepdims": ("keepdims", False)},
                       ignored=("dtype", "out"))
       for n in ("std", "var")},
    "np.tile": TFOp("tile", ("A", "reps"), ("A",), {"reps": ("multiples", None)}, ignored=()),
    "np.outer": TFOp("outer", ("a", "b"), ("a", "b"), ignored=()),
    "np.trace": TFOp("trace", ("a",), ("a",), ignored=()),
})  # fmt: skip

# TensorFlow names gradcli knows but cannot compute yet: the op they need is not registered
TF["tf.split"] = TFOp(
    "split",
    ("value", "num_or_size_splits", "axis", "num", "name"),
    ("value",),
    {"num_or_size_splits": ("num_or_size_splits", None), "axis": ("axis", 0)},
    ignored=("num", "name"),
)
TF["tf.unstack"] = TFOp(
    "unstack",
    ("value", "num", "axis", "name"),
    ("value",),
    {"num": ("num", None), "axis": ("axis", 0)},
)
TF["tf.nn.moments"] = TFOp(
    "moments",
    ("x", "axes", "shift", "keepdims", "name"),
    ("x",),
    {"axes": ("axes", None), "keepdims": ("keepdims", False)},
    ignored=("shift", "name"),  # unused by TensorFlow 2.21 too
    as_tuple=True,
)
TF["tf.math.top_k"] = TFOp(
    "top_k",
    ("input", "k", "sorted", "index_type", "name"),
    ("input",),
    {"k": ("k", 1), "sorted": ("sorted", True)},
    ignored=("index_type", "name"),
    outputs=("TopKV2", (("values", "top_k"), ("indices", "top_k_indices"))),
)
TF["tf.nn.top_k"] = TF["tf.math.top_k"]

TF["tf.nn.dropout"] = TFOp(
    "dropout",
    ("x", "rate", "noise_shape", "seed", "name"),
    ("x",),
    {"rate": ("rate", None), "noise_shape": ("noise_shape", None), "seed": ("seed", None)},
)

NOT_YET: dict[str, str] = {}


# rows kept under names TensorFlow 2.21 does not have (the Keras loss functions' attribute
# schemas are found by them): tf.keras.losses has mse and mae, not these; never accepted
INTERNAL = {"tf.keras.losses.mean_squared_error", "tf.keras.losses.mean_absolute_error"}


def lookup(dotted: str) -> TFOp | None:
    """The table row for a dotted name (tf.*, np.*, tf.raw_ops.*, keras.ops.*), or None."""
    if dotted in INTERNAL:
        return None
    row = TF.get(dotted) or NP.get(dotted)
    if row is None and "keras." in dotted:  # keras.ops, tf.keras.backend (api_keras.py)
        from gradcli.tfcode.api_keras import KERAS

        row = KERAS.get(dotted)
    if row is None and dotted.startswith("tf.raw_ops."):
        from gradcli.tfcode.api_raw_ops import RAW

        row = RAW.get(dotted)
    return row
