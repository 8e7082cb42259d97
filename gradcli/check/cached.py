"""Looking SymPy's derivatives up in the cache, and storing them after a miss.

The entry's key hashes the forward graph's structure (structure_key); within the entry,
a variant is used only under the same translation fingerprint (tracer.py), and its
expressions are parsed and checked (program.py) before they are evaluated at the point.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from gradcli import __version__
from gradcli.check import program, tracer
from gradcli.check.cache import HEADER, MAX_VARIANTS, Variant, sympy_version
from gradcli.core.graph import GRADIENT, INPUT_OP, is_float

_VALUE_ATTRS = ("taken",)  # attributes the evaluation sets from values (cond's branch)


class Uncacheable(Exception):
    """The graph holds something the key cannot describe (a function, an object)."""


@dataclass
class Lookup:
    """What a lookup found: the derivatives' values at the point (None on a miss), and what
    storing the derivatives computed after a miss needs."""

    key: str
    fingerprint: str
    variants: list[Variant]  # the entry's other variants, kept when it is rewritten
    targets: list[tuple[int, int]]
    nargs: int
    gradients: dict | None


def lookup(cache, problem, values: dict, traced=None) -> Lookup | None:
    """The cache's answer for this problem at this point (traced: tracer.trace's record,
    when the caller has it); None when it cannot be cached."""
    version = sympy_version()
    if version is None:
        return None
    try:
        key = structure_key(problem, version)
    except (Uncacheable, RecursionError):
        return None
    traced = traced or tracer.trace(problem, values)
    if traced is None:
        return None
    fingerprint = traced.digest
    graph = problem.graph
    targets = float_targets(problem)
    args = list(traced.ctx.bindings(values).values())
    variants = cache.read(key)
    others = [v for v in variants if v.fingerprint != fingerprint]
    found = None
    for v in variants:
        if v.fingerprint == fingerprint:
            found = evaluate(v, graph, targets, args)
            break
    if found is not None:
        cache.touch(key)
    return Lookup(key, fingerprint, others, targets, len(args), found)


def float_targets(problem) -> list[tuple[int, int]]:
    """(node id, size) of the targets SymPy differentiates by, in order."""
    graph = problem.graph
    return [(t, graph[t].size) for t in problem.wrt if is_float(graph[t].dtype)]


def evaluate(v: Variant, graph, targets, args) -> dict | None:
    """The variant's derivatives at the point, or None when it does not fit or read."""
    if v.nargs != len(args) or v.targets != targets:
        return None
    if len(v.exprs) != sum(size for _, size in targets):
        return None
    try:
        trees = [program.parse(text, v.nargs) for text in v.exprs]
        numbers = program.values(trees, args)
    except program.Refused:
        return None
    except Exception:  # what lambdify's code would raise here too: SymPy then reports it
        return None
    out, start = {}, 0
    for t, size in targets:
        out[t] = numbers[start : start + size].reshape(graph[t].shape)
        start += size
    return out


def store(cache, look: Lookup, result: dict, hint: str | None) -> bool:
    """Write the derivatives SymPy computed after a miss (when they came as a program)."""
    made = result.get("program") if isinstance(result, dict) else None
    if made is None:
        return False
    nargs, texts = made
    if nargs != look.nargs or len(texts) != sum(size for _, size in look.targets):
        return False
    new = Variant(look.fingerprint, nargs, look.targets, list(texts))
    if not cache.write(look.key, [new, *look.variants][:MAX_VARIANTS]):
        return False
    if hint is not None:
        cache.hint(hint)
    return True


def structure_key(problem, sympy: str) -> str:
    """The hash of the forward graph without its input values, and of the versions."""
    h = hashlib.sha256(f"{HEADER}\ngradcli {__version__}\nsympy {sympy}\n".encode())
    for node in problem.graph.nodes:
        if node.kind == GRADIENT:
            continue
        attrs = {
            k: v
            for k, v in node.attrs.items()
            if k not in _VALUE_ATTRS and not (k == "value" and node.op == INPUT_OP)
        }
        record = (node.id, node.op, node.inputs, node.shape, node.dtype, node.kind, node.name)
        h.update(repr((record, node.diff, _canon(attrs))).encode())
        h.update(b"\n")
    seeds = [None if s is None else np.shape(s) for s in problem.seeds]
    h.update(repr((problem.outputs, problem.wrt, seeds)).encode())
    return h.hexdigest()


def _canon(value, depth: int = 0):
    """A value as plain data for the key (arrays by dtype, shape and a hash of their bytes)."""
    if depth > 20:
        raise Uncacheable("nested too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return ("float", value.hex() if math.isfinite(value) else repr(value))
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise Uncacheable("an object array")
        data = np.ascontiguousarray(value).tobytes()
        return ("array", value.dtype.str, value.shape, hashlib.sha256(data).hexdigest())
    if isinstance(value, np.generic):
        return _canon(np.asarray(value), depth + 1)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_canon(v, depth + 1) for v in value))
    if isinstance(value, dict):
        items = sorted(((repr(k), _canon(v, depth + 1)) for k, v in value.items()))
        return ("dict", tuple(items))
    if isinstance(value, slice):
        return ("slice", _canon((value.start, value.stop, value.step), depth + 1))
    if value is Ellipsis:
        return ("...",)
    raise Uncacheable(type(value).__name__)
