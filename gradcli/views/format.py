"""Output formats: JSON (strict RFC 8259), plain tab-separated lines, and Rich tables.

Every number, shape and JSON text gradcli prints is formatted here.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Iterator

import numpy as np

from gradcli.views import array_text

SCHEMA = 1
# arrays of at least this many elements are written in bulk (views/array_text.py), the
# same bytes as the per-value path smaller ones take
BULK_MIN = 1024


def number(v) -> str:
    """A number as people write it: 7 not 7.0, full precision otherwise; inf, -inf, nan."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v32 = isinstance(v, np.float32)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 1e16:
        return "-0" if v == 0 and math.copysign(1.0, v) < 0 else str(int(v))
    return str(np.float32(v)) if v32 else repr(v)


def short_number(v) -> str:
    """A number in at most 10 characters when number() writes it so, else to 6 digits."""
    text = number(v)
    return text if len(text) <= 10 else f"{float(v):.6g}"


def error_number(value: float) -> str:
    """An error in 3 significant digits (0 and nan as number() writes them)."""
    return number(value) if value == 0 or value != value else f"{value:.3g}"


def jsonable(value):
    """An array or scalar as JSON data: nested lists, non-finite numbers as strings."""
    if value is None:
        return None
    arr = np.asarray(value)
    if arr.dtype == bool:
        return arr.tolist()
    if np.issubdtype(arr.dtype, np.integer):
        return arr.tolist()
    if arr.dtype == np.float32:
        flat = [float(str(v)) for v in arr.ravel()]
        data = np.array(flat, dtype=np.float64).reshape(arr.shape)
    else:
        data = arr.astype(np.float64, copy=False)
    if np.all(np.isfinite(data)):
        return data.tolist()
    return _replace_nonfinite(data.tolist())


class Bulk:
    """A large array in a JSON document, written in bulk by dumps and write_json."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array


def json_value(value):
    """A value as JSON data (jsonable), or as a Bulk marker when it is a large array."""
    if value is None:
        return None
    arr = np.asarray(value)
    if arr.ndim and arr.size >= BULK_MIN:
        return Bulk(arr)
    return jsonable(arr)


def _replace_nonfinite(data):
    if isinstance(data, list):
        return [_replace_nonfinite(v) for v in data]
    if math.isnan(data):
        return "nan"
    if math.isinf(data):
        return "inf" if data > 0 else "-inf"
    return data


def dumps(doc) -> str:
    """One strict JSON document (allow_nan=False guards against stray non-finite floats)."""
    return "".join(json_chunks(doc))


def write_json(doc, stream) -> None:
    """dumps(doc) and a newline written to a stream piece by piece (large arrays in bulk)."""
    for chunk in json_chunks(doc):
        stream.write(chunk)
    stream.write("\n")


def json_chunks(doc) -> Iterator[str]:
    """dumps(doc) in pieces: each Bulk array's text comes in blocks, as array_text writes it."""
    arrays: list[Bulk] = []
    token = f"gradcli-bulk-{os.urandom(8).hex()}-"  # no string of the document can hold it

    def marker(obj):
        if not isinstance(obj, Bulk):
            raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")
        arrays.append(obj)
        return f"{token}{len(arrays) - 1}"

    text = json.dumps(doc, allow_nan=False, indent=2, default=marker)
    if not arrays:
        yield text
        return
    pieces = re.split(f'"{token}(\\d+)"', text)
    for k in range(0, len(pieces) - 1, 2):
        yield pieces[k]
        line = pieces[k][pieces[k].rfind("\n") + 1 :]
        level = (len(line) - len(line.lstrip(" "))) // len(array_text.INDENT)
        arr = arrays[int(pieces[k + 1])].array
        if arr.size:
            yield from array_text.json_chunks(arr, level)
        else:
            text = json.dumps(jsonable(arr), allow_nan=False, indent=2)
            yield text.replace("\n", "\n" + array_text.INDENT * level)
    yield pieces[-1]


def dumps_line(data) -> str:
    """JSON data in one line without spaces: [1,2] or {"a":1}."""
    return json.dumps(data, separators=(",", ":"))


_NONFINITE_TEXT = {"NaN": '"nan"', "Infinity": '"inf"', "-Infinity": '"-inf"'}


def json_numbers(column: np.ndarray) -> list[str]:
    """JSON texts for a float64 column: shortest round-trip reprs, non-finite as strings."""
    # json's C encoder writes them several times faster than repr per value
    texts = json.dumps(column.tolist())[1:-1].split(", ") if column.size else []
    if not np.all(np.isfinite(column)):
        texts = [_NONFINITE_TEXT.get(t, t) for t in texts]
    return texts


def compact(value) -> str:
    """A value for plain output: a number, None, or a compact JSON list ([2,0,2])."""
    # numbers are written as by number(); non-finite ones inside lists are quoted so the
    # list stays valid JSON
    if value is None:
        return "None"
    arr = np.asarray(value)
    if arr.shape == ():
        return number(arr[()])
    if arr.size == 0:
        return dumps_line(arr.tolist())
    if arr.size >= BULK_MIN:
        return "".join(array_text.compact_chunks(arr))
    flat = arr.ravel()
    if arr.dtype == np.float32:
        texts = [number(v) for v in flat]
    else:
        texts = [number(v) for v in flat.tolist()]
    texts = [t if t not in ("inf", "-inf", "nan") else f'"{t}"' for t in texts]
    return nested(arr.shape, texts)


def compact_pieces(value) -> Iterator[str]:
    """compact(value) in pieces, a large array's text block by block."""
    arr = None if value is None else np.asarray(value)
    if arr is not None and arr.ndim and arr.size >= BULK_MIN:
        yield from array_text.compact_chunks(arr)
    else:
        yield compact(value)


def nested(shape, texts, sep: str = ",") -> str:
    """Texts of a non-empty array's elements laid out as a nested list of its shape."""
    rows = list(texts)
    for d in reversed(shape):
        rows = ["[" + sep.join(rows[k : k + d]) + "]" for k in range(0, len(rows), d)]
    return rows[0]


def shape_list(value) -> list[int]:
    """The shape of an array or scalar as JSON data: [] or [2, 3]."""
    return dims(np.shape(value))


def dims(shape) -> list[int]:
    """A shape tuple as JSON data: [] or [2, 3]."""
    return list(shape)


def shape_text(shape) -> str:
    """A shape as Python writes a tuple, for tables, trees and graph labels: (), (3,), (2, 3)."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def pretty(value, width: int = 60) -> str:
    """A value for tables: full precision for scalars, numpy style (elided) for arrays."""
    if value is None:
        return "None"
    arr = np.asarray(value)
    if arr.shape == ():
        return number(arr[()])
    with np.printoptions(
        precision=6, threshold=36, edgeitems=2, linewidth=max(width, 24), suppress=True
    ):
        return np.array2string(arr, separator=", ")


MIN_WIDTH = 20  # columns: a COLUMNS of 0 or 5 still lays tables and panels out
MAX_WIDTH = 1000  # columns: a huge COLUMNS (or a file) never pads lines to millions of spaces
DOC_WIDTH = 80  # columns of panels and rules when the output is not a terminal


def width_of(stream) -> int:
    """The layout width for a stream: a terminal's (COLUMNS first), clamped to
    [MIN_WIDTH, MAX_WIDTH]; anything else MAX_WIDTH, so lines are as long as their content."""
    try:
        terminal = stream.isatty()
    except (OSError, ValueError, AttributeError):
        terminal = False
    if not terminal:
        return MAX_WIDTH
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit():
        width = int(columns[:6])
    else:
        try:
            width = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            width = DOC_WIDTH
    return min(max(width, MIN_WIDTH), MAX_WIDTH)


def block_width(out) -> int | None:
    """The width of a panel or rule (blocks that fill their line): the terminal's, or
    DOC_WIDTH when the output is not a terminal (a file never gets lines of padding)."""
    return None if out.is_terminal else min(DOC_WIDTH, out.width)


def rule(out, title: str) -> None:
    """A heading rule across the block width (see block_width)."""
    from rich.rule import Rule
    from rich.text import Text

    out.print(Rule(Text(title), align="left"), width=block_width(out))  # ws[k] is not markup


def console(stderr: bool = False):
    """A Rich console for stdout or stderr; colour only on a terminal and without NO_COLOR."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    no_color = bool(os.environ.get("NO_COLOR")) or not stream.isatty()
    return Console(
        file=stream,
        no_color=no_color,
        highlight=False,
        soft_wrap=False,
        emoji=False,
        width=width_of(stream),
    )
