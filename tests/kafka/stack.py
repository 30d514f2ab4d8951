"""The services a person plays through (processor, views, timers, bots, gateway; the
matchmaker and the leaderboards when asked), as the demo and the benchmarks start them
(`services.common.stack`), on a fresh topic prefix, logging to .cache/test-logs/."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from services.common import stack
from services.common.ports import free_port
from tests.kafka.support import fresh_tag

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / ".cache" / "test-logs"
SECRET = "test-secret-" + "0123456789abcdef" * 2


class Stack(stack.Stack):
    def __init__(self, bootstrap: str, gateway_args: tuple[str, ...] = (),
                 processor_args: tuple[str, ...] = ()) -> None:
        prefix = f"gw{fresh_tag()}"
        super().__init__(bootstrap, prefix, LOGS, log_stem=f"{prefix}-", log_level="info",
                         env={"OKEY_GATEWAY_SECRET": SECRET, "KAFKA_BOOTSTRAP": bootstrap})
        self.gateway_args = gateway_args
        self.processor_args = processor_args
        self.url = ""
        self.leaderboards_port = 0

    def log(self, name: str) -> str:
        return self.services[name].text() if name in self.services else ""

    async def start(self, bots: bool = True, timers: bool = True,
                    leaderboards: bool = False, matchmaker: tuple[str, ...] | None = None
                    ) -> str:
        """`matchmaker`: its flags, to run services/matchmaker too (None: not run)."""
        gateway_args = self.gateway_args
        if leaderboards:  # the boards' HTTP API, read by the gateway's /api/me/standing
            self.leaderboards_port = free_port()
            self.launch("leaderboards", "--http-port", str(self.leaderboards_port), port=0)
            gateway_args += ("--leaderboards-url",
                             f"http://127.0.0.1:{self.leaderboards_port}")
        if matchmaker is not None:
            self.launch("matchmaker", "--tick-ms", "50", *matchmaker, port=0)
        names = [n for n in stack.PLAYING
                 if (bots or n != "bots") and (timers or n != "timers")]
        self.start_playing(names, {"processor": self.processor_args,
                                   "gateway": ("--port", "0", *gateway_args)},
                           ports=dict.fromkeys(names, 0))
        try:
            self.url = await self.services["gateway"].listening(120)
        except (OSError, TimeoutError) as exc:
            raise AssertionError(f"the gateway did not start:\n{self.log('gateway')[-3000:]}"
                                 ) from exc
        return self.url


@asynccontextmanager
async def running(bootstrap: str, *gateway_args: str, leaderboards: bool = False
                  ) -> AsyncIterator[Stack]:
    """The whole stack for one test, stopped after it."""
    started = Stack(bootstrap, gateway_args)
    try:
        await started.start(leaderboards=leaderboards)
        yield started
    finally:
        started.stop()
