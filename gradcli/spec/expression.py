"""The expression language: a tokenizer and a precedence-climbing parser producing a small AST.

Nothing here evaluates anything. Long chains (`a + b + c + ...`, 20,000 terms) parse in a
loop; only nesting (parentheses, calls, lists, `**`, unary signs) recurses, and it is
bounded by the nesting limit.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from gradcli.core.ops import binary_operators
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos
from gradcli.spec import numbers


# --- AST ------------------------------------------------------------------------------------
@dataclass(slots=True)
class Num:
    value: float | int
    pos: Pos


@dataclass(slots=True)
class Name:
    id: str
    pos: Pos


@dataclass(slots=True)
class Str:
    value: str
    pos: Pos


@dataclass(slots=True)
class List:
    items: list
    pos: Pos


@dataclass(slots=True)
class Unary:
    op: str  # "-" or "+"
    operand: object
    pos: Pos


@dataclass(slots=True)
class Binary:
    op: str  # + - * / % @ ** and the comparisons < <= > >= == !=
    left: object
    right: object
    pos: Pos


@dataclass(slots=True)
class Keyword:
    name: str
    value: object
    pos: Pos


@dataclass(slots=True)
class Call:
    func: str
    args: list
    kwargs: list  # of Keyword
    pos: Pos


@dataclass(slots=True)
class Slice:
    start: object | None
    stop: object | None
    step: object | None
    pos: Pos


@dataclass(slots=True)
class IndexMarker:
    """`None` (a new axis of size 1) or `...` (all the axes not indexed) inside [...]."""

    value: object  # None or Ellipsis
    pos: Pos


@dataclass(slots=True)
class Index:
    value: object
    items: list  # expressions and Slices
    pos: Pos


# --- tokens -----------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<str>'[^'\n]*'|"[^"\n]*")
  | (?P<op>\*\*|<=|>=|==|!=|//|\.\.\.|[-+*/@()\[\],:=<>.%])
    """,
    re.VERBOSE,
)

# operator symbols and their binding strength come from the op registry (Op.operator);
# ** is right-associative and binds tighter than unary minus: power() parses it
_OPERATORS = binary_operators()
COMPARISONS = {s: op.name for s, op in _OPERATORS.items() if op.operator.comparison}
_PRECEDENCE = {s: op.operator.precedence for s, op in _OPERATORS.items() if not op.operator.right}

_FORBIDDEN = {
    "lambda": "lambda expressions are not supported",
    "for": "comprehensions are not supported",
    "if": "conditional expressions are not supported (use cond(pred, a, b) or where(c, a, b))",
    "else": "conditional expressions are not supported (use cond(pred, a, b) or where(c, a, b))",
    "and": "'and' is not supported (use logical_and(a, b))",
    "or": "'or' is not supported (use logical_or(a, b))",
    "not": "'not' is not supported (use logical_not(a))",
    "import": "'import' is not allowed in an expression",
    "yield": "'yield' is not allowed in an expression",
    "await": "'await' is not allowed in an expression",
}
_UNSUPPORTED_OPS = {
    "//": "'//' is not supported (use floor(a / b))",
    "=": "'=' is only allowed for keyword arguments such as axis=0 (did you mean '=='?)",
}


@dataclass(slots=True)
class Token:
    kind: str  # num, name, str, op, end
    text: str
    line: int
    col: int


def tokenize(text: str, locate: Callable[[int, int], Pos]) -> list[Token]:
    """Split an expression into tokens; any other character is an error at its position."""
    tokens: list[Token] = []
    append = tokens.append
    line, line_start, i, n = 1, 0, 0, len(text)
    # finditer skips characters no token matches; a gap between matches is such a character
    for m in _TOKEN.finditer(text):
        start = m.start()
        if start != i:
            break
        kind = m.lastgroup
        i = m.end()
        if kind == "ws":
            tok = m.group()
            newlines = tok.count("\n")
            if newlines:
                line += newlines
                line_start = start + tok.rindex("\n") + 1
        else:
            append(Token(kind, m.group(), line, start - line_start + 1))
    if i < n:
        raise GradcliError(f"unexpected character {text[i]!r}", locate(line, i - line_start + 1))
    append(Token("end", "", line, n - line_start + 1))
    return tokens


class Parser:
    """Recursive descent for nesting, loops for chains; positions map through `locate`."""

    def __init__(self, text: str, locate: Callable[[int, int], Pos]):
        self.locate = locate
        self.tokens = tokenize(text, locate)
        self.i = 0
        self.depth = 0
        self.max_depth = limits.current.max_depth

    # helpers
    def peek(self) -> Token:
        return self.tokens[self.i]

    def pos(self, tok: Token) -> Pos:
        return self.locate(tok.line, tok.col)

    def next(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def error(self, message: str, tok: Token | None = None) -> GradcliError:
        return GradcliError(message, self.pos(tok or self.peek()))

    def expect(self, text: str) -> Token:
        tok = self.peek()
        if tok.text != text or tok.kind != "op":
            raise self.expected(f"'{text}'", tok)
        return self.next()

    def expected(self, what: str, tok: Token) -> GradcliError:
        """An error for a token that is not what the grammar needs here."""
        if tok.kind == "end" or tok.text in _UNSUPPORTED_OPS or tok.text in _FORBIDDEN:
            return self.unexpected(tok)
        if tok.text == ".":
            return self.unexpected(tok)
        return self.error(f"expected {what}, found {tok.text!r}", tok)

    def enter(self, tok: Token) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise LimitError(
                f"expression nested more than {self.max_depth} levels deep "
                f"{limits.advice('max_depth')}",
                self.pos(tok),
            )

    # grammar
    def parse(self):
        if self.peek().kind == "end":
            raise self.error("empty expression")
        # one nesting level costs at most _FRAMES_PER_LEVEL Python frames (a list item:
        # atom, sequence, expression, unary, power, postfix); make room for max_depth levels
        needed = _FRAMES_PER_LEVEL * (self.max_depth + 2) + 200
        old = sys.getrecursionlimit()
        depth = _stack_depth()
        if old < needed + depth:
            sys.setrecursionlimit(needed + depth)
        try:
            node = self.expression()
        finally:
            sys.setrecursionlimit(old)
        tok = self.peek()
        if tok.kind != "end":
            raise self.unexpected(tok)
        return node

    def unexpected(self, tok: Token) -> GradcliError:
        if tok.kind == "end":
            return self.error("unexpected end of expression", tok)
        if tok.kind == "name" and tok.text in _FORBIDDEN:
            return self.error(_FORBIDDEN[tok.text], tok)
        if tok.text in _UNSUPPORTED_OPS:
            return self.error(_UNSUPPORTED_OPS[tok.text], tok)
        if tok.text == ".":
            return self.error("attribute access is not supported", tok)
        return self.error(f"unexpected {tok.text!r}", tok)

    def expression(self, min_prec: int = 0):
        """Binary operators by precedence climbing; comparisons do not chain."""
        left = self.unary()
        while True:
            tok = self.peek()
            prec = _PRECEDENCE.get(tok.text) if tok.kind == "op" else None
            if prec is None or prec < min_prec:
                return left
            self.next()
            self.enter(tok)
            right = self.expression(prec + 1)
            self.depth -= 1
            left = Binary(tok.text, left, right, self.pos(tok))
            nxt = self.peek()
            if tok.text in COMPARISONS and nxt.kind == "op" and nxt.text in COMPARISONS:
                raise self.error("chained comparisons are not supported", nxt)

    def unary(self):
        tok = self.peek()
        if tok.kind == "op" and tok.text in ("-", "+"):
            self.next()
            self.enter(tok)
            operand = self.unary()
            self.depth -= 1
            return Unary(tok.text, operand, self.pos(tok))
        return self.power()

    def power(self):
        base = self.postfix()
        tok = self.peek()
        if tok.kind == "op" and tok.text == "**":
            self.next()
            self.enter(tok)
            exponent = self.unary()  # right-associative; 2 ** -1 is allowed
            self.depth -= 1
            return Binary("**", base, exponent, self.pos(tok))
        return base

    def postfix(self):
        node = self.atom()
        while True:
            tok = self.peek()
            if tok.kind != "op":
                return node
            if tok.text == "(":
                if not isinstance(node, Name):
                    raise self.error("only named functions can be called", tok)
                node = self.call(node)
            elif tok.text == "[":
                node = self.subscript(node)
            elif tok.text == ".":
                raise self.error("attribute access is not supported", tok)
            else:
                return node

    def atom(self):
        tok = self.next()
        if tok.kind == "num":
            text = tok.text
            is_int = not any(c in text for c in ".eE")
            if is_int and len(text) <= 18:
                return Num(int(text), self.pos(tok))
            try:  # numbers in expressions are float64: 1e400 is too large, not inf
                return Num(numbers.float_text(text), self.pos(tok))
            except numbers.NumberError as exc:
                raise self.error(str(exc), tok) from None
        if tok.kind == "name":
            if tok.text in _FORBIDDEN:
                raise self.error(_FORBIDDEN[tok.text], tok)
            return Name(tok.text, self.pos(tok))
        if tok.kind == "str":
            return Str(tok.text[1:-1], self.pos(tok))
        if tok.kind == "op" and tok.text == "(":
            self.enter(tok)
            if self.peek().text == ")":
                raise self.error("empty parentheses", self.peek())
            node = self.expression()
            if self.peek().text == ",":
                raise self.error("tuples are not supported (use a list [a, b])", self.peek())
            self.expect(")")
            self.depth -= 1
            return node
        if tok.kind == "op" and tok.text == "[":
            self.enter(tok)
            items = self.sequence("]")
            self.depth -= 1
            return List(items, self.pos(tok))
        self.i -= 1
        raise self.unexpected(tok)

    def sequence(self, close: str) -> list:
        """Comma-separated expressions up to `close` (a trailing comma is fine)."""
        items = []
        while self.peek().text != close:
            items.append(self.expression())
            tok = self.peek()
            if tok.text == ",":
                self.next()
            elif tok.text != close:
                raise self.expected(f"',' or '{close}'", tok)
        self.expect(close)
        return items

    def call(self, func: Name) -> Call:
        open_tok = self.expect("(")
        self.enter(open_tok)
        args, kwargs = [], []
        while self.peek().text != ")":
            tok = self.peek()
            after = self.tokens[min(self.i + 1, len(self.tokens) - 1)]
            if tok.kind == "name" and after.text == "=":
                self.next()
                self.next()
                if any(k.name == tok.text for k in kwargs):
                    raise self.error(f"keyword argument '{tok.text}' given twice", tok)
                kwargs.append(Keyword(tok.text, self.expression(), self.pos(tok)))
            else:
                if kwargs:
                    raise self.error("positional argument after a keyword argument", tok)
                args.append(self.expression())
            tok = self.peek()
            if tok.text == ",":
                self.next()
            elif tok.text != ")":
                raise self.expected("',' or ')'", tok)
        self.expect(")")
        self.depth -= 1
        return Call(func.id, args, kwargs, func.pos)

    def subscript(self, value) -> Index:
        open_tok = self.expect("[")
        self.enter(open_tok)
        items = []
        while True:
            items.append(self.subscript_item())
            if self.peek().text == ",":
                self.next()
                if self.peek().text == "]":
                    break
            else:
                break
        self.expect("]")
        self.depth -= 1
        return Index(value, items, self.pos(open_tok))

    def subscript_item(self):
        tok = self.peek()
        if tok.kind == "end":
            raise self.unexpected(tok)
        if (tok.kind, tok.text) in (("op", "..."), ("name", "None")):  # x[..., 0], x[:, None]
            self.next()
            if self.peek().text not in (",", "]"):
                raise self.error(f"{tok.text} stands alone in an index", tok)
            return IndexMarker(Ellipsis if tok.text == "..." else None, self.pos(tok))
        parts: list = [None]
        colons = 0
        while True:
            t = self.peek()
            if t.text == ":":
                self.next()
                colons += 1
                if colons > 2:
                    raise self.error("too many ':' in a slice", t)
                parts.append(None)
            elif t.text in (",", "]") or t.kind == "end":
                break
            else:
                if parts[-1] is not None:
                    raise self.unexpected(t)
                parts[-1] = self.expression()
        if colons == 0:
            if parts[0] is None:
                raise self.error("empty index", tok)
            return parts[0]
        parts += [None] * (3 - len(parts))
        return Slice(parts[0], parts[1], parts[2], self.pos(tok))


_FRAMES_PER_LEVEL = 8


def _stack_depth() -> int:
    """The number of frames on the current stack."""
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


# The two one-line shapes most graph entries take, `f(a)` and `a OP b` (a name or a number
# each side, OP a binary operator of _PRECEDENCE), matched whole: parse() builds their AST
# directly, the same nodes and positions the parser builds. Anything else, a forbidden name
# or a number the parser would refuse takes the parser's path (and its errors).
_ATOM = r"(?:(?P<{0}n>[A-Za-z_][A-Za-z_0-9]*)|(?P<{0}v>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?))"
_SIMPLE_CALL = re.compile(r"[ \t]*(?P<f>[A-Za-z_][A-Za-z_0-9]*)\([ \t]*" + _ATOM.format("a")
                          + r"[ \t]*\)[ \t]*\Z")  # fmt: skip
_SIMPLE_BINARY = re.compile(
    r"[ \t]*" + _ATOM.format("a") + r"[ \t]*(?P<op>[-+*/%@]|<=|>=|==|!=|<|>)[ \t]*"
    + _ATOM.format("b") + r"[ \t]*\Z"
)  # fmt: skip


def _simple_atom(m, side: str, locate):
    """The Name or Num of one side of a simple match, or None (the parser decides)."""
    name = m.group(side + "n")
    if name is not None:
        if name in _FORBIDDEN:
            return None
        return Name(name, locate(1, m.start(side + "n") + 1))
    text = m.group(side + "v")
    if not any(c in text for c in ".eE") and len(text) <= 18:
        return Num(int(text), locate(1, m.start(side + "v") + 1))
    try:
        value = numbers.float_text(text)
    except numbers.NumberError:
        return None
    return Num(value, locate(1, m.start(side + "v") + 1))


def _simple(text: str, locate):
    """The AST of `f(a)` or `a OP b`, or None for any other expression."""
    # `a OP b` has no '(' and `f(a)` one, before its closing ')': the text's parentheses
    # say which pattern can match, so a longer expression tries neither
    opening = text.count("(")
    m = _SIMPLE_BINARY.match(text) if opening == 0 else None
    if m is not None:
        if m.group("op") not in _PRECEDENCE:
            return None
        left = _simple_atom(m, "a", locate)
        right = _simple_atom(m, "b", locate) if left is not None else None
        if right is None:
            return None
        return Binary(m.group("op"), left, right, locate(1, m.start("op") + 1))
    if opening != 1 or not text.rstrip(" \t").endswith(")"):
        return None
    m = _SIMPLE_CALL.match(text)
    if m is not None and m.group("f") not in _FORBIDDEN:
        arg = _simple_atom(m, "a", locate)
        if arg is not None:
            return Call(m.group("f"), [arg], [], locate(1, m.start("f") + 1))
    return None


def parse(text: str, locate: Callable[[int, int], Pos] | None = None):
    """Parse one expression into an AST; errors name the position through `locate`."""
    if locate is None:
        locate = lambda line, col: Pos("<expr>", line, col)  # noqa: E731
    if len(text) < 200:
        tree = _simple(text, locate)
        if tree is not None:
            return tree
    if "\n" not in text:
        tree = expression_fast.parse_fast(text, locate)
        if tree is not None:
            return tree
    return Parser(text, locate).parse()


def names_in(tree) -> list[str]:
    """Free names in order of first appearance (iteratively, for building -e inputs)."""
    seen: dict[str, None] = {}
    stack = [tree]
    order = []
    while stack:
        node = stack.pop()
        if isinstance(node, Name):
            seen.setdefault(node.id, None)
            order.append(node.id)
        elif isinstance(node, Call):
            stack.extend(reversed([*node.args, *(k.value for k in node.kwargs)]))
        elif isinstance(node, (List,)):
            stack.extend(reversed(node.items))
        elif isinstance(node, Unary):
            stack.append(node.operand)
        elif isinstance(node, Binary):
            stack.extend((node.right, node.left))
        elif isinstance(node, Index):
            stack.extend(reversed([node.value, *node.items]))
        elif isinstance(node, Slice):
            stack.extend(x for x in (node.step, node.stop, node.start) if x is not None)
    return list(dict.fromkeys(order))


from gradcli.spec import expression_fast  # noqa: E402 (it reads this module)
