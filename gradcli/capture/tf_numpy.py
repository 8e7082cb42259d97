"""NumPy meeting eager tensors under capture: a NumPy function given an eager tensor takes
its values out of TensorFlow (NumPy reads them through the buffer protocol, which no
Python hook sees), so each of NumPy's public functions and ufuncs is wrapped while the
script runs. A tensor among a call's arguments is an exit at your line; an array that an
earlier exit made (or a NumPy function made from one) passes its exits on to the result,
so a tensor later built from that result is a rewrap of those very values. Everything is
undone when the capture ends; the values are NumPy's own.
"""

from __future__ import annotations

import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops

MAX_SCAN = 64  # items of a list argument looked into
# the array constructors are plain builtins, the rest NumPy's dispatched functions
CONSTRUCTORS = ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray")


def install(stack, rec) -> None:
    """Wrap NumPy's top-level functions and ufuncs; each is restored when `stack` closes."""
    for name in dir(np):
        if name.startswith("_"):
            continue
        f = getattr(np, name, None)
        dispatched = type(f).__name__ == "_ArrayFunctionDispatcher"
        if isinstance(f, np.ufunc):
            wrapped = Ufunc(rec, name, f)
        elif dispatched or name in CONSTRUCTORS:
            wrapped = _function(rec, name, f)
        else:
            continue
        setattr(np, name, wrapped)
        stack.callback(setattr, np, name, f)


def _call(rec, name, f, args, kwargs):
    if rec.busy or rec.failure is not None or rec.numpy_depth:
        return f(*args, **kwargs)
    tensors, exits = _sources(rec, args, kwargs)
    rec.numpy_depth += 1
    try:
        out = f(*args, **kwargs)
    finally:
        rec.numpy_depth -= 1
    if tensors or exits:
        rec.busy += 1
        try:
            frame = sys._getframe(2)
            for t in tensors:
                rec.record_exit(f"np.{name}", t, out, frame)
                exits.append(len(rec.program.ops) - 1)
            rec.exits.keep(out, tuple(dict.fromkeys(exits)))
        except Exception as exc:
            rec.failure = exc
        finally:
            rec.busy -= 1
    return out


def _sources(rec, args, kwargs) -> tuple[list, list]:
    """(eager tensors among the arguments, EXIT ops whose values are among them)."""
    tensors, exits = [], []
    stack = [(a, 2) for a in args] + [(v, 2) for v in kwargs.values()]
    while stack:
        obj, depth = stack.pop()
        if isinstance(obj, ops.EagerTensor):
            tensors.append(obj)
        elif _handle(obj) is not None:  # a variable: its value leaves from its state
            tensors.append(_handle(obj))
        elif isinstance(obj, (np.ndarray, np.generic)):
            exits += rec.exits.found_in(obj, 0)
        elif depth and isinstance(obj, (list, tuple)):
            stack.extend((item, depth - 1) for item in obj[:MAX_SCAN])
    return tensors, exits


def _handle(obj):
    """A tf.Variable's (or a Keras variable's) eager handle, else None."""
    if isinstance(obj, tf.Variable):
        handle = getattr(obj, "handle", None)
    elif type(obj).__module__.startswith("keras") and hasattr(obj, "value"):
        handle = getattr(getattr(obj, "value", None), "handle", None)
    else:
        return None
    return handle if isinstance(handle, ops.EagerTensor) else None


def _function(rec, name, f):
    def wrapper(*args, **kwargs):
        return _call(rec, name, f, args, kwargs)

    wrapper.__name__ = getattr(f, "__name__", name)
    wrapper.__doc__ = getattr(f, "__doc__", None)
    wrapper.__wrapped__ = f
    return wrapper


class Ufunc:
    """A ufunc called under capture (its methods and attributes are the ufunc's own)."""

    def __init__(self, rec, name, f):
        self._rec, self._name, self._f = rec, name, f
        self.__name__ = f.__name__
        self.__doc__ = f.__doc__

    def __call__(self, *args, **kwargs):
        return _call(self._rec, self._name, self._f, args, kwargs)

    def __getattr__(self, attr):
        return getattr(self._f, attr)

    def __repr__(self) -> str:
        return repr(self._f)
