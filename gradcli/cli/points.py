"""gradcli eval --points: many input points from JSON Lines or CSV, one JSON line out per point.

Points are read lazily and evaluated in chunks (one vectorised executor run per chunk when
the graph allows, see batch.py), so memory stays bounded for any file size. Output lines
come in input order. A malformed line stops the run with FILE:LINE:COL and exit 2; the
lines before it have already been written.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import time

import numpy as np

from gradcli.core.graph import MAX_RANK, is_float
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.views.format import jsonable

CHUNK = 8192  # points per vectorised run: large enough to amortise, small enough to stream
_NONFINITE = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class _TwiceError(ValueError):
    """A key given twice in one JSON object."""


def _unique_object(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _TwiceError(twice)
    return obj


_decode = json.JSONDecoder(object_pairs_hook=_unique_object).decode


class PointError(GradcliError):
    """A malformed point: FILE:LINE:COL and exit 2."""


def open_points(path: str):
    """The text stream of FILE ('-' for stdin), its label for errors, and its size if known."""
    if path == "-":
        stream = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="strict", newline="")
        return stream, "<stdin>", None
    try:
        stream = open(path, encoding="utf-8", errors="strict", newline="")  # noqa: SIM115
    except IsADirectoryError:
        raise GradcliError(f"cannot read {path}: it is a directory") from None
    except OSError as exc:
        raise GradcliError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        size = os.fstat(stream.fileno()).st_size
    except OSError:
        size = None
    return stream, path, size


class Reader:
    """Points as (line number, {input id: value}); the format is CSV when the file name ends
    in .csv or the first non-blank line starts with neither '{' nor '[', else JSON Lines."""

    def __init__(self, stream, label: str, inputs: dict, csv_hint: bool | None = None):
        self.stream = stream
        self.label = label
        self.inputs = inputs  # name -> input Node
        self.csv_hint = csv_hint
        self.chars = 0  # characters read so far, for the progress bar
        # 0-d float64 inputs: a JSON float is already a valid value for them
        self.scalars = {
            name: node.id
            for name, node in inputs.items()
            if node.shape == () and node.dtype == "float64"
        }

    def error(self, line: int, message: str, col: int = 1) -> PointError:
        return PointError(message, Pos(self.label, line, col))

    def __iter__(self):
        lines = self._lines()
        first = None
        for lineno, text in lines:
            if text.strip():
                first = (lineno, text)
                break
        if first is None:
            return
        is_csv = (
            self.csv_hint
            if self.csv_hint is not None
            else not first[1].lstrip().startswith(("{", "["))  # "[": a JSON line, not a header
        )
        if is_csv:
            yield from self._csv(first, lines)
        else:
            yield self._json(*first)
            for lineno, text in lines:
                if text.strip():
                    yield self._json(lineno, text)

    def _lines(self):
        lineno = 0
        try:
            for text in self.stream:
                lineno += 1
                self.chars += len(text)
                yield lineno, text
        except UnicodeDecodeError:
            raise self.error(lineno + 1, "not valid UTF-8; is this a binary file?") from None

    def _json(self, lineno: int, text: str):
        try:
            obj = _decode(text)
        except json.JSONDecodeError as exc:
            raise self.error(lineno, f"not valid JSON: {exc.msg}", exc.colno) from None
        except _TwiceError as exc:
            raise self.error(lineno, f"input '{exc.args[0]}' is given twice") from None
        except RecursionError:
            raise self.error(lineno, "nested too deeply") from None
        if not isinstance(obj, dict):
            raise self.error(lineno, 'expected a JSON object of input values, e.g. {"x": 1.5}')
        point = {}
        scalars = self.scalars
        for name, value in obj.items():
            i = scalars.get(name)
            if i is not None and type(value) is float:  # the common case, checked in full below
                point[i] = value
                continue
            node = self.inputs.get(name)
            if node is None:
                raise self.error(lineno, f"there is no input named '{name}'{self._names()}")
            point[node.id] = self._value(lineno, node, value)
        return lineno, point

    def _csv(self, first, lines):
        def rows():
            yield first[1]
            for _, text in lines:
                yield text

        lineno = first[0]
        header_line = lineno
        reader = csv.reader(rows())
        try:
            header = [h.strip() for h in next(reader)]
        except csv.Error as exc:
            raise self.error(header_line, f"not valid CSV: {exc}") from None
        nodes = []
        for name in header:
            node = self.inputs.get(name)
            if node is None:
                raise self.error(
                    header_line,
                    f"the CSV header names '{name}', which is not an input{self._names()}",
                )
            nodes.append(node)
        if len(set(header)) != len(header):
            raise self.error(header_line, "the CSV header names an input twice")
        # csv.reader may join quoted multi-line cells; count lines by what it consumed
        row_line = lineno
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise self.error(row_line + 1, f"not valid CSV: {exc}") from None
            row_line = header_line + reader.line_num - 1
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(nodes):
                raise self.error(
                    row_line, f"expected {len(nodes)} values (one per header name), got {len(row)}"
                )
            point = {}
            for node, cell in zip(nodes, row):
                point[node.id] = self._value(row_line, node, self._cell(row_line, node, cell))
            yield row_line, point

    def _cell(self, lineno: int, node, cell: str):
        text = cell.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                raise self.error(
                    lineno, f"input '{node.name}': cannot read {text[:40]!r} as a JSON list"
                ) from None
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        try:
            return float(text)
        except ValueError:
            raise self.error(
                lineno, f"input '{node.name}': cannot read {text[:40]!r} as a number"
            ) from None

    def _names(self) -> str:
        return f" (inputs: {', '.join(self.inputs)})"

    def _value(self, lineno: int, node, value):
        """A point's value for an input: checked against the input's shape and dtype."""
        if node.shape == () and node.dtype == "float64" and type(value) in (float, int):
            try:
                return float(value)  # the common case
            except OverflowError:  # a JSON integer beyond float64
                raise self.error(
                    lineno, f"input '{node.name}': a number is too large for float64"
                ) from None
        if isinstance(value, str) and value.strip().lower() in _NONFINITE:
            value = _NONFINITE[value.strip().lower()]
        what = f"input '{node.name}'"
        if not _numeric_leaves(value):
            raise self.error(lineno, f"{what}: expected a number or a list of numbers")
        try:
            arr = np.array(value, dtype=float)
        except OverflowError:
            raise self.error(lineno, f"{what}: a number is too large for float64") from None
        except (ValueError, TypeError):
            raise self.error(lineno, f"{what}: not a rectangular list of numbers") from None
        if arr.shape != node.shape:
            raise self.error(
                lineno,
                f"{what} has shape {list(node.shape)}; this point gives shape {list(arr.shape)}",
            )
        if not is_float(node.dtype):
            if not np.all(np.isfinite(arr) & (arr == np.round(arr))):
                raise self.error(lineno, f"{what} is {node.dtype}; give whole numbers")
            if node.dtype == "bool" and not np.all((arr == 0) | (arr == 1)):
                raise self.error(lineno, f"{what} is bool; give true, false, 1 or 0")
            if node.dtype != "bool":
                info = np.iinfo(node.dtype)
                if arr.size and (arr.min() < info.min or arr.max() > info.max):
                    raise self.error(lineno, f"{what}: the value does not fit in {node.dtype}")
        arr = arr.astype(node.dtype)
        return float(arr) if arr.shape == () and node.dtype == "float64" else arr


def _numeric_leaves(value) -> bool:
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, list):
            if depth >= MAX_RANK:
                return False
            stack.extend((item, depth + 1) for item in v)
        elif isinstance(v, str) and v.strip().lower() in _NONFINITE:
            continue
        elif not isinstance(v, (int, float)):
            return False
    return True


# --- output ------------------------------------------------------------------------------------
_NONFINITE_TEXT = {"NaN": '"nan"', "Infinity": '"inf"', "-Infinity": '"-inf"'}


def _float_texts(column: np.ndarray) -> list[str]:
    """JSON numbers for a float64 column: shortest round-trip reprs (from json's C encoder,
    several times faster than repr per value), non-finite values as strings."""
    texts = json.dumps(column.tolist())[1:-1].split(", ") if column.size else []
    if not np.all(np.isfinite(column)):
        texts = [_NONFINITE_TEXT.get(t, t) for t in texts]
    return texts


def _texts(column, n: int) -> list[str]:
    """One JSON text per point for a column of values (or None: unconnected)."""
    if column is None:
        return ["null"] * n
    if column.dtype == np.float64 and column.ndim == 1:
        return _float_texts(np.ascontiguousarray(column))
    return [json.dumps(jsonable(v), separators=(",", ":")) for v in column]


def write_chunk(out, outputs: dict, gradients: dict, n: int) -> None:
    """n JSON lines {"outputs": {...}, "gradients": {...}} from columns of n values."""
    sections = []
    parts = []
    for values in (outputs, gradients):
        fields = []
        for name, column in values.items():
            fields.append(json.dumps(name).replace("%", "%%") + ":%s")
            parts.append(_texts(column, n))
        sections.append(",".join(fields))
    # one %-template per line: C-level formatting, several times faster than joining pieces
    template = '{"outputs":{' + sections[0] + '},"gradients":{' + sections[1] + "}}\n"
    out.write("".join([template % row for row in zip(*parts)]))


def _stack(rows: list[dict]) -> tuple[dict, dict]:
    outputs = {name: np.stack([r[0][name] for r in rows]) for name in rows[0][0]}
    gradients = {}
    for name in rows[0][1]:
        vals = [r[1][name] for r in rows]
        gradients[name] = None if vals[0] is None else np.stack(vals)
    return outputs, gradients


# --- the run -----------------------------------------------------------------------------------
class Progress:
    """A Rich progress bar on stderr, shown only on a terminal and once a run passes 1 s."""

    def __init__(self, total: int | None):
        self.total = total
        self.enabled = sys.stderr.isatty()
        self.start = time.monotonic()
        self.bar = None
        self.task = None

    def update(self, done_chars: int, points: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 1.0:
                return
            from rich.progress import Progress as RichProgress

            from gradcli.views.format import console

            self.bar = RichProgress(console=console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("points", total=self.total)
        self.bar.update(self.task, completed=done_chars, description=f"{points:,} points")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_points(problem, path: str) -> int:
    """Evaluate every point in FILE and write one JSON line per point to stdout."""
    from gradcli.core.batch import prepare

    batch = prepare(problem)
    graph = problem.graph
    inputs = {graph[i].name: graph[i] for i in graph.inputs}
    stream, label, size = open_points(path)
    reader = Reader(stream, label, inputs, True if path.endswith(".csv") else None)
    progress = Progress(size)
    try:
        _run(reader, batch, sys.stdout, progress)
    except BrokenPipeError:
        # the reader of stdout has gone (`| head`): stop quietly with status 0, as the CLI
        # promises; click would turn an EPIPE inside a command into exit 1
        _silence_stdout()
        return 0
    finally:
        progress.close()
        if stream is not sys.stdin:
            stream.close()
    return 0


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _run(reader, batch, out, progress) -> None:
    """Read, evaluate and write chunk by chunk."""
    from gradcli.core.batch import evaluate_columns, evaluate_point

    count = 0
    chunk: list[dict] = []
    try:
        for _, point in reader:
            chunk.append(point)
            if len(chunk) >= CHUNK:
                _flush(batch, chunk, out, evaluate_columns, evaluate_point)
                count += len(chunk)
                chunk = []
                progress.update(reader.chars, count)
    except PointError:
        if chunk:  # the points before the malformed line are written, then the error
            _flush(batch, chunk, out, evaluate_columns, evaluate_point)
        raise
    if chunk:
        _flush(batch, chunk, out, evaluate_columns, evaluate_point)
    out.flush()


def _flush(batch, chunk: list[dict], out, evaluate_columns, evaluate_point) -> None:
    n = len(chunk)
    if batch.vectorised:
        graph = batch.problem.graph
        columns = {}
        for i in graph.inputs:
            if any(i in p for p in chunk):
                default = graph[i].attrs["value"]
                columns[i] = np.array([p.get(i, default) for p in chunk], dtype=graph[i].dtype)
        outputs, gradients = evaluate_columns(batch, columns, n)
    else:
        outputs, gradients = _stack([evaluate_point(batch, p) for p in chunk])
    write_chunk(out, outputs, gradients, n)
