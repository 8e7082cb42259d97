"""The causes of an error the framework raised in or around a gradient call: the in-place
write into a saved tensor, the second backward through a freed graph, the loss that
requires no grad, the `.grad` that was None... each read from the error's meaning
(`words.read_error`) and the captured program, at the line that caused it."""

from __future__ import annotations

import math
import re

from gradcli.capture.program import GradientCall, OpKind
from gradcli.explain.report import CauseKind as K


def error_causes(doctor, message: str, call: GradientCall | None, line) -> tuple[list, str]:
    """(causes, note) for an error message; no causes when it is not about gradients."""
    fact = doctor.words.read_error(message)
    if fact is None:
        return [], ""
    kind = fact["kind"]
    note = doctor.words.NOTES.get(kind, "")
    reader = _READERS.get(kind)
    if reader is None:
        return [], note
    return reader(doctor, fact, call, line), note


def _ops_before(doctor, call, line):
    ops = doctor.program.ops
    end = call.first_op if call is not None else len(ops)
    return ops[:end]


def _inplace_saved(doctor, fact, call, line):
    ops = list(reversed(_ops_before(doctor, call, line)))
    # the tensor of the message's shape first; else one it is a view of (same size)
    found = [op for op in ops if _wrote_saved(doctor, op, fact, exact=True)][:1] or [
        op for op in ops if _wrote_saved(doctor, op, fact, exact=False)
    ][:1]
    if not found:
        return [
            doctor.cause(
                K.INPLACE,
                None,
                "an in-place operation changed a tensor that "
                "backward needs; gradcli did not see which",
                line=line,
            )
        ]
    op = found[0]
    target = op.inputs[0]
    savers = [
        doctor.program.ops[o]
        for o in doctor.flow.consumers.get(target, ())
        if o < op.index and (call is None or o in call.reached_ops)
    ]
    used = "; ".join(f"{s.name} at line {s.line}" for s in savers[:3])
    saved = f" after {used} saved it for backward" if used else " after it was saved for backward"
    detail = (
        f"{op.name} writes into {doctor.name(target)} in place (version "
        f"{op.extra['version']} to {op.extra['after'][0]}){saved}"
    )
    return [doctor.cause(K.INPLACE, op, detail, saved_by=[s.line for s in savers[:3]])]


# nodes whose output is a view of their input: the message may name the saved view (a
# Linear saves weight.t(), reported as "output 0 of AsStrided" with the transposed shape)
_VIEW_NODES = frozenset(("AsStrided", "T", "Transpose", "Permute", "View", "Reshape", "Alias"))


def _wrote_saved(doctor, op, fact, exact: bool) -> bool:
    """Whether an in-place op wrote the tensor the message names (at its version)."""
    values = doctor.program.values
    if op.kind is not OpKind.INPLACE or "version" not in op.extra or not op.inputs:
        return False
    value = values[op.inputs[0]]
    if fact["shape"] is not None and not _same_tensor(value.shape, fact, exact):
        return False
    # the message names the tensor's node as it is now: before the write, or (an
    # in-place op rebases it) the write's own node
    nodes = {_node(value.grad_node)} | {_node(values[o].grad_node) for o in op.outputs}
    if fact["node"] and _node(fact["node"]) not in nodes and not value.leaf:
        return False
    return op.extra["version"] == fact["expected"] or (
        op.extra["version"] < fact["version"]
        and op.extra["after"][:1] != []
        and op.extra["after"][0] <= fact["version"]
    )


def _same_tensor(shape, fact, exact: bool) -> bool:
    """Whether the message's [shape] is the written tensor's, or (not exact) that of a
    view of it of the same size."""
    shape, named = tuple(shape), fact["shape"]
    if exact or shape == named:
        return shape == named
    return _node(fact["node"]) in _VIEW_NODES and math.prod(shape) == math.prod(named)


def _node(name: str | None) -> str:
    """A gradient node's name without its Backward suffix (messages use either form)."""
    return re.sub(r"Backward\d*$", "", name or "")


def _backward_twice(doctor, fact, call, line):
    program = doctor.program
    if call is None:
        return []
    earlier = [c for c in program.calls[: call.index] if not c.retain_graph]
    for first in reversed(earlier):
        shared = first.reached_ops & call.reached_ops
        if not shared:
            continue
        reused = []
        for o in sorted(call.reached_ops - shared):
            op = program.ops[o]
            if op.index >= first.last_op:
                reused += [i for i in op.inputs if program.values[i].op in shared]
        reused = list(dict.fromkeys(reused))
        what = ", ".join(doctor.name(v) for v in reused[:3]) or "part of its graph"
        uses = [
            program.ops[o]
            for o in sorted(call.reached_ops - shared)
            if o >= first.last_op and set(program.ops[o].inputs) & set(reused)
        ]
        again = f"; line {uses[0].line} uses it again" if uses else ""
        detail = (
            f"the backward at line {first.line} already freed the graph of {what}, "
            f"which this call goes through again{again}"
        )
        # the same backward line again (a loop): the graph was carried across iterations by
        # the reused value, made here; another line: two backward calls through one graph
        made = program.values[reused[0]] if reused else None
        maker = program.ops[made.op] if made is not None and made.op is not None else None
        carried = first.line == call.line and first.file == call.file and maker is not None
        at = doctor.line_in(maker, call.file, call.function) if carried else first.line
        held = doctor.name(reused[0]).split("[")[0] if reused else ""
        if carried and uses and "." in held:
            # the state lives in an attribute (self.hidden), not in a variable the loop passes
            # in: the line that feeds it back is where it is used again, inside forward
            at = uses[0].line
        cause = doctor.cause(K.BACKWARD_TWICE, None, detail, line=at)
        cause.extra["first_backward_line"] = first.line
        cause.extra["fix"] = doctor.words.FIXES[
            "backward_twice_carried" if carried else "backward_twice"
        ]
        if reused:
            cause.extra["reused"] = doctor.name(reused[0])
        return [cause]
    return [
        doctor.cause(
            K.BACKWARD_TWICE,
            None,
            "this call goes through a graph an earlier backward already freed",
            line=line,
        )
    ]


def _root_no_grad(doctor, fact, call, line):
    program = doctor.program
    roots = call.roots if call is not None else []
    end = call.first_op if call is not None else len(program.ops)
    values, root_ops = doctor.flow.backward(roots, end)
    ops = program.ops
    cuts = []
    for o in sorted(root_ops):
        op = ops[o]
        entering = [i for i in op.inputs if program.values[i].requires_grad]
        if entering and not any(program.values[w].requires_grad for w in op.outputs):
            cuts.append(doctor.cut(op))
    if cuts:
        return doctor._grouped(cuts)
    made = (OpKind.CREATE, OpKind.REWRAP)
    leaves = [
        v
        for v in sorted(values)
        if program.values[v].floating
        and (program.values[v].op is None or ops[program.values[v].op].kind in made)
    ]
    frozen = [doctor.frozen(v, end) for v in leaves]
    if frozen:
        return doctor._grouped(frozen)
    return [
        doctor.cause(
            K.REQUIRES_GRAD_FALSE,
            None,
            "nothing the output is computed from requires grad",
            line=line,
        )
    ]


def _inference_saved(doctor, fact, call, line):
    program = doctor.program
    failed = [op for op in program.ops if op.extra.get("raised") and op.line == line]
    op = failed[-1] if failed else None
    inputs = op.inputs if op is not None else ()
    made = [v for v in inputs if program.values[v].inference]
    causes = []
    error = program.error
    for v in made:
        value = program.values[v]
        maker = program.ops[value.op] if value.op is not None else None
        detail = (
            f"{doctor.name(v)} was made under torch.inference_mode(), and inference "
            "tensors cannot be saved for backward"
        )
        at = doctor.line_shared(maker, error.stack) if error and maker else None
        causes.append(doctor.cause(K.NO_GRAD, None, detail, line=at or value.line))
    return doctor._grouped(causes) or [
        doctor.cause(K.NO_GRAD, op, "an input was made under torch.inference_mode()", line=line)
    ]


def _inplace_leaf(doctor, fact, call, line):
    program = doctor.program
    failed = [op for op in program.ops if op.extra.get("raised") and op.line == line]
    op = failed[-1] if failed else None
    target = doctor.name(op.inputs[0]) if op is not None and op.inputs else "a leaf"
    return [
        doctor.cause(
            K.INPLACE,
            op,
            f"an in-place write into {target}, a leaf that requires grad, outside torch.no_grad()",
            line=line,
        )
    ]


def _custom_count(doctor, fact, call, line):
    node = (fact.get("node") or "").removesuffix("Backward")
    found = [
        op
        for op in doctor.program.ops
        if op.kind is OpKind.CUSTOM and op.extra.get("function") == node
    ]
    op = found[-1] if found else None
    if op is not None and op.extra.get("backward"):
        cause = doctor.custom(op)
        cause.detail = (
            f"the backward of {node} (applied at line {op.line}) returns the wrong number of "
            "gradients: one per input of forward, None for those that need none"
        )
        return [cause]
    return [
        doctor.cause(
            K.CUSTOM_FUNCTION,
            op,
            f"the backward of {node or 'a custom Function'}"
            " returns the wrong number of gradients (one per input of forward)",
            line=line,
        )
    ]


def _unused_input(doctor, fact, call, line):
    if call is None:
        return []
    causes = []
    for g in call.gradients:
        if not g.reached:
            causes += doctor.cut_causes(call, g)
    return doctor._grouped(causes)


def _input_no_grad(doctor, fact, call, line):
    if call is None:
        return []
    return [doctor.frozen(g.value_id, call.first_op) for g in call.gradients if not g.requires_grad]


def _non_leaf_param(doctor, fact, call, line):
    info = doctor.program.facts.get("non_leaf_params") or {}
    return [doctor.non_leaf(v) for v in info.get("values", [])][:10]


def _none_grad(doctor, fact, call, line):
    program = doctor.program
    reads = [op for op in program.ops if op.kind is OpKind.READ_GRAD and op.line == line]
    # of the .grad reads on the failing line, the ones that gave None (no tensor came out)
    reads = [op for op in reads if not op.outputs] or reads
    if not reads:
        return []
    x = reads[-1].inputs[0] if reads[-1].inputs else None
    if x is None:
        return []
    if not program.values[x].leaf:
        return [doctor.non_leaf(x)]
    if not program.values[x].requires_grad:
        return [doctor.frozen(x, reads[-1].index)]
    erased = _erased_by_hand(doctor, x, reads[-1].index)
    if erased:
        return erased
    for k in range(len(program.calls) - 1, -1, -1):
        c = program.calls[k]
        for g in c.gradients:
            if g.value_id == x:
                return doctor.cut_causes(c, g) if g.status == "unconnected" else []
    if "zero_" in program.source(line):
        detail = f"{doctor.name(x)}.grad is zeroed before any backward has made it (it is None)"
        return [doctor.cause(K.ZERO_GRAD_MISUSE, reads[-1], detail)]
    return [
        doctor.cause(
            K.NO_PATH, reads[-1], f"{doctor.name(x)}.grad is None: no backward has reached it yet"
        )
    ]


def _erased_by_hand(doctor, x: int, end: int) -> list:
    """x.grad set by the script itself, then reset to None (zero_grad's set_to_none, the
    default since PyTorch 2.0) and not filled again by any backward before op `end`."""
    program = doctor.program
    sets = [
        op
        for op in program.ops[:end]
        if op.kind is OpKind.SET_GRAD and op.inputs and op.inputs[0] == x
    ]
    if not sets or sets[-1].extra.get("value") is not None:
        return []
    erase = sets[-1]
    by_hand = [op for op in sets[:-1] if op.extra.get("value") == "tensor"]
    if not by_hand:
        return []
    for c in program.calls:
        filled = any(g.value_id == x and g.status != "unconnected" for g in c.gradients)
        if erase.index < c.first_op < end and filled:
            return []  # a backward filled it again: not this
    detail = (
        f"{doctor.name(x)}.grad, set by hand at line {by_hand[-1].line}, is set to None here "
        "(zero_grad() sets gradients to None by default since PyTorch 2.0) and no backward "
        "fills it again"
    )
    fix = doctor.words.FIXES.get("zero_grad_set_to_none")
    return [doctor.cause(K.ZERO_GRAD_MISUSE, erase, detail, **({"fix": fix} if fix else {}))]


def _integer_grad(doctor, fact, call, line):
    """requires_grad on an integer tensor: where that tensor was made."""
    program = doctor.program
    failed = [op for op in program.ops if op.extra.get("raised") and op.line == line]
    op = failed[-1] if failed else None
    x = op.inputs[0] if op is not None and op.inputs else None
    value = program.values.get(x) if x is not None else None
    maker = program.ops[value.op] if value is not None and value.op is not None else None
    detail = (
        f"{doctor.name(x) if x is not None else 'the tensor'} is an integer tensor "
        f"({value.dtype if value else 'int'}), made here, and integer tensors cannot require grad"
    )
    return [doctor.cause(K.INTEGER, maker, detail, line=value.line if value else line)]


def _number_backward(doctor, fact, call, line):
    """backward() on a Python number: the values that left the framework before it."""
    program = doctor.program
    error = program.error
    end = error.op if error is not None else len(program.ops)
    exits = [op for op in program.ops[:end] if op.kind is OpKind.EXIT and op.inputs]
    exits = [op for op in exits if program.values[op.inputs[0]].requires_grad]
    return doctor._grouped([doctor.exit(op) for op in exits])


def _empty_params(doctor, fact, call, line):
    """An optimizer given no parameter: the layers made where they are not registered."""
    causes = []
    for found in doctor.program.facts.get("layers_in_forward", []):
        cause = doctor.cause(K.NOT_REGISTERED, None, found["detail"], line=found["line"])
        cause.extra["fix"] = found["fix"]
        causes.append(cause)
    return causes


def _numpy_grad(doctor, fact, call, line):
    """.numpy() (np.* on a tensor) refused: the value would leave autograd here."""
    program = doctor.program
    failed = [op for op in program.ops if op.extra.get("raised") and op.line == line]
    op = failed[-1] if failed else None
    detail = "NumPy is called on a tensor that requires grad: the value would leave autograd"
    return [doctor.cause(K.LEAVES_AUTOGRAD, op, detail, line=line)]


def _number_target(doctor, fact, call, line):
    """A gradient call whose target is a Python number: the branches that did not run."""
    from gradcli.capture.diagnosis_branches import untaken_for_target

    return untaken_for_target(doctor, call) if call is not None else []


def _symbolic_numpy(doctor, fact, call, line):
    """.numpy() on a symbolic tensor: where the script called it (the error's own line),
    the value would have left the tape there."""
    error = doctor.program.error
    if error is None or error.line is None or (call is not None and error.in_call != call.index):
        return []
    detail = (
        "a tensor is made a NumPy value here (.numpy()) where it is symbolic (a traced "
        "tf.function or Keras step, TF1 graph code), so TensorFlow raises; run eagerly it "
        "would leave the tape, and nothing before it would get a gradient"
    )
    return [doctor.cause(K.LEAVES_AUTOGRAD, None, detail, line=error.line)]


_READERS = {
    "inplace_saved": _inplace_saved,
    "backward_twice": _backward_twice,
    "root_no_grad": _root_no_grad,
    "inference_saved": _inference_saved,
    "inplace_leaf": _inplace_leaf,
    "custom_count": _custom_count,
    "unused_input": _unused_input,
    "input_no_grad": _input_no_grad,
    "non_leaf_param": _non_leaf_param,
    "none_grad": _none_grad,
    "integer_grad": _integer_grad,
    "number_backward": _number_backward,
    "empty_params": _empty_params,
    "numpy_grad": _numpy_grad,
    "symbolic_numpy": _symbolic_numpy,
    "number_target": _number_target,
}
