"""Every op with a required attribute says so, with an example, when the call leaves it out."""

import pytest
from helpers import invoke

from gradcli.core.ops import AttrKind, public_ops

REQUIRED = [
    (name, attr)
    for name, op in public_ops().items()
    for attr in op.attrs
    if attr.required and not getattr(attr, "leading", False)
]


def test_some_ops_have_required_attributes():
    assert {name for name, _ in REQUIRED} >= {"reshape", "cast", "one_hot"}


@pytest.mark.parametrize(("name", "attr"), REQUIRED, ids=[f"{n}-{a.name}" for n, a in REQUIRED])
def test_a_missing_required_attribute_is_one_positioned_error(name, attr):
    op = public_ops()[name]
    args = ", ".join(["x"] * (op.arity or 1)) if op.arity is not None else "[x]"
    res = invoke("eval", "-e", f"{name}({args})", "--at", "x=[1.0, 2.0]", "--check", "off")
    assert res.code == 2, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    article = "an" if attr.name[0] in "aeiou" else "a"  # expand_dims needs an axis
    assert f"{name} needs {article} {attr.name}, e.g. {name}(" in lines[0], lines[0]
    if attr.kind not in (AttrKind.INTS, AttrKind.DTYPE):
        assert f"{attr.name}=" in lines[0]
