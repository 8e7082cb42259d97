"""Causes found inside a function-like op's body (a tf.while_loop's `While`, a tf.function
called eagerly or inside another), read by capture/bodies.py: the ops without a gradient
every path inside passes (named where they are, at your line in the body), else `unknown
beyond line N` at the loop or function whose values gradcli does not read, with the ops on
the path that could explain it. Never a TensorFlow function name.
"""

from __future__ import annotations

from gradcli.capture.bodies import Bodies, Reading, holder, where
from gradcli.capture.program import Gradient, GradientCall, Operation
from gradcli.explain.analysis import Cause
from gradcli.explain.report import CauseKind as K

MAX_LISTED = 4  # ops named as candidates in an unknown cause
EAGER_FIX = (
    "to have the values inside read, run the functions eagerly: "
    "tf.config.run_functions_eagerly(True) at the top of the script (model.compile("
    "run_eagerly=True) for fit), then run --run again: the loop then runs op by op"
)


def bodies(doctor) -> Bodies:
    """The doctor's index of body graphs, made on first use."""
    found = getattr(doctor, "_bodies", None)
    if found is None:
        found = doctor._bodies = Bodies(doctor.program)
    return found


def has_body(doctor, op: Operation | None) -> bool:
    """Whether op is a function-like op whose body was recorded."""
    return op is not None and bodies(doctor).has_body(op)


def reading(doctor, call: GradientCall, g: Gradient, op: Operation) -> Reading | None:
    """The body's reading for the paths from g's source through op to the call's output."""
    end = call.first_op
    starts = doctor.flow.forward([g.value_id], end)[0] & set(op.inputs)
    targets = doctor.flow.backward(call.roots, end)[0] & set(op.outputs)
    if not starts or not targets:
        return None
    return bodies(doctor).read(op, starts, targets)


def zero_causes(doctor, call: GradientCall, g: Gradient, op: Operation, count: int) -> list:
    """Why the gradient through a function-like op turned zero: the cuts inside, or
    unknown beyond its line."""
    found = reading(doctor, call, g, op)
    if found is not None and found.cuts:
        return [_cut(doctor, g, found, cut, zero=True) for cut in found.cuts]
    return [_unknown(doctor, found, op, "zeros", count)]


def unread_zeros(doctor, call: GradientCall, g: Gradient) -> list:
    """Zeros toward g's source passed by a function-like op whose outputs' gradients were
    not counted (a loop's TensorLists): read inside it, as zero_causes does."""
    toward, own = doctor.toward(call, g.value_id)
    causes = []
    for i in sorted(toward - own):
        node = call.nodes[i]
        op = doctor.program.ops[node.op] if node.op is not None else None
        if node.out is not None or not node.slots or not has_body(doctor, op):
            continue
        zeros = [s[1] for c, s in zip(node.children, node.slots) if c in own and s and s[1]]
        if zeros:
            causes += zero_causes(doctor, call, g, op, max(zeros))
    return causes


def none_causes(doctor, call: GradientCall, g: Gradient, on_path: list[Operation]) -> list:
    """Why no gradient (None) came through a function-like op on the path: the cuts inside
    its body; [] where its body does not say."""
    causes = []
    for op in on_path:
        if not has_body(doctor, op):
            continue
        found = reading(doctor, call, g, op)
        if found is not None and found.cuts:
            causes += [_cut(doctor, g, found, cut, zero=False) for cut in found.cuts]
        elif found is not None and (found.carried or found.unseen):
            causes.append(_unknown(doctor, found, op, "none", 0))
    return causes


def nonfinite_causes(doctor, call: GradientCall, g: Gradient, op: Operation) -> list:
    """A NaN or Inf that a function-like op made from finite inputs: unknown beyond its
    line, with the ops inside that can make one."""
    return [_unknown(doctor, reading(doctor, call, g, op), op, "nonfinite", 0)]


def _cut(doctor, g: Gradient, found: Reading, op: Operation, zero: bool) -> Cause:
    cause = doctor.cut(op)
    if cause.kind == str(K.NON_DIFFERENTIABLE) and op.extra.get("no_grad"):
        cause.detail = f"{op.name} has no gradient (TensorFlow's gradient for it is None)"
    inside = where(found)
    what = "zero" if zero else "None"
    cause.detail += (
        f"; every path from {g.name} to the output inside {inside} passes through it, so "
        f"TensorFlow's gradient through the {holder(found)} is {what}"
    )
    cause.extra["body_of"] = found.op.line
    return cause


def _unknown(doctor, found: Reading | None, op: Operation, what: str, count: int) -> Cause:
    """unknown beyond line N: N is the loop's or function's line."""
    holder = found.enclosing if found is not None and found.enclosing is not None else op
    line = holder.line
    inside = where(found) if found is not None else f"{op.name} at line {op.line}"
    makers = []
    if found is not None:
        makers = found.nan_makers() if what == "nonfinite" else found.zero_makers()
    listed = list(dict.fromkeys(f"{m.name} (line {m.line})" for m in makers))
    if what == "zeros":
        head = f"the gradient turns zero at {count} element{'s' * (count != 1)} inside {inside}"
    elif what == "nonfinite":
        head = f"the NaN/Inf is made inside {inside}"
    else:
        head = f"no gradient comes out of {inside}"
    detail = f"{head}, whose values gradcli does not read: unknown beyond line {line}"
    if found is not None and found.unseen:
        kinds = ", ".join(sorted(set(found.unseen))[:MAX_LISTED])
        detail += f"; TensorFlow built ops there that gradcli did not see ({kinds})"
    if listed:
        more = len(listed) - MAX_LISTED
        shown = ", ".join(listed[:MAX_LISTED]) + (f" and {more} more" if more > 0 else "")
        can = "can make NaN/Inf" if what == "nonfinite" else "can make it zero"
        detail += f" (on the path there, {shown} {can})"
    cause = doctor.cause(K.UNKNOWN, None, detail, line=line)
    cause.extra["fix"] = EAGER_FIX
    return cause
