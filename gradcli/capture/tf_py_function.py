"""An eager tf.py_function under capture: its body runs inside the EagerPyFunc op, on
copies of the op's inputs, and TensorFlow differentiates it through the TF ops the body
ran (a tape of its own). The body's arguments are the op's inputs to the capture, so a
value the body takes out of TensorFlow (`t.numpy()`, `np.*` of it) is an exit of the
very tensor the op was given; the exits the body made are kept on the EagerPyFunc op
(`body_exits`), where the diagnosis finds why its gradient is zero.
"""

from __future__ import annotations

import tensorflow as tf

from gradcli.capture.program import OpKind

PY_FUNCTION_OP = "EagerPyFunc"


def install(stack, rec, is_eager) -> None:
    """Wrap tf.py_function for eager calls; restored when `stack` closes."""
    original = tf.py_function

    def py_function(func=None, inp=None, Tout=None, name=None):
        if func is None or not tf.executing_eagerly() or rec.busy:
            return original(func=func, inp=inp, Tout=Tout, name=name)
        outer = [t for t in tf.nest.flatten(inp) if is_eager(t)]

        def body(*args):
            if not rec.busy and rec.failure is None:
                rec.busy += 1
                try:  # the body's arguments are the op's inputs, in order
                    for inner, t in zip(args, outer):
                        if is_eager(inner) and inner is not t:
                            rec.alias(inner, rec.value_of(t))
                except Exception as exc:
                    rec.failure = exc
                finally:
                    rec.busy -= 1
            return func(*args)

        start = len(rec.program.ops)
        out = original(func=body, inp=inp, Tout=Tout, name=name)
        if rec.failure is None:
            made = rec.program.ops[start:]
            exits = [op.index for op in made if op.kind == OpKind.EXIT]
            ran = [op for op in made if op.extra.get("type") == PY_FUNCTION_OP]
            if exits and ran:
                ran[-1].extra["body_exits"] = exits
        return out

    for owner in (tf, tf.compat.v1):
        if getattr(owner, "py_function", None) is original:
            owner.py_function = py_function
            stack.callback(setattr, owner, "py_function", original)
