"""`gradcli graph --run FILE.py`: one gradient call's captured data flow as a GraphView, so
the tree, DOT, Mermaid and JSON renderers draw it as they draw a spec's graph.

A node is a value the framework made (labelled by the operation that made it and the
script's name for it); an edge is an operation's input. An edge along which no gradient
flows from a value that carries one is cut, named by the diagnosis's cause kind.
"""

from __future__ import annotations

from gradcli.capture.program import Captured, GradientCall
from gradcli.core.graph import INPUT_OP
from gradcli.views import graph_model as gv

MAX_NODES = 5_000  # values drawn per call; the ones nearest the output are kept


def view_of(program: Captured, diagnosis, call: GradientCall) -> gv.GraphView:
    """The GraphView of a call: what its output was computed from, and its gradients."""
    doctor = diagnosis.doctor
    flow = doctor.flow
    values = program.values
    drawn, _ = flow.backward(call.roots, call.first_op)
    targets = [g.value_id for g in call.gradients]
    drawn |= set(targets)
    drawn = set(sorted(drawn)[-MAX_NODES:]) | set(call.roots) | set(targets)
    names = {g.value_id: g.name for g in call.gradients}
    view = gv.GraphView({}, [], list(call.roots), targets)
    for vid in sorted(drawn):
        value = values[vid]
        op = program.ops[value.op] if value.op is not None else None
        inputs = tuple(i for i in op.inputs if i in drawn) if op is not None else ()
        name = names.get(vid) or program.names.get(vid)
        marks = []
        if not (op is not None and set(op.inputs) & drawn):
            marks.append(gv.TRAINABLE if value.requires_grad else gv.CONSTANT)
        if vid in call.roots:
            marks.append(gv.OUTPUT)
        if vid in names:
            marks.append(gv.WRT)
        leaf = not inputs
        view.nodes[vid] = gv.ViewNode(
            index=vid,
            id=f"v{vid}",
            op=INPUT_OP if leaf else op.name,
            shape=value.shape,
            dtype=value.dtype,
            line=value.line,
            kind="input" if leaf else "forward",
            name=name,
            label=name or (op.name if op is not None else f"v{vid}"),
            marks=marks,
            attrs={"made by": op.name} if leaf and op is not None else {},
            inputs=inputs,
        )
        for slot, u in enumerate(inputs):
            cut = None
            if values[u].requires_grad and not flow.carries(op, u):
                cut = doctor.cut(op).kind
                cut = doctor.words.KINDS.get(cut, cut)  # TensorFlow's names: stop_gradient
                view.nodes[vid].marks.append(gv.NO_GRADIENT)
            view.edges.append(gv.ViewEdge(u, vid, slot, cut))
    for g in call.gradients:
        view.gradients[g.name] = None if g.status == "unconnected" else g.value_id
    for k, pair in diagnosis.pairs:
        if k == call.index:
            view.findings[pair.input] = gv.GraphFinding(
                pair.status, pair.zero_elements, pair.elements, pair.reason
            )
    return view
