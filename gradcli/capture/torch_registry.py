"""Parameters an nn.Module holds without registering them: layers in a plain list or dict,
tensors set as plain attributes, layers made inside forward. Their gradients exist, but
`model.parameters()` (and so the optimizer, `.to()`, `state_dict()`) never sees them."""

from __future__ import annotations

import torch

MAX_MODULES = 10_000


def unregistered(rec, namespace: dict | None) -> dict[int, dict]:
    """value id -> {"line", "detail", "fix"} for every unregistered tensor found."""
    found: dict[int, dict] = {}
    tops = [(n, m) for n, m in (namespace or {}).items() if isinstance(m, torch.nn.Module)]
    seen = set()
    for top, module in tops:
        for path, sub in list(module.named_modules())[:MAX_MODULES]:
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            where = f"{top}.{path}" if path else top
            _plain_attributes(rec, where, sub, found)
    for vid, value in rec.program.values.items():
        if value.parameter and value.in_forward and vid not in found:
            found[vid] = {
                "line": value.line,
                "detail": "this layer is made inside forward, so every call makes a new one "
                "that the optimizer, built before, never holds",
                "fix": "make the layer once in __init__ and only call it in forward",
            }
    return found


def layers_in_forward(namespace: dict | None) -> list[dict]:
    """Modules without parameters whose forward builds layers (read from its source, never
    run): {"line", "detail", "fix"} for each such construction."""
    import ast
    import inspect
    import textwrap

    found, seen = [], set()
    for name, module in (namespace or {}).items():
        if not isinstance(module, torch.nn.Module) or type(module) in seen:
            continue
        seen.add(type(module))
        if any(True for _ in module.parameters()):
            continue
        forward = type(module).forward
        try:
            lines, first = inspect.getsourcelines(forward)
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except (OSError, TypeError, SyntaxError):
            continue
        for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
            func = node.func if isinstance(node, ast.Call) else None
            attr = func.attr if isinstance(func, ast.Attribute) else None
            layer = attr is not None and hasattr(torch.nn, attr) and attr[:1].isupper()
            if layer and isinstance(getattr(torch.nn, attr), type):
                found.append({
                    "line": first + node.lineno - 1,
                    "detail": f"{type(module).__name__}.forward makes nn.{attr} layers each "
                    f"call: {name} registers no parameter, so model.parameters() is empty",
                    "fix": "make the layers once in __init__ (self.fc = nn.Linear(...)) and "
                    "call them in forward",
                })  # fmt: skip
                break
    return found


def _plain_attributes(rec, where: str, module, found: dict) -> None:
    registered = {id(p) for p in module.parameters(recurse=False)}
    registered |= {id(b) for b in module.buffers(recurse=False)}
    for attr, value in list(vars(module).items()):
        if attr.startswith("_"):
            continue
        plain = isinstance(value, torch.Tensor) and id(value) not in registered
        if plain and not value.requires_grad and value.is_floating_point():
            vid = rec.value_of(value)
            found[vid] = {
                "line": rec.program.values[vid].line,
                "detail": f"{where}.{attr} is a plain tensor attribute: not an nn.Parameter "
                "(never trained, no gradient) nor a buffer (not saved or moved with the model)",
                "fix": f"self.{attr} = nn.Parameter(...) to train it, or "
                f"self.register_buffer('{attr}', ...) for a constant",
                "untrained": True,
            }
        elif plain and value.requires_grad:
            vid = rec.value_of(value)
            found[vid] = {
                "line": rec.program.values[vid].line,
                "detail": f"{where}.{attr} is a plain tensor attribute, not an nn.Parameter, "
                "so model.parameters() does not list it",
                "fix": f"wrap it: self.{attr} = nn.Parameter(...)",
            }
        elif isinstance(value, (list, tuple, dict)):
            items = value.values() if isinstance(value, dict) else value
            kind = "ModuleDict" if isinstance(value, dict) else "ModuleList"
            detail = (
                f"{where}.{attr} is a plain Python {type(value).__name__}: its layers are not "
                "registered, and model.parameters() skips them"
            )
            fix = f"hold them in nn.{kind}: self.{attr} = nn.{kind}(...)"
            flat = []
            for item in list(items)[:256]:  # one level of nesting: [[Linear, ReLU], ...]
                flat += list(item)[:256] if isinstance(item, (list, tuple)) else [item]
            for item in flat:
                if isinstance(item, torch.nn.Module):
                    for p in item.parameters():
                        vid = rec.value_of(p)
                        line = rec.program.values[vid].line
                        found.setdefault(vid, {"line": line, "detail": detail, "fix": fix})
                elif isinstance(item, torch.Tensor) and item.requires_grad:
                    # parameters themselves in the container: nn.ParameterDict / ParameterList
                    held = "ParameterDict" if isinstance(value, dict) else "ParameterList"
                    vid = rec.value_of(item)
                    found.setdefault(vid, {
                        "line": rec.program.values[vid].line,
                        "detail": f"{where}.{attr} is a plain Python {type(value).__name__}: "
                        "the parameters in it are not registered, and model.parameters() "
                        "skips them",
                        "fix": f"hold them in nn.{held}: self.{attr} = nn.{held}(...)",
                    })  # fmt: skip
