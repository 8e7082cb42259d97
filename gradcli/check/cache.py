"""SymPy's derivatives cached on disk per spec structure, read back without SymPy.

Location: $GRADCLI_CACHE_DIR, else $XDG_CACHE_HOME/gradcli, else ~/.cache/gradcli (created
with mode 0700). An entry is one text file `sympy-KEY.txt`, KEY hashing the forward graph
(ops, attributes, shapes, dtypes, wiring, outputs, gradient targets; not the input
values), gradcli's version, SymPy's version and the format version. It holds up to
MAX_VARIANTS variants, one per fingerprint of the SymPy translation at a point
(tracer.py: the side of a kink, a frozen node's value, a softmax's shift): each lists the
derivative of the loss with respect to every target element as a gradcli expression of
lambdify's arguments (program.py).

Reading trusts nothing: an entry larger than MAX_ENTRY_BYTES, not owned by this user,
not UTF-8, with another header, key or checksum, a malformed line, a count that does not
match the problem, or an expression that does not parse into known names is ignored (and
replaced when the derivatives are next computed). Writing goes to a temporary file in the
same directory, renamed over the entry; any OSError (a read-only or missing directory, a
full disk) just leaves the cache alone. After a write the oldest files (by modification
time; a hit touches its entry) are removed beyond MAX_FILES files or MAX_BYTES bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re

FORMAT = 1
HEADER = f"gradcli sympy cache {FORMAT}"
MAX_ENTRY_BYTES = 4 * 2**20  # one entry (a variant of a 250-node spec is a few kB)
MAX_VARIANTS = 8  # fingerprints kept per structure, newest first
MAX_FILES = 1000  # entries and hints in the directory
MAX_BYTES = 64 * 2**20  # their total size
MAX_SPEC_HINT_BYTES = 256 * 2**10  # specs larger than this get no hint
ENTRY_PREFIX, HINT_PREFIX = "sympy-", "hint-"
_HEX = re.compile(r"[0-9a-f]{64}")


def directory(env=None) -> str:
    """Where the cache lives: GRADCLI_CACHE_DIR, XDG_CACHE_HOME/gradcli or ~/.cache/gradcli."""
    env = os.environ if env is None else env
    if env.get("GRADCLI_CACHE_DIR"):
        return env["GRADCLI_CACHE_DIR"]
    xdg = env.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, "gradcli")
    return os.path.join(os.path.expanduser("~"), ".cache", "gradcli")


def sympy_version() -> str | None:
    """The installed SymPy's version, read from its release file without importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("sympy")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    try:
        with open(os.path.join(os.path.dirname(spec.origin), "release.py"), encoding="utf-8") as f:
            text = f.read(4096)
    except OSError:
        return None
    found = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", text)
    return found.group(1) if found else None


class Cache:
    """One directory of entries; every failure to read or write is quiet."""

    def __init__(self, path: str):
        self.path = path

    # --- hints: "this spec text has been seen", known before the spec is read ----------------
    def hinted(self, digest: str) -> bool:
        return os.path.isfile(os.path.join(self.path, HINT_PREFIX + digest))

    def hint(self, digest: str) -> None:
        with contextlib.suppress(OSError):
            self._ensure()
            fd = os.open(
                os.path.join(self.path, HINT_PREFIX + digest), os.O_WRONLY | os.O_CREAT, 0o600
            )
            os.close(fd)

    # --- entries -------------------------------------------------------------------------
    def entry_path(self, key: str) -> str:
        return os.path.join(self.path, f"{ENTRY_PREFIX}{key}.txt")

    def read(self, key: str) -> list[Variant]:
        """The entry's variants (newest first), or [] when missing or not to be trusted."""
        path = self.entry_path(key)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return []
        try:
            st = os.fstat(fd)
            if not _owned(st) or st.st_size > MAX_ENTRY_BYTES:
                return []
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            return []
        finally:
            os.close(fd)
        if len(data) > MAX_ENTRY_BYTES:
            return []
        try:
            return decode(data.decode("utf-8"), key)
        except (UnicodeDecodeError, ValueError, IndexError):
            return []

    def touch(self, key: str) -> None:
        with contextlib.suppress(OSError):
            os.utime(self.entry_path(key))

    def write(self, key: str, variants: list[Variant]) -> bool:
        """Write the entry atomically (temporary file, then rename); False when it could not."""
        text = encode(key, variants[:MAX_VARIANTS])
        data = text.encode("utf-8")
        if len(data) > MAX_ENTRY_BYTES:
            return False
        import tempfile  # only when writing: ~5 ms that a cache hit does not pay

        tmp = None
        try:
            self._ensure()
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.path)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.entry_path(key))
            tmp = None
        except OSError:
            return False
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        self.evict()
        return True

    def _ensure(self) -> None:
        os.makedirs(self.path, mode=0o700, exist_ok=True)

    def evict(self, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> None:
        """Remove the least recently used files beyond max_files files or max_bytes bytes."""
        try:
            names = os.listdir(self.path)
        except OSError:
            return
        files = []
        for name in names:
            if not name.startswith((ENTRY_PREFIX, HINT_PREFIX, ".tmp-")):
                continue
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(self.path, name), follow_symlinks=False)
                files.append((st.st_mtime, name, st.st_size))
        total = sum(size for _, _, size in files)
        if len(files) <= max_files and total <= max_bytes:
            return
        files.sort()
        count = len(files)
        for _, name, size in files:
            if count <= max_files and total <= max_bytes:
                break
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.path, name))
            count -= 1
            total -= size


def _owned(st) -> bool:
    """A regular file of this user's (where there are users)."""
    import stat

    if not stat.S_ISREG(st.st_mode):
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or st.st_uid == getuid()


class Variant:
    """The derivatives under one fingerprint: per target (node id, size), its expressions."""

    def __init__(self, fingerprint: str, nargs: int, targets: list[tuple[int, int]], exprs):
        self.fingerprint = fingerprint
        self.nargs = nargs
        self.targets = targets
        self.exprs: list[str] = exprs  # every target's elements, in order


def encode(key: str, variants: list[Variant]) -> str:
    """The entry's text, ending in the checksum of everything before it."""
    lines = [HEADER, f"key {key}"]
    for v in variants:
        lines += [f"variant {v.fingerprint}", f"args {v.nargs}"]
        start = 0
        for node, size in v.targets:
            lines.append(f"target {node} {size}")
            lines += [f"= {e}" for e in v.exprs[start : start + size]]
            start += size
        lines.append("end")
    body = "\n".join(lines) + "\n"
    return body + f"sha256 {hashlib.sha256(body.encode('utf-8')).hexdigest()}\n"


def decode(text: str, key: str) -> list[Variant]:
    """The variants of an entry's text (ValueError for anything malformed or foreign)."""
    body, sep, last = text.rstrip("\n").rpartition("\n")
    if not sep or not last.startswith("sha256 "):
        raise ValueError("no checksum")
    body += "\n"
    if last[7:] != hashlib.sha256(body.encode("utf-8")).hexdigest():
        raise ValueError("checksum")
    lines = body.split("\n")[:-1]
    if lines[:2] != [HEADER, f"key {key}"]:
        raise ValueError("header or key")
    out: list[Variant] = []
    i = 2
    while i < len(lines):
        fingerprint = _field(lines[i], "variant")
        nargs = _count(_field(lines[i + 1], "args"))
        i += 2
        targets, exprs = [], []
        while lines[i] != "end":
            node, size = (_count(x) for x in _field(lines[i], "target").split(" "))
            if i + 1 + size > len(lines):
                raise ValueError("truncated")
            for line in lines[i + 1 : i + 1 + size]:
                if not line.startswith("= "):
                    raise ValueError("expression line")
                exprs.append(line[2:])
            targets.append((node, size))
            i += 1 + size
        i += 1
        if not _HEX.fullmatch(fingerprint) or len(out) >= MAX_VARIANTS:
            raise ValueError("variant")
        out.append(Variant(fingerprint, nargs, targets, exprs))
    return out


def _field(line: str, name: str) -> str:
    if not line.startswith(name + " "):
        raise ValueError(f"expected {name}")
    return line[len(name) + 1 :]


def _count(text: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise ValueError("count")
    return int(text)
