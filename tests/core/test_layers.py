"""The packages import one way: runtime <- core <- spec <- explain | check <- views <- cli,
with the run mode's capture (a front end whose diagnosis speaks explain's vocabulary)
between explain and the views."""

import ast
from pathlib import Path

import gradcli

PACKAGE = Path(gradcli.__file__).resolve().parent
# each layer and the layers it may import (besides itself)
ALLOWED = {
    "runtime": set(),
    "core": {"runtime"},
    "spec": {"runtime", "core"},
    "tfcode": {"runtime", "core"},
    "explain": {"runtime", "core", "spec", "tfcode"},
    "check": {"runtime", "core", "spec", "tfcode"},
    "capture": {"runtime", "core", "tfcode", "explain"},  # tfcode: TensorFlow's op table
    "views": {"runtime", "core", "spec", "tfcode", "explain", "check", "capture"},
    "cli": {"runtime", "core", "spec", "tfcode", "explain", "check", "views", "capture"},
    "api": {"runtime", "core", "spec", "tfcode", "explain", "check"},
}
# third-party packages only some layers may import
ONLY = {"sympy": {"check"}, "rich": {"views", "cli"}, "click": {"cli"}, "torch": {"capture"},
        "tensorflow": {"capture"}}  # fmt: skip


def layer_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def test_every_import_goes_down_the_layers():
    wrong = []
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 40, PACKAGE  # the package was found
    for path in modules:
        layer = layer_of(path)
        if layer not in ALLOWED:
            continue  # gradcli/__init__.py, __main__.py
        for line, module in imports(path):
            top, _, rest = module.partition(".")
            if top == "gradcli" and rest:
                target = rest.split(".")[0]
                if target != layer and target not in ALLOWED[layer]:
                    wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {module}")
            elif top in ONLY and layer not in ONLY[top]:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_every_module_belongs_to_a_layer():
    stray = [
        p.name
        for p in PACKAGE.glob("*.py")
        if p.stem not in ALLOWED and p.name not in ("__init__.py", "__main__.py")
    ]
    assert not stray, stray
