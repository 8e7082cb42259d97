"""The non-ASCII glyphs gradcli prints, and their ASCII stand-ins for streams that cannot
carry them (PYTHONIOENCODING=ascii, a C locale): one table for every command."""

from __future__ import annotations

ASCII = {
    # graph's markings and explain's culprits
    "◆": "*",
    "◇": "o",
    "→": "->",
    "✂": "x",
    "≡": "=0",
    "★": "*",
    "⇢": "->",
    "⊘": "-",
    "✓": "+",
    "✗": "x",
    "∇": "d",
    "↑": "^",
    "↓": "v",
    "⚠": "!",
    "†": "(c)",  # a gradient decided in part by a convention (its footnote says where)
    # text
    "…": "...",
    "±": "+-",
    "µ": "u",
    "·": ".",
    "⋅": "*",
    "×": "x",
    "−": "-",
    "≤": "<=",
    "≥": ">=",
    "∞": "inf",
    # box drawing, should a renderer not switch to ASCII boxes itself
    **dict.fromkeys("─━═╌", "-"),
    **dict.fromkeys("│┃║╎", "|"),
    **dict.fromkeys("┌┐└┘├┤┬┴┼╭╮╰╯┏┓┗┛┡┩╇╈┣┫┳┻╋", "+"),
}
TABLE = str.maketrans(ASCII)


def can_encode(encoding: str | None) -> bool:
    """True when a stream of this encoding carries every glyph (a UTF encoding)."""
    return (encoding or "").lower().replace("_", "-").startswith("utf")


def to_ascii(text: str, encoding: str | None) -> str:
    """text with each glyph replaced by its stand-in, and anything else the encoding cannot
    carry by '?'."""
    text = text.translate(TABLE)
    try:
        text.encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        text = text.encode(encoding or "ascii", "replace").decode(encoding or "ascii")
    return text
