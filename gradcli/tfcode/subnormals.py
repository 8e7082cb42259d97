"""Subnormal floats, which TensorFlow's CPU kernels flush to zero (they run with the
processor's flush-to-zero and denormals-are-zero modes) and NumPy keeps: a call whose values
hold one is refused at the line that made it, since TensorFlow's numbers (a norm of 1e-19 is
0 there, so its gradient inf) can differ from gradcli's."""

from __future__ import annotations

import numpy as np

from gradcli.runtime.errors import GradcliError

FLOATS = ("float16", "bfloat16", "float32", "float64")


def refuse_subnormals(graph, values: dict | None, at=None) -> None:
    """Raise a positioned refusal at the first node whose value holds a subnormal float (at
    `at`, the gradient call's position, for a node of no line: a gradient's or an op's parts)."""
    for i in sorted(values or ()):
        node = graph[i]
        pos = node.pos or at
        if node.dtype not in FLOATS or pos is None:
            continue
        try:
            arr = np.asarray(values[i], dtype=node.dtype)
        except (TypeError, ValueError):
            continue
        tiny = np.finfo(arr.dtype).tiny if arr.dtype.kind == "f" else None
        if tiny is None or arr.size == 0:
            continue
        magnitude = np.abs(arr)
        small = (magnitude < tiny) & (magnitude > 0)
        if small.any():
            example = float(arr[small].reshape(-1)[0])
            where = "here" if node.pos else "this gradient call computes"
            raise GradcliError(
                f"a {node.dtype} value {where} is subnormal ({example:.3g}): TensorFlow's CPU "
                "kernels flush subnormal numbers to zero and gradcli does not, so the "
                "values and gradients can differ",
                pos,
            )


def evaluate_checked(problem, at, zeros: bool = False):
    """core evaluate of a call's problem (the call at `at`), refused where a value is
    subnormal."""
    from gradcli.core.evaluation import evaluate

    ev = evaluate(problem, keep=True, zeros=zeros)
    refuse_subnormals(ev.problem.graph, ev.values, at)
    ev.values = None  # kept only for that look
    return ev
