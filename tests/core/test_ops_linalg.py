"""Linear algebra (core/ops/solvers.py, decompositions.py): finite differences of first and
second order, the forwards against numpy, TensorFlow's conventions at singular inputs, ties
and NaN, SymPy and finite-difference checks, explain and NaN/Inf diagnosis, and errors.

Values and gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_linalg.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import (
    TEST_DATA,
    central_difference,
    eval_grad,
    forward,
    invoke,
    num,
    run_json,
    value_grad_hvp,
)

from gradcli.api import grad, problem_from_expression
from gradcli.core.ops import linalg_kernels as kernels
from gradcli.runtime.errors import GradcliError

RNG = np.random.default_rng(20261203)
DATA = json.loads((TEST_DATA / "tf_reference.json").read_text())
CASES = {c["id"]: c for c in DATA["cases"]}
EYE3 = "[[3, 0, 0], [0, 3, 0], [0, 0, 3]]"


def spd(x: str, batch: bool = False) -> str:
    """A symmetric positive definite matrix made of x: x x^T + 3 I."""
    t = f"transpose({x}, [0, 2, 1])" if batch else f"transpose({x})"
    return f"(matmul({x}, {t}) + {EYE3})"


def normal(*shape):
    return RNG.normal(size=shape)


def well_conditioned(*shape):
    """Matrices near 2I: every LU pivot and eigenvalue gap well away from 0."""
    n = shape[-1]
    return 2 * np.eye(n) + 0.4 * RNG.normal(size=shape)


def separated(*shape):
    """Symmetric matrices with eigenvalues about 1 apart (ties would break FD)."""
    n = shape[-1]
    base = np.diag(np.arange(1.0, n + 1)) + 0.15 * RNG.normal(size=shape)
    return base + np.swapaxes(base, -1, -2)


# call, {input: value}, the numpy forward of the call (None: no simple numpy equivalent)
CALLS = [
    ("det(x)", {"x": well_conditioned(3, 3)}, lambda v: np.linalg.det(v["x"])),
    ("det(x)", {"x": well_conditioned(2, 4, 4)}, lambda v: np.linalg.det(v["x"])),
    ("det(x)", {"x": normal(1, 1)}, lambda v: np.linalg.det(v["x"])),
    ("slogdet(x)[1]", {"x": normal(3, 3)}, lambda v: np.linalg.slogdet(v["x"])[1]),
    ("slogdet(x)[0] * det(x)", {"x": normal(3, 3)}, None),
    ("inv(x)", {"x": well_conditioned(3, 3)}, lambda v: np.linalg.inv(v["x"])),
    ("inv(x)", {"x": well_conditioned(2, 3, 3)}, lambda v: np.linalg.inv(v["x"])),
    ("inv(x, adjoint=true)", {"x": well_conditioned(3, 3)}, lambda v: np.linalg.inv(v["x"].T)),
    ("solve(x, b)", {"x": well_conditioned(3, 3), "b": normal(3, 2)},
     lambda v: np.linalg.solve(v["x"], v["b"])),
    ("solve(x, b, adjoint=true)", {"x": well_conditioned(2, 3, 3), "b": normal(2, 3, 1)},
     lambda v: np.linalg.solve(np.swapaxes(v["x"], -1, -2), v["b"])),
    ("triangular_solve(x, b)", {"x": well_conditioned(3, 3), "b": normal(3, 2)},
     lambda v: np.linalg.solve(np.tril(v["x"]), v["b"])),
    ("triangular_solve(x, b, lower=false)", {"x": well_conditioned(3, 3), "b": normal(3, 2)},
     lambda v: np.linalg.solve(np.triu(v["x"]), v["b"])),
    ("triangular_solve(x, b, adjoint=true)", {"x": well_conditioned(3, 3), "b": normal(3, 2)},
     lambda v: np.linalg.solve(np.tril(v["x"]).T, v["b"])),
    ("triangular_solve(x, b, lower=false, adjoint=true)",
     {"x": well_conditioned(3, 3), "b": normal(3, 1)},
     lambda v: np.linalg.solve(np.triu(v["x"]).T, v["b"])),
    ("triangular_solve(x, b)", {"x": well_conditioned(2, 3, 3), "b": normal(3, 2)},
     lambda v: np.linalg.solve(np.tril(v["x"]), v["b"])),
    ("triangular_solve(x, b)", {"x": well_conditioned(3, 3), "b": normal(2, 3, 2)},
     lambda v: np.linalg.solve(np.tril(v["x"]), v["b"])),
    (f"cholesky({spd('x')})", {"x": normal(3, 3)},
     lambda v: np.linalg.cholesky(v["x"] @ v["x"].T + 3 * np.eye(3))),
    (f"cholesky({spd('x', batch=True)})", {"x": normal(2, 3, 3)},
     lambda v: np.linalg.cholesky(v["x"] @ np.swapaxes(v["x"], 1, 2) + 3 * np.eye(3))),
    (f"logdet({spd('x')})", {"x": normal(3, 3)},
     lambda v: np.linalg.slogdet(v["x"] @ v["x"].T + 3 * np.eye(3))[1]),
    ("eigvalsh(x)", {"x": separated(3, 3)}, lambda v: np.linalg.eigvalsh(v["x"])),
    ("eigvalsh(x)", {"x": separated(2, 4, 4)}, lambda v: np.linalg.eigvalsh(v["x"])),
    ("eigh(x)[0]", {"x": separated(3, 3)}, lambda v: np.linalg.eigvalsh(v["x"])),
    ("eigh(x)[1] ** 2", {"x": separated(3, 3)}, lambda v: np.linalg.eigh(v["x"])[1] ** 2),
    ("eigh(x)[1] * w", {"x": separated(3, 3), "w": normal(3, 3)}, None),
    ("eigh(x)[1][:, 0] * eigh(x)[1][:, 2]", {"x": separated(4, 4)}, None),
    ("svd(x)", {"x": normal(3, 3)}, lambda v: np.linalg.svd(v["x"], compute_uv=False)),
    ("svd(x)", {"x": normal(4, 2)}, lambda v: np.linalg.svd(v["x"], compute_uv=False)),
    ("svd(x)", {"x": normal(2, 4)}, lambda v: np.linalg.svd(v["x"], compute_uv=False)),
    ("svd(x)", {"x": normal(2, 3, 2)}, lambda v: np.linalg.svd(v["x"], compute_uv=False)),
]  # fmt: skip


def _ids():
    return [f"{c}-{'x'.join(map(str, v['x'].shape))}" for c, v, _ in CALLS]


@pytest.mark.parametrize(("call", "values", "numpy"), CALLS, ids=_ids())
def test_first_and_second_order_against_finite_differences(call, values, numpy):
    if numpy is not None:
        np.testing.assert_allclose(forward(call, values), numpy(values), rtol=1e-10, atol=1e-12)
    shape = np.shape(forward(call, values))
    inputs = {**values, "W": RNG.uniform(0.5, 1.5, size=shape)}
    expr = f"sum(({call}) * W)"
    for name in values:
        if name == "w":
            continue
        x = values[name]

        def f(v, name=name):
            return value_grad_hvp(expr, {**inputs, name: v}, name)[0]

        _, g, _ = value_grad_hvp(expr, inputs, name)
        np.testing.assert_allclose(g, central_difference(f, x), rtol=1e-6, atol=1e-8, err_msg=call)
        v = RNG.uniform(-1, 1, size=x.shape)
        _, _, hv = value_grad_hvp(expr, inputs, name, v)

        def gv(y, name=name, v=v):
            return float(np.sum(value_grad_hvp(expr, {**inputs, name: y}, name)[1] * v))

        numeric = central_difference(gv, x, eps=1e-5)
        np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-6, err_msg=call)


# --- TensorFlow's kernels: the stored numbers ------------------------------------------------
def stored(enc) -> np.ndarray:
    flat = [float(v) if isinstance(v, str) else v for v in np.ravel(np.array(enc["value"], object))]
    return np.array(flat, dtype=enc["dtype"]).reshape(enc["shape"])


def at(case_id: str) -> dict:
    return {k: np.array(v, dtype=np.float64) for k, v in CASES[case_id]["at"].items()}


def test_det_is_sign_times_exp_of_log_abs_det_as_tensorflow():
    # TensorFlow's DeterminantOp: sign * exp(sum log|u_ii|), not the product of the pivots
    assert kernels.det(np.array([[3.0]])) == 3.0000000000000004
    assert stored(CASES["det_1x1"]["outputs"]["f"]) == 3.0000000000000004


def test_singular_determinants_keep_the_sign_of_the_pivots():
    spec_values = [
        [[1.0, 2.0], [2.0, 4.0]],  # a row swap, then a zero pivot: -0.0
        [[2.0, 4.0], [1.0, 2.0]],  # no swap: +0.0
        [[0.0, 0.0], [0.0, -1.0]],  # sign(0) * -1 = -0.0
        [[-1.0, 1.0], [0.0, 0.0]],
        [[1.0, 0.0], [0.0, -0.0]],  # sign(-0.0) is +0
    ]
    got = kernels.det(np.array(spec_values))
    want = stored(CASES["det_singular_values"]["outputs"]["f"])[: len(spec_values)]
    assert got.tolist() == want.tolist() == [0.0] * 5
    assert np.signbit(got).tolist() == np.signbit(want).tolist() == [True, False, True, True, False]
    sign, logabs = kernels.slogdet(np.array(spec_values))
    assert np.signbit(sign).tolist() == np.signbit(got).tolist()
    assert np.all(logabs == -np.inf)


def test_square_singular_values_are_tensorflows_to_the_bit():
    # Eigen's JacobiSVD, ported: the same rotations in the same order
    for case_id in ("svd_square", "svd_rank_one", "svd_zero_matrix"):
        x = at(case_id)["x"]
        expected = stored(CASES[case_id]["gradients"]["none"]["w"])  # d sum(s * w)/dw = s
        assert kernels.svd(x)[0].tolist() == expected.tolist(), case_id
    # a rank-one 2 x 2 matrix has an exact zero singular value, where LAPACK's is not
    assert kernels.svd(np.array([[1.0, 2.0], [2.0, 4.0]]))[0].tolist() == [5.0, 0.0]


def test_eigenvectors_have_tensorflows_signs():
    # TensorFlow does not normalize eigenvectors: their signs are Eigen's algorithm's
    for case_id in ("eigh_raw_eigenvectors", "eigh_raw_eigenvectors_batch"):
        x = np.array(yaml_input(case_id, "x"))
        want = stored(CASES[case_id]["outputs"]["vecs"])
        got = kernels.eigh(x)[1]
        assert np.array_equal(np.sign(got), np.sign(want)), case_id
        np.testing.assert_allclose(got, want, rtol=0, atol=64 * np.finfo(float).eps)


def yaml_input(case_id: str, name: str):
    import yaml

    return yaml.safe_load(CASES[case_id]["spec"])["inputs"][name]


def test_lapack_takes_over_for_large_matrices():
    # above 64 rows (eigh) and from 16 columns (svd) gradcli uses LAPACK: same values
    a = normal(70, 70)
    a = a + a.T
    np.testing.assert_allclose(kernels.eigh(a)[0], np.linalg.eigvalsh(a), rtol=1e-12, atol=1e-12)
    b = normal(3, 20, 17)
    want = np.linalg.svd(b, compute_uv=False)
    np.testing.assert_allclose(kernels.svd(b)[0], want, rtol=1e-12)
    s, u, v = kernels.svd(b)
    np.testing.assert_allclose(u * s[..., None, :] @ np.swapaxes(v, -1, -2), b, atol=1e-12)


@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (5, 5), (4, 2), (2, 4), (6, 3), (3, 7)])
def test_the_jacobi_svd_decomposes(shape):
    for dtype, tol in ((np.float64, 1e-13), (np.float32, 1e-5)):
        a = normal(*shape).astype(dtype)
        s, u, v = kernels.svd(a)
        assert s.dtype == u.dtype == v.dtype == dtype
        np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=tol, atol=tol)
        np.testing.assert_allclose((u * s) @ v.T, a, atol=tol * 10)
        p = min(shape)
        np.testing.assert_allclose(u.T @ u, np.eye(p), atol=tol * 10)
        np.testing.assert_allclose(v.T @ v, np.eye(p), atol=tol * 10)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12])
def test_the_eigensolver_decomposes(n):
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-4)):
        a = separated(n, n).astype(dtype)
        e, v = kernels.eigh(a)
        assert e.dtype == v.dtype == dtype
        np.testing.assert_allclose(e, np.linalg.eigvalsh(a), rtol=tol, atol=tol)
        np.testing.assert_allclose((v * e) @ v.T, a, atol=tol * 10)


# --- TensorFlow's conventions at singular and non-finite inputs -------------------------------
ERRORS = [
    ("inv(x)", {"x": [[1.0, 2.0], [2.0, 4.0]]}, r"1:1: cannot evaluate inv: the matrix is not "
     r"invertible \(TensorFlow: 'Input is not invertible.'\)"),
    ("inv(x)", {"x": [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]]},
     r"not invertible .*\(matrix \[1\] of the batch\)"),
    ("inv(x)", {"x": [[np.nan, 1.0], [2.0, 1.0]]}, "not invertible"),  # a leading NaN pivot
    ("inv(x)", {"x": [[1.0, 0.0], [0.0, -0.0]]}, "not invertible"),
    ("solve(x, [[1], [2]])", {"x": [[0.0, 0.0], [1.0, 1.0]]},
     r"cannot evaluate solve: .*'Input matrix is not invertible.'"),
    ("det(x)", {"x": [[1.0, 2.0], [2.0, 4.0]]},
     r"1:1: cannot evaluate inv in the gradient of det: the matrix is not invertible"),
    ("slogdet(x)[1]", {"x": [[0.0, 0.0], [0.0, 1.0]]},
     "cannot evaluate inv in the gradient of log_abs_det"),
    ("slogdet(x)[0]", {"x": [[0.0, 0.0], [0.0, 1.0]]},
     "cannot evaluate inv in the gradient of slogdet_sign"),
    ("sum(eigvalsh(x))", {"x": [[np.nan, 0.0], [0.0, 1.0]]},
     "Self-adjoint eigen decomposition was not successful"),
    ("sum(eigh(x)[1])", {"x": [[1.0, 0.0, 0.0], [0.0, np.inf, 0.0], [0.0, 0.0, 2.0]]},
     "holds NaN or Inf"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "values", "message"), ERRORS)
def test_where_tensorflow_raises_the_evaluation_stops_at_the_op(expr, values, message):
    with pytest.raises(GradcliError, match=message):
        grad(expr, {k: np.array(v) for k, v in values.items()})


def test_a_singular_matrix_has_a_determinant_but_no_gradient():
    # the value alone needs no inverse: -0.0 (TensorFlow's value), gradient held off
    x = np.array([[1.0, 2.0], [2.0, 4.0]])
    ev = grad("det(x)", {"x": x}, wrt=[])
    assert ev.outputs["f"] == 0.0 and np.signbit(ev.outputs["f"])
    assert np.isneginf(grad("slogdet(x)[1]", {"x": x}, wrt=[]).outputs["f"])


def test_non_finite_inputs_follow_tensorflow():
    nan, inf = np.nan, np.inf
    # a NaN pivot after a finite one is no error in TensorFlow's inverse: all nan
    assert np.isnan(kernels.inverse(np.array([[1.0, 0.0], [0.0, nan]]))).all()
    # NaN <= 0 is false: the LLT goes on, NaN spreads; a negative pivot fills NaN
    chol = kernels.cholesky(np.array([[nan, 0.0], [0.0, 1.0]]))
    assert np.isnan(chol[[0, 1, 1], [0, 0, 1]]).all() and chol[0, 1] == 0
    chol = kernels.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert np.isnan(np.tril(chol)).sum() == 3 and chol[0, 1] == 0
    # Eigen's solver converges at once on a 2 x 2 matrix with a zero off-diagonal
    e, v = kernels.eigh(np.array([[1.0, 0.0], [0.0, nan]]))
    assert e[0] == 1 and np.isnan(e[1]) and v.tolist() == [[1, 0], [0, 1]]
    e, v = kernels.eigh(np.array([[inf, 0.0], [0.0, 1.0]]))
    assert np.isnan(e).all() and v.tolist() == [[1, 0], [0, 1]]
    assert np.isnan(kernels.svd(np.array([[inf, 0.0], [0.0, 1.0]]))[0]).all()
    # a zero on a triangle's diagonal: 1/0 = inf, no error
    x = kernels.triangular_solve(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1.0], [2.0]]))
    assert x.ravel().tolist() == [inf, -inf]


def test_empty_matrices():
    empty = {"x": np.zeros(0)}
    assert grad("det(reshape(x, [0, 0]))", empty).outputs["f"] == 1.0
    assert grad("slogdet(reshape(x, [0, 0]))[1]", empty).outputs["f"] == 0.0
    assert grad("logdet(reshape(x, [0, 0]))", empty).outputs["f"] == 0.0
    for call in ("inv", "cholesky", "eigvalsh", "svd"):
        ev = grad(f"sum({call}(reshape(x, [0, 0])))", empty)
        assert ev.outputs["f"] == 0.0 and ev.gradients["x"].shape == (0,), call
    assert forward("svd(reshape(x, [0, 3]))", empty).shape == (0,)
    assert forward("svd(reshape(x, [2, 3, 0]))", empty).shape == (2, 0)


def test_the_sign_of_slogdet_is_a_connected_zero():
    # TensorFlow's rule multiplies log|det|'s gradient (zeros: unused) by inv(x)^T
    x = np.array([[1.0, 2.0], [3.0, -4.0]])
    g = grad("slogdet(x)[0]", {"x": x}).gradients["x"]
    want = stored(CASES["slogdet_sign_only"]["gradients"]["none"]["x"])
    assert g.tolist() == want.tolist() == [[0.0] * 2] * 2
    assert np.signbit(g).tolist() == np.signbit(want).tolist()


def test_cholesky_and_eigh_read_the_lower_triangle():
    lower = np.array([[4.0, 0.0], [2.0, 5.0]])
    upper = lower + np.array([[0.0, 123.0], [0.0, 0.0]])
    for call in ("cholesky(x)", "eigvalsh(x)", "eigh(x)[1]", "logdet(x)"):
        np.testing.assert_array_equal(forward(call, {"x": upper}), forward(call, {"x": lower}))
    # cholesky's gradient is TensorFlow's symmetric one; eigvalsh's is 0 above the diagonal
    w = [[1.0, 2.0], [0.5, -1.0]]
    g = grad("sum(cholesky(x) * w)", {"x": upper, "w": np.array(w)}).gradients["x"]
    np.testing.assert_allclose(g, g.T)
    want = stored(CASES["cholesky_reads_the_lower_triangle"]["gradients"]["none"]["x"])
    np.testing.assert_allclose(g, want, rtol=1e-15)
    g = grad("sum(eigvalsh(x) * [1, 3])", {"x": upper}).gradients["x"]
    assert g[0, 1] == 0.0


def test_tied_eigenvalues_give_a_finite_eigenvector_gradient():
    # _SafeReciprocal(0) = 0: the tied pair contributes nothing (not inf, not nan)
    x = np.diag([2.0, 2.0, 5.0])
    g = grad("sum(eigh(x)[1] * w)", {"x": x, "w": normal(3, 3)}).gradients["x"]
    assert np.isfinite(g).all()
    assert not np.any(g[:2, :2])


def test_batches_broadcast_in_triangular_solve_only():
    values = {"a": well_conditioned(2, 1, 3, 3), "b": normal(4, 3, 2)}
    assert forward("triangular_solve(a, b)", values).shape == (2, 4, 3, 2)
    ev = grad("sum(triangular_solve(a, b))", values)
    assert ev.gradients["a"].shape == (2, 1, 3, 3) and ev.gradients["b"].shape == (4, 3, 2)
    with pytest.raises(GradcliError, match="same batch dimensions"):
        problem_from_expression("solve(a, b)", values, wrt=[])


SHAPE_ERRORS = [
    ("det(x)", (3,), r"det needs a matrix or a batch of matrices \(rank 2 or more\), got "
     r"shape \(3,\)"),
    ("inv(x)", (2, 3), r"inv needs square matrices, got shape \(2, 3\)"),
    ("cholesky(x)", (2, 3, 4), "cholesky needs square matrices"),
    ("slogdet(x)", (2, 3), "slogdet needs square matrices"),
    ("eigh(x)", (3, 2), "eigh needs square matrices"),
    ("svd(x)", (4,), "svd needs a matrix"),
    ("solve(x, x)", (2, 3), "solve needs square matrices"),
    ("triangular_solve(x, [1, 2])", (2, 2), "triangular_solve needs a matrix"),
    ("triangular_solve(x, [[1], [2], [3]])", (2, 2),
     r"matrix \(2, 2\) and rhs \(3, 1\) do not match"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "shape", "message"), SHAPE_ERRORS)
def test_shape_errors(call, shape, message):
    with pytest.raises(GradcliError, match=message):
        problem_from_expression(call, {"x": np.ones(shape)}, wrt=[])


def test_float32_stays_float32():
    spec = """inputs:
  x: {value: [[4, 1], [1, 3]], dtype: float32}
graph:
  v, q: eigh(x)
  f: sum(inv(x)) + det(x) + logdet(x) + sum(svd(x)) + sum(v) + sum(q * q)
"""
    ev = grad(spec, {}, spec=True)
    assert ev.outputs["f"].dtype == np.float32 and ev.gradients["x"].dtype == np.float32


# --- check: SymPy where it has closed forms, finite differences elsewhere ---------------------
CHECKS = [
    ("det(x) * x[0, 1]", "x=[[2, 1, 0], [0.5, 3, 1], [1, 0, 4]]", "sympy"),
    ("slogdet(x)[1] + slogdet(x)[0] * det(x)", "x=[[2, 1], [3, -4]]", "sympy"),
    ("sum(inv(x) * [[1, 2], [3, 4]]) + sum(inv(x, adjoint=true))", "x=[[4, 1.5], [0.5, 3]]",
     "sympy"),
    ("sum(solve(x, [[1, 2], [3, 4]], adjoint=true) ** 2)", "x=[[4, 1.5], [0.5, 3]]", "sympy"),
    ("sum(triangular_solve(x, [[1], [2], [3]], lower=false) ** 2)",
     "x=[[4, 1, 2], [9, 3, 1], [9, 9, 2]]", "sympy"),
    ("sum(cholesky(x) * [[1, 2], [3, 4]])", "x=[[4, 1.5], [0.5, 3]]", "sympy"),
    ("sum(cholesky(x) * [[1, 2], [3, 4]])", "x=[[4, 1.5], [0.5, 3]]", "fd"),
    ("logdet(x) ** 2", "x=[[4, 1.5, 0], [1.5, 3, 1], [0, 1, 2]]", "sympy"),
    ("logdet(x) ** 2", "x=[[4, 1.5, 0], [1.5, 3, 1], [0, 1, 2]]", "fd"),
    ("sum(eigvalsh(x) * [1, 3])", "x=[[4, 1.5], [0.5, 3]]", "fd"),
    ("sum(eigh(x)[1] * [[1, 2], [3, 4]])", "x=[[4, 1.5], [0.5, 3]]", "fd"),
    ("sum(svd(x) * [1, 3])", "x=[[4, 1.5, 1], [0.5, 3, -1]]", "fd"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "value", "method"), CHECKS)
def test_check_agrees(expr, value, method):
    doc = run_json("check", "-e", expr, "--at", value, "--method", method)
    assert doc["ok"] and doc["method"] == method and not doc["fallback"], doc


def test_check_does_not_wait_for_sympy_on_big_closed_forms():
    # a symbolic 4 x 4 inverse takes SymPy seconds: finite differences at once, saying why
    x = (3 * np.eye(4) + 0.1 * np.arange(16).reshape(4, 4) % 0.5).tolist()
    doc = run_json("check", "-e", "sum(inv(x))", "--at", f"x={x}")
    assert doc["ok"] and doc["fallback"] and "inv of a 4 x 4 matrix" in doc["reason"]


def test_check_explains_why_eigenvalues_fall_back():
    doc = run_json("check", "-e", "sum(eigvalsh(x))", "--at", "x=[[2, 1], [1, 3]]")
    assert doc["ok"] and doc["fallback"] and "eigvalsh" in doc["reason"]


# --- explain and NaN/Inf diagnosis -----------------------------------------------------------
def pair(doc, name="x"):
    return {p["input"]: p for p in doc["pairs"]}[name]


def test_explain_counts_the_triangle_a_solve_never_reads():
    doc = run_json(
        "explain", "-e", "sum(triangular_solve(a, b))",
        "--at", "a=[[2, 1, 7], [1, 3, 8], [4, 5, 6]]", "--at", "b=[[1], [2], [3]]", code=1,
    )  # fmt: skip
    a = pair(doc, "a")
    assert a["status"] == "partially_zero" and a["zero_elements"] == 3
    assert [c["kind"] for c in a["causes"]] == ["zero_derivative"]
    assert "triangular_solve(a, b) with respect to a is zero at 3 of 9" in a["causes"][0]["detail"]


def test_explain_names_the_unused_outputs_zero_derivative():
    doc = run_json("explain", "-e", "slogdet(x)[0]", "--at", "x=[[2, 1], [0, -2]]", code=1)
    (cause,) = pair(doc)["causes"]
    assert cause["kind"] == "zero_derivative" and "slogdet(x)[0]" in cause["detail"]


def test_nan_of_a_failed_cholesky_is_a_forward_origin():
    doc = run_json("explain", "-e", "sum(cholesky(x))", "--at", "x=[[1, 2], [2, 1]]", code=1)
    kinds = [c["origin"] for c in pair(doc)["causes"]]
    assert kinds[0] == "forward" and "cholesky(x) gives nan" in pair(doc)["causes"][0]["detail"]


def test_log_of_an_underflowing_determinant_is_a_singular_derivative():
    # det(diag(1e-200, 1e-200)) = exp(-921) = 0 without a zero pivot: log(0) = -inf, and
    # log's derivative 1/0 = inf is the origin of the gradient's nan
    doc = run_json("explain", "-e", "log(det(x))", "--at", "x=[[1e-200, 0], [0, 1e-200]]", code=1)
    origins = {c["origin"]: c["detail"] for c in pair(doc)["causes"]}
    assert "singular_derivative" in origins
    assert "the derivative of log(det(x)) is inf" in origins["singular_derivative"]


def test_a_zero_on_the_diagonal_of_a_triangle_is_a_singular_derivative():
    doc = run_json(
        "explain", "-e", "sum(triangular_solve(a, b))", "--at", "a=[[0, 0], [1, 1]]",
        "--at", "b=[[1], [2]]", code=1,
    )  # fmt: skip
    origins = {c["origin"] for c in pair(doc, "b")["causes"]}
    assert origins >= {"forward", "singular_derivative"}


def test_explain_reports_where_tensorflow_raises():
    res = invoke("explain", "-e", "log(det(x))", "--at", "x=[[1, 2], [2, 4]]")
    assert res.code == 2 and "cannot evaluate inv in the gradient of det" in res.stderr


# --- the TensorFlow reader --------------------------------------------------------------------
def test_the_reader_reads_tf_linalg(tmp_path):
    code = tmp_path / "model.py"
    code.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable([[4.0, 1.0], [1.0, 3.0]], dtype=tf.float64)\n"
        "b = tf.constant([[1.0], [2.0]], dtype=tf.float64)\n"
        "with tf.GradientTape() as tape:\n"
        "    l = tf.linalg.cholesky(x)\n"
        "    y = tf.reduce_sum(tf.linalg.triangular_solve(l, b, lower=True, adjoint=True))\n"
        "    y += tf.linalg.det(x) + tf.linalg.logdet(x) + tf.reduce_sum(tf.linalg.inv(x))\n"
        "    y += tf.reduce_sum(tf.linalg.solve(x, b, adjoint=True))\n"
        "    y += tf.reduce_sum(tf.linalg.eigvalsh(x))\n"
        "g = tape.gradient(y, x)\n"
    )
    doc = run_json("eval", str(code))
    expr = (
        "sum(triangular_solve(cholesky(x), [[1], [2]], adjoint=true)) + det(x) + logdet(x)"
        " + sum(inv(x)) + sum(solve(x, [[1], [2]], adjoint=true)) + sum(eigvalsh(x))"
    )
    _, grads = eval_grad(expr, x=[[4.0, 1.0], [1.0, 3.0]])
    ((g,),) = [call["gradients"] for call in doc["calls"]]
    np.testing.assert_allclose(num(g["value"]), num(grads["x"]), rtol=1e-14)


def test_the_reader_unpacks_eigh_and_slogdet_as_tensorflow(tmp_path):
    code = tmp_path / "model.py"
    code.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable([[4.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 2.0]], dtype=tf.float64)\n"
        "with tf.GradientTape() as tape:\n"
        "    e, v = tf.linalg.eigh(x)\n"
        "    sl = tf.linalg.slogdet(x)\n"
        "    y = tf.reduce_sum(e * [1.0, 2.0, 3.0]) + tf.reduce_sum(v[:, 0] * [1.0, -1.0, 0.5])\n"
        "    y += sl.log_abs_determinant * sl.sign + sl[1]\n"
        "g = tape.gradient(y, x)\n"
    )
    doc = run_json("eval", str(code))
    ((g,),) = [call["gradients"] for call in doc["calls"]]
    # TensorFlow 2.21 on this program (v[:, 0] depends on the eigenvector's sign)
    tensorflow = [
        [3.3206444328854836, -0.3076923076923077, -0.3076923076923077],
        [0.6652316236768859, 3.1307632241928554, 0.5538461538461539],
        [-0.03063193876667314, -0.31061770681822287, 2.471669265998587],
    ]
    np.testing.assert_allclose(num(g["value"]).reshape(3, 3), tensorflow, rtol=0, atol=4e-15)
