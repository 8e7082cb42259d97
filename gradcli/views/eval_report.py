"""eval's output: the JSON document, plain lines and Rich tables of an evaluation."""

from __future__ import annotations

from gradcli.core.evaluation import Evaluation
from gradcli.core.problem import UNCONNECTED
from gradcli.views import saved_arrays
from gradcli.views.format import (
    SCHEMA,
    compact_pieces,
    dims,
    json_value,
    pretty,
    shape_list,
    shape_text,
)

UNCONNECTED_HINT = "no differentiable path; run `gradcli explain` to see which node cuts it"
OUTPUTS, GRADIENTS = saved_arrays.OUTPUTS, saved_arrays.GRADIENTS


def document(
    ev: Evaluation,
    why: dict | None = None,
    warnings: list | None = None,
    checked=None,
    formulas=None,
    saved: str | None = None,
) -> dict:
    """eval's JSON document (the scripting interface, schema 1)."""
    # why: explain's Pair by gradient name; checked: the check's report (null without
    # one); formulas: the report whose --symbolic formulas to list; saved: the --save
    # file, which then holds the values (each `value` becomes the array's `key` there).
    # The check's views are imported only when there is a report, so --check off never
    # imports the check.
    graph = ev.problem.graph
    outputs = {
        name: {**_value(v, saved, OUTPUTS, name), "shape": shape_list(v), "dtype": str(v.dtype)}
        for name, v in ev.outputs.items()
    }
    grads = {}
    for x in ev.problem.wrt:
        node = graph[x]
        v = ev.gradients[node.name]
        grads[node.name] = {
            **_value(v, saved, GRADIENTS, node.name),
            "shape": dims(node.shape if v is None else v.shape),  # a Jacobian block's own
            "dtype": node.dtype,
            "status": ev.status[node.name],
        }
        pair = (why or {}).get(node.name)
        grads[node.name]["reason"] = pair.reason if pair else None
        causes = [c.document() for c in pair.causes] if pair else []
        for cause in causes:
            del cause["path"]  # an index into explain's paths, which eval does not list
        grads[node.name]["causes"] = causes
        found = ev.conventions.get(node.name)
        if found:  # only where an element is a convention (other documents stay as they were)
            from gradcli.views.conventions_report import document as conventions_document

            grads[node.name]["conventions"] = conventions_document(found)
    doc = {
        "schema": SCHEMA,
        "outputs": outputs,
        "gradients": grads,
        "unconnected": ev.problem.unconnected,
        "warnings": warnings or [],
        "check": None,
    }
    if checked is not None:
        from gradcli.views.check_report import document as check_document

        doc["check"] = check_document(checked)
        if saved is not None:  # the gradients are in the file; no array in the document
            for entry in doc["check"]["inputs"].values():
                entry["autodiff"] = entry["reference"] = None
    if formulas is not None:
        from gradcli.views.check_report import formulas_document

        doc["formulas"] = formulas_document(formulas)
    if saved is not None:
        doc["saved"] = saved
    return doc


def _value(v, saved: str | None, section: str, name: str) -> dict:
    """{"value": ...}, or with --save {"key": the array's key in the file, null for None}."""
    if saved is None:
        return {"value": json_value(v)}
    return {"key": None if v is None else saved_arrays.key(section, name)}


def save(ev: Evaluation, path: str) -> None:
    """--save: every output and gradient into an .npz file (None gradients listed in `none`)."""
    arrays = {saved_arrays.key(OUTPUTS, name): v for name, v in ev.outputs.items()}
    none = []
    for name, v in ev.gradients.items():
        if v is None:
            none.append(name)
        else:
            arrays[saved_arrays.key(GRADIENTS, name)] = v
    saved_arrays.save(path, arrays, none)


def plain(ev: Evaluation, formulas=None) -> str:
    """output/grad<TAB>NAME<TAB>VALUE lines, then the formulas of a report with --symbolic."""
    return "".join(plain_pieces(ev, formulas))


def plain_pieces(ev: Evaluation, formulas=None, saved: str | None = None):
    """plain()'s text in pieces, large arrays block by block; with --save, each value is
    @FILE:KEY (None stays None)."""
    rows = [("output", OUTPUTS, name, v) for name, v in ev.outputs.items()]
    rows += [("grad", GRADIENTS, name, v) for name, v in ev.gradients.items()]
    for k, (label, section, name, v) in enumerate(rows):
        yield f"{chr(10) if k else ''}{label}\t{name}\t"
        if saved is not None and v is not None:
            yield saved_arrays.reference(saved, saved_arrays.key(section, name))
        else:
            yield from compact_pieces(v)
    if formulas is not None:
        from gradcli.views.check_report import plain_formulas

        yield "\n" + "\n".join(plain_formulas(formulas))


def print_tables(ev: Evaluation, why: dict, out, checked=None) -> None:
    """The outputs table and the gradients table (with a check column when checked)."""
    from rich.markup import escape
    from rich.table import Table

    width = max(out.width - 40, 30)
    outputs = Table(title="outputs", title_justify="left", show_edge=False)
    for col in ("output", "shape", "dtype", "value"):
        outputs.add_column(col)
    for name, v in ev.outputs.items():
        outputs.add_row(escape(name), shape_text(v.shape), str(v.dtype), escape(pretty(v, width)))
    out.print(outputs)
    grads = Table(title="gradients", title_justify="left", show_edge=False)
    for col in ("wrt", "shape", "value", "status"):
        grads.add_column(col)
    cells = {}
    if checked is not None:
        from gradcli.views.check_report import cell

        grads.add_column("check")
        cells = {name: cell(c) for name, c in checked.inputs.items()}
    graph = ev.problem.graph
    for x in ev.problem.wrt:
        node = graph[x]
        status = ev.status[node.name]
        value = escape(pretty(ev.gradients[node.name], width))  # [inf, 1.] is not markup
        pair = why.get(node.name)
        reason = escape(pair.reason) if pair and pair.reason else None
        v = ev.gradients[node.name]
        shape = shape_text(node.shape if v is None else v.shape)
        if status == UNCONNECTED:
            row = [
                escape(node.name),
                shape,
                f"[yellow]{value}[/]",
                f"[yellow]unconnected: {reason or UNCONNECTED_HINT}[/]",
            ]
        elif reason:
            row = [escape(node.name), shape, value, f"[yellow]{status}; {reason}[/]"]
        else:
            row = [escape(node.name), shape, value, f"[green]{status}[/]"]
        if ev.conventions.get(node.name):
            from gradcli.views.conventions_report import MARKER

            row[3] = f"{row[3]} {MARKER}"
        grads.add_row(*row, *([cells.get(node.name, "-")] if checked is not None else []))
    if ev.problem.wrt:
        out.print()
        out.print(grads)
    if ev.conventions:
        from gradcli.views.conventions_report import footnotes

        for line in footnotes(ev.conventions):
            out.print(escape(line), soft_wrap=True)


def print_check(report, checked, symbolic: bool, out) -> None:
    """Under eval's tables: the --symbolic formulas and the check's summary line."""
    if report is None:
        return
    from gradcli.views.check_report import print_formulas, print_summary

    if symbolic:
        out.print()
        print_formulas(report, out)
    if checked is not None:
        out.print()
        print_summary(checked, out)


def saved_line(path: str) -> str:
    """The table format's last line with --save (Rich markup escaped)."""
    from rich.markup import escape

    return escape(f"saved to {path}: outputs/NAME, gradients/NAME (None gradients in `none`)")


def warning_line(message: str) -> str:
    """A warning for stderr: `gradcli: warning: MESSAGE`."""
    return f"gradcli: warning: {message}"


def disagreement_line(report) -> str:
    """The warning eval prints on stderr when its check finds a gradient that disagrees."""
    from gradcli.views.check_report import summary

    return warning_line(f"{summary(report)}; run `gradcli check` for the elements")
