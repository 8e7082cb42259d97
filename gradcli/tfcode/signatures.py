"""tf.function's input_signature, read only where it changes nothing.

With an input_signature, TensorFlow binds each call's arguments to the signature's TensorSpecs
before tracing: a tensor of another dtype or shape is not bound (TensorFlow 2.21 raises
TypeError there), a Python number or NumPy array is converted to a tensor (the body then sees a
graph tensor where the reader would see the number), and a dimension given as None is unknown
inside the body (its static shape has None where the reader knows the size). The reader reads a
call as it reads one without a signature, so it does so only where all of that is moot: each
argument is a tensor (not a variable) of exactly the spec's dtype and fully defined shape.
Everything else is refused at the call, naming --run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.datasets import TensorSpec
from gradcli.tfcode.support import DTYPE_NAMES, _describe
from gradcli.tfcode.values import TF, DType, Tensor

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

UNBOUND = "TensorFlow does not bind it to the signature"


def tensor_spec(it: Interpreter, args, kwargs, node) -> TensorSpec:
    """tf.TensorSpec(shape, dtype=tf.float32, name=None): a shape (None: unknown rank, a None
    dimension: unknown size) and a dtype."""
    params = ("shape", "dtype", "name")
    if len(args) > len(params) or any(k not in params for k in kwargs):
        it.refuse(node, "tf.TensorSpec with these arguments")
    bound = {**dict(zip(params, args)), **kwargs}
    shape, dtype = bound.get("shape"), bound.get("dtype", DType("float32"))
    if isinstance(dtype, str) and dtype in DTYPE_NAMES:
        dtype = DType(DTYPE_NAMES[dtype])
    if not isinstance(dtype, DType):
        it.refuse(node, f"tf.TensorSpec(dtype={_describe(dtype)})")
    if shape is None:
        return TensorSpec(None, dtype.name)
    dims = shape if isinstance(shape, (list, tuple)) else None
    if dims is None or not all(
        d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) for d in dims
    ):
        it.refuse(node, f"tf.TensorSpec(shape={_describe(shape)})", "give a list of sizes")
    return TensorSpec(tuple(dims), dtype.name)


def check_signature(it: Interpreter, fn, args: list, kwargs: dict, node) -> None:
    """Refuse a call of a tf.function with an input_signature unless every argument is a tensor
    of exactly its spec's dtype and (fully defined) shape (see the module docstring)."""
    specs = fn.signature
    name = f"{fn.name}()"
    if not isinstance(specs, (list, tuple)) or not all(isinstance(s, TensorSpec) for s in specs):
        it.refuse(node, f"a call of {name} with an input_signature of {_describe(specs)}",
                  "gradcli reads a flat list of tf.TensorSpec")  # fmt: skip
    if kwargs or len(args) != len(specs):
        it.refuse(node, f"a call of {name} with {len(args)} positional and {len(kwargs)} keyword "
                  f"arguments for an input_signature of {len(specs)}")  # fmt: skip
    for k, (value, spec) in enumerate(zip(args, specs)):
        if spec.shape is None or None in spec.shape:
            it.refuse(node, f"a call of {name} whose input_signature has an unknown dimension "
                      f"({_spec_text(spec)})",
                      "inside the function TensorFlow's static shape has None there")  # fmt: skip
        if not isinstance(value, Tensor) or value.kind != TF:
            what = f"a call of {name} with an input_signature and argument {k} {_describe(value)}"
            it.refuse(node, what, "TensorFlow converts it to a graph tensor first")
        n = it.g[value.id]
        if n.dtype != spec.dtype or tuple(n.shape) != tuple(spec.shape):
            it.refuse(node, f"a call of {name} with argument {k} a {n.dtype} tensor of shape "
                      f"{tuple(n.shape)} for its input_signature's {_spec_text(spec)}",
                      UNBOUND)  # fmt: skip


def _spec_text(spec: TensorSpec) -> str:
    shape = None if spec.shape is None else list(spec.shape)
    return f"TensorSpec(shape={shape}, dtype=tf.{spec.dtype})"
