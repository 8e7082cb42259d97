"""eval and explain on a TensorFlow program that draws numbers at random (tfcode/drawn.py):
gradcli's generator is not TensorFlow's, so numbers computed from its draws are never given
as TensorFlow's. eval refuses where a call has a gradient to print; explain refuses where it
would report zeros or NaN found in those numbers, and otherwise notes that it looked for none.
Both refusals are at the draw's line and say how to read the file with --run."""

from __future__ import annotations

from gradcli.runtime.errors import GradcliError

# explain's cause kinds that do not depend on the numbers: cuts of the graph (a path that is
# missing or cut is so whatever values flow through it)
STRUCTURAL = frozenset(
    {"no_path", "stop_gradient", "non_differentiable", "untaken_branch", "integer",
     "leaves_tape", "not_watched", "outside_tape", "unknown"}
)  # fmt: skip
NUMERIC_STATUSES = frozenset({"partially_zero", "zero", "non_finite"})


def _refuse(program, call, what: str, command: str):
    from gradcli.tfcode.refusals import run_hint

    draw = call.drawn
    hint = run_hint(program.file).replace("gradcli explain", f"gradcli {command}")
    raise GradcliError(
        f"{what} at line {call.line} would be computed from {draw.what()}; {hint}", draw.pos
    )


def refuse_drawn_gradients(program, chosen) -> None:
    """eval: refuse a call whose gradients have numbers computed from gradcli's draws."""
    for _, call in chosen:
        ev = call.evaluation
        if call.drawn is None or ev is None:
            continue
        if any(v is not None for v in ev.gradients.values()):
            _refuse(program, call, "the gradients' numbers", "eval")


def numeric_claim(pair) -> bool:
    """Whether a pair reports zeros or NaN that depend on the numbers, or a branch not taken
    (its condition may have been decided by drawn numbers)."""
    if any(c.kind == "untaken_branch" for c in pair.causes):
        return True
    if pair.status not in NUMERIC_STATUSES:
        return False
    return not pair.causes or any(c.kind not in STRUCTURAL for c in pair.causes)


def check_drawn_pairs(program, pairs) -> set[int]:
    """explain: refuse a zero or NaN finding in a call's numbers drawn by gradcli; the calls
    whose connected pairs explain answers without looking at the numbers (noted)."""
    blind: set[int] = set()
    for k, call, pair in pairs:
        if call.drawn is None:
            continue
        if numeric_claim(pair):
            branch = any(c.kind == "untaken_branch" for c in pair.causes)
            claim = "branch not taken" if branch else "zeros or NaN"
            _refuse(program, call, f"d{pair.output}/d{pair.input}'s {claim}", "explain")
        if pair.status != "unconnected":
            blind.add(k)
    for k in blind:
        call = program.calls[k]
        note = (
            f"the gradients' numbers come from {call.drawn.what()}: explain names what cuts "
            "a path, but does not say which elements TensorFlow's gradients have zero or "
            "NaN (read it by running it: --run)"
        )
        if note not in call.notes:
            call.notes.append(note)
    return blind
