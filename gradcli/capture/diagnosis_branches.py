"""Untaken branches in the run mode: a source that gets None because the only code that
would have used it is a branch of a Python `if`, `x if c else y` or `tf.cond` that never
ran. It is named `untaken_branch` at the construct's line, as the static reader names it,
instead of `no_path`.

The run sees only what ran, so the rule never guesses that a branch did not run. It reads
the recorded operations' positions (the instruction span of each user frame; Python 3.11
and later have them) against the script's syntax (capture/branch_syntax). A branch is
named for a source x when all of these hold:
  1. x is the script's global name for the source, bound once, where the source was made,
     and read as that global both in the branch and where the gradient call is;
  2. once entered, the branch surely runs an operation on x (x * y, -x, x[i], x > 0,
     tf.f(x), a plain helper that does one), and its other branch does not read x;
  3. no operation recorded before the call has a frame inside the branch. A frame known
     by its line only, on one of the branch's lines, counts as inside: gradcli is unsure;
  4. the construct fed the output: an operation or tensor on the output's path was made
     inside the construct (not in that branch), or in a later statement that reads a name
     the construct assigns, or the call differentiates such a name.
Otherwise the diagnosis keeps `no_path`.
"""

from __future__ import annotations

import ast
import keyword

from gradcli.capture.branch_syntax import Construct, Syntax, parse, span_of
from gradcli.capture.user_files import MAX_STACK
from gradcli.explain.report import CauseKind as K

UNSURE = None  # an operation whose frames in the script are not all known


class BranchEvidence:
    """The script's syntax and each recorded operation's positions in it, read once."""

    def __init__(self, program):
        self.program = program
        self.syntax: Syntax | None = None
        if program.lines and not program.facts.get("capture_failure"):
            self.syntax = parse("\n".join(program.lines))
        self.positions = [_positions(op, program.file) for op in program.ops]

    def ran_inside(self, span, end: int) -> bool:
        """Whether some operation before index `end` may have run inside `span`."""
        for found in self.positions[:end]:
            if found is UNSURE:
                return True
            if any(_inside(p, span) is not False for p in found):
                return True
        return False

    def made_inside(self, construct: Construct, skip, ops, values) -> bool:
        """Whether one of these operations or values was made inside the construct and
        outside `skip` (the untaken branch)."""
        for o in ops:
            found = self.positions[o]
            if found is not UNSURE and any(self._within(p, construct, skip) for p in found):
                return True
        for v in values:
            value = self.program.values.get(v)
            if value is None or value.op is not None or value.line is None:
                continue
            at = value.span or (value.line, value.line, None, None)
            if self._within(at, construct, skip):
                return True
        return False

    def _within(self, pos, construct: Construct, skip) -> bool:
        inside = _inside(pos, construct.span)
        if inside is None:  # known by its line: an if statement has its lines to itself
            return construct.kind == "if" and _inside(pos, skip) is False
        return inside and _inside(pos, skip) is False

    def ran_in(self, stmts, after_line: int, ops) -> bool:
        """Whether one of these operations ran in one of the statements."""
        spans = [span_of(s) for s in stmts]
        for o in ops:
            found = self.positions[o]
            if found is UNSURE:
                continue
            for p in found:
                for s in spans:
                    inside = _inside(p, s)
                    if inside or (inside is None and p[0] > after_line):
                        return True
        return False


def untaken_branches(doctor, call, x: int) -> list:
    """The untaken_branch causes of source x's None gradient in a call (the module
    docstring's rule), or [] when the run cannot show one."""
    program = doctor.program
    name = program.names.get(x)
    if not name or not name.isidentifier() or keyword.iskeyword(name):
        return []
    if call.file not in (None, program.file):
        return []
    evidence = doctor.branch_evidence
    if evidence is None:
        evidence = doctor.branch_evidence = BranchEvidence(program)
    syntax = evidence.syntax
    value = program.values.get(x)
    if syntax is None or value is None or not syntax.bound_once_at(name, value.line):
        return []
    if not _global_at_call(syntax, name, call):
        return []
    end = call.first_op
    root_values, root_ops = doctor.flow.backward(call.roots, end)
    causes = []
    for construct in syntax.constructs:
        for branch in construct.branches:
            others = [b for b in construct.branches if b is not branch]
            if not syntax.operates(branch.code, name) or not syntax.is_global(name, _node(branch)):
                continue
            if any(syntax.reads(b.code, name) for b in others):
                continue
            if evidence.ran_inside(branch.span, end):
                continue
            if not _fed(evidence, syntax, construct, branch, call, root_ops, root_values):
                continue
            causes.append(_cause(doctor, construct, branch, name))
    return doctor._grouped(causes)


def _fed(evidence, syntax, construct, branch, call, root_ops, root_values) -> bool:
    """Condition 4: the construct's result went on toward the call's output."""
    if evidence.made_inside(construct, branch.span, sorted(root_ops), root_values):
        return True
    if not construct.results:
        return False
    statement = construct.statement
    reading = [s for s in construct.later if any(syntax.reads(s, r) for r in construct.results)]
    if evidence.ran_in(reading, statement.end_lineno, sorted(root_ops)):
        return True
    target = call.root_names[0] if len(call.root_names) == 1 else None
    if target not in _aliases(construct) or call.line is None:
        return False
    scope = syntax.scope_of(statement)
    return (
        scope is not None
        and _call_in(syntax, scope, call)
        and any(
            s.lineno > statement.end_lineno and s.lineno <= call.line <= s.end_lineno
            for s in construct.later
        )
    )


def _aliases(construct: Construct) -> set[str]:
    """The construct's result names, and the names later plain assignments (`loss = z`)
    give them."""
    names = set(construct.results)
    for stmt in construct.later:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id in names
        ):
            names.add(stmt.targets[0].id)
    return names


def untaken_for_target(doctor, call) -> list:
    """For a call whose target is no tensor (a branch that ran returned a Python number):
    the untaken branches of the sources its text names, by the same rule."""
    program = doctor.program
    if call.roots or call.line is None:
        return []
    evidence = doctor.branch_evidence
    if evidence is None:
        evidence = doctor.branch_evidence = BranchEvidence(program)
    if evidence.syntax is None:
        return []
    causes = []
    for name in _source_names(evidence.syntax, call.line):
        vids = [v for v, n in program.names.items() if n == name]
        if len(vids) == 1:
            causes += untaken_branches(doctor, call, vids[0])
    return doctor._grouped(causes)


def _source_names(syntax: Syntax, line: int) -> list[str]:
    """The plain names a gradient call at `line` lists as its sources."""
    for node in ast.walk(syntax.tree):
        if not isinstance(node, ast.Call) or node.lineno != line or len(node.args) < 2:
            continue
        if not isinstance(node.func, ast.Attribute) or node.func.attr != "gradient":
            continue
        sources = node.args[1]
        items = sources.elts if isinstance(sources, (ast.List, ast.Tuple)) else [sources]
        return [n.id for n in items if isinstance(n, ast.Name)]
    return []


def _cause(doctor, construct: Construct, branch, name: str):
    only = f"the only code that uses {name}"
    if construct.kind == "if" and len(construct.branches) == 1:
        detail = (
            f"the condition of {construct.text()} was false, so its body, {only}, never ran "
            f"and {name} gets no gradient"
        )
    else:
        taken = "false" if branch.side == "true" else "true"
        detail = (
            f"{construct.text()} took its {taken} branch; its {branch.side} branch, {only}, "
            f"never ran, so {name} gets no gradient"
        )
    cause = doctor.cause(K.UNTAKEN_BRANCH, None, detail, line=construct.line)
    cause.op = "cond"
    return cause


def _node(branch):
    return branch.code[0] if isinstance(branch.code, list) else branch.code


def _global_at_call(syntax: Syntax, name: str, call) -> bool:
    """Whether `name` at the gradient call's line is the module's global."""
    if call.line is None:
        return False
    if call.function in (None, "<module>"):
        return True
    defs = [
        n
        for n in ast.walk(syntax.tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and n.name == call.function
        and n.lineno <= call.line <= n.end_lineno
    ]
    if len(defs) != 1:
        return False
    inner = min(defs, key=lambda n: n.end_lineno - n.lineno)
    return syntax.is_global(name, inner.body[0]) if inner.body else False


def _call_in(syntax: Syntax, scope, call) -> bool:
    """Whether the gradient call ran in this function (or the module's code)."""
    if isinstance(scope, ast.Module):
        return call.function in (None, "<module>")
    return call.function == scope.name and scope.lineno <= (call.line or 0) <= scope.end_lineno


def _positions(op, file: str):
    """The positions of an operation's frames in the script: (line, end line, column, end
    column), columns None where only the line is known; UNSURE when its recorded frames
    may not reach the script's own code (a deep stack cut at MAX_STACK)."""
    stack = op.extra.get("stack")
    if not stack:
        if op.file == file and op.line is not None:
            return [(op.line, op.line, None, None)]
        return []
    if len(stack) >= MAX_STACK and stack[-1][2] != "<module>":
        return UNSURE
    spans = getattr(stack, "spans", ())
    out = []
    for k, (f, line, _) in enumerate(stack):
        if f != file:
            continue
        span = spans[k] if k < len(spans) else None
        out.append(span if span is not None else (line, line, None, None))
    return out


def _inside(pos, span):
    """True or False: the position lies inside the span; None: unsure (only its line is
    known, and it is one of the span's lines)."""
    if pos[2] is None:
        return None if span[0] <= pos[0] <= span[1] else False
    return (pos[0], pos[2]) >= (span[0], span[2]) and (pos[1], pos[3]) <= (span[1], span[3])
