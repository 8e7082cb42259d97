"""The spec document model and the YAML node reader every section reads through.

Specs are composed with PyYAML's safe loader into position-carrying nodes (safe_yaml.py)
and read by hand here: only plain scalars, lists and mappings are accepted, a key given
twice is an error (PyYAML would keep the last one silently), object-constructing tags are
refused, and aliases may not expand into more values than the file could plausibly hold.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from gradcli.core.graph import MAX_RANK
from gradcli.core.problem import NONE
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos
from gradcli.spec import numbers
from gradcli.spec.lowering import CONSTANTS, Function

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
TOP_KEYS = (
    "inputs",
    "functions",
    "graph",
    "outputs",
    "wrt",
    "grad_ys",
    "unconnected",
    "description",
)
INPUT_KEYS = (
    "value",
    "random",
    "zeros",
    "ones",
    "file",
    "key",
    "dtype",
    "trainable",
    "shape",
    "seed",
    "low",
    "high",
    "mean",
    "std",
)
_YAML_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null")
)
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


@dataclass(slots=True)
class InputSpec:
    name: str
    value: np.ndarray
    dtype: str
    trainable: bool
    pos: Pos


@dataclass(slots=True)
class EntrySpec:
    """One graph entry; `a, b: split(x, 2)` binds each of `targets` to one output."""

    name: str
    tree: object
    pos: Pos
    text: str
    targets: tuple[tuple[str, Pos], ...] = ()  # an unpacking entry's names and positions


@dataclass
class Spec:
    """A parsed spec: inputs with values, functions and graph entries as ASTs, and settings."""

    file: str
    lines: list[str] = field(default_factory=list)
    inputs: dict[str, InputSpec] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)
    entries: list[EntrySpec] = field(default_factory=list)
    outputs: list[tuple[str, Pos]] | None = None
    wrt: list[tuple[str, Pos]] | None = None
    grad_ys: dict[str, tuple[np.ndarray, Pos]] = field(default_factory=dict)
    unconnected: str = NONE
    description: str | None = None


def decode(data: bytes, file: str) -> str:
    """Bytes to text, with a positioned error for binary files and invalid UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise GradcliError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); is this a binary file?",
            Pos(file, line, col),
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise GradcliError(
            "the file contains NUL bytes; is this a binary file?",
            Pos(file, line, nul - text.rfind("\n", 0, nul)),
        )
    return text


class Reader:
    """Reads composed YAML nodes into Python values, with positions for every error."""

    def __init__(self, file: str, text: str):
        import yaml

        self.file = file
        self.text = text
        self.lines = text.splitlines()
        # Work units: one per value read (aliases included), two per expression character
        # parsed. Without aliases a spec spends at most 3 x its length; the slack covers
        # short specs. A billion-laughs file runs out after ~100,000 values, in well under
        # a second.
        self.budget = 4 * len(text) + 100_000
        self.scalars = yaml.constructor.SafeConstructor()
        self.constructors = self.scalars.yaml_constructors

    def pos(self, node) -> Pos:
        mark = node.start_mark
        return Pos(self.file, mark.line + 1, mark.column + 1)

    def error(self, message: str, node) -> GradcliError:
        return GradcliError(message, self.pos(node))

    def spend(self, node, n: int = 1) -> None:
        self.budget -= n
        if self.budget < 0:
            raise LimitError(
                "the YAML expands (through aliases) into too many values", self.pos(node)
            )

    def mapping(self, node, what: str) -> list[tuple[str, object, object]]:
        """(key, key node, value node) triples; duplicate and non-string keys are errors."""
        self.check_tags(node)
        if node.id != "mapping":
            raise self.error(f"{what} must be a mapping (name: value), got {self.kind(node)}", node)
        seen: dict[str, object] = {}
        out = []
        for key_node, value_node in node.value:
            self.spend(key_node)
            if key_node.id == "scalar" and key_node.value == "<<":
                raise self.error("YAML merge keys ('<<') are not supported", key_node)
            if key_node.id != "scalar" or key_node.tag not in (_STR, _INT, _FLOAT, _BOOL, _NULL):
                raise self.error(f"keys in {what} must be names", key_node)
            key = key_node.value
            if key in seen:
                first = self.pos(seen[key])
                raise self.error(
                    f"duplicate key '{key}' in {what} (first at line {first.line})", key_node
                )
            seen[key] = key_node
            out.append((key, key_node, value_node))
        return out

    def kind(self, node) -> str:
        self.check_tags(node)
        if node.id == "scalar":
            value = self.scalar(node)
            if isinstance(value, str):
                return f"the string '{value[:40]}'"
            return "nothing" if value is None else f"the value {value!r}"
        return {"sequence": "a list", "mapping": "a mapping"}.get(node.id, node.id)

    def scalar(self, node):
        """A plain scalar: str, int, float, bool or None; any other tag is refused."""
        self.spend(node)
        if node.id != "scalar":
            raise self.error(f"expected a single value, got {self.kind(node)}", node)
        if node.tag not in (_STR, _INT, _FLOAT, _BOOL, _NULL):
            raise self.tag_error(node)
        try:  # the constructor itself: construct_object would keep every node it saw
            return self.constructors[node.tag](self.scalars, node)
        except Exception:
            if node.tag == _INT and len(node.value) > 100:
                message = f"the integer {_clip(node.value)} has too many digits"
            else:
                message = f"cannot read the value {_clip(node.value)}"
            raise self.error(message, node) from None

    def check_tags(self, node) -> None:
        """Refuse a list or mapping carrying a tag (!!set, !!omap, !!python/..., !custom)."""
        expected = {"sequence": _SEQ, "mapping": _MAP}.get(node.id)
        if expected is not None and node.tag != expected:
            raise self.tag_error(node)

    def tag_error(self, node) -> GradcliError:
        tag = str(node.tag)
        if tag.startswith(_YAML_TAG):
            tag = "!!" + tag[len(_YAML_TAG) :]
        return self.error(
            f"YAML tag '{_clip(tag, 80)[1:-1]}' is not allowed: a spec holds only numbers, "
            "strings, lists and mappings (nothing is constructed or run)",
            node,
        )

    def string(self, node, what: str) -> str:
        if node.id != "scalar":
            raise self.error(f"{what} must be a string, got {self.kind(node)}", node)
        value = self.scalar(node)
        if not isinstance(value, str):
            raise self.error(f"{what} must be a string, got {self.kind(node)}", node)
        return value

    def names(self, node, what: str) -> list[tuple[str, Pos]]:
        """A non-empty list of names, or one string of comma-separated names."""
        if node.id == "sequence":
            self.check_tags(node)
            names = [
                (self.string(item, f"each name in {what}"), self.pos(item)) for item in node.value
            ]
        elif node.id == "mapping":
            raise self.error(f"{what} must be a name or a list of names, got a mapping", node)
        else:
            text = self.string(node, what)
            names = [(part.strip(), self.pos(node)) for part in text.split(",") if part.strip()]
        if not names:
            raise self.error(f"{what} is empty; name at least one, or leave {what} out", node)
        return names

    def number_array(self, node, what: str, dtype: str | None = None) -> np.ndarray:
        """A number or a rectangular nested list of numbers (or booleans) as an array of dtype
        (default: bool for booleans, else float64), each number checked where it is read."""
        flat: list = []
        leaves: list = []
        shape = self._collect(node, flat, leaves, what)
        if any(isinstance(v, bool) for v in flat) and not all(isinstance(v, bool) for v in flat):
            raise self.error(f"{what} mixes booleans and numbers", node)
        if dtype is None:
            dtype = "bool" if flat and isinstance(flat[0], bool) else "float64"
        size = 1
        for d in shape:
            size *= d
        if size > limits.current.max_elements:
            raise LimitError(
                f"{what} has {size:,} elements, over the limit of "
                f"{limits.current.max_elements:,} {limits.advice('max_elements')}",
                self.pos(node),
            )
        for k, v in enumerate(flat):
            try:
                flat[k] = numbers.convert(v, dtype)
            except numbers.NumberError as exc:
                raise self.error(f"{what}: {exc}", leaves[k]) from None
        with np.errstate(over="ignore"):  # 1e300 as float32 is inf, as in TensorFlow
            return np.array(flat, dtype=dtype).reshape(shape)

    def _collect(self, node, flat: list, leaves: list, what: str) -> tuple[int, ...]:
        """Append the leaves of a nested list to flat (values) and leaves (their nodes);
        return its shape (iteratively)."""
        shapes: dict[int, tuple] = {}
        stack = [(node, 0)]
        order = []
        while stack:
            n, depth = stack.pop()
            if depth > MAX_RANK:
                raise self.error(
                    f"{what} is nested more than {MAX_RANK} levels deep (a tensor has at most "
                    f"{MAX_RANK} dimensions)",
                    n,
                )
            if n.id == "sequence":
                self.check_tags(n)
                self.spend(n)
                order.append((n, depth))
                stack.extend((child, depth + 1) for child in reversed(n.value))
            elif n.id == "scalar":
                flat.append(self._number(n, what))
                leaves.append(n)
                order.append((n, depth))
            else:
                raise self.error(f"{what} must be a number or a list of numbers, got a mapping", n)
        for n, _ in reversed(order):  # children before parents: compute each list's shape
            if n.id == "scalar":
                shapes[id(n)] = ()
                continue
            child_shapes = [shapes[id(c)] for c in n.value]
            if not child_shapes:
                shapes[id(n)] = (0,)
                continue
            first = child_shapes[0]
            for k, s in enumerate(child_shapes[1:], start=2):
                if s != first:
                    raise self.error(
                        f"{what} is a ragged nested list: item {k} has shape {_fmt(s)}, "
                        f"item 1 has shape {_fmt(first)}",
                        n.value[k - 1],
                    )
            shapes[id(n)] = (len(child_shapes), *first)
        return shapes[id(node)]

    def _number(self, node, what: str):
        """A leaf as read: a bool, an int (exact) or a float64; 1e400 is too large, not inf."""
        value = self.scalar(node)
        if isinstance(value, (bool, int)):
            return value
        try:
            if isinstance(value, float):
                if math.isinf(value) and not numbers.spells_non_finite(node.value):
                    raise numbers.too_large(node.value)
                return value
            if isinstance(value, str) and _NUMBER_STRING.match(value.strip()):
                return numbers.number_text(value)
        except numbers.NumberError as exc:
            raise self.error(f"{what}: {exc}", node) from None
        raise self.error(
            f"{what} must be a number or a list of numbers, got {self.kind(node)}", node
        )

    def number(self, node, what: str) -> float | int:
        """One number (an int stays an int); YAML 1.1 strings such as 1e20 count as numbers."""
        value = self.scalar(node)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        number = None if isinstance(value, bool) else as_number(value)
        if number is None:
            raise self.error(f"{what} must be a number, got {self.kind(node)}", node)
        return number

    def locator(self, node):
        """Map (line, col) inside an expression scalar to the spec file's line and column.

        A one-line plain or quoted scalar maps by a shift. A block scalar (| or >), a
        multi-line plain or quoted one, or one with escapes is aligned with its source
        text once, on the first position asked for (an error), character by character.
        """
        mark, end = node.start_mark, node.end_mark
        style = node.style
        file = self.file
        one_line = end is not None and mark.line == end.line
        # a plain scalar's style is None from PyYAML's Python parser and "" from libyaml's
        if one_line and (not style or (style == "'" and "''" not in node.value)):
            shift = 1 if style == "'" else 0
            base_line, base_col = mark.line + 1, mark.column + shift

            def locate(line: int, col: int) -> Pos:
                return Pos(file, base_line + line - 1, base_col + col if line == 1 else col)

            locate.shift = (file, base_line, base_col)  # line 1: (file, base_line, base_col + col)
            return locate
        aligned: list = []

        def locate_aligned(line: int, col: int) -> Pos:
            if not aligned:
                aligned.append(_Alignment(self, node))
            return aligned[0].pos(line, col)

        return locate_aligned

    def index_pos(self, index: int) -> Pos:
        """The file position of a character offset into the spec text."""
        if not hasattr(self, "_line_starts"):
            starts = [0]
            find = self.text.find
            k = find("\n")
            while k >= 0:
                starts.append(k + 1)
                k = find("\n", k + 1)
            self._line_starts = starts
        import bisect

        line = bisect.bisect_right(self._line_starts, index) - 1
        return Pos(self.file, line + 1, index - self._line_starts[line] + 1)


_ESCAPE_LENGTH = {"x": 4, "u": 6, "U": 10}


class _Alignment:
    """Each character of a scalar's value paired with the source character it came from.

    The value differs from its source only by folded or stripped whitespace, quote
    doubling ('') and escapes (double quotes), so non-blank characters are matched in
    order; a value character that cannot be matched leaves the rest at the scalar's start.
    """

    def __init__(self, reader: Reader, node):
        self.reader = reader
        text = reader.text
        value = node.value
        start = node.start_mark.index
        stop = node.end_mark.index if node.end_mark is not None else len(text)
        style = node.style
        j = start
        if style in ("|", ">"):  # content starts on the line after the indicator
            j = text.find("\n", start, stop) + 1 or stop
        elif style in ("'", '"'):
            j = start + 1
        self.start = start
        self.where: list[int] = []
        where = self.where
        for c in value:
            k = self._match(text, j, stop, c, style)
            if k is None:
                break
            where.append(k)
            if style == '"' and text[k] == "\\":
                j = k + self._escape_length(text, k)
            else:
                j = k + 2 if style == "'" and text[k] == "'" else k + 1
        self.lines = [0] + [k + 1 for k, c in enumerate(value) if c == "\n"]
        self.value = value
        self.last = len(value.rstrip())  # offsets past the last non-blank: the end

    @staticmethod
    def _escape_length(text: str, k: int) -> int:
        return _ESCAPE_LENGTH.get(text[k + 1 : k + 2], 2)

    @staticmethod
    def _match(text: str, j: int, stop: int, c: str, style) -> int | None:
        """The source index that produced value character c, searching from j."""
        while j < stop:
            s = text[j]
            if style == '"' and s == "\\":
                if text[j + 1 : j + 2] in ("\n", "\r"):  # an escaped line break: nothing
                    j += 2
                    continue
                return j  # an escape produces one character
            if style == "'" and s == "'" and c == "'" and text[j + 1 : j + 2] == "'":
                return j
            if s == c or (c == " " and s in "\r\n"):  # the character, or a folded line break
                return j
            if not s.isspace():
                return None
            j += 1
        return None

    def pos(self, line: int, col: int) -> Pos:
        """The file position of (line, col) in the value."""
        lines = self.lines
        offset = (lines[line - 1] if line <= len(lines) else len(self.value)) + col - 1
        where = self.where
        if offset >= self.last and 0 < self.last <= len(where):  # the end: after the last token
            return self.reader.index_pos(where[self.last - 1] + 1)
        if 0 <= offset < len(where):
            return self.reader.index_pos(where[offset])
        return self.reader.index_pos(self.start)


# Numbers YAML 1.1 reads as strings: an exponent without a dot (1e20), and inf/nan spelled
# as people write them. Nothing else that float() accepts ('1_0', ' 1 ', 'infinity').
_NUMBER_STRING = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\Z|[-+]?(?:inf|nan)\Z", re.I)


def as_number(value) -> float | None:
    """A YAML scalar as a float when it is a number (or a string spelling one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMBER_STRING.match(value.strip()):
        return float(value.strip())
    return None


def _clip(text: str, width: int = 60) -> str:
    """User text quoted for an error message, shortened when long."""
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _fmt(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def check_name(reader: Reader, name, node, what: str) -> str:
    if not isinstance(name, str) or not IDENT.match(name):
        raise reader.error(f"{what} name {name!r} is not a valid name (letters, digits, _)", node)
    if name in CONSTANTS:
        raise reader.error(f"'{name}' is a built-in constant and cannot name {what}", node)
    return name
