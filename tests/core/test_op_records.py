"""Every registered op carries every fact the passes read: adding an op is one block.

Each check names the op and the field it lacks, so a half-registered op fails here
instead of half-working in explain, NaN/Inf diagnosis, finite differences or check.
"""

import itertools

import numpy as np
import pytest

from gradcli.core.graph import COND_OP, CONST_OP, CUSTOM_OP, INPUT_OP, Node
from gradcli.core.ops import (
    FORWARD,
    REGISTRY,
    AttrKind,
    Behavior,
    binary_operators,
    public_ops,
)

ROLES = {INPUT_OP, CONST_OP, COND_OP, CUSTOM_OP}  # graph roles, not computations
NO_GRADIENT = (Behavior.CUT, Behavior.STOP)
HANDLED_BY_ROLE = (Behavior.ZERO, Behavior.BRANCH, Behavior.CUSTOM, *NO_GRADIENT)


def lacking(op) -> list[str]:
    """What op lacks, as 'field: why' lines (empty when complete)."""
    missing = []
    if op.name in ROLES:
        return missing
    if op.unpack is not None:  # a multi-output op: its outputs are nodes of other ops
        if op.forward is not None or op.bind is not None or op.grads or op.grad_each:
            missing.append("unpack: a multi-output op has no forward or rules of its own")
        if not op.public or op.arity is None or not op.doc:
            missing.append("unpack: a multi-output op is public, with an arity and a doc")
        return missing
    rules = op.grad_each is not None or any(r is not None for r in op.grads)
    if not isinstance(op.behavior, Behavior):
        missing.append("behavior: not a Behavior")
    if not rules and op.behavior not in NO_GRADIENT:
        missing.append("behavior: no gradient rule, so it must be CUT or STOP")
    if rules and op.behavior not in HANDLED_BY_ROLE:
        if op.sympy is None and not op.no_sympy:
            missing.append("sympy: no SymPy form and no no_sympy reason for check's fallback")
        if not op.elementwise and op.transport is None:
            missing.append("transport: how explain maps gradient zeros back (not elementwise)")
    if op.behavior is Behavior.KINK and op.public:
        if op.at_point is None:
            missing.append("at_point: the references' side of its kink (or FORWARD)")
        if op.inactive is None:
            missing.append("inactive: explain's words for where it passes no gradient")
    if op.public and op.arity is None and not op.attrs and op.grad_each is None:
        missing.append("arity: a fixed number of inputs, or a list form with grad_each")
    for attr in op.attrs:
        if not isinstance(attr.kind, AttrKind):
            missing.append(f"attrs: {attr.name} has no AttrKind")
    return missing


def test_every_op_is_complete():
    incomplete = {name: lacking(op) for name, op in REGISTRY.items() if lacking(op)}
    assert not incomplete, "\n".join(f"{n}: {'; '.join(m)}" for n, m in incomplete.items())


def test_the_check_names_what_a_new_op_lacks():
    from dataclasses import replace

    erf_like = replace(REGISTRY["sin"], name="erf", sympy=None)
    assert lacking(erf_like) == ["sympy: no SymPy form and no no_sympy reason for check's fallback"]
    kink = replace(REGISTRY["relu"], at_point=None, inactive=None)
    assert [m.split(":")[0] for m in lacking(kink)] == ["at_point", "inactive"]
    shaped = replace(REGISTRY["transpose"], transport=None)
    assert lacking(shaped)[0].startswith("transport:")
    unpacked = replace(REGISTRY["split"], forward=lambda x: x, doc="")
    assert [m.split(":")[0] for m in lacking(unpacked)] == ["unpack", "unpack"]


def test_operators_are_one_table():
    table = binary_operators()
    assert {s: op.name for s, op in table.items()} == {
        "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "floormod", "**": "pow", "@": "matmul",
        "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal",
        "==": "equal", "!=": "not_equal",
    }  # fmt: skip
    assert REGISTRY["neg"].operator.prefix


# --- overflow: probed, not trusted -------------------------------------------------------
HUGE = [-1e300, -3.0, -0.5, 1e-300, 0.5, 2.0, 1e300]


def _probe(op):
    """Elementwise results of op over every combination of finite probes (inf marks overflow)."""
    arity = op.arity
    combos = np.array(list(itertools.product(HUGE, repeat=arity))).T
    with np.errstate(all="ignore"):
        out = np.asarray(op.fn({})(*combos), dtype=np.float64)
    poles = np.zeros(out.shape, bool) if op.pole is None else op.pole(*combos)
    return out, poles


FLOAT_ELEMENTWISE = [
    name
    for name, op in REGISTRY.items()
    if op.elementwise and op.arity and name not in ROLES and op.accepts in ("float", "number")
    and op.behavior not in (*NO_GRADIENT, Behavior.BRANCH) and not op.attrs
]  # fmt: skip


@pytest.mark.parametrize("name", FLOAT_ELEMENTWISE)
def test_an_op_that_overflows_on_finite_values_says_so(name):
    op = REGISTRY[name]
    out, poles = _probe(op)
    overflowed = np.isinf(out) & ~poles
    assert op.overflows or not overflowed.any(), (
        f"{name} gives inf from finite operands but does not set overflows=True "
        "(NaN/Inf diagnosis would call the overflow a singular derivative)"
    )


def test_every_public_op_is_in_the_spec_language_op_list():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]  # the repository (gradcli may be installed)
    text = (root / "docs" / "spec-format.md").read_text()
    spans = re.findall(r"`([^`]*)`", text)
    listed = {w for span in spans for w in re.findall(r"\w+", span)}
    symbols = {w for span in spans for w in span.split()}
    absent = [
        name
        for name, op in public_ops().items()
        if name not in listed and (op.operator is None or op.operator.symbol not in symbols)
    ]
    assert not absent, f"public ops missing from docs/spec-format.md's op list: {absent}"


def test_at_point_forward_is_only_for_ops_whose_forward_follows_the_core():
    # where's condition is a comparison, a constant at the point: its forward is already right
    assert [n for n, op in REGISTRY.items() if op.at_point == FORWARD] == ["where"]


def test_node_roles_are_registered():
    for role in ROLES:
        assert role in REGISTRY
    assert Node  # the roles are graph nodes' op names
