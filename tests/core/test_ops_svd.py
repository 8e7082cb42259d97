"""svd's singular vectors: svd(x, compute_uv=true) gives TensorFlow's (s, u, v). Values are a
decomposition of x; first and second derivatives of sign-invariant losses match finite
differences (the signs are TensorFlow's below 16 columns: tools/tf_cases_svd.py compares them);
full_matrices as TensorFlow (its gradient only where the dimensions differ by at most 1);
the reader returns TensorFlow's tuple.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import assert_first_and_second_order, invoke, num, run_json


def _outputs(x: np.ndarray, flags: str = "") -> tuple:
    from gradcli.api import problem_from_expression
    from gradcli.core.executor import run

    problem = problem_from_expression(
        f"svd(x, compute_uv=true{flags})[0] * 0 + 0", {"x": x}, wrt=["x"]
    )
    graph = problem.graph
    ids = [n.id for n in graph.nodes if n.op in ("svd_values", "svd_u", "svd_v")]
    values = run(graph, ids)
    return tuple(np.asarray(values[i]) for i in ids)


@pytest.mark.parametrize("shape", [(3, 3), (5, 2), (2, 5), (2, 4, 3), (17, 18)])
def test_u_s_v_decompose_x(shape):
    x = np.random.default_rng(3).normal(size=shape)
    s, u, v = _outputs(x)
    np.testing.assert_allclose(u @ (s[..., :, None] * np.swapaxes(v, -1, -2)), x, atol=1e-12)
    p = min(shape[-2:])
    eye = np.broadcast_to(np.eye(p), (*shape[:-2], p, p))
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, eye, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye, atol=1e-12)
    assert np.all(np.diff(s, axis=-1) <= 0)


@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (3, 3)])
def test_full_matrices_are_square_orthogonal_and_extend_the_thin_ones(shape):
    x = np.random.default_rng(4).normal(size=shape)
    s, u, v = _outputs(x, ", full_matrices=true")
    thin = _outputs(x)
    rows, cols = shape
    assert u.shape == (rows, rows) and v.shape == (cols, cols)
    np.testing.assert_allclose(u.T @ u, np.eye(rows), atol=1e-12)
    np.testing.assert_allclose(v.T @ v, np.eye(cols), atol=1e-12)
    p = min(shape)
    np.testing.assert_allclose(u[:, :p], thin[1], atol=1e-12)
    np.testing.assert_allclose(v[:, :p], thin[2], atol=1e-12)
    np.testing.assert_array_equal(s, thin[0])


LOSSES = [
    # sign-invariant: each column enters through its square, or u_i v_i^T
    ("sum(svd(x, compute_uv=true)[1] ** 2 * w)", (3, 3)),
    ("sum(svd(x, compute_uv=true)[2] ** 2 * w)", (4, 2)),
    ("sum(svd(x, compute_uv=true)[1] ** 2 * w)", (2, 4)),
    ("sum(svd(x, compute_uv=true)[2] ** 2 * w)", (2, 4)),
    ("sum(svd(x, compute_uv=true, full_matrices=true)[1] ** 2 * w)", (3, 2)),
    ("sum(svd(x, compute_uv=true, full_matrices=true)[2] ** 2 * w)", (2, 3)),
    ("sum(svd(x, compute_uv=true)[1] ** 2 * w) + sum(svd(x, compute_uv=true)[0] ** 3)", (2, 3, 2)),
]


@pytest.mark.parametrize(("expr", "shape"), LOSSES)
def test_first_and_second_order_against_finite_differences(expr, shape):
    rng = np.random.default_rng(11)
    x = rng.normal(size=shape)
    which = 1 if "[1]" in expr else 2
    _, u, v = _outputs(x, ", full_matrices=true" if "full" in expr else "")
    w = rng.normal(size=(u if which == 1 else v).shape)
    assert_first_and_second_order(expr, {"x": x, "w": w}, "x", rng)


def test_check_uses_finite_differences():
    res = invoke("check", "-e", "sum(svd(x, compute_uv=true)[1] ** 2 * [[1, 2], [3, 4]])",
                 "--at", "x=[[1, 2], [3, -4]]", "--format", "json")  # fmt: skip
    assert res.code == 0, (res.stdout, res.stderr)


def test_svd_without_compute_uv_is_the_singular_values():
    doc = run_json("eval", "-e", "svd(x)", "--at", "x=[[3, 0], [0, -4]]", "--check", "off")
    assert num(doc["outputs"]["f"]["value"]).tolist() == [4.0, 3.0]


def test_the_full_gradient_is_refused_where_tensorflow_raises():
    res = invoke("eval", "-e", "sum(svd(x, compute_uv=true, full_matrices=true)[1])", "--at",
                 "x=[[1, 2], [3, 4], [5, 7], [1, 1]]")  # fmt: skip
    assert res.code == 2
    assert "TensorFlow raises NotImplementedError" in res.stderr


def test_an_output_indexes_and_unpacks():
    res = invoke("eval", "-e", "sum(svd(x, compute_uv=true))", "--at", "x=[[1, 2], [3, 4]]")
    assert res.code == 2 and "gives 3 tensors" in res.stderr
    from gradcli.api import problem_from_expression
    from gradcli.core.printing import expression

    p = problem_from_expression("sum(svd(x, compute_uv=true)[2]) + sum(svd(x))",
                                {"x": np.eye(2)}, wrt=["x"])  # fmt: skip
    assert expression(p.graph, p.outputs[0]) == "sum(svd(x)[2]) + sum(svd(x))"


def test_the_reader_returns_tensorflows_tuple(tmp_path):
    code = tmp_path / "model.py"
    code.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable([[1.0, 2.0], [3.0, -4.0], [0.5, 1.5]], dtype=tf.float64)\n"
        "with tf.GradientTape(persistent=True) as t:\n"
        "    s, u, v = tf.linalg.svd(x)\n"
        "    f = tf.reduce_sum(u ** 2 * [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
        "    g = tf.reduce_sum(tf.linalg.svd(x, compute_uv=False))\n"
        "a = t.gradient(f, x)\n"
        "b = t.gradient(g, x)\n"
    )
    doc = run_json("eval", str(code), "--check", "off")
    ga, gb = (num(c["gradients"][0]["value"]).reshape(3, 2) for c in doc["calls"])
    _, u, v = _outputs(np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 1.5]]))
    np.testing.assert_allclose(gb, u @ v.T, atol=1e-12)  # d sum(s) = U V^T
    assert np.isfinite(ga).all() and np.abs(ga).max() > 0
