"""Run a PyTorch script under capture: the mode, the global module and optimizer hooks, and
what the script's end (or its error, or a stop) leaves to read."""

from __future__ import annotations

import gc
import sys
import weakref
from contextlib import ExitStack

import torch

from gradcli.capture import script, torch_constructors
from gradcli.capture.program import Captured, Operation, OpKind, Optimizer, ProgramError
from gradcli.capture.torch_calls import GradientCalls
from gradcli.capture.torch_capture import CaptureMode, Recorder, is_leaf, user_files
from gradcli.capture.torch_registry import layers_in_forward, unregistered


def seed_all(seed: int) -> None:
    """Seed Python's random, NumPy and torch, as a script's own seeding would."""
    import random

    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def capture(path: str, code, text: str, args, calls: int | None, timeout, seed) -> Captured:
    """Run the compiled script as __main__ and return what PyTorch did."""
    files = user_files(code.co_filename)
    files.top = code
    program = Captured(path, "torch", text.splitlines())
    rec = Recorder(program, files)
    gradient_calls = GradientCalls(rec, calls)
    if seed is not None:
        seed_all(seed)
    with script.larger_stack():
        with ExitStack() as stack:
            _keep_global_state(stack)
            _install(stack, rec)
            stack.enter_context(CaptureMode(rec, gradient_calls))
            outcome = script.run(code, code.co_filename, list(args), timeout)
        _read_end(program, rec, gradient_calls, outcome)
        # the script's objects (and the graphs they hold) go now, with the larger stack
        if outcome.namespace is not None:
            outcome.namespace.clear()
        outcome.exception = outcome.namespace = None
        gc.collect()
    return program


def _read_end(program: Captured, rec: Recorder, gradient_calls, outcome) -> None:
    """How the script ended, and what its namespace shows (module names, unregistered)."""
    namespace = outcome.namespace
    program.stopped = outcome.stopped
    program.exit_code = outcome.exit_code
    if outcome.exception is not None:
        exc = outcome.exception
        frames = script.script_frames(exc.__traceback__, rec.files)
        file, line, function = frames[0] if frames else (None, None, None)
        program.error = ProgramError(
            type(exc).__name__,
            str(exc),
            line,
            file,
            len(program.ops),
            gradient_calls.errors.get(id(exc)),
            function,
            tuple(frames),
        )
    if rec.failure is not None:
        program.facts["capture_failure"] = f"{type(rec.failure).__name__}: {rec.failure}"
    program.modules = module_names(rec, namespace)
    try:
        program.registered = unregistered(rec, namespace)
        if program.error is not None and "empty parameter list" in program.error.message:
            program.facts["layers_in_forward"] = layers_in_forward(namespace)
    except Exception as exc:  # a module whose attributes cannot be read: nothing to say
        program.facts["registry_failure"] = f"{type(exc).__name__}: {exc}"


def module_names(rec: Recorder, namespace: dict | None) -> dict[int, str]:
    """The capture's module ids -> the script's names for them (model.encoder.fc1)."""
    by_object: dict[int, str] = {}
    for name, obj in (namespace or {}).items():
        if isinstance(obj, torch.nn.Module) and not name.startswith("_"):
            for path, sub in obj.named_modules():
                by_object.setdefault(id(sub), f"{name}.{path}" if path else name)
    names = {}
    for mid, ref in rec.module_refs.items():
        module = ref()
        if module is not None and id(module) in by_object:
            names[mid] = by_object[id(module)]
    return names


def _keep_global_state(stack: ExitStack) -> None:
    """The grad mode, default dtype and anomaly mode as they were, whatever the script set
    (a script that switches grad off globally and ends would leave it so for the caller)."""
    grad, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    anomaly = torch.is_anomaly_enabled()
    stack.callback(torch.set_grad_enabled, grad)
    stack.callback(torch.set_default_dtype, dtype)
    stack.callback(torch.set_anomaly_enabled, anomaly)


def _install(stack: ExitStack, rec: Recorder) -> None:
    """The module forward hooks, the optimizer hooks and Function.apply, undone on exit."""
    from torch.nn.modules import module as nn_module
    from torch.optim import optimizer as optim

    def pre(module, args):
        rec.modules.append(rec.module_id(module))
        rec.module_objects.append(weakref.ref(module))

    def post(module, args, output):
        if rec.modules:
            rec.modules.pop()
            rec.module_objects.pop()

    stack.callback(nn_module.register_module_forward_pre_hook(pre).remove)
    stack.callback(nn_module.register_module_forward_hook(post, always_call=True).remove)
    stack.callback(optim.register_optimizer_step_pre_hook(_step_hook(rec)).remove)
    original_init = optim.Optimizer.__init__

    def init(self, params, *args, **kwargs):
        _file, line = rec.files.where(sys._getframe(1))
        if not isinstance(params, (torch.Tensor, list, tuple, dict)):
            params = list(params)  # a generator: read once, here, as Optimizer would
        try:
            original_init(self, params, *args, **kwargs)
        except ValueError as exc:
            _non_leaf_params(rec, params, line, exc)
            raise
        record = Optimizer(len(rec.program.optimizers), type(self).__name__, line)
        rec.program.optimizers.append(record)
        rec.optimizers.append((weakref.ref(self), record))
        _refresh(rec, self, record)

    optim.Optimizer.__init__ = init
    stack.callback(setattr, optim.Optimizer, "__init__", original_init)
    module_init = torch.nn.Module.__init__

    def made(self, *args, **kwargs):
        if id(self) not in rec.module_lines:  # the line that made the layer (nn.Embedding(...))
            rec.module_lines[id(self)] = rec.files.where(sys._getframe(1))[1]
        module_init(self, *args, **kwargs)

    torch.nn.Module.__init__ = made
    stack.callback(setattr, torch.nn.Module, "__init__", module_init)
    function = torch.autograd.function.Function
    original_apply = function.__dict__["apply"]

    def apply(cls, *args, **kwargs):
        return _custom_apply(rec, cls, original_apply.__func__, args, kwargs)

    function.apply = classmethod(apply)
    stack.callback(setattr, function, "apply", original_apply)
    torch_constructors.install(stack, rec)
    _warnings_at_user_lines(stack, rec)


def _warnings_at_user_lines(stack: ExitStack, rec: Recorder) -> None:
    """PyTorch's warnings from an operation name the user's line, as without gradcli (they
    are raised inside the capture's handler, so Python would name gradcli's line)."""
    import os
    import warnings

    import gradcli

    ours = os.path.dirname(os.path.realpath(gradcli.__file__)) + os.sep
    show = warnings.showwarning

    def shown(message, category, filename, lineno, file=None, line=None):
        if os.path.realpath(filename).startswith(ours) and rec.stack:
            filename, lineno = rec.stack[0][:2]
            line = None
        show(message, category, filename, lineno, file, line)

    warnings.showwarning = shown
    stack.callback(setattr, warnings, "showwarning", show)


def _refresh(rec: Recorder, opt, record: Optimizer) -> None:
    for group in opt.param_groups:
        record.params.update(rec.value_of(p) for p in group["params"])


def _step_hook(rec: Recorder):
    def hook(opt, args, kwargs):
        for ref, record in rec.optimizers:
            if ref() is opt:
                _refresh(rec, opt, record)
                _file, line = rec.files.where(sys._getframe(1))
                params = [p for g in opt.param_groups for p in g["params"]]
                none = [rec.value_of(p) for p in params if p.grad is None]
                record.steps.append({"op": len(rec.program.ops), "line": line, "none": none})

    return hook


def _non_leaf_params(rec: Recorder, params, line, exc) -> None:
    """An optimizer refused a tensor that is not a leaf: keep which, for the diagnosis."""
    found = []
    for p in params if isinstance(params, (list, tuple)) else ():
        tensors = p.get("params", ()) if isinstance(p, dict) else [p]
        if isinstance(tensors, torch.Tensor):
            tensors = [tensors]
        found += [
            rec.value_of(t) for t in tensors if isinstance(t, torch.Tensor) and not is_leaf(t)
        ]
    rec.program.facts["non_leaf_params"] = {"line": line, "values": found, "message": str(exc)}


def _custom_apply(rec: Recorder, cls, apply, args, kwargs):
    """A custom autograd.Function applied: recorded as one operation from the user's line."""
    from gradcli.capture.torch_capture import tensors_in
    from gradcli.capture.torch_ops import Described

    rec.stack = rec.files.stack(sys._getframe(2))
    file, line = rec.stack[0][:2] if rec.stack else (None, None)
    inputs = tensors_in(list(args), [], 2)
    grad, inference = torch.is_grad_enabled(), torch.is_inference_mode_enabled()
    out = apply(cls, *args, **kwargs)
    try:
        d = Described(f"{cls.__name__}.apply", "apply", OpKind.CUSTOM)
        index = rec.record(d, args, kwargs, inputs, out, file, line, grad, inference, None)
        extra = rec.program.ops[index].extra
        extra["function"] = cls.__name__
        extra["backward"] = _def_line(getattr(cls, "backward", None))
    except Exception as exc:
        rec.failure = exc
    return out


def _def_line(function) -> tuple | None:
    """(file, line) of a function's `def` (its code's first line is its first decorator's)."""
    import linecache

    code = getattr(function, "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    for k in range(line, line + 20):
        if linecache.getline(code.co_filename, k).lstrip().startswith(("def ", "async def ")):
            return code.co_filename, k
    return code.co_filename, line


__all__ = ["Operation", "capture"]
