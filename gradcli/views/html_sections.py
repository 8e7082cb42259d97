"""The sections of `explain --html`: a spec's or expression's pairs, a TensorFlow program's
gradient calls, and the gradient calls of a script run with --run, as html_report reads
them (each finding with its causes and its picture's DOT)."""

from __future__ import annotations

from gradcli.views import graph_model as gv
from gradcli.views.explain_report import title as pair_title
from gradcli.views.html_report import ERROR, MAX_CAUSES, CauseRow, Finding, Section, picture

MESSAGE = 300  # characters of an error message in a finding's title line


def _finding(pair, rows: list[CauseRow], name: str | None = None) -> Finding:
    return Finding(
        title=name or pair_title(pair),
        status=str(pair.status),
        reason=pair.reason or str(pair.status),
        causes=rows[:MAX_CAUSES],
        more_causes=max(0, len(rows) - MAX_CAUSES),
    )


def error_finding(who: str, error: dict, rows: list[CauseRow], note: str | None) -> Finding:
    """What the framework raised, as a finding with its causes."""
    message = " ".join(str(error["message"]).split())
    line = error.get("line")
    reason = message if len(message) <= MESSAGE else message[: MESSAGE - 3] + "..."
    if note:
        reason += f" (note: {note})"
    where = f" at line {line}" if line is not None else ""
    return Finding(f"{who} raises{where}: {error['type']}", ERROR, reason, rows[:MAX_CAUSES],
                   max(0, len(rows) - MAX_CAUSES))  # fmt: skip


def problem_section(problem, pairs, heading: str) -> Section:
    """A spec's (or one TensorFlow call's) pairs: a finding per pair that is not fine."""
    from gradcli.core.printing import source_line

    section = Section(heading)
    view = None
    for pair in pairs:
        if pair.ok:
            section.fine.append(pair_title(pair))
            continue
        rows = [
            CauseRow(str(c.kind), c.line, c.detail, source_line(problem, c.line),
                     c.extra.get("fix"), str(c.location) if _elsewhere(c, problem) else None)
            for c in pair.causes
        ]  # fmt: skip
        finding = _finding(pair, rows)
        names = problem.graph.names
        if pair.input in names and pair.output in names:
            if view is None:
                view = gv.collect(problem.scratch())
            x, y = names[pair.input], names[pair.output]
            causes = [(c.node_id if c.node_id in view.nodes else None, str(c.kind))
                      for c in pair.causes]  # fmt: skip
            finding.dot, finding.note = picture(view, x, [y], causes)
        section.findings.append(finding)
    return section


def _elsewhere(cause, problem) -> bool:
    """The cause's op is in another file than the program's own (a module it imports)."""
    file = getattr(cause.location, "file", None)
    return file is not None and file != problem.source.file


def tf_sections(program, chosen, pairs) -> list[Section]:
    """A TensorFlow program's gradient calls: (k, call) chosen, pairs as (k, call, pair)."""
    from gradcli.views.calls_report import title

    sections = []
    for k, call in chosen:
        mine = [p for j, _, p in pairs if j == k]
        if call.problem is not None:
            section = problem_section(call.problem, mine, title(k, call))
        else:
            section = Section(title(k, call))
        if call.unknown is not None:
            why = call.unknown["reason"]
            section.notes += [f"d{call.target}/d{n}: {why}" for n in call.sources]
        section.notes += [f"note: {note}" for note in call.notes]
        if call.error is not None:
            section.findings.append(error_finding("TensorFlow", call.error, [], None))
        sections.append(section)
    error = program.error
    if error is not None:
        finding = error_finding("TensorFlow", error, [], error.get("note"))
        sections.append(Section("the program", [finding]))
    return sections


def run_sections(program, diagnosis) -> list[Section]:
    """The gradient calls of a script run with --run: a finding per group of gradients
    sharing their causes, with the picture of the first one's paths."""
    from gradcli.views.run_graph import view_of
    from gradcli.views.run_report import grouped, notes, title

    sections = []
    for call in program.calls:
        section = Section(title(call))
        pairs = [p for k, p in diagnosis.pairs if k == call.index]
        view = view_of(program, diagnosis, call) if pairs else None
        ids = {g.name: g.value_id for g in call.gradients}
        for group in grouped([p for p in pairs if not p.ok]):
            pair = group[0]
            rows = _rows(program, pair.causes)
            names = ", ".join(p.input for p in group)
            finding = _finding(pair, rows, f"{names}: {pair.output}")
            source = ids.get(pair.input)
            if view is not None and source in view.nodes:
                causes = _run_causes(view, pair.causes)
                finding.dot, finding.note = picture(view, source, view.outputs, causes)
            section.findings.append(finding)
        section.fine = [p.input for p in pairs if p.ok and p.status == "connected"]
        section.notes += [f"{p.input}: {p.status}" + (f" ({p.reason})" if p.reason else "")
                          for p in pairs if p.ok and p.status != "connected"]  # fmt: skip
        if call.error is not None:
            rows = _rows(program, diagnosis.call_errors.get(call.index, []))
            note = diagnosis.notes.get(call.index)
            section.findings.append(error_finding(program.framework_name, call.error, rows, note))
        sections.append(section)
    error = program.error
    if error is not None and error.in_call is None:
        said = {"type": error.type, "message": error.message, "line": error.line}
        rows = _rows(program, diagnosis.error_causes)
        finding = error_finding(program.framework_name, said, rows, diagnosis.notes.get("error"))
        sections.append(Section("the script", [finding]))
    if notes(program):
        sections.append(Section("notes", notes=notes(program)))
    return sections


def _run_causes(view, causes) -> list[tuple[int, str]]:
    """(node, kind) for the run mode's causes: a cut cause on each cut edge's consumer at its
    line (the edge then carries the diagnosis's word, TensorFlow's stop_gradient rather than
    the capture's detach); any other cause on the nodes its operation made at its line."""
    from gradcli.views.svg import Role, kind_style

    cuts, others = {}, {}
    for c in causes:
        if c.line is None:
            continue
        if kind_style(str(c.kind)).role is Role.CUT:
            cuts[c.line] = str(c.kind)
        elif c.op:
            others.setdefault((c.line, c.op), []).append(str(c.kind))
    found = []
    for e in view.edges:
        line = view.nodes[e.target].line
        if e.cut is not None and line in cuts:
            found.append((e.target, cuts[line]))
    for i, vn in view.nodes.items():
        found += [(i, kind) for kind in others.get((vn.line, vn.op), ())]
    return found


def _rows(program, causes) -> list[CauseRow]:
    """The run mode's causes with their source lines and fixes."""
    from gradcli.views.run_report import _source

    return [CauseRow(str(c.kind), c.line, c.detail, _source(program, c), c.extra.get("fix"),
                     c.extra.get("file")) for c in causes]  # fmt: skip
