"""SymPy's derivatives as plain text, and their values at a point without SymPy.

The check's numbers are SymPy's derivatives printed as `lambdify(..., modules="numpy")`
prints them (`from_sympy`: its printer and settings, nothing compiled): one expression of
gradcli's expression language per derivative (the arguments named a0, a1, ...), checked so
that every name it calls is one of the functions listed here and the very object
lambdify's namespace binds it to. For what that refuses, the check falls back to lambdify
itself, and `from_lambdified` reads the generated code the same way. `parse` reads such
text back with gradcli's own parser (gradcli/spec/expression.py) and refuses anything
else: unknown names, attribute access, keywords other than select's `default`, arguments
out of range. `evaluate` walks the parsed expressions and applies the same Python
operators and numpy functions to the same float64 scalars, in the same order, as the
lambdified code would.

Nothing is ever run as code: text is parsed, and the only calls are to the table below.
"""

from __future__ import annotations

import math
import operator
from functools import reduce

import numpy as np

from gradcli.check import replay
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec import expression as ex

# the names lambdify's numpy namespace binds, and the objects they must be
FUNCTIONS: dict[str, object] = {
    name: getattr(np, name)
    for name in (
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "sqrt",
        "cbrt",
        "sin",
        "cos",
        "tan",
        "arcsin",
        "arccos",
        "arctan",
        "arctan2",
        "sinh",
        "cosh",
        "tanh",
        "arcsinh",
        "arccosh",
        "arctanh",
        "sign",
        "floor",
        "ceil",
        "heaviside",
        "maximum",
        "minimum",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "equal",
        "not_equal",
        "logical_and",
        "logical_or",
        "logical_not",
        "select",
        "hypot",
        "power",
        "mod",
        "sinc",
    )
}
FUNCTIONS["abs"] = np.absolute
FUNCTIONS["erf"] = math.erf
FUNCTIONS["erfc"] = math.erfc
FUNCTIONS["gamma"] = math.gamma
FUNCTIONS["lgamma"] = math.lgamma
FUNCTIONS["reduce"] = reduce
# functions passed as values (reduce(maximum, [...])), not called by name
VALUES_ONLY = {"maximum", "minimum"}
CONSTANTS: dict[str, object] = {
    "pi": math.pi,
    "e": math.e,
    "euler_gamma": float(np.euler_gamma),
    "nan": math.nan,
    "inf": math.inf,
    "True": True,
    "False": False,
}
ARITY = {"select": (2, 2), "reduce": (2, 2), "heaviside": (2, 2), "arctan2": (2, 2)}
BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
BINARY["**"] = operator.pow
UNARY = {"-": operator.neg, "+": operator.pos}
MAX_INT = 10**18 - 1  # the parser reads integer literals of up to 18 digits as integers
_ARG = replay.ARG_NAME
DEPTH = 200  # nesting of one expression (the parser's default max_depth)


Refused = replay.Refused  # code or text that is not a program this module reads


# --- writing (printed in the SymPy worker, checked here) -------------------------------------
def from_sympy(sp, exprs: list, symbols: list) -> list[str]:
    """One gradcli expression per SymPy expression, printed as `lambdify(symbols, exprs,
    modules="numpy")` prints them (the same printer and settings) but without compiling
    anything: the arguments are named a0, a1, ... in `symbols`' order, and every function
    name must be bound, as lambdify's namespace would bind it, to the function listed here."""
    texts, imports = replay.printed(sp, exprs, symbols)
    return checked_texts(texts, imports, len(symbols))


def checked_texts(texts: list[str], module_imports: dict, nargs: int) -> list[str]:
    """Printed derivatives (replay.printed) as gradcli expressions: every name checked
    against what lambdify's namespace would bind it to, every text read back."""
    import ast

    namespace = _lambdify_namespace(module_imports)
    args = {f"a{k}": f"a{k}" for k in range(nargs)}
    return [_checked(ast, ast.parse(text, mode="eval").body, args, namespace) for text in texts]


def _lambdify_namespace(module_imports) -> dict:
    """What lambdify's numpy namespace binds the table's names to: numpy's public names
    first, then the printer's `from module import name` for names numpy lacks."""
    import importlib

    public = set(getattr(np, "__all__", ()))
    namespace = {n: getattr(np, n) for n in (*FUNCTIONS, *CONSTANTS) if n in public}
    for module, keys in module_imports.items():
        if module not in ("numpy", "math"):
            continue
        mod = importlib.import_module(module)
        for k in keys:
            if k not in namespace and hasattr(mod, k):
                namespace[k] = getattr(mod, k)
    return namespace


def from_lambdified(fn, source: str) -> list[str]:
    """One gradcli expression per element of the list a lambdified function returns."""
    import ast

    tree = ast.parse(source)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise Refused("not one function")
    fdef = tree.body[0]
    if len(fdef.body) != 1 or not isinstance(fdef.body[0], ast.Return):
        raise Refused("not a single return")
    value = fdef.body[0].value
    if not isinstance(value, ast.List):
        raise Refused("not a list")
    args = {a.arg: f"a{k}" for k, a in enumerate(fdef.args.args)}
    return [_checked(ast, element, args, fn.__globals__) for element in value.elts]


def _checked(ast, element, args: dict, namespace: dict) -> str:
    """The element as gradcli text, its names checked and its reading back verified."""
    _rename(ast, element, args, namespace)
    text = ast.unparse(element)
    if not _same(ast, element, _parse_text(text)):
        raise Refused("the text does not read back as the same expression")
    return text


def _rename(ast, root, args: dict, namespace: dict) -> None:
    """Name the arguments a0, a1, ...; refuse any construct or name outside the table."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if node.id in args:
                node.id = args[node.id]
            elif node.id in FUNCTIONS:
                if namespace.get(node.id) is not FUNCTIONS[node.id]:
                    raise Refused(f"{node.id} is bound to another function")
            elif node.id in CONSTANTS:
                bound = namespace.get(node.id)
                want = CONSTANTS[node.id]
                if not (bound == want or (bound != bound and want != want)):
                    raise Refused(f"{node.id} is bound to another value")
            else:
                raise Refused(f"unknown name {node.id}")
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                continue  # select's True
            if not isinstance(v, (int, float)):
                raise Refused(f"constant {v!r}")
            if isinstance(v, int) and abs(v) > MAX_INT:
                raise Refused("an integer too long for the parser")
            if isinstance(v, float) and not math.isfinite(v):
                raise Refused("a non-finite literal")
        elif isinstance(node, ast.BinOp):
            if type(node.op).__name__ not in ("Add", "Sub", "Mult", "Div", "Pow"):
                raise Refused(f"operator {type(node.op).__name__}")
            stack += [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            if type(node.op).__name__ not in ("USub", "UAdd"):
                raise Refused(f"operator {type(node.op).__name__}")
            stack.append(node.operand)
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise Refused("a call of something other than a name")
            if any(k.arg != "default" for k in node.keywords):
                raise Refused("a keyword argument")
            stack += [node.func, *node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.List):
            stack += node.elts
        else:
            raise Refused(f"construct {type(node).__name__}")


def _same(ast, py, ours) -> bool:
    """True when gradcli's parse of the text is the Python expression, node for node."""
    ops = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "Pow": "**", "USub": "-"}
    ops["UAdd"] = "+"
    stack = [(py, ours)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, ast.Name):
            if not (isinstance(b, ex.Name) and b.id == a.id):
                return False
        elif isinstance(a, ast.Constant):
            if a.value is True or a.value is False:
                if not (isinstance(b, ex.Name) and b.id == str(a.value)):
                    return False
            elif (
                not (isinstance(b, ex.Num) and type(b.value) is type(a.value)) or b.value != a.value
            ):
                return False
        elif isinstance(a, ast.BinOp):
            if not (isinstance(b, ex.Binary) and b.op == ops[type(a.op).__name__]):
                return False
            stack += [(a.left, b.left), (a.right, b.right)]
        elif isinstance(a, ast.UnaryOp):
            if not (isinstance(b, ex.Unary) and b.op == ops[type(a.op).__name__]):
                return False
            stack.append((a.operand, b.operand))
        elif isinstance(a, ast.Call):
            if not (isinstance(b, ex.Call) and b.func == a.func.id):
                return False
            if len(a.args) != len(b.args) or len(a.keywords) != len(b.kwargs):
                return False
            stack += list(zip(a.args, b.args))
            for ka, kb in zip(a.keywords, b.kwargs):
                if ka.arg != kb.name:
                    return False
                stack.append((ka.value, kb.value))
        elif isinstance(a, ast.List):
            if not (isinstance(b, ex.List) and len(a.elts) == len(b.items)):
                return False
            stack += list(zip(a.elts, b.items))
        else:
            return False
    return True


# --- reading ---------------------------------------------------------------------------------
def _parse_text(text: str):
    parser = ex.Parser(text, lambda line, col: Pos("<cache>", line, col))
    parser.max_depth = DEPTH
    try:
        return parser.parse()
    except (GradcliError, RecursionError) as exc:
        raise Refused(f"unreadable expression ({exc})") from None


def parse(text: str, nargs: int):
    """One stored expression, parsed and checked: only known names, arguments below nargs."""
    tree = _parse_text(text)
    stack = [(tree, False)]
    while stack:
        node, in_call = stack.pop()
        if isinstance(node, ex.Num):
            if isinstance(node.value, float) and not math.isfinite(node.value):
                raise Refused("a non-finite literal")
        elif isinstance(node, ex.Name):
            if node.id in CONSTANTS:
                continue
            if node.id in VALUES_ONLY and in_call:
                continue
            if _ARG.fullmatch(node.id) and int(node.id[1:]) < nargs:
                continue
            raise Refused(f"unknown name {node.id}")
        elif isinstance(node, ex.Binary):
            if node.op not in BINARY:
                raise Refused(f"operator {node.op}")
            stack += [(node.left, False), (node.right, False)]
        elif isinstance(node, ex.Unary):
            stack.append((node.operand, False))
        elif isinstance(node, ex.Call):
            fn = FUNCTIONS.get(node.func)
            if fn is None or node.func in VALUES_ONLY:
                raise Refused(f"unknown function {node.func}")
            lo, hi = ARITY.get(node.func, (1, 2))
            if not lo <= len(node.args) <= hi:
                raise Refused(f"{node.func} with {len(node.args)} arguments")
            if any(k.name != "default" or node.func != "select" for k in node.kwargs):
                raise Refused("a keyword argument")
            passes = node.func == "reduce"
            stack += [(a, passes) for a in node.args]
            stack += [(k.value, False) for k in node.kwargs]
        elif isinstance(node, ex.List):
            stack += [(item, False) for item in node.items]
        else:
            raise Refused(f"construct {type(node).__name__}")
    return tree


def evaluate(tree, args: list):
    """The expression's value for these arguments (numpy float64 scalars), as Python would
    compute the lambdified code: the same operators and functions in the same order."""
    stack: list = [(tree, False)]
    results: list = []
    while stack:
        node, ready = stack.pop()
        if isinstance(node, ex.Num):
            results.append(node.value)
        elif isinstance(node, ex.Name):
            if node.id in CONSTANTS:
                results.append(CONSTANTS[node.id])
            elif node.id in FUNCTIONS:
                results.append(FUNCTIONS[node.id])
            else:
                results.append(args[int(node.id[1:])])
        elif not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(_children(node)))
        else:
            n = len(_children(node))
            values = results[len(results) - n :]
            del results[len(results) - n :]
            results.append(_apply(node, values))
    return results[0]


def _children(node) -> list:
    if isinstance(node, ex.Binary):
        return [node.left, node.right]
    if isinstance(node, ex.Unary):
        return [node.operand]
    if isinstance(node, ex.Call):
        return [*node.args, *(k.value for k in node.kwargs)]
    if isinstance(node, ex.List):
        return list(node.items)
    raise Refused(f"construct {type(node).__name__}")


def _apply(node, values: list):
    if isinstance(node, ex.Binary):
        return BINARY[node.op](values[0], values[1])
    if isinstance(node, ex.Unary):
        return UNARY[node.op](values[0])
    if isinstance(node, ex.List):
        return list(values)
    n = len(node.args)
    kwargs = {k.name: v for k, v in zip(node.kwargs, values[n:])}
    return FUNCTIONS[node.func](*values[:n], **kwargs)


def real(v) -> float:
    """A lambdified value as the check reads it (symbolic._real)."""
    c = complex(v)
    return c.real if c.imag == 0 else float("nan")


def values(trees: list, args: list[float]) -> np.ndarray:
    """Every expression's float64 value at the point (args in lambdify's order)."""
    scalars = [np.float64(a) for a in args]
    with np.errstate(all="ignore"):
        return np.array([real(evaluate(t, scalars)) for t in trees], dtype=np.float64)
