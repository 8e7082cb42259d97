"""Where a NaN or Inf comes from: forward origins and gradient origins (numpy only).

A node is a *source* of non-finite values at the elements where its value is NaN or
±Inf although every operand it reads is finite there (for elementwise ops, element by
element with broadcasting; for other ops, when every operand is finite everywhere).
Spec inputs and constants holding NaN or Inf are sources too.

- Forward origin: the first source, in evaluation order, among the non-finite forward
  nodes an output inherits its NaN/Inf from (`log(0)`, `0/0`, `sqrt(-1)`, `exp(1000)`).
- Gradient origin: the sources among the non-finite nodes a gradient inherits from. A
  gradient node (built by the rule of forward node F, its `origin`) or a non-finite
  forward value read by F's rule is classified:
  - `where_trap`: the upstream gradient reaching F is 0 at those elements because a
    `where` (or maximum, minimum, clip, relu) passes F no gradient there, and
    0 * inf = nan: F's value was masked away, its derivative was not;
  - `propagated`: the rule read a non-finite forward value (named with its forward origin);
  - `singular_derivative`: F's local derivative is infinite or undefined at the point
    itself (`sqrt` at 0, `log` at 0, `x**0.5` at 0);
  - `overflow`: gradient arithmetic on finite, non-singular values overflowed.

The walks are loops over node ids (topological order); nothing recurses. The words for
warnings and reasons are in nonfinite_warnings.py.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.executor import exec_inputs, run
from gradcli.core.finite import has_non_finite, non_finite  # noqa: F401  (re-exported)
from gradcli.core.graph import CONST_OP, GRADIENT, INPUT_OP, Graph, is_float
from gradcli.core.ops import REGISTRY, ZERO_GRAD, Behavior
from gradcli.explain.nonfinite_words import (  # noqa: F401  (the origin vocabulary, re-exported)
    FORWARD,
    MAX_INDICES,
    NON_FINITE,
    ORIGINS,
    OVERFLOW,
    PROPAGATED,
    SINGULAR,
    WHERE_TRAP,
    Origin,
    OriginWords,
    _broadcasts,
    _elementwise,
    at_elements,
    element_indices,
    value_words,
)


class Diagnosis(OriginWords):
    """Finds origins in one graph, from the executor's values (computed as needed)."""

    def __init__(self, graph: Graph, values: dict, adjoints: dict | None = None):
        self.graph = graph
        self.values = values
        self.adjoints = adjoints or {}
        self._bad: dict[int, np.ndarray] = {}
        self._forward: dict[int, Origin | None] = {}

    # --- values ----------------------------------------------------------------------
    def value(self, i: int) -> np.ndarray:
        if i not in self.values:
            self.values.update(run(self.graph, [i], known=self.values, keep=True))
        return np.asarray(self.values[i])

    def bad(self, i: int) -> np.ndarray:
        """The NaN/Inf mask of node i's value, in the node's shape (cached)."""
        found = self._bad.get(i)
        if found is None:
            node = self.graph[i]
            if not is_float(node.dtype):
                found = np.zeros(node.shape, bool)
            else:
                found = np.broadcast_to(non_finite(self.value(i)), node.shape)
            self._bad[i] = found
        return found

    def fresh(self, i: int) -> np.ndarray:
        """Elements of node i that are non-finite although its operands are finite there."""
        node = self.graph[i]
        bad = self.bad(i)
        if node.op in (INPUT_OP, CONST_OP) or not bad.any():
            return bad
        if REGISTRY[node.op].behavior in (Behavior.BRANCH, Behavior.CUSTOM):
            return np.zeros(node.shape, bool)  # passes a value through
        ins = exec_inputs(node)
        if _elementwise(node):
            inherited = np.zeros(node.shape, bool)
            for j in ins:
                inherited |= np.broadcast_to(self.bad(j), node.shape)
            return bad & ~inherited
        if any(self.bad(j).any() for j in ins):
            return np.zeros(node.shape, bool)
        return bad

    def chain(self, start: int) -> list[int]:
        """The non-finite nodes start inherits from (itself included), in id order."""
        marked = {start}
        for i in range(start, -1, -1):
            if i in marked:
                for j in exec_inputs(self.graph[i]):
                    if self.bad(j).any():
                        marked.add(j)
        return sorted(marked)

    # --- forward ----------------------------------------------------------------------
    def forward_origin(self, y: int) -> Origin | None:
        """The first source (in evaluation order) of the non-finite elements of node y."""
        if y not in self._forward:
            self._forward[y] = self._first_source(y) if self.bad(y).any() else None
        return self._forward[y]

    def _first_source(self, y: int) -> Origin | None:
        for i in self.chain(y):
            if self.graph[i].kind == GRADIENT:
                continue
            fresh = self.fresh(i)
            if fresh.any():
                origin = Origin(FORWARD, i, i, *element_indices(fresh))
                self._describe_forward(origin, fresh)
                return origin
        return None

    def pair(self, outputs: list[int], result) -> list[Origin]:
        """Forward origins of the outputs' NaN/Inf, then the gradient's own origins."""
        found = [o for o in (self.forward_origin(y) for y in outputs) if o is not None]
        return found + self.gradient_origins(result)

    # --- gradients --------------------------------------------------------------------
    def gradient_origins(self, result) -> list[Origin]:
        """The sources of the non-finite elements of a gradient node, first first."""
        if not isinstance(result, int) or not self.bad(result).any():
            return []
        found: list[Origin] = []
        seen: set = set()
        nodes = self.graph.nodes
        if nodes[result].kind != GRADIENT:
            # a rule returned a forward value itself (exp's gradient is exp(x) times 1)
            self._classify(found, seen, result, result, self.bad(result))
            return found
        for m in self.chain(result):
            node = nodes[m]
            if node.kind != GRADIENT:
                continue
            fresh = self.fresh(m)
            for j in exec_inputs(node):
                if nodes[j].kind != GRADIENT and self.bad(j).any():
                    # a non-finite forward value read by a gradient rule
                    reads = self.bad(m)
                    if _elementwise(node) and _broadcasts(nodes[j].shape, node.shape):
                        reads = reads & np.broadcast_to(self.bad(j), node.shape)
                    if reads.any():
                        self._classify(found, seen, m, j, reads)
            if fresh.any():
                self._classify(found, seen, m, None, fresh)
        return found

    def _classify(self, found, seen, m: int, forward: int | None, elements) -> None:
        node = self.graph[m]
        f = node.origin if node.origin is not None else m
        mask = self.masked_by(f, m, elements)
        if mask is not None:
            kind = WHERE_TRAP
        elif forward is not None:
            kind = PROPAGATED
        elif (
            REGISTRY[node.op].overflows
            and not self._pole(m, elements)
            and not np.isnan(np.asarray(self.value(m))[elements]).any()
        ):
            kind = OVERFLOW  # inf from finite values; a nan is a domain error: singular
        else:
            kind = SINGULAR
        key = (kind, f, forward)
        if key in seen:
            return
        seen.add(key)
        culprit = forward if forward is not None else m
        shown = elements
        if forward is not None:
            shown = self.bad(forward)
        origin = Origin(kind, f, culprit, *element_indices(shown), mask=mask)
        if kind == PROPAGATED:
            seeded = self.seed_of(forward)
            if seeded is not None:
                origin.node = seeded  # the output whose grad_ys holds the NaN/Inf
            else:
                origin.source = self.forward_origin(forward)
        self._describe_gradient(origin, m, elements, shown)
        if all((o.origin, o.detail) != (origin.origin, origin.detail) for o in found):
            found.append(origin)  # twin nodes (exp(x) * exp(x)) are reported once

    def seed_of(self, j: int) -> int | None:
        """The output whose upstream gradient (grad_ys) is the constant node j, if any."""
        if self.graph[j].op != CONST_OP:
            return None
        for k, g in self.adjoints.items():
            if g == j and self.graph[k].name is not None:
                return k
        return None

    def _pole(self, m: int, elements) -> bool:
        """True when the op's non-finite elements are a pole (pow: x**-0.5 at 0; Op.pole)."""
        node = self.graph[m]
        pole = REGISTRY[node.op].pole
        if pole is None:
            return False
        values = [np.broadcast_to(self.value(j), node.shape) for j in node.inputs]
        return bool(np.any(pole(*values)[elements]))

    def upstream_zero(self, f: int, m: int, elements) -> bool:
        """True when the gradient reaching F is 0 at the elements (F's shape is m's)."""
        g = self.adjoints.get(f)
        graph = self.graph
        if g is None or graph[m].shape != graph[f].shape:
            return False
        if g is ZERO_GRAD:
            return True
        value = np.broadcast_to(self.value(g), graph[f].shape)
        return bool(np.all(value[elements] == 0))

    def masked_by(self, f: int, m: int, elements) -> int | None:
        """The forward node (where, relu, ...) whose unselected side zeroes F's upstream gradient.

        Follows the zero backwards from F's adjoint through elementwise gradient nodes of
        F's shape, to a gradient node built by a masking op's rule that selects zero there.
        """
        g = self.adjoints.get(f)
        graph = self.graph
        if g is None or g is ZERO_GRAD or graph[m].shape != graph[f].shape:
            return None
        shape = graph[f].shape
        stack = [g]
        visited = set()
        while stack:
            n = stack.pop()
            if n in visited:
                continue
            visited.add(n)
            node = graph[n]
            value = np.broadcast_to(self.value(n), shape)
            if node.kind != GRADIENT or not np.all(value[elements] == 0):
                continue
            origin = graph[node.origin] if node.origin is not None else None
            selection = REGISTRY[node.op].selection
            if origin is not None and REGISTRY[origin.op].selects and selection is not None:
                picked = selection(graph, node, lambda j: np.broadcast_to(self.value(j), shape))
                if picked is None:
                    continue
                zeroed, passes = picked
                if np.all(zeroed[elements]):
                    return origin.id
                stack.append(passes)
                continue
            if REGISTRY[node.op].elementwise:
                for j in node.inputs:
                    if graph[j].kind == GRADIENT and _broadcasts(graph[j].shape, shape):
                        stack.append(j)
        return None
