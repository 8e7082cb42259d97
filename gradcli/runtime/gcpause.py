"""Pause Python's cyclic garbage collector around allocation-heavy phases.

Parsing a spec and building a graph allocate millions of small objects (YAML nodes,
AST nodes, graph nodes) and free almost none; each allocation burst triggers collections
that walk every live object, which doubled the time to read a 100,000-line spec. The
graph holds no reference cycles that need collecting, and collection resumes afterwards.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

FREEZE = False  # set by the console-script entry point: one short-lived command per process


@contextmanager
def paused(lasting: bool = False):
    """Disable the cyclic collector inside the block (re-entrant; restores the old state).

    lasting=True: what the block builds lives until the command ends (the problem, its
    gradient graph). In a CLI process (FREEZE) it is then moved out of the collector's
    sight with gc.freeze(): otherwise the first collection after the block walks all of
    it again (about 1 s per million objects, 5 s of a 100,000-node chain's eval). Frozen
    objects are still freed by reference counting; only cyclic garbage made before the
    freeze stays until exit, which is why library use and tests (FREEZE unset) skip it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if lasting and FREEZE:
                gc.freeze()
            gc.enable()
