"""No silent death (issue 26): a task of a service that ends for any reason other than
shutdown is seen at once.

`TASKS` (one per process) keeps the tasks that are down. A failure (`failed`) counts in
`okey_task_failures_total` by task, sets `okey_task_down`, logs `task_failed` once, and
makes /readyz answer 503 naming the task (`services.common.http.HealthServer` asks
`readiness`) until `recovered`. What then happens is the owner's choice, one of two:

- restarted in the process: the processor's partition workers (`services.processor.app`),
  whose restart keeps the count of the records that killed them, so a record that kills a
  worker twice is dead-lettered and skipped;
- the process exits non-zero, so systemd (`Restart=on-failure`) starts it again: every
  service's main loop (`run()`, `services.common.runtime.serve_settings`) and any task
  `watch`ed here (the broker probe): /readyz answers 503 naming the task for
  `EXIT_HOLD_S`, then the process exits with status 1.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any

import structlog
from prometheus_client import Counter, Gauge

log = structlog.get_logger("tasks")
EXIT_HOLD_S = 2.0  # /readyz says which task failed this long before the process exits

TASK_FAILURES = Counter("okey_task_failures_total", "Tasks (partition workers, consumer "
                        "loops, background tasks) that ended other than at shutdown, by task",
                        ["task"])
TASK_DOWN = Gauge("okey_task_down", "1 while a task that failed is not running again", ["task"])


class Tasks:
    def __init__(self) -> None:
        self.down: dict[str, str] = {}  # task name: why it ended
        self.stopping = False
        self.fatal = asyncio.Event()  # a watched task ended: the process is to exit
        self.failed_at: dict[str, float] = {}
        self.labels: dict[str, str] = {}  # task name: its metric label
        self.verbs: dict[str, str] = {}  # task name: what befell it ("ended", "stalled")

    def failed(self, name: str, why: BaseException | str, label: str | None = None,
               verb: str = "ended") -> None:
        text = why if isinstance(why, str) else f"{type(why).__name__}: {why}"[:300]
        self.down[name] = text
        self.verbs[name] = verb
        self.failed_at[name] = time.monotonic()
        task = self.labels[name] = label or name
        TASK_FAILURES.labels(task).inc()
        TASK_DOWN.labels(task).set(1)
        if isinstance(why, BaseException):
            log.error("task_failed", task=name, error=text, exc_info=why)
        else:
            log.error("task_failed", task=name, error=text)

    def recovered(self, name: str) -> None:
        if self.down.pop(name, None) is None:
            return
        log.info("task_restarted", task=name)
        label = self.labels.get(name, name)
        if not any(self.labels.get(n, n) == label for n in self.down):
            TASK_DOWN.labels(label).set(0)

    def recovered_after(self, name: str, shown: float) -> None:
        """`recovered`, once the failure has been shown for `shown` seconds (unless the
        task fails again meanwhile)."""
        failed_at = self.failed_at.get(name)
        if failed_at is None:
            return
        wait = failed_at + shown - time.monotonic()
        if wait <= 0:
            self.recovered(name)
            return

        def later() -> None:
            if self.failed_at.get(name) == failed_at:
                self.recovered(name)

        asyncio.get_running_loop().call_later(wait, later)

    def unready(self) -> str | None:
        """Why /readyz must answer 503 (the tasks down, named), or None."""
        if not self.down:
            return None
        return "; ".join(f"{name} {self.verbs.get(name, 'ended')}: {why}"
                         for name, why in sorted(self.down.items()))

    def watch(self, name: str, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A background task whose end, other than at shutdown (`stopping`) or by its
        owner's cancelling it, makes the process exit non-zero."""
        task = asyncio.create_task(coro, name=name)

        def ended(done: asyncio.Task[None]) -> None:
            if self.stopping or done.cancelled():  # only its owner cancels it: a stop
                return
            error = done.exception()
            self.failed(name, error if error is not None else "returned")
            self.fatal.set()

        task.add_done_callback(ended)
        return task

    def reset(self) -> None:
        self.down.clear()
        self.failed_at.clear()
        self.labels.clear()
        self.verbs.clear()
        self.stopping = False
        self.fatal = asyncio.Event()


TASKS = Tasks()
