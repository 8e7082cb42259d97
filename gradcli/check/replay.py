"""SymPy's derivatives from a recorded translation: the SymPy worker's side, without numpy.

tracer.py runs a problem's translation against a stand-in sympy module and records every
construction (operation, argument keys). `job` packs that record with what
differentiating needs (the loss, the targets' symbols, the entry targets' expressions, the
arguments' order) as plain tuples; `derivatives` replays it against SymPy in the worker,
differentiates as sympy_translation.gradients does, and prints the derivatives as
lambdify prints them. The command's process then checks the texts and evaluates them with
program.py, as it does a cache entry. The worker imports SymPy and nothing of numpy or of
gradcli's ops: about 60 ms sooner ready on first sight of a spec.

A record holding what cannot be rebuilt from plain data (a SymPy Function subclass of an
op's translation, an array argument) is not packed: the full job (run.py) does that work.
"""

from __future__ import annotations

import operator
import re
import time

# the recorded operations that are Python operators on the expressions
OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "neg": operator.neg,
    "pos": operator.pos,
    "abs": operator.abs,
}
ATTR = "attr "  # "attr NAME": a method or property of an expression (m.T, m.det)
SEQUENCES = {"list": list, "tuple": tuple}
ARG_NAME = re.compile(r"a(?:0|[1-9][0-9]{0,8})")  # the printed texts' arguments: a0, a1, ...
REPLAYED, FULL = "replayed", "full"  # what answer() ran


class Refused(Exception):
    """What the printing or the replay does not take (program.Refused is this class)."""


class OutOfTime(Exception):
    """The worker's budget ran out between two steps."""


def clock(deadline: float | None):
    """A tick(): raises OutOfTime once the deadline (time.monotonic) has passed."""

    def tick() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime

    return tick


def substitute(expr, natural: list, after: int = -1, tick=None):
    """expr with the symbols of the entry targets above `after` replaced by their expressions.

    natural: (node id, symbols, expressions) ascending by id; later entries are substituted
    first, so an entry used inside a later one is replaced in turn.
    """
    for i, symbols, exprs in reversed(natural):
        if i <= after:
            break
        if tick is not None:
            tick()
        expr = expr.xreplace(dict(zip(symbols, exprs)))
    return expr


def differentiate(f, symbols, tick) -> list:
    """d f / d s for each symbol, in order."""
    out = []
    for s in symbols:
        tick()
        out.append(f.diff(s))
    return out


def printed(sp, exprs: list, symbols: list) -> tuple[list[str], dict[str, list[str]]]:
    """The expressions as `lambdify(symbols, exprs, modules="numpy")` prints them (its
    printer and settings, the arguments named a0, a1, ...), and the printer's module
    imports; program.checked_texts then checks every name against numpy."""
    from sympy.printing.numpy import NumPyPrinter

    names = {s: f"a{k}" for k, s in enumerate(symbols)}

    class Printer(NumPyPrinter):
        def _print_Symbol(self, expr):
            if expr not in names:
                raise Refused(f"a free symbol {expr}")
            return names[expr]

        _print_Dummy = _print_Symbol

    printer = Printer(
        {
            "fully_qualified_modules": False,
            "inline": True,
            "allow_unknown_functions": True,
            "user_functions": {},
        }
    )
    texts = [printer.doprint(e) for e in exprs]
    imports = {module: sorted(names) for module, names in printer.module_imports.items()}
    return texts, imports


# --- the command's side: packing the record --------------------------------------------------
def job(traced, problem, values: dict, names) -> dict | None:
    """The record (tracer.Traced) and what differentiating needs, as plain data (names:
    what printed derivatives may call); None when the record holds something a replay
    cannot rebuild."""
    from gradcli.core.graph import INPUT_OP, is_float

    ctx, natural_exprs = traced.ctx, traced.natural
    tracer, graph = ctx.tracer, problem.graph
    arguments = [node.id for node in ctx.bindings(values)]
    targets = []
    for t in problem.wrt:
        if is_float(graph[t].dtype):
            after = -1 if graph[t].op == INPUT_OP else t
            targets.append((after, [s.id for s in ctx.symbols[t].reshape(-1)]))
    natural = []
    for i in sorted(natural_exprs):
        syms = [s.id for s in ctx.symbols[i].reshape(-1)]
        natural.append((i, syms, [tracer.key(e) for e in natural_exprs[i].reshape(-1)]))
    loss = tracer.key(traced.total)
    roots = [n for _, syms in targets for n in syms] + arguments + _ids((loss, natural))
    nodes = []
    for i in tracer.closure(roots):
        key = tracer.nodes[i]
        if key[0].startswith("function ") or not _plain(key):
            return None
        nodes.append((i, key))
    return {
        "nodes": nodes,
        "loss": loss,
        "targets": targets,
        "natural": natural,
        "arguments": arguments,
        "names": sorted(names),
    }


def _ids(key) -> list[int]:
    out, stack = [], [key]
    while stack:
        k = stack.pop()
        if isinstance(k, (tuple, list)):
            if len(k) == 2 and k[0] == "n" and isinstance(k[1], int):
                out.append(k[1])
            else:
                stack.extend(k)
    return out


def _plain(key) -> bool:
    """True when every value in the key is one _value rebuilds exactly: no arrays, and
    numbers of Python's own types (a numpy scalar would reach SymPy as itself)."""
    stack = [key]
    while stack:
        k = stack.pop()
        if isinstance(k, tuple) and k:
            if k[0] == "array":
                return False
            if k[0] in ("i", "f") and len(k) == 3 and k[1] not in ("int", "float"):
                return False
            stack.extend(k)
    return True


# --- the worker's side: rebuilding, differentiating, printing ------------------------------
def derivatives(job: dict, *, deadline: float | None = None) -> tuple[int, list, dict]:
    """(argument count, the derivatives printed, the printer's imports), targets in order."""
    import sympy as sp

    tick = clock(deadline)
    built: dict[int, object] = {}
    for count, (i, key) in enumerate(job["nodes"]):
        if count % 256 == 0:
            tick()
        built[i] = _build(sp, key, built)
    natural = [
        (i, [built[s] for s in syms], [_value(e, built) for e in exprs])
        for i, syms, exprs in job["natural"]
    ]
    total = _value(job["loss"], built)
    full = substitute(total, natural, tick=tick)
    flat = []
    for after, syms in job["targets"]:
        f = full if after < 0 else substitute(total, natural, after, tick)
        flat += differentiate(f, [built[s] for s in syms], tick)
    # sympy_translation's Context.expand, without custom applications (never recorded)
    expanded = []
    for e in flat:
        tick()
        expanded.append(sp.sympify(e).xreplace({sp.zoo: sp.nan}))
    arguments = [built[s] for s in job["arguments"]]
    texts, imports = printed(sp, expanded, arguments)
    _names_known(texts, set(job["names"]))
    return len(arguments), texts, imports


def _names_known(texts: list[str], known: set) -> None:
    """Refuse (here, where the full job can still run) a text calling a name program.py
    does not have: what program.checked_texts would refuse in the command's process."""
    import ast

    for text in texts:
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise Refused("printed text that is not an expression") from None
        for node in ast.walk(tree):
            name = node.id if isinstance(node, ast.Name) else None
            if name is not None and name not in known and not ARG_NAME.fullmatch(name):
                raise Refused(f"unknown name {name}")


def answer(payload: dict, full, *, deadline: float | None = None) -> tuple[str, object]:
    """(REPLAYED, derivatives(payload)), or (FULL, the full job's result) when the replay
    refuses: full is that job (run.py's work), or its pickle from the command's process."""
    try:
        return REPLAYED, derivatives(payload, deadline=deadline)
    except Refused:
        pass
    if isinstance(full, bytes):
        import pickle

        full = pickle.loads(full)  # our parent's own bytes, as a whole job would be
    return FULL, full(deadline=deadline)


def _build(sp, key: tuple, built: dict):
    op = key[0]
    if op == "name":
        obj = sp
        for part in key[1].split("."):
            obj = getattr(obj, part)
        return obj
    args = [_value(a, built) for a in key[1]]
    kwargs = {k: _value(v, built) for k, v in key[2]} if len(key) > 2 else {}
    if op == "call":
        return args[0](*args[1:], **kwargs)
    if op.startswith(ATTR):
        return getattr(args[0], op[len(ATTR) :])
    if op in OPERATORS:
        return OPERATORS[op](*args)
    raise Refused(f"a recorded {op}")


def _value(key: tuple, built: dict):
    """A recorded argument back as the value the translation passed."""
    kind = key[0]
    if kind == "n":
        return built[key[1]]
    if kind == "b":
        return key[1]
    if kind == "i":
        return int(key[2])
    if kind == "f":
        return float.fromhex(key[2])
    if kind == "s":
        return key[1]
    if kind == "none":
        return None
    if kind == "seq":
        return SEQUENCES[key[1]](_value(k, built) for k in key[2])
    raise Refused(f"a recorded {kind}")
