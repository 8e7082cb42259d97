"""The PyTorch edge of the run mode: a TorchFunctionMode that records every torch-level call
the script makes, with the user's line, the grad mode and the module it ran in.

Only this module set (torch_*.py) imports torch, and only under `--run`. Values are
PyTorch's own: the capture reads tensors, never recomputes them. What it keeps per tensor
is a weak reference and a few facts (shape, dtype, flags), not the tensor.
"""

from __future__ import annotations

import cmath
import math
import sys
import weakref

import torch
from torch.overrides import TorchFunctionMode

from gradcli.capture.exits import ExitedValues
from gradcli.capture.program import Captured, Operation, OpKind, Value
from gradcli.capture.torch_ops import ROLE_OF, describe
from gradcli.capture.user_files import UserFiles

NODE_KEY = "gradcli.op"  # the operation index written into a gradient node's metadata
MAX_SCAN = 256  # items of a list looked into for tensors


def user_files(script: str) -> UserFiles:
    """The user's files for a PyTorch script: never torch's own."""
    return UserFiles(script, [torch])


def tensors_in(obj, out: list, depth: int = 2) -> list:
    """The tensors in an argument: itself, or inside lists, tuples and dicts (bounded)."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif depth and isinstance(obj, (list, tuple)):
        for item in obj[:MAX_SCAN]:
            tensors_in(item, out, depth - 1)
    elif depth and isinstance(obj, dict):
        for item in list(obj.values())[:MAX_SCAN]:
            tensors_in(item, out, depth - 1)
    return out


def _dtype(t) -> str:
    return str(t.dtype).removeprefix("torch.")


class Recorder:
    """The captured program under construction: values by tensor, operations in order."""

    def __init__(self, program: Captured, files: UserFiles):
        self.program = program
        self.files = files
        self.tensors: dict[int, tuple] = {}  # id(tensor) -> (weakref, value id)
        self.exits = ExitedValues()  # values that left torch, to know them when they return
        self.modules: list = []  # the forward stack: module ids
        self.module_ids: dict[int, tuple] = {}  # id(module) -> (weakref, module id)
        self.module_refs: dict[int, object] = {}  # module id -> weakref
        self.failure: BaseException | None = None  # gradcli's own failure, if any
        self.busy = 0  # > 0 while the capture itself calls torch outside the mode's handler
        self.stack: tuple = ()  # the user frames of the operation being recorded
        self.optimizers: list = []  # (weakref to the optimizer, its Optimizer record)
        self.module_lines: dict[int, int | None] = {}  # id(module) -> the line that made it
        self.module_objects: list = []  # the forward stack's modules (weak), innermost last

    def optimizer_params(self) -> set[int]:
        """id() of every tensor some live optimizer holds."""
        held = set()
        for ref, _ in self.optimizers:
            opt = ref()
            for group in getattr(opt, "param_groups", ()):
                held.update(id(p) for p in group.get("params", ()))
        return held

    # --- values ------------------------------------------------------------------------
    def value_of(self, t, line=None) -> int:
        """The current value id of a tensor, made on first sight (outside any capture)."""
        entry = self.tensors.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        return self.new_value(t, None, line)

    def new_value(self, t, op: int | None, line, known_finite: bool = False) -> int:
        """A fresh value id for tensor t, made by operation op (known_finite: an operation
        that only selects, moves or bounds finite inputs, so no check is needed)."""
        self.busy += 1  # torch calls made here are the capture's own, never recorded
        try:
            return self._new_value(t, op, line, known_finite)
        finally:
            self.busy -= 1

    def _new_value(self, t, op: int | None, line, known_finite: bool = False) -> int:
        values = self.program.values
        vid = len(values)
        floating = t.is_floating_point() or t.is_complex()
        finite = True
        if floating and op is not None and not known_finite and not _is_fake(t):
            try:
                finite = all_finite(t)
            except Exception:  # meta tensors, sparse layouts: no values to look at
                finite = True
        node = grad_fn(t)
        values[vid] = Value(
            vid,
            tuple(t.shape),
            _dtype(t),
            t.requires_grad,
            is_leaf(t),
            op,
            line,
            floating=floating,
            finite=finite,
            inference=t.is_inference(),
            grad_node=type(node).__name__ if node is not None else None,
            parameter=is_parameter(t),
            in_forward=bool(self.modules),
        )
        try:
            ref = weakref.ref(t)
        except TypeError:
            ref = lambda: None  # noqa: E731 (a tensor type without weak references)
        self.tensors[id(t)] = (ref, vid)
        return vid

    # --- operations --------------------------------------------------------------------
    def record(self, d, args, kwargs, inputs, out, file, line, grad, inference, before):
        """Append the operation that just ran (d: its description) with its new values."""
        self.busy += 1
        try:
            return self._record(d, args, kwargs, inputs, out, file, line, grad, inference, before)
        finally:
            self.busy -= 1

    def _record(self, d, args, kwargs, inputs, out, file, line, grad, inference, before):
        ops = self.program.ops
        index = len(ops)
        in_ids = tuple(self.value_of(t, line) for t in inputs)
        outs = tensors_in(out, [], 1)
        kind = d.kind
        extra: dict = {}
        exits: tuple = ()
        if kind is OpKind.EXIT:
            self.exits.keep(out, index)
        elif kind is OpKind.REWRAP:
            exits = self.exits.found_in(args[0] if args else kwargs.get("data"))
            if not in_ids and not exits:
                kind = OpKind.CREATE
                extra["from_values"] = True
        elif kind in (OpKind.SET_REQUIRES_GRAD, OpKind.GRAD_MODE, OpKind.SET_GRAD):
            extra["value"] = _flag(d, args, kwargs)
        role = ROLE_OF.get(d.base)
        if role is not None:
            extra["role"] = role
            module = self.module_objects[-1]() if self.module_objects else None
            if module is not None and type(module).__module__.startswith("torch."):
                # a library layer (nn.ReLU in a Sequential): the user's line that made it
                extra["defined_line"] = self.module_lines.get(id(module))
        padding = None
        if d.base == "embedding":
            padding = kwargs.get("padding_idx", args[2] if len(args) > 2 else None)
        if isinstance(padding, int) and not isinstance(padding, bool):
            extra["role"] = "padding"  # padding_idx: that row never gets a gradient
            extra["padding_idx"] = padding
            module = self.module_objects[-1]() if self.module_objects else None
            extra["defined_line"] = self.module_lines.get(id(module))
        ignored = _ignored_targets(d, args, kwargs)
        if ignored:  # targets equal to ignore_index: their elements get a zero gradient
            extra.update(role="mask", ignored=ignored)
        out_ids = []
        given = {id(t) for t in inputs}
        values = self.program.values
        preserved = (
            d.base in FINITE_PRESERVING
            and all(values[v].finite for v in in_ids)
            and not _float_scalars(args, kwargs)
        )
        records = False
        for t in outs:
            if kind is OpKind.INPLACE or (kind is not OpKind.CUSTOM and id(t) in given):
                if kind is OpKind.INPLACE and not is_leaf(t):
                    out_ids.append(self.new_value(t, index, line))  # a new version
                elif kind is OpKind.INPLACE:
                    out_ids.append(self.value_of(t, line))  # a leaf stays itself
                continue
            out_ids.append(self.new_value(t, index, line, preserved))
        if kind is OpKind.SET_REQUIRES_GRAD and inputs:  # a new version with the new flag
            out_ids = [self.new_value(inputs[0], index, line)]
        if kind is OpKind.INPLACE and before is not None:
            extra["version"] = before
            extra["after"] = [t._version for t in outs[:1]]
        for t in outs:
            node = grad_fn(t)
            if node is not None and t.requires_grad:
                records = True
                meta = node.metadata
                if NODE_KEY not in meta or kind is OpKind.INPLACE or kind is OpKind.CUSTOM:
                    meta[NODE_KEY] = index
        if (
            kind is OpKind.COMPUTE
            and outs
            and not records
            and grad
            and any(values[v].requires_grad for v in in_ids)
        ):
            floating = outs[0].is_floating_point() or outs[0].is_complex()
            if not floating:
                extra.setdefault("role", "cast" if d.base in ("to", "type") else "discrete")
                if extra["role"] == "cast":
                    kind = OpKind.CAST_INT
        module = self.modules[-1] if self.modules else None
        if self.stack:
            extra["stack"] = self.stack
        ops.append(
            Operation(
                index,
                d.name,
                kind,
                in_ids,
                tuple(out_ids),
                line,
                file,
                grad,
                inference,
                module,
                records,
                exits,
                extra,
            )
        )
        return index

    def module_id(self, module) -> int:
        """A stable id for an nn.Module object."""
        entry = self.module_ids.get(id(module))
        if entry is not None and entry[0]() is module:
            return entry[1]
        mid = len(self.module_refs)
        ref = weakref.ref(module)
        self.module_ids[id(module)] = (ref, mid)
        self.module_refs[mid] = ref
        return mid


# operations whose outputs only select, move, reshape or bound their tensor inputs'
# elements: finite tensor inputs (and no Python float among the arguments) give finite
# outputs, so the capture skips the check for them
# fmt: off
FINITE_PRESERVING = frozenset((
    "view", "view_as", "reshape", "reshape_as", "permute", "transpose", "t", "swapaxes",
    "movedim", "squeeze", "unsqueeze", "expand", "expand_as", "flatten", "unflatten", "contiguous",
    "clone", "__getitem__", "select", "narrow", "split", "chunk", "unbind", "cat", "concat",
    "concatenate", "stack", "hstack", "vstack", "index_select", "gather", "masked_select",
    "take", "roll", "flip", "repeat", "tile", "relu", "relu_", "abs", "neg", "__neg__",
    "tanh", "sigmoid", "sin", "cos", "softmax", "maximum", "minimum", "where", "max", "min",
    "amax", "amin", "detach",
))
# fmt: on


def all_finite(t) -> bool:
    """No NaN or Inf in a floating tensor: its sum is finite exactly then, unless the sum
    overflows, when the elements are looked at one by one (one reduction instead of two)."""
    total = t.sum().item()
    finite = cmath.isfinite(total) if isinstance(total, complex) else math.isfinite(total)
    return finite or bool(torch.isfinite(t).all())


def _float_scalars(args, kwargs) -> bool:
    """A Python float or complex among the arguments (it could be an Inf or a NaN)."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, (float, complex)) or (
            isinstance(a, (list, tuple)) and any(isinstance(x, (float, complex)) for x in a)
        ):
            return True
    return False


def is_parameter(t) -> bool:
    """isinstance(t, nn.Parameter) without Parameter's Python-level __instancecheck__."""
    return issubclass(type(t), torch.nn.Parameter) or bool(getattr(t, "_is_param", False))


def grad_fn(t):
    """t.grad_fn, or None where PyTorch refuses to make it (a view made under no_grad and
    then written in place raises on access: the script itself will meet that error)."""
    try:
        return t.grad_fn
    except RuntimeError:
        return None


def is_leaf(t) -> bool:
    """t.is_leaf, where PyTorch can say (see grad_fn)."""
    return grad_fn(t) is None


def _flag(d, args, kwargs):
    """The boolean an attribute write or a grad-mode switch sets (None for .grad = None)."""
    if d.kind is OpKind.SET_GRAD:
        value = args[1] if len(args) > 1 else None
        return None if value is None else "tensor"
    if d.setter:
        return bool(args[1]) if len(args) > 1 else None
    if args[1:]:
        return bool(args[1])
    if args and d.kind is OpKind.GRAD_MODE:
        return bool(args[0])
    return bool(kwargs.get("requires_grad", kwargs.get("mode", True)))


def _ignored_targets(d, args, kwargs) -> tuple[int, int] | None:
    """(ignored, total) targets of a cross_entropy / nll_loss call equal to ignore_index."""
    if d.base not in ("cross_entropy", "nll_loss"):
        return None
    target = args[1] if len(args) > 1 else kwargs.get("target")
    ignore = kwargs.get("ignore_index", args[4] if len(args) > 4 else -100)
    if not isinstance(target, torch.Tensor) or target.is_floating_point() or _is_fake(target):
        return None
    if not isinstance(ignore, int) or isinstance(ignore, bool):
        return None
    count = int((target == ignore).sum())
    return (count, target.numel()) if count else None


def _is_fake(t) -> bool:
    return type(t).__name__ in ("FakeTensor", "FunctionalTensor") or t.device.type == "meta"


class CaptureMode(TorchFunctionMode):
    """Sees every torch-level call while the script runs; records it, then returns PyTorch's
    own result unchanged."""

    def __init__(self, recorder: Recorder, calls):
        super().__init__()
        self.recorder = recorder
        self.calls = calls  # torch_calls.GradientCalls

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        rec = self.recorder
        if rec.failure is not None or rec.busy:
            return func(*args, **kwargs)
        try:
            d = describe(func)
        except Exception as exc:  # gradcli's own failure: stop capturing, keep running
            rec.failure = exc
            return func(*args, **kwargs)
        if d.quiet:
            return func(*args, **kwargs)
        gradient_kind = self.calls.kind_of(func)
        if gradient_kind is not None:
            return self.calls.run(gradient_kind, func, args, kwargs)
        stack = rec.files.stack(sys._getframe(1))
        file, line = stack[0][:2] if stack else (None, None)
        rec.stack = stack
        try:
            inputs = tensors_in(list(args), [], 3)
            for value in kwargs.values():
                tensors_in(value, inputs, 2)
            before = None
            if d.kind is OpKind.COMPUTE and (
                kwargs.get("inplace") is True or kwargs.get("out") is not None
            ):
                d = d.inplace()  # relu(x, inplace=True), torch.add(a, b, out=c)
            if d.kind is OpKind.INPLACE and inputs:
                before = inputs[0]._version
            grad, inference = torch.is_grad_enabled(), torch.is_inference_mode_enabled()
        except Exception as exc:
            rec.failure = exc
            return func(*args, **kwargs)
        try:
            out = func(*args, **kwargs)
        except BaseException:
            self._failed(d, inputs, file, line, grad, inference)
            raise
        plain_read = d.attr is not None and not d.setter and d.kind is not OpKind.READ_GRAD
        if plain_read and not isinstance(out, torch.Tensor):
            return out
        try:
            index = rec.record(d, args, kwargs, inputs, out, file, line, grad, inference, before)
            if d.kind is OpKind.READ_GRAD:
                self.calls.read_grad(index, inputs, out, sys._getframe(1))
        except Exception as exc:
            rec.failure = exc
        return out

    def _failed(self, d, inputs, file, line, grad, inference) -> None:
        """An operation PyTorch refused: kept (marked raised) so the error can be read."""
        rec = self.recorder
        try:
            ops = rec.program.ops
            in_ids = tuple(rec.value_of(t, line) for t in inputs)
            ops.append(
                Operation(
                    len(ops),
                    d.name,
                    d.kind,
                    in_ids,
                    (),
                    line,
                    file,
                    grad,
                    inference,
                    None,
                    False,
                    (),
                    {"raised": True},
                )
            )
        except Exception as exc:
            rec.failure = exc
