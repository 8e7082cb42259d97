"""The names a script can give its tensors at a gradient call: each parameter of each
nn.Module bound to a name (`model.fc1.weight`), each leaf tensor that requires grad, and
the parameters handed to an optimizer, found in the calling frames' locals and globals."""

from __future__ import annotations

import types

import torch

from gradcli.capture.torch_capture import is_leaf

MAX_ITEMS = 256  # items of a list, tuple or dict looked into
SKIPPED = (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType)


class Names:
    """Names of tensors, looked up from the user's frames (innermost first)."""

    def __init__(self, recorder):
        self.rec = recorder
        self.last: dict[int, str] = {}  # id(tensor) -> name, from the latest lookup

    def _frames(self, frame):
        files = self.rec.files
        while frame is not None:
            if files(frame.f_code.co_filename):
                yield frame
            frame = frame.f_back

    def _scan(self, frame) -> list[tuple[str, object]]:
        """(name, tensor) for every nameable tensor, innermost frame first, no repeats."""
        found: dict[int, tuple[str, object]] = {}
        seen_globals = set()
        for f in self._frames(frame):
            spaces = [f.f_locals]
            if id(f.f_globals) not in seen_globals:
                seen_globals.add(id(f.f_globals))
                spaces.append(f.f_globals)
            for space in spaces:
                for name, obj in list(space.items()):
                    if not name.startswith("__"):
                        _collect(name, obj, found, 2)
        self.last = {k: v[0] for k, v in found.items()}
        names = self.rec.program.names
        for name, t in found.values():
            names[self.rec.value_of(t)] = name
        return list(found.values())

    def leaves(self, frame, only=None) -> list[tuple[str, object]]:
        """The tensors a backward() call is reported for: named leaves and parameters
        (requiring grad, or held by an optimizer), or the `inputs=` tensors it was given."""
        named = self._scan(frame)
        if only is not None:
            return [(self.last.get(id(t)) or f"input {i}", t) for i, t in enumerate(only)]
        held = self.rec.optimizer_params()
        return [(n, t) for n, t in named if is_leaf(t) and (t.requires_grad or id(t) in held)]

    def known(self, t, frame=None) -> str | None:
        """The script's name for a tensor, from the latest lookup (or a fresh one)."""
        if frame is not None:
            self._scan(frame)
        return self.last.get(id(t))

    def of(self, t) -> str:
        """A name for a tensor, or 'the tensor' when the script gives it none."""
        return self.last.get(id(t)) or "the tensor"


def _collect(name: str, obj, found: dict, depth: int) -> None:
    """Add the tensors reachable under `name` (bounded): modules, containers, attributes."""
    stack = [(name, obj, depth)]
    while stack:
        name, obj, depth = stack.pop()
        if isinstance(obj, torch.Tensor):
            found.setdefault(id(obj), (name, obj))
        elif isinstance(obj, torch.nn.Module):
            try:
                for pname, p in obj.named_parameters(remove_duplicate=True):
                    found.setdefault(id(p), (f"{name}.{pname}", p))
            except Exception:
                continue
            if depth:  # tensors a module holds without registering them
                for attr, value in list(vars(obj).items())[:MAX_ITEMS]:
                    if not attr.startswith("_") and isinstance(value, (list, tuple, dict)):
                        stack.append((f"{name}.{attr}", value, 2))  # its layers, nested once
                    elif not attr.startswith("_") and isinstance(value, torch.Tensor):
                        stack.append((f"{name}.{attr}", value, 0))
        elif depth and isinstance(obj, (list, tuple)):
            items = list(enumerate(obj[:MAX_ITEMS]))
            stack.extend((f"{name}[{i}]", v, depth - 1) for i, v in reversed(items))
        elif depth and isinstance(obj, dict):
            items = list(obj.items())[:MAX_ITEMS]
            stack.extend(
                (f"{name}[{k!r}]", v, depth - 1)
                for k, v in reversed(items)
                if isinstance(k, (str, int))
            )
        elif depth and not isinstance(obj, SKIPPED) and hasattr(obj, "__dict__"):
            try:
                attrs = list(vars(obj).items())[:MAX_ITEMS]
            except TypeError:
                continue
            for attr, value in attrs:
                if not attr.startswith("_") and isinstance(value, (torch.Tensor, torch.nn.Module)):
                    stack.append((f"{name}.{attr}", value, depth - 1))
