"""How the script names a TensorFlow gradient call: its target and sources as written at
the call's line (read with `ast`), as the static reader names them, and Keras's variable
paths for sources named by position."""

from __future__ import annotations

import ast
import contextlib

from gradcli.capture.source_text import script_tree

CALL_NAMES = (
    "gradient",
    "jacobian",
    "batch_jacobian",
    "gradients",
    "minimize",
    "compute_gradients",
)


def _call_at(file, line, names, span=None):
    """The call of one of `names` at `line`; with the instruction's column span (line,
    end line, column, end column), the innermost such call containing it (two gradient
    calls on one line are told apart)."""
    tree, _ = script_tree(file) if file else (None, "")
    if tree is None:
        return None
    best, inside = None, None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or line):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in names:
                continue
            if best is None or node.lineno >= best.lineno:
                best = node
            if span is not None and _contains(node, span):
                start = (node.lineno, node.col_offset)
                if inside is None or start >= (inside.lineno, inside.col_offset):
                    inside = node
    return inside if inside is not None else best


def _contains(node, span) -> bool:
    first, last, col, end_col = span
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    return start <= (first, col) and (last, end_col) <= end


def call_texts(file, line, span=None):
    """(target expression, sources expression node) of a gradient call at a line (at the
    instruction's column span when known)."""
    node = _call_at(file, line, CALL_NAMES, span)
    if node is None:
        return None
    args = list(node.args)
    keywords = {k.arg: k.value for k in node.keywords}
    target = args[0] if args else keywords.get("target", keywords.get("ys", keywords.get("loss")))
    sources = args[1] if len(args) > 1 else None
    for key in ("sources", "source", "xs", "var_list"):
        sources = keywords.get(key, sources)
    return (ast.unparse(target) if target is not None else None), sources


def receiver_text(file, line, method) -> str | None:
    node = _call_at(file, line, (method,))
    if node is None or not isinstance(node.func, ast.Attribute):
        return None
    return ast.unparse(node.func.value)


# a TF1 optimizer's var_list when the script gives none, as the static reader names it
DEFAULT_VAR_LIST = "tf.compat.v1.trainable_variables()"
WATCHED_VAR_LIST = "tape.watched_variables()"  # eager: the variables the loss function read
OPTIMIZER_KINDS = frozenset(("minimize", "compute_gradients"))


def source_names(sources, expr, kind: str = "") -> list[str]:
    """The name of each flattened source (tf.nest order), as the static reader names them
    (a TF1 optimizer's default var_list: tf.compat.v1.trainable_variables()[k])."""
    if expr is None and kind in OPTIMIZER_KINDS:
        text = _default_var_list()
    else:
        text = ast.unparse(expr) if expr is not None else "?"
    return [n for _, n in _named(sources, expr, text)]


def _default_var_list() -> str:
    """What a v1 optimizer differentiates without var_list: graph mode's trainable variables
    collection, or (eager, or inside a tf.function) the variables its tape watched."""
    import tensorflow as tf
    from tensorflow.python.framework.func_graph import FuncGraph

    if tf.executing_eagerly() or isinstance(tf.compat.v1.get_default_graph(), FuncGraph):
        return WATCHED_VAR_LIST
    return DEFAULT_VAR_LIST


def default_var_list_note(flat, kind: str, expr) -> list[str]:
    """The static reader's note on graph mode's default var_list, with TensorFlow's names
    of the variables it held."""
    if expr is not None or kind not in OPTIMIZER_KINDS or not flat:
        return []
    if _default_var_list() != DEFAULT_VAR_LIST:
        return []
    listed = ", ".join(f"[{k}] {getattr(v, 'name', '?')}" for k, v in enumerate(flat))
    return [
        f"var_list defaults to {DEFAULT_VAR_LIST}, every trainable variable made so far, "
        f"in creation order: {listed}"
    ]


def _named(value, expr, text) -> list:
    if isinstance(value, dict):
        exprs = {}
        if isinstance(expr, ast.Dict):
            for k, v in zip(expr.keys, expr.values):
                with contextlib.suppress(ValueError, SyntaxError, TypeError):
                    exprs[ast.literal_eval(k)] = v
        out = []
        for key in sorted(value):
            sub = exprs.get(key)
            sub_text = ast.unparse(sub) if sub is not None else f"{text}[{key!r}]"
            out += _named(value[key], sub, sub_text)
        return out
    if isinstance(value, (list, tuple)):
        listed = isinstance(expr, (ast.List, ast.Tuple)) and len(expr.elts) == len(value)
        out = []
        for k, v in enumerate(value):
            sub = expr.elts[k] if listed else None
            sub_text = ast.unparse(sub) if sub is not None else f"{text}[{k}]"
            out += _named(v, sub, sub_text)
        return out
    return [(value, text)]


def keras_notes(flat, names, expr, kind) -> list[str]:
    """'model.trainable_variables: [0] dense/kernel, ...' for Keras variables named by
    position (the static reader's note)."""
    paths = [getattr(s, "path", None) for s in flat]
    if not any(paths):
        return []
    if kind == "fit" or (expr is not None and not isinstance(expr, (ast.List, ast.Tuple))):
        base = names[0].rsplit("[", 1)[0] if names else "sources"
        listed = ", ".join(f"[{i}] {p}" for i, p in enumerate(paths) if p)
        return [f"{base}: {listed}"]
    return []
