"""TensorFlow's gradient calls under capture: `tape.gradient`, `tape.jacobian`,
`tape.batch_jacobian`, `tf.gradients`, and the gradient Keras's `model.fit` /
`train_on_batch` (and a TF1 optimizer's `minimize`) take on the user's behalf, each one
GradientCall with the static reader's call kind and source names.

A call made while a tf.function (or Keras's train step) is traced returns symbolic
gradients: their None-ness is known at once, their numbers when the traced step first
runs (a stateful tf.numpy_function added after the gradient reads them). The gradient
graph is not walked (call.nodes stays empty): the diagnosis reads the data flow the op
callback recorded, with TensorFlow's own word on which ops a tape recorded.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.framework.func_graph import FuncGraph
from tensorflow.python.ops.control_flow_util import GraphOrParentsInXlaContext

from gradcli.capture import tf_grad_nodes
from gradcli.capture.program import Gradient, GradientCall, Operation, OpKind
from gradcli.capture.script import StopScript
from gradcli.capture.tf_call_names import (
    call_texts,
    default_var_list_note,
    keras_notes,
    receiver_text,
    source_names,
)
from gradcli.capture.tf_capture import Recorder, is_eager
from gradcli.capture.tf_session_values import forward_fetches, read_forward, uninitialized

MAX_VALUE = 10_000  # elements of a gradient written out in full
FIT_TARGET = "compiled loss"
PER_OP_KINDS = ("gradient", "fit", "minimize", "compute_gradients")  # given a per-op graph
TAPE_KINDS = ("gradient", "minimize", "compute_gradients")  # one tape.gradient each
METHODS = {"gradient": "gradient", "jacobian": "jacobian", "batch_jacobian": "batch_jacobian"}


def _count(a: np.ndarray) -> tuple[int, int, int]:
    n = int(a.size)
    if n == 0:
        return 0, 0, 0
    zeros = int(np.count_nonzero(a == 0))
    if a.dtype.kind in "fc":
        return n, zeros, n - int(np.count_nonzero(np.isfinite(a)))
    return n, zeros, 0


def _status(n: int, zeros: int, nonfinite: int) -> str:
    if nonfinite:
        return "non_finite"
    if n and zeros == n:
        return "zero"
    return "partially_zero" if zeros else "connected"


def tensor_of(source):
    """The tensor a source stands for in the data flow: a variable's handle (a Keras
    variable's tf.Variable's), or the tensor itself."""
    handle = getattr(source, "handle", None)
    if handle is not None:
        return handle
    value = getattr(source, "value", None)
    return getattr(value, "handle", source) if value is not None else source


class GradientCalls:
    """Records every gradient call; stops the script when the call limit is passed."""

    def __init__(self, recorder: Recorder, limit: int | None):
        self.rec = recorder
        self.limit = limit
        self.depth = 0  # > 0 inside a recorded call (jacobian calls gradient itself)
        self.contexts: list[dict] = []  # fit / train_on_batch / minimize in progress
        self.errors: dict[int, int] = {}  # id(exception) -> call index
        self.hooks: list[dict] = []  # traced calls' value readers, by fit model
        self.pending: list[tuple] = []  # TF1 graph gradients not read yet (Session.run)
        self.returned: set[int] = set()  # calls TensorFlow answered (an error after is not theirs)

    # --- where a call comes from -------------------------------------------------------
    def _origin(self, method: str):
        """(kind, file, line, function, context) of a call, or None when it is not the
        user's (made by a library outside any fit/minimize)."""
        from tensorflow.python.util import tf_stack

        files = self.rec.files
        frames = list(tf_stack.extract_stack())
        user = [f for f in frames if files(f.filename)]
        caller = None
        for f in reversed(frames):
            name = f.filename.replace("\\", "/")
            if "/gradcli/" in name or "/tensorflow/python/" in name or "autograph" in name:
                continue
            caller = f
            break
        context = self.contexts[-1] if self.contexts else None
        direct = next(
            (f for f in reversed(frames) if "/gradcli/" not in f.filename.replace("\\", "/")),
            None,
        )
        if context is None and direct is not None and _tensorflow_internal(direct.filename):
            return None  # TensorFlow's own use of a tape (ForwardAccumulator, recompute_grad)
        if caller is not None and files(caller.filename):
            here = (caller.filename, caller.lineno)
            if context is not None and here == (context["file"], context["line"]):
                # the gradient a TF1 optimizer's minimize/compute_gradients takes for the
                # user at that line: the optimizer's call kind, as the static reader says
                return context["kind"], context["file"], context["line"], caller.name, context
            return METHODS.get(method, method), caller.filename, caller.lineno, caller.name, None
        if context is not None:
            return context["kind"], context["file"], context["line"], context["function"], context
        if user:
            f = user[-1]
            return METHODS.get(method, method), f.filename, f.lineno, f.name, None
        return None

    # --- the wrappers --------------------------------------------------------------------
    def tape_method(self, method: str, original):
        calls = self

        def wrapper(tape, target, sources, *args, **kwargs):
            return calls.run(method, original, tape, target, sources, args, kwargs)

        wrapper.__name__ = method
        return wrapper

    def run(self, method, original, tape, target, sources, args, kwargs):
        rec = self.rec
        if self.depth or rec.failure is not None or rec.busy:
            return original(tape, target, sources, *args, **kwargs)
        try:
            origin = self._origin(method)
        except Exception as exc:
            rec.failure = exc
            origin = None
        if origin is None:
            return original(tape, target, sources, *args, **kwargs)
        kind, file, line, function, context = origin
        if self.contexts:
            self._retraced(kind, file, line)
        elif self.limit is not None and len(rec.program.calls) >= self.limit:
            raise StopScript("calls")
        try:
            call, targets, flat, names = self._begin(kind, file, line, function, target, sources)
            outer = bool(record.should_record_backprop(targets)) if targets else False
        except Exception as exc:
            rec.failure = exc
            return original(tape, target, sources, *args, **kwargs)
        if context is not None:
            context["call"] = call
        if any(_zero_mode(a) for a in (*args, *kwargs.values())):
            rec.program.facts.setdefault("zero_mode_calls", set()).add(call.index)
        p = self._plan(call, kind, tape, flat, targets) if not outer else None
        self.depth += 1
        if not outer:
            rec.busy += 1
        try:
            result, inner = _ask(original, tape, target, sources, p, args, kwargs)
        except BaseException as exc:
            if not isinstance(exc, StopScript):
                call.error = {"type": type(exc).__name__, "message": str(exc), "line": line}
                self.errors[id(exc)] = call.index
            call.last_op = len(rec.program.ops)
            raise
        finally:
            self.depth -= 1
            if not outer:
                rec.busy -= 1
        self.returned.add(id(call))
        try:
            self._end(call, tape, flat, names, result, targets if outer else None, (p, inner))
        except Exception as exc:
            rec.failure = exc
        return result

    def _plan(self, call, kind, tape, flat, targets) -> tf_grad_nodes.Plan | None:
        """The intermediate values to ask the call's tape for (None: not asked)."""
        if kind not in PER_OP_KINDS or tape is None or len(targets) != 1:
            return None
        try:
            ids = [self.rec.value_of(tensor_of(s), call.line) if s is not None else None
                   for s in flat]  # fmt: skip
            return tf_grad_nodes.plan(self.rec, call.roots, ids, len(self.rec.program.ops),
                                      targets[0])  # fmt: skip
        except Exception:  # no per-op graph for this call: the diagnosis says so
            return None

    def _per_op(self, call, p, arrays, operands) -> None:
        """The call's per-op gradient graph, when some gradient holds zeros (and none a
        NaN or Inf: those are traced from the forward values)."""
        statuses = {g.status for g in call.gradients}
        if "non_finite" in statuses or not statuses & {"zero", "partially_zero"}:
            return
        counts = {}
        for vid, g in zip(p.sources, call.gradients):
            if vid is not None and g.reached:
                counts[vid] = (g.elements, g.zero_elements, g.nonfinite_elements)
        grads = {}
        for vid, a in zip(p.values, arrays):
            counts[vid] = _count(np.asarray(a)) if a is not None else None
            if a is not None:
                grads[vid] = np.asarray(a)
        for vid, g in zip(p.sources, call.gradients):
            if vid is not None and g.reached and g.value is not None:
                grads[vid] = np.asarray(g.value, dtype=g.dtype)
        program = self.rec.program
        call.nodes = tf_grad_nodes.nodes(program, p, call.roots, counts, grads, operands)

    def _retraced(self, kind, file, line) -> None:
        """A call site made again in the same fit (tf.function traced the step twice, the
        optimizer making its variables on the first trace): the last trace is the one
        that runs, so it replaces the earlier record."""
        calls = self.rec.program.calls
        first = self.contexts[-1]["first"]
        for k in range(len(calls) - 1, first - 1, -1):
            c = calls[k]
            if (c.kind, c.file, c.line) == (kind, file, line) and c.error is None:
                del calls[k]
                for j, later in enumerate(calls[k:], k):
                    later.index = j
                break

    def _begin(self, kind, file, line, function, target, sources):
        rec = self.rec
        targets = [t for t in tf.nest.flatten(target) if tf.is_tensor(t)]
        root_ids = [rec.value_of(t, line) for t in targets]
        flat = tf.nest.flatten(sources)
        texts = call_texts(file, line, _span_at(file, line)) if kind != "fit" else None
        if kind == "fit":
            context = self.contexts[-1]
            root_names = [FIT_TARGET]
            names = [f"{context['model']}.trainable_variables[{i}]" for i in range(len(flat))]
        else:
            root_names = [texts[0]] if texts and texts[0] else ["the target"]
            names = source_names(sources, texts[1] if texts else None, kind)
        call = GradientCall(
            len(rec.program.calls), kind, line, file, root_ids, root_names, len(rec.program.ops)
        )
        call.function = function
        expr = texts[1] if texts else None
        call.notes = keras_notes(flat, names, expr, kind)
        if texts is not None:
            call.notes += default_var_list_note(flat, kind, expr)
        rec.program.calls.append(call)
        for i, name in enumerate(names):
            if i < len(flat) and flat[i] is not None:
                rec.program.names.setdefault(rec.value_of(tensor_of(flat[i]), line), name)
        return call, targets, flat, names

    def _end(self, call, tape, flat, names, result, outer_targets, per_op) -> None:
        rec = self.rec
        call.last_op = len(rec.program.ops)
        results = tf.nest.flatten(result) if result is not None else []
        watched = None
        try:
            watched = {id(v) for v in tape.watched_variables()}
        except Exception:
            watched = None
        symbolic = []
        for i, source in enumerate(flat):
            g = results[i] if i < len(results) else None
            name = names[i] if i < len(names) else f"source {i}"
            vid = rec.value_of(tensor_of(source), call.line)
            value = rec.program.values[vid]
            requires, shape, dtype = value.requires_grad, tuple(value.shape), value.dtype
            if hasattr(source, "handle"):  # a variable: its own shape and dtype
                requires = _watches(tape, source, watched)
                shape, dtype = _shape(source), tf.as_dtype(source.dtype).name
                if not requires and not getattr(tape, "_watch_accessed_variables", True):
                    unwatching = rec.program.facts.setdefault("unwatching_tapes", {})
                    unwatching[(call.index, name)] = getattr(tape, "_gradcli_line", None)
                frozen = rec.frozen_weights.get(id(source))
                if not requires and frozen is not None and frozen[0] is source:
                    made = rec.program.facts.setdefault("frozen_weights", {})
                    made[(call.index, name)] = frozen[1]
            if tape is None and not is_eager(tensor_of(source)):
                requires = value.floating  # tf.gradients in a graph: no tape, nothing watched
            grad = Gradient(
                name,
                vid,
                None,
                shape,
                dtype,
                "unconnected",
                elements=_elements(shape),
                reached=g is not None,
                requires_grad=requires,
                leaf=True,
                note=getattr(source, "path", None),
            )
            grad.zero_elements = grad.elements
            call.gradients.append(grad)
            if g is None:
                continue
            if isinstance(g, tf.IndexedSlices):
                rec.busy += 1
                try:
                    g = tf.convert_to_tensor(g)
                finally:
                    rec.busy -= 1
            if is_eager(g):
                fill(grad, g._numpy())
            else:
                grad.status, grad.read = "connected", False
                grad.shape, grad.dtype = _shape(g), g.dtype.name
                symbolic.append((grad, g))
        p, inner = per_op
        if symbolic:
            self._read_later(call, symbolic, p, inner)
        elif p is not None and inner is not None:
            operands = {v: t._numpy() for v, t in p.operands.items()}
            self._per_op(call, p, [_numpy(g, rec) for g in inner], operands)
        if outer_targets is not None and results:
            self._record_as_op(call, flat, results)

    def _read_later(self, call, symbolic, p=None, inner=None) -> None:
        """A stateful tf.numpy_function after the traced gradients reads their numbers when
        the traced step first runs (and the intermediate values' gradients, if asked)."""
        state = {"done": False}
        grads = [g for _, g in symbolic]
        records = [r for r, _ in symbolic]
        extra, present, fetched, known = [], [], [], {}
        if p is not None and inner is not None and isinstance(grads[0].graph, FuncGraph):
            self.rec.busy += 1
            try:
                for g in inner:
                    present.append(g is not None)
                    if g is not None:
                        extra.append(tf.convert_to_tensor(g))
            finally:
                self.rec.busy -= 1
            for v, t in p.operands.items():
                if is_eager(t):
                    known[v] = t._numpy()
                else:
                    fetched.append(v)
                    extra.append(t)
        if not isinstance(getattr(grads[0], "graph", None), FuncGraph):  # TF1 graph code
            self.pending.append((records, grads))
            call.notes.append(
                "TF1 graph code: TensorFlow returns symbolic tensors here; the values are "
                "those of the first Session.run that could compute them"
            )
            return

        if GraphOrParentsInXlaContext(grads[0].graph):  # XLA compiles no PyFunc
            call.notes.append(
                "made while tf.function traced a step compiled with XLA (jit_compile=True): "
                "XLA runs no Python inside it, so gradcli reads no values there (only where "
                "the data flows); for the numbers, compile without XLA while debugging"
            )
            return

        def read(*arrays):
            if not state["done"]:
                state["done"] = True
                for r, a in zip(records, arrays):
                    fill(r, np.asarray(a))
                if extra:
                    got = iter(arrays[len(records) :])
                    inner_arrays = [next(got) if k else None for k in present]
                    operands = {**known, **{v: np.asarray(next(got)) for v in fetched}}
                    self._per_op(call, p, inner_arrays, operands)
            return np.zeros((), np.float32)

        self.rec.busy += 1
        try:
            tf.numpy_function(read, grads + extra, tf.float32, stateful=True)
        finally:
            self.rec.busy -= 1
        call.notes.append(
            "made while tf.function traced the step: TensorFlow returns symbolic tensors "
            "here; the values are those of the first step that ran"
        )

    def _record_as_op(self, call, flat, results) -> None:
        """A gradient an outer tape records (a second derivative): tape.gradient's results
        made by the backward ops the outer tape recorded keep that data flow (a source the
        inner gradient drops is dropped there); any other result becomes one op from the
        targets and sources, so the outer call's data flow goes through it."""
        rec = self.rec
        index = len(rec.program.ops)
        ins = tuple(call.roots) + tuple(rec.value_of(tensor_of(s)) for s in flat)
        own = call.kind in TAPE_KINDS  # a jacobian's ops (pfor's) are not the user's maths
        made = [
            g for g in results if g is not None and not (own and _made_in(rec, g, call.first_op))
        ]
        if not made:
            return
        outs = tuple(rec.new_value(g, index, call.line, True) for g in made)
        rec.program.ops.append(
            Operation(
                index,
                "tape.gradient",
                OpKind.COMPUTE,
                ins,
                outs,
                call.line,
                call.file,
                records_gradient=True,
            )
        )

    # --- fit, train_on_batch, minimize ---------------------------------------------------
    def context_method(self, kind: str, original, method: str):
        calls = self

        def wrapper(obj, *args, **kwargs):
            return calls.in_context(kind, method, original, obj, args, kwargs)

        wrapper.__name__ = method
        return wrapper

    def in_context(self, kind, method, original, obj, args, kwargs):
        rec = self.rec
        if self.depth or rec.busy or rec.failure is not None or self.contexts:
            return original(obj, *args, **kwargs)
        import sys

        stack = rec.files.stack(sys._getframe(2))
        if not stack:
            return original(obj, *args, **kwargs)
        if self.limit is not None and len(rec.program.calls) >= self.limit:
            raise StopScript("calls")
        file, line, function = stack[0]
        receiver = receiver_text(file, line, method) or "model"
        context = {
            "kind": kind,
            "file": file,
            "line": line,
            "function": function,
            "model": receiver,
            "call": None,
            "obj": obj,
            "first": len(rec.program.calls),
        }
        self.contexts.append(context)
        try:
            result = original(obj, *args, **kwargs)
        except BaseException as exc:
            made = rec.program.calls[context["first"] :]
            if not made and kind == "fit" and not isinstance(exc, StopScript):
                self._failed_fit(context, obj, exc)  # raised as Keras traced the step
            elif made and not isinstance(exc, StopScript) and made[-1].error is None:
                # raised after the gradient came back (Keras's apply_gradients on None
                # gradients): the script's error, its causes the call's; raised while
                # the step ran its gradient: the call's own error
                if id(made[-1]) not in self.returned:
                    made[-1].error = {"type": type(exc).__name__, "message": str(exc), "line": line}
                self.errors[id(exc)] = made[-1].index
            raise
        finally:
            self.contexts.pop()
        if kind == "fit" and len(rec.program.calls) == context["first"]:
            self._reused(context, obj)
        elif kind == "fit" and context["call"] is not None:
            self.hooks.append({"obj": obj, "call": context["call"]})
        return result

    def _failed_fit(self, context, obj, exc) -> None:
        """A fit that raised before its step's gradient (the loss failed while Keras traced
        the step): its call at the fit line, with the error TensorFlow raised. A train_step
        of the script's own makes its calls itself (none, when it raised before one)."""
        step = next((c for c in type(obj).__mro__ if "train_step" in c.__dict__), None)
        if step is None or not step.__module__.startswith("keras"):
            return
        rec = self.rec
        call = GradientCall(
            len(rec.program.calls),
            "fit",
            context["line"],
            context["file"],
            [],
            [FIT_TARGET],
            len(rec.program.ops),
            function=context["function"],
            last_op=len(rec.program.ops),
        )
        call.error = {"type": type(exc).__name__, "message": str(exc), "line": context["line"]}
        with contextlib.suppress(Exception):
            flat = list(obj.trainable_variables)
            names = [f"{context['model']}.trainable_variables[{i}]" for i in range(len(flat))]
            call.notes = keras_notes(flat, names, None, "fit")
        rec.program.calls.append(call)
        self.errors[id(exc)] = call.index

    def _reused(self, context, obj) -> None:
        """A fit that ran a step traced by an earlier fit (no tape.gradient of its own):
        one call at this line, as the earlier one (values: the earlier one's first step)."""
        earlier = next((h["call"] for h in reversed(self.hooks) if h["obj"] is obj), None)
        if earlier is None:
            return
        rec = self.rec
        call = GradientCall(
            len(rec.program.calls),
            earlier.kind,
            context["line"],
            context["file"],
            list(earlier.roots),
            list(earlier.root_names),
            earlier.first_op,
            function=context["function"],
            last_op=len(rec.program.ops),
        )
        call.gradients = list(earlier.gradients)
        call.notes = [
            *earlier.notes,
            f"this fit reuses the train step traced at line {earlier.line}: the values are "
            "those of that step's first run",
        ]
        rec.program.calls.append(call)

    def session_run(self, original):
        """Session.run, fetching the graph's unread gradients in the same run when every
        placeholder they need is fed (the values of that very step)."""
        calls = self

        def run(session, fetches, feed_dict=None, *args, **kwargs):
            pending = list(calls.pending)
            extra = calls._fetchable(session, feed_dict) if pending else []
            if not extra:
                return original(session, fetches, feed_dict, *args, **kwargs)
            if uninitialized(calls.rec, session, original):
                # variables not initialised yet (the initializer's own run): reading them
                # there fails or races the assigns; a later run computes the gradients
                calls.pending = pending
                return original(session, fetches, feed_dict, *args, **kwargs)
            fed = {id(getattr(k, "op", k)) for k in (feed_dict or {})}
            try:  # the forward values of that same run (graph tensors have none outside)
                forward = forward_fetches(calls.rec, session.graph, fed)
            except Exception:
                forward = []
            wanted = [g for _, g in extra] + [t for _, t in forward]
            try:
                out, values = original(session, (fetches, wanted), feed_dict, *args, **kwargs)
            except TypeError:  # a fetch TensorFlow refuses before running (None): its error
                with contextlib.suppress(Exception):
                    calls._read(extra, forward, original(session, wanted, feed_dict))
                return original(session, fetches, feed_dict, *args, **kwargs)
            calls._read(extra, forward, values)
            return out

        return run

    def _read(self, extra, forward, values) -> None:
        """The gradients' numbers, then the forward values fetched with them."""
        for (record_, _), value in zip(extra, values[: len(extra)]):
            fill(record_, np.asarray(value))
        read_forward(self.rec, forward, values[len(extra) :])

    def _fetchable(self, session, feed_dict) -> list:
        """(gradient record, tensor) pairs of the session's graph the feeds can compute."""
        fed = {id(getattr(k, "op", k)) for k in (feed_dict or {})}
        out, left = [], []
        for records, grads in self.pending:
            if grads[0].graph is not session.graph or not _computable(grads, fed):
                left.append((records, grads))
                continue
            out += list(zip(records, grads))
        self.pending = left
        return out

    def watch(self, original):
        rec = self.rec

        def watch(tape, tensor):
            out = original(tape, tensor)
            if not rec.busy and rec.failure is None:
                try:
                    for t in tf.nest.flatten(tensor):
                        vid = rec.value_of(tensor_of(t))
                        rec.program.values[vid].requires_grad = True
                except Exception as exc:
                    rec.failure = exc
            return out

        return watch


def _ask(original, tape, target, sources, p, args, kwargs):
    """(the call's result, the gradients of p's intermediate values or None).

    Eager: one call of the tape, the script's sources first, so TensorFlow computes
    exactly what it would (TensorFlow's own call is made where that fails). Traced: the
    script's call as it is, then a separate symbolic gradient of the same target, so the
    ops that compute the script's gradients are not touched.
    """
    if p is None:
        return original(tape, target, sources, *args, **kwargs), None
    if not is_eager(p.tensors[0]):
        result = original(tape, target, sources, *args, **kwargs)
        try:
            seed = kwargs.get("output_gradients", args[0] if args else None)
            inner = tf.gradients(target, p.tensors, grad_ys=seed)
        except Exception:  # no per-op graph for this call
            return result, None
        return result, inner
    try:
        both = original(tape, target, [sources, p.tensors], *args, **kwargs)
    except Exception as first:
        try:
            return original(tape, target, sources, *args, **kwargs), None
        except Exception:  # the first backward failed half-way (a non-persistent tape is
            raise first from None  # spent): its error is TensorFlow's for the script's call
    return both[0], both[1]


def _numpy(g, rec):
    """An eager gradient's array (None for None; an IndexedSlices made dense)."""
    if g is None:
        return None
    if isinstance(g, tf.IndexedSlices):
        rec.busy += 1
        try:
            g = tf.convert_to_tensor(g)
        finally:
            rec.busy -= 1
    return g._numpy()


def _computable(tensors, fed: set, limit: int = 100_000) -> bool:
    """Whether every placeholder the tensors depend on is fed (an iterative walk)."""
    seen, stack = set(), [t.op for t in tensors]
    while stack and len(seen) < limit:
        op = stack.pop()
        if id(op) in seen or id(op) in fed:
            continue
        seen.add(id(op))
        if op.type in ("Placeholder", "PlaceholderV2"):
            return False
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return not stack


def _zero_mode(arg) -> bool:
    """unconnected_gradients=ZERO (the enum or its string)."""
    return str(getattr(arg, "value", arg)).lower() == "zero"


def _watches(tape, variable, watched) -> bool:
    """Whether the call's tape watches a variable or would have had it been read while
    recording (a trainable float variable, watch_accessed_variables on): then a None
    gradient is the data flow's to explain (never read, read outside the tape); an
    integer variable, trainable=False, or an unwatched one on a tape that watches only
    what it is told: not watched."""
    try:
        dtype = tf.as_dtype(variable.dtype)  # a Keras variable's dtype is a string
    except (TypeError, AttributeError):
        return False
    if not (dtype.is_floating or dtype.is_complex):
        return False
    inner = getattr(variable, "value", None)
    if watched is not None and (id(variable) in watched or id(inner) in watched):
        return True
    accessed = getattr(tape, "_watch_accessed_variables", True) if tape is not None else True
    return bool(getattr(variable, "trainable", True) and accessed)


def _tensorflow_internal(filename: str) -> bool:
    """A frame of TensorFlow's own library code (not AutoGraph's conversion of yours)."""
    name = filename.replace("\\", "/")
    return "/tensorflow/python/" in name and "autograph" not in name


def _span_at(file, line):
    """The column span of the live instruction at (file, line): the call being made there
    (None for a traced call, whose frames are autograph's)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_filename == file and frame.f_lineno == line:
            positions = list(code.co_positions())
            at = frame.f_lasti // 2  # a code unit is 2 bytes; co_positions has one each
            span = positions[at] if 0 <= at < len(positions) else None
            return span if span is not None and None not in span else None
        frame = frame.f_back
    return None


def _shape(t) -> tuple:
    try:
        return tuple(t.shape.as_list())
    except (ValueError, AttributeError):
        return ()


def fill(grad: Gradient, a: np.ndarray) -> None:
    """A gradient's numbers and status from TensorFlow's array."""
    n, zeros, nonfinite = _count(a)
    grad.elements, grad.zero_elements, grad.nonfinite_elements = n, zeros, nonfinite
    grad.shape, grad.dtype = tuple(a.shape), a.dtype.name
    if n <= MAX_VALUE:
        grad.value = a.tolist()
    grad.status = _status(n, zeros, nonfinite)
    grad.read = True


def _elements(shape) -> int:
    n = 1
    for d in shape:
        n *= d if isinstance(d, int) else 1
    return n


def _made_in(rec, g, first_op: int) -> bool:
    """A gradient the call's own recorded ops made (an outer tape recorded them): its data
    flow is theirs."""
    entry = rec.tensors.get(id(g))
    if entry is None or entry[0]() is not g:
        return False
    op = rec.program.values[entry[1]].op
    return op is not None and op >= first_op
