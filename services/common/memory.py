"""Python's cyclic garbage collector: around bulk loads, and its pauses measured."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Histogram


@contextmanager
def bulk_load() -> Iterator[None]:
    """No cyclic collection while a rebuild creates many long-lived objects, and those
    objects frozen after it (`gc.freeze`), so that later collections do not walk them
    again. Collections over a heap growing by the million were most of a rebuild's time
    (the processor's, of 400,000 commands on this machine: 4.1 s -> 1.2 s from snapshots,
    15 s -> 6.6 s from the full log). Frozen objects are still freed when their last
    reference goes; only cycles among them would stay."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


GC_PAUSE = Histogram("okey_gc_pause_seconds", "Pauses of Python's cyclic garbage collector, "
                     "by generation (a full collection walks every live object: a latency "
                     "spike for every command waiting)", ["generation"],
                     buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
_started: list[float] = []


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _started[:] = [time.perf_counter()]
    elif _started:
        GC_PAUSE.labels(str(info.get("generation", -1))).observe(
            time.perf_counter() - _started.pop())


def freeze_startup() -> None:
    """Everything alive once a service has started up (its modules, classes and functions,
    some 68,000 objects) out of reach of the cyclic collector, which would otherwise walk
    them again at every full collection (about 20-45 ms of CPU each on this machine).
    They live as long as the process: nothing is kept that would have been freed."""
    gc.collect()
    gc.freeze()


def track_gc_pauses() -> None:
    """`okey_gc_pause_seconds` from now on (once per process)."""
    if _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)
