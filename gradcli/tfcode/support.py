"""Small helpers of the TensorFlow reader: what a value is, and how to name it in errors."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.values import (
    NP,
    PY,
    TF,
    Module,
    PyFunction,
    Tensor,
    Variable,
)

if TYPE_CHECKING:  # annotations only: interpret.py imports this module
    from gradcli.tfcode.interpret import Interpreter


DTYPE_NAMES = {
    "float32": "float32", "float64": "float64", "double": "float64", "int32": "int32",
    "int64": "int64", "bool": "bool", "float": "float64", "int": "int64",
}  # fmt: skip
MAX_CALL_DEPTH = 60  # helpers inlined inside helpers
MAX_RANGE = 1_000_000  # iterations of one for loop
MAX_STEPS = 5_000_000  # statements interpreted in all
TAPE_CLASS = ("tf.GradientTape",)


class Refused(Exception):
    """A construct outside the subset: recorded; the statement's result is unknown."""


class Stop(Exception):
    """The program stops here, as TensorFlow's would (it raised)."""


class Raises(Exception):
    """TensorFlow raises here, outside any gradient call: the program stops (Program.error)."""

    def __init__(self, kind: str, message: str, pos, note: str = ""):
        super().__init__(message)
        self.kind, self.message, self.pos, self.note = kind, message, pos, note

    def record(self) -> dict:
        """The error as Program.error holds it."""
        return {"type": self.kind, "message": self.message, "line": self.pos.line,
                "note": self.note}  # fmt: skip


class _Return(Exception):
    def __init__(self, value):
        self.value = value


# --- small helpers ---------------------------------------------------------------------------
def _module_path(name: str) -> str:
    return (
        name.replace("tensorflow", "tf", 1)
        if name.startswith("tensorflow")
        else (name.replace("numpy", "np", 1) if name.startswith("numpy") else name)
    )


def _dtype_of_path(path: str) -> str | None:
    head, _, last = path.rpartition(".")
    if head in ("tf", "np", "tf.dtypes") and last in DTYPE_NAMES and last not in ("float", "int"):
        return DTYPE_NAMES[last]
    return None


def _as_load(target):
    new = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(new, target) if hasattr(target, "lineno") else new


def _key(value):
    if isinstance(value, (str, int, float, bool, type(None), tuple, Tensor)):
        return value
    if isinstance(value, Variable):
        return id(value)
    raise Refused()


def _is_python(v) -> bool:
    return isinstance(v, (int, float, bool, str, list, tuple, dict, type(None)))


def _is_tf(v) -> bool:
    return isinstance(v, Variable) or (isinstance(v, Tensor) and v.kind == TF)


def _kind(v) -> str:
    return TF if isinstance(v, Variable) else v.kind


def _python_dtype(values) -> str:
    """TensorFlow's dtype for Python values: float32 if any float, int32 for ints, bool."""
    flat = []
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, np.ndarray):
            flat.append(v.dtype.kind)
        else:
            flat.append("b" if isinstance(v, bool) else "i" if isinstance(v, int) else "f")
    if not flat or "f" in flat:
        return "float32"
    if "i" in flat or "u" in flat:
        return "int32"
    return "bool"


def _plain(it: Interpreter, v, node):
    """A Python value with tensors inside lists replaced by their values."""
    if isinstance(v, (list, tuple)):
        return [_plain(it, x, node) for x in v]
    if isinstance(v, (Tensor, Variable)):
        return it.value(it.tensor_id(v, read=False))
    return v


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flatten(value[k])]
    return [value]


def _describe(v) -> str:
    if isinstance(v, Tensor):
        return {TF: "a tensor", NP: "a NumPy array", PY: "a Python value made from a tensor"}[
            v.kind
        ]
    if isinstance(v, Variable):
        return "a tf.Variable"
    if isinstance(v, Module):
        return v.path
    if isinstance(v, PyFunction):
        return f"the function {v.name}"
    if hasattr(v, "cls") and hasattr(v.cls, "name"):  # an instance (tfcode/keras)
        return f"a {v.cls.name} object"
    if v is None:
        return "None"
    return f"a {type(v).__name__}"


def _what(node) -> str:
    text = ast.unparse(node)
    return _short(text)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _operand_text(node) -> str:
    if isinstance(node, ast.Call):
        if node.args:
            return _short(ast.unparse(node.args[0]), 30)
        if isinstance(node.func, ast.Attribute):
            return _short(ast.unparse(node.func.value), 30)
    return "the tensor"
