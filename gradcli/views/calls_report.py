"""TensorFlow programs' results: one JSON document per gradient call, and its table title."""

from __future__ import annotations


def call_document(call, whole: dict | None, check: dict | None) -> dict:
    """One gradient call: where it is, what it asks, and eval's document of its gradients."""
    doc = {
        "line": call.line,
        "kind": call.kind,
        "target": call.target,
        "sources": call.sources,
        "unconnected": call.unconnected,
        "gradients": [],
        "error": call.error,
        "notes": call.notes,
        "check": check,
        "unknown": getattr(call, "unknown", None),
    }
    if whole is not None:
        paths = getattr(call, "paths", {})  # Keras variables: their path (dense/kernel)
        doc["gradients"] = [
            {"name": n, **({"path": paths[n]} if n in paths else {}), **g}
            for n, g in whole["gradients"].items()
        ]
        doc["warnings"] = whole["warnings"]
    elif doc["unknown"] is not None:  # the call crosses code gradcli does not read
        doc["gradients"] = [unknown_gradient(n, doc["unknown"]) for n in call.sources]
    return doc


def unknown_gradient(name: str, unknown: dict) -> dict:
    """A source's gradient past code gradcli does not read: status unknown, never a value."""
    cause = {"kind": "unknown", "node": None, "line": unknown["line"], "op": None,
             "detail": unknown["reason"], "elements": None, "location": None}  # fmt: skip
    return {"name": name, "value": None, "shape": None, "dtype": None, "status": "unknown",
            "reason": unknown["reason"], "causes": [cause]}  # fmt: skip


def title(k: int, call) -> str:
    """'call 0, line 12: gradient(loss, w, b)'."""
    return f"call {k}, line {call.line}: {call.kind}({call.target}, {', '.join(call.sources)})"
