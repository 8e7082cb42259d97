"""NaN/Inf origins in words: the detail, summary and fix of each origin (see nonfinite.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from gradcli.core.graph import CONST_OP, INPUT_OP, is_float
from gradcli.core.ops import REGISTRY, Behavior
from gradcli.core.printing import _number, expression
from gradcli.explain.report import ORIGINS, CauseKind, OriginKind  # noqa: F401

NON_FINITE = CauseKind.NON_FINITE
FORWARD, WHERE_TRAP, SINGULAR = OriginKind.FORWARD, OriginKind.WHERE_TRAP, OriginKind.SINGULAR
PROPAGATED, OVERFLOW = OriginKind.PROPAGATED, OriginKind.OVERFLOW
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


def _elementwise(node) -> bool:
    """True when every input of node broadcasts to its shape, element for element."""
    op = REGISTRY[node.op]
    return op.elementwise and op.behavior not in (Behavior.BRANCH, Behavior.CUSTOM)


def _broadcasts(small: tuple, shape: tuple) -> bool:
    try:
        return np.broadcast_shapes(small, shape) == shape
    except ValueError:
        return False


class OriginWords:
    """The wording half of Diagnosis: reads its graph, values and adjoints."""

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
