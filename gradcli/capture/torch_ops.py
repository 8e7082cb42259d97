"""PyTorch's operations in the capture's neutral terms: a name and an OpKind for each call,
and the role an operation plays when a gradient through it turns zero (PyTorch only here).

A torch-level call reaches the capture as `func` (a builtin, a method, a descriptor's
`__get__`/`__set__`); `describe(func)` says what it is once per function and caches it.
"""

from __future__ import annotations

import contextlib

from gradcli.capture.program import OpKind

# attributes read through descriptors that say nothing about the data flow
_QUIET_ATTRS = frozenset(
    [
        "shape",
        "dtype",
        "device",
        "is_leaf",
        "grad_fn",
        "requires_grad",
        "is_cuda",
        "is_sparse",
        "is_quantized",
        "is_meta",
        "ndim",
        "layout",
        "names",
        "is_nested",
        "_version",
        "_base",
        "output_nr",
        "_cdata",
        "is_mkldnn",
        "is_xpu",
        "is_mps",
        "is_complex",
        "itemsize",
        "nbytes",
    ]
)
_EXITS = frozenset(
    [
        "item",
        "tolist",
        "numpy",
        "__float__",
        "__int__",
        "__bool__",
        "__index__",
        "__complex__",
        "__array__",
        "__format__",
        "__len__",
    ]
)
_REWRAPS = frozenset(["tensor", "as_tensor", "asarray", "from_numpy", "Tensor", "FloatTensor"])
_FACTORIES = frozenset(
    [
        "randn",
        "rand",
        "randint",
        "randn_like",
        "rand_like",
        "randint_like",
        "zeros",
        "ones",
        "empty",
        "full",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "normal",
        "randperm",
        "tensor_split_dummy",
        "empty_strided",
        "bernoulli",
        "multinomial",
    ]
)
_INT_CASTS = frozenset(["long", "int", "short", "byte", "char", "bool"])
# the role an operation plays when the gradient flowing through it turns zero
ROLES = {
    "threshold": frozenset(
        [
            "relu",
            "relu_",
            "relu6",
            "hardtanh",
            "hardtanh_",
            "threshold",
            "threshold_",
            "clamp",
            "clamp_",
            "clip",
            "clamp_min",
            "clamp_max",
            "leaky_relu",
            "elu",
            "selu",
            "celu",
            "hardsigmoid",
            "hardswish",
            "prelu",
            "rrelu",
            "maximum",
            "minimum",
            "max",
            "min",
            "fmax",
            "fmin",
        ]
    ),
    "mask": frozenset(
        (
            "linear",
            "matmul",
            "mm",
            "bmm",
            "addmm",
            "einsum",
            "bilinear",
            "conv1d",
            "conv2d",
            "conv3d",
            "conv_transpose2d",
            "__matmul__",
            "dot",
            "outer",
            "rnn_tanh_cell",
            "rnn_relu_cell",
            "lstm_cell",
            "gru_cell",
            "lstm",
            "gru",
            "rnn_tanh",
            "rnn_relu",
        )
    )
    | frozenset(
        [
            "mul",
            "__mul__",
            "__rmul__",
            "where",
            "masked_fill",
            "masked_fill_",
            "masked_select",
            "dropout",
            "multiply",
            "mul_",
            "__imul__",
            "masked_scatter",
        ]
    ),
    "saturating": frozenset(
        [
            "sigmoid",
            "tanh",
            "softmax",
            "log_softmax",
            "exp",
            "softplus",
            "erf",
            "erfc",
            "logsigmoid",
            "sigmoid_",
            "tanh_",
            "hardtanh",
            "tanhshrink",
            "softsign",
        ]
    ),
    "rounding": frozenset(
        [
            "round",
            "floor",
            "ceil",
            "trunc",
            "sign",
            "fix",
            "frac",
            "round_",
            "floor_",
            "ceil_",
            "sign_",
            "sgn",
            "heaviside",
        ]
    ),
    "select": frozenset(
        [
            "__getitem__",
            "index_select",
            "gather",
            "narrow",
            "select",
            "take",
            "take_along_dim",
            "masked_select",
            "embedding",
            "max_pool2d",
            "max_pool1d",
            "max_pool3d",
            "adaptive_max_pool2d",
            "max_pool2d_with_indices",
            "topk",
            "sort",
            "kthvalue",
            "median",
            "mode",
            "amax",
            "amin",
        ]
    ),
    "discrete": frozenset(
        [
            "argmax",
            "argmin",
            "argsort",
            "eq",
            "ne",
            "lt",
            "le",
            "gt",
            "ge",
            "__eq__",
            "__ne__",
            "__lt__",
            "__le__",
            "__gt__",
            "__ge__",
            "equal",
            "isclose",
            "isnan",
            "isinf",
            "isfinite",
            "logical_and",
            "logical_or",
            "logical_not",
            "logical_xor",
            "bucketize",
            "searchsorted",
            "nonzero",
            "unique",
            "histc",
            "bincount",
            "count_nonzero",
        ]
    ),
}
ROLE_OF = {name: role for role, names in ROLES.items() for name in names}
_INPLACE_DUNDERS = frozenset(
    [
        "__setitem__",
        "__iadd__",
        "__isub__",
        "__imul__",
        "__itruediv__",
        "__ifloordiv__",
        "__imod__",
        "__ipow__",
        "__iand__",
        "__ior__",
        "__ixor__",
        "__ilshift__",
        "__irshift__",
        "__imatmul__",
        "__idiv__",
    ]
)
GRAD_MODE = frozenset(("_set_grad_enabled", "set_grad_enabled"))


class Described:
    """What a torch-level function is: its display name, kind, and flags."""

    __slots__ = ("attr", "base", "kind", "name", "quiet", "setter")

    def __init__(self, name: str, base: str, kind: OpKind, quiet=False, attr=None, setter=False):
        self.name, self.base, self.kind = name, base, kind
        self.quiet, self.attr, self.setter = quiet, attr, setter

    def inplace(self) -> Described:
        """The same function called to write in place (inplace=True, out=)."""
        return Described(self.name, self.base, OpKind.INPLACE, self.quiet, self.attr)


_CACHE: dict = {}


def describe(func) -> Described:
    """The capture's view of a torch-level function (cached by the function object)."""
    owner = getattr(func, "__self__", None)
    if type(owner).__name__ == "getset_descriptor":  # an attribute read or write
        return _attribute(owner.__name__, getattr(func, "__name__", "") == "__set__")
    try:
        cached = _CACHE.get(func)
    except TypeError:  # unhashable: describe afresh
        cached = None
    if cached is not None:
        return cached
    described = _function(func)
    with contextlib.suppress(TypeError):
        _CACHE[func] = described
    return described


def _attribute(attr: str, setter: bool) -> Described:
    key = (attr, setter)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    name = f"Tensor.{attr}"
    if setter:
        kind = {"requires_grad": OpKind.SET_REQUIRES_GRAD, "grad": OpKind.SET_GRAD}.get(
            attr, OpKind.INPLACE
        )
        described = Described(name + " =", attr, kind, attr=attr, setter=True)
    elif attr == "data":
        described = Described(name, attr, OpKind.DETACH, attr=attr)
    elif attr == "grad":
        described = Described(name, attr, OpKind.READ_GRAD, attr=attr)
    else:
        described = Described(name, attr, OpKind.COMPUTE, quiet=attr in _QUIET_ATTRS, attr=attr)
    _CACHE[key] = described
    return described


def _function(func) -> Described:
    base = getattr(func, "__name__", None) or type(func).__name__
    qual = getattr(func, "__qualname__", "") or ""
    module = getattr(func, "__module__", "") or ""
    if qual.startswith(("TensorBase.", "_TensorBase.", "Tensor.")):
        name = f"Tensor.{base}"
    elif qual.startswith("_VariableFunctionsClass.") or module == "torch":
        name = f"torch.{base}"
    elif module in ("torch._C._nn", "torch.nn.functional"):
        name = f"F.{base}"
    elif module.startswith("torch.nn.init"):
        name = f"init.{base}"
    else:
        name = base
    method = name.startswith("Tensor.")
    if base in GRAD_MODE:
        kind = OpKind.GRAD_MODE
    elif base in _EXITS and (method or base in ("numpy", "tolist")):
        kind = OpKind.EXIT
    elif base in ("detach", "detach_"):
        kind = OpKind.DETACH
    elif base in _REWRAPS and not method:
        kind = OpKind.REWRAP
    elif base in _FACTORIES and not method:
        kind = OpKind.CREATE
    elif base == "requires_grad_":
        kind = OpKind.SET_REQUIRES_GRAD
    elif base in _INT_CASTS and method:
        kind = OpKind.CAST_INT
    elif _inplace(base):
        kind = OpKind.INPLACE
    else:
        kind = OpKind.COMPUTE
    quiet = base in (
        "size",
        "dim",
        "numel",
        "stride",
        "is_contiguous",
        "element_size",
        "get_device",
        "is_floating_point",
        "data_ptr",
        "storage_offset",
        "__repr__",
        "__str__",
        "__hash__",
        "__reduce_ex__",
        "is_inference",
        "_is_view",
        "untyped_storage",
        "__dlpack_device__",
        "has_names",
        "is_complex",
        "nelement",
    )
    return Described(name, base, kind, quiet=quiet)


def _inplace(base: str) -> bool:
    if base in _INPLACE_DUNDERS:
        return True
    return base.endswith("_") and not base.startswith("_") and not base.endswith("__")
