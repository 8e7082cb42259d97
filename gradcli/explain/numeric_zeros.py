"""Why a connected gradient has zero elements: the node that first made each one zero.

The gradient flows back from the outputs along the edges autodiff recorded (consumer,
slot, input, contribution). Walking the nodes in decreasing id order (outputs first), each
node's gradient gets a label array of its own shape: NONZERO where the gradient is
nonzero, else a label naming the set of findings that explain the zero. An element is zero

- because every contribution reaching it is zero: the union of the contributions' labels.
  A contribution is zero either because the consumer's gradient was already zero there
  (the label is inherited) or because the consumer's op turned a nonzero gradient into
  zero there (a new finding: mask, inactive, zero_derivative, unselected);
- or because nonzero contributions summed to zero: a cancellation finding.

Elementwise ops map elements one to one (through broadcasting); matmul counts the nonzero
products behind each element; reductions, shape ops and indexing map elements exactly;
other ops fall back to all-or-nothing. Each node is visited once with a few numpy
operations, so the pass is linear in the size of the graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradcli.core.autodiff import Gradients
from gradcli.core.graph import GRADIENT, Graph
from gradcli.core.ops import REGISTRY, ZERO_GRAD, Behavior, Transport
from gradcli.core.ops.infer import normalize_axes, reduced_shape
from gradcli.explain.labels import NONZERO, UNFED, Labels, broadcast_axes, sum_to  # noqa: F401
from gradcli.explain.report import CauseKind

MASK, INACTIVE, ZERO_UPSTREAM = CauseKind.MASK, CauseKind.INACTIVE, CauseKind.ZERO_UPSTREAM
CANCELLATION, ZERO_DERIVATIVE = CauseKind.CANCELLATION, CauseKind.ZERO_DERIVATIVE
UNSELECTED, UNDERFLOW = CauseKind.UNSELECTED, CauseKind.UNDERFLOW


@dataclass
class Finding:
    """One node that turned a flowing gradient into zeros."""

    kind: str
    culprit: int  # the forward node whose op (or sum of paths) made the zeros
    operand: int | None  # the input the zeroed gradient was flowing to
    slot: int | None
    blocked: int  # elements it zeroed, counted in its own index space
    total: int  # the size of that space
    facts: dict = field(default_factory=dict)


class ZeroTrace:
    """Label every zero element of every gradient on the recorded edges (see module doc)."""

    def __init__(self, graph: Graph, grads: Gradients, values: dict, seeds, fast_path=None):
        """fast_path: a strategy class for some nodes (ScalarPath: one-element gradients)."""
        self.graph = graph
        self.grads = grads
        self.values = values
        self.seeds = seeds
        self.labels = Labels()
        self.findings: list[Finding] = []
        self.node_labels: dict[int, np.ndarray | int | None] = {}
        self._unfed: np.ndarray | None = None  # the last structured edge's unread elements
        self._masked: np.ndarray | None = None  # a product route's elements all-zero-factor
        self.fast = fast_path(self) if fast_path is not None else None

    # --- values ------------------------------------------------------------------------
    def value(self, i) -> np.ndarray:
        if i is ZERO_GRAD:
            return np.zeros(())
        return np.asarray(self.values[i])

    def _contribution(self, r):
        """A recorded contribution's value (a seed is an array or None, meaning ones)."""
        if r is None:
            return np.ones(())
        if isinstance(r, int) or r is ZERO_GRAD:
            return self.value(r)
        return np.asarray(r)

    def zeros_of(self, i: int, shape) -> int:
        """How many elements of node i's value (broadcast to shape) are zero."""
        return int(np.count_nonzero(np.broadcast_to(self.value(i) == 0, shape)))

    def new(self, kind, culprit, operand, slot, blocked, total, **facts) -> int:
        self.findings.append(Finding(kind, culprit, operand, slot, int(blocked), total, facts))
        return self.labels.of([len(self.findings) - 1])

    # --- the pass ------------------------------------------------------------------------
    def run(self) -> None:
        incoming: dict[int, list] = {}
        for m, j, k, r in self.grads.edges:
            incoming.setdefault(k, []).append((m, j, r))
        for y, seed in zip(self.grads.outputs, self.seeds or [None] * len(self.grads.outputs)):
            if y in self.grads.adjoints:
                incoming.setdefault(y, []).append((None, None, seed))
        for k in sorted(self.grads.adjoints, reverse=True):
            edges = incoming.get(k, ())
            if self.fast is not None and self.fast.applies(k, edges):
                self.node_labels[k] = self.fast.node(k, edges)
            else:
                self.node_labels[k] = self._node(k, edges)

    def labels_of(self, i: int) -> np.ndarray | None:
        """Node i's gradient labels as an array of its shape (None: nonzero everywhere)."""
        labels = self.node_labels.get(i)
        if isinstance(labels, int):
            return np.full(self.graph[i].shape, labels)
        return labels

    def counts(self, x: int) -> tuple[int, dict[int, int]]:
        """Zero elements of x's gradient, and how many of them each finding explains.

        Findings of one kind by one node for one operand (both slots of x * x) count as one,
        under the first of them.
        """
        labels = self.labels_of(x)
        if labels is None:
            return 0, {}
        first: dict[tuple, int] = {}
        rep = [
            first.setdefault((f.kind, f.culprit, f.operand), i) for i, f in enumerate(self.findings)
        ]
        zero = labels >= 0
        per: dict[int, int] = {}
        found, counts = np.unique(labels[zero], return_counts=True)
        for label, n in zip(found.tolist(), counts.tolist()):
            for f in {rep[f] for f in self.labels.sets[label]}:
                per[f] = per.get(f, 0) + n
        return int(np.count_nonzero(zero)), per

    def _node(self, k: int, edges) -> np.ndarray | None:
        node = self.graph[k]
        shape = node.shape
        zero = np.broadcast_to(self.value(self.grads.adjoints[k]) == 0, shape)
        if not zero.any():
            return None
        acc = np.full(shape, NONZERO)
        flows = np.zeros(shape, dtype=bool)
        flowing, terms = [], []
        for m, _j, r, e, unread in self._contributions(k, edges):
            if e is None or (e < 0).any():
                flows |= True if e is None else e < 0
                flowing.append(m)
                if node.size == 1:
                    value = float(np.asarray(self._contribution(r)).reshape(()))
                    terms.append((-1 if m is None else m, value))
            if e is not None:
                # an element this consumer does not read is no reason for its zero when
                # another consumer reads it: `unselected` means no consumer reads it
                acc = self.labels.union(acc, e if unread is None else np.where(unread, NONZERO, e))
        out = np.where(zero, acc, NONZERO)
        cancel = zero & flows
        if cancel.any():
            consumers = [m for m in flowing if m is not None]
            label = self.new(
                CANCELLATION,
                max(consumers, default=k),
                k,
                None,
                np.count_nonzero(cancel),
                node.size,
                consumers=consumers,
                terms=[v for _, v in sorted(terms)],
            )
            out = self.labels.union(out, np.where(cancel, label, NONZERO))
        lost = zero & (out < 0)
        if lost.any():  # no recorded edge explains it (should not happen): say so honestly
            label = self.new(ZERO_DERIVATIVE, k, k, None, np.count_nonzero(lost), node.size)
            out = np.where(lost, label, out)
        return out

    def _contributions(self, k: int, edges) -> list[tuple]:
        """(m, j, r, labels, unread) per edge into k: unread marks the elements the edge's
        consumer does not read that another edge does (None: none)."""
        shape = self.graph[k].shape
        out = []
        for m, j, r in edges:
            self._unfed = None
            e = self._seed(k, r) if m is None else self._edge(m, j, k, r)
            out.append([m, j, r, e, self._unfed])
        if sum(1 for c in out if c[4] is not None) == 0 or len(out) < 2:
            return [(*c[:4], None) for c in out]
        fed = [np.ones(shape, bool) if c[4] is None else ~c[4] for c in out]
        for i, c in enumerate(out):
            if c[4] is not None:
                others = np.zeros(shape, bool)
                for f in fed[:i] + fed[i + 1 :]:
                    others |= f
                c[4] = c[4] & others if (c[4] & others).any() else None
        return [tuple(c) for c in out]

    def _seed(self, y: int, seed) -> np.ndarray | None:
        shape = self.graph[y].shape
        zero = np.broadcast_to(np.asarray(1.0 if seed is None else seed) == 0, shape)
        if not zero.any():
            return None
        label = self.new(ZERO_UPSTREAM, y, None, None, np.count_nonzero(zero), zero.size)
        return np.where(zero, label, NONZERO)

    def _edge(self, m: int, j: int, k: int, r) -> np.ndarray | None:
        """Labels of one contribution (k's shape): NONZERO where it is nonzero."""
        kshape = self.graph[k].shape
        cz = np.broadcast_to(self.value(r) == 0, kshape)
        if not cz.any():
            return None
        mnode = self.graph[m]
        up = self.labels_of(m)
        if up is None:
            up = np.full(mnode.shape, NONZERO)
        transport = REGISTRY[mnode.op].zeros
        if transport is Transport.ELEMENTWISE:
            return self._elementwise(m, j, k, r, cz, up)
        if transport is Transport.CONTRACTION:
            return self._matmul(m, j, k, cz, up)
        return self._structured(m, j, k, cz, up)

    def _before_fit(self, r, m: int):
        """The rule's own result, before `fit` summed it over broadcast axes."""
        for op in ("reshape", "sum"):
            if r is ZERO_GRAD:
                return r
            node = self.graph[r]
            if node.op == op and node.kind == GRADIENT and node.origin == m:
                r = node.inputs[0]
        return r

    def _elementwise(self, m, j, k, r, cz, up) -> np.ndarray:
        mnode = self.graph[m]
        local_zero = np.broadcast_to(self.value(self._before_fit(r, m)) == 0, mnode.shape)
        made = local_zero & (up < 0)
        labels = up
        if made.any():
            for kind, where in self._kinds(m, j, made):
                label = self.new(kind, m, k, j, np.count_nonzero(where), mnode.size)
                labels = np.where(where, label, labels)
        mapped = self.labels.reduce_to(labels, self.graph[k].shape)
        out = np.where(cz, mapped, NONZERO)
        summed = cz & (mapped < 0)
        if summed.any():  # nonzero terms of a broadcast sum added up to zero
            label = self.new(
                CANCELLATION, m, k, j, np.count_nonzero(summed), cz.size, broadcast=True
            )
            out = np.where(summed, label, out)
        return out

    def _kinds(self, m: int, j: int, made: np.ndarray) -> list[tuple[str, np.ndarray]]:
        """Why op m turned a nonzero gradient into zeros at `made`: (kind, elements) parts.

        Kink ops pass the upstream gradient exactly, its negation, or 0, so their zeros are
        inactive regions. For a product of two different tensors the zeros of the other
        factor are a mask (x * x at 0 is a zero derivative instead); where the
        other factor is nonzero the product of two nonzero floats fell below the smallest
        subnormal (underflow). Other ops: underflow where the upstream gradient was already
        subnormal, else the local derivative is 0 (sign, square at 0, a saturated tanh).
        """
        mnode = self.graph[m]
        op = REGISTRY[mnode.op]
        behavior = op.behavior
        if behavior is Behavior.KINK:
            return [(INACTIVE, made)]
        if op.masks is not None:  # dropout: the elements it drops (Op.masks)
            dropped = np.broadcast_to(op.masks(mnode, self.value), mnode.shape)
            parts = [(MASK, made & dropped), (ZERO_DERIVATIVE, made & ~dropped)]
        elif behavior is Behavior.MASK and mnode.inputs[0] != mnode.inputs[1]:
            other_zero = np.broadcast_to(self.value(mnode.inputs[1 - j]) == 0, mnode.shape)
            parts = [(MASK, made & other_zero), (UNDERFLOW, made & ~other_zero)]
        else:
            g = np.broadcast_to(self.value(self.grads.adjoints[m]), mnode.shape)
            tiny = np.abs(g) < np.finfo(g.dtype).tiny if g.dtype.kind == "f" else False
            parts = [(UNDERFLOW, made & tiny), (ZERO_DERIVATIVE, made & ~tiny)]
        return [(kind, where) for kind, where in parts if where.any()]

    def _matmul(self, m, j, k, cz, up) -> np.ndarray:
        # dA = G @ B^T and dB = A^T @ G: an element is zero because its whole row (column)
        # of G is zero (inherited), because every product meets a zero of the other
        # operand (mask), or because nonzero products cancel.
        mnode = self.graph[m]
        a = self.value(mnode.inputs[0])
        b = self.value(mnode.inputs[1])
        a = a[None, :] if a.ndim == 1 else a
        b = b[:, None] if b.ndim == 1 else b
        gshape = (*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), a.shape[-2], b.shape[-1])
        g = np.broadcast_to(self.value(self.grads.adjoints[m]), mnode.shape).reshape(gshape)
        labels = up.reshape(gshape)
        flowing = (g != 0).astype(np.float64)
        if j == 0:
            terms = flowing @ np.swapaxes((b != 0).astype(np.float64), -1, -2)
            inherited = self.labels.reduce(labels, (labels.ndim - 1,))
            target, other = a.shape, mnode.inputs[1]
        else:
            terms = np.swapaxes((a != 0).astype(np.float64), -1, -2) @ flowing
            inherited = self.labels.reduce(labels, (labels.ndim - 2,))
            target, other = b.shape, mnode.inputs[0]
        inherited = np.ascontiguousarray(np.broadcast_to(inherited, terms.shape))
        kshape = self.graph[k].shape
        terms = sum_to(terms, target).reshape(kshape)
        inherited = self.labels.reduce_to(inherited, target).reshape(kshape)
        out = np.where(cz, inherited, NONZERO)
        masked = cz & (inherited < 0) & (terms == 0)
        if masked.any():
            size = int(np.prod(self.value(other).shape))
            label = self.new(
                MASK, m, k, j, np.count_nonzero(masked), cz.size,
                other=other, other_zeros=self.zeros_of(other, self.value(other).shape),
                other_size=size,
            )  # fmt: skip
            out = np.where(masked, label, out)
        cancelled = cz & (inherited < 0) & (terms > 0)
        if cancelled.any():
            label = self.new(
                CANCELLATION, m, k, j, np.count_nonzero(cancelled), cz.size, matmul=True
            )
            out = np.where(cancelled, label, out)
        return out

    def _structured(self, m, j, k, cz, up) -> np.ndarray:
        mnode, knode = self.graph[m], self.graph[k]
        mapped, vague = self._transport(mnode, j, knode, up)
        out = np.where(cz, mapped, NONZERO)
        unfed = cz & (mapped == UNFED)
        self._unfed = unfed if unfed.any() else None
        if unfed.any():
            used = int(np.count_nonzero(mapped != UNFED))
            label = self.new(UNSELECTED, m, k, j, np.count_nonzero(unfed), cz.size, used=used)
            out = np.where(unfed, label, out)
        made = cz & (mapped == NONZERO)
        masked, self._masked = self._masked, None
        if masked is not None and made.any():  # a product's route: masked, else cancelled
            out = self._products(m, k, j, cz, made, masked, out)
            made = made & False
        if made.any():
            label = self.new(
                self._structured_kind(mnode, j), m, k, j, np.count_nonzero(made), cz.size
            )
            if vague >= 0:  # partly zero upstream through an op we cannot map: both
                label = self.labels.of(self.labels.sets[label] | self.labels.sets[vague])
            out = np.where(made, label, out)
        return out

    def _products(self, m, k, j, cz, made, masked, out) -> np.ndarray:
        """A convolution's zeros where nonzero gradient reached it: `mask` where every
        flowing product meets a zero of the other factor, else `cancellation`."""
        for kind, where in ((MASK, made & masked), (CANCELLATION, made & ~masked)):
            if where.any():
                label = self.new(kind, m, k, j, np.count_nonzero(where), cz.size, conv=True)
                out = np.where(where, label, out)
        return out

    def _structured_kind(self, mnode, j: int) -> str:
        op = REGISTRY[mnode.op]
        if op.behavior is Behavior.KINK:
            return INACTIVE  # max, min: only the extreme elements get gradient
        if op.behavior is Behavior.MASK:
            return MASK  # prod, cumprod: the other factors hold zeros
        if op.cancels:
            return CANCELLATION  # softmax: the terms of a row cancel
        return ZERO_DERIVATIVE

    def _transport(self, mnode, j: int, knode, up) -> tuple[np.ndarray, int]:
        """The consumer's labels mapped onto the input's elements (k's shape).

        A mapped element is a label when every gradient element feeding it is zero,
        NONZERO when some is not, UNFED when none feeds it. The second value is a label
        for ops mapped all-or-nothing with a partly zero gradient (else NONZERO).
        """
        op, attrs, shape = REGISTRY[mnode.op], mnode.attrs, knode.shape
        transport = op.zeros
        if transport is Transport.RESHAPE:
            return up.reshape(shape), NONZERO
        if transport is Transport.TRANSPOSE:
            axes = attrs.get("axes")
            perm = tuple(range(len(shape)))[::-1] if axes is None else axes
            return up.transpose(np.argsort([a % max(len(shape), 1) for a in perm])), NONZERO
        if transport is Transport.GATHER:
            out = np.full(shape, UNFED)
            out[attrs["index"]] = up
            return out, NONZERO
        if transport is Transport.SCATTER:
            return up[attrs["index"]], NONZERO
        if transport is Transport.PARTS:
            return self._part(mnode, j, up), NONZERO
        if transport is Transport.ROUTE:
            routed = self._route(mnode, j, knode, up)
            if routed is not None:  # None: too many pairs to list (a large conv)
                return routed, NONZERO
        if transport is Transport.REDUCE:
            axes = normalize_axes(op.name, attrs.get("axis", op.default("axis")), len(shape))
            kept = reduced_shape(shape, range(len(shape)) if axes is None else axes, True)
            return np.broadcast_to(up.reshape(kept), shape), NONZERO
        if transport is Transport.SCAN:
            axis = attrs.get("axis", op.default("axis")) % len(shape)
            if op.name in ("cumsum", "cumprod"):
                return self._running(up, axis, attrs), NONZERO
            return np.broadcast_to(self.labels.reduce(up, (axis,)), shape), NONZERO
        together = self.labels.union_all(up)
        if not (up < 0).any():
            return np.full(shape, together), NONZERO
        return np.full(shape, NONZERO), together

    def _running(self, up, axis: int, attrs) -> np.ndarray:
        """A cumsum's or cumprod's labels on its input: element k feeds the outputs at k and
        after it along the axis (before it with reverse; exclusive leaves k itself out)."""
        n = up.shape[axis]
        out = np.empty(up.shape, dtype=up.dtype)
        ex, rev = bool(attrs.get("exclusive")), bool(attrs.get("reverse"))
        for k in range(n):
            lo, hi = (0, k + 1 - ex) if rev else (k + ex, n)
            part = np.take(up, range(lo, hi), axis=axis)
            where = (slice(None),) * axis + (slice(k, k + 1),)
            out[where] = self.labels.reduce(part, (axis,))
        return out

    def _route(self, mnode, j: int, knode, up) -> np.ndarray | None:
        """Labels of input j of an index op, through the pairs its `route` hook gives (None
        when the hook declines, and the op is mapped all-or-nothing)."""
        pairs = REGISTRY[mnode.op].route(mnode, j, self.value)
        if pairs is None:
            return None
        into, src = pairs[0], pairs[1]
        into = np.asarray(into, dtype=np.int64).reshape(-1)
        flat = up.reshape(-1)[np.asarray(src, dtype=np.int64).reshape(-1)]
        size = knode.size
        fed = np.zeros(size, bool)
        fed[into] = True
        flows = np.zeros(size, bool)
        flows[into[flat < 0]] = True
        if len(pairs) > 2:  # a product: which flowing products meet a nonzero other factor
            other = self.value(mnode.inputs[1 - j]).reshape(-1)
            live = (flat < 0) & (other[np.asarray(pairs[2], dtype=np.int64).reshape(-1)] != 0)
            nonzero = np.zeros(size, bool)
            nonzero[into[live]] = True
            self._masked = (flows & ~nonzero).reshape(knode.shape)
        big = np.iinfo(np.int64).max
        lo, hi = np.full(size, big), np.full(size, -1)
        np.minimum.at(lo, into, np.where(flat < 0, big, flat))
        np.maximum.at(hi, into, flat)
        out = np.where(~fed, UNFED, np.where(flows, NONZERO, lo))
        for e in np.flatnonzero(fed & ~flows & (lo != hi)).tolist():
            out[e] = self.labels.union_all(flat[into == e])
        return out.reshape(knode.shape)

    def _part(self, mnode, j: int, up) -> np.ndarray:
        """The slice of a concat's or stack's gradient that belongs to input j."""
        shapes = [self.graph[i].shape for i in mnode.inputs]
        if len(mnode.shape) > len(shapes[0]):  # stack: each input is one index of a new axis
            axis = mnode.attrs.get("axis", 0) % (len(shapes[0]) + 1)
            return up[(slice(None),) * axis + (j,)]
        axis = mnode.attrs.get("axis", 0) % len(shapes[0])
        start = sum(s[axis] for s in shapes[:j])
        return up[(slice(None),) * axis + (slice(start, start + shapes[j][axis]),)]
