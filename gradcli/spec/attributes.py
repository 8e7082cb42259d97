"""Constant arguments of calls: literals, attribute values, integers, and their positions."""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import (
    MAX_RANK,
)
from gradcli.core.ops import Attr, AttrKind
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec import expression as ast

# what a missing required attribute looks like when given (the error's example)
REQUIRED_EXAMPLE = {
    AttrKind.INTS: "{op}(x, [2, 3])",
    AttrKind.DTYPE: "{op}(x, 'float32')",
    AttrKind.STR: "{op}('...', x)",
    AttrKind.AXIS: "{op}(x, {name}=3)",
    AttrKind.AXES: "{op}(x, {name}=0)",
    AttrKind.FLOAT: "{op}(x, {name}=0.5)",
    AttrKind.NUMBER: "{op}(x, {name}=-inf)",
    AttrKind.BOOL: "{op}(x, {name}=true)",
    AttrKind.NUMBER_OR_STR: "{op}(x, {name}=1)",
    AttrKind.NESTED: "{op}(x, {name}=[[1, 1]])",
    AttrKind.TENSOR: "{op}([2], {name}=0.5)",
}


class Lit:
    """A literal whose dtype is decided by the tensor it meets (a weakly typed constant)."""

    __slots__ = ("pos", "value")

    def __init__(self, value: np.ndarray, pos: Pos):
        self.value = value
        self.pos = pos


class Seq:
    """A list expression before it is known whether it is a tensor or a list of tensors."""

    __slots__ = ("items", "pos")

    def __init__(self, items: list, pos: Pos):
        self.items = items
        self.pos = pos


class Group:
    """The outputs of a multi-output op (split, moments): unpacked by an entry or indexed."""

    __slots__ = ("ids", "op", "pos")

    def __init__(self, ids: list[int], op: str, pos: Pos):
        self.ids = ids
        self.op = op
        self.pos = pos

    def refuse(self) -> GradcliError:
        """The error for a group used where one tensor is needed."""
        n = len(self.ids)
        if n == 1:  # an entry of its own names it; inside an expression it is indexed
            return GradcliError(
                f"{self.op}(...) gives a list of 1 tensor: index it ({self.op}(...)[0]) or "
                f"name it in a graph entry of its own (a: {self.op}(...))",
                self.pos,
            )
        names = ", ".join("abcdefgh"[: min(n, 3)]) + (", ..." if n > 3 else "")
        return GradcliError(
            f"{self.op}(...) gives {n} tensor{'s' * (n != 1)}: unpack them in a graph entry "
            f"({names}: {self.op}(...)) or index one ({self.op}(...)[0])",
            self.pos,
        )


class _NoIndex:
    """An op seen without its index inputs (prepare applies `accepts` to the others)."""

    index_inputs = ()

    def __init__(self, op):
        self.name, self.accepts = op.name, op.accepts


def _check_list_depth(seq: Seq) -> None:
    """Refuse a list expression nested deeper than a tensor's rank can be (iteratively)."""
    stack = [(seq, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_RANK:
            raise GradcliError(
                f"a list nested more than {MAX_RANK} levels deep (a tensor has at most "
                f"{MAX_RANK} dimensions)",
                item.pos,
            )
        stack.extend((v, depth + 1) for v in item.items if isinstance(v, Seq))


def _pos_of(tree) -> Pos | None:
    return getattr(tree, "pos", None)


def _integral(value: np.ndarray) -> bool:
    v = np.asarray(value)
    return v.dtype == bool or bool(np.all(np.isfinite(v) & (v == np.round(v))))


def _describe(value) -> str:
    if isinstance(value, Group):
        return f"the {len(value.ids)} outputs of {value.op}"
    if isinstance(value, ast.Str):
        return f"the string '{value.value}'"
    if isinstance(value, slice):
        return "a slice"
    return type(value).__name__


def _constant_int(value, what: str, pos: Pos) -> int:
    if (
        isinstance(value, Lit)
        and value.value.shape == ()
        and _integral(value.value)
        and value.value.dtype != bool
    ):
        number = int(value.value)
        if abs(number) >= 2**62:  # numpy's shape and index arithmetic is 64-bit
            raise GradcliError(f"{what} is too large: {number:.3g}", pos)
        return number
    raise GradcliError(f"{what} must be a constant integer", pos)


def _attribute(opname: str, attr: Attr, value, pos: Pos):
    """A call's attribute (axis=, keepdims=, shape=, dtype=...) as a plain Python value."""
    name, kind = attr.name, attr.kind
    if kind is AttrKind.STR:
        if not isinstance(value, ast.Str):
            raise GradcliError(f"{opname}: {name} must be a string", pos)
        return value.value
    if kind is AttrKind.NUMBER_OR_STR:
        if isinstance(value, ast.Str):
            return value.value
        number = value.value if isinstance(value, Lit) else None
        if number is not None and number.shape == () and number.dtype != bool:
            return float(number)
        raise GradcliError(f"{opname}: {name} must be {kind.value}", pos)
    if kind is AttrKind.DTYPE:
        if not isinstance(value, ast.Str):
            raise GradcliError(f"{opname}: dtype must be a string such as 'float32'", pos)
        return value.value
    if isinstance(value, ast.Str):
        raise GradcliError(f"{opname}: {name} must be a constant, not a string", pos)
    if kind is AttrKind.BOOL:
        if isinstance(value, Lit) and value.value.shape == () and value.value in (0, 1):
            return bool(value.value)  # true, false, 1 or 0
        raise GradcliError(f"{opname}: {name} must be true or false", pos)
    if kind in (AttrKind.FLOAT, AttrKind.NUMBER):
        number = value.value if isinstance(value, Lit) else None
        if (
            number is not None
            and number.shape == ()
            and number.dtype != bool
            and (kind is AttrKind.NUMBER or np.isfinite(number))
        ):
            return float(number)
        raise GradcliError(f"{opname}: {name} must be {kind.value}", pos)
    if kind is AttrKind.NESTED:
        return _nested_ints(opname, attr, value, pos)
    # AXES, AXIS, INTS: an integer (an axis) or a list of integers
    if isinstance(value, Lit) and value.value.shape == () and kind is not AttrKind.INTS:
        return _constant_int(value, f"{opname}: {name}", pos)
    if kind is AttrKind.AXIS:
        raise GradcliError(f"{opname}: {name} must be one integer", pos)
    if isinstance(value, Seq):
        items = value.items
        if all(isinstance(v, Lit) and v.value.shape == () for v in items):
            if name == "shape" and len(items) > MAX_RANK:
                raise GradcliError(
                    f"{opname}: a shape has at most {MAX_RANK} dimensions, got {len(items)}", pos
                )
            return [_constant_int(v, f"{opname}: {name}", pos) for v in items]
    if isinstance(value, Lit) and value.value.ndim == 1 and value.value.size == 0:
        return []
    raise GradcliError(f"{opname}: {name} must be {kind.value}", pos)


def _nested_ints(opname: str, attr: Attr, value, pos: Pos):
    """An integer, or a list whose items are integers or lists of integers (two levels)."""
    what = f"{opname}: {attr.name}"
    if isinstance(value, Lit) and value.value.shape == ():
        return _constant_int(value, what, pos)
    if not isinstance(value, Seq):
        raise GradcliError(f"{what} must be {attr.kind.value}", pos)
    out: list = []
    for item in value.items:
        if isinstance(item, Lit) and item.value.shape == ():
            out.append(_constant_int(item, what, pos))
        elif isinstance(item, Seq) and all(
            isinstance(v, Lit) and v.value.shape == () for v in item.items
        ):
            out.append([_constant_int(v, what, pos) for v in item.items])
        else:
            raise GradcliError(f"{what} must be {attr.kind.value}", pos)
    return out
