"""The script's own words for what a gradient call names: the receiver of `loss.backward()`
and the inputs of `torch.autograd.grad(loss, [w, b])`, read from the source (never run)."""

from __future__ import annotations

import ast
import linecache
from functools import lru_cache

CALL_NAMES = ("backward", "grad")


@lru_cache(maxsize=64)
def script_tree(file: str):
    """(the file's ast, or None when it does not parse; its text), read once per file."""
    text = "".join(linecache.getlines(file))
    try:
        return ast.parse(text), text
    except (SyntaxError, ValueError):
        return None, text


def _calls_at(file: str, line: int) -> list[ast.Call]:
    tree, _ = script_tree(file)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or line):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else None
            name = node.func.id if isinstance(node.func, ast.Name) else name
            if name in CALL_NAMES:
                found.append(node)
    return found


def _text(file: str, node) -> str | None:
    _, text = script_tree(file)
    segment = ast.get_source_segment(text, node)
    return " ".join(segment.split()) if segment else None


def root_text(file: str | None, line: int | None, kind: str) -> str | None:
    """The source text of the tensor a gradient call differentiates (`loss`), if readable."""
    if file is None or line is None:
        return None
    for call in _calls_at(file, line):
        func = call.func
        if kind == "backward" and isinstance(func, ast.Attribute) and func.attr == "backward":
            if call.args and _is_autograd(func.value):  # torch.autograd.backward(loss)
                return _text(file, call.args[0])
            if not _is_autograd(func.value):
                return _text(file, func.value)
        if call.args and (kind == "grad" or _is_autograd(getattr(func, "value", None))):
            return _text(file, call.args[0])
    return None


def input_texts(file: str | None, line: int | None, count: int) -> list[str] | None:
    """The source text of each input of `autograd.grad(y, inputs)`, if written as a list."""
    if file is None or line is None:
        return None
    applied = _func_applied(file, line, count)
    if applied is not None:
        return applied
    for call in _calls_at(file, line):
        arg = call.args[1] if len(call.args) > 1 else None
        for kw in call.keywords:
            if kw.arg == "inputs":
                arg = kw.value
        if arg is None:
            continue
        listed = isinstance(arg, (ast.List, ast.Tuple)) and len(arg.elts) == count
        if listed and not any(isinstance(e, ast.Starred) for e in arg.elts):
            return [_text(file, e) or f"input {i}" for i, e in enumerate(arg.elts)]
        text = _text(file, arg)
        if text is not None:
            return [text] if count == 1 else [f"{text}[{i}]" for i in range(count)]
    return None


def _func_applied(file: str, line: int, count: int) -> list[str] | None:
    """The arguments `grad(f, argnums=...)(a, b)` differentiates (torch.func), if readable."""
    tree, _ = script_tree(file)
    if tree is None:
        return None
    for node in ast.walk(tree):
        inner = node.func if isinstance(node, ast.Call) else None
        if not isinstance(inner, ast.Call) or not node.lineno <= line <= (node.end_lineno or line):
            continue
        name = inner.func.attr if isinstance(inner.func, ast.Attribute) else None
        name = inner.func.id if isinstance(inner.func, ast.Name) else name
        if name not in ("grad", "grad_and_value"):
            continue
        argnums = next((k.value for k in inner.keywords if k.arg == "argnums"), None)
        if argnums is None:
            picked = [0]
        elif isinstance(argnums, ast.Constant) and isinstance(argnums.value, int):
            picked = [argnums.value]
        elif isinstance(argnums, ast.Tuple) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, int) for e in argnums.elts
        ):
            picked = [e.value for e in argnums.elts]
        else:
            continue
        args = node.args
        plain = not any(isinstance(a, ast.Starred) for a in args)
        if plain and len(picked) == count and all(0 <= i < len(args) for i in picked):
            return [_text(file, args[i]) or f"input {k}" for k, i in enumerate(picked)]
    return None


def _is_autograd(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "autograd") or (
        isinstance(node, ast.Name) and node.id == "autograd"
    )
