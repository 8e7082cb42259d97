"""Large arrays are written in bulk (views/array_text.py) with the bytes of the per-value path.

The per-value path is format.jsonable + json.dumps(indent=2) for JSON and format.compact's
one format.number per element for plain output; the bulk path must write exactly the same
text for every dtype, shape and value, including -0.0, subnormals, 1e308 and nan/inf.
"""

import json
import math

import numpy as np
import pytest

from gradcli.views import array_text
from gradcli.views import format as fmt

SPECIAL64 = [
    0.0,
    -0.0,
    5e-324,  # the smallest subnormal
    -2.5e-320,
    2.2250738585072014e-308,  # the smallest normal
    1e308,
    -1e308,
    1.7976931348623157e308,
    math.nan,
    math.inf,
    -math.inf,
    7.0,
    -3.0,
    0.1,
    1e15,
    1e16,  # written 1e+16 by repr, the first whole number plain keeps as a float
    9999999999999998.0,
    123456789012345.6,
    1e-7,
    1e22,
]
SPECIAL32 = [0.0, -0.0, 1e-45, 1.17e-38, 3.4e38, -3.4e38, 16777216.0, 1e15, 0.1, 1e-5, 1e16]


def random_array(rng, shape, dtype: str) -> np.ndarray:
    """Values over the whole float64 range with specials mixed in, as the dtype holds them."""
    values = rng.normal(size=shape) * 10.0 ** rng.integers(-320, 308, size=shape)
    specials = [*SPECIAL32, math.nan, math.inf, -math.inf] if dtype == "float32" else SPECIAL64
    values = np.where(rng.random(shape) < 0.4, rng.choice(specials, size=shape), values)
    if dtype == "bool":
        return values > 0
    if dtype in ("int32", "int64"):
        big = np.iinfo(dtype).max
        return rng.integers(-big, big, size=shape, dtype=dtype)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def per_value_json(arr: np.ndarray, nesting: int) -> str:
    """The old path: the array as JSON data, dumped with indent=2 inside `nesting` objects."""
    doc = {"value": fmt.jsonable(arr), "shape": list(arr.shape)}
    for _ in range(nesting):
        doc = {"inner": doc, "list": [1, doc]}
    return json.dumps(doc, allow_nan=False, indent=2)


def bulk_json(arr: np.ndarray, nesting: int) -> str:
    doc = {"value": fmt.Bulk(arr), "shape": list(arr.shape)}
    for _ in range(nesting):
        doc = {"inner": doc, "list": [1, doc]}
    return fmt.dumps(doc)


def per_value_compact(arr: np.ndarray, monkeypatch) -> str:
    with monkeypatch.context() as m:
        m.setattr(fmt, "BULK_MIN", 10**18)
        return fmt.compact(arr)


SHAPES = [(1,), (5,), (37,), (3, 4), (1, 9), (9, 1), (2, 3, 4), (3, 1, 2, 5), (2, 2, 2, 2, 3)]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "bool"])
@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 16])
def test_bulk_text_is_the_per_value_text(dtype, chunk, monkeypatch):
    # small chunks put block boundaries inside rows, between rows and between outer blocks
    monkeypatch.setattr(array_text, "CHUNK", chunk)
    rng = np.random.default_rng(abs(hash((dtype, chunk))) % 2**32)
    for shape in SHAPES:
        for _ in range(3):
            arr = random_array(rng, shape, dtype)
            for nesting in (0, 2):
                assert bulk_json(arr, nesting) == per_value_json(arr, nesting), (shape, arr)
            assert "".join(fmt.compact_pieces(arr)) == per_value_compact(arr, monkeypatch)


def test_every_special_value_in_bulk():
    for values, dtype in ((SPECIAL64, "float64"), (SPECIAL32, "float32")):
        arr = np.array(values * 3, dtype=dtype)
        data = json.loads(bulk_json(arr, 1))["inner"]["value"]
        assert data == fmt.jsonable(arr)
        assert "".join(fmt.compact_pieces(arr)) == fmt.compact(arr[:5]).rstrip("]") + "," + (
            fmt.compact(arr[5:]).lstrip("[")
        )


def test_plain_numbers_follow_the_documented_rule():
    # docs/commands.md: numbers shortest-first (7, not 7.0), non-finite ones quoted inside lists
    arr = np.array(SPECIAL64 * 60)  # 1200 elements: the bulk path

    def expected(v: float) -> str:
        if math.isnan(v):
            return '"nan"'
        if math.isinf(v):
            return '"inf"' if v > 0 else '"-inf"'
        if v == int(v) and abs(v) < 1e16:
            return "-0" if math.copysign(1.0, v) < 0 and v == 0 else str(int(v))
        return repr(v)

    assert fmt.compact(arr) == "[" + ",".join(expected(v) for v in arr.tolist()) + "]"


def test_big_random_arrays_cross_many_chunks(monkeypatch):
    monkeypatch.setattr(array_text, "CHUNK", 1000)
    rng = np.random.default_rng(7)
    for shape in [(25_000,), (300, 70), (3, 2500, 3), (2, 1, 1500)]:
        arr = random_array(rng, shape, "float64")
        assert bulk_json(arr, 1) == per_value_json(arr, 1)
        assert "".join(fmt.compact_pieces(arr)) == per_value_compact(arr, monkeypatch)


def test_documents_with_bulk_arrays_stream_the_same_text():
    import io

    arr = np.arange(3000.0).reshape(30, 100) / 7
    doc = {"a": fmt.Bulk(arr), "b": [fmt.Bulk(-arr[0]), None], "c": "text"}
    stream = io.StringIO()
    fmt.write_json(doc, stream)
    plain = {"a": fmt.jsonable(arr), "b": [fmt.jsonable(-arr[0]), None], "c": "text"}
    assert stream.getvalue() == json.dumps(plain, indent=2) + "\n"


def test_strings_that_look_like_a_marker_stay_strings():
    doc = {"a": fmt.Bulk(np.ones(3)), "b": "gradcli-bulk-0", "c": '"gradcli-bulk-'}
    assert json.loads(fmt.dumps(doc)) == {"a": [1.0, 1.0, 1.0], "b": doc["b"], "c": doc["c"]}


def test_json_value_chooses_bulk_only_for_large_arrays():
    assert fmt.json_value(None) is None
    assert fmt.json_value(np.float64(2.5)) == 2.5
    assert fmt.json_value(np.zeros(fmt.BULK_MIN - 1)) == [0.0] * (fmt.BULK_MIN - 1)
    assert isinstance(fmt.json_value(np.zeros(fmt.BULK_MIN)), fmt.Bulk)
