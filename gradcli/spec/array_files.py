"""Arrays from .npy files and .npz archives: never unpickled, sized before they are read.

The header of the array (for an .npz, of its member, read through zipfile) is parsed
first with numpy.lib.format's header readers: its dtype must be one of gradcli's (no
Python objects, no records), its shape within max_elements, and the file must hold the
bytes that shape needs. Only then is the array read, by numpy's own reader with
allow_pickle=False. Errors are GradcliErrors whose message starts with the data file's
name as the user wrote it; callers prefix the input's name and position.
"""

from __future__ import annotations

import math
import os
import stat
import warnings
import zipfile
import zlib

import numpy as np

from gradcli.core.graph import DTYPES, MAX_RANK
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # an archive, an empty archive
PICKLE_PROTOCOL = 0x80  # the first byte of a pickle (protocol 2 and later)
MAX_HEADER = 10_000  # bytes of an array header (numpy's own default bound)
MAX_ITEMSIZE = 8  # bytes per element of gradcli's widest dtypes (float64, int64)
SHOWN_KEYS = 10  # keys listed when a key is missing
# what reading a damaged file or archive can raise (all become one-line errors)
_DAMAGED = (
    ValueError,
    OSError,
    EOFError,
    zlib.error,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    RuntimeError,  # an encrypted member
    NotImplementedError,  # a compression method zipfile does not know
)


def base_directory(spec_file: str) -> str:
    """Where a spec's relative data files are: its own directory; the current one for
    standard input, expressions and text given to the library (<stdin>, <expr>...)."""
    if spec_file.startswith("<") and spec_file.endswith(">"):
        return ""
    return os.path.dirname(spec_file)


def split_reference(text: str) -> tuple[str, str | None]:
    """--at's FILE or FILE:KEY (after the last colon, unless FILE:KEY is itself a file)."""
    if ":" in text and not os.path.exists(text):
        path, key = text.rsplit(":", 1)
        return path, key
    return text, None


def load(path: str, key: str | None, label: str, dtype=None, shape=None) -> np.ndarray:
    """The array in a .npy file, or under `key` in a .npz archive, checked against the
    optional dtype name and shape, as a C-ordered, native-endian array."""
    info = _stat(path, label)
    try:
        with open(path, "rb") as fh:
            start = fh.read(len(NPY_MAGIC))
            fh.seek(0)
            if start.startswith(NPY_MAGIC):
                if key is not None:
                    raise GradcliError(f"{label} is a .npy file; key applies to .npz archives")
                array = _read_npy(fh, info.st_size, label, dtype, shape)
            elif start[:4] in ZIP_MAGICS:
                array = _read_npz(fh, key, label, dtype, shape)
            elif start[:1] == bytes([PICKLE_PROTOCOL]):
                raise GradcliError(
                    f"{label} is a Python pickle, which gradcli never loads; "
                    "save the array with numpy.save or numpy.savez"
                )
            else:
                raise GradcliError(f"{label} is not a .npy file or a .npz archive")
    except GradcliError:
        raise
    except RecursionError:
        raise GradcliError(f"{label} has an array header nested too deeply") from None
    except _DAMAGED as exc:
        raise GradcliError(f"cannot read {label}: {_reason(exc)}") from None
    native = array.dtype.newbyteorder("=")
    return np.ascontiguousarray(array.astype(native, copy=False))


def keys(path: str, label: str) -> list[str]:
    """The keys of a .npz archive (its members without .npy), sorted; nothing is inflated."""
    _stat(path, label)
    try:
        with open(path, "rb") as fh:
            if fh.read(4) not in ZIP_MAGICS:
                raise GradcliError(f"{label} is not a .npz archive")
            fh.seek(0)
            with zipfile.ZipFile(fh) as archive:
                return sorted(name.removesuffix(".npy") for name in archive.namelist())
    except GradcliError:
        raise
    except _DAMAGED as exc:
        raise GradcliError(f"cannot read {label}: {_reason(exc)}") from None


def _stat(path: str, label: str) -> os.stat_result:
    """The file's status; a directory, a missing file, a loop or a FIFO is an error."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise GradcliError(f"cannot read {label}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise GradcliError(f"cannot read {label}: it is a directory")
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block, a device never end
        raise GradcliError(f"cannot read {label}: it is not a regular file")
    return info


def _read_npy(fh, size: int, label: str, dtype, shape) -> np.ndarray:
    need = _header(fh, label, label, dtype, shape)
    if size - fh.tell() < need:
        raise GradcliError(
            f"{label} is truncated: its header promises {need:,} bytes of data, "
            f"the file holds {max(size - fh.tell(), 0):,}"
        )
    fh.seek(0)
    return np.load(fh, allow_pickle=False, max_header_size=MAX_HEADER)


def _read_npz(fh, key: str | None, label: str, dtype, shape) -> np.ndarray:
    with zipfile.ZipFile(fh) as archive:
        members = {name.removesuffix(".npy"): name for name in archive.namelist()}
        if key is None:
            if len(members) != 1:
                raise GradcliError(
                    f"{label} holds {len(members)} arrays and no key says which to read "
                    f"(it has: {_listing(members)})"
                )
            key = next(iter(members))
        member = members.get(key.removesuffix(".npy"))
        if member is None:
            raise GradcliError(f"{label} has no key {key!r} (it has: {_listing(members)})")
        what = f"{label}:{key}"
        info = archive.getinfo(member)
        most = limits.current.max_elements * MAX_ITEMSIZE + MAX_HEADER + 64
        if info.file_size > most:  # a zip bomb declares its size: refused before inflating
            raise LimitError(
                f"{what} declares {info.file_size:,} bytes uncompressed, more than "
                f"{limits.current.max_elements:,} elements can take "
                f"{limits.advice('max_elements')}"
            )
        with archive.open(info) as stream:
            start = stream.read(len(NPY_MAGIC))
            if not start.startswith(NPY_MAGIC):
                raise GradcliError(f"{what} is not an array in .npy format")
            with archive.open(info) as again:
                need = _header(again, label, what, dtype, shape)
                if info.file_size - again.tell() < need:
                    raise GradcliError(
                        f"{what} is truncated: its header promises {need:,} bytes of data, "
                        f"the archive holds {max(info.file_size - again.tell(), 0):,}"
                    )
        with archive.open(info) as stream:
            return np.lib.format.read_array(stream, allow_pickle=False, max_header_size=MAX_HEADER)


def _listing(members: dict) -> str:
    keys = sorted(members)
    shown = ", ".join(keys[:SHOWN_KEYS])
    return shown + (f", ... ({len(keys):,} in all)" if len(keys) > SHOWN_KEYS else "") or "nothing"


def _header(fp, label: str, what: str, dtype, shape) -> int:
    """Parse an array header and check it; returns the bytes of data it promises."""
    fmt = np.lib.format
    with warnings.catch_warnings():  # numpy warns about headers written by Python 2
        warnings.simplefilter("ignore")
        version = fmt.read_magic(fp)
        if version in ((1, 0), (2, 0)):
            # numpy reads a header before it checks its length: a 4 GB length would
            # allocate 4 GB
            where, size = fp.tell(), 2 if version == (1, 0) else 4
            raw = fp.read(size)
            length = int.from_bytes(raw, "little") if len(raw) == size else 0
            if length > MAX_HEADER:
                raise GradcliError(
                    f"{what} declares an array header of {length:,} bytes; "
                    f"numpy.save writes at most {MAX_HEADER:,}"
                )
            fp.seek(where)
        if version == (1, 0):
            dims, _, found = fmt.read_array_header_1_0(fp, max_header_size=MAX_HEADER)
        elif version == (2, 0):
            dims, _, found = fmt.read_array_header_2_0(fp, max_header_size=MAX_HEADER)
        else:
            raise GradcliError(
                f"{what} is in .npy format version {version[0]}.{version[1]}, which gradcli "
                "does not read (1.0 and 2.0: numpy.save's for numeric arrays)"
            )
    if found.hasobject:
        raise GradcliError(
            f"{what} holds Python objects (dtype object), which gradcli never unpickles; "
            "save a numeric array"
        )
    plain = found.fields is None and found.subdtype is None and found.kind in "biuf"
    name = found.name if plain else str(found)
    if name not in DTYPES:
        raise GradcliError(
            f"{what} holds {name}, not one of gradcli's dtypes ({', '.join(DTYPES)}); "
            "convert it before saving"
        )
    if len(dims) > MAX_RANK or any(d < 0 for d in dims):
        raise GradcliError(f"{what} declares the impossible shape {tuple(dims)}")
    count = math.prod(dims)
    if count > limits.current.max_elements:
        raise LimitError(
            f"{what} holds {limits.count(count)} elements (shape {tuple(dims)}), over the "
            f"limit of {limits.current.max_elements:,} {limits.advice('max_elements')}"
        )
    if dtype is not None and dtype != name:
        raise GradcliError(f"{what} holds {name}, but the input says dtype: {dtype}")
    if shape is not None and tuple(shape) != tuple(dims):
        raise GradcliError(
            f"{what} holds shape {list(dims)}, but the input says shape: {list(shape)}"
        )
    return count * found.itemsize


def _reason(exc: Exception) -> str:
    """An exception from numpy or zipfile as a short reason on one line."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    return text[:200]
