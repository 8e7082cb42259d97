"""The kind of zeros born at a TensorFlow op, read from arrays (no TensorFlow needed):
each expectation is worked out by hand from the op's derivative."""

from types import SimpleNamespace

import numpy as np

from gradcli.capture.program import GradNode
from gradcli.capture.tf_zero_kinds import kind_at, table_kind
from gradcli.capture.zero_walk import read_births


def _op(op_type, inputs=(0, 1), **attrs):
    return SimpleNamespace(extra={"type": op_type, "attrs": attrs}, inputs=inputs)


def test_relu_zeroes_its_inactive_units():
    # d relu(x) = 1 where x > 0: the gradient at x = -1 is zero where the received one is 1
    gy = np.array([1.0, 1.0, 0.0])
    gx = np.array([0.0, 1.0, 0.0])  # the third zero was received, not made
    x = np.array([-1.0, 2.0, 3.0])
    assert kind_at(_op("Relu", (0,)), 0, gy, gx, [x], True) == ("inactive", 1)


def test_a_product_with_a_zero_factor_is_a_mask_and_x_times_x_a_zero_derivative():
    gy = np.ones(2)
    other = np.array([0.0, 3.0])
    gx = gy * other
    assert kind_at(_op("Mul"), 0, gy, gx, [np.array([5.0, 1.0]), other], True) == ("mask", 1)
    x = np.array([0.0, 2.0])
    got = kind_at(_op("Mul", (0, 0)), 0, gy, 2 * x, [x, x], False, same=True)
    assert got == ("zero_derivative", 1)


def test_a_broadcast_bias_whose_terms_sum_to_zero_cancels():
    # y = x + b, b broadcast over rows: db = column sums of gy, [1 - 1, 2 + 0] = [0, 2]
    gy = np.array([[1.0, 2.0], [-1.0, 0.0]])
    gb = gy.sum(axis=0)
    got = kind_at(_op("AddV2"), 1, gy, gb, [np.zeros((2, 2)), np.zeros(2)], True)
    assert got == ("cancellation", 1)


def test_matmul_tells_a_masked_row_from_cancelled_products():
    # dB = A^T G: an element is masked when A's column behind it is zero, cancelled when
    # its products are nonzero but sum to zero
    b = np.ones((2, 1))
    g = np.array([[1.0], [-1.0]])
    only_masked = np.array([[1.0, 0.0], [2.0, 0.0]])
    db = only_masked.T @ np.ones((2, 1))  # [[3], [0]]: row 1 masked
    assert kind_at(_op("MatMul"), 1, np.ones((2, 1)), db, [only_masked, b], True) == ("mask", 1)
    cancelled = np.array([[1.0, 2.0], [1.0, 2.0]])
    db = cancelled.T @ g  # 1 - 1 = 0 and 2 - 2 = 0: the products cancel
    assert kind_at(_op("MatMul"), 1, g, db, [cancelled, b], True) == ("cancellation", 2)
    # transpose_b: y = A @ B^T, so dB = G^T A; B is (1, 2) and its zeros are those of dB^T
    dbt = (cancelled.T @ g).T
    got = kind_at(_op("MatMul", transpose_b=True), 1, g, dbt, [cancelled, b.T], True)
    assert got == ("cancellation", 2)


def test_an_op_it_cannot_read_is_left_to_the_role_table():
    gy = np.ones((2, 2))
    gx = np.zeros((3, 3))
    assert kind_at(_op("Conv2D"), 0, gy, gx, [None, None], True) is None
    assert kind_at(_op("Relu", (0,)), 0, np.ones(2), np.ones(2), [None], True) == (None, 0)


def test_the_walk_names_only_the_op_whose_zeros_reach_the_source():
    # x -> add (node 1, cancels x's one element) -> abs (node 0, zeroes one of three): x's
    # zero is the add's cancellation; abs's zero is summed away with nonzero terms
    nodes = [
        GradNode(10, (1,), out=(3, 0, 0), slots=((3, 1, 0),), read=(("inactive", 1),)),
        GradNode(11, (2,), out=(3, 1, 0), slots=((1, 1, 0),), read=(("cancellation", 1),)),
        GradNode(None, (), leaf=7, out=(1, 1, 0), slots=()),
    ]
    assert read_births(nodes, {2}, {0, 1, 2}) == [(1, 1, "cancellation")]
    # the same with the add passing the zero it received: the walk goes on to abs
    nodes[1] = GradNode(11, (2,), out=(3, 1, 0), slots=((3, 1, 0),), read=((None, 0),))
    assert read_births(nodes, {2}, {0, 1, 2}) == [(0, 1, "inactive")]


def test_reads_of_one_variable_whose_terms_sum_to_zero_cancel_where_they_meet():
    # z = x**2 + y*x - 3*y at x = 3: the reads of y pass 3 (through y*x) and -3 (through
    # 3*y), and dz/dy = x - 3 = 0: the terms cancelled, neither read made a zero
    read = _op("ReadVariableOp", (0,))
    got = kind_at(read, 0, np.array(3.0), np.array(0.0), [None], False)
    assert got == ("cancellation", 1)
    # the walk names that one sum once, at the read that ran last (op 21, not op 20)
    nodes = [
        GradNode(30, (1, 2), out=(1, 0, 0), slots=((1, 0, 0), (1, 0, 0)), read=((None, 0),) * 2),
        GradNode(21, (3,), out=(1, 0, 0), slots=((1, 1, 0),), read=(("cancellation", 1),)),
        GradNode(20, (3,), out=(1, 0, 0), slots=((1, 1, 0),), read=(("cancellation", 1),)),
        GradNode(None, (), leaf=7, out=(1, 1, 0), slots=()),
    ]
    assert read_births(nodes, {3}, {0, 1, 2, 3}) == [(1, 1, "cancellation")]


def test_an_unread_op_is_named_in_the_static_readers_words():
    # TF's Cumprod gradient is div_no_nan(cumsum(prod * g, reverse), x): zero where a factor
    # is zero, the static reader's `mask` for cumprod; tf.where's untaken side is its
    # `inactive`; a gather's unread rows its `unselected`
    assert table_kind("Cumprod") == "mask"
    assert table_kind("SelectV2") == "inactive"
    assert table_kind("GatherV2") == "unselected"
    assert table_kind("MaxPool") == "unselected"
    assert table_kind("Square") is None  # no word: the caller says zero_derivative


def test_a_compiled_function_is_not_read_inside():
    # Keras runs a channels_first Conv3D as an XLA function call: its zeros may be made
    # inside (products that cancel) or received, which its arrays alone do not tell
    call = _op("__forward__conv_xla_51", (0, 1, 2))
    gx = np.array([0.0, 1.0, 0.0])
    gy = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])  # 4 of 6 zero: gx (2 of 3) no more
    assert kind_at(call, 1, gy, gx, [None, None, None], True) == ("unknown", 2)
    # more zeros than it received: some were made there, left to the walk's share rule
    assert kind_at(call, 1, np.ones((2, 3)), gx, [None, None, None], True) is None
