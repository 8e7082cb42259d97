"""A check's report as JSON data, plain lines, Rich tables and one-line summaries."""

from __future__ import annotations

import numpy as np

from gradcli.check.compare import InputCheck
from gradcli.check.run import CheckReport
from gradcli.views.format import (
    SCHEMA,
    dims,
    error_number,
    json_value,
    jsonable,
    number,
    pretty,
    shape_text,
)

METHOD_NAMES = {"sympy": "SymPy's derivative", "fd": "finite differences"}


def method_text(report: CheckReport) -> str:
    """sympy, or `fd (fallback: why)`, for one line of output."""
    if report.method is None:
        return "none"
    if report.reason:
        kind = "fallback" if report.fallback else "because"
        return f"{report.method} ({kind}: {report.reason})"
    return report.method


def input_document(c: InputCheck) -> dict:
    """One input's comparison as JSON data."""
    return {
        "method": c.method,
        "verdict": c.verdict,
        "ok": c.ok,
        "shape": dims(c.shape),
        "dtype": c.dtype,
        "autodiff": json_value(c.autodiff),
        "reference": json_value(c.reference),
        "max_abs_error": c.max_abs_error,
        "max_rel_error": c.max_rel_error,
        "rtol": c.rtol,
        "atol": c.atol,
        "checked": c.checked,
        "not_compared": c.not_compared,
        "worst": [_finite_fields(w) for w in c.worst],
        "directional": _finite_fields(c.directional) if c.directional else None,
        "note": c.note,
        # only at a convention (a kink or a tie), so other documents stay as they were
        **(
            {"conventions": c.conventions, "one_sided": [_finite_fields(o) for o in c.one_sided]}
            if c.conventions
            else {}
        ),
    }


def _finite_fields(record: dict) -> dict:
    """A record with non-finite floats as strings (strict JSON)."""
    return {k: jsonable(v) if isinstance(v, float) else v for k, v in record.items()}


def document(report: CheckReport) -> dict:
    """The `check` object of the JSON output (eval's "check" field, check's whole document)."""
    doc = {
        "method": report.method,
        "requested": report.requested,
        "fallback": report.fallback,
        "reason": report.reason,
        "ok": report.ok,
        "max_abs_error": jsonable(report.max_abs_error),
        "max_rel_error": jsonable(report.max_rel_error),
        "inputs": {name: input_document(c) for name, c in report.inputs.items()},
        "customs": [
            {
                "function": c.function,
                "at": c.at,
                "parameter": c.parameter,
                "ok": c.ok,
                "checked": c.checked,
                "elements": c.elements,
                "mismatched": c.mismatched,
                "factor": c.factor,
                "message": c.message,
                "worst": [_finite_fields(w) for w in c.worst],
            }
            for c in report.customs
        ],
        "evaluations": report.evaluations,
    }
    return doc


def check_document(report: CheckReport, symbolic: bool) -> dict:
    """check's whole JSON document (schema 1): the report, and the formulas with --symbolic."""
    doc = {"schema": SCHEMA, **document(report)}
    if symbolic:
        doc["formulas"] = formulas_document(report)
    return doc


def formulas_document(report: CheckReport) -> list[dict]:
    """The formulas asked for with --symbolic (a note per pair where there is none)."""
    if report.formulas is None:
        note = report.formula_note or "no formulas"
        return [{"output": None, "input": None, "formula": None, "note": note}]
    return [
        {"output": f["output"], "input": f["input"], "formula": f["formula"], "note": f["note"]}
        for f in report.formulas
    ]


def summary(report: CheckReport) -> str:
    """One line: how many gradients agree with which reference, and the largest errors."""
    checked = [c for c in report.inputs.values() if c.verdict != "skipped"]
    bad = [c for c in checked if not c.ok]
    bad_customs = [c for c in report.customs if not c.ok]
    how = METHOD_NAMES.get(report.method, "nothing")
    if report.reason:
        how += f" ({'fallback: ' if report.fallback else ''}{report.reason})"
    abs_error, rel_error = error_number(report.max_abs_error), error_number(report.max_rel_error)
    errors = f"max abs error {abs_error}, max rel error {rel_error}"
    if not checked and not report.customs:
        return "check: no float gradient to check"
    if bad or bad_customs:
        parts = []
        if bad:
            names = ", ".join(c.name for c in bad)
            parts.append(f"{len(bad)} of {len(checked)} gradients DISAGREE ({names})")
        if bad_customs:
            names = ", ".join(dict.fromkeys(c.function for c in bad_customs))
            parts.append(f"the custom gradient of {names} is WRONG")
        return f"check FAILED against {how}: {'; '.join(parts)}; {errors}"
    what = f"{len(checked)} gradient{'s' * (len(checked) != 1)}"
    count = len(checked)
    customs = [c for c in report.customs if c.checked]
    if customs:
        what += f" and {len(customs)} custom gradient{'s' * (len(customs) != 1)}"
        count += len(customs)
    verb = "agrees" if count == 1 else "agree"
    at = [c for c in checked if c.verdict == "convention"]
    if at:  # agreement with TensorFlow's convention where no derivative exists
        n = sum(c.conventions for c in at)
        names = ", ".join(c.name for c in at)
        return (
            f"check ok: {what} {verb} with {how}, {n} element{'s' * (n != 1)} of {names} only "
            f"with TensorFlow's convention at a kink or tie (verdict convention); {errors}"
        )
    return f"check ok: {what} {verb} with {how}; {errors}"


def cell(c: InputCheck) -> str:
    """The check column of eval's gradient table."""
    if c.verdict == "skipped":
        return "-" if not c.note else "not checked"
    if c.verdict == "convention":
        return f"[yellow]convention ({c.method}, {c.conventions})[/]"
    if c.ok:
        return f"[green]ok ({c.method}, {error_number(c.max_abs_error)})[/]"
    return f"[bold red]DISAGREES ({c.method}, {error_number(c.max_abs_error)})[/]"


def plain_lines(report: CheckReport) -> list[str]:
    """check<TAB>NAME<TAB>VERDICT<TAB>METHOD<TAB>MAX_ABS<TAB>MAX_REL lines, then customs."""
    lines = [
        "\t".join(
            (
                "check",
                c.name,
                c.verdict,
                c.method or "-",
                number(c.max_abs_error),
                number(c.max_rel_error),
            )
        )
        for c in report.inputs.values()
    ]
    lines += [
        f"custom\t{c.function}\t{'ok' if c.ok else 'wrong'}\t{c.message}" for c in report.customs
    ]
    return lines


SHOWN = 6  # tensors of up to this many elements are shown in check's table


def short(value, width: int) -> str:
    """A value for check's table: in full when small, else its size (JSON has it all)."""
    if value is None:
        return "None"
    arr = np.asarray(value)
    if arr.size > SHOWN:
        return f"{arr.size:,} elements"
    return pretty(arr, width)


def print_tables(report: CheckReport, out, width: int) -> None:
    """check's full table, the elements that disagree, and the custom gradients."""
    from rich.markup import escape
    from rich.table import Table

    out.print(f"method: {escape(method_text(report))}", soft_wrap=True)
    table = Table(show_edge=False)
    for col in ("input", "shape", "autodiff", "reference", "abs err", "rel err"):
        table.add_column(col)
    table.add_column("verdict")
    for c in report.inputs.values():
        verdict = {
            "agree": "[green]agree[/]",
            "convention": f"[yellow]convention ({c.conventions})[/]",
            "disagree": "[bold red]DISAGREE[/]",
            "skipped": "[yellow]skipped[/]",
        }[c.verdict]
        table.add_row(  # values escaped: [inf, 1.] is not markup
            escape(c.name),
            shape_text(c.shape),
            escape(short(c.autodiff, width)),
            escape(short(c.reference, width)) if c.reference is not None else "-",
            error_number(c.max_abs_error),
            error_number(c.max_rel_error),
            verdict,
        )
    out.print(table)
    for c in report.inputs.values():
        if c.note:
            out.print(f"[yellow]{escape(c.name)}: {escape(c.note)}[/]", soft_wrap=True)
    for c in report.inputs.values():
        for o in c.one_sided:
            out.print(
                f"[yellow]{escape(o['element'])}: a convention, not a derivative; one-sided "
                f"differences {number(o['below'])} (from below) and {number(o['above'])} "
                "(from above)[/]",
                soft_wrap=True,
            )
    for c in report.inputs.values():
        if c.ok:
            continue
        out.print(f"[bold red]{escape(c.name)} DISAGREES with {METHOD_NAMES[c.method]}:[/]")
        for w in c.worst:
            out.print(
                f"  {escape(w['element'])}: autodiff {number(w['autodiff'])}, "
                f"reference {number(w['reference'])}, abs error {number(w['abs_error'])}",
                soft_wrap=True,
            )
        d = c.directional
        if d and not d["ok"]:
            out.print(
                f"  along a random direction: autodiff {number(d['autodiff'])}, "
                f"reference {number(d['reference'])}",
                soft_wrap=True,
            )
    if report.customs:
        out.print()
        out.print("custom gradients against the derivative of their body:")
        for c in report.customs:
            where = f" ({escape(c.at)})" if c.at else ""
            if not c.checked:
                out.print(f"  [yellow]skipped[/]  {escape(c.message)}{where}", soft_wrap=True)
                continue
            if c.ok:
                out.print(f"  [green]ok[/]  {escape(c.message)}{where}", soft_wrap=True)
                continue
            out.print(f"  [bold red]WRONG[/]  {escape(c.message)}{where}", soft_wrap=True)
            for w in c.worst:
                out.print(
                    f"      d {escape(w['output'])}/d {escape(w['element'])}: gradient "
                    f"{number(w['gradient'])}, derivative {number(w['derivative'])}",
                    soft_wrap=True,
                )


def print_summary(report: CheckReport, out) -> None:
    """The summary line, green when everything agrees, else bold red."""
    from rich.markup import escape

    style = "green" if report.ok else "bold red"
    out.print(f"[{style}]{escape(summary(report))}[/]", soft_wrap=True)


def print_report(report: CheckReport, symbolic: bool, out) -> None:
    """check's table output: the tables, the --symbolic formulas and the summary line."""
    print_tables(report, out, 40)
    if symbolic:
        out.print()
        print_formulas(report, out)
    out.print()
    print_summary(report, out)


def print_formulas(report: CheckReport, out) -> None:
    """The --symbolic formulas, pretty-printed (ASCII when the console cannot show Unicode)."""
    from rich.markup import escape

    if report.formulas is None:
        out.print(f"formulas: {escape(report.formula_note or 'none')}")
        return
    unicode = (out.encoding or "").lower().startswith("utf")
    for f in report.formulas:
        head = f"d {f['output']}/d {f['input']} ="
        if f["formula"] is None:
            out.print(f"{escape(head)} [yellow]{escape(f['note'])}[/]")
            continue
        art = f["pretty"] if unicode else f["pretty_ascii"]
        if "\n" in art:
            out.print(escape(head))
            out.print(escape(art))
        else:
            out.print(f"{escape(head)} {escape(art)}")


def plain_formulas(report: CheckReport) -> list[str]:
    """formula<TAB>d OUT/d IN<TAB>FORMULA (or the note) lines."""
    if report.formulas is None:
        return [f"formula\t-\t{report.formula_note or 'no formulas'}"]
    return [
        f"formula\td {f['output']}/d {f['input']}\t{f['formula'] or f['note']}"
        for f in report.formulas
    ]
