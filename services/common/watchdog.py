"""A loop that hangs is caught (issue 41): "no silent death" (`services.common.tasks`)
sees a task that ends, not one stuck in an await that never returns.

Each service's main loop calls `Lifecycle.beat()` once an iteration, idle polls included,
so `PROGRESS` knows when each loop last made progress. A loop is watched from its first
beat (a start-up that reads a whole log is not a stall). `Watchdog`, a daemon thread, and
not an asyncio task, so that a loop blocked in synchronous code is caught too, checks the
beats every few seconds:
- a loop without progress for `--stall-seconds` is logged `loop_stalled`, counted in
  `okey_loop_stalls_total{loop}`, and failed in `TASKS` (so /readyz answers 503 naming it,
  and `services.common.runtime` stops the service and exits with status 1);
- if the process is still there `exit_after_s` later (a loop that ignores the stop and its
  cancellation, or an event loop that no longer runs), the thread ends it: `os._exit(1)`.
`okey_loop_progress_age_seconds{loop}` is each loop's age since its last beat.

`exit_later` is the same backstop for a stop: SIGTERM always ends a service within
`--stop-grace-seconds`, whatever its loops do.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Callable

import structlog
from prometheus_client import Counter, Gauge

log = structlog.get_logger("watchdog")

PROGRESS_AGE = Gauge("okey_loop_progress_age_seconds", "Seconds since each service loop "
                     "last made progress (an iteration, idle polls included)", ["loop"])
STALLS = Counter("okey_loop_stalls_total", "Service loops the watchdog found without "
                 "progress for --stall-seconds (the process then exits)", ["loop"])
EXIT_STATUS = 1


class Progress:
    """When each loop last made progress (monotonic seconds), one per process."""

    def __init__(self) -> None:
        self.beats: dict[str, float] = {}

    def beat(self, loop: str) -> None:
        self.beats[loop] = time.monotonic()

    def forget(self, loop: str) -> None:
        self.beats.pop(loop, None)

    def ages(self, now: float) -> dict[str, float]:
        return {loop: now - at for loop, at in list(self.beats.items())}

    def reset(self) -> None:
        self.beats.clear()


PROGRESS = Progress()


def stalled(ages: dict[str, float], limit_s: float) -> list[tuple[str, float]]:
    """The loops whose last progress is older than `limit_s`, oldest first."""
    return sorted(((loop, age) for loop, age in ages.items() if age > limit_s),
                  key=lambda item: -item[1])


def _exit_now(event: str, **fields: object) -> None:
    log.error(event, exit_status=EXIT_STATUS, **fields)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_STATUS)


class Watchdog:
    """Checks `progress` every `check_s`; on a stall calls `on_stall(loop, age)` in the
    event loop `loop` (once a loop), and exits the process `exit_after_s` later if it is
    still running."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stall_s: float, exit_after_s: float,
                 on_stall: Callable[[str, float], None], progress: Progress = PROGRESS,
                 check_s: float | None = None) -> None:
        self.loop, self.stall_s, self.exit_after_s = loop, stall_s, exit_after_s
        self.on_stall, self.progress = on_stall, progress
        self.check_s = check_s if check_s is not None else min(5.0, max(0.1, stall_s / 4))
        self.reported: set[str] = set()
        self.exit_at: float | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()

    def _watch(self) -> None:
        while not self._done.wait(self.check_s):
            now = time.monotonic()
            ages = self.progress.ages(now)
            for loop, age in ages.items():
                PROGRESS_AGE.labels(loop).set(round(age, 3))
            for loop, age in stalled(ages, self.stall_s):
                if loop not in self.reported:
                    self._report(loop, age, now)
            if self.exit_at is not None and now >= self.exit_at and not self._done.is_set():
                _exit_now("watchdog_exit", loops=sorted(self.reported),
                          reason="a stalled loop did not let the service stop")

    def _report(self, loop: str, age: float, now: float) -> None:
        self.reported.add(loop)
        STALLS.labels(loop).inc()
        log.error("loop_stalled", loop=loop, seconds_without_progress=round(age, 1),
                  stall_seconds=self.stall_s)
        if self.exit_at is None:
            self.exit_at = now + self.exit_after_s
        try:
            self.loop.call_soon_threadsafe(self.on_stall, loop, age)
        except RuntimeError:  # the event loop is closed: nothing is left to stop
            _exit_now("watchdog_exit", loops=[loop], reason="the event loop is closed")


def exit_later(seconds: float, why: str) -> threading.Timer:
    """A daemon timer that ends the process after `seconds` unless it exits first (or the
    timer is cancelled)."""
    timer = threading.Timer(seconds, _exit_now, args=("stop_timed_out",),
                            kwargs={"grace_seconds": seconds, "reason": why})
    timer.daemon = True
    timer.start()
    return timer
