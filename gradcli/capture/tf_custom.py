"""`tf.custom_gradient` under the capture: the edge from its inputs to its results that the
tape records, and what its gradient function returned.

TensorFlow runs the decorated function's body as ordinary ops, passes the results through
identities, and records on the tape one operation from the inputs to those identities whose
gradient is the user's function (`record.record_operation`). The capture hooks that call
from the decorator: each identity's operation gets the inputs as well (the tape's edge) and
the function's name, and the gradient function is wrapped to note, when the gradient call
runs it, each input it returned None for. Such an operation becomes a CUSTOM one, so the
diagnosis names it (at its line) for a source that gets None through it. Values stay
TensorFlow's: the wrapper passes what the function returned on unchanged.
"""

from __future__ import annotations

import sys

from tensorflow.python.eager import record

from gradcli.capture.program import OpKind

DECORATORS = ("_eager_mode_decorator", "_graph_mode_decorator")


def install(stack, rec) -> None:
    """Hook record.record_operation for calls from tf.custom_gradient, undone by `stack`."""
    original = record.record_operation

    def record_operation(op_type, output_tensors, input_tensors, backward_function, *args, **kw):
        caller = sys._getframe(1).f_code
        ours = caller.co_name in DECORATORS and caller.co_filename.endswith("custom_gradient.py")
        if ours and not rec.busy and rec.failure is None:
            try:
                backward_function = _noted(
                    rec, op_type, output_tensors, input_tensors, backward_function
                )
            except Exception as exc:  # gradcli's own failure: stop capturing, keep running
                rec.failure = exc
        return original(op_type, output_tensors, input_tensors, backward_function, *args, **kw)

    record.record_operation = record_operation
    stack.callback(setattr, record, "record_operation", original)


def _noted(rec, name: str, outputs, inputs, backward):
    """Link the identities' operations to the inputs; the gradient function, wrapped."""
    program = rec.program
    in_ids = tuple(rec.value_of(t) for t in inputs)
    made = []
    for t in outputs:
        entry = rec.tensors.get(id(t))
        if entry is None or entry[0]() is not t:
            continue
        op_index = program.values[entry[1]].op
        if op_index is None:
            continue
        op = program.ops[op_index]
        op.inputs = tuple(dict.fromkeys((*op.inputs, *in_ids)))
        op.extra["function"] = name
        op.extra["custom_gradient"] = True
        made.append(op)
    if not made:
        return backward

    def noted_backward(*grads, **kwargs):
        results = backward(*grads, **kwargs)
        try:
            flat = list(results) if isinstance(results, (list, tuple)) else [results]
            none = {v for v, r in zip(in_ids, flat) if r is None}
            for op in made:
                op.extra.setdefault("none_inputs", set()).update(none)
                if none:
                    op.kind = OpKind.CUSTOM
        except Exception as exc:
            rec.failure = exc
        return results

    return noted_backward
