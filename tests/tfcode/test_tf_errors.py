"""A TensorFlow error is reported only where a TensorFlow 2.21 run raised it.

tests/data/tf_errors.json (tools/record_tf_errors.py) holds, for small snippets, what
TensorFlow 2.21 raised: the error's type, first message line and snippet line, or null. For
each snippet the reader must either report that very error (same type and message, at that
line), read it through with no error where TensorFlow raised none, or refuse it naming
--run; a refusal may name a TensorFlow error type only if it is the one TensorFlow raised.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

DOC = json.loads((Path(__file__).parents[1] / "data" / "tf_errors.json").read_text())
RECORDS = DOC["snippets"]
RUN = "read it by running it: gradcli explain --run"
CLAIM = re.compile(r"TensorFlow raises (\w+)")
PREFIX = re.compile(r"^(\w+(?:Error|Exception)): ")
# the snippets TensorFlow runs through that the reader must read (not only not contradict)
MUST_READ = {"where_one_argument", "rnn_cell_state_size_property", "custom_gradient_nested"}


def test_the_record_is_tensorflow_2_21s():
    assert DOC["tensorflow"] == "2.21.0" and len(RECORDS) >= 25


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_the_reader_reports_only_tensorflows_errors(name, tmp_path):
    record = RECORDS[name]
    want = record["error"]
    path = tmp_path / "snippet.py"
    path.write_text(record["code"])
    try:
        program = read_program(path.read_bytes(), str(path))
    except GradcliError as exc:
        message = exc.message
        claimed = {*CLAIM.findall(message), *PREFIX.findall(message)}
        if RUN in message:  # a refusal: it may name only the error TensorFlow raised
            assert name not in MUST_READ, message
            assert not claimed or (want is not None and claimed == {want["type"]}), message
            if PREFIX.match(message):
                assert message.startswith(f"{want['type']}: {want['message']}"), message
            return
        # TensorFlow's error before any gradient call, reported as the program's error
        assert want is not None, f"TensorFlow raised nothing, gradcli: {message}"
        assert message.startswith(f"{want['type']}: {want['message']}"), message
        assert exc.value.pos.line == want["line"] if hasattr(exc, "value") else True
        assert exc.pos.line == want["line"], message
        return
    errors = [c.error for c in program.calls if c.error] + [program.error] * bool(program.error)
    if want is None:
        assert not errors, errors
        return
    assert errors, f"TensorFlow raised {want}, gradcli read it through"
    assert (errors[0]["type"], errors[0]["message"]) == (want["type"], want["message"])
