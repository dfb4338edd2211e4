"""Python's cyclic garbage collector, paused around bulk JSON work, and kept off what is loaded.

Each collection walks every live container object; the pipeline holds millions of them (the
source and localized dbs and tasks) and creates millions more, so collections triggered by
allocation took half of `jtau localize` (airline 1.35 -> 0.63 s, telecom 2.1 -> 1.15 s,
measured in one process).  JSON data has no reference cycles: reference counting frees it,
so little waits for the collector while it is paused; the few cycles made meanwhile (HTTP
clients and their exceptions, when an endpoint translates) are collected once it resumes.

A command that runs tau2 (verify, experiment run) first imports tau2 and litellm, whose objects
outlive its work: `freeze_loaded` puts them out of the collector's reach, so each later
collection walks only what was made since, and forked workers leave those pages shared
(docs/BENCHMARKS.md has the measurement).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def freeze_loaded() -> None:
    """Collect once, then keep every object alive now out of all later collections (gc.freeze):
    what a long command loaded before its work, which lives as long as the process."""
    gc.collect()
    gc.freeze()
