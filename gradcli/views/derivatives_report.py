"""jacobian's and hessian's output: blocks of derivatives as JSON, plain lines or a table."""

from __future__ import annotations

from gradcli.core.problem import UNCONNECTED
from gradcli.views.format import SCHEMA, compact, console, dims, dumps, jsonable, pretty, shape_text

UNCONNECTED_HINT = "no differentiable path"


def document(kind: str, blocks: dict, unconnected: str) -> dict:
    """The JSON document: {"schema": 1, kind: {A: {B: block}}, "unconnected": mode}."""
    return {
        "schema": SCHEMA,
        kind: {
            a: {
                b: {
                    "value": jsonable(blk.value),
                    "shape": dims(blk.shape),
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


def print_table(kind: str, blocks: dict, headers: tuple[str, str], out) -> None:
    """One Rich table row per block: A, B, shape, value and status."""
    from rich.table import Table

    width = max(out.width - 40, 30)
    t = Table(title=kind, title_justify="left", show_edge=False)
    for col in (*headers, "shape", "value", "status"):
        t.add_column(col)
    for a, row in blocks.items():
        for b, blk in row.items():
            value = pretty(blk.value, width)
            shape = shape_text(blk.shape)
            if blk.status == UNCONNECTED:
                status = f"[yellow]unconnected: {UNCONNECTED_HINT}[/]"
                t.add_row(a, b, shape, f"[yellow]{value}[/]", status)
            else:
                t.add_row(a, b, shape, value, f"[green]{blk.status}[/]")
    out.print(t)


def write(kind: str, blocks: dict, unconnected: str, fmt: str, headers: tuple[str, str]) -> None:
    """Print the blocks on stdout as JSON, plain lines (nothing when empty) or a table."""
    if fmt == "json":
        print(dumps(document(kind, blocks, unconnected)))
    elif fmt == "plain":
        text = plain(kind, blocks)
        if text:
            print(text)
    else:
        print_table(kind, blocks, headers, console())
