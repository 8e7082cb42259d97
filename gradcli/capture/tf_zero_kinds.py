"""Why TensorFlow's gradient turned zero at an op: the kind of the zeros born there, read
from TensorFlow's own arrays (the gradient the op's output received, its inputs' whole
gradients, and for products their forward operands).

An input element whose gradient is zero while some gradient reached it through the op
(the op was "fed" there) was zeroed by the op in one of two ways: every term the op
passed it was zero (the op's local derivative: `inactive` for kinks such as relu and
where, `mask` for a product whose other factor is zero, `zero_derivative` otherwise,
`underflow` where the gradient received was already subnormal), or nonzero terms summed
to zero (`cancellation`: a broadcast, a matmul row, softmax's rows, several consumers).
The kind with the most elements names the node; an op this module cannot read is left to
the diagnosis's role table. The op's behaviour comes from gradcli's registry, through the
raw-op table, so specs and the run mode use one vocabulary. No TensorFlow import here.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops import REGISTRY, Behavior, Transport
from gradcli.explain.report import CauseKind as K

# ops whose gradient toward each input is the gradient received, up to sign and shape (a
# variable's read passes the variable its gradient: where the reads of one variable pass
# nonzero terms and its gradient is zero, the terms cancelled)
PASSING = frozenset(
    ["AddV2", "Add", "Sub", "BiasAdd", "Neg", "Identity", "AddN", "Cast", "ReadVariableOp"]
)
PRODUCTS = frozenset(["Mul"])
MATMULS = frozenset(["MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"])
# read with TensorFlow's kernels (capture/tf_conv_zeros.py)
CONVS = frozenset(["Conv2D", "MaxPool"])
RAW_PREFIX = "tf.raw_ops."
FUNCTION_PREFIXES = ("__forward_", "__inference_")
CALLS = frozenset(("PartitionedCall", "StatefulPartitionedCall"))
# the static reader's transports that leave input elements unread (its `unselected`)
UNFED_TRANSPORTS = frozenset((Transport.GATHER, Transport.ROUTE, Transport.PARTS))


def registry_op(op_type: str):
    """gradcli's registry op for a TensorFlow op type (None when the table has none)."""
    from gradcli.tfcode.api_raw_ops import RAW

    row = RAW.get(RAW_PREFIX + op_type)
    return REGISTRY.get(row.op) if row is not None else None


def opaque(op_type: str | None) -> bool:
    """Whether an op is a call of a traced function gradcli does not read inside (the
    forward half of an XLA-compiled Keras conv, a PartitionedCall)."""
    return bool(op_type) and (op_type.startswith(FUNCTION_PREFIXES) or op_type in CALLS)


def table_kind(op_type: str | None) -> str | None:
    """The kind the static reader names for zeros an op makes, from gradcli's registry (the
    one vocabulary), for an op whose zeros were not read here; None: the registry has no
    word for it."""
    reg = registry_op(op_type) if op_type else None
    if reg is None:
        return None
    if reg.zeros in UNFED_TRANSPORTS:
        return K.UNSELECTED  # gather, max_pool, top_k: elements the op does not pass on
    if reg.behavior is Behavior.KINK:
        return K.INACTIVE  # relu, maximum, clip, where: the side or region that is not taken
    if reg.behavior is Behavior.MASK:
        return K.MASK  # products: cumprod, prod
    return None


def needs_operands(op_type: str) -> bool:
    """Whether the kind at this op needs its forward operands' values."""
    return op_type in PRODUCTS or op_type in MATMULS or op_type in CONVS or op_type in IF_OPS


IF_OPS = frozenset(("If", "StatelessIf"))  # a traced tf.cond: inputs[0] is the predicate


def branch_reads(attrs, graph) -> tuple | None:
    """(then reads, else reads): per input after the predicate, whether that branch's
    function uses it (from the branch function graphs), or None where they are not found."""
    found = dict(zip(attrs[::2], attrs[1::2]))
    out = []
    for key in ("then_branch", "else_branch"):
        try:
            body = graph._get_function(found[key].func.name).graph
        except (AttributeError, KeyError, ValueError):
            return None
        used = {t.name for op in body.get_operations() for t in op.inputs}
        out.append(tuple(t.name in used for t in body.inputs))
    return tuple(out)


def _untaken(op, j: int, zero, operands):
    """A traced tf.cond's zeros for input j: the branch that ran does not read it and the
    other does (the predicate's value decides); None where that is not known."""
    reads = op.extra.get("branch_reads")
    if j == 0 or reads is None or not operands or operands[0] is None:
        return None
    taken = 0 if bool(np.asarray(operands[0]).reshape(-1)[0]) else 1
    k = j - 1
    if k >= len(reads[0]) or k >= len(reads[1]):
        return None
    if reads[taken][k] or not reads[1 - taken][k]:
        return None
    return K.UNTAKEN_BRANCH, int(np.count_nonzero(zero))


def kind_at(op, j: int, gy, gx, operands, single: bool, same: bool = False):
    """(kind, elements) of the zeros born in input j's gradient at op: how many of its
    zero elements op made, and why (kind None when it made none); None: not read here.

    gy: the gradient op's first output received; gx: input j's whole gradient; operands:
    the forward input arrays (None where unknown); single: input j has no other consumer
    on the call's path and appears once among op's inputs; same: op's two inputs are one
    value (x * x).
    """
    t = op.extra.get("type")
    if t is None:
        return None
    gy, gx = np.asarray(gy), np.asarray(gx)
    zero = gx == 0
    if not zero.any():
        return None, 0
    if opaque(t):  # a compiled function (Keras's XLA conv): its zeros are not read inside.
        # A larger share of zeros than it received was made there (the walk names it); a
        # smaller one may be made inside (products that cancel) or received: unknown
        if np.count_nonzero(zero) / zero.size > np.count_nonzero(gy == 0) / max(gy.size, 1):
            return None
        return K.UNKNOWN, int(np.count_nonzero(zero))
    if t in MATMULS:
        return _matmul(op, j, gy, zero, operands)
    if t in IF_OPS:
        return _untaken(op, j, zero, operands)
    reg = registry_op(t) if t not in PASSING and t not in PRODUCTS else None
    elementwise = t in PASSING or t in PRODUCTS
    elementwise = elementwise or (reg is not None and reg.zeros is Transport.ELEMENTWISE)
    if elementwise and gy.shape == np.broadcast_shapes(gy.shape, gx.shape):
        return _elementwise(j, t, reg, gy, gx, zero, operands, single, same)
    if reg is not None and reg.cancels and single and gy.shape == gx.shape and gy.ndim:
        # softmax's rows (its last axis): a zero where the row received something cancelled
        cancelled = int(np.count_nonzero(zero & (gy != 0).any(axis=-1, keepdims=True)))
        return (K.CANCELLATION if cancelled else None), cancelled
    return None


def _elementwise(j, t, reg, gy, gx, zero, operands, single, same):
    fed = gy != 0  # in the output's shape
    if t in PASSING:
        local, kind = np.zeros(gy.shape, bool), None
    elif t in PRODUCTS:
        if len(operands) != 2 or operands[1 - j] is None:
            return None
        if same:  # x * x: 2x, zero where x is
            local, kind = np.broadcast_to(np.asarray(operands[j]) == 0, gy.shape), K.ZERO_DERIVATIVE
        else:
            local, kind = np.broadcast_to(np.asarray(operands[1 - j]) == 0, gy.shape), K.MASK
    elif single and gx.shape == gy.shape:  # one to one: the whole gradient is the local term
        local = zero
        kind = _local_kind(reg, gy)
    else:
        return None
    axes = _broadcast_axes(gx.shape, gy.shape)
    fed_any = _reduce(fed, axes, gx.shape)
    passed = _reduce(fed & ~local, axes, gx.shape)
    cancelled = int(np.count_nonzero(zero & passed))
    zeroed = int(np.count_nonzero(zero & fed_any & ~passed))
    if not cancelled and not zeroed:
        return None, 0
    if kind is None:
        return (K.CANCELLATION if cancelled else None), cancelled
    return (K.CANCELLATION if cancelled > zeroed else kind), cancelled + zeroed


def _local_kind(reg, gy) -> str:
    behavior = reg.behavior if reg is not None else None
    if behavior is Behavior.KINK:
        return K.INACTIVE
    if behavior is Behavior.MASK:
        return K.MASK
    if gy.dtype.kind == "f" and (np.abs(gy[gy != 0]) < np.finfo(gy.dtype).tiny).any():
        return K.UNDERFLOW
    return K.ZERO_DERIVATIVE


def _matmul(op, j, gy, zero, operands):
    # dA = G @ B^T, dB = A^T @ G: an element is masked when every product behind it meets a
    # zero of the other operand, cancelled when some products are nonzero but sum to zero
    if operands is None or len(operands) < 2 or any(o is None for o in operands[:2]):
        return None
    attrs = op.extra.get("attrs", {})
    a, b = np.asarray(operands[0]), np.asarray(operands[1])
    if a.ndim < 2 or b.ndim < 2 or gy.ndim < 2:
        return None
    if attrs.get("transpose_a") or attrs.get("adj_x"):
        a = np.swapaxes(a, -1, -2)
    if attrs.get("transpose_b") or attrs.get("adj_y"):
        b = np.swapaxes(b, -1, -2)
    flowing = (gy != 0).astype(np.float64)
    if j == 0:
        terms = flowing @ np.swapaxes((b != 0).astype(np.float64), -1, -2)
        fed = np.broadcast_to(flowing.any(axis=-1, keepdims=True), terms.shape)
        transposed = attrs.get("transpose_a") or attrs.get("adj_x")
    else:
        terms = np.swapaxes((a != 0).astype(np.float64), -1, -2) @ flowing
        fed = np.broadcast_to(flowing.any(axis=-2, keepdims=True), terms.shape)
        transposed = attrs.get("transpose_b") or attrs.get("adj_y")
    if transposed:
        terms, fed = np.swapaxes(terms, -1, -2), np.swapaxes(fed, -1, -2)
    shape = zero.shape
    if terms.shape != shape:
        axes = _broadcast_axes(shape, terms.shape)
        terms = _reduce(terms > 0, axes, shape)
        fed = _reduce(fed, axes, shape)
    masked = int(np.count_nonzero(zero & fed & (terms == 0)))
    cancelled = int(np.count_nonzero(zero & fed & (terms > 0)))
    if not masked and not cancelled:
        return None, 0
    return (K.CANCELLATION if cancelled > masked else K.MASK), masked + cancelled


def _broadcast_axes(small: tuple, big: tuple) -> tuple:
    lead = len(big) - len(small)
    return tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(small) if d == 1 and big[lead + i] != 1
    )


def _reduce(mask, axes, shape):
    """any() over the broadcast axes, in the input's shape."""
    out = np.asarray(mask).any(axis=axes) if axes else np.asarray(mask)
    return np.reshape(out, shape)
