"""The JSON layout shared by the reference generators: one case per line, exact numbers."""

from __future__ import annotations

import json


def dump(doc: dict) -> str:
    """The document as JSON with one case per line, so that a regenerated file diffs well."""

    def one(value) -> str:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)

    parts = []
    for key, value in doc.items():
        if isinstance(value, list):
            items = ",\n".join(f"  {one(v)}" for v in value)
            parts.append(f"{one(key)}: [\n{items}\n]")
        else:
            parts.append(f"{one(key)}: {one(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
