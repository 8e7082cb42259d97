"""docs/reading-code.md's list of the TensorFlow and NumPy names the reader maps to ops, from
the tables, of the NumPy constructors and random functions it reads (builtins.SPECIAL), and of
the Keras classes and functions it reads (tfcode/keras)."""

from __future__ import annotations

from collections import defaultdict

from gradcli.tfcode.api_raw_ops import RAW
from gradcli.tfcode.api_table import INTERNAL, NP, TF

START = "<!-- reader names: generated from gradcli/tfcode/api_table.py (api_listing.py) -->"
END = "<!-- end of reader names -->"


def listing() -> str:
    """One line per module prefix: `tf.math.` `abs acos ...`, sorted, between the markers."""
    groups: dict[str, list[str]] = defaultdict(list)
    from gradcli.tfcode.builtins import SPECIAL
    from gradcli.tfcode.keras import reader_names

    numpy = [n for n in SPECIAL if n.startswith("np.") or ".utils." in n]  # constructors ...
    for dotted in dict.fromkeys([*TF, *NP, *RAW, *reader_names(), *numpy]):
        if dotted in INTERNAL:  # not a name TensorFlow has, nor one the reader accepts
            continue
        prefix, _, name = dotted.rpartition(".")
        groups[prefix].append(name)
    lines = [START]
    for prefix in sorted(groups, key=lambda p: (p.split(".")[0] != "tf", p)):
        names = " ".join(sorted(groups[prefix]))
        lines.append(f"- `{prefix}.` {names}")
    lines.append(END)
    return "\n".join(lines)
