"""The run mode's output (`--run FILE.py`): every gradient call's gradients, the diagnosis's
pairs and the script's error, as JSON, plain lines, or Rich panels with the culprit's line.

JSON (schema 1): {"schema", "file", "framework", "calls": [{"line", "kind", "target",
"gradients": [{"name", "value", "shape", "dtype", "status"}], "error"}], "pairs": [{"call",
"output", "input", "status", ..., "causes": [{"kind", "line", "fix", ...}]}], "error",
"stopped", "notes"}; eval writes the same without "pairs".
"""

from __future__ import annotations

import numpy as np

from gradcli.views.format import SCHEMA, compact, jsonable, pretty, shape_text

DTYPES = {
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
}


def gradient_value(g):
    """A gradient's numbers as JSON data, with the framework's own precision."""
    if g.value is None:
        return None
    dtype = DTYPES.get(g.dtype or "")
    try:
        return jsonable(np.asarray(g.value, dtype=dtype))
    except (TypeError, ValueError):  # complex and other values: as the framework listed them
        return g.value


def plain_value(g) -> str:
    """A gradient for plain output: None, or its numbers as a compact JSON list."""
    if g.value is None:
        return "None" if g.status == "unconnected" else "(too large to show)"
    dtype = DTYPES.get(g.dtype or "")
    try:
        return compact(np.asarray(g.value, dtype=dtype))
    except (TypeError, ValueError):
        return str(g.value)


def error_doc(error: dict | None, causes, note: str = "") -> dict | None:
    """An error as JSON: "Type: text", its line, its causes."""
    if error is None:
        return None
    return {
        "message": f"{error['type']}: {error['message']}",
        "line": error.get("line"),
        "causes": [c.document() for c in causes],
        "note": note or None,
    }


def document(program, diagnosis, with_pairs: bool) -> dict:
    """The JSON document of a run (explain: with pairs; eval: without)."""
    calls = []
    for call in program.calls:
        causes = diagnosis.call_errors.get(call.index, [])
        calls.append(
            {
                "line": call.line,
                "kind": call.kind,
                "target": call.root_names[0] if len(call.root_names) == 1 else call.root_names,
                "gradients": [
                    {
                        "name": g.name,
                        "value": gradient_value(g),
                        "shape": list(g.shape or ()),
                        "dtype": g.dtype,
                        "status": g.status,
                    }
                    for g in call.gradients
                ],
                "error": error_doc(call.error, causes, diagnosis.notes.get(call.index, "")),
            }
        )
        if call.notes:  # TensorFlow: Keras variable paths, traced steps (as the static reader)
            calls[-1]["notes"] = list(call.notes)
    doc = {"schema": SCHEMA, "file": program.file, "framework": program.framework, "calls": calls}
    if with_pairs:
        doc["pairs"] = [{"call": k, **p.document()} for k, p in diagnosis.pairs]
    error = program.error
    doc["error"] = None
    if error is not None:
        message = {"type": error.type, "message": error.message, "line": error.line}
        doc["error"] = error_doc(message, diagnosis.error_causes, diagnosis.notes.get("error"))
        doc["error"]["call"] = error.in_call
    doc["stopped"] = program.stopped
    doc["notes"] = notes(program)
    return doc


def notes(program) -> list[str]:
    """What the reader should know about how the run ended."""
    out = []
    if program.stopped == "calls":
        n = len(program.calls)
        out.append(
            f"the script was stopped when it began gradient call {n + 1} "
            f"(--calls {n}; --calls all lets it finish)"
        )
    elif program.stopped == "timeout":
        out.append("the script was stopped by --timeout; what ran before is reported")
    if program.exit_code is not None:
        out.append(f"the script exited with status {program.exit_code}")
    return out


TF_TITLES = {
    "gradient": "tape.gradient({}, ...)",
    "jacobian": "tape.jacobian({}, ...)",
    "batch_jacobian": "tape.batch_jacobian({}, ...)",
    "tf.gradients": "tf.gradients({}, ...)",
    "fit": "the {} of a model.fit / train_on_batch step",
    "minimize": "minimize({}, ...)",
    "compute_gradients": "compute_gradients({}, ...)",
}


def title(call) -> str:
    """'call 0, line 12: loss.backward()'."""
    target = call.root_names[0] if len(call.root_names) == 1 else "the outputs"
    what = f"{target}.backward()" if call.kind == "backward" else f"autograd.grad({target}, ...)"
    if call.kind in TF_TITLES:
        what = TF_TITLES[call.kind].format(target)
    if getattr(call, "via", None):
        what = f"{call.via}.grad({target})(...)"  # grad(f)(x): the transform's own call
    return f"call {call.index}, line {call.line}: {what}"


def _source(program, cause) -> str:
    where = cause.extra.get("file")
    if where:
        import linecache

        file, _, line = where.rpartition(":")
        return linecache.getline(file, int(line)).strip()
    return program.source(cause.line)


MAX_NAMED = 6  # gradients named in one panel's title before "and N more"


def grouped(pairs) -> list[list]:
    """Pairs with the same status and causes together (a layer's weight and bias, every
    parameter behind one detach), in order of first appearance."""
    groups: dict = {}
    for pair in pairs:
        key = (pair.status, tuple((c.kind, c.line, c.detail) for c in pair.causes))
        groups.setdefault(key, []).append(pair)
    return list(groups.values())


def panel(program, pairs, width=None):
    """A Rich panel for gradients that are not fine, sharing their causes: the causes with
    their lines, source and fixes."""
    from rich.console import Group
    from rich.markup import escape
    from rich.panel import Panel
    from rich.text import Text

    pair = pairs[0]
    reason = pair.reason or pair.status
    if len(pairs) > 1:
        reason = reason.replace(pair.input, "them", 1) if pair.input in reason else reason
    parts = [Text(reason, style="bold"), Text("")]
    parts += cause_lines(program, pair.causes)
    names = [p.input for p in pairs[:MAX_NAMED]]
    more = f" and {len(pairs) - MAX_NAMED} more" if len(pairs) > MAX_NAMED else ""
    heading = f"[bold]{escape(', '.join(names) + more)}[/]: [yellow]{pair.status}[/]"
    return Panel(
        Group(*parts), title=heading, title_align="left", border_style="yellow", width=width
    )


def cause_lines(program, causes) -> list:
    """Each cause as '✗ kind at line N: detail', its source line and its fix."""
    from rich.text import Text

    parts = []
    for cause in causes:
        item = Text("✗ ", style="red")
        item.append(f"{cause.kind}{cause.at_line()}", style="bold")
        times = cause.extra.get("times")
        module = f" (in {cause.extra['module']})" if cause.extra.get("module") else ""
        if cause.extra.get("use_line") and cause.extra["use_line"] != cause.line:
            ran = f"ran at line {cause.extra['use_line']}"
            module = f" (in {cause.extra['module']}, {ran})" if module else f" ({ran})"
        item.append((f" ({times} times)" if times else "") + f"{module}: {cause.detail}")
        parts.append(item)
        text = _source(program, cause)
        if text:
            source = Text(f"  {cause.where()}: ", style="dim")
            source.append(text, style="bold")
            parts.append(source)
        if cause.extra.get("fix"):
            parts.append(Text(f"  fix: {cause.extra['fix']}", style="green"))
    return parts


def print_explain(program, diagnosis, out) -> None:
    """explain's table output: per call, a panel per gradient that is not fine."""
    from gradcli.views.format import block_width, rule

    for call in program.calls:
        rule(out, title(call))
        pairs = [p for k, p in diagnosis.pairs if k == call.index]
        for group in grouped([p for p in pairs if not p.ok]):
            out.print(panel(program, group, block_width(out)))
        fine = [p.input for p in pairs if p.ok and p.status == "connected" and not p.causes]
        unread = {g.name for g in call.gradients if not g.read}
        read = [name for name in fine if name not in unread]
        if read:
            out.print(f"connected, finite: {', '.join(read)}", markup=False, highlight=False)
        if len(read) < len(fine):  # a traced step's numbers that were never read
            names = ", ".join(name for name in fine if name in unread)
            out.print(f"connected, values not read: {names}", markup=False, highlight=False)
            for note in call.notes:
                out.print(f"note: {note}", markup=False, highlight=False, style="dim")
        for group in grouped([p for p in pairs if p.ok and p.status != "connected"]):
            pair = group[0]
            why = "no optimizer steps them after this call" if pair.stepped is False else ""
            names = ", ".join(p.input for p in group)
            out.print(
                f"{names}: {pair.status}"
                + (f" ({why})" if why else "")
                + (f": {pair.reason.split(': ', 1)[-1]}" if pair.reason and not why else ""),
                markup=False,
                highlight=False,
                style="dim",
            )
        if not pairs and call.error is None:  # a call that raised gave no gradient at all
            out.print("no tensor the script names gets a gradient from this call", markup=False)
        if call.error is not None:
            _print_error(
                out,
                program,
                call.error,
                diagnosis.call_errors.get(call.index, []),
                diagnosis.notes.get(call.index),
            )
    error = program.error
    if error is not None and error.in_call is None:
        message = {"type": error.type, "message": error.message, "line": error.line}
        _print_error(out, program, message, diagnosis.error_causes, diagnosis.notes.get("error"))
    for note in notes(program):
        out.print(f"note: {note}", markup=False, highlight=False)


def _print_error(out, program, error, causes, note) -> None:
    from rich.text import Text

    first = " ".join(str(error["message"]).split())[:300]
    head = Text(f"{program.framework_name} raises at line {error['line']}: ", style="bold red")
    head.append(f"{error['type']}: {first}")
    out.print(head)
    for part in cause_lines(program, causes):
        out.print(part)
    if note:
        out.print(f"note: {note}", markup=False, highlight=False)


def print_eval(program, out, plain: bool) -> None:
    """eval's table or plain output: each call's gradients."""
    for call in program.calls:
        if plain:
            out.write(f"call\t{call.index}\t{call.line}\t{title(call).split(': ', 1)[1]}\n")
            for g in call.gradients:
                out.write(f"grad\t{g.name}\t{g.status}\t{plain_value(g)}\n")
            if call.error is not None:
                out.write(
                    f"error\t{call.index}\t{call.error['type']}: "
                    f"{' '.join(call.error['message'].split())}\n"
                )
            continue
    if plain:
        if program.error is not None and program.error.in_call is None:
            e = program.error
            out.write(f"error\tline {e.line}\t{e.type}: {' '.join(e.message.split())}\n")
        for note in notes(program):
            out.write(f"note\t{note}\n")


def print_eval_tables(program, out) -> None:
    """eval's tables: per call, name, shape, dtype, status and value of each gradient."""
    from rich.table import Table

    from gradcli.views.format import rule

    for call in program.calls:
        rule(out, title(call))
        table = Table(show_edge=False, pad_edge=False)
        for column in ("gradient", "shape", "dtype", "status", "value"):
            table.add_column(column)
        for g in call.gradients:
            value = (
                "None"
                if g.status == "unconnected" and g.value is None
                else (pretty(gradient_value(g)) if g.value is not None else "(too large to show)")
            )
            table.add_row(g.name, shape_text(g.shape or ()), g.dtype or "", g.status, value)
        out.print(table)
        if call.error is not None:
            out.print(
                f"{program.framework_name} raises {call.error['type']}: "
                f"{' '.join(call.error['message'].split())[:300]}",
                markup=False,
            )
    if program.error is not None and program.error.in_call is None:
        e = program.error
        out.print(
            f"{program.framework_name} raises at line {e.line}: {e.type}: "
            f"{' '.join(e.message.split())[:300]}",
            markup=False,
        )
    for note in notes(program):
        out.print(f"note: {note}", markup=False, highlight=False)
