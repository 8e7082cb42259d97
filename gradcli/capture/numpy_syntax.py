"""A tensor handed straight to a NumPy scalar type (`np.float32(w * 1.5)`): NumPy reads an
eager tensor through the buffer protocol, which no Python hook sees, so the capture knows
only that the op's result went nowhere in TensorFlow. The script's own text says where it
went: the op's instruction span (co_positions) is exactly an argument of a call whose
callee is a NumPy scalar type, by the names the script's globals bound when it ended.
Read from the source, never run.
"""

from __future__ import annotations

import ast

from gradcli.capture.source_text import script_tree

MODULE, SCALAR = "module", "scalar"


def numpy_bindings(namespace: dict | None) -> dict[str, str]:
    """The script's global names bound to NumPy itself or to one of its scalar types."""
    import sys

    np = sys.modules.get("numpy")
    if np is None or not namespace:
        return {}
    found = {}
    for name, obj in list(namespace.items()):
        if obj is np:
            found[name] = MODULE
        elif isinstance(obj, type) and issubclass(obj, np.generic):
            found[name] = SCALAR
    if any(kind == MODULE for kind in found.values()):
        found["."] = ",".join(scalar_type_names(np))
    return found


def scalar_type_names(np) -> list[str]:
    """NumPy's public scalar types (float32, int64, bool_, ...)."""
    out = []
    for name in dir(np):
        obj = getattr(np, name, None)
        if not name.startswith("_") and isinstance(obj, type) and issubclass(obj, np.generic):
            out.append(name)
    return out


def scalar_call(file: str | None, span, bindings: dict[str, str]) -> str | None:
    """The callee's text (`np.float32`) when the expression at `span` (lineno, end_lineno,
    col, end_col) is the only argument of a call to a NumPy scalar type, else None."""
    if not file or not span or not bindings or None in span:
        return None
    tree, _ = script_tree(file)
    if tree is None:
        return None
    line = span[0]
    scalars = set(bindings.get(".", "").split(","))
    stack = [(tree, frozenset())]  # (node, names a function around it binds locally)
    while stack:
        node, local = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local = local | _bound_in(node)
        if isinstance(node, ast.Call) and node.lineno <= line <= node.end_lineno:
            callee = _scalar_callee(node, span, bindings, scalars, local)
            if callee is not None:
                return callee
        stack.extend((child, local) for child in ast.iter_child_nodes(node))
    return None


def _scalar_callee(node: ast.Call, span, bindings, scalars, local) -> str | None:
    if len(node.args) != 1 or node.keywords:
        return None
    arg = node.args[0]
    if (arg.lineno, arg.end_lineno, arg.col_offset, arg.end_col_offset) != tuple(span):
        return None
    func = node.func
    if isinstance(func, ast.Name) and func.id not in local and bindings.get(func.id) == SCALAR:
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id not in local
        and bindings.get(func.value.id) == MODULE
        and func.attr in scalars
    ):
        return f"{func.value.id}.{func.attr}"
    return None


def _bound_in(fn) -> frozenset:
    """Names a function binds locally (its parameters, assignments, imports), so a global
    binding of the same name does not hold inside it."""
    args = fn.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    if isinstance(fn, ast.Lambda):
        return frozenset(names)
    declared_global = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Global):
            declared_global.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names - declared_global)
