"""The cases of tools/tf_reference.py: gradcli text beside the equivalent TensorFlow code.

This module holds the helpers; the cases live in tf_cases_ops.py (elementwise ops and
their conventions), tf_cases_special.py (erf, inverse trig and hyperbolic functions,
atan2, xlogy...), tf_cases_division.py (floormod, floordiv, div_no_nan, mul_no_nan),
tf_cases_tensors.py (reductions, matmul, shapes), tf_cases_linalg.py (det, inv,
solve, cholesky, eigh, svd...), tf_cases_semantics.py
(cond, stop_gradient, dtypes, connectivity, custom gradients, NaN propagation) and
tf_cases_second_order.py (Hessians), tf_cases_derivatives.py (orders 3 and 4 through
nested tapes), tf_cases_xent.py (cross entropies, Keras' losses,
norms).

Each case is a gradcli expression (output `f`; every name is a float64 input) or a small
spec (inputs with dtypes, graph entries, functions, outputs, wrt, grad_ys), its input
values, and a function computing the same thing with TensorFlow from the inputs `v`
(v.x is input x as a tensor; v.watch(name, t) makes an intermediate a gradient target).

tolerance "exact": bit-identical results are expected (only + - * /, selections and
reductions whose every partial result is exact, as with small dyadic numbers);
"close": transcendental functions or rounded reductions, compared within a few ulps of
the tensor's largest magnitude (tests/conformance/test_tf_reference.py's ULPS); a case whose
gradient cancels more than that allows gets its own `ulps` and a note saying why.
A case may list the values that differ from TensorFlow by a documented decision
(`differs`): the test checks that they still differ and compares everything else.

TensorFlow's CPU kernels run with denormals flushed to zero; gradcli computes with
IEEE subnormals. The cases keep away from results in the subnormal range (below about
2.2e-308), where the two differ by design.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tensorflow as tf

D = tf.float64
F = tf.float32
NAN, INF = float("nan"), float("inf")


def c(value, dtype=D):
    """A TensorFlow constant (a tensor, not a Python float: tf.cond needs tensors)."""
    return tf.constant(value, dtype)


def f64(t):
    return tf.cast(t, D)


@dataclass
class In:
    """A spec input: its value, dtype and whether it is trainable."""

    value: object
    dtype: str = "float64"
    trainable: bool = True


@dataclass
class Case:
    id: str
    tf: Callable
    inputs: dict[str, In]
    expr: str | None = None
    graph: dict[str, str] | None = None
    functions: dict | None = None
    outputs: list[str] | None = None
    wrt: list[str] | None = None
    grad_ys: dict | None = None
    tolerance: str = "close"
    cli: bool = False
    note: str = ""
    ulps: int | None = None
    differs: dict[str, str] | None = None  # "output f" / "gradient x" -> why it differs

    def output_names(self) -> list[str]:
        if self.expr is not None:
            return ["f"]
        return self.outputs or [list(self.graph)[-1]]

    def targets(self) -> list[str]:
        if self.wrt:
            return list(self.wrt)
        return [n for n, i in self.inputs.items() if i.trainable and i.dtype.startswith("float")]


@dataclass
class Hessian:
    id: str
    expr: str
    inputs: dict[str, In]
    tf: Callable
    wrt: list[str] | None = None
    tolerance: str = "close"
    note: str = ""
    ulps: int | None = None


@dataclass
class Derivative:
    """Derivatives of order 1 to 4 through nested tapes: one block per sequence of targets,
    the first target's tape innermost."""

    id: str
    expr: str
    inputs: dict[str, In]
    tf: Callable
    sequences: list[list[str]]
    tolerance: str = "close"
    note: str = ""
    ulps: int | None = None


CASES: list[Case] = []
HESSIANS: list[Hessian] = []
DERIVATIVES: list[Derivative] = []


def _inputs(at: dict) -> dict[str, In]:
    return {k: v if isinstance(v, In) else In(v) for k, v in at.items()}


def expr(id, text, at, fn, *, exact=False, wrt=None, cli=False, note="", ulps=None):
    """A case given as one expression; every input is a trainable float64."""
    CASES.append(
        Case(
            id,
            fn,
            _inputs(at),
            expr=text,
            wrt=wrt,
            tolerance="exact" if exact else "close",
            cli=cli,
            note=note,
            ulps=ulps,
        )
    )


def spec(id, inputs, graph, fn, *, exact=False, cli=False, note="", ulps=None, differs=None, **kw):
    """A case given as a spec: inputs {name: value or In}, graph {entry: expression}."""
    CASES.append(
        Case(
            id,
            fn,
            _inputs(inputs),
            graph=graph,
            tolerance="exact" if exact else "close",
            cli=cli,
            note=note,
            ulps=ulps,
            differs=differs,
            **kw,
        )
    )


def hessian(id, text, at, fn, *, wrt=None, exact=False, note="", ulps=None):
    HESSIANS.append(
        Hessian(id, text, _inputs(at), fn, wrt, "exact" if exact else "close", note, ulps)
    )


def derivative(id, text, at, fn, sequences, *, exact=False, note="", ulps=None):
    """A higher-order case: sequences are lists of input names ("x,y,y" as a string too)."""
    seqs = [s.split(",") if isinstance(s, str) else list(s) for s in sequences]
    DERIVATIVES.append(
        Derivative(id, text, _inputs(at), fn, seqs, "exact" if exact else "close", note, ulps)
    )


X4 = [-1.5, -0.25, 0.5, 2.0]
M23 = [[0.5, -1.25, 2.0], [-0.75, 1.5, 3.25]]
W23 = [[1.5, -0.5, 2.0], [0.25, -2.0, 1.0]]

_RNG = np.random.default_rng(7)


def dyadic(*shape):
    """Small multiples of 1/4: every product and partial sum is exact in any order."""
    return (_RNG.integers(-8, 9, size=shape) / 4.0).tolist()


def load() -> tuple[list[Case], list[Hessian]]:
    """Import every case module (each registers its cases, in this order) and return them."""
    import tf_cases_activations  # noqa: F401
    import tf_cases_conv  # noqa: F401
    import tf_cases_derivatives  # noqa: F401
    import tf_cases_division  # noqa: F401
    import tf_cases_gamma  # noqa: F401
    import tf_cases_gaps  # noqa: F401
    import tf_cases_index2  # noqa: F401
    import tf_cases_indexing  # noqa: F401
    import tf_cases_layout  # noqa: F401
    import tf_cases_linalg  # noqa: F401
    import tf_cases_losses  # noqa: F401
    import tf_cases_ops  # noqa: F401
    import tf_cases_output_grads  # noqa: F401
    import tf_cases_random  # noqa: F401
    import tf_cases_second_order  # noqa: F401
    import tf_cases_semantics  # noqa: F401
    import tf_cases_shapes  # noqa: F401
    import tf_cases_shapes2  # noqa: F401
    import tf_cases_special  # noqa: F401
    import tf_cases_svd  # noqa: F401
    import tf_cases_tensors  # noqa: F401
    import tf_cases_unpacking  # noqa: F401
    import tf_cases_volumes  # noqa: F401
    import tf_cases_xent  # noqa: F401

    return CASES, HESSIANS
