"""The expression parser's fast path: one-line arithmetic and calls, parsed in one loop.

parse_fast() reads the grammar's common part (numbers, names, strings, parentheses, calls
with positional and keyword arguments, unary signs, every binary operator) by operator
precedence with explicit stacks: one regex call tokenizes the whole line, and no method
is called per token. It builds exactly the nodes and positions the full parser builds, or
returns None for anything else (a subscript, a list, an error of any kind, a nesting
close to the limit): the full parser then parses it and words its errors, so both paths
agree by construction (tests/spec/test_expression_fast.py compares them).
"""

from __future__ import annotations

import re

from gradcli.runtime import limits
from gradcli.runtime.errors import Pos
from gradcli.spec import expression as ast
from gradcli.spec import numbers

# the full tokenizer's tokens (expression._TOKEN), names first: only a number and the
# operators '.' and '...' can start alike, and the number comes first in both. Possessive
# repeats (*+, ++) never give back what they matched, which no token here needs: the
# same tokens, with less backtracking. findall gives (whitespace, token) pairs.
_FAST_TOKEN = re.compile(
    r"""([ \t\r]*+)(
    [A-Za-z_][A-Za-z_0-9]*+
  | \d++(?:\.\d*+)?(?:[eE][+-]?\d++)?
  | \.\d++(?:[eE][+-]?\d++)?
  | \*\*|<=|>=|==|!=|//|\.\.\.|[-+*/@()\[\],:=<>.%]
  | '[^'\n]*+'|"[^"\n]*+"
    )""",
    re.VERBOSE,
)
# a token's kind from its first character (a digit: _NUM; a '.': a number or an operator)
_NAME, _NUM, _STR, _OP, _DOT = range(5)
_KIND = {
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_", _NAME),
    **dict.fromkeys("'\"", _STR),
    **dict.fromkeys("*<>=!/-+@()[],:%", _OP),
    ".": _DOT,
}

_PRECEDENCE = ast._PRECEDENCE
_COMPARE = min(_PRECEDENCE[s] for s in ast.COMPARISONS)  # comparisons bind the loosest
_FORBIDDEN = ast._FORBIDDEN
# Operator-stack entries are lists [kind, precedence, text, pos, ...]; a unary sign binds
# tighter than every binary operator but looser than **, which is right-associative (as
# the full parser's unary() and power() read them); markers bind nothing.
_BINARY, _UNARY, _POWER, _PAREN, _CALL = range(5)
_UNARY_PREC = max(_PRECEDENCE.values()) + 1
_POWER_PREC = _UNARY_PREC + 1
_MARKER_PREC = -1


def parse_fast(text: str, locate):
    """The AST of a one-line expression in the common grammar, or None (the full parser
    decides: it builds anything else and every error)."""
    # positions: the reader's one-line locator is a shift (its `shift` attribute), made
    # here without a call per token; any other locator is called
    shift = getattr(locate, "shift", None)
    if shift is None or shift[0] is None or len(text) > _TEMPLATE_CHARS:
        return _parse(text, _FAST_TOKEN.findall(text), locate, shift)
    depth = limits.current.max_depth
    spelled = (depth, text.translate(_DIGITS))
    known = _LINES.get(spelled)
    if known is not None:  # a line that differs from one read before in its digits only
        return _replay(text, None, known[0], shift, known[2], known[1])
    toks = _FAST_TOKEN.findall(text)
    key, cols = _template(toks, depth)
    program = _TEMPLATES.get(key) if key is not None else None
    if program is None:
        tree = _parse(text, toks, locate, shift)
        if tree is None or key is None or len(_TEMPLATES) >= _MAX_TEMPLATES:
            return tree
        program = _TEMPLATES[key] = _program(tree, cols, shift[2])
    else:
        tree = _replay(text, toks, cols, shift, program)
    if len(_LINES) < _MAX_TEMPLATES:
        # the tokens' spans, for a line with other digits in their places: the patterns
        # tell ASCII digits apart from nothing else, so its tokens have the same spans and
        # kinds (names stay names, integers integers), and the template is the same
        ends = [col - 1 + len(tok) for col, (_, tok) in zip(cols, toks)]
        _LINES[spelled] = (cols, ends, program)
    return tree


# --- templates: a line shaped like one read before is built by replaying that reading -------
# A line's template is its tokens with each name, integer, other number and string replaced
# by its kind (operators and brackets kept), and the depth limit then in force: the
# precedence loop's every decision depends on nothing else, except for keyword arguments
# (a name given twice), which are never templated. The program lists, in post-order, the
# node each token makes; replaying it checks what depends on a token's own text as the
# loop does (a forbidden name, a number float64 cannot hold) and hands over alike.
_TEMPLATES: dict = {}
_MAX_TEMPLATES = 4096
# (depth limit, the line with each ASCII digit written 0) -> (its tokens' columns, where
# they end, its template's program): the chain `y{i}: maximum(y{i-1} * 0.9, ...)` is then
# read without tokenizing its lines again
_LINES: dict = {}
_DIGITS = str.maketrans("123456789", "000000000")
_TEMPLATE_CHARS = 400  # a longer line (one huge sum, say) is seldom repeated: not templated
_T_NAME, _T_INT, _T_FLOAT, _T_STR, _T_BINARY, _T_UNARY, _T_CALL = range(7)


def _template(toks, depth: int) -> tuple:
    """(the tokens' template key or None, each token's column)."""
    cols = []
    codes = [depth]
    off = 0
    kinds = _KIND
    for ws, tok in toks:
        col = off + len(ws) + 1
        off = col - 1 + len(tok)
        cols.append(col)
        kind = kinds.get(tok[0], _NUM)
        if kind == _NAME:
            codes.append("n")
        elif kind == _OP:
            if tok == "=":
                return None, cols  # a keyword argument: never templated
            codes.append(tok)
        elif kind == _DOT and (tok == "." or tok == "..."):
            codes.append(tok)
        elif kind == _STR:
            codes.append("s")
        elif "." not in tok and "e" not in tok and "E" not in tok and len(tok) <= 18:
            codes.append("i")
        else:
            codes.append("f")
    cols.append(off)  # where the text's tokens end
    return tuple(codes), cols


def _program(tree, cols: list, base: int) -> tuple:
    """The post-order (kind, token index, argument count) steps that rebuild tree."""
    index = {col: k for k, col in enumerate(cols[:-1])}
    steps = []
    stack = [(tree, False)]
    while stack:
        node, ready = stack.pop()
        kind = type(node)
        k = index[node.pos[2] - base]
        if kind is ast.Name:
            steps.append((_T_NAME, k, 0))
        elif kind is ast.Num:
            steps.append((_T_INT if type(node.value) is int else _T_FLOAT, k, 0))
        elif kind is ast.Str:
            steps.append((_T_STR, k, 0))
        elif ready:
            n = len(node.args) if kind is ast.Call else 0
            steps.append((_T_CALL if kind is ast.Call else _T_BINARY if kind is ast.Binary
                          else _T_UNARY, k, n))  # fmt: skip
        else:
            stack.append((node, True))
            if kind is ast.Binary:
                stack += ((node.right, False), (node.left, False))
            elif kind is ast.Unary:
                stack.append((node.operand, False))
            else:
                stack.extend((a, False) for a in reversed(node.args))
    return tuple(steps)


def _replay(text: str, toks, cols: list, shift, program: tuple, ends=None):
    """The tree the precedence loop builds for a line of a known template, or None (toks:
    findall's pairs; or None and ends, where each token ends: the text sliced there)."""
    if text[cols[-1] :].strip(" \t\r"):
        return None  # a character no token matches (the loop's last test)
    file, line, base = shift
    new = tuple.__new__
    Name, Num, Binary, Call = ast.Name, ast.Num, ast.Binary, ast.Call
    vals: list = []
    for step, k, n in program:
        tok = toks[k][1] if ends is None else text[cols[k] - 1 : ends[k]]
        pos = new(Pos, (file, line, base + cols[k]))
        if step == _T_BINARY:
            right = vals.pop()
            vals[-1] = Binary(tok, vals[-1], right, pos)
        elif step == _T_NAME:
            if tok in _FORBIDDEN:
                return None
            vals.append(Name(tok, pos))
        elif step == _T_INT:
            vals.append(Num(int(tok), pos))
        elif step == _T_FLOAT:
            try:
                vals.append(Num(numbers.float_text(tok), pos))
            except numbers.NumberError:
                return None
        elif step == _T_CALL:
            if tok in _FORBIDDEN:
                return None
            args = vals[len(vals) - n :]
            del vals[len(vals) - n :]
            vals.append(Call(tok, args, [], pos))
        elif step == _T_UNARY:
            vals[-1] = ast.Unary(tok, vals[-1], pos)
        else:
            vals.append(ast.Str(tok[1:-1], pos))
    return vals[0]


def _parse(text: str, toks, locate, shift):
    """parse_fast's precedence loop over the line's tokens."""
    file, line, base = shift if shift is not None else (None, 0, 0)
    new = tuple.__new__
    off = 0  # the offset of the next token's whitespace
    vals: list = []  # operands
    ops: list = []  # pending operators and open parentheses and calls
    # a depth well inside the full parser's limit (its depth is the height of `ops`)
    room = limits.current.max_depth // 2
    operand = True  # an operand comes next (else an operator or a closing token)
    n = len(toks)
    k = 0
    while k < n:
        ws, tok = toks[k]
        k += 1
        col = off + len(ws) + 1
        off = col - 1 + len(tok)
        kind = _KIND.get(tok[0], _NUM)
        if kind == _DOT:  # '.5' is a number, '.' and '...' operators
            kind = _OP if tok == "." or tok == "..." else _NUM
        if operand:
            if kind == _NAME:
                if tok in _FORBIDDEN:
                    return None
                pos = new(Pos, (file, line, base + col)) if file is not None else locate(1, col)
                if k < n and toks[k][1] == "(":  # a call: its arguments come next
                    if len(ops) >= room:
                        return None
                    off += len(toks[k][0]) + 1
                    k += 1
                    if k < n and toks[k][1] == ")":  # f(): no arguments
                        off += len(toks[k][0]) + 1
                        k += 1
                        vals.append(ast.Call(tok, [], [], pos))
                        operand = False
                        continue
                    # [kind, prec, name, pos, first operand, keywords, keyword being read]
                    call = [_CALL, _MARKER_PREC, tok, pos, len(vals), [], None]
                    ops.append(call)
                    if _keyword(toks, k, n, call, locate, off):
                        off += len(toks[k][0]) + len(toks[k][1]) + len(toks[k + 1][0]) + 1
                        k += 2
                        if call[6] is None:
                            return None
                else:
                    vals.append(ast.Name(tok, pos))
                    operand = False
            elif kind == _NUM:
                pos = new(Pos, (file, line, base + col)) if file is not None else locate(1, col)
                if "." not in tok and "e" not in tok and "E" not in tok and len(tok) <= 18:
                    vals.append(ast.Num(int(tok), pos))
                else:
                    try:  # numbers in expressions are float64: 1e400 is too large, not inf
                        vals.append(ast.Num(numbers.float_text(tok), pos))
                    except numbers.NumberError:
                        return None
                operand = False
            elif kind == _STR:
                pos = new(Pos, (file, line, base + col)) if file is not None else locate(1, col)
                vals.append(ast.Str(tok[1:-1], pos))
                operand = False
            elif tok == "-" or tok == "+":
                if len(ops) >= room:
                    return None
                pos = new(Pos, (file, line, base + col)) if file is not None else locate(1, col)
                ops.append([_UNARY, _UNARY_PREC, tok, pos])
            elif tok == "(":
                if len(ops) >= room or (k < n and toks[k][1] == ")"):
                    return None  # () is an error the full parser words
                ops.append([_PAREN, _MARKER_PREC])
            else:
                return None
            continue
        # an operator or a closing token
        prec = _PRECEDENCE.get(tok) if kind == _OP else None
        if prec is not None:
            while ops and ops[-1][1] >= prec:
                top = ops.pop()
                if top[1] == _COMPARE and prec == _COMPARE:
                    return None  # chained comparisons: the full parser's error
                if top[0] == _UNARY:  # _reduce inlined (once per operator: a hot path)
                    vals.append(ast.Unary(top[2], vals.pop(), top[3]))
                else:
                    right = vals.pop()
                    vals[-1] = ast.Binary(top[2], vals[-1], right, top[3])
            if len(ops) >= room:
                return None
            pos = new(Pos, (file, line, base + col)) if file is not None else locate(1, col)
            ops.append([_BINARY, prec, tok, pos])
            operand = True
        elif tok == "**":
            if len(ops) >= room:
                return None
            # right-associative and the tightest: nothing on the stack is applied first
            pos = new(Pos, (file, line, base + col)) if file is not None else locate(1, col)
            ops.append([_POWER, _POWER_PREC, tok, pos])
            operand = True
        elif tok == ")" or tok == ",":
            while ops and ops[-1][1] != _MARKER_PREC:
                _reduce(ops.pop(), vals)
            if not ops:
                return None
            top = ops[-1]
            if top[0] == _PAREN:
                if tok == ",":
                    return None  # a tuple: the full parser's error
                ops.pop()  # (f)(x) then stops at '(': the full parser calls f
                continue
            # the end of one argument of a call
            if top[6] is not None:
                top[5].append(ast.Keyword(top[6][0], vals.pop(), top[6][1]))
                top[6] = None
            elif top[5]:
                return None  # positional after keyword: the full parser's error
            if tok == ",":
                if k < n and toks[k][1] == ")":  # a trailing comma
                    off += len(toks[k][0]) + 1
                    k += 1
                else:
                    operand = True
                    if _keyword(toks, k, n, top, locate, off):
                        off += len(toks[k][0]) + len(toks[k][1]) + len(toks[k + 1][0]) + 1
                        k += 2
                        if top[6] is None:
                            return None
                    continue
            ops.pop()
            args = vals[top[4] :]
            del vals[top[4] :]
            vals.append(ast.Call(top[2], args, top[5], top[3]))
        else:
            return None  # f(x)(y), x[0], x.y, a b: the full parser decides
    # a character no token matches leaves a gap findall skips: then the text goes on past off
    if operand or text[off:].strip(" \t\r"):
        return None
    while ops:
        top = ops.pop()
        if top[1] == _MARKER_PREC:
            return None  # an unclosed parenthesis or call
        _reduce(top, vals)
    return vals[0] if len(vals) == 1 else None


def _keyword(toks, k: int, n: int, call: list, locate, off: int) -> bool:
    """At an argument's start: whether `name =` follows (then call[6] is (name, pos), or None
    for a keyword given twice, which the full parser refuses)."""
    if k + 1 >= n or toks[k + 1][1] != "=" or _KIND.get(toks[k][1][0]) != _NAME:
        return False
    name = toks[k][1]
    if any(kw.name == name for kw in call[5]):
        call[6] = None
        return True
    call[6] = (name, locate(1, off + len(toks[k][0]) + 1))
    return True


def _reduce(top: list, vals: list) -> None:
    """Apply one operator from the stack to the operands it takes."""
    if top[0] == _UNARY:
        vals.append(ast.Unary(top[2], vals.pop(), top[3]))
    else:
        right = vals.pop()
        vals[-1] = ast.Binary(top[2], vals[-1], right, top[3])
