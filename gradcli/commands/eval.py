"""gradcli eval: output values and gradients."""

from __future__ import annotations

import numpy as np

from ..engine import Evaluation, evaluate
from ..render import SCHEMA, compact, console, dumps, jsonable, pretty, shape_list
from .common import choose_format, load_problem

UNCONNECTED_HINT = "no differentiable path; run `gradcli explain` to see which node cuts it"


def explanations(ev: Evaluation) -> dict:
    """name -> explain's Pair for every None or (partly) zero gradient of the summed outputs."""
    graph = ev.problem.graph
    need = []
    for x in ev.problem.wrt:
        name = graph[x].name
        value = ev.gradients[name]
        if ev.status[name] != "connected" or value is None or np.any(value == 0):
            need.append(x)
    if not need:
        return {}
    from ..explain import explain_sum

    return {graph[x].name: pair for x, pair in explain_sum(ev.problem, need).items()}


def document(ev: Evaluation, why: dict | None = None) -> dict:
    """The JSON document of an evaluation (the scripting interface, schema 1)."""
    graph = ev.problem.graph
    outputs = {
        name: {"value": jsonable(v), "shape": shape_list(v), "dtype": str(v.dtype)}
        for name, v in ev.outputs.items()
    }
    grads = {}
    for x in ev.problem.wrt:
        node = graph[x]
        v = ev.gradients[node.name]
        grads[node.name] = {
            "value": jsonable(v),
            "shape": list(node.shape),
            "dtype": node.dtype,
            "status": ev.status[node.name],
        }
        pair = (why or {}).get(node.name)
        grads[node.name]["reason"] = pair.reason if pair else None
        causes = [c.document() for c in pair.causes] if pair else []
        for cause in causes:
            del cause["path"]  # an index into explain's paths, which eval does not list
        grads[node.name]["causes"] = causes
    return {
        "schema": SCHEMA,
        "outputs": outputs,
        "gradients": grads,
        "unconnected": ev.problem.unconnected,
    }


def plain(ev: Evaluation) -> str:
    lines = [f"output\t{name}\t{compact(v)}" for name, v in ev.outputs.items()]
    lines += [f"grad\t{name}\t{compact(v)}" for name, v in ev.gradients.items()]
    return "\n".join(lines)


def table(ev: Evaluation, why: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    out = console()
    width = max(out.width - 40, 30)
    outputs = Table(title="outputs", title_justify="left", show_edge=False)
    for col in ("output", "shape", "dtype", "value"):
        outputs.add_column(col)
    for name, v in ev.outputs.items():
        outputs.add_row(name, str(tuple(v.shape)), str(v.dtype), pretty(v, width))
    out.print(outputs)
    grads = Table(title="gradients", title_justify="left", show_edge=False)
    for col in ("wrt", "shape", "value", "status"):
        grads.add_column(col)
    graph = ev.problem.graph
    for x in ev.problem.wrt:
        node = graph[x]
        status = ev.status[node.name]
        value = pretty(ev.gradients[node.name], width)
        pair = why.get(node.name)
        reason = escape(pair.reason) if pair and pair.reason else None
        if status == "unconnected":
            grads.add_row(
                node.name,
                str(node.shape),
                f"[yellow]{value}[/]",
                f"[yellow]unconnected: {reason or UNCONNECTED_HINT}[/]",
            )
        elif reason:
            grads.add_row(node.name, str(node.shape), value, f"[yellow]{status}; {reason}[/]")
        else:
            grads.add_row(node.name, str(node.shape), value, f"[green]{status}[/]")
    if ev.problem.wrt:
        out.print()
        out.print(grads)


def run(spec, expr, at, wrt, unconnected, fmt) -> int:
    problem = load_problem(spec, expr, at, wrt, unconnected)
    ev = evaluate(problem)
    fmt = choose_format(fmt)
    if fmt == "json":
        print(dumps(document(ev, explanations(ev))))
    elif fmt == "plain":
        print(plain(ev))
    else:
        table(ev, explanations(ev))
    return 0
