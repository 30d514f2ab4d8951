"""The start, stop and readiness every service shares (`services.common.runtime` drives
them): `stop()` sets the flag the service's loops watch, and /readyz says "stopping", then
"connecting" until the Kafka clients are started, then the service's own `not_ready()`
reason, if any."""

from __future__ import annotations

import asyncio
from typing import Any

from services.common.http import Readiness
from services.common.watchdog import PROGRESS


class Lifecycle:
    """A service's base: subclasses call `super().__init__()` and set `consumer` once their
    Kafka clients have started."""

    consumer: Any = None

    def __init__(self) -> None:
        self._stopping = asyncio.Event()

    @property
    def is_stopping(self) -> bool:
        return self._stopping.is_set()

    def stop(self) -> None:
        self._stopping.set()

    def beat(self, loop: str = "main") -> None:
        """The loop `loop` made progress (call it once an iteration, idle polls included):
        the watchdog (`services.common.watchdog`) ends a process whose loop stops beating."""
        PROGRESS.beat(loop)

    async def until_stopped(self) -> None:
        await self._stopping.wait()

    def is_connected(self) -> bool:
        return self.consumer is not None

    def not_ready(self) -> str | None:
        """Why the service, connected, cannot serve yet (None: it can)."""
        return None

    def readiness(self) -> Readiness:
        if self.is_stopping:
            return Readiness(False, "stopping")
        if not self.is_connected():
            return Readiness(False, "connecting")
        reason = self.not_ready()
        return Readiness(reason is None, reason or "")
