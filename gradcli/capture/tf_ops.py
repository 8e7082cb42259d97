"""TensorFlow's op types in the capture's neutral terms: an OpKind for each op type the op
callback sees, the role an op plays when the gradient through it turns zero or None, and
which op types TensorFlow's gradient registry leaves without a gradient.

No TensorFlow import here: these are tables of op type names (the `op_type` an op callback
receives), as TensorFlow 2.21 names them.
"""

from __future__ import annotations

from gradcli.capture.program import OpKind

DETACHES = frozenset(["StopGradient", "PreventGradient"])
# writes into a variable's state: the value written reaches later reads, no gradient does
WRITES = frozenset(
    [
        "AssignVariableOp",
        "AssignAddVariableOp",
        "AssignSubVariableOp",
        "ResourceScatterUpdate",
        "ResourceScatterAdd",
        "ResourceScatterSub",
        "ResourceScatterMul",
        "ResourceScatterDiv",
        "ResourceScatterMin",
        "ResourceScatterMax",
        "ResourceScatterNdUpdate",
        "ResourceScatterNdAdd",
        "ResourceScatterNdSub",
        "ResourceStridedSliceAssign",
        "ResourceApplyGradientDescent",
        "ResourceApplyAdam",
        "ResourceApplyMomentum",
        "ResourceApplyKerasMomentum",
        "ResourceApplyRMSProp",
        "ResourceApplyAdagrad",
        "MakeIterator",  # a dataset written into an iterator (Keras's predict, fit)
    ]
)
# the input a write writes into, where it is not the first
WRITE_TARGET = {"MakeIterator": 1}
# ops that read only their input's shape or dtype: no data edge from it
SHAPE_ONLY = frozenset(["Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike"])
READS = frozenset(["ReadVariableOp", "ResourceGather", "ResourceGatherNd"])
# values leaving TensorFlow for NumPy inside the graph (tf.numpy_function / py_func)
NUMPY_FUNCTIONS = frozenset(["PyFunc", "PyFuncStateless"])
# ops whose derivative is infinite where their output is 0 (d sqrt(x) = 1 / (2 sqrt(x)))
SINGULAR_AT_ZERO = frozenset(["Sqrt", "EuclideanNorm"])
# matmul's op types and the attributes that transpose their operands
TRANSPOSING = frozenset(["MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"])
TRANSPOSES = ("transpose_a", "transpose_b", "adj_x", "adj_y")
QUIET = frozenset(["NoOp", "Placeholder", "VarIsInitializedOp"])
INTEGER_TYPES = frozenset(
    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]
)
# registered gradients that return None for every input (a cut, like a missing gradient)
NONE_GRADIENTS = frozenset(
    [
        "ArgMax",
        "ArgMin",
        "Round",
        "Rint",
        "Floor",
        "Ceil",
        "FloorDiv",
        "TruncateDiv",
        "Shape",
        "ShapeN",
        "Size",
        "Rank",
        "OnesLike",
        "ZerosLike",
        "RandomUniformInt",
        "Multinomial",
        "Unique",
        "TopKV2_indices",
    ]
)
ROLES = {
    "threshold": frozenset(
        [
            "Relu",
            "Relu6",
            "LeakyRelu",
            "Elu",
            "Selu",
            "Maximum",
            "Minimum",
            "ClipByValue",
            "Max",
            "Min",
            "SelectV2",  # tf.where: the static reader's `inactive` (the side not taken)
            "Select",
        ]
    ),
    "mask": frozenset(
        [
            "Mul",
            "MatMul",
            "BatchMatMulV2",
            "BatchMatMulV3",
            "Einsum",
            "Conv2D",
            "Conv1D",
            "Conv3D",
            "DepthwiseConv2dNative",
        ]
    ),
    "saturating": frozenset(["Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Softplus"]),
    "select": frozenset(
        [
            "GatherV2",
            "GatherNd",
            "ResourceGather",
            "StridedSlice",
            "Slice",
            "MaxPool",
            "MaxPoolV2",
            "MaxPool3D",
            "TopKV2",
        ]
    ),
    "rounding": frozenset(["Round", "Rint", "Floor", "Ceil", "Sign", "FloorDiv", "TruncateDiv"]),
    # a traced tf.cond (cond_v2's If, TF1's Switch): the untaken branch's inputs get zeros
    "branch": frozenset(["If", "StatelessIf", "Case", "StatelessCase", "Switch", "RefSwitch"]),
    "discrete": frozenset(
        [
            "ArgMax",
            "ArgMin",
            "Equal",
            "NotEqual",
            "Less",
            "LessEqual",
            "Greater",
            "GreaterEqual",
            "LogicalAnd",
            "LogicalOr",
            "LogicalNot",
            "IsNan",
            "IsInf",
            "IsFinite",
            "InTopKV2",
            "Unique",
        ]
    ),
}
ROLE_OF = {name: role for role, names in ROLES.items() for name in names}
# what the op types are called in the report (the Python API a user wrote)
NAMES = {
    "StopGradient": "tf.stop_gradient",
    "ReadVariableOp": "a read of a variable",
    "AssignVariableOp": "assign",
    "AssignAddVariableOp": "assign_add",
    "AssignSubVariableOp": "assign_sub",
    "ResourceScatterUpdate": "scatter_update",
    "Cast": "tf.cast",
    "ArgMax": "tf.argmax",
    "ArgMin": "tf.argmin",
    "Round": "tf.round",
    "Floor": "tf.math.floor",
    "Ceil": "tf.math.ceil",
    "Rint": "tf.math.rint",
    "PyFunc": "tf.numpy_function",
    "PyFuncStateless": "tf.numpy_function",
    "While": "tf.while_loop",
    "StatelessWhile": "tf.while_loop",
    "If": "tf.cond",
    "StatelessIf": "tf.cond",
    "PartitionedCall": "a tf.function",
    "StatefulPartitionedCall": "a tf.function",
}
# the op type of a tf.function called eagerly: TensorFlow's name for the traced function
FUNCTION_PREFIXES = ("__inference_", "__forward_", "__backward_")


def kind_of(op_type: str, out_dtype: str | None) -> OpKind:
    """The neutral kind of an op type (out_dtype: its first output's dtype name)."""
    if op_type in DETACHES:
        return OpKind.DETACH
    if op_type in WRITES:
        return OpKind.INPLACE
    if op_type in NUMPY_FUNCTIONS:
        return OpKind.EXIT
    if op_type == "Cast" and out_dtype in INTEGER_TYPES:
        return OpKind.CAST_INT
    return OpKind.COMPUTE


def display(op_type: str, extra: dict | None = None) -> str:
    """The name an op is reported by (a tf.function by the Python function's name, never
    TensorFlow's `__inference_f_92`)."""
    if op_type.startswith(FUNCTION_PREFIXES):
        return f"the tf.function {function_name(op_type)}"
    return NAMES.get(op_type, op_type)


def function_name(op_type: str) -> str:
    """f from `__forward_f_92`, `__inference_f_56` or `__inference___backward_f_57_124`."""
    name = op_type
    while True:
        start = next((p for p in FUNCTION_PREFIXES if name.startswith(p)), None)
        if start is None:
            break
        name = name[len(start) :]
    parts = name.split("_")
    while len(parts) > 1 and parts[-1].isdigit():
        parts.pop()
    return "_".join(parts) or "?"
