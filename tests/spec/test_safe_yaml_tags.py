"""The composer's scalar tags are PyYAML's own composer's, shortcut or not.

safe_yaml._compose answers str for a plain scalar whose first character no implicit
resolver claims (an expression), without calling the resolver; every other scalar is
resolved as PyYAML resolves it. Here PyYAML's own C composer is the reference.
"""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.spec import safe_yaml

SCALARS = st.one_of(
    st.text(alphabet="abmsxyYnNtTfFoO019.+-_() *'~=<!&", min_size=1, max_size=12),
    st.sampled_from(["sin(x)", "maximum(y * 0.9, 0.5 * x)", "yes", "No", "on", "~", "null",
                     "1e3", ".inf", "-.5", "0x1f", "2001-12-14", "<<", "=", "true", "y",
                     "'quoted'", '"1"', "!!str 1", "! 1", "(y * 0.9)"]),
)  # fmt: skip


def _tags(node) -> list:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, yaml.ScalarNode):
            out.append((n.tag, n.value))
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(reversed(n.value))
        else:
            for k, v in reversed(n.value):
                stack.extend((v, k))
    return out


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(SCALARS, SCALARS), min_size=1, max_size=6))
def test_scalar_tags_are_pyyamls(pairs):
    lines = [f"k{i}{a.replace(':', '')}: {b}" for i, (a, b) in enumerate(pairs)]
    text = (
        "graph:\n"
        + "".join(f"  {line}\n" for line in lines)
        + "list: ["
        + ", ".join(b for _, b in pairs)
        + "]\n"
    )
    try:
        expected = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return  # not YAML: the composers' errors are another test's
    try:
        ours = safe_yaml.compose(text, "f.yaml")
    except Exception:  # gradcli's own refusals (duplicate keys and so on)
        return
    assert _tags(ours) == _tags(expected)
