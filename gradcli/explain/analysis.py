"""Why a gradient is None or (partly) zero: the analysis behind `gradcli explain` (numpy only).

Data model (the JSON of `gradcli explain`, schema 1, documented in docs/json.md):

- `Pair`: one (output y, input x) gradient dy/dx.
  - `status`: `connected` (every element nonzero), `partially_zero` (connected, some
    elements exactly 0), `zero` (connected, every element 0), `unconnected` (None).
  - `elements`, `zero_elements`: x's size and how many gradient elements are zero (all
    of them when unconnected).
  - `causes`: what cut or zeroed the gradient, most decisive first (empty when connected).
  - `paths`: the distinct chains of entry names from x to y its causes sit on (at most
    MAX_PATHS); a cause's `path` is an index into them and its `node` is the marked
    culprit on that path.
  - `reason`: one plain-language line built from the causes.
- `Cause`: `kind`, `node` (the graph entry or input whose expression holds the culprit),
  `line` (that entry's spec line), `detail` (one sentence: the op, the predicate and its
  value, the operand and its zero count...), `op` (the culprit op), `elements` (how many
  zero elements of dy/dx it explains; null for cuts), `path`, `location` (the op's own
  FILE:LINE:COL, which may be inside a function body).
  - Structural kinds (from cuts.py, the gradient is None): `no_path`, `stop_gradient`,
    `non_differentiable`, `untaken_branch`, `integer`.
  - Numeric kinds (from zeros.py, connected with zeros): `mask`, `inactive`,
    `zero_upstream`, `cancellation` (nonzero contributions summing to exactly 0),
    `zero_derivative` (a local derivative that is 0, e.g. sign, or square at 0),
    `unselected` (elements an index or slice never reads), `underflow` (a nonzero
    gradient times a nonzero derivative rounded to 0).

  - `non_finite` (from nonfinite.py, status `non_finite`: the gradient or the output
    holds NaN or Inf), listed first, with the extra fields `origin` (`forward`,
    `where_trap`, `singular_derivative`, `propagated`, `overflow`), `indices` and `fix`.

Extending it: add the constant, let a pass append Causes to `Pair.causes` (sorted most
decisive first) and set the status in `_pair`, and give `reasons.reason` a sentence for it.

Each analysis is a few loops over node ids plus one gradient build and one execution, so it
stays linear in the graph's size; nothing recurses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradcli.core.autodiff import gradients
from gradcli.core.executor import exec_inputs, resolve_conds, run
from gradcli.core.graph import is_float
from gradcli.core.ops import ZERO_GRAD
from gradcli.core.printing import entry_line
from gradcli.core.problem import Problem
from gradcli.explain.numeric_zeros import ZeroTrace
from gradcli.explain.report import STATUSES, Status  # noqa: F401
from gradcli.explain.scalar_zeros import ScalarPath
from gradcli.explain.structural_cuts import Reach, Sweep, gradient_slots, opens_body
from gradcli.explain.wording import INTEGER, NO_PATH, Words, reason
from gradcli.runtime.errors import GradcliError, Pos, did_you_mean
from gradcli.runtime.gcpause import paused

CONNECTED, PARTIALLY_ZERO, ZERO = Status.CONNECTED, Status.PARTIALLY_ZERO, Status.ZERO
UNCONNECTED, NON_FINITE = Status.UNCONNECTED, Status.NON_FINITE
FAST_PATH = ScalarPath  # one-element gradients on plain Python values (scalar_zeros.py)
MAX_PATHS = 10  # distinct paths listed per pair
PATH_TRIES = 40  # causes whose path is traced (each trace walks a path: keep it bounded)


@dataclass
class Cause:
    """One node that cut or zeroed a gradient (see the module docstring)."""

    kind: str
    node: str
    line: int | None
    detail: str
    summary: str = ""  # the clause reasons are built from
    op: str | None = None
    elements: int | None = None
    path: int | None = None
    location: Pos | None = None
    node_id: int | None = None
    extra: dict = field(default_factory=dict)  # kind-specific fields (non_finite: origin...)

    def where(self) -> str:
        """'line N', naming the file where it is another one than the script's ('' if none)."""
        if self.line is None:
            return ""
        other = self.extra.get("file")
        base = other.rpartition(":")[0].replace("\\", "/").rsplit("/", 1)[-1] if other else ""
        return f"line {self.line}" + (f" of {base}" if base else "")

    def at_line(self) -> str:
        """' at line N' (of another file), or '' when the cause has no line."""
        return f" at {self.where()}" if self.line is not None else ""

    def document(self) -> dict:
        """The cause as JSON data."""
        return {
            "kind": self.kind,
            "node": self.node,
            "line": self.line,
            "detail": self.detail,
            "op": self.op,
            "elements": self.elements,
            "path": self.path,
            "location": str(self.location) if self.location is not None else None,
            **self.extra,
        }


@dataclass
class Pair:
    """The gradient of one output with respect to one input, and why it is None or zero."""

    output: str
    input: str
    status: str
    elements: int
    zero_elements: int
    causes: list[Cause] = field(default_factory=list)
    paths: list[list[str]] = field(default_factory=list)
    single_path: bool = False  # x reaches y by exactly one chain of entries
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == CONNECTED

    def document(self) -> dict:
        """The pair as JSON data."""
        return {
            "output": self.output,
            "input": self.input,
            "status": self.status,
            "elements": self.elements,
            "zero_elements": self.zero_elements,
            "reason": self.reason,
            "causes": [c.document() for c in self.causes],
            "paths": self.paths,
        }


def explain(problem: Problem, output: str | None = None) -> list[Pair]:
    """One Pair per (output, target): every output of the problem, or the named entry."""
    graph = problem.graph
    if output is None:
        chosen = list(zip(problem.outputs, problem.seeds))
    else:
        if output not in graph.names or graph.node(output).kind == "input":
            entries = [graph[i].name for i in graph.entries]
            raise GradcliError(
                f"--output names '{output}', which is not a graph entry"
                f"{did_you_mean(output, entries)}"
            )
        y = graph.names[output]
        seeds = dict(zip(problem.outputs, problem.seeds))
        chosen = [(y, seeds.get(y))]
    pairs: list[Pair] = []
    for y, seed in chosen:
        pairs += Analysis(problem, [y], [seed]).pairs(problem.wrt)
    return pairs


def explain_sum(problem: Problem, targets: list[int]) -> dict[int, Pair]:
    """Pairs for d(sum of the outputs, weighted by grad_ys)/dx: what `gradcli eval` reports."""
    analysis = Analysis(problem, problem.outputs, problem.seeds)
    return dict(zip(targets, analysis.pairs(targets)))


class Analysis:
    """Everything about one set of outputs (summed, weighted by their seeds)."""

    def __init__(self, problem: Problem, outputs: list[int], seeds):
        problem = problem.scratch()  # gradient nodes of its own, outside the user's graph
        self.problem = problem
        self.graph = problem.graph
        self.outputs = outputs
        self.seeds = seeds
        names = [self.graph[y].name for y in outputs]
        self.label = names[0] if len(names) == 1 else "the outputs"
        self.values: dict = {}
        resolve_conds(self.graph, outputs, self.values)
        self.reach = Reach(self.graph, outputs, gradient_slots(problem))
        self.words = Words(problem, self.values, self.entry_of, self.line_of)
        self.trace: ZeroTrace | None = None

    def entry_of(self, i: int) -> str:
        node = self.graph[i]
        return node.entry or node.name or node.label

    def line_of(self, name: str | None) -> int | None:
        return entry_line(self.problem, name)

    def pairs(self, targets: list[int]) -> list[Pair]:
        graph = self.graph
        wanted = [x for x in targets if self.reach.depends_on(x) and is_float(graph[x].dtype)]
        with paused(lasting=True):  # builds and labels a node per graph node: see gcpause.py
            self.grads = gradients(graph, self.outputs, wanted, self.seeds, record=True)
            self.results = dict(zip(wanted, self.grads.results))
            ids = [r for r in self.grads.results if isinstance(r, int)]
            self.values.update(run(graph, ids, known=self.values, keep=True))
            return [self._pair(x) for x in targets]

    # --- one pair ---------------------------------------------------------------------
    def _pair(self, x: int) -> Pair:
        """The pair for input x: its status, and its causes collected by the passes below."""
        node = self.graph[x]
        pair = Pair(self.label, node.name or node.label, UNCONNECTED, node.size, node.size)
        # Each pass appends Causes to pair.causes (most decisive first) and sets the status;
        # a new kind of cause (issue 8: non_finite) gets a pass of its own here.
        if not self.reach.depends_on(x):
            self._no_path(pair, x)
        elif not is_float(node.dtype):
            self._integer(pair, x)
        elif self.results.get(x) is None:
            self._cuts(pair, x)
        else:
            self._connected(pair, x)
            self._non_finite(pair, x)
        pair.reason = reason(pair)
        return pair

    def _no_path(self, pair: Pair, x: int) -> None:
        """x is not among the inputs the output depends on at all."""
        deps = self.reach.inputs()
        detail = (
            f"{self.label} depends only on {', '.join(deps)}"
            if deps
            else f"{self.label} depends on no input"
        )
        dropped = self.problem.source.no_path.get(pair.input)
        if dropped is not None:  # the front end knows the line that dropped (or cut) it
            pos, clause, *cut = dropped
            text = f"{clause}; {detail}"
            kind = cut[0] if cut else NO_PATH
            cause = Cause(kind, self.entry_of(x), pos.line, text, text, location=pos)
            pair.causes.append(cause)
            return
        pair.causes.append(self._at_input(NO_PATH, x, detail))

    def _integer(self, pair: Pair, x: int) -> None:
        """x itself is an int or bool tensor."""
        detail = (
            f"{pair.input} is {self.graph[x].dtype}: integer and boolean tensors carry no gradient"
        )
        cause = self._at_input(INTEGER, x, detail)
        pair.causes.append(cause)
        self._add_path(pair, cause, Sweep(self.reach, x).path(x))

    def _cuts(self, pair: Pair, x: int) -> None:
        """The gradient is None: every border cut (value cuts before predicate-only ones)."""
        sweep = Sweep(self.reach, x)
        cuts = sweep.cuts()
        cuts = [c for c in cuts if not c.control] or cuts
        for cut in cuts:
            self._add_cut(pair, sweep, cut)
        pair.single_path = sweep.path_count(self.entry_of) == 1

    def _at_input(self, kind: str, x: int, detail: str) -> Cause:
        name = self.entry_of(x)
        return Cause(kind, name, self.line_of(name), detail, detail, location=self.graph[x].pos)

    def _add_cut(self, pair: Pair, sweep: Sweep, cut) -> None:
        kind, detail, summary = self.words.cut(cut)
        culprit = self.graph[cut.node]
        name = self.entry_of(cut.node)
        cause = Cause(
            kind, name, self.line_of(name), detail, summary, culprit.op,
            location=culprit.pos, node_id=cut.node,
        )  # fmt: skip
        pair.causes.append(cause)
        if len(pair.causes) <= PATH_TRIES:
            self._add_path(pair, cause, sweep.path(cut.operand, cut.node))

    def _add_path(self, pair: Pair, cause: Cause, nodes: list[int]) -> None:
        names: list[str] = []
        for i in nodes:
            name = self.entry_of(i)
            if not names or names[-1] != name:
                names.append(name)
        if names not in pair.paths:
            if len(pair.paths) >= MAX_PATHS:
                return
            pair.paths.append(names)
        cause.path = pair.paths.index(names)

    def _connected(self, pair: Pair, x: int) -> None:
        """Connected: count the zero elements and attribute each to the node that made it."""
        node = self.graph[x]
        g = self.results[x]
        value = np.zeros(()) if g is ZERO_GRAD else np.asarray(self.values[g])
        zero = int(np.count_nonzero(np.broadcast_to(value == 0, node.shape)))
        pair.zero_elements = zero
        if zero == 0:
            pair.status = CONNECTED
            return
        pair.status = ZERO if zero == node.size else PARTIALLY_ZERO
        trace = self._trace()
        _, per = trace.counts(x)
        sweep = Sweep(self.reach, x)
        # the most elements first, then the op nearest the output (made last) first: the
        # rule the run mode follows too (capture/diagnosis_gradients.py)
        order = sorted(per, key=lambda f: (-per[f], -trace.findings[f].culprit, f))
        for f in order:
            finding = trace.findings[f]
            detail, summary = self.words.finding(finding)
            culprit = self.graph[finding.culprit]
            name = self.entry_of(finding.culprit)
            line, location, op = self.line_of(name), culprit.pos, culprit.op
            if finding.kind == "zero_upstream":
                location = self._grad_ys_pos(name) or location
                line, op = location.line, None
            elif finding.kind == "cancellation" and finding.slot is None:
                op = None  # a sum of paths, not one op
            cause = Cause(
                finding.kind, name, line, detail, summary, op,
                elements=per[f], location=location, node_id=finding.culprit,
            )  # fmt: skip
            pair.causes.append(cause)
            if len(pair.causes) <= PATH_TRIES:
                through = finding.operand if finding.operand is not None else finding.culprit
                consumer = finding.culprit if finding.operand is not None else None
                if through == finding.culprit:
                    consumer = None
                self._add_path(pair, cause, sweep.path(through, consumer))
        found = len(pair.causes)
        for cut in sweep.cuts():
            if not cut.control:
                self._add_cut(pair, sweep, cut)
        if len(pair.causes) > found:
            # a tf.py_function's zeros come from its body: the cut inside it names them first
            body = [c for c in pair.causes[:found] if opens_body(self.graph[c.node_id])]
            if body:
                pair.causes[:] = [c for c in pair.causes if c not in body] + body

    def _non_finite(self, pair: Pair, x: int) -> None:
        """NaN/Inf in the outputs or in dy/dx: status non_finite, origins first among the causes."""
        from gradcli.explain.nonfinite import Diagnosis

        if getattr(self, "diagnosis", None) is None:  # one per analysis: it caches masks
            self.diagnosis = Diagnosis(self.graph, self.values, self.grads.adjoints)
        found = self.diagnosis.pair(self.outputs, self.results[x])
        if not found:
            return
        pair.status = NON_FINITE
        causes = []
        for o in found:
            node = self.graph[o.node]
            name = self.entry_of(o.node)
            extra = {"origin": o.origin, "indices": o.indices, "fix": o.fix}
            causes.append(
                Cause(
                    NON_FINITE,
                    name,
                    self.line_of(name),
                    f"{o.origin}: {o.detail}",
                    o.summary,
                    node.op,
                    elements=o.count,
                    location=node.pos,
                    node_id=o.node,
                    extra=extra,
                )
            )
        pair.causes[:0] = causes

    def _grad_ys_pos(self, name: str) -> Pos | None:
        return self.problem.source.seed_positions.get(name)

    def _trace(self) -> ZeroTrace:
        """The zero labels of every gradient on the path (computed once, when first needed)."""
        if self.trace is None:
            graph, grads = self.graph, self.grads
            need = {r for r in grads.adjoints.values() if isinstance(r, int)}
            for m, _, _, r in grads.edges:
                need.add(m)
                need.update(exec_inputs(graph[m]))
                if isinstance(r, int):
                    need.add(r)
            need.difference_update(self.values)
            if need:
                self.values.update(run(graph, sorted(need), known=self.values, keep=True))
            self.trace = ZeroTrace(graph, grads, self.values, self.seeds, FAST_PATH)
            self.trace.run()
        return self.trace
