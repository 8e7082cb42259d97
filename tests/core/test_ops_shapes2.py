"""tensordot, tile, repeat, pad, roll and the matrix ops (diag, diag_part, trace, band_part,
tril, triu, eye): finite differences (first and second order), the forward against numpy,
check against SymPy, explain's `unselected` and cancellation counts, and positioned errors.

Expected values come from numpy, finite differences, SymPy or counting; the values and
gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_shapes2.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    assert_first_and_second_order,
    assert_sympy_check,
    eval_grad,
    forward,
    invoke,
    num,
    run_json,
    value_grad_hvp,
)

from gradcli.api import problem_from_expression
from gradcli.core.autodiff import gradients
from gradcli.core.executor import run

RNG = np.random.default_rng(20261130)


def band(x, lower, upper):
    """tf.linalg.band_part written with index comparisons."""
    i, j = np.indices(x.shape[-2:])
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, 0.0)


def diag_of(v, rows=None, cols=None):
    n = v.shape[-1]
    out = np.zeros((*v.shape[:-1], rows or n, cols or n))
    for k in range(n):
        out[..., k, k] = v[..., k]
    return out


# call over x, x's shape, numpy's forward
CASES = [
    ("tile(x, [2, 3])", (2, 3), lambda x: np.tile(x, (2, 3))),
    ("tile(x, [1, 2, 1])", (2, 1, 3), lambda x: np.tile(x, (1, 2, 1))),
    ("tile(x, [0, 2])", (2, 3), lambda x: np.tile(x, (0, 2))),
    ("repeat(x, 2)", (2, 3), lambda x: np.repeat(x, 2)),
    ("repeat(x, [1, 0, 2], axis=1)", (2, 3), lambda x: np.repeat(x, [1, 0, 2], axis=1)),
    ("repeat(x, 3, axis=-2)", (2, 3), lambda x: np.repeat(x, 3, axis=0)),
    ("repeat(x, [2, 1, 0, 1, 3, 1])", (2, 3), lambda x: np.repeat(x, [2, 1, 0, 1, 3, 1])),
    ("pad(x, [[1, 2], [0, 1]])", (2, 3), lambda x: np.pad(x, [(1, 2), (0, 1)])),
    ("pad(x, [[1, 0], [2, 1]], constant_values=-1.5)", (2, 3),
     lambda x: np.pad(x, [(1, 0), (2, 1)], constant_values=-1.5)),
    ("pad(x, [[1, 1], [2, 2]], 'REFLECT')", (2, 3),
     lambda x: np.pad(x, [(1, 1), (2, 2)], mode="reflect")),
    ("pad(x, [[2, 2], [0, 3]], mode='symmetric')", (2, 3),
     lambda x: np.pad(x, [(2, 2), (0, 3)], mode="symmetric")),
    ("pad(x, [[3, 2]], mode='Reflect')", (4,), lambda x: np.pad(x, (3, 2), mode="reflect")),
    ("roll(x, 1, 1)", (2, 3), lambda x: np.roll(x, 1, 1)),
    ("roll(x, shift=-7, axis=-1)", (2, 3), lambda x: np.roll(x, -7, 1)),
    ("roll(x, [1, 1, 2], [0, 1, 1])", (2, 3), lambda x: np.roll(np.roll(x, 1, 0), 3, 1)),
    ("diag(x)", (2, 3), diag_of),
    ("diag(x, num_rows=4)", (3,), lambda x: diag_of(x, 4, 3)),
    ("diag(x, num_cols=5, padding_value=2)", (2, 3),
     lambda x: diag_of(x, 3, 5) + 2.0 * (diag_of(np.ones_like(x), 3, 5) == 0)),
    ("diag(x, k=1)", (2, 3), lambda x: np.stack([np.diag(r, 1) for r in x])),
    ("diag(x, k=-2, num_cols=4)", (3,), lambda x: np.diag(x, -2)[:, :4]),
    ("diag(x, k=2, num_rows=4, padding_value=-1)", (2,),
     lambda x: np.where(np.diag(np.ones(2), 2)[:4] == 1, np.diag(x, 2)[:4], -1.0)),
    ("diag_part(x, k=1)", (3, 4), lambda x: np.diagonal(x, 1, -2, -1)),
    ("diag_part(x, k=-2)", (2, 4, 3), lambda x: np.diagonal(x, -2, -2, -1)),
    ("diag_part(x, k=3)", (3, 4), lambda x: np.diagonal(x, 3, -2, -1)),
    ("diag_part(x)", (2, 3), lambda x: np.diagonal(x, 0, -2, -1)),
    ("diag_part(x)", (2, 4, 3), lambda x: np.diagonal(x, 0, -2, -1)),
    ("trace(x)", (3, 3), np.trace),
    ("trace(x)", (2, 3, 2), lambda x: np.trace(x, 0, -2, -1)),
    ("band_part(x, 1, 0)", (3, 4), lambda x: band(x, 1, 0)),
    ("band_part(x, -1, 1)", (2, 3, 3), lambda x: band(x, -1, 1)),
    ("tril(x)", (3, 4), np.tril),
    ("tril(x, k=-1)", (2, 3, 3), lambda x: np.tril(x, -1)),
    ("triu(x, 1)", (3, 4), lambda x: np.triu(x, 1)),
    ("triu(x, k=-1)", (2, 3, 3), lambda x: np.triu(x, -1)),
]  # fmt: skip


@pytest.mark.parametrize(("call", "shape", "numpy"), CASES)
def test_first_and_second_order_against_finite_differences(call, shape, numpy):
    x = RNG.uniform(-1, 1, size=shape)
    np.testing.assert_array_equal(forward(call, {"x": x}), numpy(x))
    w = RNG.uniform(0.5, 1.5, size=np.shape(numpy(x)))
    inputs = {"x": x, "w": w}
    expr = f"sum({call} ** 3 * w)"
    value, _, _ = value_grad_hvp(expr, inputs, "x")
    assert value == pytest.approx(float(np.sum(numpy(x) ** 3 * w)), rel=1e-12, abs=1e-300)
    assert_first_and_second_order(expr, inputs, "x", RNG)


TENSORDOT = [
    (1, (2, 3, 4), (4, 3)),
    (0, (3,), (2, 2)),
    (2, (2, 3), (2, 3)),
    ([[1, 2], [1, 0]], (2, 3, 4), (4, 3)),
    ([2, 0], (2, 3, 4), (4, 3)),
    ([[-1, 0], [1, 2]], (4, 3), (2, 3, 4)),
    ([[0], [0]], (3, 2), (3, 2)),
]


@pytest.mark.parametrize(("axes", "a_shape", "b_shape"), TENSORDOT)
def test_tensordot_against_numpy_and_finite_differences(axes, a_shape, b_shape):
    a, b = RNG.uniform(-1, 1, size=a_shape), RNG.uniform(-1, 1, size=b_shape)
    np_axes = axes if isinstance(axes, int) else tuple(axes)
    call = f"tensordot(a, b, {axes})"
    np.testing.assert_allclose(
        forward(call, {"a": a, "b": b}), np.tensordot(a, b, np_axes), rtol=1e-14, atol=1e-15
    )
    w = RNG.uniform(0.5, 1.5, size=np.tensordot(a, b, np_axes).shape)
    inputs = {"a": a, "b": b, "w": w}
    for name in "ab":
        assert_first_and_second_order(f"sum({call} ** 2 * w)", inputs, name, RNG)


def test_tensordot_of_one_tensor_with_itself():
    # both positions hold x: each position's gradient counted once (x^T x has gradient 2 x w)
    x, w = RNG.uniform(-1, 1, size=(3, 2)), RNG.uniform(-1, 1, size=(2, 2))
    _, g, _ = value_grad_hvp("sum(tensordot(x, x, [[0], [0]]) * w)", {"x": x, "w": w}, "x")
    np.testing.assert_allclose(g, x @ (w + w.T), rtol=1e-14)
    expr = "sum(tensordot(x, x, [[0], [0]]) ** 2 * w)"
    assert_first_and_second_order(expr, {"x": x, "w": w}, "x", RNG)


# --- closed forms: sums of copies, folded mirrors ---------------------------------------------
def test_tile_and_repeat_sum_the_gradients_of_copies():
    _, grads = eval_grad("sum(tile(x, [3]) * [1, 2, 3, 4, 5, 6])", x=[1.0, 2.0])
    np.testing.assert_array_equal(num(grads["x"]), [1 + 3 + 5, 2 + 4 + 6])
    _, grads = eval_grad("sum(repeat(x, [2, 0, 3]) * [1, 2, 3, 4, 5])", x=[1.0, 2.0, 3.0])
    np.testing.assert_array_equal(num(grads["x"]), [1 + 2, 0, 3 + 4 + 5])


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        # [x2 x1 | x0 x1 x2 | x1 x0]: x0 at 3 and 7, x1 at 2, 4, 6, x2 at 1 and 5
        ("REFLECT", [3 + 7, 2 + 4 + 6, 1 + 5]),
        # [x1 x0 | x0 x1 x2 | x2 x1]: x0 at 2 and 3, x1 at 1, 4, 7, x2 at 5 and 6
        ("SYMMETRIC", [2 + 3, 1 + 4 + 7, 5 + 6]),
        ("CONSTANT", [3, 4, 5]),
    ],
)
def test_pad_gradient_folds_the_mirrored_copies(mode, expected):
    _, grads = eval_grad(f"sum(pad(x, [[2, 2]], '{mode}') * [1, 2, 3, 4, 5, 6, 7])", x=[1, 2, 3])
    np.testing.assert_array_equal(num(grads["x"]), expected)


def test_symmetric_pad_of_an_empty_tensor_has_the_empty_gradient():
    # TensorFlow's MirrorPadGrad refuses an empty axis; the gradient of no elements is empty
    problem = problem_from_expression(
        "sum(pad(reshape(x, [0, 3]), [[0, 0], [2, 3]], 'symmetric'))", {"x": np.zeros(0)}, wrt=["x"]
    )
    (g,) = gradients(problem.graph, problem.outputs, problem.wrt).results
    assert np.shape(run(problem.graph, [g])[g]) == (0,)


def test_eye_is_a_float64_constant_unless_dtype_says():
    doc = run_json("eval", "-e", "eye(2, 3, [2]) + 0 * x", "--at", "x=1", "--check", "off")
    value = np.array(doc["outputs"]["f"]["value"])
    np.testing.assert_array_equal(value, np.broadcast_to(np.eye(2, 3), (2, 2, 3)))
    assert doc["outputs"]["f"]["dtype"] == "float64"
    doc = run_json("eval", "-e", "eye(2, dtype='int32')", "--check", "off")
    assert doc["outputs"]["f"] == {
        **doc["outputs"]["f"],
        "dtype": "int32",
        "value": [[1, 0], [0, 1]],
    }


# --- check: SymPy's derivative -----------------------------------------------------------------
CHECKS = [
    ("sin(tile(x, [2, 1])) * repeat(x, [1, 0, 2], axis=1)[0]", "x=[[1, 2, -3], [4, 0.5, 6]]"),
    ("pad(x, [[1, 1], [2, 1]], 'reflect') ** 2", "x=[[1, 2, -3], [4, 0.5, 6]]"),
    ("pad(x, [[1, 0]], constant_values=3) * pad(x, [[0, 1]], mode='symmetric')", "x=[1, 2, -3]"),
    ("roll(x, [1, -2], [0, 1]) * x", "x=[[1, 2, -3], [4, 0.5, 6]]"),
    ("tensordot(x, x, [[0], [0]]) * eye(3) + trace(tensordot(x, x, [[1], [1]]))",
     "x=[[1, 2, -3], [4, 0.5, 6]]"),
    ("diag(x)[1] ** 2 + diag_part(x)[0] * trace(x)", "x=[[1, 2, -3], [4, 0.5, 6]]"),
    ("band_part(x, 0, 1) * tril(x) * triu(x, -1)", "x=[[1, 2, -3], [4, 0.5, 6]]"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_against_sympy(expr, at):
    assert_sympy_check(expr, at)


# --- explain: the elements a band, a diagonal or a repeat never reaches ------------------------
X23 = "x=[[1, 2, 3], [4, 5, 6]]"
EXPLAINED = [
    ("sum(band_part(x, 0, 0))", X23,
     "band_part(x, num_lower=0, num_upper=0) uses 2 of 6 elements of x; the other 4 get no "
     "gradient"),
    ("sum(tril(x, -1))", X23,
     "tril(x, k=-1) uses 1 of 6 elements of x; the other 5 get no gradient"),
    ("sum(triu(x, 1))", X23, "triu(x, k=1) uses 3 of 6 elements of x; the other 3 get no gradient"),
    ("sum(diag_part(x))", X23,
     "diag_part(x) uses 2 of 6 elements of x; the other 4 get no gradient"),
    ("trace(x)", X23, "trace(x) uses 2 of 6 elements of x; the other 4 get no gradient"),
    ("sum(repeat(x, [1, 0, 2], axis=1))", X23,
     "repeat(x, repeats=[1, 0, 2], axis=1) uses 4 of 6 elements of x; the other 2 get no gradient"),
    ("sum(tile(x, [0, 1]))", X23,
     "tile(x, multiples=[0, 1]) uses 0 of 6 elements of x; the other 6 get no gradient"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at", "detail"), EXPLAINED)
def test_explain_counts_the_unselected_elements(expr, at, detail):
    doc = run_json("explain", "-e", expr, "--at", at, "--wrt", "x", code=1)
    (pair,) = doc["pairs"]
    (cause,) = pair["causes"]
    assert cause["kind"] == "unselected"
    assert cause["detail"] == detail


def test_explain_follows_mirrored_copies_and_cancelling_tiles():
    # reflect: rows [x1, x0, x1, x0]; x0's copies meet weights [0, 0, 0] and [0, 1, 0]
    w = "[[1, 1, 1], [0, 0, 0], [0, 0, 0], [0, 1, 0]]"
    doc = run_json("explain", "-e", f"sum(pad(x, [[1, 1], [0, 0]], 'reflect') * {w})",
                   "--at", X23, code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["zero_elements"] == 2
    assert [c["kind"] for c in pair["causes"]] == ["mask"]
    # tile: the two copies of row 0 get weights 1 and -1, which cancel in the sum
    w = "[[1, 1, 1], [1, 2, 1], [-1, -1, -1], [1, 1, 1]]"
    doc = run_json("explain", "-e", f"sum(tile(x, [2, 1]) * {w})", "--at", X23, code=1)
    (pair,) = doc["pairs"]
    assert pair["zero_elements"] == 3
    assert [c["kind"] for c in pair["causes"]] == ["cancellation"]


def test_a_roll_using_every_element_is_connected():
    doc = run_json("explain", "-e", "sum(roll(x, 4, 1) * x)", "--at", X23)
    assert doc["pairs"][0]["status"] == "connected"


# --- errors: positioned, exit status 2 ---------------------------------------------------------
ERRORS = [
    ("pad(x, [[2, 0], [0, 0]], 'REFLECT')",
     r"in REFLECT mode paddings must be less than the dimension size: \[2, 0\] for axis 0 of "
     "size 2"),
    ("pad(x, [[0, 0], [0, 4]], mode='symmetric')",
     r"in SYMMETRIC mode paddings must be no greater than the dimension size: \[0, 4\] for axis 1"),
    ("pad(x, [[1, 1]])", "paddings must be a list of 2 \\[before, after\\] pairs"),
    ("pad(x, [[-1, 0], [0, 0]])", "paddings must be non-negative"),
    ("pad(x, [[1, 0], [0, 0]], mode='wrap')", "mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC'"),
    ("pad(x, [[1, 0], [0, 0]], constant_values=x)", r"constant_values must be a number \(inf and"),
    ("tile(x, [2])", "tile: multiples must have one entry per axis of x"),
    ("tile(x, [-1, 1])", r"tile: multiples\[0\] must be >= 0, got -1"),
    ("repeat(x, [1, 2], axis=1)", "repeat: repeats has 2 entries, but axis 1 of x has size 3"),
    ("repeat(x, -1)", "repeat: repeats must be >= 0"),
    ("repeat(x, 2, axis=2)", "repeat: axis 2 is out of range"),
    ("roll(x, [1, 2], 0)", "roll: shift and axis must have the same size, got 2 and 1"),
    ("roll(x, 1, 2)", "roll: axis 2 is out of range"),
    ("roll(x[0, 0], 1, 0)", "roll: input must be 1-D or higher"),
    ("tensordot(x, x, 3)", "tensordot: axes=3 is more than the rank of a"),
    ("tensordot(x, x, [[0], [1]])", "axis 0 of a \\(size 2\\) and axis 1 of b \\(size 3\\) differ"),
    ("tensordot(x, x, [[0, 0], [1, 1]])", "axis 0 of a is contracted twice"),
    ("tensordot(x, x, [[0], [0, 1]])", "different numbers of contraction axes"),
    ("tensordot(x, x, [1, 2, 3])", "axes must be an integer or a pair"),
    ("tensordot(x, x, -1)", "axes must be at least 0"),
    ("diag(x, k=[0, 1])", r"diag: k must be one integer"),
    ("diag(x, num_rows=1)", "the number of rows is too small"),
    ("diag(x, num_rows=4, num_cols=4)", "do not fit diagonal k=0 of 3 elements"),
    ("diag(x[0, 0])", "diagonal must be at least 1-dim"),
    ("diag_part(x[0])", "diag_part: input must be at least 2-dim"),
    ("trace(x[0])", "trace: input must be at least 2-dim"),
    ("band_part(x, 3, 0)", "num_lower must be negative or at most the number of rows \\(2\\)"),
    ("band_part(x, 0, 4)", "num_upper must be negative or at most the number of columns"),
    ("tril(x[0])", "tril: input must be at least 2-dim"),
    ("eye(-1) + x", "eye: num_rows must be >= 0, got -1"),
    ("eye(2, 3, [2, -1]) + x", "eye: batch_shape must be >= 0"),
    ("eye(2, dtype='float16') + x", "eye: unknown dtype 'float16'"),
    ("eye(x)", "eye: num_rows must be one integer"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "message"), ERRORS)
def test_errors_are_positioned(expr, message):
    import re

    res = invoke("eval", "-e", expr, "--at", "x=[[1, 2, 3], [4, 5, 6]]", "--check", "off")
    assert res.code == 2, res.stderr
    assert res.stderr.startswith("gradcli: error: <expr>:1:"), res.stderr
    assert re.search(message, res.stderr), res.stderr


# --- indexing with None (a new axis) and ... (the axes not indexed), as NumPy and TensorFlow -----
NEWAXIS = [
    ("x[None, :] * x[:, None]", (3,), lambda x: x[None, :] * x[:, None]),
    ("x[..., 0]", (2, 3, 2), lambda x: x[..., 0]),
    ("x[None, ..., 1:, None] * x[0, ...]", (2, 3), lambda x: x[None, ..., 1:, None] * x[0, ...]),
    ("x[..., None, -1] ** 3", (2, 2, 3), lambda x: x[..., None, -1] ** 3),
    ("x[...]", (2, 3), lambda x: x[...]),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "shape", "numpy"), NEWAXIS)
def test_new_axes_and_ellipsis_index_as_numpy(expr, shape, numpy):
    x = RNG.uniform(-2, 2, size=shape)
    np.testing.assert_array_equal(forward(expr, {"x": x}), numpy(x))
    assert_first_and_second_order(f"sum(sin({expr}) * {expr})", {"x": x}, "x", RNG)


def test_new_axes_and_ellipsis_check_against_sympy_and_explain():
    res = invoke("check", "-e", "sum(sin(x[None, ..., 0]) * x[..., None, 1])", "--at",
                 "x=[[1, 2], [3, 4]]", "--method", "sympy")  # fmt: skip
    assert res.code == 0, res.stderr
    doc = run_json("explain", "-e", "sum(x[..., 0, None])", "--at", "x=[[1, 2], [3, 4]]", code=1)
    (pair,) = doc["pairs"]
    assert pair["causes"][0]["kind"] == "unselected"
    assert pair["causes"][0]["detail"].startswith("x[..., 0, None] uses 2 of 4 elements of x")


@pytest.mark.parametrize(("expr", "message"), [
    ("x[..., ...]", "an index can only have a single ellipsis ('...')"),
    ("x[None + 1]", "None stands alone in an index"),
    ("x[..., 0, 0, 0]", "too many indices (3) for a tensor of shape (2, 2)"),
])  # fmt: skip
def test_bad_new_axes_and_ellipses_are_one_line_errors(expr, message):
    res = invoke("eval", "-e", f"sum({expr})", "--at", "x=[[1, 2], [3, 4]]")
    assert res.code == 2 and message in res.stderr and res.stderr.count("\n") == 1


def test_pad_takes_infinite_constant_values():
    # tf.pad(x, paddings, constant_values=-np.inf): a max-pool's own padding
    x = np.array([0.5, -1.5])
    got = forward("pad(x, [[1, 2]], constant_values=-inf)", {"x": x})
    np.testing.assert_array_equal(got, [-np.inf, 0.5, -1.5, -np.inf, -np.inf])
    got = forward("pad(x, [[0, 1]], constant_values=inf)", {"x": x})
    np.testing.assert_array_equal(got, [0.5, -1.5, np.inf])
    assert np.isnan(forward("pad(x, [[1, 0]], constant_values=nan)", {"x": x})[0])
    doc = run_json("eval", "-e", "sum(max_pool1d(pad(x, [[0, 0], [1, 1], [0, 0]], "
                   "constant_values=-inf), 2, 1, 'VALID'))", "--at", "x=[[[-1], [-3], [-2]]]",
                   "--check", "off")  # fmt: skip
    assert doc["outputs"]["f"]["value"] == -1 - 1 - 2 - 2
    assert doc["gradients"]["x"]["value"] == [[[2], [0], [2]]]


def test_an_infinite_pad_of_an_integer_tensor_is_refused():
    res = invoke("eval", "-e", "pad(cast(x, 'int32'), [[1, 0]], constant_values=-inf)",
                 "--at", "x=[1, 2]", "--check", "off")  # fmt: skip
    assert res.code == 2 and "constant_values -inf is not a whole number" in res.stderr


DIAG_ERRORS = [
    ("diag(v, k=1, num_rows=1)", "diag: the number of rows is too small for diagonal k=1"),
    ("diag(v, k=-1, num_cols=1)", "diag: the number of columns is too small for diagonal k=-1"),
    ("diag(v, k=1, num_rows=3, num_cols=4)", "num_rows=3 and num_cols=4 do not fit diagonal k=1"),
    ("diag_part(m, k=4)", "diag_part: k=4 is out of bounds for 3x4 matrices"),
    ("diag_part(m, k=-3)", "diag_part: k=-3 is out of bounds for 3x4 matrices"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "message"), DIAG_ERRORS)
def test_diagonals_out_of_bounds_are_refused_as_tensorflow(call, message):
    at = "v=[1, 2]" if call.startswith("diag(") else f"m={np.zeros((3, 4)).tolist()}"
    res = invoke("eval", "-e", call, "--at", at, "--check", "off")
    assert res.code == 2 and message in res.stderr, res.stderr
