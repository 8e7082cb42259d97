"""NaN/Inf origins in words: `gradcli eval`'s warnings and the reason line of `explain`.

The analysis is nonfinite.py; this module only reports it.
"""

from __future__ import annotations

from gradcli.core.finite import has_non_finite
from gradcli.explain.report import CauseKind, OriginKind

# nonfinite.py (the analysis) is imported only when something is non-finite: eval's cheap
# path stays without it
NON_FINITE, FORWARD = CauseKind.NON_FINITE, OriginKind.FORWARD


def reason(pair) -> str:
    """The one-line reason of a pair whose output or gradient holds NaN or Inf."""
    causes = [c for c in pair.causes if c.kind == NON_FINITE]
    kinds = {c.extra.get("origin") for c in causes}
    head = f"d{pair.output}/d{pair.input} holds NaN or Inf"
    if " " in pair.output:  # the summed outputs, as `gradcli eval` reports them
        head = f"the gradient of {pair.output} with respect to {pair.input} holds NaN or Inf"
    if kinds == {FORWARD}:
        head = f"{pair.output} holds NaN or Inf"
    text = f"{head}: " + "; ".join(c.summary for c in causes[:3])
    if len(causes) > 3:
        text += f"; and {len(causes) - 3} more"
    return text


def warnings(ev) -> list[dict]:
    """One warning per output or gradient of an Evaluation that holds NaN or Inf.

    Re-evaluates with every value kept (only when something is non-finite), so the cheap
    path of `gradcli eval` is unchanged.
    """
    bad_outputs = [n for n, v in ev.outputs.items() if has_non_finite(v)]
    bad_grads = [n for n, v in ev.gradients.items() if has_non_finite(v)]
    if not bad_outputs and not bad_grads:
        return []
    from gradcli.core.evaluation import evaluate
    from gradcli.core.printing import entry_line
    from gradcli.explain.nonfinite import (
        Diagnosis,
        Origin,
        at_elements,
        element_indices,
        non_finite,
        value_words,
    )

    problem = ev.problem
    graph = problem.graph
    full = evaluate(problem, keep=True, record=True)
    diagnosis = Diagnosis(graph, full.values, full.grads.adjoints)
    results = dict(zip(problem.wrt, full.grads.results))
    found: list[dict] = []
    for what, names in (("output", bad_outputs), ("gradient", bad_grads)):
        for name in names:
            i = graph.names[name]
            if what == "output":
                value = full.outputs[name]
                origins = [o for o in [diagnosis.forward_origin(i)] if o is not None]
            else:
                value = full.gradients[name]
                origins = diagnosis.gradient_origins(results[i])
            mask = non_finite(value)
            at = at_elements(Origin("", i, i, *element_indices(mask)))
            entries = []
            for o in origins:
                entry = diagnosis.entry(o.node)
                entries.append(
                    {
                        "origin": o.origin,
                        "node": entry,
                        "line": entry_line(problem, entry),
                        "op": graph[o.node].op,
                        "elements": o.count,
                        "indices": o.indices,
                        "detail": o.detail,
                        "fix": o.fix,
                    }
                )
            said = "; ".join(
                f"{_label(e['origin'])} at {e['node']}"
                + (f" (line {e['line']})" if e["line"] is not None else "")
                + f": {e['detail']}"
                for e in entries
            )
            message = f"{what} {name} is {value_words(value, mask)}{at}" + (
                f": {said}" if said else ""
            )
            found.append(
                {
                    "kind": NON_FINITE,
                    "what": what,
                    "name": name,
                    "message": message,
                    "origins": entries,
                }
            )
    return found


def _label(origin: str) -> str:
    return "forward origin" if origin == FORWARD else origin
