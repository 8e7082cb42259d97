"""jacobian, hessian and derivative output: blocks of derivatives as JSON, plain or a table."""

from __future__ import annotations

import sys

from gradcli.core.problem import UNCONNECTED
from gradcli.views import saved_arrays
from gradcli.views.format import (
    SCHEMA,
    compact_pieces,
    console,
    dims,
    json_value,
    pretty,
    shape_text,
    write_json,
)

UNCONNECTED_HINT = "no differentiable path"


def document(kind: str, blocks: dict, unconnected: str, saved: str | None = None) -> dict:
    """The JSON document: {"schema": 1, kind: {A: {B: block}}, "unconnected": mode}; with
    --save, each block's `value` is its `key` in the file and `saved` names the file."""
    doc = {
        "schema": SCHEMA,
        kind: {
            a: {
                b: {
                    **_value(kind, a, b, blk.value, saved),
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
    if saved is not None:
        doc["saved"] = saved
    return doc


def _value(kind: str, a: str, b: str, value, saved: str | None) -> dict:
    if saved is None:
        return {"value": json_value(value)}
    return {"key": None if value is None else saved_arrays.key(kind, a, b)}


def save(kind: str, blocks: dict, path: str) -> None:
    """--save: every block under KIND/A/B in an .npz file; None blocks listed as A/B in `none`."""
    save_rows(kind, _rows(blocks), path)


def save_rows(kind: str, rows, path: str) -> None:
    """--save for (names, block) rows: KIND/NAME/NAME/... keys, None ones in `none`."""
    arrays, none = {}, []
    for names, blk in rows:
        if blk.value is None:
            none.append("/".join(names))
        else:
            arrays[saved_arrays.key(kind, *names)] = blk.value
    saved_arrays.save(path, arrays, none)


def _rows(blocks: dict):
    """{A: {B: block}} as ((A, B), block) rows."""
    return [((a, b), blk) for a, row in blocks.items() for b, blk in row.items()]


def plain_pieces(kind: str, blocks: dict, saved: str | None = None):
    """One line per block, KIND<TAB>A<TAB>B<TAB>VALUE, in pieces (large blocks in bulk);
    with --save the value is @FILE:KEY."""
    yield from plain_row_pieces(kind, _rows(blocks), saved)


def plain_row_pieces(kind: str, rows, saved: str | None = None):
    """One line per (names, block) row: KIND, the names and the value, tab-separated."""
    for names, blk in rows:
        yield kind + "\t" + "\t".join(names) + "\t"
        if saved is not None and blk.value is not None:
            yield saved_arrays.reference(saved, saved_arrays.key(kind, *names))
        else:
            yield from compact_pieces(blk.value)
        yield "\n"


def print_table(kind: str, blocks: dict, headers: tuple[str, str], out) -> None:
    """One Rich table row per block: A, B, shape, value and status."""
    from rich.markup import escape
    from rich.table import Table

    width = max(out.width - 40, 30)
    t = Table(title=kind, title_justify="left", show_edge=False)
    for col in (*headers, "shape", "value", "status"):
        t.add_column(col)
    for a, row in blocks.items():
        for b, blk in row.items():
            value = escape(pretty(blk.value, width))  # [inf, 1.] is not markup
            shape = shape_text(blk.shape)
            a, b = escape(a), escape(b)
            if blk.status == UNCONNECTED:
                status = f"[yellow]unconnected: {UNCONNECTED_HINT}[/]"
                t.add_row(a, b, shape, f"[yellow]{value}[/]", status)
            else:
                t.add_row(a, b, shape, value, f"[green]{blk.status}[/]")
    out.print(t)


def write(
    kind: str,
    blocks: dict,
    unconnected: str,
    fmt: str,
    headers: tuple[str, str],
    saved: str | None = None,
) -> None:
    """Print the blocks on stdout as JSON, plain lines (nothing when empty) or a table;
    with --save, write them to that file first and print where they are."""
    if saved is not None:
        save(kind, blocks, saved)
    if fmt == "json":
        write_json(document(kind, blocks, unconnected, saved), sys.stdout)
    elif fmt == "plain":
        for piece in plain_pieces(kind, blocks, saved):
            sys.stdout.write(piece)
    else:
        out = console()
        print_table(kind, blocks, headers, out)
        if saved is not None:
            from rich.markup import escape

            out.print()
            out.print(escape(f"saved to {saved}: {kind}/A/B (None blocks in `none`)"))


# --- gradcli derivative: one block per sequence of targets, innermost tape first ------------


def derivative_document(order: int, rows, unconnected: str, saved: str | None = None) -> dict:
    """{"schema": 1, "derivative": {"order": N, "blocks": [{"wrt": [...], value, shape, dtype,
    status}]}, "unconnected": mode}; with --save, `key` replaces `value`."""
    blocks = []
    for names, blk in rows:
        if saved is None:
            value = {"value": json_value(blk.value)}
        else:
            key = None if blk.value is None else saved_arrays.key("derivative", *names)
            value = {"key": key}
        shape = {"shape": dims(blk.shape), "dtype": blk.dtype, "status": blk.status}
        blocks.append({"wrt": list(names), **value, **shape})
    doc = {"schema": SCHEMA, "derivative": {"order": order, "blocks": blocks}}
    doc["unconnected"] = unconnected
    if saved is not None:
        doc["saved"] = saved
    return doc


def write_derivative(order: int, rows, unconnected: str, fmt: str, saved: str | None = None):
    """gradcli derivative's output: JSON, plain lines (DERIVATIVE<TAB>W1...<TAB>VALUE) or a
    table; with --save, the arrays go to that file first."""
    if saved is not None:
        save_rows("derivative", rows, saved)
    if fmt == "json":
        write_json(derivative_document(order, rows, unconnected, saved), sys.stdout)
        return
    if fmt == "plain":
        for piece in plain_row_pieces("derivative", rows, saved):
            sys.stdout.write(piece)
        return
    from rich.markup import escape
    from rich.table import Table

    out = console()
    width = max(out.width - 40, 30)
    t = Table(title=f"derivative of order {order}", title_justify="left", show_edge=False)
    for col in ("wrt (innermost tape first)", "shape", "value", "status"):
        t.add_column(col)
    for names, blk in rows:
        value = escape(pretty(blk.value, width))  # [inf, 1.] is not markup
        shape = shape_text(blk.shape)
        wrt = escape(", ".join(names))
        if blk.status == UNCONNECTED:
            status = f"[yellow]unconnected: {UNCONNECTED_HINT}[/]"
            t.add_row(wrt, shape, f"[yellow]{value}[/]", status)
        else:
            t.add_row(wrt, shape, value, f"[green]{blk.status}[/]")
    out.print(t)
    if saved is not None:
        out.print()
        out.print(escape(f"saved to {saved}: derivative/W1/.../WN (None blocks in `none`)"))
