"""The inputs section of a spec: values, shapes, dtypes, zeros/ones, seeded random draws and
arrays from .npy/.npz files."""

from __future__ import annotations

import os

import numpy as np

from gradcli.core.graph import DTYPES, MAX_RANK, is_float
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos, did_you_mean
from gradcli.spec.document import (
    INPUT_KEYS,
    InputSpec,
    Reader,
    Spec,
    as_number,
    check_name,
)

SOURCES = ("value", "random", "zeros", "ones", "file")


def _read_inputs(reader: Reader, spec: Spec, node) -> None:
    items = reader.mapping(node, "inputs")
    if not items:
        raise reader.error("inputs is empty; declare at least one input", node)
    for name, key_node, value in items:
        check_name(reader, name, key_node, "an input")
        spec.inputs[name] = _read_input(reader, name, value, reader.pos(key_node))


def _read_input(reader: Reader, name: str, node, pos: Pos) -> InputSpec:
    what = f"input '{name}'"
    if node.id != "mapping":
        value = reader.number_array(node, what)
        dtype = "bool" if value.dtype == bool else "float64"
        return InputSpec(name, value, dtype, dtype == "float64", pos)
    fields = {}
    for key, key_node, value in reader.mapping(node, what):
        if key not in INPUT_KEYS:
            hint = did_you_mean(str(key), INPUT_KEYS)
            raise reader.error(f"unknown key '{key}' in {what}{hint}", key_node)
        fields[key] = value
    sources = [k for k in SOURCES if k in fields]
    if len(sources) != 1:
        raise reader.error(
            f"{what} needs exactly one of value, random, zeros or ones, or a file", node
        )
    source = sources[0]
    if "key" in fields and source != "file":
        raise reader.error(f"key in {what} applies to file: inputs only", fields["key"])
    dtype = "float64"
    if "dtype" in fields:
        dtype = reader.string(fields["dtype"], f"the dtype of {what}")
        if dtype not in DTYPES:
            hint = did_you_mean(dtype, DTYPES)
            raise reader.error(
                f"unknown dtype '{dtype}'{hint}; one of {', '.join(DTYPES)}", fields["dtype"]
            )
    if source == "file":
        value = _from_file(reader, name, node, fields, what)
        dtype = value.dtype.name
        return InputSpec(name, value, dtype, _trainable(reader, fields, dtype), pos)
    if source == "value":
        value = reader.number_array(fields["value"], what, dtype)
    elif source in ("zeros", "ones"):
        shape = _shape(reader, fields[source], what)
        value = (np.zeros if source == "zeros" else np.ones)(shape)
    else:
        value = _random(reader, fields, what)
    if not is_float(dtype):
        if value.dtype != bool and not np.all(np.isfinite(value) & (value == np.round(value))):
            raise reader.error(
                f"{what} has dtype {dtype} but its value is not a whole number", fields[source]
            )
        if dtype in ("int32", "int64"):
            info = np.iinfo(dtype)
            if value.size and (value.min() < info.min or value.max() > info.max):
                raise reader.error(f"{what} does not fit in {dtype}", fields[source])
        if dtype == "bool" and value.dtype != bool and not np.all((value == 0) | (value == 1)):
            raise reader.error(
                f"{what} has dtype bool but holds values other than 0 and 1", fields[source]
            )
    with np.errstate(over="ignore"):  # 1e300 as float32 is inf, as in TensorFlow
        value = value.astype(dtype, copy=False)  # a fresh array: no copy when dtype matches
    return InputSpec(name, value, dtype, _trainable(reader, fields, dtype), pos)


def _trainable(reader: Reader, fields: dict, dtype: str) -> bool:
    """The trainable: flag, by default true for float dtypes."""
    if "trainable" not in fields:
        return is_float(dtype)
    flag = reader.scalar(fields["trainable"])
    if not isinstance(flag, bool):
        raise reader.error(f"trainable must be true or false, got {flag!r}", fields["trainable"])
    return flag


def _from_file(reader: Reader, name: str, node, fields: dict, what: str) -> np.ndarray:
    """{file: w.npy} or {file: ckpt.npz, key: dense/kernel}, relative to the spec's folder;
    dtype: and shape: (when given) must be the file's."""
    from gradcli.spec import array_files  # zipfile and friends only when a spec reads files

    path = reader.string(fields["file"], f"file in {what}")
    key = reader.string(fields["key"], f"key in {what}") if "key" in fields else None
    if not path:
        raise reader.error(f"file in {what} is empty; give a .npy or .npz file", fields["file"])
    dtype = reader.string(fields["dtype"], f"the dtype of {what}") if "dtype" in fields else None
    shape = _shape(reader, fields["shape"], what) if "shape" in fields else None
    where = os.path.join(array_files.base_directory(reader.file), path)
    try:
        return array_files.load(where, key, path, dtype=dtype, shape=shape)
    except GradcliError as exc:  # the message names the file; say which input, and where
        raise type(exc)(f"{name}: {exc.message}", reader.pos(node)) from None


def _shape(reader: Reader, node, what: str) -> tuple[int, ...]:
    if node.id == "scalar":
        dims = [_size(reader, node, what)]
    elif node.id == "sequence":
        reader.check_tags(node)
        dims = [_size(reader, d, what) for d in node.value]
    else:
        raise reader.error(f"the shape of {what} must be a list of sizes", node)
    if len(dims) > MAX_RANK:
        raise reader.error(
            f"the shape of {what} has {len(dims)} dimensions; at most {MAX_RANK} are supported",
            node,
        )
    if any(d < 0 for d in dims):
        raise reader.error(f"the shape of {what} has a negative size: {dims}", node)
    size = 1
    for d in dims:
        size *= d
    if size > limits.current.max_elements:
        raise LimitError(
            f"{what} would have {limits.count(size)} elements, over the limit of "
            f"{limits.current.max_elements:,} {limits.advice('max_elements')}",
            reader.pos(node),
        )
    return tuple(dims)


def _size(reader: Reader, node, what: str) -> int:
    """One dimension: a whole number (1e9 and 1000.0 count; sizes are checked later)."""
    value = reader.scalar(node)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = as_number(value)
    if number is None or not np.isfinite(number) or number != int(number):
        raise reader.error(
            f"the shape of {what} must be a list of whole numbers, got {reader.kind(node)}", node
        )
    return int(number)


def _random(reader: Reader, fields: dict, what: str) -> np.ndarray:
    kind = reader.string(fields["random"], f"random in {what}")
    if kind not in ("normal", "uniform"):
        raise reader.error(f"random must be 'normal' or 'uniform', got '{kind}'", fields["random"])
    if "shape" not in fields:
        raise reader.error(f"{what} needs a shape for its random values", fields["random"])
    shape = _shape(reader, fields["shape"], what)
    params = {}
    for key in ("seed", "low", "high", "mean", "std"):
        if key in fields:
            v = reader.number(fields[key], f"{key} in {what}")
            if key != "seed":
                try:
                    v = float(v)
                except OverflowError:  # a YAML integer beyond float64
                    v = np.inf
                if not np.isfinite(v):
                    raise reader.error(f"{key} in {what} must be a finite number", fields[key])
            params[key] = v
    seed = params.get("seed", 0)
    if not isinstance(seed, int) or seed < 0:
        raise reader.error(f"seed in {what} must be a non-negative whole number", fields["seed"])
    if params.get("std", 0.0) < 0:
        raise reader.error(f"std in {what} must not be negative", fields["std"])
    low, high = params.get("low", 0.0), params.get("high", 1.0)
    if not low <= high or not np.isfinite(float(high) - float(low)):
        node = fields.get("high", fields.get("low"))
        raise reader.error(
            f"{what} needs low <= high with a finite range, got [{low}, {high}]", node
        )
    rng = np.random.default_rng(seed)
    if kind == "normal":
        return rng.normal(params.get("mean", 0.0), params.get("std", 1.0), size=shape)
    return rng.uniform(params.get("low", 0.0), params.get("high", 1.0), size=shape)
