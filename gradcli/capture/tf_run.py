"""Run a TensorFlow/Keras script under capture: the op callback, the exits, the gradient
calls (tapes, tf.gradients, fit/train_on_batch, minimize), and what the script's end (or
its error, or a stop) leaves to read."""

from __future__ import annotations

from contextlib import ExitStack

import tensorflow as tf

from gradcli.capture import script
from gradcli.capture.numpy_syntax import numpy_bindings
from gradcli.capture.program import Captured, OpKind, ProgramError
from gradcli.capture.tf_calls import GradientCalls
from gradcli.capture.tf_capture import Recorder, install, user_files
from gradcli.capture.tf_custom import install as custom_gradients
from gradcli.capture.tf_words import KINDS


def seed_all(seed: int) -> None:
    """Seed as tf.keras.utils.set_random_seed does (Python's random, NumPy, TensorFlow)."""
    tf.keras.utils.set_random_seed(seed)


def capture(path: str, code, text: str, args, calls: int | None, timeout, seed) -> Captured:
    """Run the compiled script as __main__ and return what TensorFlow did."""
    files = user_files(code.co_filename)
    program = Captured(path, "tf", text.splitlines())
    rec = Recorder(program, files)
    gradient_calls = GradientCalls(rec, calls)
    if seed is not None:
        seed_all(seed)
    with ExitStack() as stack:
        _install(stack, rec, gradient_calls)
        outcome = script.run(code, code.co_filename, list(args), timeout)
    program.stopped = outcome.stopped
    program.exit_code = outcome.exit_code
    program.facts["numpy_names"] = numpy_bindings(outcome.namespace)
    if outcome.exception is not None:
        exc = outcome.exception
        file, line, function = script.script_frame(exc.__traceback__, files)
        program.error = ProgramError(
            type(exc).__name__,
            str(exc),
            line,
            file,
            len(program.ops),
            gradient_calls.errors.get(id(exc)),
            function,
        )
    _outside_tapes(program, rec)
    _unconnected_zeros(program)
    if rec.failure is not None:
        program.facts["capture_failure"] = f"{type(rec.failure).__name__}: {rec.failure}"
    return program


def _outside_tapes(program: Captured, rec: Recorder) -> None:
    """An op no tape recorded, on a value some tape watched (even later: tape.watch after
    the op) ran outside any recording tape: grad_enabled off, so the cut says so."""
    values = program.values
    consumers: dict[int, list] = {}
    for op in program.ops:
        for v in op.inputs:
            consumers.setdefault(v, []).append(op)
    for op in program.ops:
        if op.records_gradient or op.extra.get("type") != "ReadVariableOp":
            continue
        after = [c for v in op.outputs for c in consumers.get(v, ())]
        if after and all(c.kind is OpKind.DETACH and c.line == op.line for c in after):
            op.kind, op.name = OpKind.DETACH, after[0].name  # tf.stop_gradient(variable)
    # a variable a call's tape watches (or would have, read while it recorded)
    sources = {g.value_id for c in program.calls for g in c.gradients if g.requires_grad}
    for op in program.ops:
        if op.records_gradient or op.kind is not OpKind.COMPUTE:
            continue
        if not rec.differentiable(op.extra.get("type", "")):
            continue
        if any((values[v].requires_grad or v in sources) and values[v].floating for v in op.inputs):
            op.grad_enabled = False


def _unconnected_zeros(program: Captured) -> None:
    """unconnected_gradients=ZERO: an all-zero gradient whose source the call's target is
    not computed from, through any op a tape recorded, is an unconnected one (reached off,
    so the diagnosis explains the missing path)."""
    from gradcli.capture.flowgraph import FlowGraph

    zero_calls = program.facts.pop("zero_mode_calls", set())
    flow = FlowGraph(program) if zero_calls else None
    for k in sorted(zero_calls):
        call = program.calls[k]
        for g in call.gradients:
            if g.status != "zero" or g.value_id is None:
                continue
            reach, _ = flow.forward([g.value_id], call.first_op, gradient=True)
            if not reach & set(call.roots):
                g.reached = False


def _patch(stack: ExitStack, owner, name: str, make) -> None:
    original = owner.__dict__.get(name)
    if original is None:
        return
    setattr(owner, name, make(original))
    stack.callback(setattr, owner, name, original)


def _install(stack: ExitStack, rec: Recorder, calls: GradientCalls) -> None:
    """Every hook of the capture, undone when `stack` closes."""
    install(stack, rec)
    custom_gradients(stack, rec)
    tape = tf.GradientTape
    for method in ("gradient", "jacobian", "batch_jacobian"):
        _patch(stack, tape, method, lambda f, m=method: calls.tape_method(m, f))
    _patch(stack, tape, "watch", calls.watch)
    _patch(stack, tape, "__init__", lambda f: _tape_init(rec, f))
    from tensorflow.python.client.session import BaseSession

    _patch(stack, BaseSession, "run", calls.session_run)
    try:
        import keras

        trainer = keras.Model
        for method in ("fit", "train_on_batch"):
            owner = next((c for c in trainer.__mro__ if method in c.__dict__), None)
            if owner is not None:
                _patch(stack, owner, method, lambda f, m=method: calls.context_method("fit", f, m))
        owner = next((c for c in keras.Layer.__mro__ if "add_weight" in c.__dict__), None)
        if owner is not None:
            _patch(stack, owner, "add_weight", lambda f: _add_weight(rec, f))
    except ImportError:
        pass
    v1 = tf.compat.v1.train.Optimizer
    for method in ("minimize", "compute_gradients"):
        _patch(stack, v1, method, lambda f, m=method: calls.context_method(m, f, m))
    _patch_gradients(stack, calls)


def _tape_init(rec: Recorder, original):
    """GradientTape(...) remembers the user's line it was made at (a tape that watches only
    what it is told is the cause of a variable it does not watch)."""
    import sys

    def init(tape, *args, **kwargs):
        original(tape, *args, **kwargs)
        if not rec.busy and rec.failure is None:
            stack = rec.files.stack(sys._getframe(1))
            tape._gradcli_line = stack[0][1] if stack else None

    return init


def _add_weight(rec: Recorder, original):
    """layer.add_weight(..., trainable=False) remembers the user's line it was called at:
    a weight made untrainable there is the cause where a tape does not watch it (Keras
    may create the TensorFlow variable later, away from that line)."""
    import sys

    def add_weight(layer, *args, **kwargs):
        weight = original(layer, *args, **kwargs)
        if not rec.busy and rec.failure is None and getattr(weight, "trainable", True) is False:
            stack = rec.files.stack(sys._getframe(1))
            if stack:
                rec.frozen_weights[id(weight)] = (weight, stack[0][1])
        return weight

    return add_weight


def _patch_gradients(stack: ExitStack, calls: GradientCalls) -> None:
    """tf.gradients (and tf.compat.v1.gradients): one call in graph code."""

    def make(original):
        def gradients(ys, xs, *args, **kwargs):
            return calls.run(
                "tf.gradients",
                lambda _t, y, x, *a, **k: original(y, x, *a, **k),
                None,
                ys,
                xs,
                args,
                kwargs,
            )

        return gradients

    from tensorflow.python.ops import gradients as graph_gradients  # a v1 optimizer's

    for owner in (tf, tf.compat.v1, graph_gradients):
        original = getattr(owner, "gradients", None)
        if original is None:
            continue
        owner.gradients = make(original)
        stack.callback(setattr, owner, "gradients", original)


def reworded(diagnosis):
    """The diagnosis with its PyTorch-worded details said the TensorFlow way."""
    from gradcli.capture.tf_words import reword

    causes = [c for _, p in diagnosis.pairs for c in p.causes]
    causes += [c for cs in diagnosis.call_errors.values() for c in cs]
    causes += list(diagnosis.error_causes)
    for cause in causes:
        cause.detail = reword(cause.detail)
        cause.kind = KINDS.get(cause.kind, cause.kind)
    program = diagnosis.doctor.program if diagnosis.doctor is not None else None
    for k, pair in diagnosis.pairs:
        _integer_source(program, k, pair)
        _unwatching_tape(program, k, pair)
        _frozen_weight(program, k, pair)
    for _, pair in diagnosis.pairs:
        if pair.reason:
            pair.reason = reword(pair.reason)
            for raw, kind in KINDS.items():  # "...: detach at line 9" says stop_gradient
                pair.reason = pair.reason.replace(f"{raw} at line", f"{kind} at line")
    return diagnosis


def _unwatching_tape(program, k: int, pair) -> None:
    """A variable a watch_accessed_variables=False tape was not told to watch: the cause is
    that tape, at the line it was made (the static reader's line)."""
    if program is None or not pair.causes or pair.causes[0].kind != KINDS["requires_grad_false"]:
        return
    line = program.facts.get("unwatching_tapes", {}).get((k, pair.input))
    if line is None:
        return
    cause = pair.causes[0]
    cause.line = line
    cause.detail = (
        f"the tape made here has watch_accessed_variables=False and {pair.input} is not "
        "given to tape.watch, so the tape does not record it"
    )
    pair.reason = (
        f"{pair.output} gets no gradient to {pair.input} (None): not_watched at line {line}"
    )


def _frozen_weight(program, k: int, pair) -> None:
    """A Keras weight made with add_weight(..., trainable=False) that a tape does not watch:
    the cause is that add_weight call, at its line (where Keras ran it, in the user's
    build)."""
    if program is None or not pair.causes or pair.causes[0].kind != KINDS["requires_grad_false"]:
        return
    line = program.facts.get("frozen_weights", {}).get((k, pair.input))
    if line is None:
        return
    cause = pair.causes[0]
    cause.line = line
    cause.detail = (
        f"{pair.input} is made here by add_weight(..., trainable=False), so the tape does "
        "not watch it"
    )
    cause.extra["fix"] = (
        "if it should learn, drop trainable=False here (Keras then lists it in "
        "trainable_variables); to differentiate with respect to it anyway, call "
        "tape.watch on it before computing from it"
    )
    pair.reason = (
        f"{pair.output} gets no gradient to {pair.input} (None): not_watched at line {line}"
    )


INTEGER_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool")


def _integer_source(program, k: int, pair) -> None:
    """An integer variable is never watched: its cause is its dtype, where it was made."""
    from gradcli.capture.tf_words import FIXES
    from gradcli.explain.report import CauseKind as K

    if program is None or not pair.causes:
        return
    g = next((g for g in program.calls[k].gradients if g.name == pair.input), None)
    if g is None or g.dtype not in INTEGER_DTYPES or g.value_id is None:
        return
    cause = pair.causes[0]
    if cause.kind in (str(K.NO_PATH), str(K.UNTAKEN_BRANCH)):
        return  # unused as well: not using it is the first thing to change
    made = program.values[g.value_id].line
    watched = (str(K.REQUIRES_GRAD_FALSE), KINDS["requires_grad_false"])
    if made is not None and cause.kind not in watched:
        cause.line = made  # a watched integer tensor: its dtype, where it was made
    what = "variable" if cause.kind in watched else "tensor"
    cause.kind = str(K.INTEGER)
    cause.detail = (
        f"{pair.input} is an {g.dtype} {what}, made here: a tape never watches integer "
        "tensors, so no gradient reaches it"
    )
    cause.extra["fix"] = FIXES["integer"]
    pair.reason = (
        f"{pair.output} gets no gradient to {pair.input} (None): integer at line {cause.line}"
    )
