"""Jobs for the SymPy worker's tests (tests/check/test_sympy_cache.py): each fails the way
SymPy's work can. The worker imports this module by name (it runs with this sys.path)."""

import os
import time


def die(deadline):
    os._exit(3)


def recurse(deadline):
    def deeper(n):
        return deeper(n + 1) + 1

    return deeper(0)


def fail(deadline):
    raise ValueError("a failure inside SymPy's work")


def sleep(deadline):
    time.sleep(60)


def collector_state(deadline):
    """What the job sees of the worker: whether the cyclic collector runs, SymPy imported."""
    import gc
    import sys

    return {"collecting": gc.isenabled(), "sympy": "sympy" in sys.modules}
