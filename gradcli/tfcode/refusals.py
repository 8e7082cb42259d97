"""What gradcli's TensorFlow reader refuses, and how refusals are collected and reported.

The reader never runs the user's code: it only walks `ast` nodes. Everything it cannot read
is refused at its line and column with the construct named; refusals are collected (the
interpreter continues where it can) and reported together as one error.
"""

from __future__ import annotations

import ast

from gradcli.runtime.errors import MAX_MESSAGE, GradcliError, Pos

SUFFIX = "is not supported by gradcli's TensorFlow reader"
# names whose call would run code, read files or reach the interpreter's internals
RUNS_CODE = {
    "__import__", "exec", "eval", "compile", "open", "getattr", "setattr", "delattr",
    "globals", "locals", "vars", "input", "breakpoint", "exit", "quit", "help", "memoryview",
}  # fmt: skip
IMPORTABLE = ("tensorflow", "numpy")  # and their submodules
# modules that run processes, load code or touch files: importing one is refused outright.
# Any other module (the user's own `from mymodel import f`, a plotting library) is never
# imported either: its names are opaque values (values.Opaque), unknown beyond their use.
SYSTEM = {
    "os", "sys", "subprocess", "shutil", "importlib", "pickle", "ctypes", "socket",
    "multiprocessing", "threading", "runpy", "builtins", "pathlib", "io", "tempfile",
    "signal", "glob", "marshal", "shelve", "code", "pty", "asyncio", "urllib", "http",
    "requests", "dill", "joblib", "cloudpickle", "inspect", "gc",
}  # fmt: skip
# Python statements and expressions outside the subset (named in refusals)
STATEMENTS = {
    ast.ClassDef: "a class definition", ast.Try: "try/except",
    ast.Raise: "raise", ast.Global: "global", ast.Nonlocal: "nonlocal",
    ast.AsyncFunctionDef: "async def", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.Match: "match",
}  # fmt: skip
EXPRESSIONS = {
    ast.SetComp: "a set comprehension",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from",
    ast.NamedExpr: "the := operator", ast.Set: "a set", ast.Starred: "*-unpacking",
}  # fmt: skip


def run_hint(file: str) -> str:
    """How to read a refused file anyway: by running it under TensorFlow (--run)."""
    shown = file if file.endswith(".py") and not file.startswith("<") else "FILE.py"
    return f"read it by running it: gradcli explain --run {shown} (needs TensorFlow)"


def with_run_hint(message: str, file: str) -> str:
    """A refusal's message ending with how to read the file with --run (once)."""
    return message if "--run" in message else f"{message}; {run_hint(file)}"


# why the reader refuses where it would otherwise report an error TensorFlow 2.21 was not seen
# to raise with that text (tests/data/tf_errors.json records what TensorFlow really does)
UNRECORDED = "no recorded TensorFlow 2.21 run shows what TensorFlow says here"

# why a gradient after an optimizer's update is refused (keras/training.py, calls.py)
AFTER_UPDATE = (
    "TensorFlow computes it at the updated values and gradcli does not train, so every "
    "number can differ, and where an update writes NaN or Inf the diagnosis too"
)
SYSTEM_WHY = (
    "a module that runs processes, loads code or touches files; refused (nothing is "
    "imported or run)"
)


class Refusals:
    """Refusals collected while reading one file; raise() reports them all at once."""

    def __init__(self, file: str):
        self.file = file
        self.items: list[tuple[Pos, str]] = []
        self._seen: set[tuple[int, int]] = set()

    def add(self, node, message: str) -> None:
        """Refuse at node's position (the first refusal at one position wins)."""
        pos = pos_of(self.file, node)
        key = (pos.line, pos.col)
        if key in self._seen:
            return
        self._seen.add(key)
        self.items.append((pos, message))

    def unsupported(self, node, construct: str, hint: str = "") -> None:
        self.add(node, f"{construct} {SUFFIX}" + (f" ({hint})" if hint else ""))

    def __bool__(self) -> bool:
        return bool(self.items)

    def error(self) -> GradcliError:
        items = sorted(self.items, key=lambda it: (it[0].line, it[0].col))
        if len(items) == 1:
            return GradcliError(with_run_hint(items[0][1], self.file), items[0][0])
        head = (
            f"{len(items)} constructs gradcli's TensorFlow reader does not read (nothing was run)"
        )
        # as many as the one error line holds with its position, head and --run hint whole
        room = MAX_MESSAGE - len(head) - len(run_hint(self.file)) - len(str(items[0][0])) - 40
        parts = [f"line {p.line}:{p.col}: {m}" for p, m in items]
        shown, used = 1, len(parts[0])
        while shown < len(parts) and used + 2 + len(parts[shown]) <= room:
            used += 2 + len(parts[shown])
            shown += 1
        listed = "; ".join(parts[:shown])
        if shown < len(parts):
            listed += f"; and {len(parts) - shown} more"
        return GradcliError(with_run_hint(f"{head}: {listed}", self.file), items[0][0])


def pos_of(file: str, node) -> Pos:
    return Pos(file, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1)


def scan(tree: ast.Module, refusals: Refusals) -> None:
    """Refuse, before anything is interpreted, every construct that would run code."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in SYSTEM:
                    refusals.add(node, f"import {alias.name}: {SYSTEM_WHY}")
        elif isinstance(node, ast.ImportFrom):
            module = f"{'.' * node.level}{node.module or ''}"
            top = (node.module or "").split(".")[0]
            if not node.level and top in SYSTEM:
                refusals.add(node, f"from {module} import ...: {SYSTEM_WHY}")
            elif (top not in IMPORTABLE or node.level) and any(a.name == "*" for a in node.names):
                refusals.add(
                    node,
                    f"from {module} import *: gradcli does not read {module}, so it cannot "
                    "know the names this binds",
                )
        elif isinstance(node, ast.Name) and node.id in RUNS_CODE:
            refusals.add(node, f"{node.id} would run code or touch files; it is refused")
        elif (
            isinstance(node, ast.Attribute) and node.attr.startswith("__") and not _super_init(node)
        ):
            refusals.add(node, f"the attribute {node.attr} {SUFFIX}")


def _super_init(node: ast.Attribute) -> bool:
    """super().__init__: the one dunder attribute read (a class's base initialiser)."""
    value = node.value
    return (
        node.attr == "__init__"
        and isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    )
