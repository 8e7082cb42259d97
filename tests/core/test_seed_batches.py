"""Jacobians and Hessians over a leading seed axis (core/batch.py run_seeds) against one pass
per seed: the same bits, for the property tests' random graphs over every op template, in
chunks under a small --max-bytes, and for ops whose batched forward is their own (Op.batched).

The reference is gradcli's own earlier way of computing the same numbers (one executor pass
per one-hot seed), which the finite-difference and TensorFlow tests check; these tests pin
that the batched pass changes nothing, bit for bit (signed zeros and nan included).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.api import problem_from_text
from gradcli.core import jacobian as jac_module
from gradcli.core.jacobian import hessian, jacobian
from gradcli.core.ops import REGISTRY
from gradcli.core.ops.registry import BROADCAST
from gradcli.runtime import limits

_spec = importlib.util.spec_from_file_location(
    "property_templates",
    os.path.join(os.path.dirname(__file__), "..", "conformance", "test_properties.py"),
)
props = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(props)


def _blocks(result) -> dict:
    return {
        (a, b): (blk.status, None if blk.value is None else np.asarray(blk.value))
        for a, row in result.items()
        for b, blk in row.items()
    }


def _differences(batched: dict, per_seed: dict, text: str) -> list:
    """Where the batched blocks and the per-seed ones are not the same bits (empty: none)."""
    if batched.keys() != per_seed.keys():
        return [(text, sorted(batched), sorted(per_seed))]
    out = []
    for key, (status, value) in batched.items():
        other_status, other = per_seed[key]
        if status != other_status or (value is None) != (other is None):
            out.append((text, key, status, other_status))
            continue
        if value is None:
            continue
        if value.shape != other.shape or value.dtype != other.dtype:
            out.append((text, key, value.shape, other.shape))
            continue
        if value.dtype.kind == "f":  # a NaN's sign bit follows numpy's loop (SIMD or scalar)
            nan = np.isnan(value)
            if not np.array_equal(nan, np.isnan(other)):
                out.append((text, key, value, other))
                continue
            value, other = np.where(nan, 0, value), np.where(nan, 0, other)
        if value.tobytes() != other.tobytes():
            out.append((text, key, value, other))
    return out


def _both(monkeypatch, compute):
    """compute() batched, then with one pass per seed (seed_chunk 0), on fresh problems."""
    batched = _blocks(compute())
    with monkeypatch.context() as m:
        m.setattr(jac_module, "seed_chunk", lambda *args: 0)
        per_seed = _blocks(compute())
    return batched, per_seed


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=props.graph_expression(), seed=st.integers(0, 2**32 - 1))
def test_random_graphs_batched_equal_per_seed(expr, seed) -> None:
    # every template of the property tests, first and second order, in float64
    monkeypatch = pytest.MonkeyPatch()
    try:
        at = props.values(seed)
        text = props.spec_text(expr[0])
        batched, per_seed = _both(
            monkeypatch, lambda: hessian(problem_from_text(text, at=at, unconnected="zero"))
        )
        assert not _differences(batched, per_seed, text)
        # the Jacobian of the expression itself (not summed): rows of a tensor output
        inner = text.replace("f: 'sum(", "f: '(", 1)
        batched, per_seed = _both(
            monkeypatch, lambda: jacobian(problem_from_text(inner, at=at, unconnected="zero"))
        )
        assert not _differences(batched, per_seed, inner)
    finally:
        monkeypatch.undo()


MLP = """inputs:
  x: {random: normal, shape: [4, 5], seed: 1, trainable: false}
  w1: {random: normal, shape: [5, 6], seed: 2}
  b1: {random: normal, shape: [6], seed: 3}
  w2: {random: normal, shape: [6, 3], seed: 4}
graph:
  h: tanh(x @ w1 + b1)
  r: relu(h @ w2) - 0.1 * transpose(reshape(broadcast_to(b1, [2, 6]), [3, 4]))
  loss: sum(square(r)) / 4 + sum(sigmoid(w1) * w1, axis=0)[2]
"""


def test_mlp_hessian_batched_equals_per_seed(monkeypatch) -> None:
    # matmul, reshape, transpose, broadcast_to, sum with an axis: their own batched forwards
    batched, per_seed = _both(monkeypatch, lambda: hessian(problem_from_text(MLP)))
    assert not _differences(batched, per_seed, MLP)
    assert any(v is not None and np.any(v) for _, v in batched.values())


def test_chunks_under_a_small_byte_limit_equal_one_pass(monkeypatch) -> None:
    # a byte limit that leaves room for a few seeds per pass: several passes, same bits
    whole = _blocks(hessian(problem_from_text(MLP)))
    monkeypatch.setattr(limits, "current", limits.from_env({"GRADCLI_MAX_BYTES": "20000"}))
    chunks = []
    real = jac_module.run_seeds

    def spy(graph, probe, seeds, *args):
        chunks.append(len(seeds))
        return real(graph, probe, seeds, *args)

    monkeypatch.setattr(jac_module, "run_seeds", spy)
    small = _blocks(hessian(problem_from_text(MLP)))
    assert len(chunks) > 4 and max(chunks) < 30, chunks  # w1 alone has 30 elements
    assert not _differences(small, whole, MLP)


def test_batched_field_values() -> None:
    # Op.batched is BROADCAST, a hook, or None (once per seed); never by op name in the pass
    for op in REGISTRY.values():
        assert op.batched is None or op.batched == BROADCAST or callable(op.batched), op.name
    for name in ("add", "sub", "mul", "div", "neg", "where", "relu_grad"):
        assert REGISTRY[name].batched == BROADCAST, name
    for name in ("matmul", "sum", "reshape", "transpose", "broadcast_to"):
        assert callable(REGISTRY[name].batched), name
