"""The services a person plays through, as subprocesses: processor, views, timers, bots,
matchmaker, gateway."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.kafka.support import fresh_tag

ROOT = Path(__file__).resolve().parents[2]
SECRET = "test-secret-" + "0123456789abcdef" * 2
URL = re.compile(r"gateway listening on (http://\S+)")


class Stack:
    def __init__(self, bootstrap: str, gateway_args: tuple[str, ...] = (),
                 processor_args: tuple[str, ...] = ()) -> None:
        self.bootstrap = bootstrap
        self.prefix = f"gw{fresh_tag()}"
        self.logs = ROOT / ".cache" / "test-logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.gateway_args = gateway_args
        self.processor_args = processor_args
        self.url = ""

    def _start(self, name: str, *args: str) -> None:
        env = dict(os.environ, OKEY_LOG_LEVEL="info", PYTHONUNBUFFERED="1",
                   OKEY_GATEWAY_SECRET=SECRET, KAFKA_BOOTSTRAP=self.bootstrap)
        log = self.logs / f"{self.prefix}-{name}.log"
        with open(log, "ab") as out:
            self.procs[name] = subprocess.Popen(
                [sys.executable, "-m", f"services.{name}", "--prefix", self.prefix,
                 "--group", f"{self.prefix}-{name}", "--metrics-port", "0", *args],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def log(self, name: str) -> str:
        path = self.logs / f"{self.prefix}-{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    async def start(self, bots: bool = True, timers: bool = True,
                    matchmaker: tuple[str, ...] | None = None) -> str:
        """`matchmaker`: its flags, to run services/matchmaker too (None: not run)."""
        self._start("processor", *self.processor_args)
        if matchmaker is not None:
            self._start("matchmaker", "--tick-ms", "50", *matchmaker)
        self._start("views")
        if timers:
            self._start("timers")
        if bots:
            self._start("bots", "--no-fill-seats")
        self._start("gateway", "--port", "0", *self.gateway_args)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            found = URL.search(self.log("gateway"))
            if found:
                self.url = found.group(1)
                return self.url
            if self.procs["gateway"].poll() is not None:
                break
            await asyncio.sleep(0.1)
        raise AssertionError(f"the gateway did not start:\n{self.log('gateway')[-3000:]}")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
