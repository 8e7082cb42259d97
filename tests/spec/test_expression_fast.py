"""The one-loop expression parser (expression_fast) builds what the full parser builds.

The full parser is the reference: for every text the fast path either returns the very
nodes, values and positions the full parser returns, or None (then the full parser runs
and words any error). Generated expressions mix every construct the fast path reads with
ones it hands over (subscripts, lists, chained comparisons, misplaced tokens).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec import expression as ex
from gradcli.spec.expression_fast import _FAST_TOKEN, parse_fast


def _locate(line: int, col: int) -> Pos:
    return Pos("f", line + 10, col + 100)  # any mapping: both paths must go through it


def _shifted(line: int, col: int) -> Pos:
    return _locate(line, col)


_shifted.shift = ("f", 11, 100)  # the reader's one-line locator: the fast path builds Pos itself


def _full(text: str):
    try:
        return ex.Parser(text, _locate).parse()
    except GradcliError as exc:
        return ("error", str(exc))


SPACE = st.sampled_from(["", "", " ", "  ", "\t"])
ATOM = st.sampled_from(
    ["x", "y_1", "0.5", "7", "1e3", ".5e-2", "'s'", "12345678901234567890", "1e400", "True",
     "if", "None", "pi", "'s1'", "x٣", "y10"]
)  # fmt: skip
OPS = ["+", "-", "*", "/", "**", "%", "@", "<", "==", "!=", ">=", "<=", "//", "="]


def _expr(depth: int = 0):
    """Expressions of the grammar, and some near misses."""
    if depth > 3:
        return ATOM
    sub = st.deferred(lambda: _expr(depth + 1))
    call = st.tuples(
        st.sampled_from(["sin", "f", "maximum", "lambda"]),
        st.lists(sub, max_size=3),
        st.lists(st.tuples(st.sampled_from(["axis", "k"]), sub), max_size=2),
        st.sampled_from(["", ","]),
        SPACE,
    ).map(
        lambda t: (
            f"{t[0]}({t[4]}" + ", ".join(t[1] + [f"{k}{t[4]}={v}" for k, v in t[2]]) + f"{t[3]})"
        )
    )
    return st.one_of(
        ATOM,
        st.tuples(st.sampled_from(["-", "+"]), SPACE, sub).map("".join),
        st.tuples(SPACE, sub, SPACE).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        call,
        st.tuples(sub, SPACE, st.sampled_from(OPS), SPACE, sub).map("".join),
        st.tuples(sub, st.sampled_from(["[0]", ".y", "(1)", " x", ",", ")", "$"])).map("".join),
        st.lists(sub, max_size=2).map(lambda items: "[" + ", ".join(items) + "]"),
    )


@settings(max_examples=3000, deadline=None)
@given(st.tuples(SPACE, _expr(), SPACE).map("".join))
def test_fast_path_builds_the_full_parsers_tree_or_hands_over(text):
    fast = parse_fast(text, _locate)
    full = _full(text)
    assert parse_fast(text, _shifted) == fast
    if fast is not None:
        assert fast == full
    assert ex.parse(text, _locate) == full if not isinstance(full, tuple) else True


@pytest.mark.parametrize(
    "text",
    [
        "sin(y0) * 0.9 + 0.1 * x",
        "maximum(y * 0.9, 0.5 * x) + 0.01",
        "((y * 0.9) + ((0.1 * x) - 0.01))",
        "-a ** -b ** c * d",
        "f(a, b=2, c=x+1,)",
        "(a < b) < c",
        "f()",
        "sum(x, axis=0)",
        "2 ** -1 % 3 @ 'q'",
    ],
)
def test_fast_path_reads_the_common_grammar(text):
    assert parse_fast(text, _locate) is not None
    assert parse_fast(text, _locate) == _full(text)


@pytest.mark.parametrize(
    "text",
    ["a < b < c", "f(a=1, a=2)", "f(a=1, 2)", "(a, b)", "()", "x[0]", "f(x)(y)", "(f)(x)",
     "x.y", "a b", "1e400", "lambda", "a // b", "a = b", "x $", "", "f(", "(a"],
)  # fmt: skip
def test_fast_path_hands_over_what_it_does_not_read(text):
    assert parse_fast(text, _locate) is None


def test_fast_path_hands_over_near_the_depth_limit(monkeypatch):
    text = "(" * 150 + "x" + ")" * 150
    assert parse_fast(text, _locate) is None
    assert isinstance(_full(text), ex.Name)  # max_depth 200: the full parser reads it
    monkeypatch.setattr(limits.current, "max_depth", 10)
    assert parse_fast("-" * 6 + "x", _locate) is None
    assert "nested more than 10" in _full("-" * 11 + "x")[1]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="ab_1.9eE+-*/<>=!()[],:%@'\" \t٣x", max_size=20))
def test_fast_tokens_are_the_full_tokenizers(text):
    """Where the full tokenizer reads a text whole, the fast pattern splits it alike."""
    try:
        full = ex.tokenize(text, _locate)[:-1]  # without the end token
    except GradcliError:
        return
    pairs = _FAST_TOKEN.findall(text)
    assert [tok for _, tok in pairs] == [t.text for t in full]
    offsets, off = [], 0
    for ws, tok in pairs:
        offsets.append(off + len(ws) + 1)
        off += len(ws) + len(tok)
    assert offsets == [t.col for t in full]


# --- templates: a line shaped like one read before is rebuilt by replay -------------------
_SAME_KIND = {"x": "y_1", "y_1": "x", "0.5": "1e3", "1e3": ".5e-2", ".5e-2": "0.5", "7": "42",
              "'s'": "'t'", "sin": "maximum", "maximum": "f", "f": "sin", "1e400": "2.5",
              "True": "pi", "pi": "True", "if": "x", "lambda": "sin", "None": "if"}  # fmt: skip


def _respelled(text: str) -> str:
    """The text with each name, number and string replaced by another of its kind (a
    forbidden name may become a plain one and back, a number one float64 cannot hold)."""
    out, off = [], 0
    for ws, tok in _FAST_TOKEN.findall(text):
        out.append(text[off : off + len(ws)] + _SAME_KIND.get(tok, tok))
        off += len(ws) + len(tok)
    return "".join(out) + text[off:]


@settings(max_examples=3000, deadline=None)
@given(st.tuples(SPACE, _expr(), SPACE).map("".join))
def test_a_replayed_template_builds_the_full_parsers_tree(text):
    from gradcli.spec import expression_fast

    expression_fast._TEMPLATES.clear()
    expression_fast._LINES.clear()
    first = parse_fast(text, _shifted)  # records the template when it reads the text
    assert repr(first) == repr(parse_fast(text, _locate))  # repr: 7 and 7.0 differ
    for variant in (text, _respelled(text), _respelled(_respelled(text)), _digits(text)):
        replayed = parse_fast(variant, _shifted)
        assert repr(replayed) == repr(parse_fast(variant, _locate))  # the loop's, or None
        if replayed is not None:
            assert repr(replayed) == repr(_full(variant))


def _digits(text: str) -> str:
    """The text with its ASCII digits changed (a line the digit-spelled cache answers)."""
    return text.translate(str.maketrans("0123456789", "9876501234"))


@settings(max_examples=2000, deadline=None)
@given(st.tuples(SPACE, _expr(), SPACE).map("".join), st.integers(0, 2**32))
def test_a_line_with_other_digits_builds_the_full_parsers_tree(text, seed):
    """A line read before with other digits in its places (names, numbers, strings) is
    sliced on the first one's spans: the same tree as the loop's, or None as the loop."""
    import random

    from gradcli.spec import expression_fast

    expression_fast._TEMPLATES.clear()
    expression_fast._LINES.clear()
    parse_fast(text, _shifted)
    rng = random.Random(seed)
    for swap in ("0123456789", "0123456789.eE"):  # digits only; digits, points, exponents
        variant = "".join(rng.choice(swap) if c in swap else c for c in text)
        replayed = parse_fast(variant, _shifted)
        assert repr(replayed) == repr(parse_fast(variant, _locate))
        if replayed is not None:
            assert repr(replayed) == repr(_full(variant))


def test_templates_are_replayed_for_a_chain():
    from gradcli.spec import expression_fast

    expression_fast._TEMPLATES.clear()
    expression_fast._LINES.clear()
    texts = [f"maximum(y{i} * 0.9, 0.5 * x) + 0.0{i}" for i in range(1, 6)]
    trees = [parse_fast(t, _shifted) for t in texts]
    assert len(expression_fast._TEMPLATES) == 1
    assert len(expression_fast._LINES) == 1  # the same line but for its digits
    assert repr(trees) == repr([_full(t) for t in texts])
    assert parse_fast("maximum(lambda * 0.9, 0.5 * x) + 0.01", _shifted) is None
    assert parse_fast("maximum(y * 0.9, 0.5 * x) + 1e400", _shifted) is None
    assert parse_fast("maximum(y * 0.9, 0.5 * x) + 0.01 $", _shifted) is None


def test_a_long_line_is_read_by_the_loop_and_not_templated():
    from gradcli.spec import expression_fast

    expression_fast._TEMPLATES.clear()
    expression_fast._LINES.clear()
    text = " + ".join(f"0.5 * sin(x * {k})" for k in range(60))  # over 400 characters
    assert repr(parse_fast(text, _shifted)) == repr(_full(text))
    assert not expression_fast._TEMPLATES
