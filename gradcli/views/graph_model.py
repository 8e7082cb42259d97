"""The data of `gradcli graph`: one traversal that every renderer formats.

collect() resolves conds, optionally builds the gradient graph for the problem's targets,
and returns a GraphView: nodes with stable ids, readable labels and markings (taken from
node.diff, the op's behaviour and the conds' taken branches), and edges marked where the
gradient is cut. The renderers (graphtree: a Rich tree; graphexport: DOT, Mermaid, JSON)
read only this data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradcli.core.autodiff import gradients
from gradcli.core.executor import resolve_conds, run
from gradcli.core.graph import (
    COND_OP,
    CONST_OP,
    CUSTOM_OP,
    INPUT_OP,
    Graph,
    Node,
    custom_arity,
    is_float,
)
from gradcli.core.ops import BRANCH, CUSTOM, CUT, REGISTRY, STOP, ZERO, ZERO_GRAD
from gradcli.core.problem import Problem
from gradcli.explain.report import Status
from gradcli.views.format import compact, dims

KNOWN_ZERO = "zero"  # a gradient marker: connected, and known to be zero (no node)
LABEL_WIDTH = 40  # longer expression labels are shortened with "..."
OPERAND_WIDTH = 32  # a longer operand is named by its id (add#7) inside other labels
INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "matmul": "@"}
INFIX.update(less="<", less_equal="<=", greater=">", greater_equal=">=", equal="==")
INFIX.update(not_equal="!=")
HIDDEN_ATTRS = ("value", "grad", "taken", "function")
NOT_EVALUATED = object()  # the value of a node in an untaken cond branch

# Node markings (JSON "marks"; the renderers add colours and symbols)
TRAINABLE, CONSTANT, INTEGER, WRT = "trainable", "constant", "integer", "wrt"
STOPS, NO_GRADIENT, ZERO_GRADIENT = "stop_gradient", "no_gradient", "zero_gradient"
CUSTOM_GRADIENT, TOOK_TRUE, TOOK_FALSE = "custom_gradient", "took_true", "took_false"
UNTAKEN, UNUSED, OUTPUT = "untaken", "unused", "output"
# Reasons an edge is cut (the source is a float tensor, yet no gradient flows along it)
EDGE_STOP, EDGE_NO_GRADIENT, EDGE_UNTAKEN = "stop_gradient", "no_gradient", "untaken_branch"
EDGE_CUSTOM, EDGE_UNRESOLVED = "custom_gradient", "not_evaluated"


@dataclass
class ViewNode:
    """One node as the renderers see it."""

    index: int  # the graph node id (topological position)
    id: str  # stable across runs: the spec name, or op#index
    op: str
    shape: tuple[int, ...]
    dtype: str
    line: int | None  # spec line; a gradient node gets the line of the node whose rule built it
    kind: str  # "input", "forward" or "gradient"
    name: str | None
    label: str  # readable: the spec name, the expression it computes, or grad(...)
    marks: list[str]
    attrs: dict[str, str]  # attributes as text (axis, keepdims, shape, index ...)
    inputs: tuple[int, ...]
    origin: str | None = None  # for gradient nodes: the id of the node whose rule built it
    value: object = None  # filled by collect(values=True); NOT_EVALUATED when not computed
    # with --grad: (target name, explain's cause kind) for each None or zero gradient that
    # `gradcli explain` blames on this node
    causes: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class ViewEdge:
    """An input of a node: source feeds target's input slot; cut names why no gradient flows."""

    source: int
    target: int
    slot: int
    cut: str | None


@dataclass
class GraphFinding:
    """What `gradcli explain` says about one gradient (of the outputs' weighted sum)."""

    status: str  # connected, partially_zero, zero or unconnected
    zero_elements: int
    elements: int
    reason: str | None


@dataclass
class GraphView:
    """Nodes (in topological order, by index), edges, outputs and gradient results."""

    nodes: dict[int, ViewNode]
    edges: list[ViewEdge]
    outputs: list[int]
    wrt: list[int]
    # per target name: the gradient's node index, KNOWN_ZERO (connected, known zero) or None
    gradients: dict[str, object] = field(default_factory=dict)
    # per target name, from explain's analysis: (status, zero elements, elements, reason)
    findings: dict[str, GraphFinding] = field(default_factory=dict)
    with_gradients: bool = False
    with_values: bool = False


def collect(
    problem: Problem, grad: bool = False, values: bool = False, explained: bool = False
) -> GraphView:
    """The view of a problem's forward graph, with its gradient graph when grad is True (and
    explain's causes on the nodes it blames with grad or explained)."""
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    first = len(graph)
    results: list = []
    adjoints: dict = {}
    if grad:
        g = gradients(graph, problem.outputs, problem.wrt, problem.seeds, record=True)
        results, adjoints = g.results, g.adjoints
    result_nodes = [r for r in results if isinstance(r, int)]
    resolve_conds(graph, result_nodes, known)
    included = graph.ancestors(result_nodes)
    for i in range(first):
        included[i] = 1
    reached = graph.ancestors(problem.outputs)
    executed = graph.ancestors([*problem.outputs, *result_nodes], _evaluated_inputs)
    names = _grad_names(graph, problem, first, results, adjoints)
    view = GraphView({}, [], list(problem.outputs), list(problem.wrt))
    view.with_gradients, view.with_values = grad, values
    labels: dict[int, tuple[str, bool]] = {}
    for i in range(len(graph)):
        if not included[i]:
            continue
        node = graph[i]
        labels[i] = _label(graph, node, labels, names)
        vn = ViewNode(
            index=i,
            id=node.label,
            op=node.op,
            shape=node.shape,
            dtype=node.dtype,
            line=_line(graph, node),
            kind="input" if node.op == INPUT_OP else ("forward" if i < first else "gradient"),
            name=node.name,
            label=labels[i][0],
            marks=_marks(graph, problem, node),
            attrs=_attrs(node),
            inputs=node.inputs,
            origin=graph[node.origin].label if node.origin is not None else None,
        )
        if i < first and not reached[i]:
            vn.marks.append(UNUSED)
        elif i < first and not executed[i] and node.op not in (INPUT_OP, CONST_OP):
            vn.marks.append(UNTAKEN)
        view.nodes[i] = vn
        view.edges.extend(
            ViewEdge(j, i, slot, _cut(graph, node, slot)) for slot, j in enumerate(node.inputs)
        )
    for x, r in zip(problem.wrt, results):
        view.gradients[graph[x].name] = KNOWN_ZERO if r is ZERO_GRAD else r
    if grad or explained:
        _explain(graph, problem, view)
    if values:
        evaluated = [i for i, vn in view.nodes.items() if UNTAKEN not in vn.marks]
        computed = run(graph, evaluated, known=known)
        for i, vn in view.nodes.items():
            vn.value = computed.get(i, NOT_EVALUATED)
    return view


def _explain(graph: Graph, problem: Problem, view: GraphView) -> None:
    """Mark the nodes explain blames for None or zero gradients, and keep its reasons."""
    from gradcli.explain.analysis import (
        explain_sum,  # builds its own gradients after the view's nodes
    )

    for x, pair in explain_sum(problem, list(problem.wrt)).items():
        name = graph[x].name
        view.findings[name] = GraphFinding(
            pair.status, pair.zero_elements, pair.elements, pair.reason
        )
        for cause in pair.causes:
            vn = view.nodes.get(cause.node_id if cause.node_id is not None else x)
            if vn is not None and (name, cause.kind) not in vn.causes:
                vn.causes.append((name, cause.kind))


STATUS_WORDS = {
    Status.UNCONNECTED: "None",
    Status.ZERO: "zero",
    Status.PARTIALLY_ZERO: "partly zero",
}


def why(view: GraphView, name: str) -> str:
    """The words for a cause marking: why grad(x) is None, zero or partly zero."""
    finding = view.findings.get(name)
    status = STATUS_WORDS.get(finding.status, "zero") if finding else "None"
    return f"why grad({name}) is {status}"


def _evaluated_inputs(node: Node) -> tuple[int, ...]:
    """The inputs computed for a node: a cond's predicate and its taken branch only."""
    if node.op == COND_OP:
        taken = node.attrs.get("taken")
        return node.inputs[:1] if taken is None else (node.inputs[0], node.inputs[taken])
    return node.inputs


def _grad_names(graph: Graph, problem: Problem, first: int, results, adjoints) -> dict:
    """Labels for gradient nodes that hold a whole gradient: grad(x) for targets, then adjoints."""
    names: dict[int, str] = {}
    for x, r in zip(problem.wrt, results):
        if isinstance(r, int) and r >= first and r not in names and graph[r].op != CONST_OP:
            names[r] = f"grad({graph[x].label})"
    for k in sorted(adjoints, reverse=True):  # nearest the outputs first
        g = adjoints[k]
        # constants are shared (the seed 1 may also be a literal 1 of a gradient rule)
        if isinstance(g, int) and g >= first and g not in names and graph[g].op != CONST_OP:
            names[g] = "grad(" + (graph[k].name or graph[k].label) + ")"
    return names


def _line(graph: Graph, node: Node) -> int | None:
    if node.pos is not None:
        return node.pos.line
    if node.origin is not None and graph[node.origin].pos is not None:
        return graph[node.origin].pos.line
    return None


def _marks(graph: Graph, problem: Problem, node: Node) -> list[str]:
    marks = []
    if node.id in problem.outputs:
        marks.append(OUTPUT)
    if node.op == INPUT_OP and node.name is not None:
        if not is_float(node.dtype):
            marks.append(INTEGER)
        else:
            marks.append(TRAINABLE if node.id in graph.trainable else CONSTANT)
    elif node.op == CONST_OP:
        marks.append(CONSTANT)
    if node.id in problem.wrt:
        marks.append(WRT)
    behavior = REGISTRY[node.op].behavior
    has_float_input = any(is_float(graph[j].dtype) for j in node.inputs)
    if behavior == STOP:
        marks.append(STOPS)
    elif behavior == CUT or (has_float_input and not is_float(node.dtype)):
        marks.append(NO_GRADIENT)
    elif behavior == ZERO:
        marks.append(ZERO_GRADIENT)
    elif behavior == CUSTOM:
        marks.append(CUSTOM_GRADIENT)
    elif behavior == BRANCH and node.attrs.get("taken") is not None:
        marks.append(TOOK_TRUE if node.attrs["taken"] == 1 else TOOK_FALSE)
    return marks


def _cut(graph: Graph, node: Node, slot: int) -> str | None:
    """Why no gradient flows from node back into input slot, or None when it does (or can't)."""
    if slot in node.diff or not is_float(graph[node.inputs[slot]].dtype):
        return None
    behavior = REGISTRY[node.op].behavior
    if behavior == STOP:
        return EDGE_STOP
    if behavior == BRANCH:
        return EDGE_UNRESOLVED if node.attrs.get("taken") is None else EDGE_UNTAKEN
    if behavior == CUSTOM:
        return EDGE_CUSTOM
    return EDGE_NO_GRADIENT


# --- readable labels ---------------------------------------------------------------------------


def _shorten(text: str) -> str:
    return text if len(text) <= LABEL_WIDTH else text[: LABEL_WIDTH - 3] + "..."


def _attr_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'"
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        parts = ["" if p is None else str(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if value.step is not None else "")
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    return str(value)


def _attrs(node: Node) -> dict[str, str]:
    return {k: _attr_text(v) for k, v in node.attrs.items() if k not in HIDDEN_ATTRS}


def _const_text(node: Node) -> str:
    arr = np.asarray(node.attrs["value"])
    if arr.size <= 4:
        return compact(arr)
    return f"const{dims(node.shape)}"


def _label(graph: Graph, node: Node, labels: dict, names: dict) -> tuple[str, bool]:
    """(readable label, whether it is an infix expression needing parentheses as an operand)."""
    if node.name is not None:
        return node.name, False
    if node.id in names:
        return names[node.id], False
    if node.op == CONST_OP:
        return _const_text(node), False
    if node.op == INPUT_OP:
        return node.label, False

    def arg(j: int) -> str:
        text = labels[j][0] if j in labels else graph[j].label
        return text if len(text) <= OPERAND_WIDTH else graph[j].label

    def operand(j: int) -> str:
        text = arg(j)
        return f"({text})" if labels.get(j, ("", False))[1] and text != graph[j].label else text

    args = [arg(j) for j in node.inputs]
    if node.op in INFIX and len(args) == 2:
        a, b = (operand(j) for j in node.inputs)
        return _shorten(f"{a} {INFIX[node.op]} {b}"), True
    if node.op == "neg":
        return _shorten(f"-{operand(node.inputs[0])}"), True
    if node.op == "getitem":
        return _shorten(f"{operand(node.inputs[0])}{_attr_text(node.attrs['index'])}"), False
    if node.op == CUSTOM_OP:
        return _shorten(f"{node.attrs['function']}({', '.join(args[: custom_arity(node)])})"), False
    if node.op == "identity":
        return args[0], labels.get(node.inputs[0], ("", False))[1]
    extra = [f"{k}={v}" for k, v in _attrs(node).items()]
    return _shorten(f"{node.op}({', '.join(args + extra)})"), False
