"""Each service's one HTTP endpoint (aiohttp): `/metrics`, `/healthz`, `/readyz`.

- `/metrics`: the Prometheus text exposition of the process's registry.
- `/healthz`: 200 while the process's event loop answers (liveness: restart when it fails).
- `/readyz`: 200 when the service says it is ready (its partitions assigned and rebuilt:
  `ReportsReadiness`), no task of it is down (`services.common.tasks`) and the broker
  answered the last probe; 503 otherwise, with the reason in the JSON body. `okey_ready`
  carries the same answer as a metric.

Every service's HTTP application (this one, the gateway's, the leaderboards' and the
replays') runs `json_errors`: a malformed request is a 400 with a JSON error naming the
problem (`{"code": "malformed", "error": ...}`), any other refusal aiohttp raises (404,
405, 413) is JSON too, never a 500 or an HTML page. A body is read with `json_body`,
which refuses a text nested too deep before decoding it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
import structlog
from aiohttp import web
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Gauge
from prometheus_client.exposition import generate_latest

from okey101.app.jsondepth import MAX_DEPTH, too_deep
from okey101.errors import MalformedInput
from services.common.kafka import admin_client
from services.common.tasks import TASKS

log = structlog.get_logger("http")

READY = Gauge("okey_ready", "1 when this instance is ready: partitions assigned and "
              "rebuilt, broker reachable (as /readyz answers)")
BROKER_REACHABLE = Gauge("okey_broker_reachable",
                         "1 when the broker answered this instance's last probe")


def problem(status: int, code: str, message: str) -> web.Response:
    """A refused request: its status and a JSON error, `code` stable, `error` in words."""
    return web.json_response({"code": code, "error": message}, status=status)


@web.middleware
async def json_errors(request: web.Request,
                      handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                      ) -> web.StreamResponse:
    """Malformed input (`MalformedInput`, from `json_body` or a handler) is a 400; an
    error aiohttp raises is answered with its own status, in JSON."""
    try:
        return await handler(request)
    except MalformedInput as exc:
        return problem(400, "malformed", str(exc))
    except web.HTTPException as exc:
        if exc.status < 400 or exc.content_type == "application/json":
            raise
        code = exc.reason.lower().replace(" ", "_").replace("-", "_")
        return problem(exc.status, code, exc.text or exc.reason)


async def json_body(request: web.Request, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """The request's body, a JSON object; MalformedInput naming what is wrong (not JSON,
    nested past `max_depth`, not an object). A body past the application's
    client_max_size is aiohttp's 413."""
    raw = await request.read()
    if too_deep(raw, max_depth):
        raise MalformedInput(f"the body nests deeper than {max_depth} levels")
    try:
        body = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise MalformedInput(f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise MalformedInput(f"the body must be a JSON object, not {type(body).__name__}")
    return body


@dataclass(frozen=True, slots=True)
class Readiness:
    ready: bool
    reason: str = ""  # what is missing, when not ready


class ReportsReadiness(Protocol):
    """What a service tells /readyz; cheap and synchronous (called on every request)."""

    def readiness(self) -> Readiness: ...


class BrokerProbe:
    """Asks the cluster for its metadata every `period` seconds, with its own admin client,
    so that /readyz knows whether the broker answers without touching the service's
    clients."""

    def __init__(self, bootstrap: str, period: float = 5.0, timeout: float = 3.0) -> None:
        self.bootstrap = bootstrap
        self.period = period
        self.timeout = timeout
        self.reachable = False
        self.error = "not probed yet"
        self.checked_at = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = TASKS.watch("broker probe", self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _loop(self) -> None:
        admin: AIOKafkaAdminClient | None = None
        try:
            while True:
                try:
                    if admin is None:
                        admin = admin_client(self.bootstrap, int(self.timeout * 1000))
                        await asyncio.wait_for(admin.start(), self.timeout)
                    await asyncio.wait_for(admin.describe_cluster(), self.timeout)
                    self._answer(True, "")
                except (KafkaError, OSError, TimeoutError) as exc:
                    self._answer(False, repr(exc))
                    if admin is not None:
                        await _close_quietly(admin)
                        admin = None
                await asyncio.sleep(self.period)
        finally:
            if admin is not None:
                await _close_quietly(admin)

    def _answer(self, reachable: bool, error: str) -> None:
        if reachable != self.reachable:
            (log.info if reachable else log.warning)(
                "broker_reachable" if reachable else "broker_unreachable",
                bootstrap=self.bootstrap, error=error or None)
        self.reachable, self.error, self.checked_at = reachable, error, time.time()
        BROKER_REACHABLE.set(1 if reachable else 0)


class HealthServer:
    """The aiohttp application serving the three paths on the service's metrics port."""

    def __init__(self, service: ReportsReadiness | None, probe: BrokerProbe | None,
                 registry: CollectorRegistry = REGISTRY) -> None:
        self.service = service
        self.probe = probe
        self.registry = registry
        self.runner: web.AppRunner | None = None
        app = web.Application(middlewares=[json_errors])
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        self.app = app

    async def start(self, host: str, port: int) -> None:
        """Listen; an OSError (the port is taken) is the caller's to report."""
        self.runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self.runner.setup()
        try:
            await web.TCPSite(self.runner, host, port).start()
        except BaseException:
            await self.runner.cleanup()
            self.runner = None
            raise

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    def readiness(self) -> Readiness:
        answer = self.service.readiness() if self.service else Readiness(False, "starting")
        down = TASKS.unready()
        if down is not None:  # a task that ended: named, whatever else the service says
            answer = Readiness(False, f"task failed: {down}")
        if answer.ready and self.probe is not None and not self.probe.reachable:
            answer = Readiness(False, f"broker unreachable: {self.probe.error}")
        READY.set(1 if answer.ready else 0)
        return answer

    async def _metrics(self, request: web.Request) -> web.Response:
        self.readiness()  # okey_ready as of this scrape
        return web.Response(body=generate_latest(self.registry),
                            headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"alive": True})

    async def _readyz(self, request: web.Request) -> web.Response:
        answer = self.readiness()
        return web.json_response({"ready": answer.ready, "reason": answer.reason},
                                 status=200 if answer.ready else 503)


async def _close_quietly(admin: AIOKafkaAdminClient) -> None:
    with contextlib.suppress(KafkaError, OSError, TimeoutError):
        await asyncio.wait_for(admin.close(), 5)
