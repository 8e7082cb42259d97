"""gradcli eval: output values and gradients."""

from __future__ import annotations

from ..engine import Evaluation, evaluate
from ..render import SCHEMA, compact, console, dumps, jsonable, pretty, shape_list
from .common import choose_format, load_problem

UNCONNECTED_HINT = "no differentiable path; run `gradcli explain` to see which node cuts it"


def document(ev: Evaluation) -> dict:
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


def table(ev: Evaluation) -> None:
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
        if status == "unconnected":
            grads.add_row(
                node.name,
                str(node.shape),
                f"[yellow]{value}[/]",
                f"[yellow]unconnected: {UNCONNECTED_HINT}[/]",
            )
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
        print(dumps(document(ev)))
    elif fmt == "plain":
        print(plain(ev))
    else:
        table(ev)
    return 0
