"""Python's parser as gradcli's (gradcli/spec/fast_parse.py) builds what the full parser builds.

expression.parse() reads an expression with Python's own parser and converts its tree;
the full parser (expression.Parser) is the reference: for every text, generated or found in
specs/ and tests/, both give the same nodes, values and positions, or the same error at
the same position (the fast path hands every text it cannot vouch for to the full parser).
"""

from __future__ import annotations

import ast
import contextlib
import json
import warnings
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec import expression as ex
from gradcli.spec import fast_parse

ROOT = Path(__file__).resolve().parents[2]


def _locate(line: int, col: int) -> Pos:
    return Pos("f", line + 10, col + 100)  # any mapping: both paths must go through it


def flat(tree) -> list:
    """A tree as a flat pre-order list (dataclass == recurses: long chains are deep)."""
    out, stack = [], [tree]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ex.Binary:
            out.append(("B", n.op, n.pos))
            stack += [n.right, n.left]
        elif t is ex.Unary:
            out.append(("U", n.op, n.pos))
            stack.append(n.operand)
        elif t is ex.Call:
            out.append(("C", n.func, len(n.args), [(k.name, k.pos) for k in n.kwargs], n.pos))
            stack += reversed([*n.args, *(k.value for k in n.kwargs)])
        elif t is ex.List:
            out.append(("L", len(n.items), n.pos))
            stack += reversed(n.items)
        elif t is ex.Index:
            out.append(("I", len(n.items), n.pos))
            stack += reversed([n.value, *n.items])
        elif t is ex.Slice:
            out.append(("S", [p is None for p in (n.start, n.stop, n.step)], n.pos))
            stack += reversed([p for p in (n.start, n.stop, n.step) if p is not None])
        elif t is ex.Num:  # 1 and 1.0 are equal: the type is part of the result
            out.append(("N", type(n.value), n.value, n.pos))
        else:
            out.append(n)
    return out


def _full(text: str):
    try:
        return flat(ex.Parser(text, _locate).parse())
    except GradcliError as exc:
        return ("error", type(exc), str(exc), exc.pos)


def _public(text: str):
    try:
        return flat(ex.parse(text, _locate))
    except GradcliError as exc:
        return ("error", type(exc), str(exc), exc.pos)


def check(text: str) -> bool:
    """Both paths agree on text; True when the fast path built the tree itself."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Python's parser must never warn (1if, "\d")
        fast = fast_parse.parse(text, _locate)
        full = _full(text)
        if fast is not None:
            assert flat(fast) == full, text
        assert _public(text) == full, text
    return fast is not None


# --- generated expressions ---------------------------------------------------------------
NAMES = st.sampled_from(
    ["x", "y0", "_a", "sin", "maximum", "None", "True", "False", "pi", "lambda", "in", "e"]
)
NUMBERS = st.one_of(
    st.from_regex(r"(\d{1,22}(\.\d{0,4})?|\.\d{1,3})([eE][-+]?\d{1,3})?", fullmatch=True),
    st.sampled_from(["0", "00", "0" * 19, "007", "1_0", "0x1F", "1j", "1e400", "2x", "1if"]),
)
STRINGS = st.sampled_from(["'a'", '"b"', "'a\"b'", "''", "'a' 'b'", "u'x'", "'''t'''", "'#'"])
SPACE = st.sampled_from(["", "", " ", "  ", "\t", "\n", " \n "])
BINARY = st.sampled_from(
    ["+", "-", "*", "/", "%", "@", "**", "<", "<=", ">", ">=", "==", "!=", "//", "&", "and"]
)


@st.composite
def expressions(draw, depth: int = 0) -> str:
    leaf = st.one_of(NAMES, NUMBERS, STRINGS)
    if depth > 3:
        return draw(leaf)
    kind = draw(st.integers(0, 9))
    sub = expressions(depth + 1)
    sp = draw(SPACE)
    if kind <= 2:
        return draw(leaf)
    if kind == 3:
        return f"{draw(sub)}{sp}{draw(BINARY)}{draw(SPACE)}{draw(sub)}"
    if kind == 4:
        return f"{draw(st.sampled_from(['-', '+', '- ', '~', 'not ']))}{draw(sub)}"
    if kind == 5:
        return f"({sp}{draw(sub)}{draw(st.sampled_from(['', ',', ', x']))})"
    if kind == 6:
        args = draw(st.lists(sub, max_size=3))
        kws = draw(st.lists(st.tuples(st.sampled_from(["axis", "k", "k "]), sub), max_size=2))
        parts = args + [f"{k}={v}" for k, v in kws]
        if draw(st.booleans()) and parts:
            parts = parts[::-1]
        head = draw(st.sampled_from(["f", "maximum", "(f)", "f(x)", "x.f", "None"]))
        return f"{head}({sp}{', '.join(parts)}{draw(st.sampled_from(['', ',']))})"
    if kind == 7:
        items = draw(st.lists(sub, max_size=3))
        return f"[{', '.join(items)}{draw(st.sampled_from(['', ',']))}]"
    if kind == 8:
        item = st.one_of(
            sub,
            st.builds(lambda a, b, c: f"{a}:{b}{c}", st.sampled_from(["", "1", " None", "(1)"]),
                      st.sampled_from(["", "-1", "x"]), st.sampled_from(["", ":", ":2", "::"])),
            st.sampled_from(["None", "...", "(None)", "None + 1", " None ", "(1, 2)", "()"]),
        )  # fmt: skip
        items = draw(st.lists(item, min_size=1, max_size=3))
        base = draw(st.sampled_from(["x", "(x)", "f(x)", "[x]", "x[0]", "1"]))
        return f"{base}{sp}[{', '.join(items)}{draw(st.sampled_from(['', ',']))}]"
    return f"{draw(sub)}{sp}"


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=expressions())
def test_generated_expressions_match_the_parser(text) -> None:
    check(text)


TOKENS = st.sampled_from(
    ["x", "f", "1", "1.5", "1e-3", "'s'", "None", "...", "(", ")", "[", "]", ",", ":", "=",
     "+", "-", "*", "**", "/", "%", "@", "<", "==", ".", " ", "\n", "lambda", "if", "#", "\\",
     "\r", ";", "{", "}", "1if", "é", ")(", "x)(y"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(tokens=st.lists(TOKENS, max_size=14))
def test_token_soups_match_the_parser(tokens) -> None:
    check("".join(tokens))


# --- every expression written in specs/ and tests/ ----------------------------------------
def _yaml_strings(node, out: list) -> None:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            stack += [*n.keys(), *n.values()]
        elif isinstance(n, list):
            stack += n
        elif isinstance(n, str):
            out.append(n)


def corpus() -> list[str]:
    """Every string of every spec in specs/ and every string constant in tests/ (a superset
    of the expressions written there), and the TensorFlow reference cases' expressions."""
    texts: list[str] = []
    for path in sorted((ROOT / "specs").rglob("*.y*ml")):
        try:
            _yaml_strings(yaml.safe_load(path.read_text()), texts)
        except yaml.YAMLError:
            continue
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if "data" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.append(node.value)
                if node.value.count("\n") and ":" in node.value:  # spec text: its scalars
                    with contextlib.suppress(yaml.YAMLError):
                        _yaml_strings(yaml.safe_load(node.value), texts)
    data = json.loads((ROOT / "tests" / "data" / "tf_reference.json").read_text())
    texts += [c["expr"] for c in data["cases"] if "expr" in c]
    return sorted({t for t in texts if len(t) < 5000})


def test_every_written_expression_matches_the_parser() -> None:
    texts = corpus()
    assert len(texts) > 5000
    fast = sum(check(t) for t in texts)
    # most are not expressions at all (messages, names); thousands are, read by Python
    assert fast > 2000


# --- shapes, limits and positions ------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "sin(y1) * 0.9 + 0.1 * x",
        "maximum(y, 0.1 * x) - minimum(y, x)",
        "((((y * 0.9) + (0.1 * x))))",
        "-x ** 2 ** -y",
        "x[1:2, ::2, None, ...]",
        "x[ None ] + x[(1)]",
        "f(a,\n  b=[1,\n 2])\n",
        "\n  a +\n\tb",
        "  x  ",
        "(a < b) == (c >= d)",
        "'a' + \"b'c\"",
        "True + None * False",
        "12345678901234567890 + 0000000000000000000 + 1.e5",
        "x % y % 2",
    ],
)
def test_examples_take_the_fast_path(text) -> None:
    assert check(text)


@pytest.mark.parametrize(
    "text",
    ["a)(b", "a) + (b", "a // b", "x.y", "f(x)(y)", "a < b < c", "x[(a, b)]", "f(a=1, a=2)",
     "1e400", "lambda: 1", "not a", "a in b", "x[None + 1]", "'a' 'b'", "x = 1", "", "  "],
)  # fmt: skip
def test_errors_are_the_parsers(text) -> None:
    assert not check(text)


def _nested(n: int, kind: str) -> str:
    if kind == "parens":
        return "(" * n + "x" + ")" * n
    if kind == "signs":
        return "-" * n + "x"
    if kind == "calls":
        return "sin(" * n + "x" + ")" * n
    if kind == "powers":
        return "x ** " * n + "x"
    return "[" * n + "x" + "]" * n


@pytest.mark.parametrize("kind", ["parens", "signs", "calls", "powers", "lists"])
@pytest.mark.parametrize("n", [20, 99, 100, 101, 150])
def test_nesting_at_the_limit_is_the_parsers(kind, n, monkeypatch) -> None:
    monkeypatch.setattr(limits.current, "max_depth", 100)
    check(_nested(n, kind))
    check("y + " + _nested(n, kind))
    check(_nested(n, kind) + " * " + "z + " * 40 + "z")


@pytest.mark.parametrize("terms", [10, 2000, 5000])
def test_long_chains_match_the_parser(terms) -> None:
    check(" + ".join(f"sin(x{i}) * {i}.5" for i in range(terms)))
    check(" - ".join(f"x{i}" for i in range(terms)))
    check("f(" + " * ".join(["x"] * terms) + ")")
