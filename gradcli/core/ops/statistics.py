"""Statistics as TensorFlow computes them: tf.math.reduce_variance and reduce_std.

Both are composite ops (ops/composite.py): TensorFlow defines them with reduce_mean,
subtraction, square and sqrt, and their gradients are its autodiff of that composition.
"""

from __future__ import annotations

from gradcli.core.ops.composite import composite_op
from gradcli.core.ops.infer import need_float, normalize_axes, reduced_shape
from gradcli.core.ops.registry import Attr, AttrKind, Transport, register


def _reduction_infer(name):
    def infer(attrs, x):
        need_float(name, x)
        axes = normalize_axes(name, attrs.get("axis"), len(x.shape))
        return reduced_shape(x.shape, axes, bool(attrs.get("keepdims"))), x.dtype

    return infer


def _axis(attrs):
    axis = attrs.get("axis")
    return tuple(axis) if isinstance(axis, list) else axis


def _var_expand(b, attrs, x):
    # tf.math.reduce_variance: mean(square(x - mean(x, keepdims=True)), axis, keepdims)
    means = b.mean(x, axis=_axis(attrs), keepdims=True)
    return b.mean(
        b.square(b.sub(x, means)), axis=_axis(attrs), keepdims=bool(attrs.get("keepdims"))
    )


def _std_expand(b, attrs, x):
    # tf.math.reduce_std: sqrt(reduce_variance(x))
    return b.sqrt(_var_expand(b, attrs, x))


for _name, _expand, _tf in (
    ("var", _var_expand, "reduce_variance"),
    ("std", _std_expand, "reduce_std"),
):
    register(
        composite_op(
            _name,
            _expand,
            _reduction_infer(_name),
            arity=1,
            attrs=(Attr("axis", AttrKind.AXES), Attr("keepdims", AttrKind.BOOL, False)),
            transport=Transport.REDUCE,
            overflows=True,
            doc=f"tf.math.{_tf}(x, axis, keepdims)",
        )
    )
