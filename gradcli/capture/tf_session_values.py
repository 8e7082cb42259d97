"""The forward values of TF1 graph code: a graph tensor has numbers only inside a
Session.run, so the run that first computes a call's gradients (tf_calls.session_run) also
fetches the floating tensors the capture recorded in that graph, and the values are marked
as the eager capture marks them when they are made: finite or not, and the zeros of an
operation whose derivative is infinite at 0 (tf_ops.SINGULAR_AT_ZERO)."""

from __future__ import annotations

import numpy as np

from gradcli.capture.tf_capture import Recorder, is_eager, trainable
from gradcli.capture.tf_ops import SINGULAR_AT_ZERO

# at most this many forward tensors are fetched with a call's gradients (a large graph's
# intermediates are left unread: their values stay unknown, as before)
MAX_FORWARD = 5_000
PLACEHOLDERS = frozenset(("Placeholder", "PlaceholderV2"))
READS = frozenset(("ReadVariableOp", "VariableV2", "Variable"))  # stateful, but only read


def forward_fetches(rec: Recorder, graph, fed: set) -> list[tuple[int, object]]:
    """(value id, graph tensor) of the recorded floating outputs of `graph` the feeds can
    compute (every placeholder they depend on fed), in the order they were made."""
    program = rec.program
    out, can = [], _Feedable(fed)
    for vid in sorted(rec.made):
        value = program.values.get(vid)
        if value is None or value.op is None or not value.floating:
            continue
        t = rec.made[vid]()
        if t is None or is_eager(t) or getattr(t, "graph", None) is not graph:
            continue
        if not trainable(t) or not _pure(t.op) or not can(t.op):
            continue
        out.append((vid, t))
        if len(out) >= MAX_FORWARD:
            break
    return out


def read_forward(rec: Recorder, fetched: list[tuple[int, object]], arrays) -> None:
    """Mark each fetched value finite or not, and an operation singular at 0 with the zeros
    of its output, from the numbers one Session.run gave."""
    program = rec.program
    for (vid, _tensor), array in zip(fetched, arrays):
        a = np.asarray(array)
        if a.dtype.kind not in "fc":
            continue
        value = program.values[vid]
        value.finite = bool(np.isfinite(a).all())
        op = program.ops[value.op] if value.op is not None else None
        if op is not None and op.extra.get("type") in SINGULAR_AT_ZERO and op.outputs[:1] == (vid,):
            zeros = int(np.count_nonzero(a == 0))
            if zeros:
                op.extra["singular"] = zeros


def uninitialized(rec: Recorder, session, run) -> bool:
    """Whether some global variable of the session's graph is not initialised yet (asked
    with one report op per graph, made and run outside the capture; False when unknown)."""
    import tensorflow as tf

    graph = session.graph
    rec.busy += 1
    try:
        with graph.as_default():
            if not tf.compat.v1.global_variables():
                return False
            report = rec.reports.get(id(graph))
            if report is None:
                report = rec.reports[id(graph)] = tf.compat.v1.report_uninitialized_variables()
        return len(run(session, report)) > 0
    except Exception:
        return False
    finally:
        rec.busy -= 1


def _pure(op) -> bool:
    """An op fetching which changes nothing and that a Session.run may fetch: stateless,
    or a variable's read (never an assign or a random draw the script's own fetches may not
    run), outside any v1 while loop or cond (whose tensors cannot be fetched)."""
    try:
        stateful = op.op_def.is_stateful
        inside = op._get_control_flow_context() is not None
    except Exception:
        return False
    return not inside and (not stateful or op.type in READS)


class _Feedable:
    """Whether a graph op can run with the feeds: no unfed placeholder before it (memoised
    over the graph, walked iteratively)."""

    def __init__(self, fed: set):
        self.fed = fed
        self.known: dict[int, bool] = {}

    def __call__(self, op) -> bool:
        known, visiting, stack = self.known, set(), [(op, False)]
        while stack:
            node, expanded = stack.pop()
            key = id(node)
            if key in known or (key in visiting and not expanded):
                continue  # done, or a while loop's back edge (its other inputs decide)
            if key in self.fed:
                known[key] = True
                continue
            if node.type in PLACEHOLDERS:
                known[key] = False
                continue
            parents = [t.op for t in node.inputs] + list(node.control_inputs)
            if expanded:
                known[key] = all(known.get(id(p), True) for p in parents)
                continue
            visiting.add(key)
            stack.append((node, True))
            stack.extend((p, False) for p in parents if id(p) not in known)
        return known[id(op)]
