"""Counting a flow list's values ahead of the YAML parser, at the speed of C and numpy.

The composer (safe_yaml.py) counts a literal's values as the parser's events arrive, about
2.5 us a value: a list of 30,000,000 numbers took some 25 s and several GB to reach the
default limit of 10,000,000. When a literal starts as a flow list (`[`...) in a text long
enough to hold more values than the limit allows, `values_past` reads ahead from its `[`
a chunk at a time (bytes.translate, then numpy over the bytes: a few ms a megabyte) and
stops as soon as the count is past the limit, or the list ends: the cost is that of some
2 x limit characters, whatever the file's length.

The count is one the parser agrees with. It reads brackets, commas, spaces, line breaks
and plain scalars made of letters, digits and `. + - _` (numbers, inf, nan, true...), and
nothing else: anything else (a quote, a comment, a mapping, a tab, an anchor or alias, a
document marker, a block entry "- ", non-ASCII text) or an arrangement YAML refuses (`[1,,2]`,
`[1 [2]]`) ends the count, and the composer reads the list itself, as before, so that
its own error (or the limit) comes where it always did. libyaml holds a token back until
it knows whether the token starts a mapping key (to the end of its line, 1,024
characters at most), so it may report a syntax error a little after the value that
passes the limit before that value: the text is read clean LOOKAHEAD characters further
before the count refuses the list.
"""

from __future__ import annotations

import re

CHUNK = 1 << 20  # characters read at a time
LOOKAHEAD = 4096  # characters past the value over the limit that must read clean too

# classes of the characters a counted list holds, spaces and line breaks removed: a
# scalar's characters 0, "," 1, "[" 2, "]" 3
_SCALAR = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.+-_"
_SPACE = b" \r\n"
_KNOWN = _SCALAR + _SPACE + b",[]"
_CLASSES = bytes.maketrans(_SCALAR + b",[]", bytes(len(_SCALAR)) + b"\x01\x02\x03")
_OTHER = re.compile(rb"[^0-9A-Za-z.+\-_ \r\n\[\],]")
_DASH = re.compile(rb"-[ \r\n]")  # a block entry, where a value starts
_MARKERS = ("\n---", "\n...")
_DELIMITER = re.compile(r"[\[\],]")
# pairs of classes (4 x first + second): a value ends (a scalar before "," or "]"), and
# the neighbours YAML refuses in a flow list: ",," "[," "][" "a[" "]a"
_ENDS = (0 * 4 + 1, 0 * 4 + 3)
_REFUSED = (1 * 4 + 1, 2 * 4 + 1, 3 * 4 + 2, 0 * 4 + 2, 3 * 4 + 0)


def values_past(text: str, start: int, limit: int, max_depth: int) -> bool:
    """True when the flow list whose `[` is text[start] holds more than `limit` values
    (scalars at any depth) and the text reads clean LOOKAHEAD characters beyond the one
    over the limit; False when the list ends first or the count stops (also where its
    lists nest more than max_depth deep: the composer's error, then)."""
    import numpy as np

    if len(text) - start <= 2 * limit:  # a value takes two characters at least ("1,")
        return False
    count = 0
    depth = 0  # of the brackets read so far
    last = b""  # the class of the last character read so far: pairs across chunks
    pos = start
    past = -1  # once the count is past the limit: the text must read clean that far
    while pos < len(text):
        end = min(pos + CHUNK, len(text))
        clean = -1
        if past >= 0:  # to the end of the token at `past` (libyaml's lookahead)
            delimiter = _DELIMITER.search(text, past)
            if delimiter is None:
                return False
            clean = delimiter.end()
            end = min(end, clean)
        chunk = _chunk(text, start, pos, end)
        if chunk is None:
            return False
        classes, stop = chunk
        codes = np.frombuffer(last + classes, np.uint8)
        ended = False
        opens = classes.count(2)
        if classes.count(3) >= depth or depth + opens > max_depth:  # it may end, or nest deep
            brackets = np.flatnonzero(codes[len(last) :] >= 2) + len(last)
            levels = np.cumsum(5 - 2 * codes[brackets].astype(np.int32)) + depth  # [ +1, ] -1
            closed = np.flatnonzero(levels <= 0)
            if closed.size:
                ended = True
                codes = codes[: int(brackets[closed[0]]) + 1]
                levels = levels[: int(closed[0]) + 1]
            if int(levels.max(initial=depth)) > max_depth:
                return False
        pairs = codes[:-1] * np.uint8(4) + codes[1:]
        if _any_of(pairs, _REFUSED):
            return False
        if past >= 0:
            if ended:  # the list's bracket is here, at least
                return pos + len(codes) - len(last) - 1 >= past
            if stop < end:
                return False
            if end == clean:
                return True
        else:
            value_ends = (pairs == _ENDS[0]) | (pairs == _ENDS[1])
            values = int(np.count_nonzero(value_ends))
            if count + values > limit:
                # LOOKAHEAD classes on are as many characters on in the text, at least
                after = int(np.flatnonzero(value_ends)[limit - count]) + 1
                if np.count_nonzero(codes[after + LOOKAHEAD :] != 0):
                    return True  # a delimiter there: the token at that point ended too
                past = end + LOOKAHEAD
            count += values
            if ended or stop < end:
                return False
        depth += opens - classes.count(3)
        last = bytes(codes[-1:])
        pos = end
    return False


def _any_of(pairs, codes) -> bool:
    found = pairs == codes[0]
    for code in codes[1:]:
        found |= pairs == code
    return bool(found.any())


def _chunk(text: str, start: int, pos: int, end: int) -> tuple[bytes, int] | None:
    """The classes of text[pos:end] up to the first character a counted list cannot hold
    (and where that is); None where the text holds a block entry or a document marker."""
    try:
        raw = text[pos:end].encode("ascii")
    except UnicodeEncodeError as exc:
        raw = text[pos : pos + exc.start].encode("ascii")
    if raw.translate(None, _KNOWN):
        raw = raw[: _OTHER.search(raw).start()]
    stop = pos + len(raw)
    dashes = [m.start() for m in _DASH.finditer(raw)]
    if raw.endswith(b"-") and text[stop : stop + 1] in (" ", "\r", "\n"):
        dashes.append(len(raw) - 1)  # the space after it is in the next chunk
    for at in dashes:
        before = raw[at - 1 : at] if at else text[pos - 1 : pos].encode("ascii", "replace")
        if before in (b" ", b"\r", b"\n", b"[", b","):
            return None
    if any(m in text[max(start, pos - 4) : pos + 4] for m in _MARKERS):
        return None
    if b"\n" in raw and _marker(raw):
        return None
    return raw.translate(_CLASSES, _SPACE), stop


def _marker(raw: bytes) -> bool:
    """Whether a line of raw starts with --- or ... (numpy: bytes.find is slow at this)."""
    import numpy as np

    r = np.frombuffer(raw, np.uint8)
    if r.size < 4:
        return False
    start, first, second, third = r[:-3] == 10, r[1:-2], r[2:-1], r[3:]
    same = (first == second) & (second == third)
    return bool((start & same & ((first == 45) | (first == 46))).any())
