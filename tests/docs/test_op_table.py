"""docs/ops.md's op table has one row per public op, and its TensorFlow names agree with the
TensorFlow reader's table."""

import re

from helpers import ROOT

OPS_PAGE = ROOT / "docs" / "ops.md"


def op_table() -> dict[str, list[str]]:
    """docs/ops.md's op table: gradcli op -> [TensorFlow, JAX, PyTorch] names."""
    text = OPS_PAGE.read_text()
    body = text.split("<!-- op table:", 1)[1].split("<!-- end of op table -->", 1)[0]
    rows = {}
    for line in body.splitlines()[3:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.match(r"`(\w+)`", cells[0]).group(1)
        assert name not in rows, f"{name} has two rows"
        rows[name] = [c.strip("`") for c in cells[1:]]
    return rows


def test_the_op_table_has_one_row_per_public_op():
    from gradcli.core.ops import public_ops

    rows = op_table()
    assert sorted(set(public_ops()) - set(rows)) == [], "public ops without a row"
    assert sorted(set(rows) - set(public_ops())) == [], "rows for ops that are not public"
    assert all(len(names) == 3 and all(names) for names in rows.values())


def test_the_op_tables_tensorflow_names_agree_with_the_readers_table():
    """A TensorFlow name in docs/ops.md that the reader knows must map to that op (or to an
    op registered as its alias: the same record under another name, without its operator:
    mod is floormod, and % reads as floormod)."""
    from dataclasses import replace

    from gradcli.core.ops import REGISTRY
    from gradcli.tfcode import api_table

    wrong = []
    for name, (tf_name, _, _) in op_table().items():
        row = api_table.TF.get(tf_name)
        if row is None or row.op == name:
            continue
        op, other = REGISTRY[name], REGISTRY[row.op]
        if replace(other, name=op.name, doc=op.doc, operator=op.operator) != op:
            wrong.append(f"{name}: docs/ops.md says {tf_name}, which the reader reads as {row.op}")
    assert not wrong, "\n".join(wrong)


def test_the_op_tables_tensorflow_names_are_tensorflow_2_21s():
    """Each TensorFlow name in docs/ops.md is a public name of TensorFlow 2.21 / Keras 3
    (tests/data/tf_public_names.txt, listed by tools/list_tf_names.py), up to a call's
    result written after it (`tf.math.top_k(...).values`) and TensorFlow Probability."""
    listed = ROOT / "tests" / "data" / "tf_public_names.txt"
    names = {line.strip() for line in listed.read_text().splitlines() if line[:1] != "#"}
    wrong = []
    for op, (tf_name, _, _) in op_table().items():
        name = tf_name.split("(", 1)[0].rstrip("`")
        if tf_name != "—" and not name.startswith("tfp.") and name not in names:
            wrong.append(f"{op}: {tf_name}")
    assert not wrong, wrong
