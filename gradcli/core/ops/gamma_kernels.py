"""numpy kernels of lgamma, digamma and polygamma, as TensorFlow's CPU kernels compute them.

TensorFlow's float64 kernels are Eigen's scalar special functions: lgamma is the C library's
lgamma, digamma and polygamma follow Cephes' published algorithms (psi, zeta). Here the
same algorithms run vectorised in numpy, element-wise arithmetic in the same order, and the
elementary functions they call (log, tan, pow, exp, lgamma) are the C library's, through
the `math` module and ctypes: numpy's own (SIMD) log, tan, pow and exp may differ from it by
an ulp, and Python's math.lgamma is CPython's own approximation, not libm's (millions of
ulps apart near the zeros of lgamma). On glibc (TensorFlow's Linux builds use the same
library) the results are bit-identical to TensorFlow's float64 ones (tests/core/
test_ops_gamma.py measures it on grids of ordinary, negative, tiny and huge arguments), except
where TensorFlow's flush-to-zero mode meets subnormal numbers. float32 inputs are computed in
float64 and rounded (TensorFlow uses float variants).
"""

from __future__ import annotations

import functools
import math
import sys
from fractions import Fraction

import numpy as np

MACHEP = 2.0**-53  # Cephes' MACHEP for double: the zeta series stops below it


@functools.cache
def _c_lgamma():
    """The C library's lgamma, or None where no C math library can be loaded."""
    import ctypes  # here: ctypes.util alone costs ~5 ms of every command's start-up
    import ctypes.util

    names = ["libm.so.6"] if sys.platform.startswith("linux") else []
    found = ctypes.util.find_library("m")
    names += [found] if found else []
    for name in names:
        try:
            fn = ctypes.CDLL(name).lgamma
        except (OSError, AttributeError):
            continue
        fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
        return fn
    return None


def lgamma_scalar(x: float) -> float:
    """log|Γ(x)| of a Python float: the C library's lgamma (inf at the poles)."""
    fn = _c_lgamma()
    if fn is not None:
        return fn(x)
    try:  # no C library: CPython's own lgamma, a few ulps from it (and from TensorFlow)
        return math.lgamma(x)
    except ValueError:
        return math.inf


def _libm(fn, fallback, nin: int):
    """fn (a `math` function: the C library's) on every element of the arrays, as float64.

    `math` raises on overflow (and log at 0) where C returns inf or nan: there the element is
    numpy's IEEE result (an exact special value, the same as C's).
    """
    fast = np.frompyfunc(fn, nin, 1)

    def safe(*args):
        try:
            return fn(*args)
        except (OverflowError, ValueError):
            with np.errstate(all="ignore"):
                return float(fallback(*args))

    slow = np.frompyfunc(safe, nin, 1)

    def apply(*arrays):
        try:
            out = fast(*arrays)
        except (OverflowError, ValueError):
            out = slow(*arrays)
        return np.asarray(out, dtype=np.float64)

    return apply


_log = _libm(math.log, np.log, 1)
_tan = _libm(math.tan, np.tan, 1)
_exp = _libm(math.exp, np.exp, 1)
_pow = _libm(math.pow, np.power, 2)
_lgamma = np.frompyfunc(lgamma_scalar, 1, 1)


def lgamma(x):
    """tf.math.lgamma: log|Γ(x)|, inf at 0, -1, -2, ... and at -inf."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):  # the C library raises its flags at poles and overflows
        out = np.asarray(_lgamma(x.astype(np.float64)), dtype=np.float64)
    return out.astype(x.dtype)[()]


# --- Bernoulli numbers: the coefficients of both asymptotic series -----------------------
def _bernoulli(count: int) -> list[Fraction]:
    """B_0 ... B_count (B_1 = -1/2), from the recurrence sum_k C(m+1, k) B_k = 0."""
    b = [Fraction(1)]
    for m in range(1, count + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(24)
# psi(s) ~ log(s) - 1/(2s) - sum_k B_2k / (2k s^2k): the polynomial in z = 1/s^2, highest first
_PSI_SERIES = [float(_B[2 * k] / (2 * k)) for k in range(7, 0, -1)]
# Euler-Maclaurin tail of the Hurwitz zeta: its terms divide by (2j)! / B_2j, j = 1..12
_ZETA_DIVISORS = [float(math.factorial(2 * j) / _B[2 * j]) for j in range(1, 13)]


def digamma(x):
    """tf.math.digamma: Cephes' psi (reflection for x <= 0, recurrence up to 10, series)."""
    x = np.asarray(x)
    out = _digamma(x.astype(np.float64))
    return out.astype(x.dtype)[()]


def _digamma(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        negative = x <= 0
        p = np.floor(x)
        pole = negative & (p == x)
        # reflection: psi(x) = psi(1 - x) - pi / tan(pi x), with x first moved by the nearest
        # integer so that tan has no zero; at a half-integer the term is 0
        nz = x - p
        above = negative & (nz > 0.5)
        nz = np.where(above, x - (p + 1.0), nz)
        reflect = negative & ~pole & (nz != 0.5)
        term = np.zeros_like(x)
        term[reflect] = math.pi / _tan(math.pi * nz[reflect])
        s = np.where(negative, 1.0 - x, x)
        # psi(s) = psi(s + 1) - 1/s until s >= 10
        w = np.zeros_like(x)
        small = s < 10.0
        while small.any():
            w[small] += 1.0 / s[small]
            s[small] += 1.0
            small = s < 10.0
        z = 1.0 / (s * s)
        poly = np.full_like(x, _PSI_SERIES[0])
        for c in _PSI_SERIES[1:]:
            poly = poly * z + c
        y = np.where(s < 1.0e17, z * poly, 0.0)
        y = _log(s) - 0.5 / s - y - w
        y = np.where(negative, y - term, y)
        return np.where(pole, np.nan, y)


def polygamma(n, x):
    """tf.math.polygamma: digamma for n = 0, else (-1)^(n+1) exp(lgamma(n+1)) zeta(n+1, x);
    nan unless n is a non-negative integer."""
    n, x = np.asarray(n), np.asarray(x)
    dtype = np.result_type(n, x)
    n, x = np.broadcast_arrays(n.astype(np.float64), x.astype(np.float64))
    out = np.full(n.shape, np.nan)
    with np.errstate(all="ignore"):
        valid = (np.floor(n) == n) & (n >= 0)
        first = valid & (n == 0)
        out[first] = _digamma(x[first])
        rest = valid & (n != 0)
        nplus = n[rest] + 1.0
        factorial = _exp(np.asarray(_lgamma(nplus), dtype=np.float64))
        out[rest] = _pow(np.float64(-1.0), nplus) * factorial * _zeta(nplus, x[rest])
    return out.astype(dtype)[()]


# The direct sum stops once a > 9, which for a very negative q takes |q| terms, added one
# by one as TensorFlow's kernel does (it then spends |q| / 1e8 seconds); gradcli refuses to
# add more than this many.
MAX_TERMS = 2**24
_CHUNK = 1 << 16


def _zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function sum_k (k + q)^-x of 1-D arrays, by Cephes' Euler-Maclaurin
    summation (the direct sum to a > 9, then its tail by Bernoulli numbers)."""
    out = np.full(x.shape, np.nan)
    open_ = np.ones(x.shape, bool)

    def close(mask, value):
        mask = mask & open_
        out[mask] = value if np.ndim(value) == 0 else value[mask]
        open_[mask] = False

    close(x == 1.0, np.inf)
    close(x < 1.0, np.nan)
    integral = x == np.floor(x)
    # C's long(x) % 2 for an integral x; past 2**63 (and at inf) x86 gives LONG_MIN, even
    even = integral & ((np.abs(x) >= 2.0**63) | (np.fmod(x, 2.0) == 0))
    pole = (q <= 0) & (q == np.floor(q))
    close(pole & even, np.inf)
    close(pole, np.nan)
    close((q <= 0) & ~integral, np.nan)
    s = np.zeros_like(x)
    s[open_] = _pow(q[open_], -x[open_])
    a, b = q.copy(), np.zeros_like(q)
    # the direct sum q^-x + (q+1)^-x + ...: at least 9 terms, and on while a <= 9
    i = 0
    going = open_.copy()
    while going.any() and i < 64:
        a[going] += 1.0
        b[going] = _pow(a[going], -x[going])
        s[going] += b[going]
        close(going & (np.abs(b / s) < MACHEP), s)
        i += 1
        going = open_ & ((i < 9) | (a <= 9.0))
    for k in np.flatnonzero(going):  # past 64 terms: a very negative q
        a[k], b[k], s[k], done = _long_sum(q[k], a[k], b[k], s[k], x[k])
        if done:
            close(np.arange(x.size) == k, s)
    close(b == 0.0, s)  # the tail would be 0 (or inf * 0 for a huge a)
    # s += a^(1-x) / (x-1) - a^-x / 2 + sum_j B_2j x(x+1)...(x+2j-2) a^(-x-2j+1) / (2j)!
    w = a
    s = s + b * w / (x - 1.0)
    s = s - 0.5 * b
    a = np.ones_like(x)
    for j, divisor in enumerate(_ZETA_DIVISORS):
        k = 2.0 * j
        a = a * (x + k)
        b = b / w
        t = a * b / divisor
        s = s + t
        close(np.abs(t / s) < MACHEP, s)
        a = a * (x + (k + 1.0))
        b = b / w
    close(open_, s)
    return out


def _long_sum(q, a, b, s, x) -> tuple[float, float, float, bool]:
    """The rest of the direct sum for one element, in chunks: (a, b, s, converged). Running
    sums come from np.cumsum, which adds strictly in order, as the kernel's loop."""
    if 9.0 - a > MAX_TERMS:
        raise ValueError(
            f"polygamma at x = {q:.17g}: TensorFlow's kernel adds one term per unit of |x| "
            f"below -9; gradcli stops past {MAX_TERMS:,} terms"
        )
    while a <= 9.0:
        steps = np.cumsum(np.concatenate(([a], np.ones(_CHUNK))))  # a, a+1, a+2, ...
        steps = steps[1:][steps[:-1] <= 9.0]  # a step runs while the a before it is <= 9
        bs = _pow(steps, -x)
        sums = np.cumsum(np.concatenate(([s], bs)))[1:]
        hit = np.flatnonzero(np.abs(bs / sums) < MACHEP)
        if hit.size:
            return steps[hit[0]], bs[hit[0]], sums[hit[0]], True
        a, b, s = steps[-1], bs[-1], sums[-1]
    return a, b, s, False
