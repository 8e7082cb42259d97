"""The tensor constructors PyTorch does not route through a TorchFunctionMode, seen anyway:
`nn.Parameter(...)` (the line that made a parameter, for "made without requires_grad"),
`torch.from_numpy(...)` and the legacy `torch.Tensor([...])` (a new tensor built from
values, which cuts the gradient of the tensors it was built from). Each patch is undone
when the capture ends; each returns PyTorch's own result unchanged."""

from __future__ import annotations

import sys
from contextlib import ExitStack

import torch

from gradcli.capture.program import OpKind
from gradcli.capture.torch_capture import Recorder, tensors_in
from gradcli.capture.torch_ops import Described

_FROM_NUMPY = Described("torch.from_numpy", "from_numpy", OpKind.REWRAP)
_LEGACY = Described("torch.Tensor", "Tensor", OpKind.REWRAP)


def install(stack: ExitStack, rec: Recorder) -> None:
    """Patch the three constructors for the capture's lifetime."""
    _parameter(stack, rec)
    from_numpy = torch.from_numpy

    def seen_from_numpy(*args, **kwargs):
        return _recorded(rec, _FROM_NUMPY, from_numpy, args, kwargs)

    torch.from_numpy = seen_from_numpy
    stack.callback(setattr, torch, "from_numpy", from_numpy)
    _legacy_tensor(stack, rec)


def _parameter(stack: ExitStack, rec: Recorder) -> None:
    parameter = torch.nn.Parameter
    original = parameter.__dict__["__new__"]
    make = original.__func__ if isinstance(original, staticmethod) else original

    def new(cls, *args, **kwargs):
        p = make(cls, *args, **kwargs)
        if rec.failure is None and not rec.busy:
            try:  # the parameter is known from here, with the line that made it
                rec.value_of(p, rec.files.where(sys._getframe(1))[1])
            except Exception as exc:  # gradcli's own failure: stop capturing, keep running
                rec.failure = exc
        return p

    parameter.__new__ = staticmethod(new)
    stack.callback(setattr, parameter, "__new__", original)


def _legacy_tensor(stack: ExitStack, rec: Recorder) -> None:
    tensor = torch.Tensor
    had = "__new__" in tensor.__dict__
    original = tensor.__dict__.get("__new__")
    base = torch._C.TensorBase.__new__

    def build(*args, **kwargs):
        return base(tensor, *args, **kwargs)

    # (*args, **kwargs) exactly: torch._dynamo checks a patched Tensor.__new__'s signature
    def new(*args, **kwargs):
        cls, args = args[0], args[1:]
        if cls is not tensor:  # a subclass's own construction: not a legacy constructor
            return base(cls, *args, **kwargs)
        return _recorded(rec, _LEGACY, build, args, kwargs)

    tensor.__new__ = staticmethod(new)
    if had:
        stack.callback(setattr, tensor, "__new__", original)
    else:
        stack.callback(delattr, tensor, "__new__")


def _recorded(rec: Recorder, d: Described, func, args, kwargs):
    """Run a constructor and record it as the user's operation, as the mode would."""
    if rec.failure is not None or rec.busy:
        return func(*args, **kwargs)
    try:
        rec.stack = rec.files.stack(sys._getframe(2))
        file, line = rec.stack[0][:2] if rec.stack else (None, None)
        inputs = tensors_in(list(args), [], 3)
        grad, inference = torch.is_grad_enabled(), torch.is_inference_mode_enabled()
    except Exception as exc:
        rec.failure = exc
        return func(*args, **kwargs)
    rec.busy += 1  # the conversions inside (a tensor's value read) are the constructor's
    try:
        out = func(*args, **kwargs)
    finally:
        rec.busy -= 1
    try:
        rec.record(d, args, kwargs, inputs, out, file, line, grad, inference, None)
    except Exception as exc:
        rec.failure = exc
    return out
