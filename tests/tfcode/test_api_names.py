"""An API name is accepted only if TensorFlow 2.21 / Keras 3 (or NumPy) has it: every name
in the reader's tables is in tests/data/tf_public_names.txt, the public names of the
installed TensorFlow 2.21, Keras 3 and NumPy listed once by tools/list_tf_names.py."""

from __future__ import annotations

from pathlib import Path

from gradcli.tfcode.api_keras import KERAS
from gradcli.tfcode.api_raw_ops import RAW
from gradcli.tfcode.api_table import INTERNAL, NP, TF
from gradcli.tfcode.builtins import SPECIAL
from gradcli.tfcode.keras import reader_names

LIST = Path(__file__).parents[1] / "data" / "tf_public_names.txt"
LINES = LIST.read_text().splitlines()
PUBLIC = {n for n in LINES if not n.startswith("#")}
# the reader's own spellings of Python builtins (SPECIAL's builtins.* entries are not TF's)
ROOTS = ("tf.", "keras.", "np.")


def reader_tables() -> dict[str, list[str]]:
    """Every dotted TensorFlow, Keras or NumPy name the reader maps, by table."""
    return {
        "api_table.TF": [n for n in TF if n not in INTERNAL],
        "api_keras.KERAS": list(KERAS),
        "api_table.NP": list(NP),
        "api_raw_ops.RAW": list(RAW),
        "builtins.SPECIAL": [n for n in SPECIAL if n.startswith(ROOTS)],
        "keras.reader_names": list(reader_names()),
    }


def test_the_list_is_tensorflow_2_21s():
    assert LINES[0].startswith("# tensorflow 2.21.0 ")
    some = {"tf.math.reduce_sum", "tf.keras.layers.Dense", "keras.ops.matmul", "np.float32"}
    assert some <= PUBLIC


def test_every_name_the_reader_maps_is_public():
    missing = {
        table: sorted(n for n in names if n not in PUBLIC)
        for table, names in reader_tables().items()
    }
    assert not any(missing.values()), {k: v for k, v in missing.items() if v}
