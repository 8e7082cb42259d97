"""Randomness models use: tf.nn.dropout, tf.random.normal and tf.random.uniform.

The numbers come from gradcli's own generator, numpy's default_rng(seed) (seed 0 when none
is given), so they differ from TensorFlow's streams; shapes, dtypes, the structure of a
result and its diagnosis do not. A draw depends only on its seed, shape and dtype: the same
seed gives the same mask and values on every run and at every --at point, so with its seed
fixed dropout is a fixed linear map and a draw is a constant.

dropout is TensorFlow 2.21's: rate 0 returns x itself; otherwise keep = uniform(noise_shape)
>= rate and the result is where(keep, x * scale, 0) with scale = 1 / (1 - rate) computed in
float64 and rounded to x's dtype. Its gradient is where(keep, g, 0) * scale: the same map on
g, so a dropped element gets exactly 0 whatever flows in (inf included). random_normal and
random_uniform are TensorFlow's compositions, draw * stddev + mean and
draw * (maxval - minval) + minval, so gradients reach mean, stddev, minval and maxval as
TensorFlow's autodiff of those; the draws themselves are constants without a gradient path.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import FLOAT_DTYPES
from gradcli.core.ops.composite import composite_op
from gradcli.core.ops.infer import fmt, need_float
from gradcli.core.ops.registry import (
    CUT,
    MASK,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    materialize,
    register,
)
from gradcli.core.ops.sym import apply, number, obj


def generator(seed) -> np.random.Generator:
    """gradcli's generator for a seed (None: 0); any integer seed, negative ones included."""
    return np.random.default_rng(0 if seed is None else int(seed) % 2**64)


# --- dropout -----------------------------------------------------------------------------------
def _rate(attrs) -> float:
    return float(attrs["rate"])


def scale(rate: float, dtype) -> np.ndarray:
    """TensorFlow's scale: 1 / (1 - rate) in Python floats, then converted to x's dtype."""
    return np.asarray(1 / (1 - rate), dtype=dtype)


def keep_mask(attrs, xshape) -> np.ndarray:
    """The kept elements, of noise_shape (x's shape when none): uniform draws >= rate."""
    noise = attrs.get("noise_shape")
    shape = tuple(xshape) if noise is None else tuple(noise)
    return generator(attrs.get("seed")).random(shape) >= _rate(attrs)


def _dropout_infer(attrs, x):
    need_float("dropout", x)
    rate = _rate(attrs)
    if not 0 <= rate < 1:  # TensorFlow's ValueError, before anything else
        raise ShapeError(
            f"dropout: rate must be a float in the range [0, 1) (TensorFlow raises "
            f"ValueError), got {attrs['rate']}"
        )
    noise = attrs.get("noise_shape")
    if rate == 0 or noise is None:  # rate 0 returns x before noise_shape is read
        return x.shape, x.dtype
    if any(d < 0 for d in noise):
        raise ShapeError(f"dropout: noise_shape {fmt(noise)} has a negative dimension")
    try:  # the mask broadcasts against x (TensorFlow's where_v2), both ways
        shape = tuple(np.broadcast_shapes(tuple(noise), x.shape))
    except ValueError:
        raise ShapeError(
            f"dropout: noise_shape {fmt(noise)} does not broadcast with x's shape {fmt(x.shape)}"
        ) from None
    return shape, x.dtype


def _dropout_bind(attrs):
    rate = _rate(attrs)

    def dropout(x):
        x = np.asarray(x)
        if rate == 0:
            return x.copy()
        keep = keep_mask(attrs, x.shape)
        with np.errstate(over="ignore"):
            kept = x * scale(rate, x.dtype)
        return np.where(keep, kept, np.zeros((), x.dtype))

    return dropout


def _dropout_grad(b, n, g):
    # TensorFlow: where(keep, g, 0) * scale, the same linear map on g (same seed and mask
    # shape); g has the node's shape here, and autodiff sums it back to x's shape
    return b.dropout(materialize(b, g, n.shape), **n.attrs)


def _dropout_sympy(sp, attrs, args, values):
    x = np.asarray(values[0])
    rate = _rate(attrs)
    if rate == 0:
        return obj(args[0])
    s = number(sp, scale(rate, x.dtype))
    keep = keep_mask(attrs, x.shape)
    return apply(lambda e, k: e * s if k else sp.Integer(0), obj(args[0]), keep)


def _dropped(node, value_of) -> np.ndarray:
    """Explain: the elements dropout zeroes (none at rate 0)."""
    shape = np.shape(value_of(node.inputs[0]))
    if _rate(node.attrs) == 0:
        return np.zeros((), bool)
    return ~keep_mask(node.attrs, shape)


register(
    Op(
        "dropout",
        _dropout_infer,
        bind=_dropout_bind,
        grads=(_dropout_grad,),
        behavior=MASK,
        transport=Transport.ELEMENTWISE,
        sympy=_dropout_sympy,
        masks=_dropped,
        mask_words=(
            "dropped by dropout(rate={rate}) in {entry} {line}: {count} of {arg} get no gradient",
            "dropout(rate={rate}) in {entry} {line} dropped them",
        ),
        overflows=True,
        public=True,
        arity=1,
        accepts="float",
        attrs=(
            Attr("rate", AttrKind.FLOAT, required=True, example="{op}(x, rate=0.5)"),
            Attr("noise_shape", AttrKind.INTS),
            Attr("seed", AttrKind.AXIS),
        ),
        doc="tf.nn.dropout: elements kept with probability 1 - rate and scaled by "
        "1 / (1 - rate), the others 0 (gradcli's seeded mask: seed 0 unless given)",
    )
)


# --- random draws --------------------------------------------------------------------------------
def _draw_infer(attrs):
    return tuple(attrs["shape"]), attrs.get("dtype", "float64")


def _draw_bind(attrs):
    shape, dtype = _draw_infer(attrs)

    def draw():
        rng = generator(attrs.get("seed"))
        if attrs["dist"] == "normal":
            return rng.standard_normal(shape, dtype=dtype)
        return rng.random(shape, dtype=dtype)  # [0, 1) in the dtype itself

    return draw


register(
    Op(
        "random_draw",
        _draw_infer,
        bind=_draw_bind,
        behavior=CUT,
        arity=0,
        doc="standard normal or [0, 1) uniform draws of a shape: a constant for a seed",
    )
)


def _random_infer(name, low, high):
    def infer(attrs, a, b):
        dtype = attrs.get("dtype", "float64")
        if dtype not in FLOAT_DTYPES:
            raise ShapeError(f"{name}: dtype must be float32 or float64, got '{dtype}'")
        shape = attrs["shape"]
        if any(d < 0 for d in shape):
            raise ShapeError(f"{name}: shape {fmt(shape)} has a negative dimension")
        for what, t in ((low, a), (high, b)):
            need_float(name, t)
            if t.dtype != dtype:  # TensorFlow converts them to dtype, and refuses to cast
                raise ShapeError(
                    f"{name}: {what} is {t.dtype} but dtype is {dtype} (TensorFlow raises "
                    "ValueError); cast it or give dtype="
                )
        try:
            out = tuple(np.broadcast_shapes(tuple(shape), a.shape, b.shape))
        except ValueError:
            raise ShapeError(
                f"{name}: shape {fmt(shape)}, {low} {fmt(a.shape)} and {high} {fmt(b.shape)} "
                "do not broadcast"
            ) from None
        return out, dtype

    return infer


def _draw(b, attrs, dist, like):
    return b.random_draw(
        shape=tuple(attrs["shape"]),
        seed=attrs.get("seed"),
        dtype=attrs.get("dtype", "float64"),
        dist=dist,
    )


def _normal_expand(b, attrs, mean, stddev):
    # tf.random.normal: random_standard_normal(shape) * stddev + mean
    return b.add(b.mul(_draw(b, attrs, "normal", mean), stddev), mean)


def _uniform_expand(b, attrs, minval, maxval):
    # tf.random.uniform: random_uniform(shape) * (maxval - minval) + minval
    return b.add(b.mul(_draw(b, attrs, "uniform", minval), b.sub(maxval, minval)), minval)


def _random_op(name, expand, low, high, defaults, doc):
    register(
        composite_op(
            name,
            expand,
            _random_infer(name, low, high),
            elementwise=True,
            overflows=True,
            arity=2,
            attrs=(
                Attr("shape", AttrKind.INTS, required=True, leading=True),
                Attr(low, AttrKind.TENSOR, defaults[0]),
                Attr(high, AttrKind.TENSOR, defaults[1]),
                Attr("dtype", AttrKind.DTYPE, "float64"),
                Attr("seed", AttrKind.AXIS),
            ),
            doc=doc,
        )
    )


_random_op(
    "random_normal",
    _normal_expand,
    "mean",
    "stddev",
    (0.0, 1.0),
    "tf.random.normal(shape, mean=0, stddev=1, dtype, seed): draws * stddev + mean (float64 "
    "unless dtype says; gradcli's seeded draws, seed 0 unless given)",
)
_random_op(
    "random_uniform",
    _uniform_expand,
    "minval",
    "maxval",
    (0.0, 1.0),
    "tf.random.uniform(shape, minval=0, maxval=1, dtype, seed): draws in [minval, maxval) "
    "(float64 unless dtype says; gradcli's seeded draws, seed 0 unless given)",
)
