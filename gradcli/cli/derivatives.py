"""gradcli jacobian and gradcli hessian: second-level derivatives, as table, plain or JSON."""

from __future__ import annotations

from gradcli.cli.common import choose_format, load_problem
from gradcli.views.format import SCHEMA, compact, console, dumps, jsonable, pretty

UNCONNECTED_HINT = "no differentiable path"


def document(kind: str, blocks: dict, unconnected: str) -> dict:
    """The JSON document: {"schema": 1, kind: {A: {B: block}}, "unconnected": mode}."""
    return {
        "schema": SCHEMA,
        kind: {
            a: {
                b: {
                    "value": jsonable(blk.value),
                    "shape": list(blk.shape),
                    "dtype": blk.dtype,
                    "status": blk.status,
                }
                for b, blk in row.items()
            }
            for a, row in blocks.items()
        },
        "unconnected": unconnected,
    }


def plain(kind: str, blocks: dict) -> str:
    """One line per block: KIND<TAB>A<TAB>B<TAB>VALUE."""
    return "\n".join(
        f"{kind}\t{a}\t{b}\t{compact(blk.value)}"
        for a, row in blocks.items()
        for b, blk in row.items()
    )


def table(kind: str, blocks: dict, headers: tuple[str, str]) -> None:
    from rich.table import Table

    out = console()
    width = max(out.width - 40, 30)
    t = Table(title=kind, title_justify="left", show_edge=False)
    for col in (*headers, "shape", "value", "status"):
        t.add_column(col)
    for a, row in blocks.items():
        for b, blk in row.items():
            value = pretty(blk.value, width)
            if blk.status == "unconnected":
                status = f"[yellow]unconnected: {UNCONNECTED_HINT}[/]"
                t.add_row(a, b, str(blk.shape), f"[yellow]{value}[/]", status)
            else:
                t.add_row(a, b, str(blk.shape), value, f"[green]{blk.status}[/]")
    out.print(t)


def _emit(kind: str, blocks: dict, unconnected: str, fmt, headers) -> int:
    fmt = choose_format(fmt)
    if fmt == "json":
        print(dumps(document(kind, blocks, unconnected)))
    elif fmt == "plain":
        text = plain(kind, blocks)
        if text:
            print(text)
    else:
        table(kind, blocks, headers)
    return 0


def run_jacobian(spec, expr, at, wrt, unconnected, fmt) -> int:
    from gradcli.core.jacobian import jacobian

    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = jacobian(problem)
    return _emit("jacobian", blocks, problem.unconnected, fmt, ("output", "wrt"))


def run_hessian(spec, expr, at, wrt, unconnected, fmt) -> int:
    from gradcli.core.jacobian import hessian

    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = hessian(problem)
    return _emit("hessian", blocks, problem.unconnected, fmt, ("wrt", "wrt"))
