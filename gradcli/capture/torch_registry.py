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


def _plain_attributes(rec, where: str, module, found: dict) -> None:
    registered = {id(p) for p in module.parameters(recurse=False)}
    for attr, value in list(vars(module).items()):
        if attr.startswith("_"):
            continue
        if isinstance(value, torch.Tensor) and value.requires_grad and id(value) not in registered:
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
            for item in list(items)[:256]:
                if isinstance(item, torch.nn.Module):
                    for p in item.parameters():
                        vid = rec.value_of(p)
                        line = rec.program.values[vid].line
                        found.setdefault(vid, {"line": line, "detail": detail, "fix": fix})
