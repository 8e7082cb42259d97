"""Causes in words: the detail and summary of each cut or finding, and a pair's one-line reason.

`detail` is a standalone sentence for one cause (JSON and the table's cause list);
`summary` is the clause a reason is built from ("stop_gradient in z (line 7)").
"""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import BODY_GRADIENT, COND_OP, COND_SOURCE, Graph
from gradcli.core.ops import REGISTRY, AttrKind, Behavior, Transport
from gradcli.core.printing import expression
from gradcli.explain.numeric_zeros import (
    CANCELLATION,
    INACTIVE,
    MASK,
    UNDERFLOW,
    UNSELECTED,
    ZERO_UPSTREAM,
    Finding,
)
from gradcli.explain.report import CauseKind, Status
from gradcli.explain.structural_cuts import Cut

NO_PATH, STOP_GRADIENT, INTEGER = CauseKind.NO_PATH, CauseKind.STOP_GRADIENT, CauseKind.INTEGER
NON_DIFFERENTIABLE, UNTAKEN_BRANCH = CauseKind.NON_DIFFERENTIABLE, CauseKind.UNTAKEN_BRANCH
LEAVES_TAPE, NOT_WATCHED, OUTSIDE_TAPE = (
    CauseKind.LEAVES_TAPE,
    CauseKind.NOT_WATCHED,
    CauseKind.OUTSIDE_TAPE,
)

# a kink op's inactive region, when its record has no words of its own
INACTIVE_WORDS = (
    "{text} passes no gradient at {count}",
    "{op} in {entry} {line} is inactive there",
)
MORE = 3  # causes named in one reason before "and N more"


class Words:
    """What wording needs to know: the graph, forward values, and entry names and lines."""

    def __init__(self, problem, values: dict, entry_of, line_of):
        self.problem = problem
        self.graph: Graph = problem.graph
        self.values = values
        self.entry_of = entry_of
        self.line_of = line_of

    def value(self, i: int) -> np.ndarray:
        if i not in self.values:
            from gradcli.core.executor import run

            self.values.update(run(self.graph, [i], known=self.values, keep=True))
        return np.asarray(self.values[i])

    def text(self, i: int, depth: int = 2) -> str:
        return expression(self.graph, i, depth=depth)

    def where(self, i: int) -> str:
        entry = self.entry_of(i)
        line = self.line_of(entry)
        return f"{entry} (line {line})" if line is not None else entry

    def arg(self, i: int) -> str:
        """An operand as the reader knows it: its name, or its expression."""
        node = self.graph[i]
        return node.name if node.name is not None else self.text(i)

    # --- structural cuts -----------------------------------------------------------------
    def cut(self, cut: Cut) -> tuple[str, str, str]:
        """(kind, detail, summary) of a cut edge."""
        g = self.graph
        node, operand = g[cut.node], g[cut.operand]
        arg, where = self.arg(cut.operand), self.where(cut.node)
        op = node.op
        record = REGISTRY[op]
        if record.cut_words is not None:
            fields = {**node.attrs, "arg": arg, "where": where}
            kind, detail, summary = (str(t).format(**fields) for t in record.cut_words)
            return kind, detail, summary
        if op == COND_OP and cut.slot in (1, 2) and cut.slot != node.attrs.get("taken"):
            return self._untaken(cut, arg, where)
        if record.behavior is Behavior.CUSTOM:
            fn = node.attrs["function"]
            params = self.problem.source.functions[fn].params
            param = params[cut.slot] if cut.slot < len(params) else f"argument {cut.slot + 1}"
            return (
                NON_DIFFERENTIABLE,
                f"the custom gradient of {fn} is null for its parameter {param} ({arg})",
                f"the null custom gradient of {fn} in {where}",
            )
        is_cast = any(a.kind is AttrKind.DTYPE for a in record.attrs)
        if is_cast and node.dtype != operand.dtype and not _is_float(node.dtype):
            return (
                INTEGER,
                f"cast({arg}, '{node.dtype}') makes {_article(node.dtype)} {node.dtype} "
                "tensor, which carries no gradient",
                f"a cast to {node.dtype} in {where}",
            )
        if not _is_float(operand.dtype):
            return (
                INTEGER,
                f"{arg} is {operand.dtype}: integer and boolean tensors carry no gradient",
                f"the {operand.dtype} tensor {arg} in {where}",
            )
        if record.behavior is Behavior.CUT and node.dtype == "bool":
            text = self.text(cut.node)
            return (
                NON_DIFFERENTIABLE,
                f"{text} is a comparison ({op}): it has no gradient",
                f"the comparison {text} in {where}",
            )
        if record.behavior is Behavior.CUT:
            return (
                NON_DIFFERENTIABLE,
                f"{self.text(cut.node)}: {op} is not differentiable, it has no gradient",
                f"{op} in {where}",
            )
        if not _is_float(node.dtype):
            return (
                INTEGER,
                f"{self.text(cut.node)} is {node.dtype}: integer and boolean tensors carry "
                "no gradient",
                f"the {node.dtype} result of {op} in {where}",
            )
        return (NON_DIFFERENTIABLE, f"{op} passes no gradient to {arg}", f"{op} in {where}")

    def _untaken(self, cut: Cut, arg: str, where: str) -> tuple[str, str, str]:
        node = self.graph[cut.node]
        if node.attrs.get(COND_SOURCE):  # a Python if of TensorFlow code
            source = node.attrs[COND_SOURCE]
            taken = "true" if node.attrs.get("taken") == 1 else "false"
            branch = "false" if taken == "true" else "true"
            return (
                UNTAKEN_BRANCH,
                f"`{source}` took its {taken} branch; its {branch} branch never ran, so the "
                "tensors only that branch uses get no gradient",
                f"the untaken {branch} branch of `{source}` in {where}",
            )
        pred = node.inputs[0]
        truth = "true" if bool(self.value(pred).reshape(())) else "false"
        shown = self.text(pred)
        operands = self._scalar_operands(pred)
        value = f"{shown} is {truth}" + (f", {operands}" if operands else "")
        branch = "true" if cut.slot == 1 else "false"
        taken = "false" if cut.slot == 1 else "true"
        return (
            UNTAKEN_BRANCH,
            f"cond took the {taken} branch because {value}; the {branch} branch "
            f"({self.text(node.inputs[cut.slot])}) gets no gradient",
            f"the untaken {branch} branch of cond in {where}: {value}",
        )

    def _scalar_operands(self, pred: int) -> str:
        """'x = -1' for the named scalar operands of a comparison predicate."""
        node = self.graph[pred]
        operator = REGISTRY[node.op].operator
        if operator is None or not operator.comparison:
            return ""
        shown = []
        for k in node.inputs:
            n = self.graph[k]
            if n.name is not None and n.size == 1:
                shown.append(f"{n.name} = {_number(self.value(k).reshape(())[()])}")
        return ", ".join(shown)

    # --- numeric findings -----------------------------------------------------------------
    def finding(self, f: Finding) -> tuple[str, str]:
        """(detail, summary) of a numeric finding."""
        g = self.graph
        if f.kind == ZERO_UPSTREAM:
            return self._upstream(f)
        m = g[f.culprit]
        entry = self.entry_of(f.culprit)
        where = self.where(f.culprit)
        arg = self.arg(f.operand) if f.operand is not None else "the output"
        count = f"{f.blocked} of {f.total} elements" if f.total != 1 else "its only element"
        if f.kind == MASK:
            return self._mask(f, m, entry, arg)
        if f.kind == INACTIVE:
            return self._inactive(f, m, entry, arg, count)
        if f.kind == UNSELECTED:
            used = f.facts.get("used", 0)
            text = self.text(f.culprit)
            words = REGISTRY[m.op].unselected
            if words is not None:
                fields = {"text": text, "arg": arg, "count": f.blocked, "used": used,
                          "size": g[f.operand].size, "entry": entry,
                          "line": f"(line {self.line_of(entry)})"}  # fmt: skip
                return words[0].format(**fields), words[1].format(**fields)
            return (
                f"{text} uses {used} of {g[f.operand].size} elements of {arg}; "
                f"the other {f.blocked} get no gradient",
                f"{entry} uses only {text} (line {self.line_of(entry)})",
            )
        if f.kind == CANCELLATION:
            return self._cancellation(f, entry, where, arg)
        if f.kind == UNDERFLOW:
            return (
                f"the gradient flowing through {self.text(f.culprit)} to {arg} underflows to 0 "
                f"at {count}: nonzero upstream gradient times nonzero local derivative is "
                f"below the smallest {m.dtype}",
                f"the gradient underflows to 0 in {where}",
            )
        behavior = REGISTRY[m.op].behavior
        if behavior is Behavior.ZERO:
            return (
                f"{m.op}({arg}) has derivative 0 everywhere",
                f"{m.op} in {where} has derivative 0",
            )
        if behavior is Behavior.CUSTOM and m.attrs.get(BODY_GRADIENT):  # tf.py_function
            fn = m.attrs["function"]
            return (
                f"{fn}'s gradient is its body's, which is zero at {count}: TensorFlow gives "
                "zeros where the body does not reach the input (see the cut inside it)",
                f"the body of {fn} in {where} does not reach its input",
            )
        if behavior is Behavior.CUSTOM:
            fn = m.attrs["function"]
            return (
                f"the custom gradient of {fn} is zero at {count}",
                f"the custom gradient of {fn} in {where} is zero there",
            )
        return (
            f"the derivative of {self.text(f.culprit)} with respect to {arg} is zero at {count}",
            f"the derivative of {m.op} in {where} is zero there",
        )

    def _upstream(self, f: Finding) -> tuple[str, str]:
        name = self.entry_of(f.culprit)
        if f.total == 1:
            return (f"grad_ys for {name} is 0", f"grad_ys for {name} is 0")
        return (
            f"grad_ys for {name} is zero at {f.blocked} of {f.total} elements",
            f"grad_ys for {name} is zero there",
        )

    def _mask(self, f: Finding, m, entry: str, arg: str) -> tuple[str, str]:
        op = REGISTRY[m.op]
        if op.mask_words is not None:  # an op that drops elements itself (dropout)
            count = f"{f.blocked} of {f.total} elements" if f.total != 1 else "its only element"
            line = f"(line {self.line_of(entry)})"
            fields = {**m.attrs, "op": m.op, "arg": arg, "text": self.text(f.culprit),
                      "count": count, "entry": entry, "line": line}  # fmt: skip
            return tuple(t.format(**fields) for t in op.mask_words)
        if op.zeros is Transport.CONTRACTION:
            other = f.facts["other"]
            zeros, size = f.facts["other_zeros"], f.facts["other_size"]
            return (
                f"{self.text(f.culprit)} multiplies {arg} by {self.arg(other)} (matmul), "
                f"which has {zeros} zeros in {size} elements",
                f"{entry} multiplies {arg} by {self.arg(other)}, whose zeros block it there",
            )
        if not op.elementwise:  # prod, cumprod: a product over a row
            return (
                f"the other factors of {self.text(f.culprit)} include zeros "
                f"({f.blocked} of {f.total} elements get no gradient)",
                f"the other factors of {m.op} in {entry} include zeros",
            )
        other = m.inputs[1 - f.slot] if f.slot in (0, 1) else m.inputs[0]
        zeros = int(np.count_nonzero(np.broadcast_to(self.value(other) == 0, m.shape)))
        which = "which is 0" if m.size == 1 else f"which is zero at {zeros} of {m.size} elements"
        return (
            f"{entry} multiplies {arg} by {self.arg(other)}, {which}",
            f"{entry} multiplies {arg} by {self.arg(other)}, which is zero there",
        )

    def _inactive(self, f: Finding, m, entry: str, arg: str, count: str) -> tuple[str, str]:
        """Words for a kink op's inactive region, from its record's templates (Op.inactive)."""
        words = REGISTRY[m.op].inactive or INACTIVE_WORDS
        detail, summary = words(m) if callable(words) else words
        fields = {
            "op": m.op,
            "arg": arg,
            "text": self.text(f.culprit),
            "count": count,
            "entry": entry,
            "line": f"(line {self.line_of(entry)})",
            "side": "false" if f.slot == 1 else "true",  # where: the side not selected
        }
        if "{cond}" in detail + summary:
            fields["cond"] = self.text(m.inputs[0])
        return detail.format(**fields), summary.format(**fields)

    def _cancellation(self, f: Finding, entry: str, where: str, arg: str) -> tuple[str, str]:
        if f.facts.get("broadcast"):
            return (
                f"the gradient of {self.text(f.culprit)} sums to zero over the elements {arg} "
                "is broadcast to",
                f"the gradient of {entry} sums to zero over the broadcast copies of {arg}",
            )
        op = REGISTRY[self.graph[f.culprit].op]
        if f.facts.get("conv"):  # nonzero products of a convolution summed to zero
            return (
                f"the nonzero products behind the gradient of {self.text(f.culprit)} for {arg} "
                "sum to zero",
                f"the products of {self.graph[f.culprit].op} in {where} cancel",
            )
        if f.facts.get("matmul") or op.zeros is Transport.CONTRACTION or op.cancels:
            return (
                f"the terms of the gradient of {self.text(f.culprit)} for {arg} cancel",
                f"the terms of the gradient of {self.graph[f.culprit].op} in {where} cancel",
            )
        consumers = sorted(set(f.facts.get("consumers", [])))
        paths = [self.text(c) for c in consumers[:MORE]]
        through = " and ".join(paths) if paths else "several paths"
        if len(consumers) == 1:  # one op using arg twice, as in y - y
            through = f"both operands of {paths[0]}"
        terms = f.facts.get("terms")
        sums = ""
        if terms:
            sums = " (" + " + ".join(_number(v) for v in terms) + " = 0)"
        entries = {self.entry_of(c) for c in consumers}
        if len(entries) > 1:  # paths from different entries meet at arg: name them
            paths = [f"{self.text(c)} in {self.where(c)}" for c in consumers[:MORE]]
            return (
                f"the gradients reaching {arg} through {' and '.join(paths)} cancel{sums}",
                f"the gradients reaching {arg} through {' and '.join(paths)} cancel",
            )
        return (
            f"the gradients reaching {arg} through {through} cancel{sums}",
            f"the gradients through {through} cancel in {where}",
        )


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _is_float(dtype: str) -> bool:
    return dtype in ("float32", "float64")


def _number(v) -> str:
    from gradcli.core.printing import _number as number

    return number(v)


def reason(pair) -> str | None:
    """One plain-language line saying why a pair is None or (partly) zero; None if it is fine."""
    if pair.status == Status.CONNECTED or not pair.causes:
        return None
    if pair.status == "non_finite":
        from gradcli.explain.eval_warnings import reason as non_finite_reason

        return non_finite_reason(pair)
    x, y, causes = pair.input, pair.output, pair.causes
    first = causes[0]
    if pair.status == Status.UNCONNECTED:
        if first.kind == NO_PATH and first.op is None:
            return f"{y} does not use {x} at all: {first.detail}"
        if first.kind == INTEGER and first.op is None:
            return first.detail
        if len(causes) == 1:
            if first.kind == UNTAKEN_BRANCH:
                return f"{x} reaches {y} only through {first.summary}"
            which = "the only path" if pair.single_path else "every path"
            return f"{which} from {x} to {y} goes through {first.summary}"
        return f"every path from {x} to {y} is cut: {_listed(causes)}"
    n, zeros = pair.elements, pair.zero_elements
    if pair.status == Status.ZERO:
        head = "the gradient is zero" if n == 1 else f"all {n} elements are zero"
    else:
        head = f"{zeros} of {n} elements {'is' if zeros == 1 else 'are'} zero"
    numeric = [c for c in causes if c.elements]
    if all(c.elements == zeros for c in numeric):
        text = f"{head} because " + "; and because ".join(c.summary for c in numeric[:MORE])
        if len(numeric) > MORE:
            text += f"; and {len(numeric) - MORE} more causes"
    else:
        text = f"{head}: " + "; ".join(f"{c.elements} because {c.summary}" for c in numeric[:MORE])
        if len(numeric) > MORE:
            text += f"; and {len(numeric) - MORE} more causes"
    cuts = [c for c in causes if not c.elements]
    if cuts:
        text += f"; other paths are cut: {_listed(cuts)}"
    return text


def _listed(causes) -> str:
    text = "; ".join(c.summary for c in causes[:MORE])
    if len(causes) > MORE:
        text += f"; and {len(causes) - MORE} more"
    return text
