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
from gradcli.spec import expression as ast
from gradcli.spec import numbers

# the full tokenizer's token patterns in its order (so both split a text alike), each a
# group: findall gives (whitespace, number, name, string, operator) per token
_FAST_TOKEN = re.compile(
    r"""([ \t\r]*)(?:
    ((?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | ([A-Za-z_][A-Za-z_0-9]*)
  | ('[^'\n]*'|"[^"\n]*")
  | (\*\*|<=|>=|==|!=|//|\.\.\.|[-+*/@()\[\],:=<>.%])
    )""",
    re.VERBOSE,
)

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
    toks = _FAST_TOKEN.findall(text)
    off = 0  # the offset of the next token's whitespace
    vals: list = []  # operands
    ops: list = []  # pending operators and open parentheses and calls
    # a depth well inside the full parser's limit (its depth is the height of `ops`)
    room = limits.current.max_depth // 2
    operand = True  # an operand comes next (else an operator or a closing token)
    n = len(toks)
    k = 0
    while k < n:
        ws, num, name, string, op = toks[k]
        k += 1
        col = off + len(ws) + 1
        off = col - 1 + len(num or name or string or op)
        if operand:
            if num:
                is_int = "." not in num and "e" not in num and "E" not in num
                if is_int and len(num) <= 18:
                    vals.append(ast.Num(int(num), locate(1, col)))
                else:
                    try:  # numbers in expressions are float64: 1e400 is too large, not inf
                        vals.append(ast.Num(numbers.float_text(num), locate(1, col)))
                    except numbers.NumberError:
                        return None
                operand = False
            elif name:
                if name in _FORBIDDEN:
                    return None
                if k < n and toks[k][4] == "(":  # a call: its arguments come next
                    if len(ops) >= room:
                        return None
                    k += 1
                    off += len(toks[k - 1][0]) + 1
                    # [kind, prec, name, pos, first operand, keywords, keyword being read]
                    ops.append([_CALL, _MARKER_PREC, name, locate(1, col), len(vals), [], None])
                    if k < n and toks[k][4] == ")":  # f(): no arguments
                        k += 1
                        off += len(toks[k - 1][0]) + 1
                        ops.pop()
                        vals.append(ast.Call(name, [], [], locate(1, col)))
                        operand = False
                    elif not _keyword(toks, k, n, ops[-1], locate, off):
                        continue
                    else:  # `name =` consumed
                        off += len(toks[k][0]) + len(toks[k][2]) + len(toks[k + 1][0]) + 1
                        k += 2
                        if ops[-1][6] is None:
                            return None
                else:
                    vals.append(ast.Name(name, locate(1, col)))
                    operand = False
            elif string:
                vals.append(ast.Str(string[1:-1], locate(1, col)))
                operand = False
            elif op == "-" or op == "+":
                if len(ops) >= room:
                    return None
                ops.append([_UNARY, _UNARY_PREC, op, locate(1, col)])
            elif op == "(":
                if len(ops) >= room or (k < n and toks[k][4] == ")"):
                    return None  # () is an error the full parser words
                ops.append([_PAREN, _MARKER_PREC])
            else:
                return None
            continue
        # an operator or a closing token
        prec = _PRECEDENCE.get(op) if op else None
        if prec is not None:
            while ops and ops[-1][1] >= prec:
                top = ops.pop()
                if top[1] == _COMPARE and prec == _COMPARE:
                    return None  # chained comparisons: the full parser's error
                _reduce(top, vals)
            if len(ops) >= room:
                return None
            ops.append([_BINARY, prec, op, locate(1, col)])
            operand = True
        elif op == "**":
            while ops and ops[-1][1] > _POWER_PREC:
                _reduce(ops.pop(), vals)
            if len(ops) >= room:
                return None
            ops.append([_POWER, _POWER_PREC, op, locate(1, col)])
            operand = True
        elif op == ")" or op == ",":
            while ops and ops[-1][1] != _MARKER_PREC:
                _reduce(ops.pop(), vals)
            if not ops:
                return None
            top = ops[-1]
            if top[0] == _PAREN:
                if op == ",":
                    return None  # a tuple: the full parser's error
                ops.pop()  # (f)(x) then stops at '(': the full parser calls f
                continue
            # the end of one argument of a call
            if top[6] is not None:
                top[5].append(ast.Keyword(top[6][0], vals.pop(), top[6][1]))
                top[6] = None
            elif top[5]:
                return None  # positional after keyword: the full parser's error
            if op == ",":
                if k < n and toks[k][4] == ")":  # a trailing comma
                    k += 1
                    off += len(toks[k - 1][0]) + 1
                else:
                    operand = True
                    if _keyword(toks, k, n, top, locate, off):
                        off += len(toks[k][0]) + len(toks[k][2]) + len(toks[k + 1][0]) + 1
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
    if k + 1 >= n or not toks[k][2] or toks[k + 1][4] != "=":
        return False
    name = toks[k][2]
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
