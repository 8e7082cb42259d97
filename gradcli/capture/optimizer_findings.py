"""What happened to the gradients after their call: an optimizer step that found them
erased (`zero_grad_misuse`), and tensors that get a gradient but that no optimizer holds
(`not_in_optimizer`, or `not_registered` when their module never registered them)."""

from __future__ import annotations

from gradcli.capture.program import OpKind
from gradcli.explain.report import CauseKind as K


def add_findings(doctor, pairs) -> None:
    """Append the optimizer-level causes to the pairs they concern."""
    program = doctor.program
    by_call: dict[int, dict[int, object]] = {}
    calls = program.calls
    for k, pair in pairs:
        call = calls[k]
        vid = next((g.value_id for g in call.gradients if g.name == pair.input), None)
        if vid is not None:
            by_call.setdefault(k, {})[vid] = pair
    _zero_grad_misuse(doctor, by_call)
    _not_in_optimizer(doctor, by_call)


def _zero_grad_misuse(doctor, by_call) -> None:
    program = doctor.program
    calls = program.calls
    for opt in program.optimizers:
        for step in opt.steps:
            before = [c for c in calls if c.last_op >= 0 and c.last_op <= step["op"]]
            if not before:
                continue
            call = before[-1]
            erased = []
            for op in program.ops[call.last_op : step["op"]]:
                if op.kind is OpKind.SET_GRAD and op.extra.get("value") is None and op.inputs:
                    erased.append((op.inputs[0], op))
            for vid, op in erased:
                pair = by_call.get(call.index, {}).get(vid)
                if pair is None or vid not in step["none"] or pair.status == "unconnected":
                    continue
                detail = (
                    f"the gradient of {pair.input} from the backward at line "
                    f"{call.line} is erased here, before the optimizer step at line "
                    f"{step['line']}, which then has nothing to apply"
                )
                pair.causes.append(doctor.cause(K.ZERO_GRAD_MISUSE, op, detail))
                pair.reason = doctor.reason(pair)


def _not_in_optimizer(doctor, by_call) -> None:
    program = doctor.program
    stepped = [o for o in program.optimizers if o.steps]
    if not stepped:
        return
    held = set().union(*(o.params for o in program.optimizers))
    first = program.optimizers[0]
    lines = ", ".join(f"line {o.line}" for o in program.optimizers if o.line)
    for _k, pairs in by_call.items():
        for vid, pair in pairs.items():
            value = program.values[vid]
            registered = program.registered.get(vid)
            if vid in held or pair.status == "unconnected":
                continue
            if not (value.parameter or registered):
                continue
            if registered is not None:
                cause = doctor.cause(
                    K.NOT_REGISTERED, None, registered["detail"], line=registered["line"]
                )
                cause.extra["fix"] = registered["fix"]
            else:
                detail = (
                    f"{pair.input} gets a gradient, but no optimizer holds it (the "
                    f"optimizers built at {lines} do not): it is never updated"
                )
                cause = doctor.cause(K.NOT_IN_OPTIMIZER, None, detail, line=first.line)
            pair.causes.append(cause)
            pair.reason = doctor.reason(pair)
