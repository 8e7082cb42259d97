"""check_expansion's character bound never lets through a spec its tallies refuse.

Without functions, a spec whose entries' operator, call and index characters (or whole
texts) bound the node count under the limit is not tallied; the bound must be at least
the tally, for generated expressions, and a spec past the limit is still refused with
the tally's message at its entry.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.runtime import limits
from gradcli.runtime.errors import LimitError
from gradcli.spec import expansion
from gradcli.spec import expression as ast
from gradcli.spec.reader import load_spec


def _expr(depth: int = 0):
    leaf = st.sampled_from(["x", "y", "2", "1e-3", "0.5", "'SAME'"])
    if depth > 3:
        return leaf
    sub = st.deferred(lambda: _expr(depth + 1))
    ops = ["+", "-", "*", "/", "%", "**", "@", "<", "<=", ">", ">=", "==", "!="]
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(ops), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["sin", "maximum", "f"]), st.lists(sub, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(sub, sub).map(lambda t: f"{t[0]}[{t[1]}]"),
        sub.map(lambda e: f"-{e}"),
    )


@settings(max_examples=300, deadline=None)
@given(_expr())
def test_the_character_count_bounds_the_tally(text):
    try:
        tree = ast.parse(text)
    except Exception:
        return
    own, calls = expansion._tally([tree], {})
    assert not calls
    assert own <= sum(text.count(c) for c in expansion._COUNTED_CHARS)


def _spec(lines: list[str]) -> str:
    return "inputs:\n  x: 0.3\ngraph:\n" + "\n".join(lines) + "\n"


def test_long_names_under_the_limit_are_accepted(monkeypatch):
    # 40 entries of long names: their text is past the limit, their 40 operators are not
    monkeypatch.setattr(limits, "current", replace(limits.current, max_nodes=100))
    name = "a" * 30
    lines = [f"  {name}0: x + 1"] + [f"  {name}{i}: {name}{i - 1} * 2" for i in range(1, 40)]
    spec = load_spec(_spec(lines), "s.yaml")
    assert len(spec.entries) == 40


def test_past_the_limit_the_tally_refuses_at_its_entry(monkeypatch):
    monkeypatch.setattr(limits, "current", replace(limits.current, max_nodes=100))
    lines = [f"  e{i}: x * 2 + x * 3 + x" for i in range(30)]  # 4 counted nodes each
    with pytest.raises(LimitError) as info:
        load_spec(_spec(lines), "s.yaml")
    assert str(info.value).startswith(
        "s.yaml:28:3: graph entry 'e24' brings the graph, with its function calls inlined, "
        "past 100 nodes"
    )
