"""The parser's fast path for `f(a)` and `a OP b` builds what the full parser builds.

expression.parse() matches the two commonest one-line shapes whole and builds their AST
directly (a per-entry cost of long specs); the full parser is the reference: the same
nodes, values and positions, and anything it refuses still takes its path and its error.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec import expression as ex
from gradcli.spec.reader import load_spec


def _locate(line: int, col: int) -> Pos:
    return Pos("f", line + 10, col + 100)  # any mapping: both paths must go through it


def _full(text: str):
    try:
        return ex.Parser(text, _locate).parse()
    except GradcliError as exc:
        return ("error", str(exc))


def _fast(text: str):
    try:
        return ex.parse(text, _locate)
    except GradcliError as exc:
        return ("error", str(exc))


ATOMS = st.one_of(
    st.sampled_from(["x", "x0", "_a", "sin", "lambda", "if", "pi", "inf", "True"]),
    st.from_regex(r"(\d{1,25}(\.\d{0,5})?|\.\d{1,4})([eE][-+]?\d{1,3})?", fullmatch=True),
)
OPS = st.sampled_from(["+", "-", "*", "/", "@", "**", "<", "<=", ">", ">=", "==", "!=", "//", "%"])
SPACE = st.sampled_from(["", " ", "  ", "\t"])


@settings(max_examples=400, deadline=None)
@given(a=ATOMS, op=OPS, b=ATOMS, s=st.lists(SPACE, min_size=4, max_size=4))
def test_binary_shapes_match_the_parser(a, op, b, s) -> None:
    text = f"{s[0]}{a}{s[1]}{op}{s[2]}{b}{s[3]}"
    assert _fast(text) == _full(text), text


@settings(max_examples=200, deadline=None)
@given(f=ATOMS, a=ATOMS, s=st.lists(SPACE, min_size=4, max_size=4))
def test_call_shapes_match_the_parser(f, a, s) -> None:
    text = f"{s[0]}{f}({s[1]}{a}{s[2]}){s[3]}"
    assert _fast(text) == _full(text), text


@pytest.mark.parametrize(
    "text",
    ["sin(x0)", "x1 * 1.139493927324549", "x2 - 0.046302489843790484", "1e400 * x",
     "x ** 2", "x // 2", "lambda(x)", "x*lambda", "1x*2", "x.y", "f(x, y)", "x < = y"],
)  # fmt: skip
def test_examples(text) -> None:
    assert _fast(text) == _full(text)


def test_plain_scalar_positions_in_a_spec() -> None:
    # libyaml reports a plain scalar's style as '': its positions map by a shift, as before
    text = "inputs:\n  x: 1.0\ngraph:\n  y: sin(x) * 2\n  z: y +  nope\n"
    with pytest.raises(GradcliError) as err:
        from gradcli.spec.assembly import build_problem

        build_problem(load_spec(text, "s.yaml"))
    assert err.value.pos == Pos("s.yaml", 5, 11)  # "  z: y +  nope": nope at column 11
    spec = load_spec(text, "s.yaml")
    tree = spec.entries[0].tree
    assert tree.pos == Pos("s.yaml", 4, 13) and tree.left.pos == Pos("s.yaml", 4, 6)
