"""Expressions read by Python's own parser (C), its tree checked against gradcli's grammar.

gradcli's expressions are a subset of Python's: `parse` hands the text, wrapped in
parentheses, to `compile(..., PyCF_ONLY_AST)` and converts the tree into gradcli's nodes
(expression.py) with the positions gradcli's parser gives them. It returns None for
anything it cannot vouch for; expression.parse then runs the full parser, the reference
for every node, position and error message. So only the success path is here:

- text Python reads differently (a `#`, a backslash, a carriage return, form feed or NUL,
  a non-ASCII character, a number run into a letter as in `1if`, `0x1F`, `1_000`, `1j`)
  is not given to Python at all;
- Python's tree may hold only what gradcli's grammar has: names, numbers written as gradcli
  writes them, one-quote strings, [lists], the operators of the op registry (one
  comparison at a time), unary - and +, calls of a name with unique keywords, indexing
  with slices, None and ...; anything else (attributes, tuples, `//`, `not`, `in`, a
  lambda...) is gradcli's error to report, so the full parser reports it;
- positions: a binary operator's and an index's `[` (which Python's tree does not record)
  are found in the text after the left operand, skipping spaces and closing parentheses;
- nesting: gradcli refuses an expression nested more than max_depth levels deep; an
  expression longer than max_depth characters gets a bound on its depth (its structure plus
  its deepest parenthesis), and the full parser decides when the bound exceeds the limit;
- a chain too long for Python's tree builder (some 3,000 operators in a row: `a + b + ...`,
  a RecursionError) is the full parser's, which reads chains in a loop at about the same
  speed per token as Python's parser plus the conversion here.
"""

from __future__ import annotations

import ast as py
import bisect
import re
from itertools import accumulate

from gradcli.runtime import limits
from gradcli.spec import expression as ex

_ONLY_AST = py.PyCF_ONLY_AST

# characters or spellings where Python's reading differs from gradcli's, or where Python
# warns (1if: "invalid decimal literal"): such text goes to the full parser
_SLOW = re.compile(
    r"[#\\\r\x0b\x0c\x00]"
    r"|(?<![A-Za-z_0-9])(?=(\.?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?))\1[A-Za-z_]"
)
_SKIP = re.compile(r"[ \t)]*")  # from a left operand's end to its operator (or an index's [)

_BINOPS = {
    symbol: py_op
    for symbol, py_op in (
        ("+", py.Add), ("-", py.Sub), ("*", py.Mult), ("/", py.Div), ("@", py.MatMult),
        ("**", py.Pow), ("%", py.Mod),
    )
    if symbol in ex._OPERATORS
}  # fmt: skip
_BINOPS = {py_op: symbol for symbol, py_op in _BINOPS.items()}
_CMPOPS = {
    py_op: symbol
    for symbol, py_op in (
        ("<", py.Lt), ("<=", py.LtE), (">", py.Gt), (">=", py.GtE), ("==", py.Eq),
        ("!=", py.NotEq),
    )
    if symbol in ex.COMPARISONS
}  # fmt: skip
_INT_DIGITS = 10**18  # gradcli reads an integer of more than 18 digits as a float

_Name, _Constant, _BinOp, _Call, _UnaryOp = py.Name, py.Constant, py.BinOp, py.Call, py.UnaryOp
_Compare, _List, _Subscript, _Slice, _Tuple = py.Compare, py.List, py.Subscript, py.Slice, py.Tuple
_USub, _UAdd = py.USub, py.UAdd
_Num, _NameNode, _Binary, _Unary = ex.Num, ex.Name, ex.Binary, ex.Unary


def parse(text: str, locate):
    """gradcli's AST of `text` read by Python's parser, or None (the full parser decides)."""
    if not text.isascii() or _SLOW.search(text) is not None:
        return None
    if "\n" in text:
        # newlines are spaces inside parentheses, to Python as to gradcli: one line of
        # columns, mapped back to lines and columns by the locator
        w = text.replace("\n", " ")
        loc = _line_locator(text, locate)
    else:
        w, loc = text, locate
    tree = _line(w, text, loc, 0)
    if tree is None:
        return None
    max_depth = limits.current.max_depth
    if len(text) > max_depth and _depth_bound(tree, text) > max_depth:
        return None
    return tree


def _line(w: str, text: str, loc, offset: int):
    """The tree of w (text, its newlines made spaces) through Python's parser, or None;
    positions are loc(1, offset + 1-based column in w)."""
    wrapped = "(" + w + ")"
    try:
        body = compile(wrapped, "<expr>", "eval", _ONLY_AST, True).body
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        # RecursionError: a chain of thousands of operators (a + b + ...), deeper than
        # Python's tree builder goes; the full parser reads chains in a loop
        return None
    if body.col_offset == 0:  # the wrapping "(" closed inside the text: a)(b
        return None
    return _convert(body, wrapped, "(" + text + ")" if text is not w else wrapped, loc, offset)


def _line_locator(text: str, locate):
    """A locate of (1, column in the one-line text + 1) for a text of several lines."""
    starts = [0, *accumulate(len(line) + 1 for line in text.split("\n"))]

    def loc(_line: int, col: int):
        at = col - 1  # 0-based in text
        k = bisect.bisect_right(starts, at) - 1
        return locate(k + 1, at - starts[k] + 1)

    return loc


def _marker(item, w: str) -> bool:
    """An index item that is None or ... standing alone (not in parentheses)."""
    if type(item) is not _Constant or not (item.value is None or item.value is Ellipsis):
        return False
    j = item.col_offset - 1
    while w[j] in " \t":
        j -= 1
    return w[j] in "[,"


def _convert(body, w: str, raw: str, loc, base: int):
    """Python's tree as gradcli's, or None. Iterative: a pre-order walk, then the nodes
    built in post-order on a stack of results (long chains are deep trees)."""
    order = []
    stack = [body]
    pop, push, extend, record = stack.pop, stack.append, stack.extend, order.append
    while stack:
        n = pop()
        record(n)
        t = type(n)
        if t is _BinOp:
            push(n.left)
            push(n.right)
        elif t is _Name or t is _Constant:
            pass
        elif t is _Call:
            extend(n.args)
            for k in n.keywords:
                push(k.value)
        elif t is _UnaryOp:
            push(n.operand)
        elif t is _Compare:
            if len(n.ops) != 1:
                return None  # chained comparisons: gradcli's error
            push(n.left)
            push(n.comparators[0])
        elif t is _List:
            extend(n.elts)
        elif t is _Subscript:
            push(n.value)
            sl = n.slice
            if type(sl) is _Tuple:
                if raw[sl.col_offset] == "(":  # x[(a, b)] (a tuple) or x[(a), b]: the parser
                    return None
                items = sl.elts
            else:
                items = (sl,)
            for item in items:
                if _marker(item, w):
                    continue
                start = item.col_offset
                if w.startswith("None", start) or w.startswith("...", start):
                    return None  # x[None + 1]: None stands alone in an index (an error)
                push(item)
        elif t is _Slice:
            for part in (n.lower, n.upper, n.step):
                if part is not None:
                    push(part)
        else:
            return None
    vals: list = []
    append = vals.append
    skip = _SKIP.match
    for n in reversed(order):
        t = type(n)
        if t is _Name:
            append(_NameNode(n.id, loc(1, base + n.col_offset)))
        elif t is _BinOp:
            symbol = _BINOPS.get(type(n.op))
            if symbol is None:
                return None
            right = vals.pop()
            at = skip(w, n.left.end_col_offset).end()  # the operator
            vals[-1] = _Binary(symbol, vals[-1], right, loc(1, base + at))
        elif t is _Constant:
            node = _constant(n, raw, loc, base)
            if node is None:
                return None
            append(node)
        elif t is _Call:
            func = n.func
            if type(func) is not _Name:
                return None  # f(x)(y), (-f)(x): only named functions can be called
            kws = n.keywords
            count = len(n.args) + len(kws)
            if count:
                args = vals[-count:]
                del vals[-count:]
            else:
                args = []
            kwargs = []
            if kws:
                given = args[len(n.args) :]
                del args[len(n.args) :]
                seen = set()
                for k, value in zip(kws, given):
                    if k.arg is None or k.arg in seen:
                        return None  # **kw, or a keyword given twice
                    seen.add(k.arg)
                    kwargs.append(ex.Keyword(k.arg, value, loc(1, base + k.col_offset)))
            append(ex.Call(func.id, args, kwargs, loc(1, base + func.col_offset)))
        elif t is _UnaryOp:
            op = type(n.op)
            if op is _USub:
                vals[-1] = _Unary("-", vals[-1], loc(1, base + n.col_offset))
            elif op is _UAdd:
                vals[-1] = _Unary("+", vals[-1], loc(1, base + n.col_offset))
            else:
                return None  # not, ~
        elif t is _Compare:
            symbol = _CMPOPS.get(type(n.ops[0]))
            if symbol is None:
                return None  # in, is
            right = vals.pop()
            at = skip(w, n.left.end_col_offset).end()  # the operator
            vals[-1] = _Binary(symbol, vals[-1], right, loc(1, base + at))
        elif t is _List:
            count = len(n.elts)
            if count:
                items = vals[-count:]
                del vals[-count:]
            else:
                items = []
            append(ex.List(items, loc(1, base + n.col_offset)))
        elif t is _Subscript:
            sl = n.slice
            py_items = sl.elts if type(sl) is _Tuple else (sl,)
            markers = [_marker(item, w) for item in py_items]
            count = len(markers) - sum(markers)
            if count:
                built = iter(vals[-count:])
                del vals[-count:]
            items = [
                ex.IndexMarker(item.value, loc(1, base + item.col_offset))
                if marker
                else next(built)
                for item, marker in zip(py_items, markers)
            ]
            at = skip(w, n.value.end_col_offset).end()  # the [
            vals[-1] = ex.Index(vals[-1], items, loc(1, base + at))
        else:  # _Slice (the walk let nothing else through)
            parts = [p is not None for p in (n.lower, n.upper, n.step)]
            count = sum(parts)
            given = iter(vals[-count:] if count else ())
            if count:
                del vals[-count:]
            start, stop, step = (next(given) if p else None for p in parts)
            append(ex.Slice(start, stop, step, loc(1, base + n.col_offset)))
    return vals[0]


def _constant(n, raw: str, loc, base: int):
    """A number, string, True/False/None (names to gradcli) as gradcli reads it, or None."""
    v = n.value
    t = type(v)
    if t is float:
        if v - v != 0.0:  # 1e400: Python's inf, gradcli's "too large" error
            return None
        return _Num(v, loc(1, base + n.col_offset))
    if t is int:
        if 0 < v < _INT_DIGITS:
            return _Num(v, loc(1, base + n.col_offset))
        digits = n.end_col_offset - n.col_offset  # 0, 000..., or more than 18 digits
        if digits <= 18:
            return _Num(v, loc(1, base + n.col_offset))
        try:
            return _Num(float(v), loc(1, base + n.col_offset))
        except OverflowError:  # too large for float64: the parser's error
            return None
    if t is str:
        s = raw[n.col_offset : n.end_col_offset]
        q = s[0]
        if (q != "'" and q != '"') or len(s) < 2 or s[-1] != q or q in s[1:-1] or "\n" in s:
            return None  # prefixes, triple quotes, 'a' 'b', a string across lines
        return ex.Str(s[1:-1], loc(1, base + n.col_offset))
    if t is bool or v is None:
        return _NameNode(str(v), loc(1, base + n.col_offset))  # True, False, None: names to gradcli
    return None  # ..., outside an index


def _depth_bound(tree, text: str) -> int:
    """An upper bound of the parser's nesting depth for `tree`: the levels its structure
    enters (a binary operator's right operand, a sign's operand, a call's, a list's or an
    index's items) on the deepest path, plus the text's deepest parenthesis."""
    deepest = 0
    stack = [(tree, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, d = pop()
        if d > deepest:
            deepest = d
        t = type(node)
        if t is _Binary:
            push((node.left, d))
            push((node.right, d + 1))
        elif t is _Unary:
            push((node.operand, d + 1))
        elif t is ex.Call:
            for a in node.args:
                push((a, d + 1))
            for k in node.kwargs:
                push((k.value, d + 1))
            deepest = max(deepest, d + 1)
        elif t is ex.List:
            for a in node.items:
                push((a, d + 1))
            deepest = max(deepest, d + 1)
        elif t is ex.Index:
            push((node.value, d))
            for a in node.items:
                push((a, d + 1))
            deepest = max(deepest, d + 1)
        elif t is ex.Slice:
            for a in (node.start, node.stop, node.step):
                if a is not None:
                    push((a, d))
    level = parens = 0
    for m in _PARENS.finditer(text):
        c = m.group()
        if c == "(":
            level += 1
            if level > parens:
                parens = level
        elif c == ")":
            level -= 1
    return deepest + parens


_PARENS = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|[()]")
