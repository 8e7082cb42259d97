"""The bad-input catalogue: every broken or hostile input ends in exit 2 and one error line.

Each case is a spec text (or an expression, or command-line options), the place the error
must point at, and a pattern the message must match. The expected position is derived
from the case text itself (the first occurrence of a marker substring), never copied from
gradcli's output. Every case runs through every command that reads a spec.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np
import pytest
from helpers import invoke

from gradcli.cli.main import cli

COMMANDS = [
    c for c in ("eval", "explain", "check", "graph", "jacobian", "hessian") if c in cli.commands
]
ERROR_LINE = re.compile(r"gradcli: error: (?P<where>.*?): (?P<message>.*)\Z")
POSITION = re.compile(r"(?P<file>.+):(?P<line>\d+):(?P<col>\d+)\Z")


@dataclass
class Case:
    id: str
    text: str | bytes
    at: str | tuple | None  # marker substring, (line, col or None: any), None: no position
    message: str  # a regular expression the message must match (re.search)
    args: tuple = ()


def position_of(text: str, at) -> tuple[int, int]:
    """1-based (line, column) of the first occurrence of `at` in text (or `at` itself)."""
    if isinstance(at, tuple):
        return at
    offset = text.index(at)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def check_error(res, file: str | None, text, case: Case) -> None:
    """Exit 2, nothing on stdout, exactly one stderr line with the position and message."""
    assert res.code == 2, (res.code, res.stdout[:300], res.stderr[:300])
    assert res.stdout == ""
    assert "Traceback" not in res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("gradcli: error: "), lines[0]
    message = lines[0][len("gradcli: error: ") :]
    if case.at is not None:
        m = ERROR_LINE.match(lines[0])
        assert m, lines[0]
        pos = POSITION.match(m["where"])
        assert pos, lines[0]
        assert pos["file"] == file
        line, col = position_of(text, case.at)
        assert int(pos["line"]) == line, lines[0]
        assert col is None or int(pos["col"]) == col, lines[0]
        message = m["message"]
    assert re.search(case.message, message), lines[0]


# --- spec files ------------------------------------------------------------------------------
G = "inputs:\n  x: 2.0\ngraph:\n  f: "  # a spec prefix: one input x, the entry f follows


def bomb(levels: int = 9, width: int = 10) -> str:
    """A billion-laughs spec: each anchor is a list of `width` aliases of the previous one."""
    lines = ["inputs:", "  a0: &a0 [" + ", ".join(["1"] * width) + "]"]
    for k in range(1, levels):
        lines.append(f"  a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * width) + "]")
    lines += ["graph:", f"  f: sum(a{levels - 1})"]
    return "\n".join(lines) + "\n"


def expression_bomb(uses: int = 2000) -> str:
    """One long expression under an anchor, aliased as many graph entries."""
    body = " + ".join(["x"] * 2000)
    entries = "".join(f"  u{k}: *big\n" for k in range(uses))
    return f"inputs:\n  x: 1.0\ngraph:\n  big: &big {body}\n{entries}"


def functions_bomb(depth: int = 40) -> str:
    """Functions that each call the previous one twice: 2**depth copies when inlined."""
    lines = ["inputs:", "  x: 1.0", "functions:", "  f0: {params: [a], body: sin(a)}"]
    for k in range(1, depth):
        lines.append(f"  f{k}: {{params: [a], body: f{k - 1}(a) + f{k - 1}(a)}}")
    lines += ["graph:", f"  y: f{depth - 1}(x)"]
    return "\n".join(lines) + "\n"


SPEC_CASES = [
    # files that are not YAML specs
    Case("empty file", "", (1, 1), r"the spec is empty"),
    Case("only whitespace", "  \n\n", (1, 1), r"the spec is empty"),
    Case("only a comment", "# nothing here\n", (1, 1), r"the spec is empty"),
    Case("binary garbage", bytes(range(128, 256)) * 4, (1, 1), r"not valid UTF-8 .*binary"),
    Case("non-UTF-8 byte", b"inputs:\n  x: caf\xe9\ngraph:\n  f: x\n", (2, 9), r"not valid UTF-8"),
    Case("NUL byte", "inputs:\n  x: 1\x00\ngraph:\n  f: x\n", "\x00", r"NUL bytes"),
    Case("UTF-16 with BOM", "inputs: {x: 1}\n".encode("utf-16"), (1, 1), r"not valid UTF-8"),
    Case("BOM then garbage", "\ufeff[1, 2]\n", (1, 1), r"must be a mapping.*got a list"),
    # YAML syntax
    Case("tab indentation", "inputs:\n\tx: 1\ngraph:\n  f: x\n", "\t", r"invalid YAML.*token"),
    Case("unclosed flow", "inputs: {x: 1\ngraph:\n  f: x\n", (2, 6), r"invalid YAML"),
    Case("bad indentation", "inputs:\n  x: 1\n y: 2\ngraph:\n  f: x\n", (3, 2), r"invalid YAML"),
    Case("two documents", "inputs: {x: 1}\ngraph: {f: x}\n---\na: 1\n", "---", r"more than one"),
    Case("undefined alias", G + "*nope\n", "*nope", r"undefined YAML alias '\*nope'"),
    # top level
    Case("top-level list", "- 1\n- 2\n", (1, 1), r"must be a mapping with inputs: and graph:"),
    Case("top-level number", "42\n", (1, 1), r"must be a mapping.*got the value 42"),
    Case("top-level string", "hello\n", (1, 1), r"got the string 'hello'"),
    Case("top-level null", "~\n", (1, 1), r"got nothing"),
    Case("missing graph", "inputs:\n  x: 1\n", (1, 1), r"no 'graph:' section"),
    Case("missing inputs", "graph:\n  f: 1\n", (1, 1), r"no 'inputs:' section"),
    Case("unknown section", "inputs: {x: 1}\ngrpah: {f: x}\n", "grpah", r"did you mean 'graph'"),
    Case("inputs is a list", "inputs: [x]\ngraph: {f: x}\n", "[x]", r"inputs must be a mapping"),
    Case("empty inputs", "inputs: {}\ngraph: {f: 1}\n", "{}", r"inputs is empty"),
    Case("empty graph", "inputs: {x: 1}\ngraph: {}\n", "{}", r"graph is empty"),
    # duplicate keys anywhere
    Case(
        "duplicate section",
        "inputs: {x: 1}\ngraph: {f: x}\ngraph: {g: x}\n",
        (3, 1),
        r"duplicate key 'graph' in the spec \(first at line 2\)",
    ),
    Case(
        "duplicate input",
        "inputs:\n  x: 1\n  x: 2\ngraph:\n  f: x\n",
        (3, 3),
        r"duplicate key 'x' in inputs \(first at line 2\)",
    ),
    Case("duplicate entry", G + "x\n  f: 2*x\n", (5, 3), r"duplicate key 'f' in graph"),
    Case(
        "duplicate input field",
        "inputs:\n  x: {value: 1, value: 2}\ngraph: {f: x}\n",
        (2, 17),
        r"duplicate key 'value' in input 'x'",
    ),
    Case(
        "duplicate function field",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a], body: a, body: 2}\ngraph: {f: g(x)}\n",
        "body: 2",
        r"duplicate key 'body' in function 'g'",
    ),
    Case("duplicate grad_ys", G + "x\ngrad_ys: {f: 1, f: 2}\n", "f: 2", r"duplicate key 'f'"),
    # tags that would construct objects or run code
    Case(
        "python apply tag",
        "inputs: !!python/object/apply:os.system ['echo PWNED']\ngraph: {f: 1}\n",
        "!!python",
        r"YAML tag '!!python/object/apply:os.system' is not al",
    ),
    Case(
        "python name tag",
        G + "!!python/name:os.system\n",
        "!!python",
        r"tag '!!python/name:os.system' is not allowed.*nothing is constructed or run",
    ),
    Case(
        "python object tag",
        "inputs:\n  x: !!python/object:collections.OrderedDict {}\ngraph: {f: x}\n",
        "!!python",
        r"tag '!!python/object:collections.OrderedDict'",
    ),
    Case("custom tag", "inputs:\n  x: !weird 1\ngraph: {f: x}\n", "!weird", r"tag '!weird'"),
    Case("set tag", "inputs:\n  x: !!set {a, b}\ngraph: {f: x}\n", "!!set", r"tag '!!set'"),
    Case("binary tag", "inputs:\n  x: !!binary aGk=\ngraph: {f: x}\n", "!!binary", r"'!!binary'"),
    Case("timestamp", "inputs:\n  x: 2001-12-14\ngraph: {f: x}\n", "2001", r"'!!timestamp'"),
    Case("merge key", "inputs: {x: 1}\ngraph:\n  <<: {f: x}\n", "<<", r"merge keys \('<<'\)"),
    Case("top-level merge key", "inputs: {x: 1}\ngraph: {f: x}\n<<: {b: 1}\n", "<<", r"merge keys"),
    # aliases and nesting
    Case("billion laughs", bomb(), (2, None), r"expands \(through aliases\) into too many values"),
    Case("aliased expression", expression_bomb(), (4, 8), r"too many values"),
    Case(
        "deep YAML lists",
        G + "x\nwrt: " + "[" * 5000 + "]" * 5000 + "\n",
        (5, 6 + 199),
        r"nested more than 200 levels deep.*--max-depth or GRADCLI_MAX_DEPTH",
    ),
    Case(
        "deep YAML mappings",
        "inputs:\n  x: " + "{a: " * 300 + "1" + "}" * 300 + "\n",
        (2, 6 + 4 * 198),
        r"the YAML is nested more than 200 levels deep",
    ),
    Case(
        "value nested past rank 32",
        "inputs:\n  x: " + "[" * 40 + "1" + "]" * 40 + "\ngraph: {f: x}\n",
        (2, 6 + 33),
        r"nested more than 32 levels deep",
    ),
    # inputs
    Case(
        "ragged list",
        "inputs:\n  x: [[1, 2], [3]]\ngraph: {f: x}\n",
        "[3]",
        r"ragged nested list: item 2 has shape \(1,\), item 1 has shape \(2,\)",
    ),
    Case(
        "string value",
        "inputs:\n  x: abc\ngraph: {f: x}\n",
        "abc",
        r"input 'x' must be a number or a list of numbers, got the string 'abc'",
    ),
    Case("string in list", "inputs:\n  x: [1, two]\ngraph: {f: x}\n", "two", r"the string 'two'"),
    Case("mixed bool", "inputs:\n  x: [1, true]\ngraph: {f: x}\n", "[1", r"mixes booleans"),
    Case(
        "huge integer",
        "inputs:\n  x: " + "9" * 5000 + "\ngraph: {f: x}\n",
        "999",
        r"the integer '9+\.\.\.' has too many digits",
    ),
    Case(
        "unknown input key",
        "inputs:\n  x: {valeu: 1}\ngraph: {f: x}\n",
        "valeu",
        r"unknown key 'valeu' in input 'x' \(did you mean 'value'\?\)",
    ),
    Case(
        "two sources",
        "inputs:\n  x: {value: 1, zeros: [2]}\ngraph: {f: x}\n",
        "{value",
        r"exactly one of value, random, zeros or ones",
    ),
    Case(
        "unknown dtype",
        "inputs:\n  x: {value: 1, dtype: float16}\ngraph: {f: x}\n",
        "float16",
        r"unknown dtype 'float16' \(did you mean 'float64'\?\)",
    ),
    Case(
        "fractional int",
        "inputs:\n  n: {value: 1.5, dtype: int32}\ngraph: {f: n}\n",
        "1.5",
        r"1.5 is not a whole number \(dtype int32\)",
    ),
    Case(
        "int32 overflow",
        "inputs:\n  n: {value: 3e9, dtype: int32}\ngraph: {f: n}\n",
        "3e9",
        r"does not fit in int32",
    ),
    Case(
        "bool from 2",
        "inputs:\n  b: {value: 2, dtype: bool}\ngraph: {f: b}\n",
        "2,",
        r"2 is not a bool",
    ),
    Case(
        "trainable not bool",
        "inputs:\n  x: {value: 1, trainable: maybe}\ngraph: {f: x}\n",
        "maybe",
        r"trainable must be true or false",
    ),
    Case(
        "constant as input name",
        "inputs:\n  pi: 1\ngraph: {f: pi}\n",
        "pi",
        r"'pi' is a built-in constant",
    ),
    Case("invalid input name", "inputs:\n  1x: 1\ngraph: {f: 1}\n", "1x", r"not a valid name"),
    Case("list as key", "inputs:\n  [a]: 1\ngraph: {f: 1}\n", "[a]", r"keys in inputs must be"),
    # shapes
    Case(
        "negative shape", "inputs:\n  x: {zeros: [-1, 2]}\ngraph: {f: x}\n", "[-1", r"negative size"
    ),
    Case(
        "fractional shape",
        "inputs:\n  x: {zeros: [1.5]}\ngraph: {f: x}\n",
        "1.5",
        r"must be a list of whole numbers, got the value 1.5",
    ),
    Case(
        "string shape",
        "inputs:\n  x: {ones: [two]}\ngraph: {f: x}\n",
        "two",
        r"whole numbers, got the string 'two'",
    ),
    Case(
        "shape of 1e9 x 1e9",
        "inputs:\n  x: {zeros: [1e9, 1e9]}\ngraph: {f: sum(x)}\n",
        "[1e9",
        r"would have 1,000,000,000,000,000,000 elements, over the limit of 10,000,000"
        r" \(change it with --max-elements or GRADCLI_MAX_ELEMENTS\)",
    ),
    Case(
        "astronomic shape",
        "inputs:\n  x: {ones: [" + "9" * 400 + "]}\ngraph: {f: x}\n",
        "[9",
        r"at least 10\*\*399 elements",
    ),
    Case(
        "rank 33",
        "inputs:\n  x: {zeros: [" + ", ".join(["1"] * 33) + "]}\ngraph: {f: x}\n",
        "[1",
        r"33 dimensions; at most 32",
    ),
    Case(
        "huge random",
        "inputs:\n  r: {random: normal, shape: [100000, 100000]}\ngraph: {f: r}\n",
        "[100000",
        r"10,000,000,000 elements, over the limit",
    ),
    # random inputs and seeds
    Case(
        "random kind",
        "inputs:\n  r: {random: gauss, shape: [2]}\ngraph: {f: r}\n",
        "gauss",
        r"random must be 'normal' or 'uniform'",
    ),
    Case(
        "random without shape",
        "inputs:\n  r: {random: normal}\ngraph: {f: r}\n",
        "normal",
        r"needs a shape",
    ),
    Case(
        "negative seed",
        "inputs:\n  r: {random: normal, shape: [2], seed: -1}\ngraph: {f: r}\n",
        "-1",
        r"seed in input 'r' must be a non-negative whole number",
    ),
    Case(
        "fractional seed",
        "inputs:\n  r: {random: normal, shape: [2], seed: 0.5}\ngraph: {f: r}\n",
        "0.5",
        r"non-negative whole number",
    ),
    Case(
        "string seed",
        "inputs:\n  r: {random: normal, shape: [2], seed: abc}\ngraph: {f: r}\n",
        "abc",
        r"seed in input 'r' must be a number, got the string",
    ),
    Case(
        "huge seed",
        "inputs:\n  r: {random: normal, shape: [2], seed: " + "7" * 5000 + "}\ngraph: {f: r}\n",
        "777",
        r"too many digits",
    ),
    Case(
        "negative std",
        "inputs:\n  r: {random: normal, shape: [2], std: -1}\ngraph: {f: r}\n",
        "-1",
        r"std in input 'r' must not be negative",
    ),
    Case(
        "infinite mean",
        "inputs:\n  r: {random: normal, shape: [2], mean: .inf}\ngraph: {f: r}\n",
        ".inf",
        r"mean in input 'r' must be a finite number",
    ),
    Case(
        "low above high",
        "inputs:\n  r: {random: uniform, shape: [2], low: 2, high: 1}\ngraph: {f: r}\n",
        "1}",
        r"needs low <= high",
    ),
    Case(
        "range overflows",
        "inputs:\n  r: {random: uniform, shape: [2], low: -1e308, high: 1e308}\ngraph: {f: r}\n",
        "1e308}",
        r"with a finite range",
    ),
    # names, functions and references
    Case("unknown function", G + "sinn(x)\n", "sinn", r"unknown function 'sinn' \(did you mean"),
    Case("undefined name", G + "x + y\n", "y\n", r"unknown name 'y'"),
    Case(
        "misspelt name",
        "inputs:\n  weight: 1\ngraph:\n  f: weigth\n",
        "weigth",
        r"unknown name 'weigth' \(did you mean 'weight'\?\)",
    ),
    Case("forward reference", G + "g\n  g: x\n", "g\n", r"'g' is defined later \(line 5\)"),
    Case("self reference", G + "f + x\n", "f +", r"'f' refers to itself"),
    Case("entry shadows input", G + "x\n  x: 2\n", (5, 3), r"both an input \(line 2\) and a"),
    Case("calling a tensor", G + "x(1)\n", "x(", r"'x' is not a function"),
    Case("function without call", G + "sin + x\n", "sin", r"'sin' is a function; call it"),
    Case(
        "recursion",
        "inputs: {x: 1}\nfunctions:\n  f: {params: [a], body: g(a)}\n"
        "  g: {params: [a], body: f(a)}\ngraph: {y: f(x)}\n",
        "f(a)",
        r"function f calls itself \(f -> g -> f\); recursion is not supported",
    ),
    Case(
        "self recursion",
        "inputs: {x: 1}\nfunctions:\n  f: {params: [a], body: f(a)}\ngraph: {y: f(x)}\n",
        "f(a)",
        r"f calls itself \(f -> f\)",
    ),
    Case(
        "function arity",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a, b], body: a*b}\ngraph: {y: g(x)}\n",
        "g(x)",
        r"g takes 2 arguments \(a, b\), got 1",
    ),
    Case(
        "function keyword",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a], body: a}\ngraph: {y: g(a=x)}\n",
        "g(a=",
        r"g\(\) takes no keyword arguments",
    ),
    Case(
        "function sees outer name",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a], body: a*x}\ngraph: {y: g(x)}\n",
        "x}",
        r"unknown name 'x' in function 'g' \(it sees only",
    ),
    Case(
        "function unknown key",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a], bdy: a}\ngraph: {y: g(x)}\n",
        "bdy",
        r"unknown key 'bdy' in function 'g' \(did you mean 'body",
    ),
    Case(
        "function without body",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a]}\ngraph: {y: g(x)}\n",
        "{params",
        r"needs params: and body:",
    ),
    Case(
        "function hides op",
        "inputs: {x: 1}\nfunctions:\n  sin: {params: [a], body: a}\ngraph: {y: sin(x)}\n",
        "sin:",
        r"would hide the built-in sin\(\)",
    ),
    Case(
        "repeated parameter",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a, a], body: a}\ngraph: {y: g(x, x)}\n",
        "[a, a]",
        r"repeated parameter",
    ),
    Case(
        "grad count",
        "inputs: {x: 1}\nfunctions:\n  g: {params: [a], body: a, grad: [dy, dy]}"
        "\ngraph: {y: g(x)}\n",
        "[dy",
        r"1 parameter\(s\) but 2 gradient expression",
    ),
    Case(
        "grad shape",
        "inputs:\n  x: [1.0, 2.0]\nfunctions:\n  g: {params: [a], body: 2*a, "
        "grad: 'concat([dy, dy])'}\ngraph: {y: sum(g(x))}\n",
        "concat",
        r"the gradient of 'g' for 'a' has shape \(4,\), which does not fit",
    ),
    Case(
        "function expansion",
        functions_bomb(),
        (4 + 39 + 2, 3),
        r"graph entry 'y' brings the graph.* past 2,000,000 nodes.*--max-nodes or GRADCLI_M",
    ),
    # expressions
    Case("list as entry", G + "[1, 2]\n", "[1", r"must be an expression, got a list \(quote"),
    Case("mapping as entry", G + "{a: 1}\n", "{a", r"must be an expression, got a mapping"),
    Case("null entry", G + "\n", (4, 5), r"must be an expression, got nothing"),
    Case("boolean entry", G + "true\n", "true", r"must be an expression, got the value True"),
    Case("string operand", G + "x + 'a'\n", "'a'", r"expected a tensor, got the string 'a'"),
    Case("attribute access", G + "x.__class__\n", ".__", r"attribute access is not supported"),
    Case(
        "dunder import",
        G + "__import__('os').system('true')\n",
        ".sys",
        r"attribute access is not supported",
    ),
    Case("dunder call", G + "__import__('os')\n", "__import__", r"unknown function '__import__'"),
    Case("class chain", G + '"().__class__.__bases__"\n', ")", r"empty parentheses"),
    Case("lambda", G + "'(lambda y: y)(x)'\n", "lambda", r"lambda expressions are not supported"),
    Case("comprehension", G + "'[y for y in x]'\n", "for", r"comprehensions are not supported"),
    Case("import keyword", G + "'import os'\n", "import", r"'import' is not allowed"),
    Case(
        "shell substitution",
        G + '"$(touch /tmp/gradcli-pwned)"\n',
        "$",
        r"unexpected character '\$'",
    ),
    Case("backticks", G + "'`id`'\n", "`", r"unexpected character '`'"),
    Case("semicolon", G + "'x; x'\n", ";", r"unexpected character ';'"),
    Case("walrus", G + "'(y := x)'\n", ":=", r"expected '\)', found ':'"),
    Case("tuple", G + "'(x, x)'\n", ",", r"tuples are not supported"),
    Case("floor division", G + "x // 2\n", "//", r"'//' is not supported"),
    Case("modulo without a divisor", G + "x %\n", (4, 9), r"unexpected end of expression"),
    Case("assignment", G + "'y = x'\n", "=", r"'=' is only allowed for keyword arguments"),
    Case("chained comparison", G + "x < x < x\n", "< x\n", r"chained comparisons"),
    Case("unclosed paren", G + "sin(x\n", (4, 11), r"unexpected end of expression"),
    Case("empty call argument", G + "sin(,)\n", ",", r"unexpected ','"),
    Case("block scalar position", G + "|\n    x +\n    y\n", "y\n", r"unknown name 'y'"),
    # nesting and size bombs in expressions
    Case(
        "deep parentheses",
        G + "(" * 10000 + "x" + ")" * 10000 + "\n",
        (4, 206),
        r"expression nested more than 200 levels deep.*--max-depth",
    ),
    Case("deep unary minus", G + "-" * 10000 + "x\n", (4, 206), r"nested more than 200 levels"),
    Case(
        "deep calls",
        G + "sin(" * 500 + "x" + ")" * 500 + "\n",
        (4, 6 + 4 * 200 + 3),
        r"nested more than 200 levels",
    ),
    Case(
        "long power tower",
        G + "**".join(["x"] * 1000) + "\n",
        (4, 607),
        r"nested more than 200 levels",
    ),
    Case(
        "deep list literal",
        G + "'" + "[" * 40 + "x" + "]" * 40 + "'\n",
        (4, 7 + 32),
        r"a list nested more than 32 levels deep",
    ),
    Case(
        "broadcast past the limit",
        G + "sum(broadcast_to(x, [100000, 100000]))\n",
        "broadcast_to",
        r"broadcast_to would make a tensor of shape \(100000, 100000\) "
        r"\(10,000,000,000 elements\), over the limit of 10,000,000 elements",
    ),
    Case(
        "outer product past the limit",
        "inputs:\n  a: {zeros: [100000, 1]}\n  b: {zeros: [100000]}\ngraph:\n  f: sum(a * b)\n",
        "*",
        r"mul would make a tensor of shape \(100000, 100000\)",
    ),
    Case(
        "matmul past the limit",
        "inputs:\n  a: {zeros: [100000, 1]}\n  b: {zeros: [1, 100000]}\ngraph:\n  f: sum(a @ b)\n",
        "@",
        r"matmul would make a tensor",
    ),
    Case(
        "astronomic reshape",
        G + "reshape(x, [" + "9" * 30 + "])\n",
        "reshape",
        r"reshape: shape is too large",
    ),
    Case(
        "astronomic index",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: x[" + "9" * 30 + "]\n",
        "999",
        r"an index is too large",
    ),
    # arity, keywords, shapes
    Case("too many arguments", G + "sin(x, x, x)\n", "sin", r"sin takes at most 1 arguments"),
    Case("too few arguments", G + "sin()\n", "sin", r"sin takes 1 tensor argument, got 0"),
    Case(
        "unknown keyword",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: sum(x, axs=0)\n",
        "axs",
        r"sum\(\) has no argument 'axs' \(did you mean 'axis'\?\)",
    ),
    Case(
        "keyword twice",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: sum(x, axis=0, axis=0)\n",
        "axis=0)",
        r"keyword argument 'axis' given twice",
    ),
    Case(
        "axis out of range",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: sum(x, axis=5)\n",
        "sum",
        r"sum: axis 5 is out of range for a tensor of rank 1",
    ),
    Case(
        "string axis",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: sum(x, axis='a')\n",
        "axis",
        r"axis must be a constant, not a string",
    ),
    Case(
        "shape mismatch",
        "inputs:\n  x: [1.0, 2.0]\n  y: [1.0, 2.0, 3.0]\ngraph:\n  f: x + y\n",
        "+",
        r"add: shapes \(2,\) and \(3,\) do not broadcast in 'f'",
    ),
    Case(
        "matmul mismatch",
        "inputs:\n  a: [[1.0, 2.0]]\ngraph:\n  f: a @ a\n",
        "@",
        r"matmul: shapes \(1, 2\) and \(1, 2\) do not align",
    ),
    Case("matmul scalar", G + "x @ x\n", "@", r"matmul needs tensors of rank 1 or more"),
    Case(
        "bad reshape",
        "inputs:\n  x: [1.0, 2.0, 3.0]\ngraph:\n  f: reshape(x, [2, 2])\n",
        "reshape",
        r"cannot reshape \(3,\) \(3 elements\) into \(2, 2\)",
    ),
    Case(
        "two -1 in reshape",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: reshape(x, [-1, -1])\n",
        "reshape",
        r"at most one -1",
    ),
    Case(
        "index out of range",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: x[5]\n",
        "[5",
        r"index 5 is out of range for axis 0 of size 2",
    ),
    Case("index a scalar", G + "x[0]\n", "[0", r"too many indices \(1\) for a tensor of shape"),
    Case(
        "fractional index",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: x[0.5]\n",
        "0.5",
        r"an index must be a constant integer",
    ),
    Case(
        "tensor index",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: x[x]\n",
        "x]",
        r"an index must be a constant integer",
    ),
    Case(
        "zero slice step",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: x[::0]\n",
        "::0",
        r"slice step cannot be zero",
    ),
    Case(
        "non-scalar cond",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: cond(x > 0, x, -x)\n",
        "cond",
        r"cond: the predicate must be a scalar, got shape \(2,\)",
    ),
    Case(
        "unknown cast dtype",
        G + "cast(x, dtype='float16')\n",
        "cast",
        r"cast: unknown dtype 'float16'",
    ),
    Case("cast without dtype", G + "cast(x)\n", "cast", r"cast needs a dtype"),
    Case("concat without list", G + "concat(x)\n", "concat", r"concat takes a list of tensors"),
    Case(
        "float32 meets float64",
        "inputs:\n  a: {value: 1, dtype: float32}\ngraph:\n"
        "  f: a + 1.5 * sin(cast(a, 'float64'))\n",
        "+",
        r"float32 and float64 tensors meet",
    ),
    Case("logical on floats", G + "logical_and(x, x)\n", "logical_and", r"needs booleans"),
    Case(
        "ragged list literal",
        G + "'[[x, x], [x]]'\n",
        "[[x",
        r"rows have different lengths|"
        r"do not|ragged|shapes",
    ),
    Case("empty list literal", G + "sum([])\n", "[]", r"an empty list is not a tensor"),
    # outputs, wrt, grad_ys, unconnected, description
    Case("unknown output", G + "x\noutputs: [g]\n", "g]", r"output names 'g', which is not an"),
    Case("output listed twice", G + "x\noutputs: [f, f]\n", "f,", r"an output is listed twice"),
    Case("numeric output", G + "x\noutputs: [1]\n", "1]", r"each name in outputs must be a str"),
    Case("outputs mapping", G + "x\noutputs: {a: 1}\n", "{a", r"a name or a list of names"),
    Case("empty outputs", G + "x\noutputs: []\n", "[]", r"outputs is empty"),
    Case(
        "unknown wrt",
        G + "x\nwrt: [y]\n",
        "y]",
        r"wrt names 'y', which is not an input or graph entry",
    ),
    Case(
        "misspelt wrt",
        "inputs:\n  weight: 1\ngraph:\n  f: weight\nwrt: [weigth]\n",
        "weigth",
        r"did you mean 'weight'",
    ),
    Case(
        "grad_ys for a non-output",
        G + "x\ngrad_ys: {g: 1}\n",
        "g:",
        r"grad_ys names 'g', which is not an output",
    ),
    Case(
        "grad_ys shape",
        "inputs:\n  x: [1.0, 2.0]\ngraph:\n  f: x\ngrad_ys:\n  f: [1, 2, 3]\n",
        "f: [1",
        r"grad_ys for 'f' has shape \(3,\), which does not broadcast to the output's",
    ),
    Case(
        "grad_ys string",
        G + "x\ngrad_ys: {f: one}\n",
        "one",
        r"grad_ys for 'f' must be a number or a list of numbers, got the string 'one'",
    ),
    Case(
        "grad_ys booleans",
        G + "x\ngrad_ys: {f: true}\n",
        "true",
        r"grad_ys for 'f' must be numbers, not booleans",
    ),
    Case("grad_ys ragged", G + "x\ngrad_ys: {f: [[1], [1, 2]]}\n", "[1, 2]", r"ragged"),
    Case(
        "unconnected value",
        G + "x\nunconnected: maybe\n",
        "maybe",
        r"unconnected must be 'none' or 'zero', got 'maybe'",
    ),
    Case("description list", G + "x\ndescription: [1]\n", "[1]", r"description must be a str"),
]

EXPR_CASES = [
    *[
        Case(
            f"{op} with a list axis",
            f"{op}({arg}, axis=[0])",
            "axis",
            rf"{op}: axis must be one integer",
            ("--at", "x=[1, 2]"),
        )
        for op, arg in [
            ("softmax", "x"),
            ("cumsum", "x"),
            ("cumprod", "x"),
            ("concat", "[x, x]"),
            ("stack", "[x, x]"),
            ("argmax", "x"),
        ]
    ],
    Case(
        "repeated axis",
        "sum(x, axis=[0, 0])",
        "sum",
        r"sum: axis 0 is repeated",
        ("--at", "x=[1, 2]"),
    ),
    Case(
        "list keepdims",
        "sum(x, keepdims=[1, 2])",
        "keepdims",
        r"keepdims must be true or false",
        ("--at", "x=[1, 2]"),
    ),
    Case(
        "bad permutation",
        "transpose(x, axes=[0, 0])",
        "transpose",
        r"axes \[0, 0\] are not a permutation",
        ("--at", "x=[1, 2]"),
    ),
    Case(
        "slice with three colons",
        "x[1:2:3:4]",
        ":4",
        r"too many ':' in a slice",
        ("--at", "x=[1, 2]"),
    ),
    Case("empty index", "x[]", "]", r"empty index", ("--at", "x=[1, 2]")),
    Case(
        "float condition",
        "where(x, x, x)",
        "where",
        r"the condition must be boolean",
        ("--at", "x=[1, 2]"),
    ),
    Case("empty expression", "", (1, 1), r"empty expression"),
    Case("blank expression", "   ", (1, 4), r"empty expression"),
    Case("dangling operator", "x +", (1, 4), r"unexpected end of expression", ("--at", "x=1")),
    Case("dunder import", "__import__('os')", "__import__", r"unknown function '__import__'"),
    Case("class attribute", "().__class__", ")", r"empty parentheses"),
    Case("attribute", "x.real", ".", r"attribute access is not supported", ("--at", "x=1")),
    Case("lambda", "lambda: 1", "lambda", r"lambda expressions are not supported"),
    Case("import", "import os", "import", r"'import' is not allowed in an expression"),
    Case("conditional", "1 if x else 2", "if", r"use cond\(pred, a, b\)", ("--at", "x=1")),
    Case("not", "not x", "not", r"use logical_not", ("--at", "x=1")),
    Case("dict", "{1: 2}", "{", r"unexpected character '\{'"),
    Case("starred", "sum(*x)", "*", r"unexpected '\*'", ("--at", "x=[1]")),
    Case("double starred", "sum(**x)", "**", r"unexpected '\*\*'", ("--at", "x=[1]")),
    Case("superscript", "x²", "²", r"unexpected character '²'", ("--at", "x=1")),
    Case("escape sequence", "x\x1b[31m", "\x1b", r"unexpected character '\\x1b'", ("--at", "x=1")),
    Case("NUL", "x\x00", "\x00", r"unexpected character '\\x00'", ("--at", "x=1")),
    Case(
        "parentheses 300 deep",
        "(" * 300 + "1" + ")" * 300,
        (1, 201),
        r"nested more than 200 levels deep",
    ),
    Case("unknown function", "sinn(1)", "sinn", r"unknown function 'sinn' \(did you mean 'sin'"),
    Case(
        "keyword before positional",
        "sum(axis=0, x)",
        "x)",
        r"positional argument after a keyword argument",
        ("--at", "x=[1]"),
    ),
    Case(
        "cond on a vector",
        "cond(x > 0, x, x)",
        "cond",
        r"predicate must be a scalar",
        ("--at", "x=[1, 2]"),
    ),
    Case(
        "cumsum axis",
        "cumsum(x, axis=3)",
        "cumsum",
        r"axis 3 is out of range",
        ("--at", "x=[1, 2]"),
    ),
    Case(
        "broadcast bomb",
        "sum(broadcast_to(x, [100000, 100000, 100000]))",
        "broadcast_to",
        r"1,000,000,000,000,000 elements\), over the limit",
        ("--at", "x=1"),
    ),
]

OPTION_CASES = [
    # (id, args, message pattern); the error names the option (there is no file position)
    ("--at not a number", ("-e", "x", "--at", "x=abc"), r"--at x: cannot read 'abc' as a number"),
    ("--at without =", ("-e", "x", "--at", "x"), r"--at 'x': expected NAME=VALUE"),
    ("--at empty value", ("-e", "x", "--at", "x="), r"--at x: cannot read '' as a number"),
    ("--at twice", ("-e", "x", "--at", "x=1", "--at", "x=2"), r"--at x is given twice"),
    ("--at ragged", ("-e", "sum(x)", "--at", "x=[[1],[1,2]]"), r"rectangular list of numbers"),
    (
        "--at nested deeply",
        ("-e", "x", "--at", "x=" + "[" * 10000 + "]" * 10000),
        r"--at x: the list is nested more than 32 levels deep",
    ),
    ("--at object", ("-e", "x", "--at", 'x={"a": 1}'), r"--at x: .* is not a number"),
    ("--at string", ("-e", "x", "--at", 'x="abc"'), r"--at x: .* is not a number"),
    ("--at null", ("-e", "x", "--at", "x=null"), r"--at x: null in 'null' is not a number"),
    (
        "--at too large",
        ("-e", "x", "--at", "x=[" + ",".join(["0"] * 12) + "]"),
        r"--at x: 12 elements, over the limit of 10 .*--max-elements",
    ),
    (
        "--at unknown input",
        ("-e", "x", "--at", "x=1", "--at", "z=1"),
        r"--at z: the expression has no input 'z'",
    ),
    ("missing --at", ("-e", "x*y", "--at", "x=1"), r"no value for 'y': give --at y=VALUE"),
    (
        "--wrt unknown",
        ("-e", "x", "--at", "x=1", "--wrt", "y"),
        r"--wrt names 'y', which is not an input or graph entry",
    ),
    ("--wrt empty", ("-e", "x", "--at", "x=1", "--wrt", ","), r"--wrt needs at least one name"),
    ("no spec", (), r"no spec: give a SPEC file"),
    ("spec and -e", ("spec.yaml", "-e", "x"), r"either a SPEC file or -e EXPRESSION, not both"),
    ("missing file", ("/nonexistent/spec.yaml",), r"cannot read /nonexistent/spec.yaml"),
    ("directory", ("/",), r"cannot read /: it is a directory"),
    (
        "bad --unconnected",
        ("-e", "x", "--at", "x=1", "--unconnected", "maybe"),
        r"Invalid value for '--unconnected'",
    ),
]

GLOBAL_OPTION_CASES = [
    (("--max-elements", "0"), r"--max-elements must be positive, got 0"),
    (("--max-depth", "100000"), r"--max-depth must be at most 1000"),
    (("--max-nodes", "many"), r"Invalid value for '--max-nodes'"),
]


def _ids(cases):
    return [c.id for c in cases]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", SPEC_CASES, ids=_ids(SPEC_CASES))
def test_bad_spec(case: Case, command: str, tmp_path) -> None:
    path = tmp_path / "spec.yaml"
    data = case.text if isinstance(case.text, bytes) else case.text.encode("utf-8")
    path.write_bytes(data)
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    extra = ("--grad",) if command == "graph" else ()  # build the gradient graph too
    res = invoke(command, path, *extra, *case.args)
    check_error(res, str(path), text, case)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", SPEC_CASES[:12], ids=_ids(SPEC_CASES[:12]))
def test_bad_spec_on_stdin(case: Case, command: str) -> None:
    data = case.text if isinstance(case.text, bytes) else case.text.encode("utf-8")
    res = invoke(command, "-", input=data)
    check_error(res, "<stdin>", data.decode("utf-8", "replace").lstrip("\ufeff"), case)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", EXPR_CASES, ids=_ids(EXPR_CASES))
def test_bad_expression(case: Case, command: str) -> None:
    res = invoke(command, "-e", case.text, *case.args)
    check_error(res, "<expr>", case.text, case)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("name", "args", "message"), OPTION_CASES, ids=[c[0] for c in OPTION_CASES]
)
def test_bad_option(name, args, message, command: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text("inputs: {x: 1}\ngraph: {f: x}\n")
    env = {"GRADCLI_MAX_ELEMENTS": "10"} if "too large" in name else None
    res = invoke(command, *args, env=env)
    check_error(res, None, "", Case(name, "", None, message))


@pytest.mark.parametrize(("args", "message"), GLOBAL_OPTION_CASES)
def test_bad_limit_flag(args, message) -> None:
    res = invoke(*args, "eval", "-e", "x", "--at", "x=1")
    check_error(res, None, "", Case("flag", "", None, message))


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("GRADCLI_MAX_ELEMENTS", "lots", r"GRADCLI_MAX_ELEMENTS='lots' is not a whole number"),
        ("GRADCLI_MAX_NODES", "-5", r"GRADCLI_MAX_NODES must be positive, got -5"),
        ("GRADCLI_SYMPY_TIMEOUT", "nan", r"GRADCLI_SYMPY_TIMEOUT='nan' is not a number"),
        ("GRADCLI_MAX_DEPTH", "5000", r"GRADCLI_MAX_DEPTH must be at most 1000"),
    ],
)
def test_bad_limit_variable(variable, value, message) -> None:
    res = invoke("eval", "-e", "x", "--at", "x=1", env={variable: value})
    check_error(res, None, "", Case("env", "", None, message))


# Jacobians and Hessians run all one-hot seeds in one pass over a leading seed axis, or in
# as few passes as --max-bytes leaves room for; --max-passes bounds those passes. (Before,
# each element took its own pass and 30,000 elements were over the default 20,000 passes:
# these specs now run by default, and the limit shows with a small --max-bytes.)
SMALL_BYTES = ("--max-bytes", "2000000", "--max-passes", "100")


@pytest.mark.parametrize(
    ("command", "text", "at", "message"),
    [
        ("jacobian", "inputs:\n  x: 1.0\ngraph:\n  f: broadcast_to(x, [30000])\n", "broadcast_to",
         r"the Jacobian of 'f' takes 10,000 evaluation passes for its 30,000 elements \(3 seeds "
         r"per pass, as many as --max-bytes leaves room for\), over the limit of 100 passes "
         r"\(change it with --max-passes or GRADCLI_MAX_PASSES\)"),
        ("hessian", "inputs:\n  x: {ones: [3000]}\ngraph:\n  f: sum(x * x)\n", "x: {",
         r"the Hessian of 'x' takes \d+ evaluation passes for its 3,000 elements"),
        ("jacobian", "inputs:\n  x: 1.0\ngraph:\n  a: broadcast_to(x, [15000])\n"
         "  b: 2 * a\noutputs: [a, b]\n", "broadcast_to",
         r"the Jacobian of 'a' takes 2,143 evaluation passes for its 15,000 elements"),
    ],
)  # fmt: skip
def test_derivative_passes_are_bounded(command, text, at, message, tmp_path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    res = invoke(*SMALL_BYTES, command, path)
    check_error(res, str(path), text, Case(command, text, at, message))
    res = invoke(command, path, "--format", "json")  # within the default limits: one pass
    assert res.code == 0, res.stderr
    blocks = json.loads(res.stdout)[command]
    if "f" in blocks and command == "jacobian":
        assert blocks["f"]["x"]["value"] == [1.0] * 30000  # d broadcast_to(x) / dx
    elif command == "jacobian":
        assert blocks["a"]["x"]["value"] == [1.0] * 15000
        assert blocks["b"]["x"]["value"] == [2.0] * 15000  # d(2a)/dx
    else:  # d2 sum(x * x) / dx2 = 2 I
        value = np.asarray(blocks["x"]["x"]["value"])
        assert np.array_equal(value, 2.0 * np.eye(3000))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("graph", "-e", "x", "--at", "x=1", "-o", "/nonexistent/out.dot"),
         r"cannot write /nonexistent/out.dot: No such file or directory"),
        (("graph", "-e", "x", "--at", "x=1", "-o", "/"), r"cannot write /: Is a directory"),
        (("explain", "-e", "x", "--at", "x=1", "--output", "nope"),
         r"--output names 'nope', which is not a graph entry"),
        (("eval", "-e", "x", "--at", "x=1", "--format", "xml"), r"Invalid value for '--format'"),
        (("bogus",), r"No such command 'bogus'"),
        ((), r"no command given; run '\w+ --help'"),
    ],
)  # fmt: skip
def test_bad_command_options(args, message) -> None:
    check_error(invoke(*args), None, "", Case("option", "", None, message))


def test_derivative_block_over_the_element_limit(tmp_path) -> None:
    text = "inputs:\n  x: {ones: [30000]}\ngraph:\n  f: sum(x * x)\n"
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    message = (
        r"the Hessian block for 'x' would have 900,000,000 elements, over the limit of "
        r"10,000,000 \(change it with --max-elements or GRADCLI_MAX_ELEMENTS\)"
    )
    res = invoke("--max-passes", "40000", "hessian", path)
    check_error(res, str(path), text, Case("block", text, "x: {", message))
