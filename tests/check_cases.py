"""The check's equivalence cases: every spec in specs/, and a spread of TensorFlow reference
cases (the first case of each set of functions tests/data/tf_reference.json calls: every
op with a SymPy form, their kinks, ties, edges and non-finite values)."""

from __future__ import annotations

import json
import re

import numpy as np
from helpers import SPECS, TEST_DATA

from gradcli import api

DATA = json.loads((TEST_DATA / "tf_reference.json").read_text())


def _spread() -> dict[str, dict]:
    """The first case of each set of called function names."""
    chosen: dict[frozenset, dict] = {}
    for case in DATA["cases"]:
        text = case.get("expr") or case["spec"]
        names = frozenset(re.findall(r"([A-Za-z_][A-Za-z_0-9]*)\s*\(", text))
        chosen.setdefault(names, case)
    return {c["id"]: c for c in chosen.values()}


CASES = _spread()
SPEC_FILES = sorted(p.name for p in SPECS.glob("*.yaml"))


def _evaluations():
    for name in SPEC_FILES:
        yield name, lambda name=name: api.grad((SPECS / name).read_text(), {}, spec=True)
    for case_id, case in CASES.items():
        if "spec" in case:
            yield case_id, lambda case=case: api.grad(case["spec"], {}, spec=True)
        else:
            at = {k: np.asarray(v, dtype=float) for k, v in case["at"].items()}
            yield case_id, lambda case=case, at=at: api.grad(case["expr"], at, wrt=case.get("wrt"))


EVALUATIONS = dict(_evaluations())
