"""Code gradcli does not read, and where it meets what gradcli does (see values.Opaque).

The rule (docs/reading-code.md, "Code gradcli does not read"):
- refused outright, with every other refusal: imports of modules that run processes, load
  code or touch files (refusals.SYSTEM), `from m import *` of an unread module, anything
  that would run code;
- opaque: the names any other module gives (the user's own `from mymodel import f`, a
  plotting library), what calling them returns, their attributes, and every value computed
  from an opaque one. The program reads on; calls into unread code are assumed to leave this
  file's variables as they were (gradcli cannot see inside them);
- refused at its line, naming the opaque value: where such a value must be known for the
  program to go on (an `if` or `while` condition, a loop's items, a variable's new value);
- a gradient call whose target or sources are opaque answers "unknown beyond line N" for
  every source (status `unknown`, cause kind `unknown`), never a gradient or None.
"""

from __future__ import annotations

import ast

from gradcli.tfcode.support import _Return
from gradcli.tfcode.values import Opaque


def opaque_use(it, stmt, scope) -> None:
    """A statement stopped silently on an unknown value: if it reads an opaque name, bind what
    it assigns to that value (an assignment) or refuse it at its line (anything else)."""
    opaque = _read_opaque(stmt, scope)
    if opaque is None:
        return
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in targets):
            for t in targets:
                _bind(t, opaque, scope)
            return
    if isinstance(stmt, ast.Expr):
        return  # a call for its effect (plt.plot(loss)): nothing to compute here
    if isinstance(stmt, ast.Return):
        raise _Return(opaque)
    it.refusals.unsupported(
        stmt,
        f"this statement needs {opaque.what} (line {opaque.line})",
        "gradcli does not read that code; nothing is imported or run",
    )


TRAINING = ("fit", "train_on_batch")  # a Keras model's methods that take a gradient


def opaque_training(it, node, func: Opaque) -> None:
    """model.fit(...) / train_on_batch(...) on a model from code gradcli does not read: a
    gradient call all the same (Keras takes one), unknown beyond the model's line."""
    from gradcli.core.problem import NONE
    from gradcli.tfcode.calls import CallKind

    if isinstance(node.func, ast.Attribute) and node.func.attr in TRAINING:
        model = ast.unparse(node.func.value)
        named = [(None, f"{model}.trainable_variables")]
        unknown_call(it, node, CallKind.FIT, "compiled loss", named, NONE, func)


def _read_opaque(stmt, scope) -> Opaque | None:
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            try:
                value = scope.lookup(node.id)
            except KeyError:
                continue
            if isinstance(value, Opaque):
                return value
    return None


def _bind(target, opaque: Opaque, scope) -> None:
    if isinstance(target, ast.Name):
        scope.vars[target.id] = opaque
    else:
        for t in target.elts:
            _bind(t, opaque, scope)


def unknown_call(it, node, kind, target_text: str, named: list, mode: str, opaque: Opaque):
    """A gradient call that crosses unread code: listed, every source unknown beyond line N."""
    from gradcli.tfcode.calls import GradientCall, _list

    if getattr(opaque, "refused_in_gradient", False):  # TensorFlow's own answer is not known
        it.refuse(node, f"a gradient of {opaque.what} (line {opaque.line})", opaque.reason())
    names = [n for _, n in named]
    call = GradientCall(node.lineno, kind, target_text, names, mode, pos=it.pos(node))
    call.unknown = {"line": opaque.line, "what": opaque.what, "reason": opaque.reason()}
    _list(it, call)
    return opaque
