"""Keras initializers with gradcli's own seeded generator: the constant ones ("zeros",
"ones", Constant(v)) give Keras's exact values, the random ones Keras's distributions
(Glorot-uniform limit sqrt(6 / (fan_in + fan_out)), ...) but not its numbers."""

from __future__ import annotations

import math

import numpy as np

from gradcli.tfcode.keras.objects import Initializer
from gradcli.tfcode.support import _describe

NAMES = {
    "zeros": "zeros", "Zeros": "zeros", "ones": "ones", "Ones": "ones",
    "constant": "constant", "Constant": "constant",
    "glorot_uniform": "glorot_uniform", "GlorotUniform": "glorot_uniform",
    "glorot_normal": "glorot_normal", "GlorotNormal": "glorot_normal",
    "he_uniform": "he_uniform", "HeUniform": "he_uniform",
    "he_normal": "he_normal", "HeNormal": "he_normal",
    "lecun_uniform": "lecun_uniform", "LecunUniform": "lecun_uniform",
    "lecun_normal": "lecun_normal", "LecunNormal": "lecun_normal",
    "random_normal": "random_normal", "RandomNormal": "random_normal",
    "random_uniform": "random_uniform", "RandomUniform": "random_uniform",
    "orthogonal": "orthogonal", "Orthogonal": "orthogonal",
}  # fmt: skip
# variance scaling: (scale, mode, distribution)
SCALING = {
    "glorot_uniform": (1.0, "fan_avg", "uniform"), "glorot_normal": (1.0, "fan_avg", "normal"),
    "he_uniform": (2.0, "fan_in", "uniform"), "he_normal": (2.0, "fan_in", "normal"),
    "lecun_uniform": (1.0, "fan_in", "uniform"), "lecun_normal": (1.0, "fan_in", "normal"),
}  # fmt: skip


def construct(it, name: str, args, kwargs, node) -> Initializer:
    """tf.keras.initializers.X(...): Constant(value), RandomNormal(mean, stddev), ..."""
    kind = NAMES[name]
    for k in kwargs:
        if k not in ("value", "mean", "stddev", "minval", "maxval", "seed"):
            it.refuse(node, f"tf.keras.initializers.{name}(..., {k}=...)")
    if kind == "constant":
        value = args[0] if args else kwargs.get("value", 0.0)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            it.refuse(node, f"Constant({_describe(value)})", "give a Python number")
        return Initializer(kind, float(value))
    if kind == "random_normal":
        mean = args[0] if args else kwargs.get("mean", 0.0)
        std = args[1] if len(args) > 1 else kwargs.get("stddev", 0.05)
        return Initializer(kind, (mean, std))
    if kind == "random_uniform":
        low = args[0] if args else kwargs.get("minval", -0.05)
        high = args[1] if len(args) > 1 else kwargs.get("maxval", 0.05)
        return Initializer(kind, (low, high))
    return Initializer(kind)


def get(it, value, node, default: str) -> Initializer:
    """An initializer argument: a string, an initializer object, or None (the default)."""
    if value is None:
        return Initializer(default)
    if isinstance(value, Initializer):
        return value
    if isinstance(value, str) and value in NAMES:
        return Initializer(NAMES[value])
    it.refuse(node, f"the initializer {_describe(value) if not isinstance(value, str) else value}")


def fans(shape) -> tuple[float, float]:
    """Keras's compute_fans."""
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


def value(it, init: Initializer, shape, dtype: str, node) -> np.ndarray:
    """The initial value: exact for constants, gradcli's generator for random ones."""
    kind = init.kind
    if kind in ("zeros", "ones", "constant"):
        fill = {"zeros": 0.0, "ones": 1.0}.get(kind, init.value)
        return np.full(shape, fill, dtype=dtype)
    if kind == "random_normal":
        mean, std = init.value or (0.0, 0.05)  # Keras's defaults
        return it.rng.normal(mean, std, shape).astype(dtype)
    if kind == "random_uniform":
        low, high = init.value or (-0.05, 0.05)
        return it.rng.uniform(low, high, shape).astype(dtype)
    if kind == "orthogonal":
        return orthogonal(it, shape).astype(dtype)
    scale, mode, dist = SCALING[kind]
    fan_in, fan_out = fans(shape)
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    variance = scale / max(1.0, n)
    if dist == "uniform":
        limit = math.sqrt(3.0 * variance)
        return it.rng.uniform(-limit, limit, shape).astype(dtype)
    std = math.sqrt(variance) / 0.87962566103423978  # truncated at two standard deviations
    return np.clip(it.rng.normal(0.0, std, shape), -2 * std, 2 * std).astype(dtype)


def orthogonal(it, shape) -> np.ndarray:
    """Keras's Orthogonal (gain 1): the Q of a normal matrix's QR, columns signed by R's
    diagonal, for the shape flattened to (prod(shape[:-1]), shape[-1])."""
    rows, cols = math.prod(shape[:-1]), shape[-1]
    q, r = np.linalg.qr(it.rng.normal(0.0, 1.0, (max(rows, cols), min(rows, cols))))
    q = q * np.sign(np.diag(r))
    return (q.T if rows < cols else q).reshape(shape)
