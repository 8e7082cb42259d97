"""The TensorFlow edge of the run mode: an op callback that records every op TensorFlow runs
eagerly and every op it adds while tracing a tf.function (Keras's train step included), with
the user's line, and the values that leave TensorFlow (`.numpy()`, `float()`, NumPy) and
come back (a tensor made from those very Python objects).

Only the tf_*.py modules import TensorFlow, and only under `--run`. Values are
TensorFlow's own. Tensors are identified by holding a weak reference with their id (eager
ids are reused once a tensor is freed). Whether an op records a gradient is asked of
TensorFlow's tape set at the op (`should_record_backprop`: some active tape watches an
input), so FlowGraph.carries() means "a tape records a gradient through this op".
"""

from __future__ import annotations

import contextlib
import sys
import threading
import weakref
from collections import deque

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.framework import constant_op, ops
from tensorflow.python.framework.func_graph import FuncGraph

from gradcli.capture import tf_loops, tf_numpy, tf_py_function
from gradcli.capture.exits import ExitedValues
from gradcli.capture.program import Captured, Operation, OpKind, Value
from gradcli.capture.tf_conv_zeros import conv_attrs
from gradcli.capture.tf_ops import (
    INTEGER_TYPES,
    NONE_GRADIENTS,
    QUIET,
    READS,
    ROLE_OF,
    SHAPE_ONLY,
    SINGULAR_AT_ZERO,
    TRANSPOSES,
    TRANSPOSING,
    WRITE_TARGET,
    WRITES,
    display,
    kind_of,
)
from gradcli.capture.tf_zero_kinds import CONVS, IF_OPS, branch_reads
from gradcli.capture.user_files import UserFiles

MAX_SCAN = 256  # items of a list looked into
MAX_HELD_BYTES = 256 * 2**20  # recorded eager values held for per-op gradients
FUNCTION_PREFIXES = ("__inference", "__forward_")
PLACEHOLDERS = ("Placeholder", "PlaceholderWithDefault")  # a TF1 graph's inputs
CALL_OPS = ("StatefulPartitionedCall", "PartitionedCall", "While", "StatelessWhile", "If")


def user_files(script: str) -> UserFiles:
    """The user's files for a TensorFlow script: never TensorFlow's or Keras's own, nor
    autograph's converted code (its ops carry the user's lines in their tracebacks)."""
    packages = [tf]
    try:
        import keras

        packages.append(keras)
    except ImportError:
        pass
    return UserFiles(script, packages, skipped=("__autograph_generated_file",))


def is_eager(t) -> bool:
    return isinstance(t, ops.EagerTensor)


def _dtype(t) -> str:
    try:
        return t.dtype.name
    except Exception:
        return str(getattr(t, "dtype", "?"))


def _shape(t) -> tuple:
    try:
        return tuple(t.shape.as_list())
    except (ValueError, AttributeError):
        return ()


def _zeros(t) -> int:
    """How many elements of an eager tensor are exactly 0."""
    try:
        return int(np.count_nonzero(t._numpy() == 0))
    except Exception:
        return 0


def trainable(t) -> bool:
    """A dtype a tape differentiates (floating or complex)."""
    dtype = getattr(t, "dtype", None)
    return bool(dtype is not None and (dtype.is_floating or dtype.is_complex))


class Recorder:
    """The captured program under construction, fed by TensorFlow's op callback."""

    def __init__(self, program: Captured, files: UserFiles):
        self.program = program
        self.files = files
        self.tensors: dict[int, tuple] = {}  # id(tensor) -> (reference, value id)
        self.made: dict[int, object] = {}  # value id -> a reference to the op output it is
        # the latest eager values a tape recorded, held so a gradient call can ask for the
        # gradient at each of them (TensorFlow's tape keeps only what its gradients need)
        self.held: deque = deque()
        self.held_bytes = 0
        self.exits = ExitedValues()  # values that left TensorFlow, to know them when they return
        self.state: dict[int, int] = {}  # a variable's handle value -> its state value
        # id(weight) -> (the weight, the user's line of its add_weight(..., trainable=False))
        self.frozen_weights: dict[int, tuple] = {}
        self.captures: dict[int, dict] = {}  # id(graph) -> {id(internal): external}
        self.reports: dict[int, object] = {}  # id(graph) -> its uninitialised-variables op
        self.failure: BaseException | None = None  # gradcli's own failure, if any
        self.busy = 0  # > 0 while the capture (or a recorded gradient call) runs TF itself
        self.numpy_depth = 0  # > 0 inside a NumPy function that records its own exits
        self._grads: dict[str, bool] = {}
        self.graphs = tf_loops.Graphs()  # traced graphs' small ids, the functions being called

    # --- values ------------------------------------------------------------------------
    def value_of(self, t, line=None) -> int:
        """The value id of a tensor, made on first sight (a graph's captured placeholder
        is the eager tensor it captures)."""
        entry = self.tensors.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        if not is_eager(t):
            external = self._external(t)
            if external is not None:
                vid = self.value_of(external, line)
                self._keep(t, vid)
                return vid
            line = self._made_at(t) or line
        return self.new_value(t, None, line)

    def _made_at(self, t) -> int | None:
        """The user's line a TF1 placeholder was made at (no op callback sees one; its op
        keeps the traceback), else None."""
        try:
            if t.op.type not in PLACEHOLDERS or isinstance(t.graph, FuncGraph):
                return None  # a function's or loop body's argument: not the user's input
            stack = self.files.summary(t.op.traceback)
        except Exception:
            return None
        return stack[0][1] if stack and stack[0][0] == self.program.file else None

    def _external(self, t):
        """The outer tensor a FuncGraph placeholder captures, or None."""
        try:
            if t.op.type != "Placeholder":
                return None
            graph = t.graph
        except AttributeError:
            return None
        known = self.captures.get(id(graph))
        if known is None or id(t) not in known:
            try:
                pairs = list(graph.captures)
            except Exception:
                return None
            known = {id(internal): external for external, internal in pairs}
            self.captures[id(graph)] = known
        return known.get(id(t))

    def alias(self, t, vid: int) -> None:
        """Tensor t is value vid (a tf.py_function body's argument: the op's input)."""
        self._keep(t, vid)

    def _keep(self, t, vid: int) -> None:
        try:
            ref = weakref.ref(t)
        except TypeError:
            ref = lambda t=t: t  # noqa: E731 (held: no weak reference for this type)
        self.tensors[id(t)] = (ref, vid)

    def new_value(self, t, op: int | None, line, requires_grad: bool = False) -> int:
        values = self.program.values
        vid = len(values)
        # a variable's handle; a TensorList (tf.while_loop's accumulators, TensorArray)
        floating = trainable(t) or _dtype(t) in ("resource", "variant")
        finite = True
        if floating and op is not None and is_eager(t) and _dtype(t) != "variant":
            try:
                finite = bool(np.isfinite(t._numpy()).all())
            except Exception:
                finite = True
        values[vid] = Value(
            vid,
            _shape(t),
            _dtype(t),
            requires_grad,
            True,
            op,
            line,
            floating=floating,
            finite=finite,
        )
        self._keep(t, vid)
        self.made[vid] = self.tensors[id(t)][0]
        if requires_grad and op is not None and is_eager(t):
            self._hold(t)
        return vid

    def _hold(self, t) -> None:
        size = max(int(t.shape.num_elements() or 0), 1) * max(t.dtype.size, 1)
        self.held.append((t, size))
        self.held_bytes += size
        while self.held_bytes > MAX_HELD_BYTES and len(self.held) > 1:
            self.held_bytes -= self.held.popleft()[1]

    def state_value(self, like, op: int, line) -> int:
        """A variable's state after a write (no tensor: the variable holds it)."""
        values = self.program.values
        vid = len(values)
        values[vid] = Value(
            vid,
            _shape(like) if like is not None else (),
            _dtype(like) if like is not None else "?",
            False,
            True,
            op,
            line,
            floating=like is not None and trainable(like),
        )
        return vid

    # --- the op callback ---------------------------------------------------------------
    def callback(self, op_type, inputs, attrs, outputs, op_name=None, graph=None):
        """TensorFlow's op callback: record the op; TensorFlow's outputs are kept as they
        are (None)."""
        if self.busy or self.failure is not None:
            return None
        self.busy += 1
        try:
            self._on_op(op_type, inputs, outputs, op_name, graph, attrs)
        except Exception as exc:  # gradcli's own failure: stop capturing, keep running
            self.failure = exc
        finally:
            self.busy -= 1
        return None

    def _where(self, graph, outputs, op_name) -> tuple:
        if graph is None:
            return self.files.stack(sys._getframe(3))
        op = outputs[0].op if outputs else None
        if op is None and op_name is not None:
            try:
                op = graph.get_operation_by_name(op_name)
            except (KeyError, ValueError, AttributeError):
                op = None
        if op is None:
            return self.files.stack(sys._getframe(3))
        return self.files.summary(op.traceback)

    def _on_op(self, op_type, inputs, outputs, op_name, graph, attrs=None) -> None:
        if isinstance(op_type, bytes):
            op_type = op_type.decode("utf-8", "replace")
        if op_type in QUIET or (op_type == "Const" and graph is not None):
            return
        stack = self._where(graph, outputs, op_name)
        if not stack:
            return  # an op of TensorFlow's or Keras's own with no user frame (start-up)
        file, line = stack[0][:2]
        inputs = [t for t in (inputs or ()) if t is not None]
        outs = list(outputs or ())
        kind = kind_of(op_type, _dtype(outs[0]) if outs else None)
        if op_type == "VarHandleOp":
            kind = OpKind.CREATE
        elif op_type in READS and outs and not trainable(outs[0]):
            kind = OpKind.CAST_INT  # an integer variable's value
        values = self.program.values
        tensors = inputs if op_type not in SHAPE_ONLY else []
        if kind is OpKind.INPLACE:  # a write: the values written, not the variable's handle
            tensors = [t for t in inputs if _dtype(t) != "resource"]
        in_ids = [self.value_of(t, line) for t in tensors]
        target = WRITE_TARGET.get(op_type, 0)
        writes = op_type in WRITES and len(inputs) > target
        handle = self.value_of(inputs[target], line) if writes else None
        if kind is not OpKind.INPLACE:  # what a resource it reads holds: the last write
            in_ids += [self.state[i] for i in dict.fromkeys(in_ids) if i in self.state]
        v1_graph = graph is not None and not isinstance(graph, FuncGraph)
        if v1_graph:
            # TF1 graph code: tf.gradients differentiates any float path, no tape needed
            should = any(trainable(t) or _dtype(t) == "resource" for t in inputs)
        else:
            should = bool(inputs) and bool(record.should_record_backprop(inputs))
            # TensorFlow calls a function's "__forward_" twin only for a tape that records it
            should = should or op_type.startswith("__forward_")
        if should:
            self._watched(inputs, in_ids, v1_graph)
        differentiable = self.differentiable(op_type)
        records = should and differentiable and kind is OpKind.COMPUTE
        watched = any(values[v].requires_grad and values[v].floating for v in in_ids)
        grad_enabled = should or not watched or kind is not OpKind.COMPUTE or not differentiable
        index = len(self.program.ops)
        extra: dict = {"stack": stack, "type": op_type}
        if op_type in TRANSPOSING and attrs:  # matmul's transposes, for its zeros' kind
            pairs = zip(attrs[::2], attrs[1::2])  # traced ops give AttrValue protos (.b)
            extra["attrs"] = {k: bool(getattr(v, "b", v)) for k, v in pairs if k in TRANSPOSES}
        if op_type in CONVS and attrs:  # strides, padding: for its zeros' kind
            extra["attrs"] = conv_attrs(attrs)
        if op_type in IF_OPS and attrs and graph is not None:  # which branch reads each input
            reads = branch_reads(attrs, graph)
            if reads is not None:
                extra["branch_reads"] = reads
        if op_type == "VarHandleOp" or op_type in WRITES:
            extra["state"] = True  # makes or writes a variable's state
        if graph is not None and isinstance(graph, FuncGraph):  # for reading loop bodies
            name = outs[0].op.name if outs and hasattr(outs[0], "op") else op_name
            extra["graph"] = self.graphs.saw(graph, name)
            if not differentiable:
                extra["no_grad"] = True
        out_ids = []
        if kind is OpKind.INPLACE and handle is not None:
            like = tensors[0] if tensors else None
            out_ids.append(self.state_value(like, index, line))
            self.state[handle] = out_ids[0]
        else:
            for t in outs:
                carries = trainable(t) or _dtype(t) == "variant"  # (a TensorList)
                out_ids.append(self.new_value(t, index, line, records and carries))
        if op_type in SINGULAR_AT_ZERO and outs and is_eager(outs[0]) and trainable(outs[0]):
            zeros = _zeros(outs[0])
            if zeros:
                extra["singular"] = zeros  # derivative infinite where the value is 0
        try:
            body = tf_loops.link(self, op_type, attrs, graph, inputs, outs)
        except Exception:  # a body not read is unknown beyond the op's line, the run goes on
            body = None
        if body is not None:
            extra["body"] = body
        role = ROLE_OF.get(op_type)
        calls = op_type in CALL_OPS or op_type.startswith(FUNCTION_PREFIXES)
        if calls and any(trainable(t) for t in outs):
            role = role or "call"  # a loop's first output is its counter, not its result
        if role is None and kind is OpKind.COMPUTE and outs and watched and not trainable(outs[0]):
            role = "discrete" if _dtype(outs[0]) in INTEGER_TYPES else None
        if role is not None and role != "call":
            extra["role"] = role
        self.program.ops.append(
            Operation(
                index,
                display(op_type, extra),
                kind,
                tuple(in_ids),
                tuple(out_ids),
                line,
                file,
                grad_enabled,
                False,
                None,
                records,
                (),
                extra,
            )
        )

    def _watched(self, inputs, in_ids, v1_graph: bool = False) -> None:
        """Inputs made outside any recorded op that a tape watches now (in TF1 graph code:
        every float one, tf.gradients takes any): they require grad."""
        values, ops_ = self.program.values, self.program.ops
        for t, vid in zip(inputs, in_ids):
            value = values[vid]
            if value.requires_grad:
                continue
            made = ops_[value.op].kind if value.op is not None else None
            if made not in (None, OpKind.CREATE, OpKind.REWRAP):
                continue
            if v1_graph:
                value.requires_grad = value.floating
            elif len(inputs) == 1 or record.should_record_backprop([t]):
                value.requires_grad = True

    def differentiable(self, op_type: str) -> bool:
        """Whether TensorFlow's gradient registry gives the op type a gradient."""
        known = self._grads.get(op_type)
        if known is None:
            if op_type in NONE_GRADIENTS:
                known = False
            else:
                try:
                    known = ops._gradient_registry.lookup(op_type) is not None
                except LookupError:
                    # a tf.function's call: its op type is the function's name (one a
                    # tape records is TensorFlow's "__forward_" twin of "__inference_")
                    known = op_type.startswith(FUNCTION_PREFIXES) or op_type in CALL_OPS
            self._grads[op_type] = known
        return known

    # --- values leaving TensorFlow and coming back --------------------------------------
    def record_exit(self, name: str, t, out, frame) -> None:
        """t.numpy(), float(t), np.asarray(t): the value leaves TensorFlow."""
        stack = self.files.stack(frame)
        if not stack:
            return
        file, line = stack[0][:2]
        index = len(self.program.ops)
        vid = self.value_of(t, line)
        self.program.ops.append(
            Operation(index, name, OpKind.EXIT, (vid,), (), line, file, extra={"stack": stack})
        )
        self.exits.keep(out, index)

    def record_conversion(self, value, t, frame) -> None:
        """A tensor made from Python or NumPy values: a rewrap of values that left
        TensorFlow, or a tensor built from values (CREATE, from_values)."""
        stack = self.files.stack(frame)
        if not stack:
            return
        file, line = stack[0][:2]
        exits = self.exits.found_in(value)
        # NumPy floats only: TensorFlow converts its own integer arrays (reduction axes,
        # shapes) the same way, and a rebuilt tensor that matters to a gradient is floating
        numpy = isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "fc"
        if not exits and not numpy:
            vid = self.new_value(t, None, line)  # a literal: its line is where it was written
            spans = getattr(stack, "spans", ())
            self.program.values[vid].span = spans[0] if spans else None
            return
        index = len(self.program.ops)
        extra = {"stack": stack}
        kind = OpKind.REWRAP if exits else OpKind.CREATE
        if not exits:
            extra["from_values"] = True
        out = self.new_value(t, index, line)
        self.program.ops.append(
            Operation(index, "tf.constant", kind, (), (out,), line, file, exits=exits, extra=extra)
        )


EXIT_METHODS = ("numpy", "__array__", "__float__", "__int__", "__index__", "__complex__")


def install(stack, rec: Recorder) -> None:
    """The op callback, the exits (EagerTensor's numpy and friends) and the conversions of
    Python values into tensors, each undone when `stack` closes."""
    from tensorflow.python.framework import op_callbacks

    op_callbacks.add_op_callback(rec.callback)
    stack.callback(op_callbacks.remove_op_callback, rec.callback)
    _threads(stack, rec)
    base = ops._EagerTensorBase
    for name in EXIT_METHODS:
        original = base.__dict__.get(name)
        if original is None:
            continue
        setattr(base, name, _exit_method(rec, name, original))
        stack.callback(setattr, base, name, original)
    convert = constant_op.convert_to_eager_tensor

    def converted(value, ctx, dtype=None):
        t = convert(value, ctx, dtype)
        if not rec.busy and rec.failure is None and not isinstance(value, ops.EagerTensor):
            rec.busy += 1
            try:
                rec.record_conversion(value, t, sys._getframe(1))
            except Exception as exc:
                rec.failure = exc
            finally:
                rec.busy -= 1
        return t

    constant_op.convert_to_eager_tensor = converted
    stack.callback(setattr, constant_op, "convert_to_eager_tensor", convert)
    _numpy_function(stack, rec)
    tf_numpy.install(stack, rec)
    tf_py_function.install(stack, rec, is_eager)
    tf_loops.install(stack, rec)
    _python_path(stack)


def _numpy_function(stack, rec: Recorder) -> None:
    """An eager tf.numpy_function: its inputs leave TensorFlow for the function's NumPy
    arrays (one exit per input, at your line), and what it returns comes back as values
    that left (a traced one is a PyFunc op, an exit the op callback sees)."""
    original = tf.numpy_function

    def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
        if func is None or not tf.executing_eagerly():
            return original(func, inp, Tout, stateful=stateful, name=name)
        tensors = [t for t in tf.nest.flatten(inp) if is_eager(t)]

        def leaving(*arrays):
            out = func(*arrays)
            if not rec.busy and rec.failure is None and tensors:
                rec.busy += 1
                try:
                    frame = sys._getframe(1)
                    for t in tensors:
                        rec.record_exit("tf.numpy_function", t, out, frame)
                except Exception as exc:
                    rec.failure = exc
                finally:
                    rec.busy -= 1
            return out

        return original(leaving, inp, Tout, stateful=stateful, name=name)

    for owner in (tf, tf.compat.v1):
        if getattr(owner, "numpy_function", None) is original:
            owner.numpy_function = numpy_function
            stack.callback(setattr, owner, "numpy_function", original)


def _threads(stack, rec: Recorder) -> None:
    """The op callback in every thread the script starts: TensorFlow keeps op callbacks
    per thread, so a thread's ops would otherwise run unseen."""
    from tensorflow.python.framework import op_callbacks
    from tensorflow.python.util import tf_stack

    original = threading.Thread._bootstrap_inner
    start = threading.Thread.start

    def started(thread):
        # AutoGraph maps its generated code back to your lines per thread: a thread the
        # script (or MirroredStrategy, for its replicas) starts inherits the starter's map
        with contextlib.suppress(Exception):
            top = tf_stack._source_mapper_stacks[threading.get_ident()][-1]
            thread._gradcli_source_map = dict(top.get_effective_source_map())
        return start(thread)

    def bootstrap_inner(thread):
        try:
            op_callbacks.add_op_callback(rec.callback)
            inherited = getattr(thread, "_gradcli_source_map", None)
            if inherited:
                _inherited_mapper()(inherited).__enter__()  # this thread's own: it ends with it
        except Exception as exc:
            rec.failure = rec.failure or exc
        # never removed here: the list may be another thread's by then (MirroredStrategy's
        # replica threads take their parent's), and this thread's own ends with it
        return original(thread)

    threading.Thread._bootstrap_inner = bootstrap_inner
    threading.Thread.start = started
    stack.callback(setattr, threading.Thread, "_bootstrap_inner", original)
    stack.callback(setattr, threading.Thread, "start", start)


def _inherited_mapper():
    """A TensorFlow stack-trace mapper holding a fixed source map (a starter thread's)."""
    from tensorflow.python.util import tf_stack

    class Inherited(tf_stack.StackTraceMapper):
        def __init__(self, source_map):
            super().__init__()
            self._map = source_map

        def get_effective_source_map(self):
            return self._map

    return Inherited


def _python_path(stack) -> None:
    """Every eager op through TensorFlow's Python path: the C fast path converts its
    arguments itself (a variable read there runs no op callback, a NumPy array or Python
    number is converted unseen), so the capture sends every generated op to its
    `*_eager_fallback`, which converts in Python and calls the op callbacks."""
    from tensorflow.python import pywrap_tfe
    from tensorflow.python.eager import core

    fast = pywrap_tfe.TFE_Py_FastPathExecute

    def fallback(*args, **kwargs):
        raise core._FallbackException("gradcli: every op on the Python path")

    pywrap_tfe.TFE_Py_FastPathExecute = fallback
    stack.callback(setattr, pywrap_tfe, "TFE_Py_FastPathExecute", fast)


def _exit_method(rec: Recorder, name: str, original):
    label = {"numpy": ".numpy()", "__array__": "np.asarray", "__float__": "float()"}.get(name, name)

    def method(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        if not rec.busy and not rec.numpy_depth and rec.failure is None:
            rec.busy += 1
            try:
                rec.record_exit(label, self, out, sys._getframe(1))
            except Exception as exc:
                rec.failure = exc
            finally:
                rec.busy -= 1
        return out

    method.__name__ = name
    return method
