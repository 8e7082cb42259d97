"""The flow-list count ahead of the YAML parser (spec/literal_count.py, safe_yaml.py).

The count ahead must agree with the parser: it refuses a list only when the list really
holds more values than the limit, and whatever it cannot read (or the parser would refuse)
leaves the composer to read the list itself, so that every error is the one reported
without it. The randomized cases compare the composer with and without the count.
"""

from __future__ import annotations

import random

import pytest
import yaml

from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError
from gradcli.spec import literal_count, safe_yaml
from gradcli.spec.reader import load_spec


def _values(node) -> int:
    return sum(_values(v) for v in node) if isinstance(node, list) else 1


def _past(text: str, limit: int, max_depth: int = 200) -> bool:
    return literal_count.values_past(text, text.index("["), limit, max_depth)


@pytest.fixture
def small_steps(monkeypatch):
    """Chunks and lookahead of a few characters: every boundary case in short texts."""

    def set_sizes(chunk: int, lookahead: int) -> None:
        monkeypatch.setattr(literal_count, "CHUNK", chunk)
        monkeypatch.setattr(literal_count, "LOOKAHEAD", lookahead)

    return set_sizes


@pytest.mark.parametrize(
    "text",
    [
        "[1,2,3]",
        "[[1, 2], [3, 4]]",
        "[1, 2 ,3,]",
        "[[], [1]]",
        "[1 2, 3]",  # one scalar with a space in it
        "[1,\n 2,\n 3]",
        "[[1,2],[3]] # after the list",
        "[1, nan, inf, -.inf, true]",
        "[[[1]], [[2, 3]]]",
        "[1.5e-3,\r\n -2,\r\n +7]",
    ],
)
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_the_count_is_the_parsers(text, chunk, small_steps):
    small_steps(chunk, 0)
    n = _values(yaml.safe_load(text))
    assert _past(text, n - 1) is True
    assert _past(text, n) is False


@pytest.mark.parametrize(
    "text",
    [
        "[1, # a comment\n 3, 4, 5, 6, 7]",
        "[1, '3', 4, 5, 6, 7, 8]",
        "[1, {a: 1}, 4, 5, 6, 7]",
        "[1, &a 3, *a, 5, 6, 7, 8]",
        "[1,\t3, 4, 5, 6, 7, 8]",
        "[1, \u00e9, 3, 4, 5, 6, 7, 8]",
        "[1,,2, 3, 4, 5, 6, 7, 8]",  # YAML refuses these: the parser's error stands
        "[1 [2], 3, 4, 5, 6, 7, 8]",
        "[1, - 2, 3, 4, 5, 6, 7, 8]",
        "[1,\n---\n3, 4, 5, 6, 7, 8]",
        "[[[[1, 2, 3, 4, 5, 6, 7, 8]]]]",  # deeper than max_depth 3
    ],
)
def test_what_the_count_does_not_read_is_left_to_the_composer(text, small_steps):
    small_steps(1 << 20, 0)
    assert _past(text, 1, max_depth=3) is False


def test_a_syntax_error_just_after_the_limit_is_the_parsers(small_steps):
    # libyaml reads ahead to the end of a line: the unclosed quote is its error, not the limit
    small_steps(1 << 20, 64)
    text = "[" + "1, " * 10 + '[1, 2, "3]]'
    assert _past(text, 5) is False
    assert _past("[" + "1, " * 100 + "2]", 5) is True


SCALARS = ["1", "-2.5", "1e3", "nan", "x y", "+3", ".5"]
DASHES = ["-", "1 - 2"]  # dashes the count does not read past (it cannot tell "- 2")


def _random_list(r: random.Random, scalars: list[str], depth: int = 0) -> str:
    if depth > 4 or r.random() < 0.4:
        return r.choice(scalars)
    items = [_random_list(r, scalars, depth + 1) for _ in range(r.randint(0, 5))]
    sep = r.choice([",", ", ", " ,", ",\n  ", "\n, ", ",\r\n"])
    trailing = r.choice(["", ","]) if items else ""
    return "[" + r.choice(["", " ", "\n "]) + sep.join(items) + trailing + "]"


def _outcome(text: str, ahead: bool, monkeypatch):
    monkeypatch.setattr(safe_yaml, "COUNT_AHEAD", ahead)
    try:
        safe_yaml.compose(text, "f.yaml")
        return "ok"
    except GradcliError as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("seed", range(4))
def test_the_composer_says_the_same_with_and_without_the_count(seed, monkeypatch):
    r = random.Random(seed)
    counted = []  # the count ahead's answers
    original = safe_yaml.values_past

    def values_past(*args):
        counted.append(original(*args))
        return counted[-1]

    monkeypatch.setattr(safe_yaml, "values_past", values_past)
    for _ in range(150):
        monkeypatch.setattr(literal_count, "CHUNK", r.choice([7, 64, 1000, 1 << 20]))
        monkeypatch.setattr(literal_count, "LOOKAHEAD", r.choice([16, 64, 200, 4096]))
        scalars = SCALARS + DASHES if r.random() < 0.3 else SCALARS
        items = [_random_list(r, scalars) for _ in range(r.randint(20, 400))]
        text = "a: 1\nx: [" + ", ".join(items) + "]" + r.choice(["", "\nz: 1", ", 3]"])
        for _ in range(r.choice([0, 0, 1, 2])):
            at = r.randrange(8, len(text))
            mark = r.choice([",", "[", "]", "- ", "\n---\n", "#", "\t", ":", '"', "*a", "{"])
            text = text[:at] + mark + text[at:]
        monkeypatch.setattr(limits.current, "max_elements", r.randint(0, text.count(",") + 1))
        monkeypatch.setattr(limits.current, "max_depth", r.choice([3, 4, 6, 200]))
        without = _outcome(text, False, monkeypatch)
        assert _outcome(text, True, monkeypatch) == without, text
    assert sum(counted) >= 5  # the count ahead refused lists often enough to tell


def test_a_long_literal_is_refused_without_composing_its_values(monkeypatch):
    events = []

    class Counting(yaml.CSafeLoader):
        def get_event(self):
            events.append(1)
            return super().get_event()

    monkeypatch.setattr(yaml, "CSafeLoader", Counting)
    monkeypatch.setattr(limits.current, "max_elements", 200_000)
    text = "inputs:\n  x: [" + "1, " * 300_000 + "1]\ngraph:\n  f: sum(x)\n"
    with pytest.raises(LimitError) as caught:
        load_spec(text, "big.yaml")
    assert str(caught.value).startswith("big.yaml:2:6: this list holds more than 200,000")
    assert ".npy or .npz file" in str(caught.value)
    assert len(events) < 10  # up to the list's start
    events.clear()
    monkeypatch.setattr(safe_yaml, "COUNT_AHEAD", False)  # the composer's own count
    with pytest.raises(LimitError) as again:
        load_spec(text, "big.yaml")
    assert str(again.value) == str(caught.value)
    assert len(events) > 200_000


def test_the_start_of_a_spec_too_long_to_read_is_probed(monkeypatch):
    monkeypatch.setattr(limits.current, "max_elements", 1000)
    head = "inputs:\n  s: {zeros: [3]}\n  v: [1, 2]\n  x: [" + "1," * 5000
    error = safe_yaml.literal_over_limit(head, "big.yaml")
    assert error is not None and str(error).startswith("big.yaml:4:6: this list holds more")
    assert safe_yaml.literal_over_limit("inputs:\n  x: [1, 2, 3]\n", "s.yaml") is None
    assert safe_yaml.literal_over_limit("inputs: {x: '" + "1," * 5000, "s.yaml") is None
