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

import re
from dataclasses import dataclass, field

import numpy as np

from gradcli.core.executor import exec_inputs, run
from gradcli.core.graph import CONST_OP, GRADIENT, INPUT_OP, Graph, is_float
from gradcli.core.ops import REGISTRY, ZERO_GRAD, Behavior
from gradcli.core.printing import _number, expression

NON_FINITE = "non_finite"
FORWARD = "forward"
WHERE_TRAP = "where_trap"
SINGULAR = "singular_derivative"
PROPAGATED = "propagated"
OVERFLOW = "overflow"
ORIGINS = (WHERE_TRAP, SINGULAR, PROPAGATED, OVERFLOW, FORWARD)
MAX_INDICES = 10  # element indices listed per origin


@dataclass
class Origin:
    """Where a NaN/Inf was born (see the module docstring)."""

    origin: str  # one of ORIGINS
    node: int  # the forward node named: F for gradient origins, the source for forward ones
    culprit: int  # the node whose value became non-finite (a gradient or forward node)
    indices: list[list[int]]  # element indices of the culprit (at most MAX_INDICES)
    count: int  # how many of the culprit's elements became non-finite
    detail: str = ""
    summary: str = ""
    mask: int | None = None  # the where (or other masking op) of a where trap
    fix: str | None = None  # a safe rewrite, for where traps
    source: Origin | None = field(default=None, repr=False)  # forward origin of `propagated`


def non_finite(value) -> np.ndarray:
    """Boolean mask of the NaN and ±Inf elements (all False for integer and bool values)."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "fc":
        return np.zeros(arr.shape, bool)
    return ~np.isfinite(arr)


def has_non_finite(value) -> bool:
    """True when a value holds a NaN or an Inf."""
    return value is not None and bool(np.any(non_finite(value)))


class Diagnosis:
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

    # --- words ------------------------------------------------------------------------
    def text(self, i: int) -> str:
        node = self.graph[i]
        return expression(self.graph, i, depth=4) if node.op != INPUT_OP else node.name

    def entry(self, i: int) -> str:
        node = self.graph[i]
        return node.entry or node.name or node.label

    def operands(self, i: int, elements) -> str:
        """'x - 1 = 0' for the float operands of node i at the first of the elements."""
        node = self.graph[i]
        if np.shape(elements) != node.shape or not _elementwise(node):
            return ""
        first = tuple(np.argwhere(elements)[0]) if node.shape else ()
        parts = []
        for j in node.inputs:
            n = self.graph[j]
            if n.op == CONST_OP or not is_float(n.dtype) or not _broadcasts(n.shape, node.shape):
                continue
            v = np.broadcast_to(self.value(j), node.shape)[first]
            parts.append(f"{self.text(j)} = {_number(v)}")
        return ", ".join(dict.fromkeys(parts))

    def _describe_forward(self, origin: Origin, fresh) -> None:
        i = origin.node
        node = self.graph[i]
        at = at_elements(origin)
        value = value_words(self.value(i), fresh)
        if node.op == INPUT_OP:
            origin.detail = f"the input {node.name} holds {value}{at}"
        elif node.op == CONST_OP:
            origin.detail = f"the constant {self.text(i)} is {value}{at}"
        else:
            args = self.operands(i, fresh)
            # an empty reduction's -inf/inf is its identity, not an overflow
            overflow = (
                REGISTRY[node.op].overflows
                and not self._pole(i, fresh)
                and all(np.size(self.value(j)) for j in node.inputs)
            )
            how = "overflows to" if overflow and "nan" not in value else "gives"
            origin.detail = f"{self.text(i)} {how} {value}{at}" + (f" ({args})" if args else "")
        origin.summary = (
            f"the input {node.name} is {value}"
            if node.op == INPUT_OP
            else f"{self.text(i)} in {self.entry(i)} is {value}"
        )

    def _describe_gradient(self, origin: Origin, m: int, elements, shown) -> None:
        f = origin.node
        text, at = self.text(f), at_elements(origin)
        args = self.operands(f, elements)
        local = value_words(self.value(origin.culprit), shown)  # the culprit's own value
        gradient = value_words(self.value(m), elements)
        if origin.origin == WHERE_TRAP:
            mask = origin.mask
            origin.fix = self.fix(mask, f)
            masked = f"{self.text(mask)} in {self.entry(mask)} passes no gradient to {text}{at}"
            if origin.culprit == m:
                why = f"the derivative of {text} there is {local}"
            else:  # the rule reads a non-finite forward value (exp's gradient reads exp(x))
                why = f"the gradient of {text} reads {self.text(origin.culprit)} = {local} there"
            origin.detail = (
                f"{masked}, but {why}"
                + (f" ({args})" if args else "")
                + f", and 0 * {local} = nan"
                + (
                    f"; make the unselected side safe: {origin.fix}"
                    if origin.fix
                    else f"; give {text} a safe input where it is masked away"
                )
            )
            origin.summary = (
                f"a where trap: {self.text(mask)} in {self.entry(mask)} masks {text} away"
                f"{at}, but not its non-finite derivative"
            )
        elif origin.origin == PROPAGATED:
            src = origin.source
            read = self.text(origin.culprit)
            value = value_words(self.value(origin.culprit), self.bad(origin.culprit))
            if self.seed_of(origin.culprit) is not None:
                name = self.graph[origin.node].name
                origin.detail = f"grad_ys for {name} is {value}{at}, so the gradient is {gradient}"
                origin.summary = f"grad_ys for {name} is {value}"
                return
            origin.detail = (
                f"the gradient through {text} is {gradient}{at}: it reads the forward value "
                f"{read} = {value}" + (f"; forward origin: {src.detail}" if src else "")
            )
            origin.summary = (
                f"the gradient through {text} in {self.entry(f)} reads {read} = {value}"
            )
        elif origin.origin == SINGULAR:
            origin.detail = f"the derivative of {text}{at} is {local} at the point itself" + (
                f" ({args})" if args else ""
            )
            if self.upstream_zero(f, m, elements):
                origin.detail += f"; the gradient reaching it there is 0, and 0 * {local} = nan"
            origin.summary = f"the derivative of {text} in {self.entry(f)} is {local}"
        else:
            origin.detail = (
                f"the gradient of {text} overflows to {local}{at} (computing {self.text(m)} "
                "from finite values)"
            )
            origin.summary = f"the gradient of {text} in {self.entry(f)} overflows"

    def fix(self, mask: int, f: int) -> str | None:
        """where(c, log(where(c, x, 1)), 0) for a where trap whose side is F itself."""
        graph = self.graph
        w = graph[mask]
        fn = graph[f]
        if w.op != "where" or f not in w.inputs[1:] or not fn.inputs:
            return None
        k = REGISTRY[fn.op].pole_input
        if k is None and len(fn.inputs) == 1:
            k = 0  # a unary op is made safe by its only input
        if k is None:
            return None  # only a unary op, a divisor or a base can be made safe by its input
        slot = 1 if w.inputs[1] == f else 2
        arg = fn.inputs[k]
        cond = self.text(w.inputs[0])
        a = self.text(arg)
        safe = f"where({cond}, {a}, 1)" if slot == 1 else f"where({cond}, 1, {a})"
        alone = rf"(?<![\w.]){re.escape(a)}(?![\w.])"
        inner, found = re.subn(alone, safe, self.text(f), count=1)
        if not found:
            return None
        sides = [self.text(w.inputs[1]), self.text(w.inputs[2])]
        sides[slot - 1] = inner
        return f"where({cond}, {sides[0]}, {sides[1]})"


def _elementwise(node) -> bool:
    """True when every input of node broadcasts to its shape, element for element."""
    op = REGISTRY[node.op]
    return op.elementwise and op.behavior not in (Behavior.BRANCH, Behavior.CUSTOM)


def _broadcasts(small: tuple, shape: tuple) -> bool:
    try:
        return np.broadcast_shapes(small, shape) == shape
    except ValueError:
        return False


def element_indices(mask) -> tuple[list[list[int]], int]:
    where = np.argwhere(mask)
    return [[int(k) for k in row] for row in where[:MAX_INDICES]], len(where)


def at_elements(origin: Origin) -> str:
    """' at element [1]', ' at elements [0], [2]', '' for a scalar."""
    if origin.indices == [[]]:
        return ""
    shown = ", ".join(str(ix) for ix in origin.indices)
    more = origin.count - len(origin.indices)
    tail = f" and {more} more" if more > 0 else ""
    return f" at element{'s' * (origin.count != 1)} {shown}{tail}"


def value_words(value, mask) -> str:
    """'nan', '-inf', 'inf and nan': the non-finite values at the masked elements."""
    arr = np.broadcast_to(np.asarray(value), np.shape(mask))[mask]
    kinds = dict.fromkeys(_number(v) for v in arr if not np.isfinite(v))
    return " and ".join(sorted(kinds, key=["-inf", "inf", "nan"].index))
