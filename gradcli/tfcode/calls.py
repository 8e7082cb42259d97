"""Gradient calls: one core Problem per `tape.gradient`/`tf.gradients`, built from what the
tape recorded, evaluated, and put back into the program graph.

Lowering copies the part of the program graph the target and the sources need into a fresh
graph. For a tape T, a value T did not record is cut with a `tape_boundary` node saying why:
- not_watched: a source T never watched (a constant without tape.watch, trainable=False,
  watch_accessed_variables=False), at the source's own line;
- outside_tape: an op on a watched value that ran while T was not recording (before or after
  its with block, or before tape.watch), at that op's line;
- leaves_tape boundaries are already in the program graph (.numpy(), np.*, float()).
TF1's tf.gradients (no tape) differentiates through everything the graph has.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
from dataclasses import dataclass, field
from enum import Enum

from gradcli.core.evaluation import Evaluation
from gradcli.core.problem import NONE, ZEROS, Problem
from gradcli.runtime.errors import Pos
from gradcli.tfcode.builtins import _opt
from gradcli.tfcode.drawn import Drawn, drawn_values
from gradcli.tfcode.interpret import Interpreter
from gradcli.tfcode.keras import source_notes
from gradcli.tfcode.refusals import AFTER_UPDATE
from gradcli.tfcode.subnormals import evaluate_checked
from gradcli.tfcode.support import Refused, Stop, _flatten
from gradcli.tfcode.tape_lowering import Lowering, _unique
from gradcli.tfcode.tracing import refuse_inside_call
from gradcli.tfcode.values import Tape, Tensor, Unknown, Variable, first_opaque


class CallKind(str, Enum):
    """What a gradient call computes (its JSON "kind")."""

    GRADIENT = "gradient"  # tape.gradient
    JACOBIAN = "jacobian"  # tape.jacobian: blocks of shape target.shape + source.shape
    BATCH_JACOBIAN = "batch_jacobian"  # tape.batch_jacobian
    TF_GRADIENTS = "tf.gradients"  # TF1's tf.gradients in graph mode
    FIT = "fit"  # Keras's model.fit/train_on_batch: the first train step (keras/training.py)
    MINIMIZE = "minimize"  # TF1 optimizers, eager (keras/optimizers_v1.py)
    COMPUTE_GRADIENTS = "compute_gradients"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


JACOBIANS = (CallKind.JACOBIAN, CallKind.BATCH_JACOBIAN)
NON_PERSISTENT = (
    "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
)


@dataclass
class GradientCall:
    """One gradient call, in execution order."""

    line: int
    kind: str  # a CallKind
    target: str
    sources: list[str]
    unconnected: str
    problem: Problem | None = None
    evaluation: Evaluation | None = None
    # what TensorFlow 2.21 raises at this call ({"type", "message"}), None when it returns;
    # gradcli still answers when it can (the tensor form of a cond branch, the diagnosis of
    # a target that left TensorFlow), and the program stops there as TensorFlow's does
    error: dict | None = None
    notes: list[str] = field(default_factory=list)
    pos: Pos | None = None
    paths: dict = field(default_factory=dict)  # source name -> a Keras variable's path
    # a call crossing code gradcli does not read ({"line", "what", "reason"}; opaque.py):
    # no problem, no evaluation, every source unknown beyond that line
    unknown: dict | None = None
    # the draw of numbers at random its target or seeds were computed from (drawn.Draw): its
    # numbers, and zeros or NaN in them, are gradcli's generator's, not TensorFlow's
    drawn: object = None


def gradient_call(it: Interpreter, tape: Tape, node: ast.GradientCall, args, kwargs):
    """tape.gradient(target, sources, output_gradients=None, unconnected_gradients=NONE)."""
    asts = arg_asts(node, ("target", "sources", "output_gradients", "unconnected_gradients"))
    target = _opt(args, kwargs, 0, "target")
    sources = _opt(args, kwargs, 1, "sources")
    seeds = _opt(args, kwargs, 2, "output_gradients")
    mode = mode_of(it, _opt(args, kwargs, 3, "unconnected_gradients", NONE), node)
    use_tape(it, tape, node, CallKind.GRADIENT, sources, mode, asts)
    return _compute(it, tape, node, CallKind.GRADIENT, target, sources, seeds, mode, asts)


def use_tape(it: Interpreter, tape: Tape, node, kind: str, sources, mode: str, asts) -> None:
    """A tape's gradient or jacobian call: a non-persistent tape's second one raises."""
    if tape.used and not tape.persistent:
        names = [n for _, n in _named(sources, asts[1])] if sources is not None else []
        call = GradientCall(node.lineno, kind, _text(asts[0]), names, mode, pos=it.pos(node))
        call.error = {"type": "RuntimeError", "message": NON_PERSISTENT}
        _list(it, call)
        raise Stop()
    tape.used = True


def gradients_call(it: Interpreter, node: ast.GradientCall, args, kwargs):
    """TF1's tf.gradients(ys, xs, grad_ys=None, ..., unconnected_gradients=NONE)."""
    asts = arg_asts(node, ("ys", "xs", "grad_ys"))
    for k in kwargs:
        if k not in ("ys", "xs", "grad_ys", "unconnected_gradients", "name", "stop_gradients"):
            it.refuse(node, f"tf.gradients(..., {k}=...)")
    stops = kwargs.get("stop_gradients")
    stops = [] if stops is None else _flatten([stops])
    if not all(isinstance(v, (Tensor, Variable)) for v in stops):
        it.refuse(node, "tf.gradients(..., stop_gradients=) of something not a tensor")
    stopped = {it.tensor_id(v, read=False) for v in stops}
    mode = mode_of(it, kwargs.get("unconnected_gradients", NONE), node)
    if not it.graph_mode and it.tracing:  # valid there: TensorFlow differentiates the graph
        what = f"tf.gradients inside {it.tracing[-1].fn.name} (a traced function)"
        it.refuse(node, what, "TensorFlow differentiates the graph traced so far there")
    if not it.graph_mode:
        text = _text(asts[0])
        call = GradientCall(node.lineno, CallKind.TF_GRADIENTS, text, [], mode, pos=it.pos(node))
        call.error = {
            "type": "RuntimeError",
            "message": "tf.gradients is not supported when eager execution is enabled. Use "
            "tf.GradientTape instead.",
        }
        _list(it, call)
        raise Stop()
    ys, xs, seeds = (
        _opt(args, kwargs, 0, "ys"),
        _opt(args, kwargs, 1, "xs"),
        _opt(args, kwargs, 2, "grad_ys"),
    )
    result = _compute(it, None, node, CallKind.TF_GRADIENTS, ys, xs, seeds, mode, asts, stopped)
    return result if isinstance(result, list) else [result]


def _compute(it: Interpreter, tape, node, kind, target, sources, seeds, mode, asts, stops=()):
    if crosses_unread_code(it, node, kind, target, sources, seeds, mode, asts):
        opaque = first_opaque([target, sources, seeds])
        return rebuild(sources, itertools.repeat(opaque))
    call, lowered, raises = lower(it, tape, node, kind, target, sources, seeds, mode, asts, stops)
    # the call's graph stays as lowered; known zeros are nodes (TensorFlow's zeros_like, e.g.
    # MaxPoolGradGrad's to the pool's output), so that a tape recording this gradient finds
    # the connections TensorFlow's nested tapes find
    call.evaluation = evaluate_checked(call.problem.scratch(), it.pos(node), zeros=True)
    _refuse_zero_keras_variables(it, node, call, sources, asts, mode)
    finish(it, call, lowered, raises)
    results = lowered.copy_back(call.evaluation, node)
    flat = iter(results)
    return rebuild(sources, flat)


def _refuse_zero_keras_variables(it: Interpreter, node, call, sources, asts, mode) -> None:
    """unconnected_gradients=ZERO with a Keras 3 variable the target does not reach: TensorFlow
    2.21 raises inside the gradient (its zeros take the variable's dtype, a string in Keras 3:
    AttributeError "'str' object has no attribute '_type_enum'", recorded in
    tests/data/tf_threads), which no recorded error of the reader's table backs: refused."""
    from gradcli.core.problem import UNCONNECTED
    from gradcli.tfcode.keras.objects import KerasVariable

    if mode != ZEROS or sources is None:
        return
    for value, name in _named(sources, asts[1]):
        if isinstance(value, KerasVariable) and call.evaluation.status.get(name) == UNCONNECTED:
            it.refuse(
                node,
                f"unconnected_gradients=ZERO for a Keras variable the target does not use ({name})",
                "TensorFlow 2.21 fails inside the gradient there: its zeros take the "
                "variable's dtype, a string in Keras 3",
            )


def crosses_unread_code(it: Interpreter, node, kind, target, sources, seeds, mode, asts) -> bool:
    """A call whose target, sources or seeds are opaque: listed as unknown (True), else False."""
    opaque = first_opaque([target, sources, seeds])
    if opaque is None:
        return False
    from gradcli.tfcode.opaque import unknown_call

    named = _named(sources, asts[1]) if sources is not None else []
    unknown_call(it, node, kind, _text(asts[0]), named, mode, opaque)
    return True


def _refuse_after_update(it: Interpreter, node, targets, named) -> None:
    """A gradient call that reads a variable an optimizer (or Keras's training) updated in a
    way gradcli does not compute is refused: TensorFlow's values moved, gradcli's did not.
    `it.updated` maps each such variable's value node (as it was at the update) to the
    update's line; the call is refused when a target depends on one or a source is one."""
    if not it.updated:
        return
    stale = [v.value for v, _ in named if isinstance(v, Variable) and v.value in it.updated]
    lines = {it.updated[i] for i in stale}
    line = it.stale_line([v for v, _ in targets])
    if line is not None:
        lines.add(line)
    if lines:
        where = ", ".join(f"line {k}" for k in sorted(lines))
        it.refuse(node, f"a gradient call after an optimizer updated the variables at {where}",
                  AFTER_UPDATE)  # fmt: skip


def lower(it: Interpreter, tape, node, kind, target, sources, seeds, mode, asts, stops=()):
    """The call, its Problem lowered over what the tape saw, and what TensorFlow raises
    because the target left TensorFlow (None when it does not); `stops` are program nodes
    gradients do not pass back through (tf.gradients' stop_gradients)."""
    if it.quiet:
        it.refuse(node, "a gradient call inside a custom gradient's grad function")
    if it.traced_loop_bodies:
        it.refuse(
            node,
            "a gradient call inside a tf.while_loop body in graph mode or a tf.function",
            "TensorFlow builds the body once, over placeholders of the loop variables",
        )
    if any(isinstance(v, Unknown) for v in _flatten([target, sources, seeds])):
        raise Refused()
    targets = _named(target, asts[0])
    named = _named(sources, asts[1])
    raises = None
    for value, name in targets:
        if isinstance(value, Tensor) and value.kind != "tf":  # left TensorFlow: TF raises
            what = (
                "'float' object has no attribute 'dtype'"
                if value.kind == "py"
                else (
                    f"'numpy.{it.g[value.id].dtype if it.g[value.id].shape == () else 'ndarray'}' "
                    "object has no attribute '_id'"
                )
            )
            raises = {"type": "AttributeError", "message": what}
        elif not isinstance(value, (Tensor, Variable)):
            it.refuse(node, f"a gradient target that is {_kind_text(value)} ({name})")
    for value, name in named:
        if not isinstance(value, (Tensor, Variable)):
            it.refuse(node, f"a gradient source that is {_kind_text(value)} ({name})")
    _refuse_after_update(it, node, targets, named)
    refuse_inside_call(it, node, targets, named)
    names = _unique([n for _, n in named])
    call = GradientCall(node.lineno, kind, _text(asts[0]), names, mode, pos=it.pos(node))
    call.notes += source_notes(it, sources, asts[1])  # Keras: variables a layer does not list
    call.paths = {n: v.path for v, n in named if getattr(v, "path", None)}
    seed_values = None
    if seeds is not None:
        seed_values = [
            it.as_array(s, node) for s in (seeds if isinstance(seeds, list) else [seeds])
        ]
    call.drawn = drawn_values(it, [v for v, _ in targets] + [seeds])
    if call.drawn is None and any(isinstance(s, Drawn) for s in seed_values or ()):
        call.drawn = it.loose_draw or drawn_values(it, [seeds])
    lowered = Lowering(it, tape, call, stops)
    call.problem = lowered.build(
        [v for v, _ in targets],
        [t for _, t in targets],
        [v for v, _ in named],
        names,
        seed_values,
        mode,
    )
    return call, lowered, raises


def finish(it: Interpreter, call: GradientCall, lowered: Lowering, raises) -> None:
    """List the evaluated call with what TensorFlow raises there (the program stops then)."""
    _list(it, call)
    for raised in lowered.raises:
        call.error = call.error or raised
    if raises is not None:
        call.error = raises
        call.notes.append(
            f"TensorFlow raises {raises['type']} here: the target {call.target} is a "
            "NumPy/Python value, not a tensor; gradcli reports what the tape can see"
        )
        raise Stop()


def _list(it: Interpreter, call: GradientCall) -> None:
    """Report the call, unless a retraced @tf.function makes it (TensorFlow runs its graph)."""
    if it.tracing:
        fn = it.tracing[-1].fn
        call.notes.append(
            f"made while @tf.function traces {fn.name} (line {fn.pos.line}): TensorFlow returns "
            "symbolic tensors here; gradcli gives their values for this first trace"
        )
    if call.drawn is None:
        call.drawn = it.loose_draw
    if not it.silent:
        it.calls.append(call)


def _named(value, expr) -> list[tuple[object, str]]:
    """The leaves of a source structure in TensorFlow's flatten order, each with its name."""
    text = _text(expr) if expr is not None else "?"
    if isinstance(value, dict):
        exprs = {}
        if isinstance(expr, ast.Dict):
            for k, v in zip(expr.keys, expr.values):
                with contextlib.suppress(ValueError, SyntaxError, TypeError):
                    exprs[ast.literal_eval(k)] = v
        out = []
        for key in sorted(value):
            sub = exprs.get(key)
            out += (
                _named(value[key], sub) if sub is not None else _sub(value[key], f"{text}[{key!r}]")
            )
        return out
    if isinstance(value, (list, tuple)):
        elts = (
            expr.elts
            if isinstance(expr, (ast.List, ast.Tuple)) and len(expr.elts) == len(value)
            else None
        )
        out = []
        for k, v in enumerate(value):
            out += _named(v, elts[k]) if elts is not None else _sub(v, f"{text}[{k}]")
        return out
    return [(value, text)]


def _sub(value, name: str) -> list:
    if isinstance(value, (list, tuple, dict)):
        return _named(value, ast.parse(name, mode="eval").body if _parses(name) else None)
    return [(value, name)]


def _parses(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


def rebuild(structure, flat):
    """The structure of the sources again, its leaves taken from flat in order."""
    if isinstance(structure, dict):
        out = {k: None for k in structure}
        for k in sorted(structure):
            out[k] = rebuild(structure[k], flat)
        return out
    if isinstance(structure, (list, tuple)):
        items = [rebuild(v, flat) for v in structure]
        return items if isinstance(structure, list) else tuple(items)
    return next(flat)


def _text(expr) -> str:
    return ast.unparse(expr) if expr is not None else "?"


def arg_asts(node: ast.GradientCall, params) -> list:
    """The call's argument expressions for params, by position or keyword (None: not given)."""
    out = list(node.args[: len(params)]) + [None] * max(0, len(params) - len(node.args))
    for k in node.keywords:
        if k.arg in params:
            out[params.index(k.arg)] = k.value
    return out


def mode_of(it: Interpreter, value, node) -> str:
    """unconnected_gradients= as 'none' or 'zero' (refused otherwise)."""
    if value in (NONE, ZEROS, "none", "zero"):
        return value
    it.refuse(
        node, f"unconnected_gradients={value!r}", "give 'none', 'zero' or tf.UnconnectedGradients"
    )


def _kind_text(value) -> str:
    from gradcli.tfcode.support import _describe

    return _describe(value)
