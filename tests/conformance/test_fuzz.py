"""Property-based fuzzing: whatever goes in, gradcli answers with exit 0, 1 or 2 and, on
failure, exactly one error line; never a traceback or an internal error.

The default (ci) hypothesis profile keeps this short; `pytest --hypothesis-profile=long`
(or HYPOTHESIS_PROFILE=long) runs far more examples.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import SPECS, invoke
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gradcli.cli.main import cli
from gradcli.core.ops import public_ops

COMMANDS = [
    c for c in ("eval", "explain", "check", "graph", "jacobian", "hessian") if c in cli.commands
]
VALID_SPECS = sorted(p.read_text() for p in Path(SPECS).glob("*.yaml"))
# fuzzed inputs are tiny; these limits keep any accidental big computation small as well
SMALL = {"GRADCLI_MAX_ELEMENTS": "100000", "GRADCLI_MAX_NODES": "200000"}

fuzz = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def run(command: str, *args, input: bytes | None = None):
    """The command with --format json (every command has it), under small limits."""
    return invoke(command, *args, "--format", "json", input=input, env=SMALL)


def check_answer(res, *context) -> None:
    """Exit 0, 1 or 2; no traceback; a failure is exactly one `gradcli: error:` line and
    nothing on stdout; a success is exactly one JSON document on stdout."""
    assert res.code in (0, 1, 2), (res.code, res.stderr[-2000:], context)
    assert "Traceback" not in res.stderr, (res.stderr[-2000:], context)
    if res.code == 2:
        lines = res.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("gradcli: error: "), (res.stderr, context)
        assert res.stdout == "", context
    else:
        assert json.loads(res.stdout)["schema"] == 1, context


# --- random bytes --------------------------------------------------------------------------
@fuzz
@given(data=st.binary(max_size=400), command=st.sampled_from(COMMANDS))
@example(data=b"\xef\xbb\xbf", command="eval")
@example(data=b"\x00", command="eval")
@example(data=b"- !!python/object/apply:os.system [true]", command="eval")
def test_random_bytes_as_a_spec(data: bytes, command: str) -> None:
    check_answer(run(command, "-", input=data), data)


@fuzz
@given(text=st.text(max_size=200), command=st.sampled_from(COMMANDS))
def test_random_text_as_a_spec(text: str, command: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    check_answer(run(command, "-", input=data), text)


# --- mutated valid specs -------------------------------------------------------------------
YAML_PIECES = [
    "\n", "  ", "\t", ":", ": ", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!set ",
    "!!python/name:os.system ", "'", '"', "#", "---\n", "...\n", "? ", "|\n", ">\n", "<<: ",
    "~", "null", "true",
    "1e9", "-1", "0", "1e400", "nan", ".inf", "99999999999999999999", "x", "y", "f", "inputs",
    "graph", "outputs", "wrt", "grad_ys", "functions", "params", "body", "grad", "value",
    "dtype", "int32", "bool", "float32", "zeros", "ones", "random", "shape", "seed", "trainable",
]  # fmt: skip


@st.composite
def mutated_spec(draw) -> str:
    text = draw(st.sampled_from(VALID_SPECS))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 12)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "duplicate", "swap"]))
        piece = draw(st.sampled_from(YAML_PIECES))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + piece + text[i:]
        elif kind == "replace":
            text = text[:i] + piece + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            lines = text.split("\n")
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    return text


@fuzz
@given(text=mutated_spec(), command=st.sampled_from(COMMANDS))
def test_mutated_valid_specs(text: str, command: str) -> None:
    check_answer(run(command, "-", input=text.encode()), text)


# --- random expression token soups -------------------------------------------------------
OPS = sorted(public_ops())
TOKENS = [
    *OPS, "x", "y", "m", "b", "n", "pi", "e", "inf", "nan", "true", "dy", "out", "__import__",
    "__class__", "lambda", "import", "for", "if", "not", "and", "0", "1", "2", "-1", "0.5",
    "1e308", "1e-320", "1e400", "10", "99999999999999999999", "'float32'", "'int32'", "'bool'",
    "'abc'", "+", "-", "*", "/", "**", "@", "<", "<=", "==", "!=", "//", "%", "=", ".", ":",
    "::", ",", "(", ")", "[", "]", "axis=", "keepdims=", "shape=", "dtype=", " ", "$", ";",
]  # fmt: skip
SOUP_SPEC = (
    "inputs:\n  x: 1.5\n  y: [0.5, -2.0, 3.0]\n  m: [[1.0, 2.0], [3.0, 4.0]]\n"
    "  b: {{value: [true, false, true], dtype: bool}}\n  n: {{value: 3, dtype: int32}}\n"
    "graph:\n  f: '{soup}'\n"
)


@st.composite
def soup(draw) -> str:
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25))
    return "".join(tokens if draw(st.booleans()) else [t + " " for t in tokens]).strip() or "x"


@st.composite
def expression(draw, depth: int = 0) -> str:
    """A well-formed-ish expression: ops applied to inputs and literals (shapes may clash)."""
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["x", "y", "m", "b", "n", "2", "0.5", "[1, 2, 3]", "pi"]))
    kind = draw(st.sampled_from(["call", "binary", "unary", "index"]))
    if kind == "binary":
        op = draw(st.sampled_from(["+", "-", "*", "/", "**", "@", "<", "=="]))
        return f"({draw(expression(depth + 1))} {op} {draw(expression(depth + 1))})"
    if kind == "unary":
        return f"-{draw(expression(depth + 1))}"
    if kind == "index":
        return f"{draw(expression(depth + 1))}[{draw(st.sampled_from(['0', '-1', '1:', '::2']))}]"
    name = draw(st.sampled_from(OPS))
    args = draw(st.lists(expression(depth + 1), min_size=1, max_size=3))
    extra = draw(
        st.sampled_from(
            [
                "",
                ", axis=0",
                ", axis=-1",
                ", axis=[0]",
                ", axis=[0, -1]",
                ", keepdims=true",
                ", [3]",
            ]
        )
    )
    return f"{name}({', '.join(args)}{extra})"


@fuzz
@given(text=soup(), command=st.sampled_from(COMMANDS))
@example(text="__import__('os').system('true')", command="eval")
@example(text="2**2**2**2**100", command="eval")
def test_token_soup_in_a_spec(text: str, command: str) -> None:
    spec = SOUP_SPEC.format(soup=text.replace("'", "''"))
    check_answer(run(command, "-", input=spec.encode()), text)


@fuzz
@given(text=soup(), command=st.sampled_from(COMMANDS))
def test_token_soup_as_an_expression(text: str, command: str) -> None:
    check_answer(run(command, "-e", text, "--at", "x=1.5"), text)


@fuzz
@given(text=expression(), command=st.sampled_from(COMMANDS))
def test_random_op_expressions(text: str, command: str) -> None:
    spec = SOUP_SPEC.format(soup=text.replace("'", "''"))
    check_answer(run(command, "-", input=spec.encode()), text)


@fuzz
@given(
    value=st.one_of(
        st.text(max_size=40),
        st.recursive(
            st.one_of(st.floats(), st.integers(), st.booleans(), st.none(), st.text(max_size=3)),
            lambda inner: st.lists(inner, max_size=3),
            max_leaves=10,
        ).map(repr),
    ),
    command=st.sampled_from(COMMANDS),
)
def test_random_at_values(value: str, command: str) -> None:
    check_answer(run(command, "-e", "sum(x * x)", "--at", f"x={value}"), value)
