"""The services as subprocesses, started from one place: the demo (`services.demo`), the
benchmarks (`tools/bench`) and the Kafka tests (`tests/kafka`) all start them here, so a
service added to the stack a person plays through (the views service was one) is added
once, for all of them.

`Service` is one `python -m services.<name>` with the common arguments (bootstrap, topic
prefix, consumer group, metrics port), its output in a log file; it can be stopped, killed
and started again (a restart appends to its log). `Stack` is a set of them on one topic
prefix; `Stack.start_playing()` starts `PLAYING`, what a person plays through.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import aiohttp

from services.common.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
# what a person plays through: the rules, the views people and bots see, the turn clock,
# the bots and the WebSocket gateway (in the order they are started)
PLAYING = ("processor", "views", "timers", "bots", "gateway")
# what the demo runs besides (the matchmaker: the lobby's quick play)
OTHERS = ("leaderboards", "replays", "auditor", "matchmaker")
PORT_MOVES = 3  # restarts of a service whose chosen metrics port was taken
GATEWAY_URL = re.compile(r"gateway listening on (http://\S+)")


class Service:
    """One service in a subprocess. `port`: its metrics port (None: a free one, so that
    `ready` can ask its /readyz; 0: none); `name`: what the logs and errors call it (the
    service's name unless given); `module`: another module taking the services' common
    arguments (a benchmark's reference loop)."""

    def __init__(self, service: str, bootstrap: str, prefix: str, *args: str,
                 log: Path, group: str | None = None, port: int | None = None,
                 env: Mapping[str, str] | None = None, log_level: str = "warning",
                 name: str | None = None, new_session: bool = False,
                 module: str | None = None) -> None:
        self.service = service
        self.name = name or service
        self.port = free_port() if port is None else port
        self.args = [sys.executable, "-m", module or f"services.{service}", "--bootstrap",
                     bootstrap, "--prefix", prefix, "--group", group or f"{prefix}-{service}",
                     "--metrics-port", str(self.port), *args]
        self.env = dict(env or {})
        self.log_level = log_level
        self.log = log
        # True: a session of its own, so a Ctrl-C at the terminal reaches only the starter
        # (the demo, which stops them itself); False: the starter's process group, so
        # killing that group (a test's timeout) ends the services too
        self.new_session = new_session
        self.proc: subprocess.Popen[bytes] | None = None
        self._port_chosen = port is None  # by free_port: it may move on a clash
        self._port_moves = 0
        self._log_at = 0  # the log's size when it was last started

    def start(self) -> Service:
        """Start it (again, after a stop or a kill: the log is appended to)."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._log_at = self.log.stat().st_size if self.log.exists() else 0
        env = dict(os.environ, OKEY_LOG_LEVEL=self.log_level, PYTHONUNBUFFERED="1",
                   **self.env)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.args, cwd=ROOT, env=env, stdout=out,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=self.new_session)
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal_stop(self) -> None:
        """SIGTERM (a graceful stop), without waiting."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM, then SIGKILL if it has not stopped within `timeout` seconds."""
        self.signal_stop()
        if self.proc is not None:
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    terminate = stop

    def kill(self) -> None:
        """SIGKILL (a crash), and wait for it."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.text().splitlines()[-lines:])

    async def wait_for(self, marker: str, times: int = 1, timeout: float = 60) -> None:
        """Until the log holds `marker` at least `times` times."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.text().count(marker) >= times:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{self.name}: no {marker!r} x{times} in {timeout}s\n{self.tail()}")

    def restarted_on_another_port(self) -> bool:
        """Start it again on another metrics port when it stopped because the one chosen
        for it was taken between free_port's check and its bind (another process chose the
        same port at the same moment); True if it did. At most three moves, and never for
        a port the caller gave."""
        if not self._port_chosen or self._port_moves >= PORT_MOVES or self.proc is None \
                or self.proc.poll() is None:
            return False
        if b"metrics_port_unavailable" not in self.log.read_bytes()[self._log_at:]:
            return False
        self._port_moves += 1
        self.port = free_port()
        self.args[self.args.index("--metrics-port") + 1] = str(self.port)
        self.start()
        return True

    def _gone(self) -> OSError:
        code = self.proc.returncode if self.proc is not None else None
        return OSError(f"the {self.name} stopped (exit status {code}); see {self.log}:\n"
                       f"{self.tail(15)}")

    async def ready(self, timeout: float = 120.0) -> float:
        """When the service first answers /readyz with 200 (its partitions assigned and
        rebuilt), as `time.perf_counter()`; OSError if it stops first."""
        if not self.port:
            raise ValueError(f"the {self.name} has no metrics port to ask")
        deadline = time.perf_counter() + timeout
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
            while time.perf_counter() < deadline:
                if not self.running:
                    if self.restarted_on_another_port():
                        continue
                    raise self._gone()
                with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                    async with http.get(f"http://127.0.0.1:{self.port}/readyz") as answer:
                        if answer.status == 200:
                            return time.perf_counter()
                await asyncio.sleep(0.02)
        raise TimeoutError(f"the {self.name} not ready after {timeout:.0f} s")

    def url(self) -> str | None:
        """The URL a gateway prints once it listens, if it has."""
        found = GATEWAY_URL.search(self.text())
        return found.group(1) if found else None

    async def listening(self, timeout: float = 120.0) -> str:
        """The gateway's URL, once it listens."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            url = self.url()
            if url:
                return url
            if self.proc is not None and self.proc.poll() is not None:
                if self.restarted_on_another_port():
                    continue
                raise self._gone()
            await asyncio.sleep(0.1)
        raise TimeoutError(f"the {self.name} did not listen within {timeout:.0f} s; see "
                           f"{self.log}")

    def cpu_seconds(self) -> float | None:
        """The CPU time the running process has used (Linux `/proc`), else None."""
        if self.proc is None:
            return None
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        """The running process's resident memory (Linux `/proc`), else 0."""
        if self.proc is None:
            return 0
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(found.group(1)) if found else 0


class Stack:
    """Services on one topic prefix, each logging to `logs`/`log_stem`<name>.log, each
    in its consumer group `prefix`-<name> unless told. `env`: more environment for every
    service (a gateway secret, credentials)."""

    def __init__(self, bootstrap: str, prefix: str, logs: Path, *, log_stem: str = "",
                 env: Mapping[str, str] | None = None, log_level: str = "warning",
                 new_session: bool = False) -> None:
        self.bootstrap, self.prefix, self.logs = bootstrap, prefix, logs
        self.log_stem = log_stem
        self.env = dict(env or {})
        self.log_level = log_level
        self.new_session = new_session
        self.services: dict[str, Service] = {}

    def service(self, service: str, *args: str, port: int | None = None,
                env: Mapping[str, str] | None = None, name: str | None = None,
                group: str | None = None) -> Service:
        """A service of this stack, not started yet."""
        label = name or service
        made = Service(service, self.bootstrap, self.prefix, *args,
                       log=self.logs / f"{self.log_stem}{label}.log", group=group, port=port,
                       env=self.env | dict(env or {}), log_level=self.log_level, name=label,
                       new_session=self.new_session)
        self.services[label] = made
        return made

    def launch(self, service: str, *args: str, port: int | None = None,
              env: Mapping[str, str] | None = None, name: str | None = None,
              group: str | None = None) -> Service:
        """A service of this stack, started."""
        return self.service(service, *args, port=port, env=env, name=name,
                            group=group).start()

    def start_playing(self, names: Sequence[str] = PLAYING,
                      args: Mapping[str, Sequence[str]] | None = None,
                      ports: Mapping[str, int] | None = None,
                      env: Mapping[str, Mapping[str, str]] | None = None) -> list[Service]:
        """The services a person plays through (`names`: those of PLAYING to start), each
        with its `args`; the bots fill no empty seat unless their args say otherwise (a
        table's "fill with bots" asks them)."""
        extra = {"bots": ["--no-fill-seats"]} | dict(args or {})
        return [self.launch(name, *extra.get(name, ()), port=(ports or {}).get(name),
                           env=(env or {}).get(name))
                for name in names]

    def __getitem__(self, name: str) -> Service:
        return self.services[name]

    async def ready(self, names: Iterable[str] | None = None, timeout: float = 120.0) -> None:
        """Until each service (those of `names`, else every one with a metrics port)
        answers /readyz with 200."""
        chosen = [self.services[n] for n in names] if names is not None else \
            [s for s in self.services.values() if s.port]
        await asyncio.gather(*(s.ready(timeout) for s in chosen))

    def stop(self, timeout: float = 30) -> None:
        """Every service stopped: all told at once, then each waited for."""
        for service in self.services.values():
            service.signal_stop()
        for service in self.services.values():
            service.stop(timeout)
