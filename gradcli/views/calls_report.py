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
    }
    if whole is not None:
        paths = getattr(call, "paths", {})  # Keras variables: their path (dense/kernel)
        doc["gradients"] = [
            {"name": n, **({"path": paths[n]} if n in paths else {}), **g}
            for n, g in whole["gradients"].items()
        ]
        doc["warnings"] = whole["warnings"]
    return doc


def title(k: int, call) -> str:
    """'call 0, line 12: gradient(loss, w, b)'."""
    return f"call {k}, line {call.line}: {call.kind}({call.target}, {', '.join(call.sources)})"
